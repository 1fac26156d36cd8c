# The seed's second run of the six-variable restraint study, as a user runs it: run 1 from the
# study's start START into a study folder, then `sao restart DIR --from-reported --reset-region`
# (from the design run 1 reported, after its last cycle K, with a fresh subregion) and `sao run
# DIR`. Run 2 must start at run 1's reported HIC (a plan point of run 1 from the seed's start,
# not its last accepted design: best_design.hpp) and lower HIC below it with V <= MAX_V %, also
# when its final design is analysed again (sao evaluate --design).
#   cmake -DSAO=... -DSTUDY=... -DOUT=... -DSTART=1 -DMAX_V=3 -P check_restart.cmake
file(REMOVE_RECURSE ${OUT})
execute_process(COMMAND ${SAO} run ${STUDY} --start ${START} --out ${OUT} --quiet
                RESULT_VARIABLE rc)
include(${CMAKE_CURRENT_LIST_DIR}/results.cmake)
read_result(${OUT}/result.json run1)
set(hic1 ${run1_hic})
set(cycles1 ${run1_cycles})
message(STATUS "run 1: ${run1_status}, HIC ${hic1} in ${cycles1} cycles")
execute_process(COMMAND ${SAO} restart ${OUT} --from-reported --reset-region
                OUTPUT_VARIABLE said RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT said MATCHES "a fresh subregion")
  message(FATAL_ERROR "sao restart --from-reported --reset-region: exit ${rc}: ${said}")
endif()
math(EXPR limit "${cycles1} + 12")
execute_process(COMMAND ${SAO} run ${OUT} --quiet --max-cycles ${limit} RESULT_VARIABLE rc)
read_result(${OUT}/result.json run2)
set(hic2 ${run2_hic})
set(hic2_start ${run2_hic0})
set(v2 ${run2_v})
set(cycles2 ${run2_cycles})
message(STATUS "run 2: ${run2_status}, HIC ${hic2_start} -> ${hic2}, V ${v2} %, ${cycles2} cycles")
if(NOT hic2_start EQUAL hic1)
  message(FATAL_ERROR "run 2 starts at HIC ${hic2_start}, not at run 1's ${hic1}")
endif()
if(NOT cycles2 GREATER 1)
  message(FATAL_ERROR "run 2 stopped after ${cycles2} cycle(s): not a fresh subregion")
endif()
if(NOT hic2 LESS hic1)
  message(FATAL_ERROR "run 2 did not lower HIC: ${hic1} -> ${hic2}")
endif()
if(v2 GREATER MAX_V)
  message(FATAL_ERROR "run 2: V = ${v2} % > ${MAX_V} %")
endif()
check_reevaluated(${STUDY} ${OUT}/result.json ${MAX_V})
