// What restraint-sled writes: the column file of filtered histories and the log.
#include <cstdio>
#include <ostream>

#include "restraint.hpp"

namespace restraint {

void write_histories(std::ostream& out, const Histories& h) {
  out << "time head_acc chest_acc chest_defl belt_force head_hub\n";
  char line[200];
  for (size_t k = 0; k < h.time.size(); ++k) {
    std::snprintf(line, sizeof line, "%.6e %.9e %.9e %.9e %.9e %.9e\n", h.time[k], h.head_acc[k],
                  h.chest_acc[k], h.chest_defl[k], h.belt_force[k], h.head_hub[k]);
    out << line;
  }
}

void write_log(std::ostream& out, const Deck& d, const Histories& h, double seconds) {
  const double dt = d.output_step;
  auto peak = [](const std::vector<double>& v) {
    double m = v.empty() ? 0.0 : v[0];
    for (double x : v) m = x > m ? x : m;
    return m;
  };
  auto minimum = [](const std::vector<double>& v) {
    double m = v.empty() ? 0.0 : v[0];
    for (double x : v) m = x < m ? x : m;
    return m;
  };
  char buf[400];
  out << "restraint-sled: frontal sled test of a belted driver with an airbag\n";
  out << "title: " << d.title << "\n";
  std::snprintf(buf, sizeof buf,
                "design: airbag diameter %.6g m, vent %.6g m, inflator %.6g kg, webbing strain "
                "%.6g, pretensioner %.6g m, load limiter %.6g kN; retractor lock %.6g N/m\n",
                d.diameter, d.vent_diameter, d.inflator_mass, d.webbing_strain, d.pretensioner,
                d.load_limiter, d.lock_stiffness);
  out << buf;
  std::snprintf(buf, sizeof buf,
                "run: %d steps of %.3g s to %.4g s, %zu output rows, %.3f s wall clock\n", h.steps,
                d.time_step, d.end_time, h.time.size(), seconds);
  out << buf;
  std::snprintf(buf, sizeof buf,
                "events: %d face-node contact changes, %d folds opened, pretensioner pulled "
                "%.4f m, load limiter paid out %.4f m\n",
                h.contact_changes, h.folds_opened, h.pretension_pulled, h.limiter_payout);
  out << buf;
  if (h.lock_time >= 0) {
    std::snprintf(buf, sizeof buf,
                  "spool lock: %.4f m of free travel back to the ratchet tooth, the pawl met it "
                  "at %.4f s at %.3f m/s\n",
                  h.lock_travel, h.lock_time, h.lock_speed);
    out << buf;
  }
  std::snprintf(buf, sizeof buf,
                "gas: injected %.6f kg, vented %.6f kg, in the bag at the end %.6f kg, peak "
                "gauge pressure %.1f kPa\n",
                h.gas_injected, h.gas_vented, h.gas_final, h.peak_pressure / 1000.0);
  out << buf;
  std::snprintf(buf, sizeof buf,
                "HIC36 %.3f\nhead 3 ms %.3f g\nchest 3 ms %.3f g\nchest deflection max %.3f "
                "mm\nshoulder belt max %.4f kN\nhead-hub distance min %.3f mm\n",
                hic(h.head_acc, dt, 0.036), level_exceeded(h.head_acc, dt, 0.003),
                level_exceeded(h.chest_acc, dt, 0.003), peak(h.chest_defl), peak(h.belt_force),
                minimum(h.head_hub));
  out << buf;
  out << "normal termination\n";
}

}  // namespace restraint
