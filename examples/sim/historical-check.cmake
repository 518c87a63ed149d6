# examples/sim/README.md, "Historical fair share", as a test: the bursty week under idle-sharing.yaml,
# without and with examples/sim/historical-share.yaml, over day 7 (when research bursts). Checks the
# claims the README makes: with the historical share, research gets more of the GPUs and waits less
# on its burst, and until then the other teams' GPU-hours are the same. Run by CTest
# (examples/CMakeLists.txt) with -DQM=<qm> -DDIR=<examples/sim>.
set(drs ${DIR}/idle-sharing.yaml)
set(hist ${DIR}/idle-sharing.yaml+${DIR}/historical-share.yaml)

# simulate(<out json> <window>)
function(simulate out window)
  execute_process(COMMAND ${QM} simulate --compare ${drs} ${hist} --trace ${DIR}/bursty-week.csv
                          --window ${window} --output json --quiet
                  OUTPUT_VARIABLE json RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "qm simulate --compare failed (${rc})")
  endif()
  set(${out} "${json}" PARENT_SCOPE)
endfunction()

# team_group(<out> <json> <run> <team>): the index of the team's all-classes group.
function(team_group out json run team)
  string(JSON n LENGTH "${json}" runs ${run} groups)
  math(EXPR last "${n} - 1")
  foreach(i RANGE ${last})
    string(JSON t GET "${json}" runs ${run} groups ${i} team)
    string(JSON c GET "${json}" runs ${run} groups ${i} priority_class)
    if(t STREQUAL "${team}" AND c STREQUAL "")
      set(${out} ${i} PARENT_SCOPE)
      return()
    endif()
  endforeach()
  message(FATAL_ERROR "run ${run}: no group for team ${team}")
endfunction()

# team_value(<out> <json> <run> <team> <key...>): a field of the team's all-classes group.
function(team_value out json run team)
  team_group(i "${json}" ${run} ${team})
  string(JSON v GET "${json}" runs ${run} groups ${i} ${ARGN})
  set(${out} "${v}" PARENT_SCOPE)
endfunction()

# team_gpu_hours(<out> <json> <run> <team>): the GPU-hours the team's queue used.
function(team_gpu_hours out json run team)
  team_group(i "${json}" ${run} ${team})
  string(JSON m LENGTH "${json}" runs ${run} groups ${i} resource_hours)
  math(EXPR last "${m} - 1")
  foreach(k RANGE ${last})
    string(JSON r GET "${json}" runs ${run} groups ${i} resource_hours ${k} resource)
    if(r STREQUAL "nvidia.com/gpu")
      string(JSON v GET "${json}" runs ${run} groups ${i} resource_hours ${k} used)
      set(${out} "${v}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  message(FATAL_ERROR "run ${run}: no GPU-hours for team ${team}")
endfunction()

include(${CMAKE_CURRENT_LIST_DIR}/readme-claims.cmake)

# Days 1-6: research is idle; training and inference borrow all the time, and get the same
# GPU-hours (to the hour) in both runs: history changes who gets the pool little while both use it.
simulate(before 0h..144h)
foreach(team training inference)
  team_gpu_hours(a "${before}" 0 ${team})
  team_gpu_hours(b "${before}" 1 ${team})
  string(REGEX REPLACE "\\..*" "" ai "${a}")
  string(REGEX REPLACE "\\..*" "" bi "${b}")
  expect(ai EQUAL bi)
endforeach()

# Day 7: research bursts.
simulate(day7 144h..168h)
team_gpu_hours(r_drs "${day7}" 0 research)
team_gpu_hours(r_hist "${day7}" 1 research)
string(REGEX REPLACE "\\..*" "" r_drs "${r_drs}")
string(REGEX REPLACE "\\..*" "" r_hist "${r_hist}")
math(EXPR r_drs_more "${r_drs} * 5 / 4")
expect(r_hist GREATER r_drs_more)  # at least a quarter more GPU-hours for research
team_value(w_drs "${day7}" 0 research wait_all p50_s)
team_value(w_hist "${day7}" 1 research wait_all p50_s)
string(REGEX REPLACE "\\..*" "" w_drs "${w_drs}")
string(REGEX REPLACE "\\..*" "" w_hist "${w_hist}")
expect(w_hist LESS w_drs)
message(STATUS "research on day 7: ${r_drs} GPU-hours without the historical share, ${r_hist} with it; "
               "wait p50 ${w_drs} s and ${w_hist} s")
