// colltune's messages on stderr, one line each, prefixed "colltune: ". Logging never throws.
#pragma once

#include <cstddef>
#include <string>

namespace colltune {

void log_line(const std::string& s) noexcept;
// Logs `s` once per process for `key`; at most 256 distinct keys are kept, then one line says
// that further messages are dropped.
void log_once(const std::string& key, const std::string& s) noexcept;
std::size_t logged_once_keys() noexcept;  // for tests
// For paths where allocation may have failed: a fixed-size buffer, never throws.
void log_line_noexcept(const char* fmt, ...) noexcept __attribute__((format(printf, 1, 2)));

}  // namespace colltune
