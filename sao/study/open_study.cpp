#include "sao/study/open_study.hpp"

#include "sao/seam/json_reader.hpp"
#include "sao/seam/json_text.hpp"
#include "sao/study/derived_responses.hpp"

namespace sao {

std::unique_ptr<Simulator> make_study_simulator(const Study& study) {
  return with_derived_responses(study, make_simulator(study.simulator_setup()));
}

std::unique_ptr<Simulator> open_simulator(const Study& study) {
  std::unique_ptr<Simulator> simulator;
  try {
    simulator = make_study_simulator(study);
  } catch (const SectionError& e) {
    throw StudyError(study.file, e.problems());
  } catch (const std::invalid_argument& e) {
    throw StudyError(study.file, {e.what()});
  } catch (const nlohmann::json::exception& e) {  // a check missed by a section parser
    throw StudyError(study.file, {"simulator: " + json_error_text(e)});
  }
  check_against_simulator(study, *simulator);
  return simulator;
}

OpenedStudy open_study_document(nlohmann::json document, const std::string& source, int start) {
  OpenedStudy opened{load_study(document, source), nullptr, std::move(document)};
  if (start > 0) use_start(opened.study, start);
  opened.simulator = open_simulator(opened.study);
  return opened;
}

OpenedStudy open_study(const std::string& file, const std::vector<std::string>& overrides,
                       int start) {
  return open_study_document(read_study_document(file, overrides), file, start);
}

}  // namespace sao
