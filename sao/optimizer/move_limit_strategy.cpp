#include "sao/optimizer/move_limit_strategy.hpp"

#include <cstdio>

#include "sao/optimizer/metamodel_strategy.hpp"
#include "sao/optimizer/seed_strategy.hpp"
#include "sao/optimizer/trust_region_strategy.hpp"

namespace sao {

const MoveLimitStrategy& move_limit_strategy(Strategy strategy) {
  static const SeedStrategy seed;
  static const TrustRegionStrategy trust_region;
  static const MetamodelStrategy metamodel;
  if (strategy == Strategy::kSeed) return seed;
  if (strategy == Strategy::kMetamodel) return metamodel;
  return trust_region;
}

std::string three_digits(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", v);
  return text;
}

}  // namespace sao
