#include "links_yaml.hpp"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>

#include "../table/atomic_file.hpp"
#include "../table/yaml_util.hpp"

namespace colltune {

namespace {
constexpr int kSchema = 1;
}  // namespace

std::string emit_links(const std::vector<forecast::LinkMeasurement>& links) {
  YAML::Emitter out;
  out.SetDoublePrecision(17);
  out << YAML::Comment(
      "colltune-predict measure-link: links measured after calibration (docs/forecast.md)");
  out << YAML::BeginMap;
  out << YAML::Key << "colltune_links" << YAML::Value << kSchema;
  out << YAML::Key << "links" << YAML::Value << YAML::BeginSeq;
  for (const forecast::LinkMeasurement& l : links) {
    out << YAML::Flow << YAML::BeginMap;
    out << YAML::Key << "from" << YAML::Value << l.from;
    out << YAML::Key << "to" << YAML::Value << l.to;
    out << YAML::Key << "fixed" << YAML::Value << l.fixed;
    out << YAML::Key << "per_byte" << YAML::Value << l.per_byte;
    out << YAML::Key << "measured" << YAML::Value << format_utc(l.measured);
    out << YAML::Key << "bytes" << YAML::Value << l.bytes;
    out << YAML::Key << "reps" << YAML::Value << l.reps;
    if (l.small_bytes > 0) out << YAML::Key << "small_bytes" << YAML::Value << l.small_bytes;
    if (l.small_bytes > 0 || l.free_bytes > 0) {
      out << YAML::Key << "free_bytes" << YAML::Value << l.free_bytes;
    }
    out << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

std::vector<forecast::LinkMeasurement> parse_links(const std::string& text,
                                                   const std::string& file) {
  const YamlReader r(file);
  const YAML::Node root = r.load_string(text);
  return rethrow_yaml_errors(file, [&] {
    r.require_map(root, "(top level)");
    r.check_keys(root, "(top level)", {"colltune_links", "links"});
    if (!root["colltune_links"] || r.scalar(root["colltune_links"], "colltune_links") != "1") {
      r.fail(root["colltune_links"] ? root["colltune_links"] : root, "colltune_links",
             "not a links file of this version (valid: 1; written by colltune-predict "
             "measure-link)");
    }
    if (!root["links"]) r.fail(root, "links", "absent (a list of measured links)");
    r.require_seq(root["links"], "links");
    auto real = [&](const YAML::Node& n, const std::string& field) {
      if (!n) r.fail(n, field, "absent");
      const std::string s = r.scalar(n, field);
      char* end = nullptr;
      const double x = std::strtod(s.c_str(), &end);
      if (s.empty() || *end != '\0' || !std::isfinite(x) || x < 0) {
        r.fail(n, field, "'" + s + "' is not a finite number >= 0");
      }
      return x;
    };
    std::vector<forecast::LinkMeasurement> out;
    for (std::size_t i = 0; i < root["links"].size(); ++i) {
      const YAML::Node e = root["links"][i];
      const std::string f = "links[" + std::to_string(i) + "]";
      r.require_map(e, f);
      r.check_keys(e, f,
                   {"from", "to", "fixed", "per_byte", "measured", "bytes", "reps", "small_bytes",
                    "free_bytes"});
      forecast::LinkMeasurement l;
      for (const char* k : {"from", "to", "measured"}) {
        if (!e[k]) r.fail(e, f + "." + k, "absent");
      }
      l.from = r.scalar(e["from"], f + ".from");
      l.to = r.scalar(e["to"], f + ".to");
      l.fixed = real(e["fixed"], f + ".fixed");
      l.per_byte = real(e["per_byte"], f + ".per_byte");
      const auto when = parse_utc(r.scalar(e["measured"], f + ".measured"));
      if (!when) {
        r.fail(e["measured"], f + ".measured",
               "invalid value '" + e["measured"].Scalar() +
                   "' (valid: a UTC time YYYY-MM-DDTHH:MM:SSZ)");
      }
      l.measured = *when;
      if (e["bytes"]) l.bytes = real(e["bytes"], f + ".bytes");
      if (e["reps"]) {
        l.reps = static_cast<int>(r.number(e["reps"], f + ".reps", false, 1u << 30));
      }
      if (e["small_bytes"]) {
        l.small_bytes = real(e["small_bytes"], f + ".small_bytes");
        if (l.bytes > 0 && l.small_bytes >= l.bytes) {
          r.fail(e["small_bytes"], f + ".small_bytes",
                 "'" + e["small_bytes"].Scalar() + "' is not below bytes (valid: 0 to bytes)");
        }
      }
      if (e["free_bytes"]) {
        l.free_bytes = real(e["free_bytes"], f + ".free_bytes");
        const double cap = l.small_bytes > 0 ? l.small_bytes : l.bytes;
        if (!(l.free_bytes <= cap)) {
          r.fail(e["free_bytes"], f + ".free_bytes",
                 "'" + e["free_bytes"].Scalar() + "' exceeds the sizes timed (valid: 0 to " +
                     (l.small_bytes > 0 ? "small_bytes" : "bytes") + ")");
        }
      }
      out.push_back(std::move(l));
    }
    return out;
  });
}

std::vector<forecast::LinkMeasurement> load_links(const std::string& file) {
  const MappedString text = read_text_file(file);
  return parse_links(std::string(text.data(), text.size()), file);
}

void save_links(const std::vector<forecast::LinkMeasurement>& links, const std::string& file) {
  write_file_atomically(file, emit_links(links));
}

void record_link(const forecast::LinkMeasurement& l, const std::string& file) {
  std::vector<forecast::LinkMeasurement> links;
  std::error_code ec;
  if (std::filesystem::exists(file, ec)) links = load_links(file);
  std::erase_if(links, [&](const forecast::LinkMeasurement& x) {
    return (x.from == l.from && x.to == l.to) || (x.from == l.to && x.to == l.from);
  });
  links.push_back(l);
  save_links(links, file);
}

}  // namespace colltune
