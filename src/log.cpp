#include "log.hpp"

#include <cstdarg>
#include <cstdio>
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
  // Two writes, no allocation: a message never fails the call that logs it.
  std::fputs("colltune: ", stderr);
  std::fwrite(s.data(), 1, s.size(), stderr);
  std::fputs("\n", stderr);
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
  std::fputs(buf, stderr);
  std::fputs("\n", stderr);
  std::fflush(stderr);
}

}  // namespace colltune
