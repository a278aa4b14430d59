// The algorithm registry: every candidate the selector may choose, one row each in
// registry.def. A new tree algorithm = one shape (or builder) file under src/algorithms/shapes/
// plus its rows.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "collective.hpp"
#include "shape.hpp"

namespace colltune {

struct Algorithm {
  Op op;
  std::string_view name;
  AlgorithmFn run;
  SupportsFn supports;  // nullptr: supports every intracommunicator call
  const Shape* shape;   // its schedule; nullptr for native (MPICH decides) and built trees
  TreeBuilder build;    // a tree built per communicator and root from the model; else nullptr
  // A built tree's stand-in for calibration's corrections and validated errors (a fixed
  // algorithm of the same op, same executor); empty for the others.
  std::string_view like;
  // A candidate of the model's decisions whatever the table; false: only where the table holds
  // its own correction (model::candidates), else forced or ruled only.
  bool decided;
  // Not `decided`: the smallest size calibration sweeps it at (0: every size); below half of
  // it no candidate either (model::validated_at).
  double swept_from;
  int index;  // position in the registry (stable for one build; used by statistics)
  bool native() const { return !shape && !build; }
};

std::span<const Algorithm> algorithms();
const Algorithm* find_algorithm(Op op, std::string_view name);
const Algorithm& native_algorithm(Op op);
// Every algorithm name of the registry once, in registry order (native first).
std::vector<std::string_view> algorithm_names();
// The algorithms of one op, in registry order (native first): the candidates of a decision.
std::vector<const Algorithm*> algorithms_of(Op op);
// algorithms_of(op) less those not `decided` (a table's candidates: model::candidates).
std::vector<const Algorithm*> candidates_of(Op op);
// A name the registry held once and dropped (docs/model-trees.md says why): tables calibrated
// before still carry its curves, which their readers skip.
bool retired_algorithm(Op op, std::string_view name);
// "native, linear, binomial": the valid names for an op, for error messages.
std::string algorithm_choices(Op op);

// TreeView algorithms carry whole subtrees as one packed message whose byte count is an int.
bool fits_packed_int(const CollArgs& a);

// MPICH's own (src/algorithms/<op>/native.cpp).
int bcast_native(const CollArgs& a);
int scatter_native(const CollArgs& a);
int gather_native(const CollArgs& a);

// This process's place in a tree schedule: its position, and the rank of any position.
struct TreePos {
  int n, vr;
  const TreeView& t;
  TreePos(const CollArgs& a, const TreeView& tree) : n(a.size), vr(tree.pos_of(a.rank)), t(tree) {}
  int rank_of(int position) const { return t.rank_of(position); }
};

// The executors of tree schedules (src/algorithms/<op>/tree.cpp): any fixed shape or built
// tree, any datatype.
int bcast_tree(const CollArgs& a, const TreeView& t);
int scatter_tree(const CollArgs& a, const TreeView& t);
int gather_tree(const CollArgs& a, const TreeView& t);

}  // namespace colltune
