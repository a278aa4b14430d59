// A recorded run (libcolltune_record.so's time-independent traces, docs/recording.md) forecast
// on a calibrated platform (docs/forecast.md "replay"): every rank's actions in program order,
// messages on the LMO links with the hop rule of the routine forecasts (eager: the sender pays
// its own cost and its port, the message arrives a link's time after it left; rendezvous: it
// starts when both sides are there and holds both until it arrived; a receiver takes its
// point-to-point messages in one at a time at its t per byte, in the order their bytes start
// to come in: replayed again with each message delayed by what the last replay's inboxes say,
// in full then half way, until a replay moves no delay by more than 1e-3 of the run's time or
// 12 replays were made, ReplayResult::replays), computation as recorded
// (flops at 1e9 per second, times `compute_scale`), collectives as the model predicts them
// (barrier, allreduce, reduce and alltoall as MPICH's algorithms, forecast/mpich_colls.hpp),
// a bcast or reduce that runs a fixed tree as its messages (ReplayOptions::tree_messages).
// No MPI, no files (the traces' text is parsed here, read by the caller).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "../model/platform_model.hpp"
#include "comm.hpp"

namespace colltune::forecast {

struct TraceAction {
  enum Kind {
    kCompute,
    kSend,
    kIsend,
    kRecv,
    kIrecv,
    kWait,
    kBarrier,
    kBcast,
    kGather,
    kScatter,
    kAllreduce,
    kReduce,
    kAlltoall
  };
  Kind kind = kCompute;
  int peer = -1, tag = 0, root = 0;  // wait: peer = source, root = destination
  double bytes = 0, flops = 0;
  // On the last action of a recorded call, what the call took on the wall clock (a `# took`
  // line after it, docs/recording.md); -1: not recorded.
  double took = -1;
  // A point-to-point message of a strided datatype (`# pieces N SPAN` after it): the seconds
  // its side packs (send) or unpacks (receive) it, N pieces at the recording host's rate for
  // that span (the trace's `# pack` line); 0: contiguous, or no rate recorded.
  double pack = 0;
  // A collective on part of the processes: its members' ranks in its rank order (the trace's
  // `comm K ...` line); null: every process.
  std::shared_ptr<const std::vector<int>> members;
};

// The action's name in a trace ("compute", "send", ..., "alltoall").
const char* action_name(TraceAction::Kind k);

// One rank's trace text (its lines "R action ...", a collective on part of the processes as
// "R action@K ..." after "R comm K W0 W1 ..."); throws std::invalid_argument naming the line and
// what is wrong (an action the replay does not model, an undefined communicator, or an
// `# unsupported` mark the recorder left).
std::vector<TraceAction> parse_trace(const std::string& text, int rank);

struct ReplayOptions {
  double eager = 0;          // messages of at most this many bytes are eager
  double compute_scale = 1;  // a recorded second of computation takes this long here
  bool native = false;       // collectives as MPICH runs them (else as colltune would pick)
  // > 0: every process of the run shares this many cores (hosts emulated on one machine, as
  // the hetcluster bed): a computation whose recorded CPU time is c takes the wall time w with
  // c = integral of min(1, C / computing(t)) over w, computing(t) the processes computing at t;
  // found by replaying again with each computation stretched by what the previous replay's
  // overlaps say, damped, until the stretches move by less than 0.1% (at most 12 replays, the
  // same replays as the inboxes').
  int shared_cores = 0;
  bool action_times = false;  // fill ReplayResult::action_seconds
  // The most replays the inboxes and shared cores take (the last one's forecast is returned,
  // ReplayResult::replays says how many ran); 1: the messages as they came, no inbox delays.
  int max_replays = 12;
  // Broadcasts and reductions that run a fixed tree (forecast::tree_schedule: MPICH's, or
  // without `native` the one colltune would pick) replayed as its messages on the links, each
  // member leaving when its own part is done, instead of all together after the model's time.
  bool tree_messages = false;
};

struct ReplayResult {
  double seconds = 0;                // the last rank's end
  std::vector<double> end, compute;  // per rank: its end, its computation
  double collectives = 0;            // collectives priced as one (one per call of all its members)
  int replays = 1;                   // the replays it took (inboxes, shared_cores)
  // Per rank and action (ReplayOptions::action_times): from when the rank reached it to when
  // it went on; a rank's actions sum to its end.
  std::vector<std::vector<double>> action_seconds;
};

// Every rank r runs on identity ranks[r] of the graph and model. Throws std::invalid_argument
// when the traces do not match (a receive no send answers: the run would hang) or a rank lacks
// an identity.
ReplayResult replay(const model::PlatformModel& pm, const LinkGraph& links,
                    std::span<const int> ranks, const std::vector<std::vector<TraceAction>>& traces,
                    const ReplayOptions& o);

}  // namespace colltune::forecast
