#include "log.hpp"

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <unordered_set>

namespace colltune {

namespace {
std::mutex g_log_mutex;
std::unordered_set<std::string> g_logged_once;
// Distinct once-messages kept per process; past it one line says that further ones are dropped.
constexpr std::size_t kMaxOnceKeys = 256;
}  // namespace

void log_line(const std::string& s) noexcept {
  // One write per line (stderr is unbuffered: ranks sharing it must not interleave within a
  // line), from a buffer on the stack: a message never fails the call that logs it.
  static constexpr char kPrefix[] = "colltune: ";
  constexpr std::size_t kP = sizeof kPrefix - 1;
  char buf[4096];
  if (s.size() + kP + 1 <= sizeof buf) {
    std::memcpy(buf, kPrefix, kP);
    std::memcpy(buf + kP, s.data(), s.size());
    buf[kP + s.size()] = '\n';
    std::fwrite(buf, 1, kP + s.size() + 1, stderr);
  } else {
    std::fputs(kPrefix, stderr);
    std::fwrite(s.data(), 1, s.size(), stderr);
    std::fputs("\n", stderr);
  }
  std::fflush(stderr);
}

void log_once(const std::string& key, const std::string& s) noexcept {
  bool full = false;
  try {
    std::lock_guard<std::mutex> lock(g_log_mutex);
    if (g_logged_once.count(key)) return;
    if (g_logged_once.size() >= kMaxOnceKeys) {
      if (g_logged_once.size() > kMaxOnceKeys) return;  // the notice below is out already
      full = true;
      g_logged_once.insert("");  // one more than the limit: the notice is said once
    } else {
      g_logged_once.insert(key);
    }
  } catch (...) {
    return;  // out of memory: the message is dropped
  }
  if (full) {
    log_line_noexcept("%zu distinct messages said; further ones are not shown", kMaxOnceKeys);
    return;
  }
  log_line(s);
}

std::size_t logged_once_keys() noexcept {
  std::lock_guard<std::mutex> lock(g_log_mutex);
  return g_logged_once.size();
}

void log_line_noexcept(const char* fmt, ...) noexcept {
  char buf[512] = "colltune: ";
  constexpr std::size_t kPrefix = sizeof("colltune: ") - 1;
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf + kPrefix, sizeof(buf) - kPrefix - 1, fmt, ap);
  va_end(ap);
  const std::size_t n = std::strlen(buf);
  buf[n] = '\n';  // room kept: vsnprintf wrote at most sizeof(buf) - 2 characters
  std::fwrite(buf, 1, n + 1, stderr);
  std::fflush(stderr);
}

}  // namespace colltune
