# The package tests: a consumer project must be able to use quartermaster
#   package.find_package     after `cmake --install` into a prefix, via find_package(quartermaster)
#                            and pkg-config; and straight from this build tree (quartermaster_DIR);
#   package.engine_only      after `cmake --install`, a consumer linking only quartermaster::engine
#                            (find_package COMPONENTS engine, and pkg-config quartermaster-engine):
#                            nothing that builds it names yaml-cpp;
#   package.add_subdirectory via add_subdirectory(<source dir> EXCLUDE_FROM_ALL), building only
#                            the engine the consumer links.
# Included from the top-level CMakeLists.txt under QM_BUILD_TESTS. Each test runs
# cmake/quartermaster_package_test.cmake, which configures, builds and runs tests/package/ (or
# tests/package/subdir/, tests/package/engine/) with this build's generator, compilers, build type
# and sanitizers.

find_package(PkgConfig QUIET)  # optional: the pkg-config check is skipped without it

# Sanitizers are tree-wide, never exported: a consumer linking a sanitized static library must
# compile and link with the same flags.
list(JOIN QM_SANITIZE_FLAGS " " _qm_package_flags)

set(_qm_package_args
  -DQM_SOURCE_DIR=${PROJECT_SOURCE_DIR}
  -DQM_BINARY_DIR=${PROJECT_BINARY_DIR}
  -DQM_GENERATOR=${CMAKE_GENERATOR}
  -DQM_MAKE_PROGRAM=${CMAKE_MAKE_PROGRAM}
  -DQM_C_COMPILER=${CMAKE_C_COMPILER}
  -DQM_CXX_COMPILER=${CMAKE_CXX_COMPILER}
  -DQM_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER}
  -DQM_CONFIG=$<CONFIG>
  "-DQM_EXTRA_FLAGS=${_qm_package_flags}"
  -DQM_INSTALL_LIBDIR=${CMAKE_INSTALL_LIBDIR}
  -DQM_PKG_CONFIG=${PKG_CONFIG_EXECUTABLE}
  -DQM_LIBRARY_TYPE=$<TARGET_PROPERTY:quartermaster_io,TYPE>)

if(QM_INSTALL)
  add_test(NAME package.find_package
           COMMAND ${CMAKE_COMMAND} -DQM_MODE=find_package
                   -DQM_WORK_DIR=${PROJECT_BINARY_DIR}/package-test/find_package
                   ${_qm_package_args} -P ${PROJECT_SOURCE_DIR}/cmake/quartermaster_package_test.cmake)
  set_tests_properties(package.find_package PROPERTIES LABELS "package" TIMEOUT 900 COST 300)
  add_test(NAME package.engine_only
           COMMAND ${CMAKE_COMMAND} -DQM_MODE=engine_only
                   -DQM_WORK_DIR=${PROJECT_BINARY_DIR}/package-test/engine_only
                   ${_qm_package_args} -P ${PROJECT_SOURCE_DIR}/cmake/quartermaster_package_test.cmake)
  set_tests_properties(package.engine_only PROPERTIES LABELS "package" TIMEOUT 900)
endif()

add_test(NAME package.add_subdirectory
         COMMAND ${CMAKE_COMMAND} -DQM_MODE=add_subdirectory
                 -DQM_WORK_DIR=${PROJECT_BINARY_DIR}/package-test/add_subdirectory
                 ${_qm_package_args} -P ${PROJECT_SOURCE_DIR}/cmake/quartermaster_package_test.cmake)
# COST: with examples.sim-thrash, the longest tests of the Release pass; CTest starts them first.
set_tests_properties(package.add_subdirectory PROPERTIES LABELS "package" TIMEOUT 900 COST 800)
