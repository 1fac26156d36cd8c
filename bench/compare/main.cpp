// sao_compare: each study with the SAO driver and with the same simulator coupled directly to
// NLopt (SLSQP and MMA with the simulator's gradients, COBYLA without) and, when asked for
// (--methods ...,ipopt), to IPOPT, from the same start, measured in one run. Prints a Markdown
// table (docs/benchmarks.md is its output).
//
//   build/sao_compare problems/impact-absorber/comfort.json [more studies] [--max-evals N]
//
// The direct coupling and its counts: bench/compare/direct_coupling.hpp.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "bench/compare/direct_coupling.hpp"
#include "sao/optimizer/driver.hpp"
#include "sao/study/open_study.hpp"
#include "sao/study/study_loader.hpp"
#include "simulators/internal_simulator.hpp"

namespace {

using sao::Study;

struct Row {
  std::string study, method, status;
  double objective = NAN, violation = NAN, seconds = 0;
  int analyses = 0, gradients = 0, runs = 0;
};

// IPOPT when `algorithm` is NLOPT_NUM_ALGORITHMS.
Row run_direct(const std::string& file, nlopt_algorithm algorithm, const char* name, int max_evals,
               double ftol, double max_time) {
  const sao::LoadedStudy study = sao::load_study(sao::read_study_document(file), file);
  auto simulator = sao::make_study_simulator(study);
  const sao::bench::DirectSettings settings{algorithm, max_evals, ftol, max_time};
  const sao::bench::DirectResult r = algorithm == NLOPT_NUM_ALGORITHMS
                                         ? sao::bench::run_ipopt(study, *simulator, settings)
                                         : sao::bench::run_direct(study, *simulator, settings);
  return {file,      name,       r.status,    r.objective, r.violation,
          r.seconds, r.analyses, r.gradients, r.runs};
}

Row run_sao(const std::string& file) {
  Row row;
  row.study = file;
  row.method = "SAO";
  const sao::OpenedStudy opened = sao::open_study(file);
  const sao::LoadedStudy& study = opened.study;
  sao::Driver driver(study, *opened.simulator, study.options);
  const auto t0 = std::chrono::steady_clock::now();
  const sao::RunSummary& s = driver.run();
  row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  row.status = sao::to_string(s.status);
  row.objective = s.objective;
  row.violation = s.max_violation;
  row.analyses = s.analyses;
  row.gradients = s.sensitivity_analyses;
  row.runs = s.simulator_runs;
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> files;
  int max_evals = 300;
  double ftol = 0, max_time = 120;
  std::string methods = "sao,slsqp,slsqp-tight,mma,cobyla";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--max-evals" && i + 1 < argc) {
      max_evals = std::stoi(argv[++i]);
    } else if (a == "--max-time" && i + 1 < argc) {
      max_time = std::stod(argv[++i]);
    } else if (a == "--ftol" && i + 1 < argc) {
      ftol = std::stod(argv[++i]);
    } else if (a == "--methods" && i + 1 < argc) {
      methods = argv[++i];
    } else if (a == "-h" || a == "--help") {
      std::cout << "usage: sao_compare STUDY.json... [--max-evals N] [--max-time S] [--ftol REL] "
                   "[--methods sao,slsqp,slsqp-tight,mma,cobyla,ipopt]\n"
                   "  --methods: the default leaves out ipopt\n"
                   "  --max-evals: NLopt's and IPOPT's evaluation limit per run (300)\n"
                   "  --max-time: NLopt's and IPOPT's wall-time limit per run, s (120; 0: none)\n"
                   "  --ftol: NLopt's relative objective tolerance and IPOPT's tol (default: the "
                   "study's objacc; slsqp-tight uses 1e-6)\n";
      return 0;
    } else {
      files.push_back(a);
    }
  }
  if (files.empty()) {
    std::cerr << "usage: sao_compare STUDY.json... [options]; see --help\n";
    return 2;
  }
  sao::sim::register_internal_simulator();
  std::printf(
      "| study | method | status | objective | max violation [%%] | analyses | gradients "
      "| simulator runs | wall [s] |\n|---|---|---|---|---|---|---|---|---|\n");
  try {
    for (const std::string& file : files) {
      auto wanted = [&](const char* m) {
        return ("," + methods + ",").find(std::string(",") + m + ",") != std::string::npos;
      };
      std::vector<Row> rows;
      if (wanted("sao")) rows.push_back(run_sao(file));
      if (wanted("slsqp"))
        rows.push_back(run_direct(file, NLOPT_LD_SLSQP, "NLopt SLSQP", max_evals, ftol, max_time));
      if (wanted("slsqp-tight"))
        rows.push_back(
            run_direct(file, NLOPT_LD_SLSQP, "NLopt SLSQP, ftol 1e-6", max_evals, 1e-6, max_time));
      if (wanted("mma"))
        rows.push_back(run_direct(file, NLOPT_LD_MMA, "NLopt MMA", max_evals, ftol, max_time));
      if (wanted("cobyla"))
        rows.push_back(
            run_direct(file, NLOPT_LN_COBYLA, "NLopt COBYLA", max_evals, ftol, max_time));
      if (wanted("ipopt"))
        rows.push_back(run_direct(file, NLOPT_NUM_ALGORITHMS, "IPOPT", max_evals, ftol, max_time));
      for (const Row& r : rows) {
        std::printf("| %s | %s | %s | %.6g | %.3g | %d | %d | %d | %.2f |\n", r.study.c_str(),
                    r.method.c_str(), r.status.c_str(), r.objective, r.violation, r.analyses,
                    r.gradients, r.runs, r.seconds);
        std::fflush(stdout);
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
