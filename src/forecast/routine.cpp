#include "routine.hpp"

#include <algorithm>
#include <cmath>

#include "clocks.hpp"

namespace colltune::forecast {

double numroc(double n, double nb, int iproc, int nprocs) {
  const double blocks = std::floor(n / nb);
  double local = std::floor(blocks / nprocs) * nb;
  const double extra = blocks - std::floor(blocks / nprocs) * nprocs;  // blocks mod nprocs
  if (iproc < extra) {
    local += nb;
  } else if (iproc == extra) {
    local += n - blocks * nb;  // the last, partial block
  }
  return local;
}

namespace {

// Kernels on the processes' clocks (computation model comp): each advances its process's clock
// and busy time; one with a size of 0 (or less) is not run.
struct Kernels {
  const CompModel& comp;
  std::vector<double>& clock;
  std::vector<double> busy;
  bool extrapolated = false;
  Kernels(const CompModel& c, std::vector<double>& t) : comp(c), clock(t), busy(t.size(), 0) {}
  void run(int who, Kernel k, const std::vector<double>& sizes) {
    for (const double v : sizes) {
      if (v <= 0) return;
    }
    const CompForecast c = forecast::comp(comp, k, sizes);
    clock[who] += c.seconds;
    busy[who] += c.seconds;
    extrapolated = extrapolated || c.outside;
  }
  // The forecast's end, busiest process and extrapolation from these clocks.
  void finish(RoutineForecast* f) const {
    f->seconds = *std::max_element(clock.begin(), clock.end());
    f->compute = *std::max_element(busy.begin(), busy.end());
    f->extrapolated = f->extrapolated || extrapolated;
  }
};

// PB_CpgemmAB's order of K: its virtual processes (the process row owning B's rows, the
// process column owning A's columns) visited column by column, rows within a column, each one's
// blocks of R (block b: row b mod p, column b mod q) all taken before the next one's.
struct KRun {
  double width;  // the run's columns of A (rows of B)
  int row, col;  // their owners
};
std::vector<KRun> pblas_k_order(double K, double R, int p, int q) {
  std::vector<double> width(static_cast<std::size_t>(p) * q, 0);  // per (column, row)
  const auto blocks = static_cast<long long>(std::ceil(K / R));
  for (long long b = 0; b < blocks; ++b) width[(b % q) * p + b % p] += std::min(R, K - b * R);
  std::vector<KRun> runs;
  for (int c = 0; c < q; ++c) {
    for (int r = 0; r < p; ++r) {
      if (const double w = width[static_cast<std::size_t>(c) * p + r]; w > 0)
        runs.push_back({w, r, c});
    }
  }
  return runs;
}

}  // namespace

RoutineForecast pdgemm(const LinkGraph& links, std::span<const int> ranks, const CompModel& comp,
                       Grid g, double M, double N, double K, double R, double eager) {
  RoutineForecast f;
  const int np = g.p * g.q;
  Clocks clocks(links, ranks, np, eager);
  Kernels kernels(comp, clocks.t);
  auto proc = [&](int r, int c) { return r * g.q + c; };
  // The increasing ring of `members` (process indexes, the owner first) passing on `bytes`.
  auto ring = [&](const std::vector<int>& members, double bytes) {
    for (std::size_t h = 1; h < members.size(); ++h) clocks.hop(members[h - 1], members[h], bytes);
  };
  std::vector<double> mloc(g.p), nloc(g.q);
  for (int r = 0; r < g.p; ++r) mloc[r] = numroc(M, R, r, g.p);
  for (int c = 0; c < g.q; ++c) nloc[c] = numroc(N, R, c, g.q);
  auto multiply = [&](double width) {
    for (int r = 0; r < g.p; ++r) {
      for (int c = 0; c < g.q; ++c)
        kernels.run(proc(r, c), Kernel::kDgemm, {mloc[r], nloc[c], width});
    }
  };
  if (!((g.q > 1 || g.p > 1) && K > R)) {
    multiply(K);  // A and B span one process column and row: one local multiply, no panels
  } else {
    double panel = 0;  // columns of the current panel taken so far
    for (const KRun& run : pblas_k_order(K, R, g.p, g.q)) {
      for (double left = run.width; left > 0;) {
        // A piece: as much of the run as the panel holds, broadcast alone.
        const double w = std::min(left, kPblasPanel - panel);
        for (int r = 0; r < g.p; ++r) {  // A's columns along each process row
          std::vector<int> members;
          for (int j = 0; j < g.q; ++j) members.push_back(proc(r, (run.col + j) % g.q));
          ring(members, 8 * mloc[r] * w);
        }
        for (int c = 0; c < g.q; ++c) {  // B's rows along each process column
          std::vector<int> members;
          for (int i = 0; i < g.p; ++i) members.push_back(proc((run.row + i) % g.p, c));
          ring(members, 8 * w * nloc[c]);
        }
        left -= w;
        panel += w;
        if (panel >= kPblasPanel) {
          multiply(panel);
          panel = 0;
        }
      }
    }
    if (panel > 0) multiply(panel);
  }
  for (int r = 0; r < g.p; ++r) {
    for (int c = 0; c < g.q; ++c) {
      const double kloc_a = numroc(K, R, c, g.q), kloc_b = numroc(K, R, r, g.p);
      f.bytes = std::max(f.bytes, 8 * (mloc[r] * kloc_a + kloc_b * nloc[c] + mloc[r] * nloc[c] +
                                       mloc[r] * R + R * nloc[c]));
    }
  }
  kernels.finish(&f);
  return f;
}

namespace {

// ScaLAPACK's DNROC: the most rows (columns) of n in blocks of nb any of p processes holds.
double dnroc(double n, double nb, int p) { return std::ceil(std::ceil(n / nb) / p) * nb; }

// The rows of [a, b) that process row r of p holds, blocks of R from process row 0.
double owned(double a, double b, double R, int r, int p) {
  return b <= a ? 0 : numroc(b, R, r, p) - numroc(a, R, r, p);
}

// pdtrsm_.c's choice without transposition: PB_CptrsmAB when its volume estimate is at most
// twice the B-only one.
bool runs_b_only(Grid g, Trsm t, double M, double N, double R) {
  const bool left = t.side == 'L';
  const double n_solve = left ? M : N, n_other = left ? N : M;
  const int across = left ? g.q : g.p, along = left ? g.p : g.q;
  const double ab = n_solve * ((across == 1 ? 0 : dnroc(n_solve, R, along) / 2) +
                               (along == 1 ? 0 : dnroc(n_other, R, across)));
  const double b_only =
      n_other * (std::ceil(n_solve / R) * R * (g.p == 1 ? 0 : 1) + (g.q == 1 ? 0 : 1));
  return ab > 2 * b_only;
}

}  // namespace

std::string pdtrsm_unmodelled(Grid g, Trsm t, double M, double N, double R) {
  if (t.trans != 'N') {
    return "transposed A (PDTRSM's right- or left-looking transposed variants are not modelled;"
           " the same system without transposition is: FAST's cases pair them)";
  }
  if (M <= kPblasPanel || N <= kPblasPanel) {
    return "M or N of 32 or less (PDTRSM then keeps the caller's BLACS topology)";
  }
  if (runs_b_only(g, t, M, N, R) && g.p > 1) {
    return "PDTRSM runs its B-only variant (PB_CptrsmB) on a grid of more than one process row"
           " (modelled on one process row only)";
  }
  return "";
}

namespace {

// PB_CptrsmB without transposition on one process row (1 x q): what PDTRSM runs there
// (docs/forecast.md, "PDTRSM on one process row").
RoutineForecast pdtrsm_one_row(const LinkGraph& links, std::span<const int> ranks,
                               const CompModel& comp, int q, Trsm t, double M, double N, double R,
                               double eager) {
  RoutineForecast f;
  Clocks clocks(links, ranks, q, eager);
  Kernels kernels(comp, clocks.t);
  const bool left = t.side == 'L', upper = t.uplo == 'U';
  // Left: solved forward for a lower A; right: for an upper one.
  const bool forward = left != upper;
  // BLACS's ring along the row as PDTRSM sets it (increasing where the solve runs forward).
  auto next = [&](int c, int step) { return ((c + (forward ? step : -step)) % q + q) % q; };
  auto owner = [&](double col) { return static_cast<int>(std::floor(col / R)) % q; };
  // Columns [a, b) of A on process c.
  auto local = [&](double a, double b, int c) { return owned(a, b, R, c, q); };
  const double An = left ? M : N;
  const double Alcmb = 2 * kPblasPanel * q;  // PB_CptrsmB's diagonal blocks: 2 nb lcm(1, q)
  // [a, b) split where multiples of step fall (diagonal blocks, and pieces of R columns inside
  // one), in the order of the solve.
  auto blocks = [&](double a, double b, double step) {
    std::vector<std::pair<double, double>> out;
    for (double s = a; s < b;) {
      const double e = std::min(b, (std::floor(s / step) + 1) * step);
      out.emplace_back(s, e);
      s = e;
    }
    if (!forward) std::reverse(out.begin(), out.end());
    return out;
  };
  // A combine of rows x w to `dest`: BLACS gsum2d with its default topology, which PDTRSM
  // leaves for combines, is MPI_Reduce (MPI_SUM) on the row's communicator; MPICH 4.0.2 runs a
  // binomial tree up to 2048 bytes (or fewer elements than the largest power of two of q), else
  // reduce-scatter by recursive halving and a binomial gather of the halves (odd extra processes
  // folded in first). Each received part is added (the add kernel).
  auto combine = [&](int dest, double rows, double w) {
    auto at = [&](int rel) { return (rel + dest) % q; };  // MPICH ranks relative to the root
    int pof2 = 1;
    while (pof2 * 2 <= q) pof2 *= 2;
    const double count = rows * w;
    if (8 * count <= 2048 || count < pof2) {
      for (int mask = 1; mask < q; mask *= 2) {
        for (int rel = mask; rel < q; rel += 2 * mask) {
          clocks.hop(at(rel), at(rel - mask), 8 * count);
          kernels.run(at(rel - mask), Kernel::kAdd, {rows, w});
        }
      }
      return;
    }
    const int rem = q - pof2;
    std::vector<int> in;  // relative ranks of the power-of-two group, in their new order
    for (int rel = 0; rel < q; ++rel) {
      if (rel < 2 * rem && rel % 2 == 0) {
        clocks.hop(at(rel), at(rel + 1), 8 * count);
        kernels.run(at(rel + 1), Kernel::kAdd, {rows, w});
      } else {
        in.push_back(rel);
      }
    }
    double part = count;
    for (int mask = 1; mask < pof2; mask *= 2) {  // halving: exchange half with the partner
      part /= 2;
      for (int i = 0; i < pof2; ++i) {
        const int j = i ^ mask;
        if (i < j) clocks.exchange(at(in[i]), at(in[j]), 8 * part);
      }
      for (int i = 0; i < pof2; ++i) kernels.run(at(in[i]), Kernel::kAdd, {part / w, w});
    }
    for (int mask = pof2 / 2; mask >= 1; mask /= 2) {  // binomial gather of the halves to 0
      for (int i = mask; i < pof2; i += 2 * mask) clocks.hop(at(in[i]), at(in[i - mask]), 8 * part);
      part *= 2;
    }
    if (in[0] != 0) clocks.hop(at(in[0]), at(0), 8 * count);
  };
  // The ring broadcast of `bytes` from `root` along the row.
  auto bcast = [&](int root, double bytes) {
    for (int h = 0; h + 1 < q; ++h) clocks.hop(next(root, h), next(root, h + 1), bytes);
  };
  // PB_CptrsmB's chunks of B: total rows (columns) in pieces of equal width, at most 32.
  auto chunks = [](double total) {
    std::vector<double> out;
    const double w = std::floor(total / std::ceil(total / kPblasPanel));
    for (double left = total; left > 0; left -= std::min(w, left)) out.push_back(std::min(w, left));
    return out;
  };
  const std::vector<std::pair<double, double>> diag = blocks(0, An, Alcmb);
  if (left) {
    // B's columns by owner, in the ring's order from the first (forward) or last owner, each
    // owner's in chunks of at most 32 of equal width; each chunk solved by every process.
    const int first = forward ? 0 : owner(N - 1);
    const int dst = owner(forward ? 0 : An - 1);  // the column A's solve starts in
    for (int i = 0; i < q; ++i) {
      const int c = next(first, i);
      const double cols = numroc(N, R, c, q);
      if (cols <= 0) continue;
      for (const double w : chunks(cols)) {
        if (c != dst) clocks.hop(c, dst, 8 * An * w);  // the chunk to where the solve starts
        for (std::size_t d = 0; d < diag.size(); ++d) {
          const auto [k0, k1] = diag[d];
          // Inside the block (PB_Cptrsm): each piece solved by its owner, which first adds the
          // previous owner's update of the rows still ahead, up to (q - 1) R of them.
          int prev = -1;
          double prev_rows = 0;
          for (const auto& [a, b] : blocks(k0, k1, R)) {
            const int o = owner(a);
            const double ahead = forward ? k1 - a : b - k0;
            if (prev >= 0 && prev != o) {
              const double look = std::min(ahead, (q - 1) * R);
              kernels.run(prev, Kernel::kDgemm, {look, w, prev_rows});
              clocks.hop(prev, o, 8 * look * w);
              kernels.run(o, Kernel::kAdd, {look, w});
              kernels.run(prev, Kernel::kDgemm, {ahead - look, w, prev_rows});
            } else if (prev >= 0) {
              kernels.run(o, Kernel::kDgemm, {ahead, w, prev_rows});
            }
            kernels.run(o, Kernel::kDtrsm, {b - a, w});
            prev = o, prev_rows = b - a;
          }
          if (d + 1 == diag.size()) break;
          // The next block's rows updated by every process from its columns of this block and
          // combined to the next block's owner; the rows beyond updated where they are.
          const auto [n0, n1] = diag[d + 1];
          const double rest = forward ? An - n1 : n0;
          for (int c2 = 0; c2 < q; ++c2)
            kernels.run(c2, Kernel::kDgemm, {n1 - n0, w, local(k0, k1, c2)});
          combine(owner(forward ? n0 : n1 - 1), n1 - n0, w);
          for (int c2 = 0; c2 < q; ++c2)
            kernels.run(c2, Kernel::kDgemm, {rest, w, local(k0, k1, c2)});
        }
        combine(c, An, w);  // the solution to the chunk's owner
      }
    }
  } else {
    // B's rows in chunks of at most 32 of equal height, each solved by every process in place.
    for (const double w : chunks(M)) {
      for (const auto& [k0, k1] : diag) {
        for (const auto& [a, b] : blocks(k0, k1, R)) {
          const int o = owner(a);
          kernels.run(o, Kernel::kDtrsm, {b - a, w});
          bcast(o, 8 * (b - a) * w);  // the solved piece to every process
          const double a1 = forward ? b : k0, b1 = forward ? k1 : a;  // the block's rest
          for (int c2 = 0; c2 < q; ++c2)
            kernels.run(c2, Kernel::kDgemm, {w, local(a1, b1, c2), b - a});
        }
        const double a1 = forward ? k1 : 0, b1 = forward ? An : k0;  // beyond the block
        for (int c2 = 0; c2 < q; ++c2)
          kernels.run(c2, Kernel::kDgemm, {w, local(a1, b1, c2), k1 - k0});
      }
    }
  }
  for (int c = 0; c < q; ++c) {
    const double ac = numroc(An, R, c, q), bc = numroc(N, R, c, q);
    f.bytes = std::max(f.bytes, 8 * (An * ac + M * bc + 2 * An * kPblasPanel));
  }
  kernels.finish(&f);
  return f;
}

}  // namespace

RoutineForecast pdtrsm(const LinkGraph& links, std::span<const int> ranks, const CompModel& comp,
                       Grid g, Trsm t, double M, double N, double R, double eager) {
  if (g.p == 1 && runs_b_only(g, t, M, N, R)) {
    return pdtrsm_one_row(links, ranks, comp, g.q, t, M, N, R, eager);
  }
  // A right-side solve on p x q is the left-side solve of the transposed system on q x p (the
  // other triangle, B's rows and columns swapped); process (r, c) of the transposed grid is
  // rank c q + r... of the original: `proc` maps the transposed coordinates back.
  const bool left = t.side == 'L';
  const bool lower = left ? t.uplo == 'L' : t.uplo == 'U';  // of the left-side view
  const int p = left ? g.p : g.q, q = left ? g.q : g.p;
  const double rows = left ? M : N, cols = left ? N : M;
  auto proc = [&](int r, int c) { return left ? r * g.q + c : c * g.q + r; };
  RoutineForecast f;
  Clocks clocks(links, ranks, g.p * g.q, eager);
  Kernels kernels(comp, clocks.t);
  // BLACS's ring from `first` along the others of `line` (increasing or decreasing).
  auto ring = [&](const std::vector<int>& line, int first, bool increasing, double bytes) {
    const int n = static_cast<int>(line.size());
    for (int h = 1; h < n; ++h) {
      clocks.hop(line[(first + (increasing ? h - 1 : n - h + 1)) % n],
                 line[(first + (increasing ? h : n - h)) % n], bytes);
    }
  };
  std::vector<double> nloc(q);
  for (int c = 0; c < q; ++c) nloc[c] = numroc(cols, R, c, q);
  const int panels = static_cast<int>(std::ceil(rows / kPblasPanel));
  for (int i = 0; i < panels; ++i) {
    const int step = lower ? i : panels - 1 - i;
    const double k = step * kPblasPanel, kbb = std::min(kPblasPanel, rows - k);
    // The rows of A's panel that matter and the rows still to update afterwards.
    const double a0 = lower ? k : 0, a1 = lower ? rows : k + kbb;
    const double u0 = lower ? k + kbb : 0, u1 = lower ? rows : k;
    const int block = static_cast<int>(std::floor(k / R));
    const int ca = block % q, ra = block % p;
    for (int r = 0; r < p; ++r) {  // A's panel along each process row
      std::vector<int> line;
      for (int c = 0; c < q; ++c) line.push_back(proc(r, c));
      const double part = owned(a0, a1, R, r, p);
      if (part > 0) ring(line, ca, lower, 8 * part * kbb);
    }
    for (int c = 0; c < q; ++c) kernels.run(proc(ra, c), Kernel::kDtrsm, {kbb, nloc[c]});
    if (u1 <= u0) continue;
    for (int c = 0; c < q; ++c) {  // the solved panel down each process column
      std::vector<int> line;
      for (int r = 0; r < p; ++r) line.push_back(proc(r, c));
      ring(line, ra, lower, 8 * kbb * nloc[c]);
    }
    for (int r = 0; r < p; ++r) {
      for (int c = 0; c < q; ++c) {
        kernels.run(proc(r, c), Kernel::kDgemm, {owned(u0, u1, R, r, p), nloc[c], kbb});
      }
    }
  }
  for (int r = 0; r < p; ++r) {
    for (int c = 0; c < q; ++c) {
      const double mr = numroc(rows, R, r, p), ac = numroc(rows, R, c, q);
      f.bytes = std::max(f.bytes, 8 * (mr * ac + mr * nloc[c] + (mr + nloc[c]) * kPblasPanel));
    }
  }
  kernels.finish(&f);
  return f;
}

int busiest_host(std::span<const int> ranks, Grid g) {
  std::vector<int> on(*std::max_element(ranks.begin(), ranks.begin() + g.p * g.q) + 1, 0);
  for (int r = 0; r < g.p * g.q; ++r) ++on[ranks[r]];
  return *std::max_element(on.begin(), on.end());
}

namespace {

// Every grid of at most P of the ranks and every block of Rs that `modelled` accepts, forecast
// by `run` with the computation model of the grid's occupancy, fastest first.
template <class Modelled, class Run>
std::vector<BestCase> best_of(std::span<const int> ranks, std::span<const CompModel> comps, int P,
                              std::span<const double> Rs, Modelled modelled, Run run) {
  std::vector<BestCase> out;
  for (int p = 1; p <= P; ++p) {
    for (int q = 1; p * q <= P && p * q <= static_cast<int>(ranks.size()); ++q) {
      const Grid g{p, q};
      const CompModel& comp = *for_occupancy(comps, busiest_host(ranks, g));
      for (const double R : Rs) {
        if (modelled(g, R)) out.push_back({g, R, run(comp, g, R)});
      }
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const BestCase& a, const BestCase& b) {
    return a.forecast.seconds < b.forecast.seconds;
  });
  return out;
}

}  // namespace

std::vector<BestCase> best_pdtrsm(const LinkGraph& links, std::span<const int> ranks,
                                  std::span<const CompModel> comps, int P, Trsm t, double M,
                                  double N, std::span<const double> Rs, double eager) {
  return best_of(
      ranks, comps, P, Rs,
      [&](Grid g, double R) { return pdtrsm_unmodelled(g, t, M, N, R).empty(); },
      [&](const CompModel& c, Grid g, double R) {
        return pdtrsm(links, ranks, c, g, t, M, N, R, eager);
      });
}

std::vector<BestCase> best_pdgemm(const LinkGraph& links, std::span<const int> ranks,
                                  std::span<const CompModel> comps, int P, double M, double N,
                                  double K, std::span<const double> Rs, double eager) {
  return best_of(
      ranks, comps, P, Rs, [](Grid, double) { return true; },
      [&](const CompModel& c, Grid g, double R) {
        return pdgemm(links, ranks, c, g, M, N, K, R, eager);
      });
}

}  // namespace colltune::forecast
