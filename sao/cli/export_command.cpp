#include "sao/cli/export_command.hpp"

#include "sao/report/table.hpp"

namespace sao::cli {

std::string analyses_csv(const StudyStore& store) {
  return report::csv(report::analyses_table(store), true);
}

}  // namespace sao::cli
