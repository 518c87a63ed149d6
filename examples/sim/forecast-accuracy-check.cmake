# docs/forecast.md, "Accuracy when nobody new arrives", as a test: on the README's 21 jobs/h month,
# forecasts made with exact run times, compared with what happens when no job arrives after them,
# must have a median error within 10 % of the wait (issue 28's accuracy target). Samples every 24 h
# on lend-and-borrow.yaml: about 30 month-long simulations of a shrinking trace, seconds in an
# optimised build. Run by CTest (examples/CMakeLists.txt) with -DQM=<qm> -DPYTHON=<python3>
# -DDIR=<examples/sim> -DWORK=<scratch directory>.
set(trace ${WORK}/forecast-accuracy-jobs.csv)
include(${CMAKE_CURRENT_LIST_DIR}/readme-claims.cmake)
readme_trace(${trace} 21)
# At least 90 % of forecasts within 10 %: the docs report 98 %, and the target itself (a median
# within 10 %) is the weaker 50 %.
execute_process(COMMAND ${PYTHON} ${DIR}/forecast-accuracy.py ${QM} ${DIR}/lend-and-borrow.yaml ${trace} 24
                        --min-within 0.9
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
message(STATUS "${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "forecast-accuracy.py failed (${rc}): ${err}")
endif()
string(JSON compared GET "${out}" compared)
string(JSON missed GET "${out}" missed)
if(compared LESS 50)
  message(FATAL_ERROR "only ${compared} forecasts compared: the measurement did not run")
endif()
if(NOT missed EQUAL 0)
  message(FATAL_ERROR "${missed} forecast admissions never happened")
endif()
