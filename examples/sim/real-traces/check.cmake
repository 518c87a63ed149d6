# examples.sim-real-traces (examples/CMakeLists.txt): runs every command of README.md on the bundled
# samples and checks the figures the README quotes. Called as
#   cmake -DQM=<qm binary> -DPYTHON=<python3> -DDIR=<this folder> -DWORK=<scratch dir> -P check.cmake
include("${DIR}/../../../tests/support/qm-cli.cmake")  # run_qm, expect_match, expect_json
set(w "${WORK}/real-traces")
file(REMOVE_RECURSE "${w}")
file(MAKE_DIRECTORY "${w}")

# The samples are what make-samples.py writes, byte for byte.
execute_process(COMMAND "${PYTHON}" "${DIR}/make-samples.py" "${w}/samples" RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "make-samples.py failed (${status})")
endif()
foreach(f openb/openb_node_list_all_node.csv openb/openb_pod_list_sample.csv helios/cluster_log.csv
          philly/cluster_job_log philly/cluster_machine_list pai2020/pai_job_table.csv
          pai2020/pai_task_table.csv pai2020/pai_group_tag_table.csv pai2020/pai_machine_spec.csv)
  file(READ "${w}/samples/${f}" made)
  file(READ "${DIR}/${f}" bundled)
  if(NOT made STREQUAL bundled)
    message(FATAL_ERROR "${f}: make-samples.py no longer writes the bundled sample")
  endif()
endforeach()

# openb: import, then the three configurations of README.md.
run_qm(0 trace import --format openb "${DIR}/openb/openb_pod_list_sample.csv"
       "${DIR}/openb/openb_node_list_all_node.csv" --owner-column namespace
       --output "${w}/openb.csv" --nodes-out "${w}/openb-nodes.yaml")
expect_match("${err}" "jobs written: 285" "openb import summary")
expect_match("${err}" "never scheduled: 15" "openb import summary")
run_qm(0 simulate --compare "${DIR}/openb-queues.yaml+${w}/openb-nodes.yaml"
       "${DIR}/openb-queues-t4-last.yaml+${w}/openb-nodes.yaml"
       "${DIR}/openb-queues.yaml+${w}/openb-nodes.yaml+${DIR}/pods-ready.yaml"
       --trace "${w}/openb.csv" --round-fractional up --quiet --output json)
expect_json("${out}" "64" runs 0 rounded_jobs)
expect_json("${out}" "22" runs 0 never_admitted)
expect_json("${out}" "21" runs 1 never_admitted)
expect_json("${out}" "0" runs 2 never_admitted)
expect_json("${out}" "283" runs 2 completed)

# Helios: quota only, without and with fair sharing.
run_qm(0 trace import --format helios "${DIR}/helios/cluster_log.csv" --owner-column namespace --output "${w}/helios.csv")
expect_match("${err}" "cancelled while pending: 9" "helios import summary")
run_qm(0 simulate --compare "${DIR}/helios-queues.yaml" "${DIR}/helios-queues.yaml+${DIR}/fair-sharing.yaml"
       --trace "${w}/helios.csv" --quiet --output json)
expect_json("${out}" "291" runs 0 completed)
expect_json("${out}" "22" runs 0 preemptions)
expect_json("${out}" "49" runs 1 preemptions)

# Philly: machines of two GPU sizes.
run_qm(0 trace import --format philly "${DIR}/philly/cluster_job_log" "${DIR}/philly/cluster_machine_list"
       --owner-column namespace --output "${w}/philly.csv" --nodes-out "${w}/philly-nodes.yaml")
expect_match("${err}" "jobs written: 140" "philly import summary")
run_qm(0 simulate "${DIR}/philly-queues.yaml+${w}/philly-nodes.yaml" --trace "${w}/philly.csv" --quiet --output json)
expect_json("${out}" "139" completed)

# PAI 2020: fractional GPUs and one job no machine can hold.
run_qm(0 trace import --format pai2020 ${DIR}/pai2020/pai_job_table.csv ${DIR}/pai2020/pai_task_table.csv
       ${DIR}/pai2020/pai_group_tag_table.csv ${DIR}/pai2020/pai_machine_spec.csv
       --owner-column namespace --output "${w}/pai.csv" --nodes-out "${w}/pai-nodes.yaml")
expect_match("${err}" "jobs written: 200" "pai2020 import summary")
run_qm(0 simulate "${DIR}/pai2020-queues.yaml+${w}/pai-nodes.yaml" --trace "${w}/pai.csv" --round-fractional up
       --quiet --output json)
expect_json("${out}" "1" fit_no_node)
expect_json("${out}" "199" completed)
expect_match("${err}" "j0001: a pod of pod set \"worker\"" "pai2020 warning")
