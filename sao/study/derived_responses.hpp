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
// A derived response may read other derived responses: they are computed in dependency order
// (derived_order), and their gradients go through the chain.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sao/seam/simulator.hpp"
#include "sao/study/study.hpp"

namespace sao {

// The indices (into study.responses) of the derived responses in an order in which each comes
// after the derived responses it reads (a derived response may read others: chained). On a
// cycle, `cycle` gets it ("a -> b -> a") and `where` the index of its first response, and the
// order is incomplete.
std::vector<int> derived_order(const Study& study, std::string* cycle = nullptr,
                               int* where = nullptr);

// Wraps `inner` so that it also delivers the derived responses of `study`.
std::unique_ptr<Simulator> with_derived_responses(const Study& study,
                                                  std::unique_ptr<Simulator> inner);

}  // namespace sao
