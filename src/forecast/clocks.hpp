// Every process's clock as a routine's messages move it (routine.hpp's walks of ScaLAPACK),
// on the LMO links of comm.hpp. No MPI, no files.
#pragma once

#include <limits>
#include <map>
#include <span>
#include <utility>
#include <vector>

#include "comm.hpp"

namespace colltune::forecast {

// Process r runs on identity ranks[r] of links. A message of at most `eager` bytes frees its
// sender after the sender's own cost (o + t m, send_eager) and arrives a message's time after it
// left the sender's port, but no sooner than the link from the same sender has carried the
// previous one's bytes and then its own (per-byte time of the pair), nor than the receiver has
// taken in the previous message it got and then this one (its t per byte): a link and a
// receiver carry one message at a time. A larger one (rendezvous) starts when both are free and
// holds both until it has arrived. A receiver's messages must be given in its program order.
struct Clocks {
  const LinkGraph& links;
  std::span<const int> ranks;
  double eager;
  std::vector<double> t, port;                    // each process's clock, its port free
  std::vector<double> in_free;                    // its last message in
  std::map<std::pair<int, int>, Wire> link_free;  // a pair's last message in
  Clocks(const LinkGraph& l, std::span<const int> r, int n, double e)
      : links(l),
        ranks(r),
        eager(e),
        t(n, 0),
        port(n, 0),
        in_free(n, -std::numeric_limits<double>::infinity()) {}
  // One message of `bytes` from process s to d.
  void hop(int s, int d, double bytes);
  // MPI_Sendrecv of `bytes` each way between a and b: both sends leave before either receive;
  // two rendezvous transfers run at once and hold both until the slower has arrived.
  void exchange(int a, int b, double bytes);
};

}  // namespace colltune::forecast
