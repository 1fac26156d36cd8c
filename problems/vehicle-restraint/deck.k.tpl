$ restraint-sled input deck written by sao (problems/vehicle-restraint)
*TITLE
vehicle restraint system, seed 003 chapter 6
*CONTROL
end_time 0.15
time_step 1.0e-5
output_step 2.5e-4
*PULSE
delta_v 13.89
duration 0.085
*AIRBAG
diameter {{b1:.9f}}
vent_diameter {{b2:.9f}}
inflator_mass {{b3:.9f}}
*BELT
webbing_strain {{b4:.9f}}
pretensioner {{b5:.9f}}
load_limiter {{b6:.9f}}
*END
