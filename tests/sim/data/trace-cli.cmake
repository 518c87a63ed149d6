# The cli.trace_* tests (tests/CMakeLists.txt): `qm trace generate` and `qm trace stats` as users run
# them. Called as
#   cmake -DQM=<qm binary> -DDATA=<tests/sim/data> -DWORK=<scratch dir> -DMODE=generate|bad_input -P trace-cli.cmake
include("${CMAKE_CURRENT_LIST_DIR}/../../support/qm-cli.cmake")  # run_qm, expect_match, expect_json

if(MODE STREQUAL "generate")
  # The golden trace, byte for byte, then its summary.
  set(trace "${WORK}/trace-cli-seed7.csv")
  run_qm(0 trace generate --seed 7 --jobs 20 --teams ml,nlp,vision --team-weights 3,1,1
         --priority-mix high=0.2,low=0.8 --output "${trace}")
  file(READ "${trace}" got)
  file(READ "${DATA}/generated-seed7-jobs20.csv" want)
  if(NOT got STREQUAL want)
    message(FATAL_ERROR "qm trace generate: ${trace} differs from ${DATA}/generated-seed7-jobs20.csv")
  endif()
  run_qm(0 trace stats "${trace}")
  expect_match("${out}" "\njobs: 20\npods: 21\n" "qm trace stats stdout")
  expect_match("${out}" "jobs by owner:\n  team ml: 14\n  team nlp: 2\n  team vision: 4\n" "qm trace stats stdout")
  expect_match("${out}" "  nvidia.com/gpu: 24.0 hours\n" "qm trace stats stdout")
  # Without --output the trace goes to stdout.
  run_qm(0 trace generate --seed 7 --jobs 20 --teams ml,nlp,vision --team-weights 3,1,1
         --priority-mix high=0.2,low=0.8)
  if(NOT out STREQUAL want)
    message(FATAL_ERROR "qm trace generate: stdout differs from ${DATA}/generated-seed7-jobs20.csv")
  endif()
elseif(MODE STREQUAL "bad_input")
  # A bad trace: exit status 2 and the file:line: column: message on stderr, nothing on stdout.
  run_qm(2 trace stats "${DATA}/bad-duration.csv")
  expect_match("${err}" "bad-duration.csv:3: duration: \"-3s\" must be positive\n" "qm trace stats stderr")
  expect_match("${out}" "^$" "qm trace stats stdout")
  # A bad generator option: exit status 2, the option named.
  run_qm(2 trace generate --gpus-per-pod 6)
  expect_match("${err}" "gpus_per_pod: 6 is not a power of two" "qm trace generate stderr")
else()
  message(FATAL_ERROR "trace-cli.cmake: unknown MODE '${MODE}'")
endif()
