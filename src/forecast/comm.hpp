// Forecasts of point-to-point transfers on calibrated platforms (FAST's comm query on the LMO
// model, docs/forecast.md): one table, or several calibrated apart and merged by identity name,
// where links no table measured are combined from measured ones along a path. No MPI, no files.
#pragma once

#include <algorithm>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "../model/platform_model.hpp"  // PlatformModel

namespace colltune::forecast {

// The identities of one or more tables and their links, each a message's time as the LMO model
// delivers it from i to j: fixed + m * per_byte, where
//   fixed = C_i + C_j,  per_byte = max(t_i + 1/beta_ij + t_j, u_i, u_in_j)
// (the sender's and receiver's costs and the link, or the sender's or the receiver's port), on
// the parameters of the table that measured the link. A link re-measured with a small size
// too (measure-link, docs/forecast.md "Small messages") may pass its first `free` bytes at no
// per-byte cost (a token bucket's burst, a congestion window): fixed + max(0, m - free) per_byte.
struct LinkGraph {
  std::vector<std::string> identities;
  std::vector<double> fixed, per_byte;  // n x n, row = sender
  std::vector<double> free;             // n x n, or empty (0 everywhere)
  std::vector<char> measured;           // n x n: a calibration measured the link (i, j)
  std::vector<char> known;              // n x n: a table gives the link (measured or filled)
  std::vector<double> when;             // n x n: when it was measured (epoch s; NaN: unknown)
  // Per identity: what a send holds the sender for when it is eager (o_i + t_i m: the LMO
  // sender costs that serialize) and its outgoing port's per-byte time (u_i; 0: none).
  std::vector<double> send_fixed, send_per_byte, port;
  int size() const { return static_cast<int>(identities.size()); }
  int find(const std::string& identity) const;  // -1 if absent
  double free_bytes(std::size_t k) const { return free.empty() ? 0 : free[k]; }
  // m bytes over the graph's own link k = i * n + j (not combined).
  double time(std::size_t k, double m) const {
    return fixed[k] + per_byte[k] * std::max(0.0, m - free_bytes(k));
  }
};

// One table: every link between two identities was measured (calibration measures every pair
// or fails); an identity's link to itself only if it had two processes or more in the
// calibration (`calibrated_ranks`: identity index per calibrated rank), else calibration
// filled it with the identity's fastest link (LmoParams::ib_alike).
LinkGraph graph_of(const model::PlatformModel& pm, std::span<const int> calibrated_ranks);
// Tables calibrated apart, merged by identity name: a link keeps the newest measurement of it
// (the first table's when the dates are unknown or equal; else the first table that gives it);
// links between identities that no table holds together are unknown.
LinkGraph merge(std::span<const LinkGraph> graphs);

enum class LinkSource {
  kMeasured,  // the model's own link
  kFilled,    // an identity's link to itself that calibration filled (its fastest link)
  kCombined,  // no measured link: FAST's combination along measured links (below)
  kNone,      // no measured path joins the two identities
};
const char* source_name(LinkSource s);

// A message of m bytes from one process to another: fixed + max(0, m - free) * per_byte
// seconds.
struct Link {
  double fixed = 0, per_byte = 0, free = 0;
  LinkSource source = LinkSource::kNone;
  std::vector<int> path;  // identities from sender to receiver (combined: every hop)
  double at(double m) const { return fixed + per_byte * std::max(0.0, m - free); }
};

// A message of m bytes from identity `from` to `to`: the measured link (or the filled one of
// an identity to itself: never combined, a path through another host is not the host's own
// link). A link no table measured follows FAST: over a path of measured links the latencies
// add and the slowest rate bounds, fixed = the sum of the hops' fixed parts, per_byte = the
// largest hop's (at least 0), free = the least hop's; the path is the one of least time at m
// (exact: for each hop rate w, the least fixed part over hops no slower than w). O(W E log V) for
// the W distinct hop rates tried (from the slowest that joins the two up to where m w alone exceeds
// the best).
Link comm(const LinkGraph& g, int from, int to, double m);

// When one pair's link has delivered its last message (-inf: none yet, nothing queued on it).
struct Wire {
  double in = -std::numeric_limits<double>::infinity();
};

// An eager message of m bytes from identity `from` to `to`, sent when the sender's clock reads
// *clock and its outgoing port is free from *port: it leaves at the later of the two, holds the
// port for u m, the sender for o + t m (both advanced), and arrives a link's time after it left,
// but no sooner than the pair's link, free from *wire, has carried its bytes at the pair's
// per-byte time (back to back, nothing passes free): a link carries one message at a time
// (returned, wire->in advanced to it; *left, when given: when it left). The hop rule of the
// routine forecasts, replay and app.
double send_eager(const LinkGraph& g, int from, int to, double m, double* clock, double* port,
                  Wire* wire, double* left = nullptr);

// A receiver takes its messages in one at a time at its LMO per-byte time t_to (send_per_byte):
// a message of m bytes whose last byte would be in at `arrival` is in at the later of that and
// *in_free + t_to m, *in_free (the receiver's last message in) advanced to it. The caller
// gives the messages in the order the receiver takes them (Clocks and app: program order;
// replay: the order their bytes start to come in).
double take_in(const LinkGraph& g, int to, double m, double arrival, double* in_free);

}  // namespace colltune::forecast
