// Replacing a file so that a reader sees the old contents or the new, never a mix, and a crash
// or a failed write leaves the old file: write a temporary in the same directory (O_EXCL, no
// symlink followed), fsync it, rename it over the target, fsync the directory.
#pragma once

#include <string>
#include <string_view>

namespace colltune {

// Throws InputError naming `path` and what failed; the temporary (PATH.tmp.HOST.PID.RANDOM) is
// removed on failure, and those of writers killed mid-write are removed before writing.
void write_file_atomically(const std::string& path, std::string_view text, int mode = 0644);

// PATH's temporaries of writers that are gone: of this host, a process that no longer exists;
// of any host, older than `older_than` seconds. Returns how many were removed.
int remove_stale_temporaries(const std::string& path, double older_than) noexcept;
std::string temporary_prefix(const std::string& path);

}  // namespace colltune
