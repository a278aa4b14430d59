#include "atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <random>

#include "yaml_util.hpp"

namespace colltune {

namespace {

std::string errno_text() { return std::strerror(errno); }

std::string directory_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

void write_file_atomically(const std::string& path, std::string_view text, int mode) {
  std::random_device rd;
  const std::string tmp =
      path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(rd() & 0xffffff);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) throw InputError(path, 0, "file", "cannot create " + tmp + ": " + errno_text());
  auto fail = [&](const std::string& what) {
    const std::string why = what + ": " + errno_text();
    ::close(fd);
    ::unlink(tmp.c_str());
    throw InputError(path, 0, "file", why);
  };
  // Test hook: COLLTUNE_TEST_SLOW_WRITE=S pauses S seconds halfway through the text (a slow file
  // system), so that tests can kill or contend with a writer mid-write.
  const char* slow = std::getenv("COLLTUNE_TEST_SLOW_WRITE");
  std::size_t done = 0, pause_at = slow ? text.size() / 2 : text.size() + 1;
  while (done < text.size()) {
    const std::size_t upto = std::min(done < pause_at ? pause_at : text.size(), text.size());
    const ssize_t n = ::write(fd, text.data() + done, upto - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("write failed");
    done += static_cast<std::size_t>(n);
    if (slow && done == pause_at) {
      ::usleep(static_cast<useconds_t>(std::clamp(std::atof(slow), 0.0, 600.0) * 1e6));
      pause_at = text.size() + 1;
    }
  }
  if (::fchmod(fd, static_cast<mode_t>(mode)) != 0) fail("chmod failed");  // umask aside
  if (::fsync(fd) != 0) fail("fsync failed");
  if (::close(fd) != 0) {
    ::unlink(tmp.c_str());
    throw InputError(path, 0, "file", "close failed: " + errno_text());
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = errno_text();
    ::unlink(tmp.c_str());
    throw InputError(path, 0, "file", "cannot replace (rename failed: " + why + ")");
  }
  const int dfd = ::open(directory_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0 || ::fsync(dfd) != 0) {
    const std::string why = errno_text();
    if (dfd >= 0) ::close(dfd);
    throw InputError(path, 0, "file", "written, but its directory could not be synced: " + why);
  }
  ::close(dfd);
}

}  // namespace colltune
