// A stand-in for an external code that writes its history as CSV (issue 49). It reads
// "name value" lines from input.txt in its working directory and writes history.csv:
//   time,acc,travel
//   0,<acc(0)>,<travel(0)>
//   ...
// for t = 0, 0.05, ..., 1 (21 rows, %.17g), with acc(t) = x sin(pi t) + y t and
// travel(t) = x y t. With the argument "units" a units row "s,m/s^2,m" follows the header.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>

int main(int argc, char** argv) {
  const bool units = argc > 1 && std::string(argv[1]) == "units";
  std::map<std::string, double> in;
  std::ifstream input("input.txt");
  std::string key;
  double value = 0.0;
  while (input >> key >> value) in[key] = value;
  const double x = in["x"], y = in["y"];
  std::FILE* out = std::fopen("history.csv", "w");
  if (!out) return 1;
  std::fprintf(out, "time,acc,travel\n");
  if (units) std::fprintf(out, "s,m/s^2,m\n");
  for (int k = 0; k <= 20; ++k) {
    const double t = 0.05 * k;
    std::fprintf(out, "%.17g,%.17g,%.17g\n", t, x * std::sin(M_PI * t) + y * t, x * y * t);
  }
  return std::fclose(out) == 0 ? 0 : 1;
}
