# Runs `qm` once and checks its exit status and output; the cli.hyperpod_* CTest tests use it because
# PASS_REGULAR_EXPRESSION alone ignores the exit status. Called as
#   cmake -DQM=<qm binary> -DARGS=hyperpod|lint|FILE -DSTATUS=1 -DEXPECT=<regex>|<regex> -P cli-expect.cmake
# (`|` separates list items: a `;` would be split by add_test). Every regex must match stdout.
string(REPLACE "|" ";" args "${ARGS}")
execute_process(COMMAND "${QM}" ${args} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT "${status}" STREQUAL "${STATUS}")
  message(FATAL_ERROR "qm ${args}: exit status ${status}, expected ${STATUS}\nstdout:\n${out}\nstderr:\n${err}")
endif()
string(REPLACE "|" ";" expectations "${EXPECT}")
foreach(regex IN LISTS expectations)
  if(NOT out MATCHES "${regex}")
    message(FATAL_ERROR "qm ${args}: stdout does not match '${regex}'\nstdout:\n${out}\nstderr:\n${err}")
  endif()
endforeach()
