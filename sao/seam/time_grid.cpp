#include "sao/seam/time_grid.hpp"

namespace sao {

std::vector<double> TimeGrid::times() const {
  std::vector<double> out(points);
  for (int p = 0; p < points; ++p) out[p] = at(p);
  return out;
}

}  // namespace sao
