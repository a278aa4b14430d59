#include "trace.hpp"

#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

namespace colltune::record {

namespace {

struct Pending {
  int src, dst, tag;
};

struct State {
  std::FILE* f = nullptr;
  std::string dir, path;
  int rank = 0, size = 1;
  int window = 0;  // COLLTUNE_RECORD_WINDOW (0: the whole run)
  int windows = 0;
  bool recording = false;
  bool ok = false;
  double clock_left = 0;
  double call_start = 0;                      // when the recorded call under way began
  int lines = 0;                              // action lines written since then
  double clock_cost = 0;                      // what one read of the clock adds to a gap
  clockid_t clock = CLOCK_THREAD_CPUTIME_ID;  // COLLTUNE_RECORD_CLOCK: cpu, or wall (monotonic)
  std::vector<char> buffer;
  std::unordered_map<MPI_Comm, std::vector<int>> world_of;  // comm rank -> world rank
  std::unordered_map<MPI_Comm, int> comm_id;  // communicators defined in this rank's trace
  int next_comm = 0;
  std::unordered_map<MPI_Request, Pending> pending;
  bool pack_measured = false;  // the `# pack` line (the first strided message)
};

State& s() {
  static State* st = new State;  // never destroyed: wrappers may run during exit
  return *st;
}

double clock_now(const State& st) {
  timespec t{};
  clock_gettime(st.clock, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

void give_up(const char* what) {
  State& st = s();
  std::fprintf(stderr, "colltune-record: %s: %s (%s); not recording\n", st.path.c_str(), what,
               std::strerror(errno));
  if (st.f) std::fclose(st.f);
  st.f = nullptr;
  st.ok = st.recording = false;
}

void line(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void line(const char* fmt, ...) {
  State& st = s();
  if (!st.f) return;
  std::fprintf(st.f, "%d ", st.rank);
  va_list ap;
  va_start(ap, fmt);
  std::vfprintf(st.f, fmt, ap);
  va_end(ap);
  ++st.lines;
  if (std::fputc('\n', st.f) == EOF) give_up("cannot write");
}

// World rank of `r` in comm (MPI_PROC_NULL and failures: -1).
int world(MPI_Comm comm, int r) {
  if (r < 0) return -1;
  if (comm == MPI_COMM_WORLD) return r;
  State& st = s();
  auto it = st.world_of.find(comm);
  if (it == st.world_of.end()) {
    int n = 0;
    MPI_Group g, w;
    std::vector<int> mine, out;
    if (PMPI_Comm_size(comm, &n) != MPI_SUCCESS || PMPI_Comm_group(comm, &g) != MPI_SUCCESS) {
      return -1;
    }
    if (PMPI_Comm_group(MPI_COMM_WORLD, &w) != MPI_SUCCESS) {
      PMPI_Group_free(&g);
      return -1;
    }
    mine.resize(n);
    out.assign(n, -1);
    for (int i = 0; i < n; ++i) mine[i] = i;
    PMPI_Group_translate_ranks(g, n, mine.data(), w, out.data());
    PMPI_Group_free(&g);
    PMPI_Group_free(&w);
    it = st.world_of.emplace(comm, std::move(out)).first;
  }
  return r < static_cast<int>(it->second.size()) ? it->second[r] : -1;
}

bool whole(MPI_Comm comm) {
  int n = 0;
  return PMPI_Comm_size(comm, &n) == MPI_SUCCESS && n == s().size;
}

// The trace's number for a communicator of part of the processes: defined by a line
// `R comm K W0 W1 ...` (its members' world ranks in its rank order) before its first use;
// -1 when its members cannot be read (the call is then marked unsupported).
int part(MPI_Comm comm) {
  State& st = s();
  if (const auto it = st.comm_id.find(comm); it != st.comm_id.end()) return it->second;
  if (world(comm, 0) < 0) return -1;
  const std::vector<int>& w = st.world_of[comm];
  if (std::any_of(w.begin(), w.end(), [](int r) { return r < 0; })) return -1;
  const int k = st.next_comm++;
  std::string ranks;
  for (const int r : w) ranks += " " + std::to_string(r);
  line("comm %d%s", k, ranks.c_str());
  st.comm_id.emplace(comm, k);
  return k;
}

// The action's name: `bcast` on all the processes, `bcast@K` on the trace's communicator K.
// Empty: neither (an intercommunicator, or members that cannot be read: marked unsupported).
std::string named(const char* action, const char* call, MPI_Comm comm) {
  int inter = 0;
  if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter) {
    unsupported(call, comm);  // two groups: neither format's collectives
    return {};
  }
  if (whole(comm)) return action;
  const int k = part(comm);
  if (k < 0) {
    unsupported(call, comm);
    return {};
  }
  return std::string(action) + "@" + std::to_string(k);
}

// A setting's bad value: one line from rank 0, and nothing recorded.
void refuse(const State& st, const char* name, const char* value, const char* valid) {
  if (st.rank == 0) {
    std::fprintf(stderr, "colltune-record: %s: invalid value '%s' (valid: %s); not recording\n",
                 name, value, valid);
  }
}

// The contiguous pieces of memory `copies` elements of `t` lie in (1: one block; 0: no data),
// read from the type's constructor (MPI_Type_get_contents); -1: not known (a constructor not
// read here, or more than 8 levels deep). Adjacent blocks are not merged.
long long pieces(long long copies, MPI_Datatype t, int depth) {
  int size = 0;
  MPI_Aint lb = 0, extent = 0, tlb = 0, textent = 0;
  if (PMPI_Type_size(t, &size) != MPI_SUCCESS) return -1;
  if (copies <= 0 || size == 0) return 0;
  if (PMPI_Type_get_extent(t, &lb, &extent) != MPI_SUCCESS ||
      PMPI_Type_get_true_extent(t, &tlb, &textent) != MPI_SUCCESS) {
    return -1;
  }
  if (textent == size) return extent == size ? 1 : copies;  // each element one dense block
  if (depth > 8) return -1;
  int ni = 0, na = 0, nd = 0, combiner = 0;
  if (PMPI_Type_get_envelope(t, &ni, &na, &nd, &combiner) != MPI_SUCCESS) return -1;
  if (combiner == MPI_COMBINER_NAMED) return copies;
  std::vector<int> ints(ni);
  std::vector<MPI_Aint> addrs(na);
  std::vector<MPI_Datatype> types(nd);
  if (PMPI_Type_get_contents(t, ni, na, nd, ints.data(), addrs.data(), types.data()) !=
      MPI_SUCCESS) {
    return -1;
  }
  long long per = 0;                              // pieces of one element of t
  std::unordered_map<long long, long long> seen;  // indexed: the pieces of a block length
  auto of = [&](long long n, MPI_Datatype u) {
    if (per < 0) return;
    auto it = seen.find(n);
    if (it == seen.end()) it = seen.emplace(n, pieces(n, u, depth + 1)).first;
    per = it->second < 0 ? -1 : per + it->second;
  };
  switch (combiner) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:
      of(1, types[0]);
      break;
    case MPI_COMBINER_CONTIGUOUS:
      of(ints[0], types[0]);
      break;
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:
      of(ints[1], types[0]);  // count blocks alike
      if (per > 0) per *= ints[0];
      break;
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
      for (int k = 0; k < ints[0]; ++k) of(ints[1 + k], types[0]);
      break;
    case MPI_COMBINER_STRUCT:
      for (int k = 0; k < ints[0]; ++k) {
        seen.clear();  // each block its own type
        of(ints[1 + k], types[k]);
      }
      break;
    case MPI_COMBINER_SUBARRAY: {  // ndims, sizes, subsizes, starts, order
      const int n = ints[0];
      const int fast = ints[1 + 3 * n] == MPI_ORDER_C ? n - 1 : 0;
      long long rows = 1;
      for (int d = 0; d < n; ++d) {
        if (d != fast) rows *= ints[1 + n + d];
      }
      of(ints[1 + n + fast], types[0]);
      if (per > 0) per *= rows;
      break;
    }
    default:
      per = -1;
  }
  for (MPI_Datatype& u : types) {
    int a = 0, b = 0, c = 0, k = 0;
    if (PMPI_Type_get_envelope(u, &a, &b, &c, &k) == MPI_SUCCESS && k != MPI_COMBINER_NAMED) {
      PMPI_Type_free(&u);
    }
  }
  return per < 0 ? -1 : per * copies;
}

// The recording host's rate of packing strided pieces (one double each), at a span of 128 KiB
// and of 32 MiB (one page a piece), on the trace's clock: `# pack R@W,R@W`, measured once, at
// the first strided message. Empty: it could not be measured.
std::string pack_rate() {
  State& st = s();
  constexpr int kPieces = 2048, kReps = 5;
  std::string out;
  std::vector<double> packed(kPieces);
  for (const int stride : {8, 2048}) {  // doubles: 64 B and 16 KiB apart
    // Only the pieces are written (and so mapped): 2048 pages at the larger stride.
    const std::unique_ptr<double[]> data(new (std::nothrow) double[std::size_t{kPieces} * stride]);
    if (!data) return {};
    for (int k = 0; k < kPieces; ++k) data[static_cast<std::size_t>(k) * stride] = k;
    MPI_Datatype v;
    if (PMPI_Type_vector(kPieces, 1, stride, MPI_DOUBLE, &v) != MPI_SUCCESS) return {};
    if (PMPI_Type_commit(&v) != MPI_SUCCESS) {
      PMPI_Type_free(&v);
      return {};
    }
    std::vector<double> took;
    bool ok = true;
    for (int r = 0; r <= kReps && ok; ++r) {  // the first warms up
      int pos = 0;
      const double t0 = clock_now(st);
      ok = PMPI_Pack(data.get(), 1, v, packed.data(), kPieces * 8, &pos, MPI_COMM_WORLD) ==
           MPI_SUCCESS;
      if (r > 0) took.push_back(clock_now(st) - t0);
    }
    PMPI_Type_free(&v);
    if (!ok) return {};
    std::nth_element(took.begin(), took.begin() + kReps / 2, took.end());
    const double t = std::max(took[kReps / 2], 1e-9);
    char b[64];
    std::snprintf(b, sizeof b, "%s%.6g@%lld", out.empty() ? "" : ",", kPieces / t,
                  static_cast<long long>(kPieces) * stride * 8);
    out += b;
  }
  return out;
}

// After a point-to-point action: `# pieces N SPAN` when its data lies in N > 1 pieces over
// SPAN bytes (a strided datatype), preceded once by the host's `# pack` rate.
void layout(int count, MPI_Datatype type) {
  State& st = s();
  if (!st.f || count <= 0) return;
  const long long n = pieces(count, type, 0);
  if (n <= 1) return;
  MPI_Aint lb = 0, extent = 0, tlb = 0, textent = 0;
  if (PMPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS ||
      PMPI_Type_get_true_extent(type, &tlb, &textent) != MPI_SUCCESS) {
    return;
  }
  if (!st.pack_measured) {
    st.pack_measured = true;
    const double t0 = clock_now(st);
    const std::string r = pack_rate();
    if (!r.empty()) std::fprintf(st.f, "# pack %s\n", r.c_str());
    st.call_start += clock_now(st) - t0;  // neither the call's time nor the computation's
  }
  std::fprintf(st.f, "# pieces %lld %lld\n", n,
               static_cast<long long>(count - 1) * extent + static_cast<long long>(textent));
}

}  // namespace

long long bytes(int count, MPI_Datatype type) {
  int size = 0;
  if (PMPI_Type_size(type, &size) != MPI_SUCCESS) return 0;
  return static_cast<long long>(count) * size;
}

void start() {
  State& st = s();
  const char* dir = std::getenv("COLLTUNE_RECORD");
  if (!dir || !*dir) return;
  PMPI_Comm_rank(MPI_COMM_WORLD, &st.rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &st.size);
  if (const char* w = std::getenv("COLLTUNE_RECORD_WINDOW"); w && *w) {
    char* end = nullptr;
    const long v = std::strtol(w, &end, 10);
    if (*end != '\0' || v < 1 || v > INT_MAX) {
      return refuse(st, "COLLTUNE_RECORD_WINDOW", w, "N >= 1, the N-th MPI_Pcontrol window");
    }
    st.window = static_cast<int>(v);
  }
  if (const char* c = std::getenv("COLLTUNE_RECORD_CLOCK"); c && *c) {
    if (std::strcmp(c, "wall") == 0) {
      st.clock = CLOCK_MONOTONIC;
    } else if (std::strcmp(c, "cpu") != 0) {
      return refuse(st, "COLLTUNE_RECORD_CLOCK", c, "cpu, wall");
    }
  }
  char real[PATH_MAX];
  if (::mkdir(dir, 0755) != 0 && errno != EEXIST) {
    st.path = dir;
    give_up("cannot create the folder");
    return;
  }
  st.dir = ::realpath(dir, real) ? real : dir;
  st.path = st.dir + "/rank-" + std::to_string(st.rank) + ".ti.tmp";
  st.f = std::fopen(st.path.c_str(), "w");
  if (!st.f) {
    give_up("cannot create");
    return;
  }
  st.buffer.resize(1 << 20);
  std::setvbuf(st.f, st.buffer.data(), _IOFBF, st.buffer.size());
  st.ok = true;
  st.recording = st.window == 0;
  std::fprintf(st.f,
               "# colltune-record: time-independent trace (SimGrid replay format), rank %d "
               "of %d; compute in flops at 1e9 per second of %s\n",
               st.rank, st.size,
               st.clock == CLOCK_MONOTONIC ? "wall-clock time" : "this thread's CPU time");
  line("init");
  // Between two calls the gap holds the end of one clock read and the start of the next: as
  // much as two reads in a row (the median of 51; the least is rarer than the usual read).
  std::vector<double> reads(51);
  for (double& d : reads) {
    const double a = clock_now(st);
    d = clock_now(st) - a;
  }
  std::nth_element(reads.begin(), reads.begin() + 25, reads.end());
  st.clock_cost = reads[25];
  st.clock_left = clock_now(st);
}

void stop() {
  State& st = s();
  if (!st.f) return;
  if (st.recording) enter();
  line("finalize");
  const std::string final_path = st.dir + "/rank-" + std::to_string(st.rank) + ".ti";
  if (std::fflush(st.f) != 0 || ::fsync(fileno(st.f)) != 0) give_up("cannot write");
  if (st.f && std::fclose(st.f) != 0) give_up("cannot close");
  st.f = nullptr;
  if (st.ok && std::rename(st.path.c_str(), final_path.c_str()) != 0) give_up("cannot rename");
  st.recording = false;
  if (st.ok && st.rank == 0) {
    const std::string list = st.dir + "/traces", tmp = list + ".tmp";
    std::FILE* l = std::fopen(tmp.c_str(), "w");
    bool good = l != nullptr;
    for (int r = 0; good && r < st.size; ++r) {
      good = std::fprintf(l, "%s/rank-%d.ti\n", st.dir.c_str(), r) > 0;
    }
    if (l) good = std::fclose(l) == 0 && good;
    if (!good || std::rename(tmp.c_str(), list.c_str()) != 0) {
      std::fprintf(stderr, "colltune-record: %s: cannot write (%s)\n", list.c_str(),
                   std::strerror(errno));
    }
  }
}

void pcontrol(int level) {
  State& st = s();
  if (!st.ok || st.window == 0) return;
  if (level >= 1) {
    if (++st.windows == st.window) {
      st.recording = true;
      line("barrier");  // the window starts aligned, as the application's own barrier had it
      st.clock_left = clock_now(st);
    }
  } else if (st.recording) {
    enter();
    st.recording = false;
  }
}

bool on() { return s().recording; }

bool alone(MPI_Comm comm) {
  int n = 0;
  return PMPI_Comm_size(comm, &n) == MPI_SUCCESS && n == 1;
}

void enter() {
  State& st = s();
  st.call_start = clock_now(st);
  const double gap = st.call_start - st.clock_left - st.clock_cost;
  if (gap > 1e-7) line("compute %.0f", gap * 1e9);
  st.lines = 0;
}

void leave() {
  State& st = s();
  const double end = clock_now(st);
  if (st.clock != CLOCK_MONOTONIC || st.lines == 0 || !st.f) {
    st.clock_left = end;
    return;
  }
  // On the wall clock, what the call took (its action lines above); the write is neither the
  // call's time nor the computation's.
  std::fprintf(st.f, "# took %.9g\n", end - st.call_start);
  st.clock_left = clock_now(st);
}

void send(const char* action, int dest, int tag, int count, MPI_Datatype type, MPI_Comm comm) {
  const int to = world(comm, dest);
  if (to >= 0) {
    line("%s %d %d %lld", action, to, tag, bytes(count, type));
    layout(count, type);
  }
}

void recv(const char* action, int source, int tag, int count, MPI_Datatype type, MPI_Comm comm) {
  const int from = world(comm, source);
  if (from >= 0) {
    line("%s %d %d %lld", action, from, tag, bytes(count, type));
    layout(count, type);
  }
}

void posted(MPI_Request req, bool is_send, int peer, int tag, MPI_Comm comm) {
  State& st = s();
  const int p = world(comm, peer);
  if (p < 0 || req == MPI_REQUEST_NULL) return;
  st.pending[req] = is_send ? Pending{st.rank, p, tag} : Pending{p, st.rank, tag};
}

void completed(MPI_Request req) {
  State& st = s();
  const auto it = st.pending.find(req);
  if (it == st.pending.end()) return;
  if (st.recording) line("wait %d %d %d", it->second.src, it->second.dst, it->second.tag);
  st.pending.erase(it);
}

void wait_for(int source, int tag, MPI_Comm comm) {
  const int from = world(comm, source);
  if (from >= 0) line("wait %d %d %d", from, s().rank, tag);
}

void received(const MPI_Status* status, int count, MPI_Datatype type, MPI_Comm comm) {
  int got = count;
  PMPI_Get_count(status, type, &got);
  recv("recv", status->MPI_SOURCE, status->MPI_TAG, got == MPI_UNDEFINED ? count : got, type, comm);
}

void bcast(int count, MPI_Datatype type, int root, MPI_Comm comm) {
  const std::string a = named("bcast", "MPI_Bcast", comm);
  if (!a.empty()) line("%s %lld %d", a.c_str(), bytes(count, type), world(comm, root));
}

void barrier(MPI_Comm comm) {
  const std::string a = named("barrier", "MPI_Barrier", comm);
  if (!a.empty()) line("%s", a.c_str());
}

void reduce(const char* action, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  const std::string a = named(root >= 0 ? "reduce" : "allreduce", action, comm);
  if (a.empty()) return;
  if (root >= 0) {
    line("%s %lld 0 %d", a.c_str(), bytes(count, type), world(comm, root));
  } else {
    line("%s %lld 0", a.c_str(), bytes(count, type));
  }
}

void gather(const char* action, long long size, int root, MPI_Comm comm) {
  const std::string a = named(action, action, comm);
  if (!a.empty()) line("%s %lld %lld %d", a.c_str(), size, size, world(comm, root));
}

void alltoall(int scount, MPI_Datatype stype, int rcount, MPI_Datatype rtype, MPI_Comm comm) {
  const std::string a = named("alltoall", "MPI_Alltoall", comm);
  if (!a.empty()) line("%s %lld %lld", a.c_str(), bytes(scount, stype), bytes(rcount, rtype));
}

void unsupported(const char* call, MPI_Comm comm) {
  int n = 0;
  PMPI_Comm_size(comm, &n);
  State& st = s();
  if (!st.f) return;
  std::fprintf(st.f, "# unsupported: %s on a communicator of %d of the %d processes\n", call, n,
               st.size);
}

void comm_freed(MPI_Comm comm) {
  s().world_of.erase(comm);
  s().comm_id.erase(comm);
}

}  // namespace colltune::record
