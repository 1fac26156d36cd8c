// sao_compare: each study with the SAO driver and with the same simulator coupled directly to
// NLopt (SLSQP and MMA with the simulator's gradients, COBYLA without) and, when asked for
// (--methods ...,ipopt), to IPOPT, from the same start, measured in one run. Prints a Markdown
// table (docs/benchmarks.md is its output).
//
//   build/sao_compare problems/impact-absorber/comfort.json [more studies] [--max-evals N]
//
// The direct methods see the problem scaled (variables by their ranges, the objective by its
// start value: direct_scaling) unless --unscaled. With --target F, three more columns: the
// analyses, gradient analyses and simulator runs each method needed to first reach an objective
// within --target-rel of F (feasible within vioacc); --trace FILE writes every analysis of the
// direct methods as CSV.
//
// The direct coupling and its counts: bench/compare/direct_coupling.hpp.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
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
  // The counts at the first analysis that reached --target: -1 not reached, -2 not known (SAO's
  // cycle records count analyses only).
  int to_target = -1, gradients_to_target = -1, runs_to_target = -1;
};

struct Options {
  int max_evals = 300;
  double ftol = 0, max_time = 120;
  bool scaled = true;
  double target = NAN, target_rel = 1e-4;
  std::string trace, ipopt_log;
};

// Whether an analysis with this objective (user sign) and violation (%) reaches the target.
bool reaches(const sao::LoadedStudy& study, const Options& o, double objective, double violation) {
  if (!std::isfinite(o.target) || !(violation <= study.options.vioacc)) return false;
  const double slack = o.target_rel * std::abs(o.target);
  return study.objective.maximize ? objective >= o.target - slack : objective <= o.target + slack;
}

// IPOPT when `algorithm` is NLOPT_NUM_ALGORITHMS.
Row run_direct(const std::string& file, nlopt_algorithm algorithm, const char* name, double ftol,
               const Options& o, std::ofstream* trace) {
  const sao::LoadedStudy study = sao::load_study(sao::read_study_document(file), file);
  auto simulator = sao::make_study_simulator(study);
  sao::bench::DirectSettings settings{algorithm, o.max_evals, ftol, o.max_time, o.scaled, {}};
  if (algorithm == NLOPT_NUM_ALGORITHMS) settings.log_file = o.ipopt_log;
  const sao::bench::DirectResult r = algorithm == NLOPT_NUM_ALGORITHMS
                                         ? sao::bench::run_ipopt(study, *simulator, settings)
                                         : sao::bench::run_direct(study, *simulator, settings);
  Row row{file,        name,        r.status + " (" + r.reason + ")",
          r.objective, r.violation, r.seconds,
          r.analyses,  r.gradients, r.runs};
  for (const sao::bench::DirectAnalysis& a : r.history) {
    if (trace) {
      *trace << file << "," << name << "," << a.analyses << "," << a.gradients << "," << a.runs
             << "," << a.objective << "," << a.violation << "\n";
    }
    if (row.to_target < 0 && reaches(study, o, a.objective, a.violation)) {
      row.to_target = a.analyses;
      row.gradients_to_target = a.gradients;
      row.runs_to_target = a.runs;
    }
  }
  return row;
}

Row run_sao(const std::string& file, const Options& o) {
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
  for (const sao::CycleRecord& c : s.history) {  // the analyses at each cycle's proposal
    if (reaches(study, o, c.F_opt, c.V)) {
      row.to_target = c.analyses;
      row.gradients_to_target = row.runs_to_target = -2;
      break;
    }
  }
  return row;
}

}  // namespace

// Every method asked for on one study, in the table's order.
std::vector<Row> compare(const std::string& file, const std::string& methods, const Options& o,
                         std::ofstream* trace) {
  auto wanted = [&](const char* m) {
    return ("," + methods + ",").find(std::string(",") + m + ",") != std::string::npos;
  };
  std::vector<Row> rows;
  if (wanted("sao")) rows.push_back(run_sao(file, o));
  if (wanted("slsqp"))
    rows.push_back(run_direct(file, NLOPT_LD_SLSQP, "NLopt SLSQP", o.ftol, o, trace));
  if (wanted("slsqp-tight"))
    rows.push_back(run_direct(file, NLOPT_LD_SLSQP, "NLopt SLSQP, ftol 1e-6", 1e-6, o, trace));
  if (wanted("mma")) rows.push_back(run_direct(file, NLOPT_LD_MMA, "NLopt MMA", o.ftol, o, trace));
  if (wanted("cobyla"))
    rows.push_back(run_direct(file, NLOPT_LN_COBYLA, "NLopt COBYLA", o.ftol, o, trace));
  if (wanted("ipopt"))
    rows.push_back(run_direct(file, NLOPT_NUM_ALGORITHMS, "IPOPT", o.ftol, o, trace));
  return rows;
}

