# Shared by the examples/sim check scripts (compare-check, thrash-check, historical-check,
# forecast-accuracy-check).

# readme_trace(<file> <arrivals per hour>): the README's synthetic month (15,000 jobs, three teams,
# seed 7) at the given arrival rate, written with ${QM} trace generate.
function(readme_trace file rate)
  execute_process(COMMAND ${QM} trace generate --teams research,training,inference --team-weights 3,5,2
                          --jobs 15000 --arrivals-per-hour ${rate} --seed 7
                          --priority-mix inference=0.2,training=0.5,experimentation=0.3 --output ${file}
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "qm trace generate failed (${rc})")
  endif()
endfunction()

# expect(<condition>): fails the CTest script with the README claim that did not hold.
macro(expect condition)
  if(NOT (${ARGV}))
    message(FATAL_ERROR "examples/sim/README.md claims: ${ARGV}")
  endif()
endmacro()
