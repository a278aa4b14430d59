// Links re-measured after calibration (forecast/links.hpp) as YAML, beside the model table
// (docs/forecast.md, "Link age"). Written atomically; a broken or foreign file is one
// InputError naming the file, the line and the field.
//   colltune_links: 1
//   links:
//     - {from: h0, to: h5, fixed: 6.4e-4, per_byte: 2.0e-7, measured: "2026-11-26T10:00:00Z",
//        bytes: 65536, reps: 12}
#pragma once

#include <string>
#include <vector>

#include "links.hpp"

namespace colltune {

std::string emit_links(const std::vector<forecast::LinkMeasurement>& links);
std::vector<forecast::LinkMeasurement> parse_links(const std::string& text,
                                                   const std::string& file);
std::vector<forecast::LinkMeasurement> load_links(const std::string& file);
void save_links(const std::vector<forecast::LinkMeasurement>& links, const std::string& file);
// `l` replaces the file's measurement of the same pair (either direction) or joins the others;
// a missing file starts empty. Written atomically.
void record_link(const forecast::LinkMeasurement& l, const std::string& file);

}  // namespace colltune
