# Runs a vehicle restraint study (problems/vehicle-restraint) with sao and checks its result:
#   cmake -DSAO=... -DSTUDY=... -DOUT=... -DSTART=1 -DCONVERGED=1 -DMIN_DROP=40 -DMAX_V=3
#         -DMAX_ANALYSES=20 -P check_study.cmake
# From the study's start START, HIC must fall by at least MIN_DROP %, the final violation V
# stay at or below MAX_V %, in at most MAX_ANALYSES analyses, and the run must end converged
# (CONVERGED=1) or at least not failed or infeasible (CONVERGED=0: a cycle limit is allowed);
# then the final design is evaluated again by a fresh run of the crash code (sao evaluate
# --design) and must hold V <= MAX_V there too. ALLOW_INFEASIBLE=1 also accepts a run that ends
# infeasible, and MAX_V=none bounds no violation (the re-evaluation must still run); the
# restraint CTests use neither (docs/vehicle-restraint.md, "Results"). SETS: a list of study
# overrides (each passed as --set), MAX_HIC: also an upper bound on the final HIC.
set(overrides)
foreach(assignment IN LISTS SETS)
  list(APPEND overrides --set "${assignment}")
endforeach()
execute_process(COMMAND ${SAO} run ${STUDY} --start ${START} --out ${OUT} --no-store --quiet
                        ${overrides}
                RESULT_VARIABLE rc)
include(${CMAKE_CURRENT_LIST_DIR}/results.cmake)
read_result(${OUT}/result.json run)
foreach(key status hic hic0 v analyses cycles)
  set(${key} "${run_${key}}")
endforeach()
message(STATUS "${STUDY}: ${status}, HIC ${hic0} -> ${hic}, V ${v} %, ${cycles} cycles, ${analyses} analyses")
if(CONVERGED AND NOT status STREQUAL "converged")
  message(FATAL_ERROR "status ${status}, expected converged")
endif()
if(ALLOW_INFEASIBLE AND status STREQUAL "infeasible")
  message(STATUS "ended infeasible (V ${v} %), accepted here")
elseif(NOT status MATCHES "^(converged|cycle_limit)$")
  message(FATAL_ERROR "status ${status}, expected converged or cycle_limit")
endif()
if(analyses GREATER MAX_ANALYSES)
  message(FATAL_ERROR "${analyses} analyses > ${MAX_ANALYSES}")
endif()
if(NOT MAX_V STREQUAL "none" AND v GREATER MAX_V)
  message(FATAL_ERROR "V = ${v} % > ${MAX_V} %")
endif()
# CMake's arithmetic is integer: compare 100 * hic with (100 - MIN_DROP) * hic0, rounded.
string(REGEX REPLACE "\\..*" "" hic_int "${hic}")
string(REGEX REPLACE "\\..*" "" hic0_int "${hic0}")
math(EXPR lhs "100 * (${hic_int} + 1)")
math(EXPR rhs "(100 - ${MIN_DROP}) * ${hic0_int}")
if(lhs GREATER rhs)
  message(FATAL_ERROR "HIC fell from ${hic0} to ${hic}: less than ${MIN_DROP} %")
endif()
if(DEFINED MAX_HIC AND hic GREATER MAX_HIC)
  message(FATAL_ERROR "HIC ${hic} > ${MAX_HIC}")
endif()
check_reevaluated(${STUDY} ${OUT}/result.json ${MAX_V})
