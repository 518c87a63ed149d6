# The cli.trace_import_* tests (tests/CMakeLists.txt): `qm trace import` as users run it, on the
# hand-written samples beside this file. Called as
#   cmake -DQM=<qm binary> -DDATA=<tests/sim/data/import> -DWORK=<scratch dir> -DMODE=formats|bad_input -P import-cli.cmake
include("${CMAKE_CURRENT_LIST_DIR}/../../../support/qm-cli.cmake")  # run_qm, expect_match, expect_json

function(expect_same_file got want)
  file(READ "${got}" got_text)
  file(READ "${want}" want_text)
  if(NOT got_text STREQUAL want_text)
    message(FATAL_ERROR "${got} differs from ${want}")
  endif()
endfunction()

set(out_dir "${WORK}/trace-import-cli")
file(REMOVE_RECURSE "${out_dir}")
file(MAKE_DIRECTORY "${out_dir}")

if(MODE STREQUAL "formats")
  # Each format: the trace and nodes as worked out by hand, and the counts on stderr.
  run_qm(0 trace import --format openb "${DATA}/openb/pods.csv" "${DATA}/openb/nodes.csv"
         --output "${out_dir}/openb.csv" --nodes-out "${out_dir}/openb-nodes.yaml")
  expect_same_file("${out_dir}/openb.csv" "${DATA}/openb/expected.csv")
  expect_same_file("${out_dir}/openb-nodes.yaml" "${DATA}/openb/expected-nodes.yaml")
  expect_match("${err}" "^openb: read 13 pod rows, 4 node rows\njobs written: 9\n" "openb stderr")
  expect_match("${err}" "\nrows skipped: 4\n  never scheduled: 1\n  cancelled while pending: 1\n" "openb stderr")

  run_qm(0 trace import --format pai2020 "${DATA}/pai/pai_job_table.csv" "${DATA}/pai/pai_task_table.csv"
         "${DATA}/pai/pai_group_tag_table.csv" "${DATA}/pai/pai_machine_spec.csv"
         --output "${out_dir}/pai.csv" --nodes-out "${out_dir}/pai-nodes.yaml")
  expect_same_file("${out_dir}/pai.csv" "${DATA}/pai/expected.csv")
  expect_same_file("${out_dir}/pai-nodes.yaml" "${DATA}/pai/expected-nodes.yaml")
  expect_match("${err}" "^pai2020: read 11 job rows, 12 task rows, 3 node rows\njobs written: 5\n" "pai2020 stderr")

  run_qm(0 trace import --format philly "${DATA}/philly/cluster_job_log" "${DATA}/philly/cluster_machine_list"
         --output "${out_dir}/philly.csv" --nodes-out "${out_dir}/philly-nodes.yaml")
  expect_same_file("${out_dir}/philly.csv" "${DATA}/philly/expected.csv")
  expect_same_file("${out_dir}/philly-nodes.yaml" "${DATA}/philly/expected-nodes.yaml")
  expect_match("${err}" "^philly: read 12 jobs, 3 node rows\njobs written: 5\n" "philly stderr")

  # Without --output the trace goes to stdout; a machine list without --nodes-out is mentioned.
  run_qm(0 trace import --format helios "${DATA}/helios/cluster_log.csv")
  file(READ "${DATA}/helios/expected.csv" want)
  if(NOT out STREQUAL want)
    message(FATAL_ERROR "qm trace import --format helios: stdout differs from ${DATA}/helios/expected.csv")
  endif()
  expect_match("${err}" "^helios: read 13 job rows\njobs written: 7\n" "helios stderr")
  run_qm(0 trace import --format openb "${DATA}/openb/pods.csv" "${DATA}/openb/nodes.csv" --output "${out_dir}/o.csv")
  expect_match("${err}" "\\(give --nodes-out FILE to write the nodes\\)\n$" "openb stderr without --nodes-out")

  # A file that cannot be mapped, read to its end instead: the log piped to stdin gives the same trace.
  execute_process(COMMAND "${CMAKE_COMMAND}" -E cat "${DATA}/helios/cluster_log.csv"
                  COMMAND "${QM}" trace import --format helios /dev/stdin
                  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status STREQUAL "0")
    message(FATAL_ERROR "qm trace import --format helios /dev/stdin: exit status ${status}\n${err}")
  endif()
  file(READ "${DATA}/helios/expected.csv" want_stdin)
  if(NOT out STREQUAL want_stdin)
    message(FATAL_ERROR "qm trace import --format helios /dev/stdin: stdout differs from ${DATA}/helios/expected.csv")
  endif()
  expect_match("${err}" "^helios: read 13 job rows\njobs written: 7\n" "helios stderr, from stdin")

  # The imported traces read back (the ones without node_affinity, which the reader learns with
  # issue 25's node-constraint columns).
  run_qm(0 trace stats "${out_dir}/philly.csv")
  expect_match("${out}" "\njobs: 5\npods: 7\n" "qm trace stats philly.csv")
  file(WRITE "${out_dir}/helios.csv" "${want}")
  run_qm(0 trace stats "${out_dir}/helios.csv")
  expect_match("${out}" "\njobs: 7\npods: 10\n" "qm trace stats helios.csv")
