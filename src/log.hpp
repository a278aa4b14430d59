// colltune's messages on stderr, one line each, prefixed "colltune: ".
#pragma once

#include <string>

namespace colltune {

void log_line(const std::string& s);
// Logs `s` once per process for `key`.
void log_once(const std::string& key, const std::string& s);
// For paths where allocation may have failed: a fixed-size buffer, never throws.
void log_line_noexcept(const char* fmt, ...) noexcept __attribute__((format(printf, 1, 2)));

}  // namespace colltune
