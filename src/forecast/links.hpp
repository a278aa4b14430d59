// Link measurements with validity deadlines (FAST's cache of network measurements, on the LMO
// links, docs/forecast.md "Link age"): when each link was measured, which ones a query finds
// stale, and links re-measured after calibration taking the calibrated ones' place. No MPI,
// no files (src/forecast/links_yaml.hpp reads and writes them).
#pragma once

#include <map>
#include <span>
#include <string>
#include <vector>

#include "../model/platform_model.hpp"
#include "comm.hpp"

namespace colltune::forecast {

// One link measured again between the processes of two identities (colltune-predict
// measure-link): a message of m bytes takes fixed + max(0, m - free_bytes) * per_byte seconds,
// either way, as of `measured` (seconds since the epoch). free_bytes: 0 unless a small size
// was timed too (fit_link, src/calibration/link.hpp).
struct LinkMeasurement {
  std::string from, to;
  double fixed = 0, per_byte = 0;
  double measured = 0;
  double bytes = 0;  // the largest size timed
  int reps = 0;      // repetitions of the slower series
  double free_bytes = 0;
  double small_bytes = 0;  // the small size timed (0: none)
};

// Every link of `g` that a table measured dates from `finished` (its calibration; NaN: unknown).
void date_links(LinkGraph& g, double finished);
// Re-measured links replace the graph's in both directions, measured, with their date; links
// between identities the graph lacks are ignored. Returns how many pairs were applied.
int apply(LinkGraph& g, std::span<const LinkMeasurement> links);
// The same on the model that coll and routine forecasts use: the link's rate becomes the
// measured one, 1/beta_ij = r - t_i - t_j both ways (negative where calibration put more than
// r into the hosts' t_i + t_j, as its own fits may), r the rate of the line through 0 and
// `bytes` (per_byte (bytes - free_bytes) / bytes: the model has one line per link); C_i, t_i
// stay calibrated.
int apply(model::PlatformModel& pm, std::span<const LinkMeasurement> links);

// The model at one message size, for trees whose messages are m bytes each (a bcast's): where
// the graph lets a link pass bytes free (a links file's small messages), its rate becomes
// 1/beta_ij = (T_ij(m) - fixed_ij) / m - t_i - t_j, so that a message of m bytes costs
// what the graph says; pm itself where no link does. The graph indexes pm's identities.
class ModelAtSize {
 public:
  ModelAtSize(const model::PlatformModel& pm, const LinkGraph& g) : pm_(pm), g_(g) {}
  const model::PlatformModel& at(double m);

 private:
  const model::PlatformModel& pm_;
  const LinkGraph& g_;
  std::map<double, model::PlatformModel> sized_;
};

// Seconds since the oldest measurement on the link's path was made, at `now` (a combined link
// is as old as its oldest hop; infinity when a hop's date is unknown).
double age(const LinkGraph& g, const Link& l, double now);

// The oldest link under a forecast on these processes (rank r on identity ranks[r]): of every
// pair of them, the link comm takes for m bytes; its age at `now` (infinity: a link without a
// date) and its two identities (-1 when fewer than two processes: no link).
struct OldestLink {
  double age = 0;
  int from = -1, to = -1;
};
OldestLink oldest_link(const LinkGraph& g, std::span<const int> ranks, double now,
                       double m = 1 << 20);

// "90", "90s", "15m", "6h", "7d" as seconds; nullopt when not that form or negative.
std::optional<double> parse_duration(const std::string& text);

}  // namespace colltune::forecast
