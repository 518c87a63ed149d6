# examples/sim/README.md, "Overload: preemption thrash and the anti-thrash options", as a test: generates
# the 30 jobs/h month, runs lend-and-borrow Kueue-faithful and with each option, and checks the
# claims the README makes about the result. Run by CTest (examples/CMakeLists.txt) with -DQM=<qm>
# -DDIR=<examples/sim> -DWORK=<scratch directory>.
set(trace ${WORK}/sim-thrash-jobs30.csv)
include(${CMAKE_CURRENT_LIST_DIR}/readme-claims.cmake)
readme_trace(${trace} 30)
set(options prioritize-preemptor min-runtime loop-free-fair-sharing borrow-backoff requeue-backoff
            preemption-backoff recommended fewest-preemptions)
set(clusters ${DIR}/lend-and-borrow.yaml)
foreach(o ${options})
  list(APPEND clusters ${DIR}/lend-and-borrow.yaml+${DIR}/anti-thrash/${o}.yaml)
endforeach()
execute_process(COMMAND ${QM} simulate --compare ${clusters} --trace ${trace} --output json --quiet
                OUTPUT_VARIABLE json RESULT_VARIABLE rc)
# Exit status 3: at least one run was stopped as a livelock (the output is complete).
if(NOT rc EQUAL 3)
  message(FATAL_ERROR "qm simulate --compare exited with ${rc}, expected 3 (a livelock)")
endif()


# Per run: its figures as variables <name>_<key>. CMake reparses a document on every GET, so each
# run's object (about 650 KB with its series) and then its small groups array are taken out once.
set(runs kueue ${options})
set(index 0)
foreach(run ${runs})
  string(JSON one GET "${json}" runs ${index})
  foreach(key completed never_admitted never_admittable preemptions preemptions_per_completed_job
              gpu_hours_lost_per_completed)
    string(JSON ${run}_${key} GET "${one}" ${key})
  endforeach()
  string(JSON ${run}_livelock GET "${one}" livelock detected)
  string(JSON ${run}_stopped GET "${one}" livelock stopped_s)
  # The team rows (all classes): censored p99 waits and p99 times to completion.
  string(JSON groups GET "${one}" groups)
  string(JSON count LENGTH "${groups}")
  math(EXPR last "${count} - 1")
  foreach(g RANGE ${last})
    string(JSON row GET "${groups}" ${g})
    string(JSON team GET "${row}" team)
    string(JSON class GET "${row}" priority_class)
    if(class STREQUAL "")
      string(JSON ${run}_${team}_p99 GET "${row}" wait_all p99_s)
      string(JSON ${run}_${team}_done_p99 GET "${row}" completion p99_s)
    endif()
  endforeach()
  math(EXPR index "${index} + 1")
endforeach()

# Kueue-faithful livelocks: stopped at 556.7 h (the last completion at 532.7 h plus the 24 h window).
expect(kueue_livelock)
expect(kueue_stopped GREATER 2003000 AND kueue_stopped LESS 2005000)
expect(kueue_completed EQUAL 11793)
# Kueue's own gate and loop-free fair sharing alone do not end the loop either.
expect(prioritize-preemptor_livelock)
expect(loop-free-fair-sharing_livelock)
# Every other option ends the run with every job completed but the 8 that can never be admitted
# (64-GPU research jobs above research's 48-GPU maximum).
foreach(run min-runtime borrow-backoff requeue-backoff preemption-backoff recommended fewest-preemptions)
  expect(NOT ${run}_livelock)
  expect(${run}_completed EQUAL 14992)
  expect(${run}_never_admitted EQUAL 8 AND ${run}_never_admittable EQUAL 8)
endforeach()
# The longer requeue back-off has the fewest preemptions per completed job (0.186, under the
# issue's 0.2); the recommended combination comes second (0.220) and loses the least work (0.195
# GPU-hours per GPU-hour completed); the requeue back-off alone comes third.
foreach(run ${runs})
  if(NOT run STREQUAL "fewest-preemptions")
    expect(fewest-preemptions_preemptions_per_completed_job LESS ${run}_preemptions_per_completed_job)
  endif()
  if(NOT run MATCHES "^(recommended|fewest-preemptions)$")
    expect(recommended_preemptions_per_completed_job LESS ${run}_preemptions_per_completed_job)
  endif()
  if(NOT run STREQUAL "recommended")
    expect(recommended_gpu_hours_lost_per_completed LESS ${run}_gpu_hours_lost_per_completed)
  endif()
endforeach()
expect(fewest-preemptions_preemptions_per_completed_job LESS 0.2)
expect(recommended_preemptions_per_completed_job LESS 0.23)
expect(requeue-backoff_preemptions_per_completed_job LESS 0.26)
foreach(run kueue prioritize-preemptor min-runtime loop-free-fair-sharing borrow-backoff preemption-backoff)
  expect(requeue-backoff_preemptions_per_completed_job LESS ${run}_preemptions_per_completed_job)
endforeach()
# Its price: preempted jobs come back later, so research's p99 time to completion is longer than
# with the recommended combination (383 h against 261 h).
expect(fewest-preemptions_research_done_p99 GREATER recommended_research_done_p99)
# Without checkpoints, a minimum runtime of 1 h throws away more work per completed hour than Kueue.
expect(min-runtime_gpu_hours_lost_per_completed GREATER kueue_gpu_hours_lost_per_completed)
# Censored waits: with the recommended options no team's p99 reaches an hour; Kueue-faithful
# research waits more than 400 h.
foreach(team research training inference)
  expect(recommended_${team}_p99 LESS 3600)
  expect(fewest-preemptions_${team}_p99 LESS 3600)
endforeach()
expect(kueue_research_p99 GREATER 1440000)
message(STATUS "preemptions per completed job: Kueue ${kueue_preemptions_per_completed_job}, recommended ${recommended_preemptions_per_completed_job}, fewest-preemptions ${fewest-preemptions_preemptions_per_completed_job}")
