#include "sao/store/sweep.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "sao/seam/number_text.hpp"
#include "sao/seam/run_directory.hpp"
#include "sao/seam/worker_pool.hpp"
#include "sao/store/atomic_file.hpp"
#include "sao/store/shared_cache.hpp"
#include "sao/store/store.hpp"
#include "sao/store/study_session.hpp"
#include "sao/study/open_study.hpp"
#include "sao/study/study_loader.hpp"

namespace sao {

namespace {

double parse_number(const std::string& text, const std::string& what) {
  const double v = number_or_nan(text);
  if (!std::isfinite(v)) throw std::invalid_argument(what + ": \"" + text + "\" is not a number");
  return v;
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, sep);) parts.push_back(part);
  if (!text.empty() && text.back() == sep) parts.push_back("");
  return parts;
}

// A member's analyses: its own study store first, then those of the other members; what the
// simulator delivers goes to both. An analysis found only among the other members' is copied
// into the member's store (0 runs: it was not run for this member).
class MemberStore final : public AnalysisStore {
 public:
  MemberStore(StudyStore& own, SharedAnalysisCache& shared) : own_(own), shared_(shared) {}
  std::vector<Evaluation> lookup(const Eigen::VectorXd& design, bool gradients) override {
    std::vector<Evaluation> out = own_.lookup(design, gradients);
    if (!out.empty()) return out;
    out = shared_.lookup(design, gradients);
    for (const Evaluation& e : out) {
      Evaluation copy = e;
      copy.cost = {};
      own_.save(design, {}, copy);
    }
    return out;
  }
  void save(const Eigen::VectorXd& design, const std::vector<DerivativeRequest>& derivatives,
            const Evaluation& evaluation) override {
    own_.save(design, derivatives, evaluation);
    shared_.save(design, derivatives, evaluation);
  }

 private:
  StudyStore& own_;
  SharedAnalysisCache& shared_;
};

// A member on its own study store: created, or resumed by replay.
RunSummary run_stored_member(const std::string& folder, const nlohmann::json& document,
                             const SweepOptions& options, int start, SharedAnalysisCache& shared) {
  make_output_folder(folder);
  StudySession session(store_file(folder), StoreAccess::kCreate);
  session.begin(document, options.study_file, start);
  session.share_analyses([&shared](StudyStore& own) -> std::unique_ptr<AnalysisStore> {
    return std::make_unique<MemberStore>(own, shared);
  });
  session.open(options.max_cycles);
  return session.run();
}

// Every analysis stored by the members in `store_dir`, into the shared cache of its simulator
// inputs. A store that cannot be read is left to its member (which names the problem).
void prime_caches(const std::string& store_dir,
                  std::map<std::string, std::shared_ptr<SharedAnalysisCache>>& caches) {
  std::error_code ec;
  if (!std::filesystem::is_directory(store_dir, ec)) return;
  for (const auto& entry : std::filesystem::directory_iterator(store_dir, ec)) {
    const std::string path = store_file(entry.path().string());
    if (!std::filesystem::is_regular_file(path, ec)) continue;
    try {
      const StudyStore store(path, StoreAccess::kReadOnly);
      for (const StoredAnalysis& a : store.analyses()) {
        auto& slot = caches[a.inputs_hash];
        if (!slot) slot = std::make_shared<SharedAnalysisCache>();
        // The cache keeps sensitivities for a save with derivative requests.
        const std::vector<DerivativeRequest> rows(a.evaluation.has_gradients ? 1 : 0);
        slot->save(a.design, rows, a.evaluation);
      }
    } catch (const StoreError&) {
    }
  }
}

}  // namespace

std::string sweep_value_text(double v) {
  std::ostringstream s;
  s.precision(10);
  s << v;
  return s.str();
}

