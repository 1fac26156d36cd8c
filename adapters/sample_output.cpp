#include "adapters/sample_output.hpp"

#include <sstream>

#include "adapters/parsers.hpp"

namespace sao::adapters {

std::vector<SampleReading> read_sample_output(const ExternalConfig& config,
                                              const std::filesystem::path& directory) {
  std::vector<SampleReading> out;
  for (const LoadCaseSpec& lc : config.load_cases) {
    std::filesystem::path dir = directory;
    std::error_code ec;
    if (config.load_cases.size() > 1 && std::filesystem::is_directory(directory / lc.name, ec)) {
      dir = directory / lc.name;
    }
    for (const OutputSpec& spec : config.outputs) {
      SampleReading r{lc.name, spec.name, dir.string(), false, {}};
      CaseResult result;
      r.message = read_output(spec, dir, lc.grid, result);
      r.ok = r.message.empty();
      std::ostringstream read;
      read.precision(6);
      if (r.ok && result.scalars.count(spec.name)) {
        read << result.scalars.at(spec.name);
      } else if (r.ok && result.histories.count(spec.name)) {
        const Eigen::VectorXd& h = result.histories.at(spec.name);
        read << h.size() << " points on the grid";
        if (h.size() > 0) read << ", from " << h.minCoeff() << " to " << h.maxCoeff();
      }
      if (r.ok) r.message = read.str();
      out.push_back(std::move(r));
    }
  }
  return out;
}

}  // namespace sao::adapters
