// Derived responses: explicit relations of simulator responses, approximated as responses.
//
// A study may declare a response by an expression instead of a simulator source, e.g.
//   {"name": "comfort", "kind": "scalar", "expression": "trapz(acceleration^2) / 12"}.
// It is then computed from every analysis and, unlike a relation used directly in a
// criterion, approximated linearly like any simulator response: the "without intermediate
// responses" formulation of SPEC 4. This is a Simulator decorator, so the driver, the
// approximations, the multi-point fits and the reports see derived responses as ordinary
// ones: it asks the simulator for the derivatives the relation needs and returns the
// derived values and exact chain-rule gradients (automatic differentiation) beside them.
#pragma once

#include <memory>

#include "sao/seam/simulator.hpp"
#include "sao/study/study.hpp"

namespace sao {

// Wraps `inner` so that it also delivers the derived responses of `study`.
std::unique_ptr<Simulator> with_derived_responses(const Study& study,
                                                  std::unique_ptr<Simulator> inner);

}  // namespace sao
