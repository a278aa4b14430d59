#include "expr.hpp"

#include <muParser.h>

#include <cmath>
#include <stdexcept>

namespace colltune::forecast {
namespace {

double ceil_of(double x) { return std::ceil(x); }
double floor_of(double x) { return std::floor(x); }

void setup(mu::Parser* p, const std::string& text) {
  p->DefineFun("ceil", ceil_of);
  p->DefineFun("floor", floor_of);
  p->SetExpr(text);
}

}  // namespace

double Expr::eval(const Vars& vars) const {
  if (text_.empty()) throw std::invalid_argument("empty expression");
  try {
    mu::Parser p;
    setup(&p, text_);
    // muparser keeps pointers to the values: one stable copy for this evaluation.
    std::vector<double> values;
    values.reserve(vars.size());
    for (const auto& [name, value] : vars) values.push_back(value);
    std::size_t k = 0;
    for (const auto& [name, value] : vars) p.DefineVar(name, &values[k++]);
    const double v = p.Eval();
    if (!std::isfinite(v)) {
      throw std::invalid_argument("'" + text_ + "' is not a finite number");
    }
    return v;
  } catch (const mu::Parser::exception_type& e) {
    throw std::invalid_argument("'" + text_ + "': " + e.GetMsg());
  }
}

std::vector<std::string> Expr::names() const {
  try {
    mu::Parser p;
    setup(&p, text_);
    std::vector<std::string> out;
    for (const auto& [name, ptr] : p.GetUsedVar()) out.push_back(name);
    return out;
  } catch (const mu::Parser::exception_type& e) {
    throw std::invalid_argument("'" + text_ + "': " + e.GetMsg());
  }
}

}  // namespace colltune::forecast
