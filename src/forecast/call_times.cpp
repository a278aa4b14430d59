#include "call_times.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <stdexcept>
#include <tuple>

namespace colltune::forecast {

namespace {

// [from, to]: the power of 2 at or below b up to the next one less 1; 0 alone.
std::pair<double, double> bin(double b) {
  if (b < 1) return {0, 0};
  const double from = std::exp2(std::floor(std::log2(b)));
  return {from, 2 * from - 1};
}

}  // namespace

std::vector<CallTimes> call_times(const std::vector<std::vector<TraceAction>>& traces,
                                  const ReplayResult& r) {
  if (r.action_seconds.size() != traces.size()) {
    throw std::logic_error("call_times: the replay kept no action times");
  }
  const double n = static_cast<double>(traces.size());
  std::map<std::tuple<std::string, double>, CallTimes> groups;
  CallTimes compute{"compute"}, untimed{"untimed"}, total{"total"};
  bool timed = false;
  for (std::size_t q = 0; q < traces.size(); ++q) {
    const auto& t = traces[q];
    const auto& s = r.action_seconds[q];
    std::map<std::tuple<int, int, int>, std::deque<double>> open;  // request sizes by key
    std::string call, last;
    double bytes = 0, replayed = 0;
    std::size_t actions = 0;
    const auto next_call = [&] {
      call.clear();
      last.clear();
      bytes = replayed = 0;
      actions = 0;
    };
    const auto untimed_so_far = [&] {  // actions no `# took` followed
      untimed.calls += static_cast<double>(actions);
      untimed.replayed += replayed / n;
      next_call();
    };
    for (std::size_t k = 0; k < t.size(); ++k) {
      const TraceAction& a = t[k];
      total.replayed += s[k] / n;
      if (a.kind == TraceAction::kCompute) {
        if (actions > 0) untimed_so_far();
        compute.recorded += a.flops / 1e9 / n;
        compute.replayed += s[k] / n;
        total.recorded += a.flops / 1e9 / n;
        ++compute.calls;
        continue;
      }
      double b = a.bytes;
      if (a.kind == TraceAction::kIsend || a.kind == TraceAction::kIrecv) {
        const int self = static_cast<int>(q);
        open[a.kind == TraceAction::kIsend ? std::tuple{self, a.peer, a.tag}
                                           : std::tuple{a.peer, self, a.tag}]
            .push_back(a.bytes);
      } else if (a.kind == TraceAction::kWait) {
        auto& sizes = open[{a.peer, a.root, a.tag}];
        b = sizes.empty() ? 0 : sizes.front();
        if (!sizes.empty()) sizes.pop_front();
      }
      std::string name = action_name(a.kind);
      if (a.members) name += "@part";
      if (name != last) call += (call.empty() ? "" : "+") + name;
      last = name;
      bytes = std::max(bytes, b);
      replayed += s[k];
      ++actions;
      if (a.took < 0) continue;
      timed = true;
      const auto [from, to] = bin(bytes);
      CallTimes& g = groups[{call, from}];
      g.call = call;
      g.bytes_from = from;
      g.bytes_to = to;
      ++g.calls;
      g.recorded += a.took / n;
      g.replayed += replayed / n;
      total.recorded += a.took / n;
      ++total.calls;
      next_call();
    }
    if (actions > 0) untimed_so_far();
  }
  if (!timed) return {};
  std::vector<CallTimes> out;
  for (auto& [key, g] : groups) out.push_back(g);
  std::sort(out.begin(), out.end(), [](const CallTimes& a, const CallTimes& b) {
    return std::abs(a.replayed - a.recorded) > std::abs(b.replayed - b.recorded);
  });
  out.push_back(compute);
  if (untimed.calls > 0) out.push_back(untimed);
  out.push_back(total);
  return out;
}

}  // namespace colltune::forecast
