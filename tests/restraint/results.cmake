# The results of a restraint study run, for check_study.cmake and check_restart.cmake.

# read_result(RESULT PREFIX): PREFIX_status, _hic, _hic0 (the start's), _v, _analyses and
# _cycles from RESULT (a result.json), in the caller's scope.
function(read_result result prefix)
  file(READ "${result}" text)
  string(JSON status GET "${text}" status)
  string(JSON hic GET "${text}" objective)
  string(JSON hic0 GET "${text}" start objective)
  string(JSON v GET "${text}" max_violation)
  string(JSON analyses GET "${text}" analyses)
  string(JSON cycles GET "${text}" cycles)
  foreach(key status hic hic0 v analyses cycles)
    set(${prefix}_${key} "${${key}}" PARENT_SCOPE)
  endforeach()
endfunction()

# check_reevaluated(STUDY RESULT MAX_V): the final design of RESULT analysed again by a fresh
# run of the crash code (sao evaluate --design, with SAO) must hold V <= MAX_V %.
function(check_reevaluated study result max_v)
  execute_process(COMMAND ${SAO} evaluate ${study} --design ${result}
                  OUTPUT_VARIABLE evaluation RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "sao evaluate --design ${result} failed (${rc})")
  endif()
  # The last "violation" line is the final design's (the first is the start's).
  string(REGEX MATCHALL "violation +[-0-9.e+]+" lines "${evaluation}")
  list(GET lines -1 last)
  string(REGEX REPLACE "violation +" "" v_again "${last}")
  if(NOT max_v STREQUAL "none" AND v_again GREATER max_v)
    message(FATAL_ERROR "re-evaluated final design: V = ${v_again} % > ${max_v} %")
  endif()
  message(STATUS "re-evaluated final design: V = ${v_again} %")
endfunction()
