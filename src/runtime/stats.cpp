// COLLTUNE_STATS: per-(op, algorithm) counters, summed over ranks at MPI_Finalize.
#include <cstdio>
#include <memory>
#include <vector>

#include "../algorithms/registry.hpp"
#include "../log.hpp"
#include "state.hpp"

namespace colltune {

namespace {

struct Counters {
  std::atomic<std::uint64_t> calls{0}, bytes{0}, ns{0};
};
std::unique_ptr<Counters[]> g_counters;
std::atomic<std::uint64_t> g_verified[kNumOps][2];  // per op: rejected, kept

}  // namespace

int stats_init() {
  if (!g_counters) g_counters.reset(new Counters[algorithms().size()]);
  return MPI_SUCCESS;
}

void record(const Algorithm& alg, std::uint64_t bytes, double seconds) {
  Counters& c = g_counters[alg.index];
  c.calls.fetch_add(1, std::memory_order_relaxed);
  c.bytes.fetch_add(bytes, std::memory_order_relaxed);
  c.ns.fetch_add(static_cast<std::uint64_t>(seconds * 1e9), std::memory_order_relaxed);
}

void record_verification(Op op, bool kept) {
  g_verified[static_cast<int>(op)][kept ? 1 : 0].fetch_add(1, std::memory_order_relaxed);
}

int report_stats() {
  const std::size_t n = algorithms().size();
  // Per algorithm calls, bytes, ns; then per op the verifications rejected and kept.
  std::vector<std::uint64_t> mine(3 * n + 2 * kNumOps), sum(mine.size()), max(mine.size());
  for (std::size_t i = 0; i < n; ++i) {
    mine[3 * i] = g_counters[i].calls;
    mine[3 * i + 1] = g_counters[i].bytes;
    mine[3 * i + 2] = g_counters[i].ns;
  }
  for (int op = 0; op < kNumOps; ++op) {
    for (int k = 0; k < 2; ++k) mine[3 * n + 2 * op + k] = g_verified[op][k];
  }
  const int count = static_cast<int>(mine.size());
  int rc = PMPI_Reduce(mine.data(), sum.data(), count, MPI_UINT64_T, MPI_SUM, 0, g_rt.world);
  if (rc != MPI_SUCCESS) return rc;
  rc = PMPI_Reduce(mine.data(), max.data(), count, MPI_UINT64_T, MPI_MAX, 0, g_rt.world);
  if (rc != MPI_SUCCESS || g_rt.world_rank != 0) return rc;
  for (const Algorithm& a : algorithms()) {
    const std::size_t i = static_cast<std::size_t>(a.index);
    if (sum[3 * i] == 0) continue;
    char line[512];
    std::snprintf(line, sizeof(line),
                  "stats op=%s algorithm=%s calls=%llu bytes=%llu time_s=%.6f "
                  "max_rank_calls=%llu max_rank_time_s=%.6f ranks=%d",
                  std::string(op_name(a.op)).c_str(), std::string(a.name).c_str(),
                  static_cast<unsigned long long>(sum[3 * i]),
                  static_cast<unsigned long long>(sum[3 * i + 1]), sum[3 * i + 2] * 1e-9,
                  static_cast<unsigned long long>(max[3 * i]), max[3 * i + 2] * 1e-9,
                  g_rt.world_size);
    log_line(line);
  }
  for (int op = 0; op < kNumOps; ++op) {
    const std::uint64_t rejected = sum[3 * n + 2 * op], kept = sum[3 * n + 2 * op + 1];
    if (rejected + kept == 0) continue;
    char line[160];
    std::snprintf(line, sizeof(line), "stats op=%s verified=%llu kept=%llu native=%llu",
                  std::string(op_name(static_cast<Op>(op))).c_str(),
                  static_cast<unsigned long long>(rejected + kept),
                  static_cast<unsigned long long>(kept), static_cast<unsigned long long>(rejected));
    log_line(line);
  }
  return MPI_SUCCESS;
}

std::uint64_t calls_of(Op op, std::string_view algorithm) {
  const Algorithm* a = find_algorithm(op, algorithm);
  if (!a || !g_counters) return 0;
  return g_counters[a->index].calls.load(std::memory_order_relaxed);
}

}  // namespace colltune
