// The simple oscillator of seed 000 (figure 2): y' = z, m z' = -c y, y(0) = 0, z(0) = z0,
// m = 1, parameters p = (c, z0). History output y; at p = (1, 0.5) and t1 = pi/2,
// psi = y(t1) = 0.5 and grad psi = (-0.25, 1) exactly, the reference of seed 000 for the
// accuracy of adjoint, direct and finite-difference sensitivities.
#include "simulators/models/model.hpp"

namespace sao::sim {
namespace {

class Oscillator final : public TemplatedOdeModel<Oscillator> {
 public:
  std::string name() const override { return "oscillator"; }
  std::vector<std::string> parameters() const override { return {"c", "z0"}; }
  std::map<std::string, double> load_parameters() const override { return {}; }
  int state_size() const override { return 2; }
  std::vector<std::string> history_outputs() const override { return {"y", "z"}; }

  template <class S>
  void initial(const S* p, S* x0, const LoadCaseSpec&) const {
    x0[0] = S(0.0);
    x0[1] = p[1];
  }
  template <class S>
  void equations(double, const S* x, S* xdot, const S* p, const LoadCaseSpec&) const {
    xdot[0] = x[1];
    xdot[1] = -p[0] * x[0];
  }
  template <class S>
  S out(int k, double, const S* x, const S*, const LoadCaseSpec&) const {
    return x[k];
  }
};

}  // namespace

const OdeModel& oscillator_model() {
  static const Oscillator model;
  return model;
}

}  // namespace sao::sim
