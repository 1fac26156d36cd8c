// Families of studies over one parameter: `sao sweep STUDY --set KEY=FIRST:LAST:STEP`.
//
// The seed's truck damper study drew a compromise curve (the best largest deflection against
// the acceleration bound) by re-running the study over a range of bounds from several starts.
// A sweep does that: one member per (value, start), members run in parallel, and analyses are
// shared between members through one in-memory AnalysisStore (shared_cache.hpp), so a
// design analysed by one member (the common start design, to begin with) is not run again.
// With a store folder (`sao sweep` uses OUT/members), each member runs in a StudySession on
// its own study store (OUT/members/value-V-start-K/study.sqlite): a killed sweep run again
// replays its finished members and resumes the others, repeating no stored analysis. An
// analysis a member takes from another member is copied into its own store (with 0 runs), so
// that every member's store holds all it used. The sweep returns its members and the curve;
// the report writes them (sao/report/sweep_files.hpp), so the store needs no plotting.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sao/optimizer/driver.hpp"
#include "sao/seam/simulator.hpp"

namespace sao {

// KEY=FIRST:LAST:STEP (inclusive, within rounding) or KEY=V1,V2,...
struct SweepRange {
  std::string key;
  std::vector<double> values;
};
// Throws std::invalid_argument naming what is wrong.
SweepRange parse_sweep_range(const std::string& text);
// A swept value as the sweep writes it (10 significant digits): in overrides, member folders
// and the sweep's files (sao/report/sweep_files.hpp).
std::string sweep_value_text(double v);

struct SweepOptions {
  std::string study_file;
  std::vector<std::string> overrides;  // applied to every member before the swept key
  SweepRange range;
  int starts = 1;  // 1: the study's initial design; k > 1: also its "starts" 1..k-1
  int jobs = 0;    // members run at once; 0: the number of cores
  int max_cycles = 0;
  std::string store_dir;  // "": nothing kept; else one study store per member in it
};

struct SweepMember {
  double value = 0.0;
  int start = 0;  // 0: the initial design, else the study's start k
  RunSummary summary;
  std::string error;  // the member could not run (bad override, ...)
};

struct SweepResult {
  std::vector<SweepMember> members;  // ordered by value, then start
  int simulator_runs = 0;            // every run of every member
  int cache_hits = 0;                // analyses a member took from the shared cache or its store
  double wall_seconds = 0.0;
};

// One member of an epsilon-constraint family (a study of one objective, the others bounded as
// constraints): the ordinary Driver on `study` with its own settings and `simulator`, at most
// `max_cycles` cycles (0: the study's settings.max_cycles), its analyses looked up in and saved
// to `store` (nullptr: in-memory caches only). A sweep's member without a store folder runs here,
// and so does `sao pareto --refine`'s refinement of a verified front point (pareto_run.hpp).
RunSummary run_member_driver(const LoadedStudy& study, Simulator& simulator, int max_cycles,
                             AnalysisStore* store);

// Runs every member; `progress` is called (from any thread, serialised) after each one.
SweepResult run_sweep(
    const SweepOptions& options,
    const std::function<void(const SweepMember&, int done, int total)>& progress = {});

// The compromise curve: per value, the best feasible converged objective over the starts.
struct CurvePoint {
  double value = 0.0;
  double objective = 0.0;
  int start = -1;  // -1: no member converged feasible at this value
};
std::vector<CurvePoint> compromise_curve(const SweepResult& result);

}  // namespace sao
