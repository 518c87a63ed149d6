# expect(<condition>): fails the CTest script with the README claim that did not hold. Included by
# the examples/sim check scripts (compare-check, thrash-check, historical-check).
macro(expect condition)
  if(NOT (${ARGV}))
    message(FATAL_ERROR "examples/sim/README.md claims: ${ARGV}")
  endif()
endmacro()
