// A stand-in for an external analysis code, with ways to fail on purpose. It reads
// "name value" lines from input.txt in its working directory and writes
//   result.txt  "f = <x^2 + y^2>" and "g = <x*y>"
//   table.txt   a comment, a header "time value", and value(t) = x sin(pi t) + y t for
//               t = 0, 0.05, ..., 1 (21 rows: a grid of its own)
//   out.json    {"f": ..., "t": [...], "h": [...]}
//   history.csv a CSV header "time,acc,travel", then acc(t) = x sin(pi t) + y t and
//               travel(t) = x y t on the same 21 times (issue 49: codes that write CSV)
//   out.h5      HDF5 datasets /time (the same 21 times) and /results/acc (acc(t) above), and
//               /results/f (x^2 + y^2, rank 0), written with HDF5's C library (issue 49)
// The first argument picks the behaviour:
//   ok, crash (abort after writing part of the output), hang (sleeps, with a child of its own
//   that sleeps too and writes its pid to child.pid), garbage (an unparsable number), missing
//   (writes nothing), partial (the history stops at t = 0.5), nan, exit3 (a message on
//   stderr and exit status 3), sleep S (sleeps S seconds, then ok), fail_above X (exit 2 when
//   x > X, else ok), fail_between A B (exit 2 when A < x < B), args (writes its arguments to
//   args.txt, then ok), env (writes $SAO_TEST_VAR to env.txt, then ok), setsid (starts a
//   child that calls setsid(), leaving the process group, writes its pid to setsid.pid and
//   sleeps 1000 s; then sleeps $SAO_FAKE_SLEEP seconds (0 when unset; with SAO_FAKE_COUNT and
//   SAO_FAKE_FAST, only after the first $SAO_FAKE_FAST runs) and goes on as ok),
//   long_token (f followed by 40 000 zeros: one token of 40 000+ characters), units (a units
//   row "s,m/s^2,m" under history.csv's header, then ok), semicolon (history.csv separated by
//   ";", with a units row, then ok).
#include <hdf5.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

