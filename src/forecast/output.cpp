#include "output.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace colltune::forecast {

std::optional<Format> format_from_name(std::string_view name) {
  if (name == "table") return Format::kTable;
  if (name == "csv") return Format::kCsv;
  if (name == "json") return Format::kJson;
  return std::nullopt;
}

Cell number(double x) {
  if (!std::isfinite(x)) return text(std::isnan(x) ? "nan" : x > 0 ? "inf" : "-inf");
  char b[40];
  std::snprintf(b, sizeof b, "%.9g", x);
  return {b, true};
}

namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (const char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      out += b;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace

std::string render(const std::vector<std::string>& columns,
                   const std::vector<std::vector<Cell>>& rows, Format f) {
  std::string out;
  if (f == Format::kCsv) {
    for (std::size_t c = 0; c < columns.size(); ++c) out += (c ? "," : "") + csv_field(columns[c]);
    out += '\n';
    for (const auto& r : rows) {
      for (std::size_t c = 0; c < r.size(); ++c) out += (c ? "," : "") + csv_field(r[c].text);
      out += '\n';
    }
  } else if (f == Format::kJson) {
    out += "[";
    for (std::size_t i = 0; i < rows.size(); ++i) {
      out += i ? ",\n {" : "\n {";
      for (std::size_t c = 0; c < columns.size() && c < rows[i].size(); ++c) {
        out += (c ? ", " : "") + json_string(columns[c]) + ": " +
               (rows[i][c].raw ? rows[i][c].text : json_string(rows[i][c].text));
      }
      out += "}";
    }
    out += rows.empty() ? "]\n" : "\n]\n";
  } else {
    std::vector<std::size_t> width(columns.size());
    for (std::size_t c = 0; c < columns.size(); ++c) width[c] = columns[c].size();
    for (const auto& r : rows) {
      for (std::size_t c = 0; c < r.size() && c < width.size(); ++c) {
        width[c] = std::max(width[c], r[c].text.size());
      }
    }
    auto line = [&](auto&& cell, auto&& right) {
      for (std::size_t c = 0; c < columns.size(); ++c) {
        const std::string s = cell(c);
        const std::string pad(width[c] - std::min(width[c], s.size()), ' ');
        out += (c ? "  " : "") + (right(c) ? pad + s : s + (c + 1 < columns.size() ? pad : ""));
      }
      out += '\n';
    };
    // Columns of numbers are right-aligned, their heading too.
    std::vector<char> numeric(columns.size(), 0);
    for (const auto& r : rows) {
      for (std::size_t c = 0; c < r.size() && c < numeric.size(); ++c) numeric[c] |= r[c].raw;
    }
    line([&](std::size_t c) { return columns[c]; }, [&](std::size_t c) { return numeric[c]; });
    for (const auto& r : rows) {
      line([&](std::size_t c) { return c < r.size() ? r[c].text : std::string(); },
           [&](std::size_t c) { return c < r.size() && r[c].raw; });
    }
  }
  return out;
}

}  // namespace colltune::forecast
