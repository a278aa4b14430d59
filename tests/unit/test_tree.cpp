#include <gtest/gtest.h>

#include <vector>

#include "algorithms/binomial_math.hpp"

using namespace colltune;

// Walks the tree from the root: every relative rank must be reached exactly once, each child's
// range must lie inside its parent's, and siblings' ranges must tile the parent's range.
TEST(Tree, EverySizeFormsAPartition) {
  for (int n = 1; n <= 130; ++n) {
    std::vector<int> seen(n, 0);
    std::vector<int> stack = {0};
    while (!stack.empty()) {
      const int v = stack.back();
      stack.pop_back();
      ++seen[v];
      const int sub = tree::subtree_size(v, n);
      int covered = 1;  // the node itself
      int expect_next = v + 1;
      std::vector<std::pair<int, int>> kids;
      tree::for_each_child_asc(v, n, [&](int c, int cs) { kids.push_back({c, cs}); });
      for (auto [c, cs] : kids) {
        EXPECT_EQ(tree::parent(c), v) << "n=" << n << " child " << c;
        EXPECT_EQ(c, expect_next) << "n=" << n << " v=" << v;
        EXPECT_EQ(cs, tree::subtree_size(c, n));
        expect_next = c + cs;
        covered += cs;
        stack.push_back(c);
      }
      EXPECT_EQ(covered, sub) << "n=" << n << " v=" << v;
    }
    for (int v = 0; v < n; ++v) EXPECT_EQ(seen[v], 1) << "n=" << n << " v=" << v;
  }
}

TEST(Tree, DescendingOrderVisitsLargestSubtreeFirst) {
  std::vector<int> order;
  tree::for_each_child_desc(0, 8, [&](int c, int) { order.push_back(c); });
  EXPECT_EQ(order, (std::vector<int>{4, 2, 1}));
  order.clear();
  tree::for_each_child_desc(0, 5, [&](int c, int) { order.push_back(c); });
  EXPECT_EQ(order, (std::vector<int>{4, 2, 1}));
  EXPECT_EQ(tree::subtree_size(4, 5), 1);
  EXPECT_EQ(tree::subtree_size(2, 5), 2);
}

TEST(Tree, RelativeAndAbsoluteRanksRoundTrip) {
  for (int n = 1; n < 20; ++n)
    for (int root = 0; root < n; ++root)
      for (int r = 0; r < n; ++r) {
        const int vr = tree::relative(r, root, n);
        EXPECT_GE(vr, 0);
        EXPECT_LT(vr, n);
        EXPECT_EQ(tree::absolute(vr, root, n), r);
      }
  EXPECT_EQ(tree::relative(2, 2, 5), 0);
}
