# Helpers of the CLI test scripts (tests/*/data/*-cli.cmake), which run `qm` as users do:
#   run_qm(<expected exit status> <args...>)  runs ${QM}, fails on another status; sets `out`, `err`
#   expect_match(<text> <regex> <what>)       fails unless <text> matches
#   expect_json(<json> <expected> <path...>)  fails unless the value at <path> is <expected>
function(run_qm expected_status)
  execute_process(COMMAND "${QM}" ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT "${status}" STREQUAL "${expected_status}")
    message(FATAL_ERROR "qm ${ARGN}: exit status ${status}, expected ${expected_status}\nstdout:\n${out}\nstderr:\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
endfunction()

function(expect_match text regex what)
  if(NOT text MATCHES "${regex}")
    message(FATAL_ERROR "${what} does not match '${regex}':\n${text}")
  endif()
endfunction()

function(expect_json json expected)
  string(JSON got GET "${json}" ${ARGN})
  if(NOT got STREQUAL "${expected}")
    message(FATAL_ERROR "JSON ${ARGN}: got '${got}', expected '${expected}'")
  endif()
endfunction()
