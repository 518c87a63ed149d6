# examples/sim/README.md, as a test: generates the README's trace, runs the four policies side by
# side, and checks the claims the README makes about the result. Then the browser test opens the
# report it wrote. Run by CTest (examples/CMakeLists.txt) with -DQM=<qm> -DDIR=<examples/sim>
# -DWORK=<scratch directory>.
set(trace ${WORK}/sim-example-jobs.csv)
include(${CMAKE_CURRENT_LIST_DIR}/readme-claims.cmake)
readme_trace(${trace} 21)
execute_process(COMMAND ${QM} simulate --compare ${DIR}/lend-and-borrow.yaml ${DIR}/dont-lend.yaml
                        ${DIR}/fair-share-off.yaml ${DIR}/idle-sharing.yaml --trace ${trace}
                        --output json --quiet --report ${WORK}/sim-example-compare.html
                OUTPUT_VARIABLE json RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "qm simulate --compare failed (${rc})")
endif()

# run_value(<out> <run index> <json path...>)
function(run_value out run)
  string(JSON v GET "${json}" runs ${run} ${ARGN})
  set(${out} "${v}" PARENT_SCOPE)
endfunction()

# Index of the element of runs[run].<list> whose <key> fields equal <values> (pairs key value ...).
function(find_entry out run list)
  string(JSON n LENGTH "${json}" runs ${run} ${list})
  math(EXPR last "${n} - 1")
  foreach(i RANGE ${last})
    set(match TRUE)
    set(pairs ${ARGN})
    while(pairs)
      list(POP_FRONT pairs key value)
      string(JSON got GET "${json}" runs ${run} ${list} ${i} ${key})
      if(NOT got STREQUAL "${value}")
        set(match FALSE)
      endif()
    endwhile()
    if(match)
      set(${out} ${i} PARENT_SCOPE)
      return()
    endif()
  endforeach()
  message(FATAL_ERROR "run ${run}: no ${list} entry with ${ARGN}")
endfunction()

# The GPU figures of a run's totals: used, borrowed, goodput_lost.
function(gpu_hours out run key)
  find_entry(i ${run} resource_hours resource nvidia.com/gpu)
  string(JSON v GET "${json}" runs ${run} resource_hours ${i} ${key})
  set(${out} "${v}" PARENT_SCOPE)
endfunction()

# A queue's (all classes) p99 wait in a run.
function(queue_p99 out run queue)
  find_entry(i ${run} groups cluster_queue ${queue} priority_class "")
  string(JSON v GET "${json}" runs ${run} groups ${i} wait p99_s)
  set(${out} "${v}" PARENT_SCOPE)
endfunction()


set(LEND 0)
set(DONT 1)
set(FAIR_OFF 2)
set(IDLE 3)
foreach(run ${LEND} ${DONT} ${FAIR_OFF} ${IDLE})
  run_value(jobs ${run} jobs)
  expect(jobs EQUAL 15000)
  run_value(p${run} ${run} preemptions)
  run_value(never${run} ${run} never_admitted)
  gpu_hours(borrowed${run} ${run} borrowed)
  gpu_hours(lost${run} ${run} goodput_lost)
  run_value(ppcj${run} ${run} preemptions_per_completed_job)
  # The simulator's verdict: every run ends by itself, none stopped as a livelock.
  run_value(livelock ${run} livelock detected)
  expect(NOT livelock)
  # Honest counts: completed <= started <= admitted.
  run_value(admitted ${run} admitted)
  run_value(started ${run} started)
  run_value(completed ${run} completed)
  expect(completed LESS_EQUAL started AND started LESS_EQUAL admitted)
endforeach()
# DontLend: nothing is borrowed, research waits far longer, more jobs can never run (a job larger
# than its team's allocation), and priority preemption within the team costs the most GPU-hours.
expect(borrowed${DONT} EQUAL 0)
expect(borrowed${LEND} GREATER 1000)
expect(never${DONT} GREATER never${LEND})
queue_p99(research_lend ${LEND} hyperpod-ns-research-clusterqueue)
queue_p99(research_dont ${DONT} hyperpod-ns-research-clusterqueue)
expect(research_dont GREATER research_lend)
expect(lost${DONT} GREATER lost${LEND})
expect(p${DONT} GREATER p${LEND})
# Idle sharing lends the 6 unallocated instances too: most borrowed, fewest preemptions, least lost.
expect(borrowed${IDLE} GREATER borrowed${LEND})
expect(p${IDLE} LESS p${LEND})
expect(p${IDLE} LESS p${FAIR_OFF})
expect(lost${IDLE} LESS lost${FAIR_OFF})
# Preemptions per completed job: idle sharing 0.013 < lend-and-borrow 0.105 < dont-lend 0.265.
expect(ppcj${IDLE} LESS ppcj${LEND})
expect(ppcj${LEND} LESS ppcj${DONT})
# Counting the jobs never admitted (censored at the end) can only lengthen research's p99 wait.
find_entry(i ${LEND} groups cluster_queue hyperpod-ns-research-clusterqueue priority_class "")
string(JSON research_all_p99 GET "${json}" runs ${LEND} groups ${i} wait_all p99_s)
expect(research_all_p99 GREATER research_lend)
message(STATUS "preemptions: lend-and-borrow ${p0}, dont-lend ${p1}, fair-share-off ${p2}, idle-sharing ${p3}")
