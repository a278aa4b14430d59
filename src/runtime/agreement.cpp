#include "agreement.hpp"

#include <algorithm>
#include <array>
#include <cstdint>

namespace colltune {

namespace {

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace

int all_ok(MPI_Comm comm, bool ok, bool* all) noexcept {
  int in = ok ? 1 : 0, res = 0;
  const int rc = PMPI_Allreduce(&in, &res, 1, MPI_INT, MPI_MIN, comm);
  *all = rc == MPI_SUCCESS && res == 1;
  return rc;
}

bool Agreement::any_differs() const {
  for (bool d : differs) {
    if (d) return true;
  }
  return false;
}

std::string rank_list(const std::vector<int>& ranks, std::size_t max_ranges) {
  std::string out;
  std::size_t shown = 0, i = 0;
  while (i < ranks.size() && shown < max_ranges) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (!out.empty()) out += ", ";
    out += std::to_string(ranks[i]);
    if (j > i) out += "-" + std::to_string(ranks[j]);
    ++shown;
    i = j + 1;
  }
  if (i < ranks.size()) out += ", ... (" + std::to_string(ranks.size()) + " ranks)";
  return out;
}

int check_agreement(MPI_Comm comm, const std::vector<AgreementItem>& items, bool local_error,
                    bool fallback_error, Agreement* out) {
  // Fixed length: a rank with fewer items (its local set-up failed) still matches its peers.
  constexpr std::size_t k = kMaxAgreementItems;
  const std::size_t n = std::min(items.size(), k);
  if (items.size() > k) local_error = true;
  // max(h) == ~max(~h) exactly when min(h) == max(h): all ranks hold the same value.
  std::array<std::uint64_t, 2 * k + 2> in{}, res{};
  for (std::size_t i = 0; i < n; ++i) {
    in[i] = fnv1a(items[i].value);
    in[k + i] = ~in[i];
  }
  in[2 * k] = local_error ? 1 : 0;
  in[2 * k + 1] = fallback_error ? 1 : 0;
  int rc = PMPI_Allreduce(in.data(), res.data(), static_cast<int>(in.size()), MPI_UINT64_T, MPI_MAX,
                          comm);
  if (rc != MPI_SUCCESS) return rc;
  out->any_error = res[2 * k] != 0;
  out->any_fallback_error = res[2 * k + 1] != 0;
  out->differs.assign(n, false);
  for (std::size_t i = 0; i < n; ++i) out->differs[i] = res[i] != ~res[k + i];
  out->report.clear();
  if (!out->any_differs()) return MPI_SUCCESS;

  int rank = 0, size = 1;
  if ((rc = PMPI_Comm_rank(comm, &rank)) != MPI_SUCCESS) return rc;
  if ((rc = PMPI_Comm_size(comm, &size)) != MPI_SUCCESS) return rc;
  std::vector<std::uint64_t> all(rank == 0 ? k * static_cast<std::size_t>(size) : 0);
  rc = PMPI_Gather(in.data(), static_cast<int>(k), MPI_UINT64_T, all.data(), static_cast<int>(k),
                   MPI_UINT64_T, 0, comm);
  if (rc != MPI_SUCCESS || rank != 0) return rc;
  for (std::size_t i = 0; i < n; ++i) {
    if (!out->differs[i]) continue;
    std::vector<int> other;
    for (int r = 1; r < size; ++r) {
      if (all[static_cast<std::size_t>(r) * k + i] != all[i]) other.push_back(r);
    }
    std::string shown = items[i].shown;
    if (shown.size() > 80) shown = shown.substr(0, 77) + "...";
    out->report.push_back(items[i].name + " (rank 0: '" + shown + "') differs on rank" +
                          (other.size() > 1 ? "s " : " ") + rank_list(other));
  }
  return MPI_SUCCESS;
}

}  // namespace colltune