void print_help() {
  std::cout
      << "usage: sao_compare STUDY.json... [--max-evals N] [--max-time S] [--ftol REL] "
         "[--methods sao,slsqp,slsqp-tight,mma,cobyla,ipopt] [--unscaled] [--target F "
         "[--target-rel R]] [--trace FILE] [--ipopt-log FILE]\n"
         "  --methods: the default leaves out ipopt\n"
         "  --max-evals: NLopt's and IPOPT's evaluation limit per run (300)\n"
         "  --max-time: NLopt's and IPOPT's wall-time limit per run, s (120; 0: none)\n"
         "  --ftol: NLopt's relative objective tolerance and IPOPT's tol (default: the "
         "study's objacc; slsqp-tight uses 1e-6)\n"
         "  --unscaled: hand NLopt and IPOPT the variables and objective in the study's units "
         "(default: each variable divided by its range, max(|start|, 1) without two bounds, and "
         "the objective by |F| at the start, so that IPOPT's tol is relative to the start's "
         "objective per range)\n"
         "  --target F: add the analyses, gradient analyses and simulator runs each method "
         "needed to first reach an objective within --target-rel (1e-4) of F, feasible within "
         "vioacc (SAO: the analyses at the first cycle whose proposal does)\n"
         "  --trace FILE: every analysis of the direct methods as CSV (study, method, "
         "analyses, gradients, runs, objective, violation)\n"
         "  --ipopt-log FILE: IPOPT's iteration log (file_print_level 5)\n";
}

int main(int argc, char** argv) {
  std::vector<std::string> files;
  Options o;
  std::string methods = "sao,slsqp,slsqp-tight,mma,cobyla";
  try {  // std::stoi and its kin throw on a value that is no number
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "--max-evals" && i + 1 < argc) {
        o.max_evals = std::stoi(argv[++i]);
      } else if (a == "--max-time" && i + 1 < argc) {
        o.max_time = std::stod(argv[++i]);
      } else if (a == "--ftol" && i + 1 < argc) {
        o.ftol = std::stod(argv[++i]);
      } else if (a == "--methods" && i + 1 < argc) {
        methods = argv[++i];
      } else if (a == "--unscaled") {
        o.scaled = false;
      } else if (a == "--target" && i + 1 < argc) {
        o.target = std::stod(argv[++i]);
      } else if (a == "--target-rel" && i + 1 < argc) {
        o.target_rel = std::stod(argv[++i]);
      } else if (a == "--trace" && i + 1 < argc) {
        o.trace = argv[++i];
      } else if (a == "--ipopt-log" && i + 1 < argc) {
        o.ipopt_log = argv[++i];
      } else if (a == "-h" || a == "--help") {
        print_help();
        return 0;
      } else {
        files.push_back(a);
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "sao_compare: a number was expected (" << e.what() << "); see --help\n";
    return 2;
  }
  if (files.empty()) {
    std::cerr << "usage: sao_compare STUDY.json... [options]; see --help\n";
    return 2;
  }
  sao::sim::register_internal_simulator();
  std::ofstream trace;
  if (!o.trace.empty()) {
    trace.open(o.trace);
    if (!trace) {
      std::cerr << "error: --trace " << o.trace << ": cannot write there\n";
      return 2;
    }
    trace << "study,method,analyses,gradients,runs,objective,violation\n";
    trace.precision(10);
  }
  const bool target = std::isfinite(o.target);
  std::printf(
      "| study | method | status | objective | max violation [%%] | analyses | gradients "
      "| simulator runs | wall [s] |%s\n|---|---|---|---|---|---|---|---|---|%s\n",
      target ? " analyses to target | gradients to target | runs to target |" : "",
      target ? "---|---|---|" : "");
  try {
    for (const std::string& file : files) {
      for (const Row& r : compare(file, methods, o, trace.is_open() ? &trace : nullptr)) {
        std::printf("| %s | %s | %s | %.6g | %.3g | %d | %d | %d | %.2f |", r.study.c_str(),
                    r.method.c_str(), r.status.c_str(), r.objective, r.violation, r.analyses,
                    r.gradients, r.runs, r.seconds);
        if (target) {
          for (const int count : {r.to_target, r.gradients_to_target, r.runs_to_target}) {
            std::printf(" %s |", count == -1   ? "not reached"
                                 : count == -2 ? "-"
                                               : std::to_string(count).c_str());
          }
        }
        std::printf("\n");
        std::fflush(stdout);
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
