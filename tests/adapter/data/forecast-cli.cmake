# `qm forecast` and the forecast section of `qm explain` on the HyperPod walkthrough, as a user runs
# them: the expected times are computed by hand from the walkthrough (docs/forecast.md), and the
# errors name the flag.
include(${CMAKE_CURRENT_LIST_DIR}/../../support/qm-cli.cmake)
set(walkthrough ${EXAMPLES}/hyperpod/walkthrough.yaml)

# At 09:20 team-b's experimentation job has just been admitted; team-b's training job (2 GPUs) waits
# for it, team-a's (3 GPUs: 2 own + 1 borrowed) for team-b's training job. Every job runs 2 h.
run_qm(0 forecast ${walkthrough} --runtime 2h --output json)
expect_json("${out}" "2025-02-04T11:20:00Z" workloads 1 admission)
expect_json("${out}" "hyperpod-ns-team-b/training-job" workloads 1 workload)
expect_json("${out}" "hyperpod-ns-team-b/experimentation-job" workloads 1 waitsFor 0 workload)
expect_json("${out}" "2025-02-04T13:20:00Z" workloads 0 admission)
expect_json("${out}" "2" workloads 0 positionInCohort)
expect_json("${out}" "1" runs)

# The experimentation job has 30 m left: everything moves 1 h 30 m earlier.
run_qm(0 forecast ${walkthrough} --runtime 2h --runtime-of hyperpod-ns-team-b/experimentation-job=30m
       --workload hyperpod-ns-team-a/training-job)
expect_match("${out}" "admission: \"2025-02-04T11:50:00Z\"" "the forecast with a remaining time")
expect_match("${out}" "summary: \"expected to start in about 2h30m, after hyperpod-ns-team-b/training-job finishes\""
             "the summary")

# A distribution: bounds over the random runs.
run_qm(0 forecast ${walkthrough} --runtime 1h,2h,4h --runs 50 --seed 7 --output json)
expect_json("${out}" "51" runs)
string(JSON p10 GET "${out}" workloads 1 p10)
string(JSON p90 GET "${out}" workloads 1 p90)
if(NOT p10 STRLESS p90)
  message(FATAL_ERROR "p10 ${p10} is not before p90 ${p90}")
endif()

# qm explain ends a pending workload's explanation with its forecast.
run_qm(0 explain ${walkthrough} --workload hyperpod-ns-team-a/training-job --runtime 2h)
expect_match("${out}" "forecast:\n  summary: \"expected to start in about 4h, after hyperpod-ns-team-b/training-job finishes\""
             "qm explain's forecast")

# qm explain --what-if: team-b's training job is stopped by its borrowing limit (1 GPU): borrowing
# 2 admits it, and so does a priority above the experimentation job's 80, which it then preempts.
run_qm(0 explain ${walkthrough} --workload hyperpod-ns-team-b/training-job --what-if --output json)
expect_json("${out}" "borrowingLimit" whatIf answers 0 kind)
expect_json("${out}" "2" whatIf answers 0 borrowingLimits 0 amount)
expect_json("${out}" "81" whatIf answers 1 priority)
expect_json("${out}" "hyperpod-ns-team-b/experimentation-job" whatIf answers 1 preempts 0)

# --options with arrivals: an inference job of 2 GPUs every hour for team-b keeps both training jobs
# out within two days in most runs (the point forecast: in none).
run_qm(0 forecast ${walkthrough} --options ${CMAKE_CURRENT_LIST_DIR}/forecast-arrivals.yaml --runs 20
       --horizon 48h --output json)
expect_json("${out}" "21" runs)
string(JSON admitted GET "${out}" workloads 1 admission)
if(NOT admitted STREQUAL "")
  message(FATAL_ERROR "team-b's training job admitted despite the arrivals: ${admitted}")
endif()
string(JSON percent GET "${out}" workloads 1 admittedPercent)
if(percent GREATER_EQUAL 100)
  message(FATAL_ERROR "every run admits team-b's training job: ${percent}%")
endif()
run_qm(2 forecast ${walkthrough} --options /nonexistent.yaml)
expect_match("${err}" "--options: cannot read '/nonexistent.yaml'" "missing options file")

# Errors.
run_qm(2 forecast ${walkthrough})
expect_match("${err}" "give at least --runtime" "no estimate")
run_qm(2 forecast ${walkthrough} --runtime 2x)
expect_match("${err}" "--runtime: '2x' is not a positive duration" "bad duration")
run_qm(2 forecast ${walkthrough} --runtime 1h --runtime-of nobody/x=1h)
expect_match("${err}" "--runtime-of: no workload 'nobody/x'" "unknown workload")
run_qm(1 forecast ${walkthrough} --queue-runtime nope=1h)
expect_match("${err}" "queue_runtimes\\[0\\].cluster_queue: no ClusterQueue named 'nope'" "unknown queue")
