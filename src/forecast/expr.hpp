// Arithmetic expressions of the application models (docs/app-models.md): numbers, variables,
// + - * / ^, parentheses, min, max, ceil, floor, log2, sqrt and the like (muparser). No files.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace colltune::forecast {

using Vars = std::map<std::string, double>;

class Expr {
 public:
  Expr() = default;
  explicit Expr(std::string text, int line = 0) : text_(std::move(text)), line_(line) {}
  bool empty() const { return text_.empty(); }
  const std::string& text() const { return text_; }
  int line() const { return line_; }  // in the model file, 0: unknown
  // The value with `vars`; throws std::invalid_argument naming the expression and what is
  // wrong (syntax, an unknown variable, a result that is not a finite number).
  double eval(const Vars& vars) const;
  // The variables the expression reads; throws std::invalid_argument on a syntax error.
  std::vector<std::string> names() const;

 private:
  std::string text_;
  int line_ = 0;
};

}  // namespace colltune::forecast