SweepRange parse_sweep_range(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw std::invalid_argument("sweep \"" + text +
                                "\": expected KEY=FIRST:LAST:STEP or KEY=V1,V2,...");
  }
  SweepRange r;
  r.key = text.substr(0, eq);
  const std::string spec = text.substr(eq + 1);
  const std::string what = "sweep " + r.key;
  if (spec.find(':') != std::string::npos) {
    const auto parts = split(spec, ':');
    if (parts.size() != 3) throw std::invalid_argument(what + ": expected FIRST:LAST:STEP");
    const double first = parse_number(parts[0], what), last = parse_number(parts[1], what),
                 step = parse_number(parts[2], what);
    if (step <= 0) throw std::invalid_argument(what + ": STEP must be positive");
    if (last < first) throw std::invalid_argument(what + ": LAST is below FIRST");
    const double count = std::floor((last - first) / step + 1e-9) + 1;
    if (count > 10000) throw std::invalid_argument(what + ": more than 10000 values");
    for (int k = 0; k < static_cast<int>(count); ++k) r.values.push_back(first + k * step);
  } else {
    for (const std::string& part : split(spec, ',')) r.values.push_back(parse_number(part, what));
  }
  if (r.values.empty()) throw std::invalid_argument(what + ": no values");
  return r;
}

RunSummary run_member_driver(const LoadedStudy& study, Simulator& simulator, int max_cycles,
                             AnalysisStore* store) {
  Options settings = study.options;
  if (max_cycles > 0) settings.max_cycles = max_cycles;
  Driver driver(study, simulator, settings);
  driver.set_store(store);
  return driver.run();
}

SweepResult run_sweep(const SweepOptions& options,
                      const std::function<void(const SweepMember&, int, int)>& progress) {
  const auto t0 = std::chrono::steady_clock::now();
  SweepResult result;
  for (double v : options.range.values) {
    for (int s = 0; s < std::max(1, options.starts); ++s) {
      SweepMember m;
      m.value = v;
      m.start = s;
      result.members.push_back(m);
    }
  }
  const nlohmann::json base = read_study_document(options.study_file);
  std::mutex mutex;  // guards caches, progress and the counters
  std::map<std::string, std::shared_ptr<SharedAnalysisCache>> caches;
  int done = 0;
  const int total = static_cast<int>(result.members.size());

  auto run_member = [&](SweepMember& m) {
    try {
      nlohmann::json document = base;
      for (const auto& o : options.overrides) apply_override(document, o);
      apply_override(document, options.range.key + "=" + sweep_value_text(m.value), "--vary");
      if (!options.store_dir.empty()) place_run_directory(document, options.store_dir);
      OpenedStudy opened = open_study_document(document, options.study_file, m.start);
      const LoadedStudy& study = opened.study;
      Simulator& simulator = *opened.simulator;
      // Members share analyses when their simulator inputs are the same (the store's key).
      std::shared_ptr<SharedAnalysisCache> cache;
      {
        std::lock_guard lock(mutex);
        auto& slot = caches[simulator_inputs_hash(study, simulator.fingerprint())];
        if (!slot) slot = std::make_shared<SharedAnalysisCache>();
        cache = slot;
      }
      if (!options.store_dir.empty()) {
        const std::string folder = options.store_dir + "/value-" + sweep_value_text(m.value) +
                                   "-start-" + std::to_string(m.start);
        m.summary = run_stored_member(folder, document, options, m.start, *cache);
        return;
      }
      m.summary = run_member_driver(study, simulator, options.max_cycles, cache.get());
    } catch (const std::exception& e) {
      m.error = e.what();
    }
  };

  // A sweep run again: the analyses its members stored are shared from the start, so that a
  // member never run before finds those of the members that ran.
  if (!options.store_dir.empty()) prime_caches(options.store_dir, caches);

  const size_t jobs = static_cast<size_t>(std::max(options.jobs, 0));  // 0: cores
  parallel_for(result.members.size(), jobs, [&](size_t i) {
    run_member(result.members[i]);
    std::lock_guard lock(mutex);
    ++done;
    if (progress) progress(result.members[i], done, total);
  });

  for (const SweepMember& m : result.members) result.simulator_runs += m.summary.simulator_runs;
  for (const SweepMember& m : result.members) result.cache_hits += m.summary.reused_analyses;
  result.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

std::vector<CurvePoint> compromise_curve(const SweepResult& result) {
  std::vector<CurvePoint> curve;
  for (const SweepMember& m : result.members) {
    if (curve.empty() || curve.back().value != m.value) curve.push_back({m.value, 0.0, -1});
    CurvePoint& p = curve.back();
    const bool usable = m.error.empty() && m.summary.status == RunStatus::kConverged;
    if (usable && (p.start < 0 || m.summary.objective < p.objective)) {
      p.objective = m.summary.objective;
      p.start = m.start;
    }
  }
  return curve;
}

}  // namespace sao
