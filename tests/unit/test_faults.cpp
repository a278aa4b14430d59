// In-process faults (docs/faults.md): the pieces that need no MPI job.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "identity.hpp"
#include "log.hpp"
#include "runtime/state.hpp"
#include "settings.hpp"
#include "table/atomic_file.hpp"
#include "table/yaml_util.hpp"

namespace colltune {
namespace {

TEST(Faults, ACacheHoldsItsCapacityAndEvictsTheLeastRecentlyUsed) {
  LruCache<int> c;
  constexpr std::size_t cap = LruCache<int>::kCapacity;
  for (int k = 0; k < 4 * static_cast<int>(cap); ++k) {
    c.insert(k, k * 10);
    c.commit();
    ASSERT_LE(c.size(), cap);
    if (k == 2) ASSERT_NE(c.find(0), nullptr);  // 0 used again: younger than 1 and 2
  }
  EXPECT_EQ(c.size(), cap);
  const int last = 4 * static_cast<int>(cap) - 1;
  ASSERT_NE(c.find(last), nullptr);
  EXPECT_EQ(*c.find(last), last * 10);
  EXPECT_EQ(c.find(0), nullptr);
  EXPECT_EQ(c.find(last - static_cast<int>(cap)), nullptr);
  // An entry some rank could not build is abandoned before anything is evicted for it.
  const int oldest = last - static_cast<int>(cap) + 1;
  c.insert(1000, 1);
  EXPECT_EQ(c.size(), cap + 1);
  c.abandon(1000);
  EXPECT_EQ(c.size(), cap);
  EXPECT_EQ(c.find(1000), nullptr);
  EXPECT_NE(c.find(oldest), nullptr);
}

TEST(Faults, OnceMessagesAreBoundedPerProcess) {
  for (int i = 0; i < 1000; ++i) log_once("unit-key-" + std::to_string(i), "unit message");
  EXPECT_LE(logged_once_keys(), 257u);
}

TEST(Faults, YamlAliasesAreRefusedWithTheirLine) {
  const std::string text =
      "a: &x [1, 2]\n"
      "b: [*x, *x]\n";
  YamlReader y("t.yaml");
  try {
    y.load_string(text);
    FAIL() << "an alias was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "t.yaml:2: yaml: aliases (*name) are not accepted; write the value out");
  }
  // A billion laughs: refused at its first alias, not expanded.
  std::string laughs = "l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  for (int i = 1; i < 12; ++i) {
    laughs += "l" + std::to_string(i) + ": &l" + std::to_string(i) + " [";
    for (int j = 0; j < 10; ++j)
      laughs += std::string(j ? ", " : "") + "*l" + std::to_string(i - 1);
    laughs += "]\n";
  }
  EXPECT_THROW(y.load_string(laughs), InputError);
  EXPECT_NO_THROW(y.load_string("a: [1, 2]\nb: {c: 3}\n"));
}

// A FIFO swapped in for the file while it is being opened: every read returns, none waits for
// a writer (the name is not checked before the open; what was opened is).
TEST(Faults, AFileSwappedForAFifoNeverBlocksTheRead) {
  const std::string dir = ::testing::TempDir() + "colltune-swap-" + std::to_string(::getpid());
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  const std::string path = dir + "/t.yaml", reg = dir + "/reg", fifo = dir + "/fifo";
  std::atomic<bool> stop{false};
  std::thread swapper([&] {
    while (!stop) {
      { std::ofstream(reg) << "a: 1\n"; }
      (void)std::rename(reg.c_str(), path.c_str());
      (void)::mkfifo(fifo.c_str(), 0600);
      (void)std::rename(fifo.c_str(), path.c_str());
    }
  });
  int regular = 0, refused = 0;
  for (int i = 0; i < 3000; ++i) {
    try {
      (void)read_text_file(path);
      ++regular;
    } catch (const InputError&) {
      ++refused;
    }
  }
  stop = true;
  swapper.join();
  std::filesystem::remove_all(dir);
  EXPECT_EQ(regular + refused, 3000);
}

TEST(Faults, ASymbolicLinkIsRefusedWhereLinksAreNotFollowed) {
  const std::string dir = ::testing::TempDir() + "colltune-link-" + std::to_string(::getpid());
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  { std::ofstream(dir + "/real") << "a: 1\n"; }
  ASSERT_EQ(::symlink((dir + "/real").c_str(), (dir + "/link").c_str()), 0);
  EXPECT_EQ(std::string(read_text_file(dir + "/link").data(), 5), "a: 1\n");
  try {
    (void)read_text_file(dir + "/link", /*follow_links=*/false);
    FAIL() << "a link was followed";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), dir + "/link: file: is a symbolic link (refused here)");
  }
  std::filesystem::remove_all(dir);
}

TEST(Faults, TemporariesOfWritersThatAreGoneAreRemoved) {
  const std::string dir = ::testing::TempDir() + "colltune-tmp-" + std::to_string(::getpid());
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  const std::string path = dir + "/model.yaml";
  char host[256] = {};
  ASSERT_EQ(::gethostname(host, sizeof host - 1), 0);
  std::string h(host);
  std::replace(h.begin(), h.end(), '.', '_');
  // A pid that does not exist: the largest the kernel allows, plus one.
  const std::string dead = temporary_prefix(path) + h + ".4194305.17";
  const std::string alive = temporary_prefix(path) + h + "." + std::to_string(::getpid()) + ".18";
  const std::string foreign_old = temporary_prefix(path) + "otherhost.12.19";
  const std::string foreign_new = temporary_prefix(path) + "otherhost.13.20";
  for (const auto& f : {dead, alive, foreign_old, foreign_new}) std::ofstream(f) << "partial";
  struct utimbuf old_time = {std::time(nullptr) - 2 * 24 * 3600,
                             std::time(nullptr) - 2 * 24 * 3600};
  ASSERT_EQ(::utime(foreign_old.c_str(), &old_time), 0);
  write_file_atomically(path, "new\n");
  EXPECT_FALSE(std::filesystem::exists(dead));
  EXPECT_TRUE(std::filesystem::exists(alive));
  EXPECT_FALSE(std::filesystem::exists(foreign_old));
  EXPECT_TRUE(std::filesystem::exists(foreign_new));
  EXPECT_TRUE(std::filesystem::exists(path));
  std::filesystem::remove_all(dir);
}

TEST(Faults, IdentitiesAreCutAsTheyAreGathered) {
  const std::string id = process_identity(std::string(200, 'h'));
  EXPECT_EQ(id.size(), kMaxIdentity);
}

TEST(Faults, TheAgreedBudgetIsTheBudgetUsed) {
  // The text compared across ranks reads back as the very double each rank uses.
  for (const char* v : {"0.30000000000000004", "3", "2.0000001", "1e-7", "7.123456789"}) {
    static std::string value;
    value = v;
    const Settings s = read_settings([](const char* n) -> const char* {
      return std::string_view(n) == "COLLTUNE_CALIBRATE_BUDGET" ? value.c_str() : nullptr;
    });
    if (!s.errors.empty()) continue;  // outside the valid range
    for (const SettingSpec& spec : setting_specs()) {
      if (spec.name != "COLLTUNE_CALIBRATE_BUDGET") continue;
      value = spec.show(s);
      const Settings back = read_settings([](const char* n) -> const char* {
        return std::string_view(n) == "COLLTUNE_CALIBRATE_BUDGET" ? value.c_str() : nullptr;
      });
      EXPECT_EQ(back.calibrate_budget, s.calibrate_budget) << v << " shown as " << value;
    }
  }
}

}  // namespace
}  // namespace colltune
