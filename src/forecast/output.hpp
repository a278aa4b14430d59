// The forecasts' output: one table of named columns written as aligned text, CSV or JSON
// (numbers and booleans as such, the rest as strings).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace colltune::forecast {

enum class Format { kTable, kCsv, kJson };
std::optional<Format> format_from_name(std::string_view name);  // table, csv, json

struct Cell {
  std::string text;
  bool raw = false;  // a JSON number or boolean, right-aligned in tables
};
inline Cell text(std::string s) { return {std::move(s), false}; }
Cell number(double x);  // %.9g; inf and nan as strings
inline Cell boolean(bool b) { return {b ? "true" : "false", true}; }

std::string render(const std::vector<std::string>& columns,
                   const std::vector<std::vector<Cell>>& rows, Format f);

}  // namespace colltune::forecast
