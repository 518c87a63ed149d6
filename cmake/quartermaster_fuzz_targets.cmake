# qm_fuzz_targets: the fuzz targets of fuzz/targets/ as one static library, linked by the
# regression test of the normal build (tests/fuzz/); the libFuzzer harnesses (fuzz/, QM_FUZZ=ON)
# compile the same sources one by one, so both run the same code on an input.
# QM_FUZZ_TARGET_DEFINITIONS: the compile definitions below, for the harnesses.
#
# Two targets depend on library parts that may not exist yet in a checkout: the trace target on
# the simulator's trace reader, the engine checks on Engine::CheckInvariants. Each is compiled in
# only when its definition is found in lib/ (QM_FUZZ_HAVE_TRACE_READER,
# QM_FUZZ_HAVE_CHECK_INVARIANTS); CMake says so when it is not.

# Sets `out` to TRUE when a .cc file under lib/<folder> contains `text`.
function(_qm_lib_defines out folder text)
  file(GLOB _files ${PROJECT_SOURCE_DIR}/lib/${folder}/*.cc)
  set(_found FALSE)
  foreach(_file IN LISTS _files)
    file(STRINGS ${_file} _hits REGEX "${text}")
    if(_hits)
      set(_found TRUE)
    endif()
  endforeach()
  set(${out} ${_found} PARENT_SCOPE)
endfunction()

_qm_lib_defines(QM_FUZZ_HAVE_TRACE_READER sim "ReadTraceString\\(std::string_view")
_qm_lib_defines(QM_FUZZ_HAVE_CHECK_INVARIANTS adapter "Engine::CheckInvariants\\(\\)")
set(QM_FUZZ_TARGET_DEFINITIONS "")
if(QM_FUZZ_HAVE_TRACE_READER)
  list(APPEND QM_FUZZ_TARGET_DEFINITIONS QM_FUZZ_HAVE_TRACE_READER)
endif()
if(QM_FUZZ_HAVE_CHECK_INVARIANTS)
  list(APPEND QM_FUZZ_TARGET_DEFINITIONS QM_FUZZ_HAVE_CHECK_INVARIANTS)
else()
  message(STATUS "quartermaster: Engine::CheckInvariants not implemented yet; "
                 "the fuzz targets run without it")
endif()
if(NOT QM_FUZZ_HAVE_TRACE_READER)
  message(STATUS "quartermaster: no trace reader in lib/sim yet; fuzz target `trace` left out")
endif()

if(TARGET qm_tests AND NOT TARGET qm_fuzz_targets)  # the normal build's tests only
  file(GLOB _qm_fuzz_target_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/fuzz/targets/*.cc)
  if(NOT QM_FUZZ_HAVE_TRACE_READER)
    list(FILTER _qm_fuzz_target_sources EXCLUDE REGEX "/trace_target\\.cc$")
  endif()
  add_library(qm_fuzz_targets STATIC ${_qm_fuzz_target_sources})
  target_include_directories(qm_fuzz_targets PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(qm_fuzz_targets PUBLIC quartermaster::quartermaster)
  quartermaster_set_warnings(qm_fuzz_targets)
  target_compile_definitions(qm_fuzz_targets PUBLIC ${QM_FUZZ_TARGET_DEFINITIONS})
endif()
