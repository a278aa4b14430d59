// Link measurements with validity deadlines (FAST's cache of network measurements, on the LMO
// links, docs/forecast.md "Link age"): when each link was measured, which ones a query finds
// stale, and links re-measured after calibration taking the calibrated ones' place. No MPI,
// no files (src/forecast/links_yaml.hpp reads and writes them).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "../model/platform_model.hpp"
#include "comm.hpp"

namespace colltune::forecast {

// One link measured again between the processes of two identities (colltune-predict
// measure-link): a message of m bytes takes fixed + m * per_byte seconds, either way (half a
// roundtrip of m bytes each way), as of `measured` (seconds since the epoch).
struct LinkMeasurement {
  std::string from, to;
  double fixed = 0, per_byte = 0;
  double measured = 0;
  double bytes = 0;  // the largest size timed
  int reps = 0;      // repetitions of the slower series
};

// Every link of `g` that a table measured dates from `finished` (its calibration; NaN: unknown).
void date_links(LinkGraph& g, double finished);
// Re-measured links replace the graph's in both directions, measured, with their date; links
// between identities the graph lacks are ignored. Returns how many pairs were applied.
int apply(LinkGraph& g, std::span<const LinkMeasurement> links);
// The same on the model that coll and routine forecasts use: the link's rate becomes the
// measured one, 1/beta_ij = max(0, per_byte - t_i - t_j) both ways; C_i, t_i stay calibrated.
int apply(model::PlatformModel& pm, std::span<const LinkMeasurement> links);

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
