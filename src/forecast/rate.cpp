#include "rate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace colltune::forecast {

double RateBySize::rate(double working_set) const {
  if (at.empty()) return 0;
  if (!(working_set > 0) || at.size() == 1) return at.front().second;
  // The nearest measured working sets at or below and at or above it (no copy: called per block).
  const std::pair<double, double>*lo = nullptr, *hi = nullptr;
  for (const auto& p : at) {
    if (p.first <= working_set && (!lo || p.first > lo->first)) lo = &p;
    if (p.first >= working_set && (!hi || p.first < hi->first)) hi = &p;
  }
  if (!lo || !hi || lo == hi) return (lo ? lo : hi)->second;
  const double f = std::log(working_set / lo->first) / std::log(hi->first / lo->first);
  return 1 / ((1 - f) / lo->second + f / hi->second);
}

RateBySize parse_rate(const std::string& text, const std::string& what) {
  const std::string valid =
      " (valid: R or R@W[,R@W...], a rate above 0 at a working set of W bytes)";
  auto number = [&](const std::string& s, const char* field) {
    char* end = nullptr;
    const double x = std::strtod(s.c_str(), &end);
    if (s.empty() || *end != '\0' || !(x > 0) || !std::isfinite(x)) {
      throw std::invalid_argument(what + " " + text + ": " + field + " '" + s +
                                  "' is not a number above 0" + valid);
    }
    return x;
  };
  RateBySize r;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    const auto atsign = item.find('@');
    const double f = number(item.substr(0, atsign), "rate");
    const double w = atsign == std::string::npos ? 0 : number(item.substr(atsign + 1), "bytes");
    r.at.emplace_back(w, f);
  }
  const bool bare = !r.at.empty() && r.at.front().first == 0;
  const auto mixed = [&](const auto& p) { return (p.first == 0) != bare; };
  if (r.at.empty() || (bare && r.at.size() > 1) || std::any_of(r.at.begin(), r.at.end(), mixed)) {
    throw std::invalid_argument(what + " " + text +
                                ": give one rate alone or every rate with its working set" + valid);
  }
  for (std::size_t i = 0; i < r.at.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (r.at[i].first == r.at[j].first) {
        throw std::invalid_argument(what + " " + text + ": two rates at one working set" + valid);
      }
    }
  }
  return r;
}

}  // namespace colltune::forecast
