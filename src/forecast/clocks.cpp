#include "clocks.hpp"

#include <algorithm>

namespace colltune::forecast {

void Clocks::hop(int s, int d, double bytes) {
  Wire& wire = link_free[{s, d}];
  if (bytes <= eager) {
    const double arrival =
        take_in(links, ranks[d], bytes,
                send_eager(links, ranks[s], ranks[d], bytes, &t[s], &port[s], &wire), &in_free[d]);
    t[d] = std::max(t[d], arrival);
    wire.in = arrival;
  } else {
    t[s] = t[d] = std::max(t[s], t[d]) + comm(links, ranks[s], ranks[d], bytes).at(bytes);
    wire.in = in_free[d] = std::max(in_free[d], t[d]);
  }
}

void Clocks::exchange(int a, int b, double bytes) {
  if (bytes <= eager) {
    const double ta = t[a], tb = t[b];
    hop(a, b, bytes);  // a's send, and b's receive
    const double b_in = t[b];
    t[b] = tb;  // b sends from where it stood
    hop(b, a, bytes);
    t[a] = std::max(t[a], ta);
    t[b] = std::max(t[b], b_in);
  } else {
    const double end =
        std::max(t[a], t[b]) + std::max(comm(links, ranks[a], ranks[b], bytes).at(bytes),
                                        comm(links, ranks[b], ranks[a], bytes).at(bytes));
    t[a] = t[b] = end;
    link_free[{a, b}].in = link_free[{b, a}].in = in_free[a] = in_free[b] = end;
  }
}

}  // namespace colltune::forecast
