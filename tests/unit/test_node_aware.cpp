// Node-aware trees (src/algorithms/shapes/node_{tree,chain,star}.cpp) and the host-link bound of
// predictions (src/model/lmo.hpp, LmoParams::host_link): hosts of several processes behind one
// link each.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "algorithms/registry.hpp"
#include "algorithms/shapes/shapes.hpp"
#include "model/platform_model.hpp"
#include "model/trees.hpp"

using namespace colltune;
using namespace colltune::model;

namespace {

const Algorithm& alg(Op op, std::string_view name) { return *find_algorithm(op, name); }

// `hosts` hosts of `ppn` processes each (identities 0..hosts-1, ranks by block): within a host
// 1 us and 0.1 ns/B, between hosts 5 us and 1 ns/B (1 GB/s links).
struct Cluster {
  LmoParams p;
  std::vector<int> members;
  Cluster(int hosts, int ppn) : p(LmoParams::uniform(hosts, 2.5e-6, 0, 1e-9)) {
    for (int h = 0; h < hosts; ++h) {
      p.inv_beta[static_cast<std::size_t>(h) * hosts + h].value = 0.1e-9;
      for (int k = 0; k < ppn; ++k) members.push_back(h);
    }
    p.host = host_groups([&] {
      std::vector<std::string> ids;
      for (int h = 0; h < hosts; ++h) ids.push_back("node" + std::to_string(h));
      return ids;
    }());
    fill_host_links(&p);
  }
  int host(int rank) const { return members[rank]; }
};

// Every rank once, each subtree a contiguous range of positions.
void expect_tree(const BuiltTree& t, int n, int root) {
  ASSERT_EQ(t.size(), n);
  EXPECT_EQ(t.rank[0], root);
  std::vector<int> seen(n, 0);
  for (int p = 0; p < n; ++p) ++seen[t.rank[p]];
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), n);
  for (int p = 0; p < n; ++p) {
    int next = p + 1;
    std::vector<int> kids(t.kids.begin() + t.first[p], t.kids.begin() + t.first[p + 1]);
    std::sort(kids.begin(), kids.end());
    for (const int c : kids) {
      EXPECT_EQ(c, next);
      next = c + t.sub[c];
    }
    EXPECT_EQ(next, p + t.sub[p]);
  }
}

// Edges between hosts, and how many of them leave each host.
struct Crossing {
  int edges = 0;
  std::vector<int> out, in;
};
Crossing crossing(const BuiltTree& t, const Cluster& c, int hosts) {
  Crossing x;
  x.out.assign(hosts, 0);
  x.in.assign(hosts, 0);
  for (int p = 1; p < t.size(); ++p) {
    const int from = c.host(t.rank[t.parent[p]]), to = c.host(t.rank[p]);
    if (from == to) continue;
    ++x.edges;
    ++x.out[from];
    ++x.in[to];
  }
  return x;
}

}  // namespace

TEST(NodeAware, BcastTreesCrossEachHostOnceAndLeadersSendAbroadFirst) {
  const Cluster c(4, 16);
  const int n = 64;
  for (const char* name : {"node_tree", "node_chain"}) {
    for (const int root : {0, 21, 63}) {
      for (const double m : {128.0, 262144.0}) {
        const auto t = build_tree(alg(Op::kBcast, name), c.p, c.members, root, m);
        expect_tree(*t, n, root);
        const Crossing x = crossing(*t, c, 4);
        EXPECT_EQ(x.edges, 3) << name << " root " << root;  // one message into each other host
        for (int h = 0; h < 4; ++h) EXPECT_EQ(x.in[h], h == c.host(root) ? 0 : 1);
        // A process that sends abroad does so before it sends inside its host.
        for (int p = 0; p < n; ++p) {
          bool inside = false;
          for (int i = t->first[p]; i < t->first[p + 1]; ++i) {
            const bool abroad = c.host(t->rank[t->kids[i]]) != c.host(t->rank[p]);
            EXPECT_FALSE(abroad && inside) << name << " position " << p;
            inside = inside || !abroad;
          }
        }
      }
    }
  }
  // The chain's segments come from its leaders' chain.
  const auto big = build_tree(alg(Op::kBcast, "node_chain"), c.p, c.members, 0, 4194304);
  EXPECT_GT(big->segment, 0u);
}

