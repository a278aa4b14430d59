// Replacing a file so that a reader sees the old contents or the new, never a mix, and a crash
// or a failed write leaves the old file: write a temporary in the same directory (O_EXCL, no
// symlink followed), fsync it, rename it over the target, fsync the directory.
#pragma once

#include <string>
#include <string_view>

namespace colltune {

// Throws InputError naming `path` and what failed; the temporary is removed on failure.
void write_file_atomically(const std::string& path, std::string_view text, int mode = 0644);

}  // namespace colltune
