#include "log.hpp"

#include <cstdarg>
#include <cstdio>
#include <mutex>
#include <set>

namespace colltune {

namespace {
std::mutex g_log_mutex;
std::set<std::string> g_logged_once;
}  // namespace

void log_line(const std::string& s) {
  const std::string line = "colltune: " + s + "\n";
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
}

void log_once(const std::string& key, const std::string& s) {
  {
    std::lock_guard<std::mutex> lock(g_log_mutex);
    if (!g_logged_once.insert(key).second) return;
  }
  log_line(s);
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