// out.h5: /time, /results/acc and /results/f.
void write_hdf5(double x, double y) {
  std::vector<double> time, acc;
  for (int k = 0; k <= 20; ++k) {
    time.push_back(0.05 * k);
    acc.push_back(x * std::sin(M_PI * time.back()) + y * time.back());
  }
  const double f = x * x + y * y;
  const hid_t file = H5Fcreate("out.h5", H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  const hid_t results = H5Gcreate2(file, "results", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  const hsize_t n = time.size();
  const hid_t points = H5Screate_simple(1, &n, nullptr);
  const hid_t one = H5Screate(H5S_SCALAR);
  auto write = [](hid_t where, const char* name, hid_t space, const double* data) {
    const hid_t d =
        H5Dcreate2(where, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
    H5Dclose(d);
  };
  write(file, "time", points, time.data());
  write(results, "acc", points, acc.data());
  write(results, "f", one, &f);
  H5Sclose(one);
  H5Sclose(points);
  H5Gclose(results);
  H5Fclose(file);
}

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "ok";
  std::map<std::string, double> in;
  std::ifstream input("input.txt");
  std::string key;
  double value = 0.0;
  while (input >> key >> value) in[key] = value;
  const double x = in["x"], y = in["y"];

  if (mode == "hang") {
    if (fork() == 0) {
      std::ofstream("child.pid") << getpid() << "\n";
      std::this_thread::sleep_for(std::chrono::seconds(1000));
      return 0;
    }
    std::this_thread::sleep_for(std::chrono::seconds(1000));
    return 0;
  }
  if (mode == "setsid") {
    if (fork() == 0) {
      setsid();
      std::ofstream("setsid.pid") << getpid() << "\n";
      std::this_thread::sleep_for(std::chrono::seconds(1000));
      return 0;
    }
    for (int i = 0; i < 500 && !std::ifstream("setsid.pid"); ++i) {  // the child is running
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    // With SAO_FAKE_COUNT=file, only runs after the first $SAO_FAKE_FAST ones sleep: each run
    // appends one byte to the file, and the file's size is the run's number.
    bool sleeps = true;
    if (const char* count = std::getenv("SAO_FAKE_COUNT")) {
      { std::ofstream(count, std::ios::app) << '.'; }
      std::ifstream in(count, std::ios::ate);
      const char* fast = std::getenv("SAO_FAKE_FAST");
      sleeps = static_cast<long>(in.tellg()) > (fast ? std::atol(fast) : 0);
    }
    const char* pause = std::getenv("SAO_FAKE_SLEEP");
    if (sleeps) {
      std::this_thread::sleep_for(std::chrono::duration<double>(pause ? std::atof(pause) : 0.0));
    }
  }
  if (mode == "sleep" && argc > 2) {
    std::this_thread::sleep_for(std::chrono::duration<double>(std::atof(argv[2])));
  }
  if (mode == "fail_above" && argc > 2 && x > std::atof(argv[2])) {
    std::cerr << "diverged: x = " << x << " is above " << argv[2] << "\n";
    return 2;
  }
  if (mode == "fail_between" && argc > 3 && x > std::atof(argv[2]) && x < std::atof(argv[3])) {
    std::cerr << "diverged: x = " << x << " is between " << argv[2] << " and " << argv[3] << "\n";
    return 2;
  }
  if (mode == "exit3") {
    std::cerr << "fatal: bad input card 7\n";
    return 3;
  }
  if (mode == "missing") return 0;
  if (mode == "args") {
    std::ofstream a("args.txt");
    for (int i = 1; i < argc; ++i) a << argv[i] << "\n";
  }
  if (mode == "env") {
    const char* v = std::getenv("SAO_TEST_VAR");
    std::ofstream("env.txt") << (v ? v : "(unset)") << "\n";
  }

  {
    std::ofstream r("result.txt");
    r.precision(17);
    if (mode == "garbage") {
      r << "f = 1.2.3x\n";
    } else if (mode == "nan") {
      r << "f = nan\n";
    } else if (mode == "long_token") {  // 40 000 more digits: issue 18 crashed std::regex
      r << "f = " << std::fixed << x * x + y * y << std::string(40000, '0') << "\n";
      r << std::defaultfloat;
    } else {
      r << "f = " << x * x + y * y << "\n";
    }
    r << "g = " << x * y << "\n";
  }
  if (mode == "crash") std::abort();
  {
    std::ofstream t("table.txt");
    t.precision(17);
    t << "# fake_code history\ntime value\n";
    for (int k = 0; k <= 20; ++k) {
      const double time = 0.05 * k;
      if (mode == "partial" && time > 0.5 + 1e-12) break;
      t << time << " " << x * std::sin(M_PI * time) + y * time << "\n";
    }
  }
  {
    std::ofstream j("out.json");
    j.precision(17);
    j << "{\"f\": " << x * x + y * y << ", \"t\": [";
    for (int k = 0; k <= 20; ++k) j << (k ? ", " : "") << 0.05 * k;
    j << "], \"h\": [";
    for (int k = 0; k <= 20; ++k) {
      j << (k ? ", " : "") << x * std::sin(M_PI * 0.05 * k) + y * 0.05 * k;
    }
    j << "]}\n";
  }
  {
    std::ofstream c("history.csv");
    c.precision(17);
    const char* sep = mode == "semicolon" ? ";" : ",";
    c << "time" << sep << "acc" << sep << "travel\n";
    if (mode == "units" || mode == "semicolon") c << "s" << sep << "m/s^2" << sep << "m\n";
    for (int k = 0; k <= 20; ++k) {
      const double time = 0.05 * k;
      c << time << sep << x * std::sin(M_PI * time) + y * time << sep << x * y * time << "\n";
    }
  }
  write_hdf5(x, y);
  std::cout << "fake_code: done\n";
  return 0;
}
