# cli.run_save_restore: `qm run --save` on snapshot-cli-save.yaml, then `qm run --restore` of that
# snapshot on snapshot-cli-restore.yaml, whose expectations hold only on the restored engine; then a
# file that is not a snapshot and a missing one, which `--restore` must refuse (exit status 2).
# Called as
#   cmake -DQM=<qm binary> -DDATA=<this folder> -DWORK=<scratch folder> -P snapshot-cli.cmake
set(snap "${WORK}/snapshot-cli.qmsnap")
file(REMOVE "${snap}")
function(run_qm expected_status)
  execute_process(COMMAND "${QM}" ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT "${status}" STREQUAL "${expected_status}")
    message(FATAL_ERROR "qm ${ARGN}: exit status ${status}, expected ${expected_status}\nstdout:\n${out}\nstderr:\n${err}")
  endif()
  if("${expected_status}" STREQUAL "0" AND (NOT out MATCHES "expectations: passed" OR out MATCHES "failed"))
    message(FATAL_ERROR "qm ${ARGN}: expectations did not pass\nstdout:\n${out}\nstderr:\n${err}")
  endif()
endfunction()
run_qm(0 run "${DATA}/snapshot-cli-save.yaml" --save "${snap}")
if(NOT EXISTS "${snap}")
  message(FATAL_ERROR "qm run --save did not write ${snap}")
endif()
run_qm(0 run "${DATA}/snapshot-cli-restore.yaml" --restore "${snap}")
file(WRITE "${WORK}/snapshot-cli-bad.qmsnap" "not a snapshot\n")
run_qm(2 run "${DATA}/snapshot-cli-restore.yaml" --restore "${WORK}/snapshot-cli-bad.qmsnap")
run_qm(2 run "${DATA}/snapshot-cli-restore.yaml" --restore "${WORK}/snapshot-cli-missing.qmsnap")
