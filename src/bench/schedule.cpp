#include "schedule.hpp"

namespace colltune::bench {

std::vector<std::vector<std::pair<int, int>>> pair_rounds(int n) {
  std::vector<std::vector<std::pair<int, int>>> rounds;
  if (n < 2) return rounds;
  const int m = n % 2 == 0 ? n : n + 1;  // with a dummy player m - 1 when n is odd
  for (int r = 0; r < m - 1; ++r) {
    std::vector<std::pair<int, int>> round;
    for (int k = 0; k < m / 2; ++k) {
      // positions k and m-1-k of the circle; player m-1 stays fixed, the others rotate.
      const int a = k == 0 ? m - 1 : (r + k) % (m - 1);
      const int b = (r + m - 1 - k) % (m - 1);
      if (a >= n || b >= n) continue;  // the dummy: its partner idles
      round.emplace_back(a < b ? a : b, a < b ? b : a);
    }
    rounds.push_back(std::move(round));
  }
  return rounds;
}

std::vector<std::vector<std::array<int, 3>>> triplet_rounds(int n, bool all) {
  std::vector<std::array<int, 3>> pending;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int k = j + 1; k < n; ++k) {
        if (j == i || k == i) continue;
        if (!all && !(i < j)) continue;
        pending.push_back({i, j, k});
      }
  return pack_rounds(n, pending);
}

}  // namespace colltune::bench
