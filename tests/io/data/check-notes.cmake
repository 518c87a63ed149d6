# Runs `qm check FILE` and requires exit status 0, PASS on stdout and the loader's note on stderr
# (`note: FILE:17: ... taken as unlimited`), kept out of stdout. Called as
#   cmake -DQM=<qm binary> -DFILE=<scenario> -P check-notes.cmake
execute_process(COMMAND "${QM}" check "${FILE}" RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "qm check: exit status ${status}\nstdout:\n${out}\nstderr:\n${err}")
endif()
if(NOT out MATCHES "PASS " OR out MATCHES "note:")
  message(FATAL_ERROR "qm check: unexpected stdout\n${out}")
endif()
if(NOT err MATCHES "note: [^\n]*check-unlimited-quota.yaml:17: [^\n]*taken as unlimited")
  message(FATAL_ERROR "qm check: stderr lacks the unlimited-quota note\nstderr:\n${err}")
endif()
