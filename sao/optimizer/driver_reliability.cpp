// The driver's reliability targets (driver.hpp: Driver::set_reliability_margins;
// reliability_margins.hpp for the method).
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <stdexcept>

#include "sao/optimizer/driver.hpp"
#include "sao/optimizer/reliability_margins.hpp"

namespace sao {

std::string Driver::set_reliability_margins(const ApproximateProblem& problem,
                                            const CycleRecord& rec) {
  if (!study_.random) return "reliability targets without random variables";  // the loader's
  std::vector<ReliabilityMargin> margins;
  try {
    margins = reliability_margins(problem, *study_.random);
  } catch (const std::invalid_argument& e) {
    return fmt::format("cycle {}: the reliability margins at b0: {}", rec.cycle, e.what());
  }
  for (const ReliabilityMargin& m : margins) {
    Constraint& c = study_.constraints[m.constraint];
    c.margin = m.margin;
    RunSummary::Margin record{c.name,   c.reliability.k, c.reliability.probability, m.point, m.sd,
                              m.margin, rec.cycle};
    auto known = std::find_if(summary_.reliability.begin(), summary_.reliability.end(),
                              [&](const RunSummary::Margin& r) { return r.constraint == c.name; });
    if (known == summary_.reliability.end()) {
      summary_.reliability.push_back(record);
    } else {
      *known = record;
    }
    spdlog::debug("cycle {}: {} held with margin {:.6g} = {:.4g} x sd {:.6g} (point {})", rec.cycle,
                  c.name, m.margin, c.reliability.k, m.sd, m.point);
  }
  return "";
}

void Driver::note_reliability() {
  std::string words;
  for (const RunSummary::Margin& m : summary_.reliability) {
    words += fmt::format(
        "{}{} {:.6g} ({:.4g} sd of {:.6g}{}, measured at the start of cycle {})",
        words.empty() ? "" : ", ", m.constraint, m.margin, m.k, m.sd,
        m.probability > 0 ? fmt::format(", P(violation) <= {:g}", m.probability) : std::string(),
        m.cycle);
  }
  summary_.message += "; reliability targets held with first-order margins: " + words;
}

}  // namespace sao
