// The pendulum chain of bench/pendulum_chain_model.hpp written with Simbody (Debian's
// libsimbody-dev, optional), for sao_speed's section 5 (issue 52):
//
//   sao_simbody_chain LINKS [ACCURACY [REPEATS]]
//
// prints "cpu SECONDS steps STEPS", then "t x y" of the last link's centre at t = 0, 0.1, ..., 1
// (%.17g). SECONDS is the median CPU time of REPEATS (default 3) analyses of 1 s: the initial
// state, CPodes (BDF, Newton) at ACCURACY (default 1e-8) and the 11 reports; the system is built
// once before, as sao parses its model once. A program of its own, not a part of sao_speed:
// Simbody's CPodes (an early SUNDIALS inside libSimTKmath) exports N_Vector functions under
// SUNDIALS's names, so that in one process with SUNDIALS either one calls the other's.
// Exit status 2 for bad arguments, 3 when Simbody throws.
#include <Simbody.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <vector>

namespace {

double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// pendulum_chain's values per link: stiffness 20, damping 0.1, free angle 0, mass 1 and length
// 0.5 (the centre of mass at mid-length, inertia m L^2 / 12 about it), pinned end to end from
// the ground at the origin, horizontal along +x at rest, gravity 9.81 along -y, in relative
// coordinates: a Pin mobilizer per joint with a MobilityLinearSpring and a MobilityLinearDamper
// on its angle.
struct Chain {
  explicit Chain(int links) : matter(system), forces(system) {
    using namespace SimTK;
    const Real mass = 1.0, length = 0.5, stiffness = 20.0, damping = 0.1;
    Force::Gravity(forces, matter, -YAxis, 9.81);
    // A slender link along its x axis: the planar motion reads only the inertia about z.
    const Real inertia = mass * length * length / 12.0;
    const Body::Rigid body(MassProperties(mass, Vec3(0), Inertia(1e-9, inertia, inertia)));
    MobilizedBody parent = matter.Ground();
    Vec3 joint_on_parent(0);  // the ground's pin at the origin, then each link's far end
    for (int i = 0; i < links; ++i) {
      // The pin at -L/2 on the new link; its z axis is the ground's (the chain's plane is x-y).
      MobilizedBody::Pin link(parent, Transform(joint_on_parent), body,
                              Transform(Vec3(-length / 2, 0, 0)));
      Force::MobilityLinearSpring(forces, link, MobilizerQIndex(0), stiffness, 0.0);
      Force::MobilityLinearDamper(forces, link, MobilizerUIndex(0), damping);
      parent = link;
      joint_on_parent = Vec3(length / 2, 0, 0);
    }
    last = parent;
    system.realizeTopology();
  }
  SimTK::MultibodySystem system;
  SimTK::SimbodyMatterSubsystem matter;
  SimTK::GeneralForceSubsystem forces;
  SimTK::MobilizedBody last;
};

struct Run {
  long steps = 0;
  std::vector<SimTK::Vec3> tip;  // t, x, y
};

Run analyse(Chain& chain, double accuracy) {
  using namespace SimTK;
  const State state = chain.system.getDefaultState();  // every angle and rate zero
  CPodesIntegrator integrator(chain.system, CPodes::BDF, CPodes::Newton);
  integrator.setAccuracy(accuracy);
  TimeStepper stepper(chain.system, integrator);
  stepper.initialize(state);
  Run run;
  auto report = [&] {
    const State& s = integrator.getState();
    chain.system.realize(s, Stage::Position);
    const Vec3 p = chain.last.getBodyOriginLocation(s);  // the last link's centre
    run.tip.emplace_back(s.getTime(), p[0], p[1]);
  };
  report();
  for (int k = 1; k <= 10; ++k) {
    stepper.stepTo(0.1 * k);
    report();
  }
  run.steps = integrator.getNumStepsTaken();
  return run;
}

}  // namespace

int main(int argc, char** argv) {
  const int links = argc > 1 ? std::atoi(argv[1]) : 0;
  const double accuracy = argc > 2 ? std::atof(argv[2]) : 1e-8;
  const int repeats = argc > 3 ? std::atoi(argv[3]) : 3;
  if (argc < 2 || argc > 4 || links < 1 || !(accuracy > 0.0) || repeats < 1) {
    std::fprintf(stderr, "usage: sao_simbody_chain LINKS [ACCURACY [REPEATS]] (LINKS >= 1)\n");
    return 2;
  }
  try {
    Chain chain(links);
    std::vector<double> times;
    Run run;
    for (int r = 0; r < repeats; ++r) {
      const double c0 = cpu_seconds();
      run = analyse(chain, accuracy);
      times.push_back(cpu_seconds() - c0);
    }
    std::sort(times.begin(), times.end());
    std::printf("cpu %.6f steps %ld\n", times[times.size() / 2], run.steps);
    for (const SimTK::Vec3& p : run.tip) std::printf("%.17g %.17g %.17g\n", p[0], p[1], p[2]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sao_simbody_chain: %s\n", e.what());
    return 3;
  }
  return 0;
}
