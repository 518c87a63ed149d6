# Under CI=true every test must really run: a test whose tool is missing fails instead of being
# skipped (README "Tests"). Tests whose tool is found at configure time are added as usual; for a
# missing one, call quartermaster_missing_tool(TEST <name> TOOL <what> INSTALL <how>): outside CI
# it only says so, under CI=true (configure or test time) it adds a test of that name that fails.
function(quartermaster_missing_tool)
  cmake_parse_arguments(ARG "" "TEST;TOOL;INSTALL" "" ${ARGN})
  set(_why "${ARG_TEST} needs ${ARG_TOOL}, which was not found (${ARG_INSTALL})")
  if("$ENV{CI}" STREQUAL "true")
    message(WARNING "${_why}: under CI=true the test fails")
  else()
    message(STATUS "${_why}: skipped")
  endif()
  # Registered in every case, so that a build configured outside CI and tested under CI=true fails
  # too; outside CI the script exits with the skip code.
  add_test(NAME ${ARG_TEST}
           COMMAND ${CMAKE_COMMAND} -DWHY=${_why} -P ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/quartermaster_missing_tool_test.cmake)
  set_tests_properties(${ARG_TEST} PROPERTIES SKIP_REGULAR_EXPRESSION "^SKIP: " LABELS missing_tool)
endfunction()
