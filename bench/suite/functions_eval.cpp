// sao_functions_eval: the "functions" model (simulators/models/functions.hpp) as an external
// program, so that the benchmark suite's problems also run through the external-code adapter
// with one real process per evaluation (bench/suite/suite.hpp builds those studies).
//
//   sao_functions_eval INPUT OUTPUT
//
// INPUT (written from a template by the adapter) has one entry per line:
//   parameter x1 = 0.5
//   function f = (x1 - 10)^3 + (x2 - 20)^3
// OUTPUT gets every function's value as JSON, {"f": -7.5e3, ...} (17 significant digits), read
// by the adapter's json parser. Exit status 0; 1 when a value is not finite (the message on
// stderr names the function); 2 for an input it cannot read.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "simulators/models/functions.hpp"

namespace {

struct Input {
  std::map<std::string, double> parameters;
  std::vector<sao::sim::FunctionsModel::Function> functions;
};

bool read_input(const char* path, Input& in) {
  std::ifstream file(path);
  if (!file) {
    std::cerr << "sao_functions_eval: cannot read " << path << "\n";
    return false;
  }
  const std::regex entry(R"(^\s*(parameter|function)\s+([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$)");
  std::string line;
  for (int number = 1; std::getline(file, line); ++number) {
    std::smatch m;
    if (line.find_first_not_of(" \t\r") == std::string::npos || line[0] == '#') continue;
    if (!std::regex_match(line, m, entry)) {
      std::cerr << path << ":" << number << ": expected \"parameter NAME = VALUE\" or "
                << "\"function NAME = EXPRESSION\"\n";
      return false;
    }
    if (m[1] == "function") {
      in.functions.emplace_back(m[2], m[3]);
      continue;
    }
    try {
      size_t used = 0;
      in.parameters[m[2]] = std::stod(m[3], &used);
      if (used != m[3].str().size()) throw std::invalid_argument("trailing text");
    } catch (const std::exception&) {
      std::cerr << path << ":" << number << ": \"" << m[3].str() << "\" is not a number\n";
      return false;
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: sao_functions_eval INPUT OUTPUT\n";
    return 2;
  }
  Input in;
  if (!read_input(argv[1], in)) return 2;
  bool bad = false;
  const sao::sim::FunctionsModel model(in.functions,
                                       [&](const std::string& f, const std::string& why) {
                                         std::cerr << "function " << f << ": " << why << "\n";
                                         bad = true;
                                       });
  const std::vector<std::string> names = model.parameters();
  Eigen::VectorXd p(static_cast<Eigen::Index>(names.size()));
  for (size_t i = 0; i < names.size(); ++i) {
    const auto it = in.parameters.find(names[i]);
    if (it == in.parameters.end()) {
      std::cerr << "parameter " << names[i] << ": no value in " << argv[1] << "\n";
      bad = true;
      continue;
    }
    p(static_cast<Eigen::Index>(i)) = it->second;
  }
  if (bad) return 2;
  std::map<std::string, double> values;
  const std::string failure = model.evaluate(p, values);
  if (!failure.empty()) {
    std::cerr << failure << "\n";
    return 1;
  }
  FILE* out = std::fopen(argv[2], "w");
  if (!out) {
    std::cerr << "sao_functions_eval: cannot write " << argv[2] << "\n";
    return 2;
  }
  std::fprintf(out, "{");
  const char* separator = "";
  for (const auto& [name, value] : values) {
    std::fprintf(out, "%s\"%s\": %.17g", separator, name.c_str(), value);
    separator = ", ";
  }
  std::fprintf(out, "}\n");
  return std::fclose(out) == 0 ? 0 : 2;
}