TEST(NodeAware, ScatterAndGatherStarsCarryEachHostsBlocksInOneMessage) {
  const Cluster c(4, 8);
  const int n = 32;
  for (const Op op : {Op::kScatter, Op::kGather}) {
    for (const int root : {0, 13}) {
      const auto t = build_tree(alg(op, "node_star"), c.p, c.members, root, 8192);
      expect_tree(*t, n, root);
      const Crossing x = crossing(*t, c, 4);
      EXPECT_EQ(x.edges, 3);
      for (int p = 1; p < n; ++p) {
        const int r = t->rank[p];
        if (c.host(r) != c.host(root) && c.host(t->rank[t->parent[p]]) != c.host(r)) {
          EXPECT_EQ(t->sub[p], 8);  // a leader: its host's 8 blocks
        }
      }
    }
  }
}

TEST(NodeAware, FlatCommunicatorsGetTheFlatStandIn) {
  // One process per host, or all on one host: node_tree and node_chain are binomial, node_star
  // linear, so calibration sweeps them as their stand-in (builds_its_stand_in).
  const Cluster apart(8, 1), together(1, 8);
  for (const Cluster* c : {&apart, &together}) {
    EXPECT_TRUE(builds_its_stand_in(alg(Op::kBcast, "node_tree"), c->p, c->members));
    EXPECT_TRUE(builds_its_stand_in(alg(Op::kBcast, "node_chain"), c->p, c->members));
    EXPECT_TRUE(builds_its_stand_in(alg(Op::kScatter, "node_star"), c->p, c->members));
    EXPECT_TRUE(builds_its_stand_in(alg(Op::kGather, "node_star"), c->p, c->members));
  }
  const Cluster two(4, 2);
  EXPECT_FALSE(builds_its_stand_in(alg(Op::kBcast, "node_tree"), two.p, two.members));
  EXPECT_FALSE(builds_its_stand_in(alg(Op::kScatter, "node_star"), two.p, two.members));
}

TEST(NodeAware, WithoutAModelTheHostsComeFromTheCaller) {
  const std::vector<int> hosts = {0, 0, 0, 1, 1, 1};
  const auto t = build_tree_uniform(alg(Op::kBcast, "node_tree"), 6, 0, 128, hosts);
  int abroad = 0;
  for (int p = 1; p < 6; ++p) abroad += hosts[t->rank[t->parent[p]]] != hosts[t->rank[p]];
  EXPECT_EQ(abroad, 1);
  const auto flat = build_tree_uniform(alg(Op::kBcast, "node_tree"), 6, 0, 128);
  EXPECT_EQ(flat->parent, lay_out(kShape_binomial, {0, 1, 2, 3, 4, 5}).parent);
}

TEST(NodeAware, APredictionCountsTheBytesThroughEachHostsLink) {
  const Cluster c(4, 16);
  const double m = 1 << 20;
  // A flat star from rank 0: 48 messages leave host 0 through its one link (1 ns/B).
  const double star = predict(Op::kBcast, kShape_linear, c.p, c.members, 0, m);
  EXPECT_GE(star, 48 * m * 1e-9);
  LmoParams free = c.p;
  free.host_link.clear();  // without the bound: each message on its own link
  EXPECT_LT(predict(Op::kBcast, kShape_linear, free, c.members, 0, m), 0.5 * star);
  // The node-aware tree sends 3 messages abroad, one per host: far less than the star.
  const auto t = build_tree(alg(Op::kBcast, "node_tree"), c.p, c.members, 0, m);
  EXPECT_LT(predict_built(Op::kBcast, *t, Layout(TreeView(*t), c.members), c.p, m), 0.25 * star);
  // Scatter: a host's blocks cross its link once whatever the tree; the root's link carries
  // the 48 blocks of the other hosts.
  const double scatter = predict(Op::kScatter, kShape_binomial, c.p, c.members, 0, m);
  EXPECT_GE(scatter, 48 * m * 1e-9);
}

TEST(NodeAware, NoBoundWhereEveryProcessHasAHostOfItsOwn) {
  const Cluster c(8, 1);
  LmoParams free = c.p;
  free.host_link.clear();
  for (const double m : {128.0, 1048576.0}) {
    EXPECT_EQ(predict(Op::kBcast, kShape_linear, c.p, c.members, 0, m),
              predict(Op::kBcast, kShape_linear, free, c.members, 0, m));
  }
  // The average process of with_average is a host of its own per rank.
  const LmoParams avg = with_average(Cluster(2, 1).p);
  ASSERT_EQ(avg.host.size(), 3u);
  EXPECT_EQ(avg.host.back(), -1);
}
