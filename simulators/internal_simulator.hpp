// The internal simulator: models of simulators/model.hpp integrated with CVODES, with
// sensitivities by finite differences (seed 003, 4.1 and 4.7; step (4.10):
// delta_b = (1 + |b|) p). It implements the Simulator seam; the driver never sees it.
//
// A batch is split into independent jobs (one integration per design, load case and
// perturbation) that run on a small pool of threads; the results do not depend on the
// number of threads. Direct and adjoint sensitivities come with the multibody models.
#pragma once

#include <memory>

#include "sao/simulator.hpp"
#include "simulators/cvodes_integrator.hpp"
#include "simulators/model.hpp"

namespace sao::sim {

struct InternalSettings {
  IntegratorSettings integrator;
  bool central = false;         // central instead of forward differences
  double relative_step = 1e-3;  // p of (4.10)
  int threads = 0;              // 0: all cores
};

class InternalSimulator final : public Simulator {
 public:
  // Throws std::invalid_argument naming "simulator.<key>" for a bad section.
  explicit InternalSimulator(const SimulatorSetup& setup);
  std::vector<ResponseInfo> responses() const override;
  std::vector<Evaluation> evaluate(const std::vector<EvaluationRequest>& batch) override;
  const InternalSettings& settings() const { return settings_; }

 private:
  struct Job;
  Eigen::VectorXd model_parameters(const Eigen::VectorXd& design) const;
  void run_job(Job& job) const;

  const OdeModel* model_ = nullptr;
  InternalSettings settings_;
  std::vector<LoadCaseSpec> load_cases_;
  int n_design_ = 0;
  // Per model parameter: a design variable index, or -1 with a constant value.
  std::vector<int> parameter_source_;
  std::vector<double> parameter_constant_;
};

// Registers the "internal" simulator type (idempotent).
void register_internal_simulator();

}  // namespace sao::sim