elseif(MODE STREQUAL "bad_input")
  # A malformed row in each format: exit status 2, file:line: column: message, nothing written.
  foreach(case
      "openb|openb/bad-pods.csv|bad-pods.csv:3: cpu_milli: \"abc\" is not an integer"
      "pai2020|pai/pai_job_table.csv;pai/bad-pai_task_table.csv|bad-pai_task_table.csv:2: plan_cpu: \"four\" is not a number"
      "philly|philly/bad_cluster_job_log|bad_cluster_job_log:18: submitted_time: \"2017-10-07 1:30\" is not a date"
      "helios|helios/bad_cluster_log.csv|bad_cluster_log.csv:4: node_num: \"one\" is not an integer")
    string(REPLACE "|" ";" parts "${case}")
    list(GET parts 0 format)
    list(GET parts -1 message)
    list(LENGTH parts n)
    math(EXPR last "${n} - 2")
    set(inputs "")
    foreach(i RANGE 1 ${last})
      list(GET parts ${i} input)
      list(APPEND inputs "${DATA}/${input}")
    endforeach()
    run_qm(2 trace import --format ${format} ${inputs} --output "${out_dir}/${format}.csv")
    expect_match("${err}" "${message}" "qm trace import --format ${format} stderr")
    if(EXISTS "${out_dir}/${format}.csv")
      message(FATAL_ERROR "qm trace import --format ${format}: wrote ${out_dir}/${format}.csv despite the error")
    endif()
  endforeach()
  # Bad arguments.
  run_qm(2 trace import --format alibaba "${DATA}/openb/pods.csv")
  expect_match("${err}" "unknown format 'alibaba'" "qm trace import stderr")
  run_qm(2 trace import --format openb --running maybe "${DATA}/openb/pods.csv")
  expect_match("${err}" "--running: 'maybe' is not keep or skip" "qm trace import stderr")
  run_qm(2 trace import --format helios "${DATA}/helios/cluster_log.csv" --nodes-out "${out_dir}/nodes.yaml")
  expect_match("${err}" "--nodes-out: no node list among the inputs" "qm trace import stderr")
  run_qm(2 trace import --format helios "${DATA}/helios/missing.csv")
  expect_match("${err}" "cannot read '[^']*missing.csv'" "qm trace import stderr")
  run_qm(2 trace import --format helios "${DATA}/helios")
  expect_match("${err}" "cannot read '[^']*helios': Is a directory" "qm trace import stderr, a folder")
else()
  message(FATAL_ERROR "import-cli.cmake: unknown MODE '${MODE}'")
endif()
