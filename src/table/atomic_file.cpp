#include "atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <random>

#include "../test_hooks.hpp"
#include "yaml_util.hpp"

namespace colltune {

namespace {

std::string errno_text() { return std::strerror(errno); }

std::string directory_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string host_name() {
  char h[256] = {};
  if (::gethostname(h, sizeof h - 1) != 0) return "host";
  std::string s(h);
  std::replace(s.begin(), s.end(), '.', '_');  // the name's fields are split at dots
  return s;
}

}  // namespace

std::string temporary_prefix(const std::string& path) { return path + ".tmp."; }

int remove_stale_temporaries(const std::string& path, double older_than) noexcept {
  int removed = 0;
  try {
    const std::string dir = directory_of(path);
    const std::string prefix = temporary_prefix(path).substr(dir == "/" ? 1 : dir.size() + 1);
    const std::string here = host_name();
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
      const std::string name = e.path().filename().string();
      if (name.compare(0, prefix.size(), prefix) != 0) continue;
      // NAME.tmp.HOST.PID.RANDOM: a writer of this host that is gone, or any older than the limit.
      const std::string rest = name.substr(prefix.size());
      const auto dot1 = rest.find('.');
      const auto dot2 = dot1 == std::string::npos ? dot1 : rest.find('.', dot1 + 1);
      bool stale = false;
      struct stat st;
      if (::lstat(e.path().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
      if (dot2 != std::string::npos && rest.substr(0, dot1) == here) {
        const long pid = std::strtol(rest.c_str() + dot1 + 1, nullptr, 10);
        stale = pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
      }
      if (!stale && static_cast<double>(std::time(nullptr) - st.st_mtime) > older_than) {
        stale = true;
      }
      if (stale && ::unlink(e.path().c_str()) == 0) ++removed;
    }
  } catch (...) {
  }
  return removed;
}

void write_file_atomically(const std::string& path, std::string_view text, int mode) {
  // A writer killed mid-write left its temporary: removed before this one is written.
  (void)remove_stale_temporaries(path, 24 * 3600.0);
  std::random_device rd;
  const std::string tmp = temporary_prefix(path) + host_name() + "." + std::to_string(::getpid()) +
                          "." + std::to_string(rd() & 0xffffff);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) throw InputError(path, 0, "file", "cannot create " + tmp + ": " + errno_text());
  auto fail = [&](const std::string& what) {
    const std::string why = what + ": " + errno_text();
    ::close(fd);
    ::unlink(tmp.c_str());
    throw InputError(path, 0, "file", why);
  };
  // Test builds: a pause halfway through the text (a slow file system), so that tests can kill
  // or contend with a writer mid-write.
  const char* slow = hooks::value(hooks::Hook::kSlowWrite);
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
