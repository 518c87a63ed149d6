# The cli.simulate_* tests (tests/CMakeLists.txt): `qm simulate` as users run it, for what its exit
# status and options promise (docs/simulate.md). Called as
#   cmake -DQM=<qm binary> -DDATA=<tests/sim/data> -DWORK=<scratch dir> -DMODE=livelock|time_syntax|bad_options
#         -P simulate-cli.cmake
include("${CMAKE_CURRENT_LIST_DIR}/../../support/qm-cli.cmake")  # run_qm, expect_match, expect_json

set(loop "${DATA}/loop-cluster.yaml")
set(calm "${DATA}/no-reclaim-cluster.yaml")
set(jobs "${DATA}/loop-jobs.csv")

if(MODE STREQUAL "livelock")
  # Exit status 3, the diagnosis first on stdout, a line on stderr, and every figure kept.
  run_qm(3 simulate "${loop}" --trace "${jobs}" --stall-window 1h --quiet)
  expect_match("${out}" "^LIVELOCK: no progress since t=600.0 s \\(0.17 h\\): for 1.00 h no job completed" "stdout")
  expect_match("${out}" "\ncq-b             cq-a                   60\ncq-b             cq-b                   60\n" "stdout")
  expect_match("${out}" "\nteam-a/a-big  cq-a                    60\nteam-b/b-low  cq-b                    60\n" "stdout")
  expect_match("${out}" "\nRun loop-cluster.yaml\n" "stdout")
  expect_match("${err}" "^qm simulate: loop-cluster.yaml: livelock: no progress since t=0.2 h; stopped at t=1.2 h" "stderr")
  # The report too, with its banner.
  run_qm(3 simulate "${loop}" --trace "${jobs}" --stall-window 1h --quiet --output json
         --report "${WORK}/simulate-cli-livelock.html")
  expect_json("${out}" "ON" livelock detected)
  expect_json("${out}" "4200" livelock stopped_s)
  expect_json("${out}" "600" livelock stalled_since_s)
  expect_json("${out}" "1" completed)
  file(READ "${WORK}/simulate-cli-livelock.html" html)
  expect_match("${html}" "<div class=\"livelock\" id=\"run1-livelock\" role=\"alert\">" "report")
  # --compare: each run diagnosed, all printed, status 3 because one run livelocked.
  run_qm(3 simulate --compare "${calm}" "${loop}" --trace "${jobs}" --stall-window 1h --quiet --output json)
  expect_json("${out}" "OFF" runs 0 livelock detected)
  expect_json("${out}" "4" runs 0 completed)
  expect_json("${out}" "ON" runs 1 livelock detected)
  run_qm(0 simulate "${calm}" --trace "${jobs}" --stall-window 1h --quiet --output json)
  # Pods that stop at once: the loop at one instant is the same diagnosis (no longer an error).
  run_qm(3 simulate "${loop}" --trace "${jobs}" --eviction-delay 0 --quiet --output json)
  expect_json("${out}" "ON" livelock at_one_instant)
  expect_json("${out}" "620" livelock stopped_s)
elseif(MODE STREQUAL "time_syntax")
  # The trace's time syntax in every duration option (days, plain seconds, fractions of a unit), and
  # Go durations as before. The horizon censors the wait of b-high (submitted at 620 s) at 1d12h = 129600 s.
  run_qm(0 simulate "${calm}" --trace "${jobs}" --horizon 1d12h --stall-window 2.5h --checkpoint-interval 90
         --eviction-delay 0.5m --quiet --output json)
  expect_json("${out}" "9000" stall_window_s)
  expect_json("${out}" "128980" groups 3 wait_all max_s)
  run_qm(0 simulate "${calm}" --trace "${jobs}" --horizon 2d --quiet --output json)
  expect_json("${out}" "172180" groups 3 wait_all max_s)
  run_qm(0 simulate "${calm}" --trace "${jobs}" --horizon 47h60m --stall-window 1h30m --quiet --output json)
  expect_json("${out}" "172180" groups 3 wait_all max_s)
  expect_json("${out}" "5400" stall_window_s)
  # Checkpoints every 20 min push the loop's stall back to a-big's last checkpoint (docs/simulate.md).
  run_qm(3 simulate "${loop}" --trace "${DATA}/loop-late-jobs.csv" --stall-window 1h --checkpoint-interval 20m
         --quiet --output json)
  expect_json("${out}" "2" checkpoints_kept)
  expect_json("${out}" "3010" livelock stalled_since_s)
elseif(MODE STREQUAL "bad_options")
  run_qm(2 simulate "${loop}" --trace "${jobs}" --stall-window 0)
  expect_match("${err}" "--stall-window \"0\" is not a positive duration" "stderr")
  run_qm(2 simulate "${loop}" --trace "${jobs}" --checkpoint-interval -1h)
  expect_match("${err}" "--checkpoint-interval \"-1h\" is not a duration >= 0" "stderr")
  run_qm(2 simulate "${loop}" --trace "${jobs}" --horizon soon)
  expect_match("${err}" "--horizon \"soon\" is not a positive duration" "stderr")
  run_qm(2 simulate "${loop}" --trace "${jobs}" --window 2h..1h)
  expect_match("${err}" "--window is START..END" "stderr")
  run_qm(2 simulate "${loop}" --trace "${jobs}" --window 1h --quiet)
  expect_match("${err}" "--window is START..END" "stderr")
  run_qm(2 simulate "${loop}" --trace "${jobs}" --window 1h.. --warmup 1h)
  expect_match("${err}" "only one of them may be given" "stderr")
  run_qm(2 simulate "${loop}" --trace "${jobs}" --round-fractional down)
  expect_match("${err}" "--round-fractional takes only \"up\"" "stderr")
  run_qm(0 simulate --help)
  expect_match("${out}" "3 simulated, but a run was stopped as a livelock" "qm simulate --help")
else()
  message(FATAL_ERROR "simulate-cli.cmake: unknown MODE '${MODE}'")
endif()
