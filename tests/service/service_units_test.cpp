// Units in the service's answers (issue 49), as in the command line's JSON
// (docs/study-format.md, "Units in the JSON outputs"): an object that names one value carries
// "unit" where the study declares one; a map or list of values by name keeps its type beside a
// "units" object. The absorber's units are distinct (b1 N/m, b2 N s/m, the objective m/s^2, the
// displacement constraint m), so that a unit given to the wrong value shows.
#include <gtest/gtest.h>

#include "tests/service/service_support.hpp"

namespace {

using nlohmann::json;
using namespace sao::testing;

const std::string kAbsorber = problem_file("impact-absorber/max-acceleration.json");
const json kAbsorberUnits =
    json::parse(R"({"design": {"b1": "N/m", "b2": "N s/m"}, "objective": "m/s^2"})");

// The entry of `list` whose `key` is `value` (null when none is).
json entry(const json& list, const std::string& key, const std::string& value) {
  for (const json& e : list) {
    if (e.value(key, "") == value) return e;
  }
  ADD_FAILURE() << "no " << key << " " << value << " in " << list.dump().substr(0, 400);
  return nullptr;
}

// The step's answer (and so the cycle event), the study, its branches, a cycle's histories and
// the analyses chart's quantities.
TEST(ServiceUnits, TheStudyItsCyclesAndItsChartsCarryTheUnits) {
  ServedStudy served(kAbsorber);
  httplib::Client& c = served.client;
  const json step = post(c, served.base + "/step");
  EXPECT_EQ(step["units"], kAbsorberUnits) << step;
  EXPECT_TRUE(step["record"]["b0"].is_object());  // the record as it was

  const json study = get(c, served.base);
  EXPECT_EQ(study["units"], kAbsorberUnits);
  ASSERT_EQ(study["variables"].size(), 2u);
  EXPECT_EQ(study["variables"][0]["unit"], "N/m");
  EXPECT_EQ(study["variables"][1]["unit"], "N s/m");
  EXPECT_TRUE(study["design"].is_array());  // by variable_names, as before

  const json branches = get(c, served.base + "/branches");
  ASSERT_EQ(branches["branches"].size(), 1u);
  EXPECT_EQ(branches["branches"][0]["units"], kAbsorberUnits);

  const json histories = get(c, served.base + "/histories?cycle=1");
  EXPECT_EQ(entry(histories["constraints"], "name", "displacement[+]")["unit"], "m");
  EXPECT_EQ(entry(histories["constraints"], "name", "objective:max_acceleration[+]")["unit"],
            "m/s^2");
  EXPECT_EQ(histories["units"], json::parse(R"({"design": {"b1": "N/m", "b2": "N s/m"}})"));

  const json charts = get(c, served.base + "/charts?view=analyses");
  EXPECT_EQ(entry(charts["quantities"], "key", "b2")["unit"], "N s/m");
  EXPECT_EQ(entry(charts["quantities"], "key", "displacement[+]")["unit"], "m");
}

// GET .../analyses: the designs (lists in study order) and the cases' scalars (by the
// simulator's names) keep their form; "units" names the units of both.
TEST(ServiceUnits, AnalysesCarryTheUnitsOfTheirDesignsAndScalars) {
  ServedStudy served(kAbsorber);
  httplib::Client& c = served.client;
  // A second study: the absorber with a scalar the study calls "ride" (the simulator's
  // "comfort").
  json document = json::parse(read_file(kAbsorber));
  document["responses"].push_back(
      {{"name", "ride"}, {"source", "comfort"}, {"kind", "scalar"}, {"unit", "m^2/s^4"}});
  const std::string base = "/api/studies/" + post(c, "/api/studies", document, 201).value("id", "");
  post(c, base + "/step");
  const json analyses = get(c, base + "/analyses");
  ASSERT_FALSE(analyses["analyses"].empty());
  EXPECT_TRUE(analyses["analyses"][0]["cases"][0]["scalars"]["comfort"].is_number());
  EXPECT_EQ(analyses["units"], json::parse(R"({"design": {"b1": "N/m", "b2": "N s/m"},
                                               "scalars": {"comfort": "m^2/s^4"}})"));
  // The study without it: no scalar declares a unit.
  post(c, served.base + "/step");
  EXPECT_EQ(get(c, served.base + "/analyses")["units"]["scalars"], json::object());
}

}  // namespace
