#include "yaml_util.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "../mapped_alloc.hpp"

namespace colltune {

namespace {
constexpr std::size_t kMaxFileBytes = 16u << 20;

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}
}  // namespace

std::string format_utc(double epoch_seconds) {
  const std::time_t t = static_cast<std::time_t>(epoch_seconds);
  std::tm tm{};
  char b[32] = {};
  if (!gmtime_r(&t, &tm) || std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0) return "";
  return b;
}

std::optional<double> parse_utc(std::string_view text) {
  // Exactly YYYY-MM-DDTHH:MM:SSZ; the date must survive a round trip through timegm.
  if (text.size() != 20) return std::nullopt;
  for (std::size_t i = 0; i < 20; ++i) {
    const char want = "dddd-dd-ddTdd:dd:ddZ"[i];
    const char c = text[i];
    if (want == 'd' ? !std::isdigit(static_cast<unsigned char>(c)) : c != want) return std::nullopt;
  }
  auto num = [&](std::size_t at, std::size_t n) {
    int v = 0;
    for (std::size_t i = at; i < at + n; ++i) v = v * 10 + (text[i] - '0');
    return v;
  };
  std::tm tm{};
  tm.tm_year = num(0, 4) - 1900;
  tm.tm_mon = num(5, 2) - 1;
  tm.tm_mday = num(8, 2);
  tm.tm_hour = num(11, 2);
  tm.tm_min = num(14, 2);
  tm.tm_sec = num(17, 2);
  const std::tm asked = tm;
  const std::time_t t = timegm(&tm);
  if (tm.tm_year != asked.tm_year || tm.tm_mon != asked.tm_mon || tm.tm_mday != asked.tm_mday ||
      tm.tm_hour != asked.tm_hour || tm.tm_min != asked.tm_min || tm.tm_sec != asked.tm_sec) {
    return std::nullopt;
  }
  return static_cast<double>(t);
}

namespace {
// A file descriptor closed on scope exit.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// Opens a regular file of at most kMaxFileBytes without waiting (O_NONBLOCK: a FIFO swapped in
// would block the open) and checks what was opened (fstat), not the name; `follow_links` false
// refuses a symbolic link (O_NOFOLLOW). Throws InputError.
int open_bounded(const std::string& file, bool follow_links, std::size_t* size) {
  const int fd =
      ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | (follow_links ? 0 : O_NOFOLLOW));
  if (fd < 0) {
    if (errno == ELOOP && !follow_links) {
      throw InputError(file, 0, "file", "is a symbolic link (refused here)");
    }
    throw InputError(file, 0, "file",
                     std::string("cannot be opened for reading: ") + std::strerror(errno));
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw InputError(file, 0, "file", "not a regular file");
  }
  if (static_cast<std::uintmax_t>(st.st_size) > kMaxFileBytes) {
    ::close(fd);
    throw InputError(file, 0, "file", "larger than 16 MiB");
  }
  *size = static_cast<std::size_t>(st.st_size);
  return fd;
}

// Refuses YAML aliases (*name): a 1 MB file of nested aliases expands into billions of nodes.
class AliasRefuser : public YAML::EventHandler {
 public:
  explicit AliasRefuser(const std::string& file) : file_(file) {}
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override {
    throw InputError(file_, mark.is_null() ? 0 : mark.line + 1, "yaml",
                     "aliases (*name) are not accepted; write the value out");
  }
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

 private:
  const std::string& file_;
};
}  // namespace

MappedString read_text_file(const std::string& file, bool follow_links) {
  std::size_t size = 0;
  Fd fd{open_bounded(file, follow_links, &size)};
  MappedString text(size, '\0');
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::read(fd.fd, text.data() + done, size - done);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) throw InputError(file, 0, "file", "read error");
    done += static_cast<std::size_t>(n);
  }
  return text;
}

YAML::Node YamlReader::load() const {
  // Read whole outside malloc (mapped_alloc.hpp: a large temporary freed here would move the
  // application's malloc threshold).
  const MappedString text = read_text_file(file_);
  return load_string(text);
}

YAML::Node YamlReader::load_string(std::string_view text) const {
  {
    ViewStream events(text);
    try {
      YAML::Parser parser(events);
      AliasRefuser refuse(file_);
      (void)parser.HandleNextDocument(refuse);  // the one document YAML::Load reads
    } catch (const YAML::Exception& e) {
      throw InputError(file_, e.mark.is_null() ? 0 : e.mark.line + 1, "yaml", e.msg);
    }
  }
  ViewStream in(text);
  return parse(in);
}

YAML::Node YamlReader::parse(std::istream& in) const {
  YAML::Node n;
  try {
    n = YAML::Load(in);
  } catch (const YAML::Exception& e) {
    throw InputError(file_, e.mark.is_null() ? 0 : e.mark.line + 1, "yaml", e.msg);
  }
  if (in.bad()) throw InputError(file_, 0, "file", "read error");
  return n;
}

void YamlReader::fail(const YAML::Node& at, const std::string& field,
                      const std::string& what) const {
  int line = 0;
  if (at.IsDefined() && !at.Mark().is_null()) line = at.Mark().line + 1;
  throw InputError(file_, line, field, what);
}

void YamlReader::require_map(const YAML::Node& n, const std::string& field) const {
  if (!n.IsMap()) fail(n, field, "must be a mapping");
}

void YamlReader::require_seq(const YAML::Node& n, const std::string& field) const {
  if (!n.IsSequence()) fail(n, field, "must be a list");
}

void YamlReader::check_keys(const YAML::Node& map, const std::string& field,
                            const std::vector<std::string>& allowed) const {
  for (const auto& kv : map) {
    if (!kv.first.IsScalar()) fail(kv.first, field, "keys must be plain names");
    const std::string key = kv.first.Scalar();
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      fail(kv.first, field + "." + key, "unknown key (valid: " + join(allowed) + ")");
    }
  }
}

std::string YamlReader::scalar(const YAML::Node& n, const std::string& field) const {
  if (!n.IsScalar()) fail(n, field, "must be a single value");
  return n.Scalar();
}

std::uint64_t YamlReader::number(const YAML::Node& n, const std::string& field, bool bytes,
                                 std::uint64_t absurd) const {
  const std::string s = scalar(n, field);
  std::size_t i = 0;
  std::uint64_t v = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
    const std::uint64_t d = static_cast<std::uint64_t>(s[i] - '0');
    if (v > (kMaxValue - d) / 10) fail(n, field, "'" + s + "' is too large");
    v = v * 10 + d;
    ++i;
  }
  const std::string what =
      bytes ? "a byte count (e.g. 4096, 64KiB, 1MiB, 2GiB)" : "a non-negative integer";
  if (i == 0) fail(n, field, "'" + s + "' is not " + what);
  std::string suffix = s.substr(i);
  std::uint64_t mult = 1;
  if (!suffix.empty()) {
    if (!bytes) fail(n, field, "'" + s + "' is not " + what);
    if (suffix == "K" || suffix == "KiB")
      mult = 1ull << 10;
    else if (suffix == "M" || suffix == "MiB")
      mult = 1ull << 20;
    else if (suffix == "G" || suffix == "GiB")
      mult = 1ull << 30;
    else if (suffix != "B")
      fail(n, field, "'" + s + "' has an unknown unit (valid: B, KiB, MiB, GiB)");
  }
  if (v > absurd / mult) {
    fail(n, field, "'" + s + "' is absurd (at most " + std::to_string(absurd) + ", or max)");
  }
  return v * mult;
}

Range YamlReader::range(const YAML::Node& n, const std::string& field, bool bytes,
                        std::uint64_t absurd) const {
  if (n.IsScalar()) {
    const std::uint64_t v = number(n, field, bytes, absurd);
    return {v, v};
  }
  if (!n.IsSequence() || n.size() != 2) {
    fail(n, field, "must be N or [lo, hi] (hi may be max)");
  }
  Range r;
  r.lo = number(n[0], field, bytes, absurd);
  if (n[1].IsScalar() && n[1].Scalar() == "max") {
    r.hi = kMaxValue;
  } else {
    r.hi = number(n[1], field, bytes, absurd);
  }
  if (r.lo > r.hi) fail(n, field, "lower bound above upper bound in " + range_to_string(r));
  return r;
}

}  // namespace colltune
