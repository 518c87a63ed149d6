# Script mode (cmake -P), run by the package.* tests (cmake/quartermaster_package_tests.cmake).
#
# QM_MODE=find_package:
#   1. `cmake --install <build> --prefix <work>/prefix`;
#   2. configure, build and run tests/package/ with CMAKE_PREFIX_PATH=<work>/prefix;
#   3. if pkg-config exists: `pkg-config --cflags --libs quartermaster` against that prefix, then
#      compile, link and run tests/package/main.cc with exactly those flags;
#   4. configure, build and run tests/package/ against the build tree (quartermaster_DIR=<build>).
#   With static libraries, the consumer of step 2 links yaml-cpp: its build commands must name it
#   (this proves the engine_only check below can see yaml-cpp when it is there).
# QM_MODE=engine_only:
#   1. `cmake --install <build> --prefix <work>/prefix`;
#   2. configure, build and run tests/package/engine/ (links quartermaster::engine alone) with
#      CMAKE_PREFIX_PATH=<work>/prefix; the commands that built it must not name yaml-cpp, nor may
#      the libraries `ldd` lists for it;
#   3. if pkg-config exists: `pkg-config --cflags --libs [--static] quartermaster-engine` must not
#      name yaml-cpp; compile, link and run tests/package/main.cc with those flags.
# QM_MODE=add_subdirectory:
#   configure, build and run tests/package/subdir/, which add_subdirectory()s the source tree.
#
# Inputs (-D): QM_MODE QM_SOURCE_DIR QM_BINARY_DIR QM_WORK_DIR QM_GENERATOR QM_MAKE_PROGRAM
# QM_C_COMPILER QM_CXX_COMPILER QM_CXX_COMPILER_LAUNCHER QM_CONFIG QM_EXTRA_FLAGS (space separated,
# e.g. sanitizer flags) QM_INSTALL_LIBDIR QM_PKG_CONFIG (empty: skip the pkg-config steps)
# QM_LIBRARY_TYPE (STATIC_LIBRARY or SHARED_LIBRARY: quartermaster::io's type).
cmake_minimum_required(VERSION 3.25)

foreach(_var QM_MODE QM_SOURCE_DIR QM_BINARY_DIR QM_WORK_DIR QM_GENERATOR QM_CXX_COMPILER)
  if(NOT DEFINED ${_var} OR "${${_var}}" STREQUAL "")
    message(FATAL_ERROR "quartermaster_package_test.cmake: ${_var} is required")
  endif()
endforeach()
if(NOT QM_CONFIG)
  set(QM_CONFIG Release)
endif()

# Runs a command; on failure prints what it ran and fails the test.

# pkg-config is installed by the README's test command: under CI=true its absence fails the test
# instead of skipping the check (a green CI run must mean every check ran).
function(qm_pkgconfig_missing)
  if("$ENV{CI}" STREQUAL "true")
    message(FATAL_ERROR "pkg-config not found, and under CI=true a missing tool fails the test "
                        "(apt-get install pkg-config)")
  endif()
  message(STATUS "---- pkg-config not found: pkg-config check skipped")
endfunction()

function(qm_run)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "WORKING_DIRECTORY" "COMMAND")
  string(JOIN " " _shown ${arg_COMMAND})
  message(STATUS "$ ${_shown}")
  if(NOT arg_WORKING_DIRECTORY)
    set(arg_WORKING_DIRECTORY ${QM_WORK_DIR})
  endif()
  execute_process(COMMAND ${arg_COMMAND} WORKING_DIRECTORY ${arg_WORKING_DIRECTORY}
                  RESULT_VARIABLE _rc COMMAND_ECHO NONE)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "command failed (${_rc}): ${_shown}")
  endif()
endfunction()

# Configures, builds and runs the consumer in `source_dir` (its executable is named `consumer`).
function(qm_build_and_run_consumer source_dir build_dir)
  # The consumers test packaging, not code generation: they keep the build type (and its NDEBUG)
  # but compile without optimisation or debug information. The add_subdirectory consumer compiles
  # the engine itself; at -O3 that made the package tests the longest CTest tests of CI.
  string(TOUPPER "${QM_CONFIG}" _config_upper)
  set(_config_flags "-O0")
  if(NOT _config_upper STREQUAL "DEBUG")
    string(APPEND _config_flags " -DNDEBUG")
  endif()
  set(_configure ${CMAKE_COMMAND} -S ${source_dir} -B ${build_dir} -G ${QM_GENERATOR}
      -DCMAKE_BUILD_TYPE=${QM_CONFIG} -DCMAKE_CXX_COMPILER=${QM_CXX_COMPILER}
      "-DCMAKE_CXX_FLAGS_${_config_upper}=${_config_flags}"
      "-DCMAKE_C_FLAGS_${_config_upper}=${_config_flags}"
      "-DCMAKE_CXX_FLAGS=${QM_EXTRA_FLAGS}" "-DCMAKE_C_FLAGS=${QM_EXTRA_FLAGS}"
      "-DCMAKE_EXE_LINKER_FLAGS=${QM_EXTRA_FLAGS}"
      -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON ${ARGN})
  if(QM_MAKE_PROGRAM)
    list(APPEND _configure -DCMAKE_MAKE_PROGRAM=${QM_MAKE_PROGRAM})
  endif()
  if(QM_C_COMPILER)
    list(APPEND _configure -DCMAKE_C_COMPILER=${QM_C_COMPILER})
  endif()
  if(QM_CXX_COMPILER_LAUNCHER)
    list(APPEND _configure -DCMAKE_CXX_COMPILER_LAUNCHER=${QM_CXX_COMPILER_LAUNCHER})
  endif()
  file(REMOVE_RECURSE ${build_dir})
  qm_run(COMMAND ${_configure})
  qm_run(COMMAND ${CMAKE_COMMAND} --build ${build_dir} --config ${QM_CONFIG})
  # Single-config generators put the executable in the build dir, multi-config ones below it.
  foreach(_candidate ${build_dir}/consumer ${build_dir}/${QM_CONFIG}/consumer)
    if(EXISTS ${_candidate})
      qm_run(COMMAND ${_candidate})
      return()
    endif()
  endforeach()
  message(FATAL_ERROR "consumer executable not found under ${build_dir}")
endfunction()

# Sets `out_var` to the commands the build in `build_dir` runs to compile and link its `consumer`
# target, as the generator wrote them (Ninja: `ninja -t commands`; Makefiles: flags.make and
# link.txt). Empty, with a message, for another generator.
function(qm_consumer_commands build_dir out_var)
  set(_commands "")
  if(QM_GENERATOR MATCHES "Ninja")
    set(_ninja ${QM_MAKE_PROGRAM})
    if(NOT _ninja)
      set(_ninja ninja)
    endif()
    execute_process(COMMAND ${_ninja} -C ${build_dir} -t commands consumer
                    RESULT_VARIABLE _rc OUTPUT_VARIABLE _commands ERROR_VARIABLE _err)
    if(NOT _rc EQUAL 0 OR _commands STREQUAL "")
      message(FATAL_ERROR "ninja -t commands consumer failed in ${build_dir}:\n${_err}")
    endif()
  elseif(QM_GENERATOR MATCHES "Makefiles")
    foreach(_file flags.make link.txt)
      file(READ ${build_dir}/CMakeFiles/consumer.dir/${_file} _text)
      string(APPEND _commands "${_text}")
    endforeach()
  else()
    message(STATUS "cannot read the build commands of a ${QM_GENERATOR} build: check skipped")
  endif()
  set(${out_var} "${_commands}" PARENT_SCOPE)
endfunction()

# `pkg-config --cflags --libs <module>` against the prefix `prefix`: compiles, links and runs
# tests/package/main.cc with exactly those flags (and an rpath to the prefix, for a shared
# library). Sets `out_var` to the flags.
function(qm_pkgconfig_build_and_run prefix module out_var)
  if(NOT QM_INSTALL_LIBDIR)
    set(QM_INSTALL_LIBDIR lib)
  endif()
  set(ENV{PKG_CONFIG_PATH} "${prefix}/${QM_INSTALL_LIBDIR}/pkgconfig")
  execute_process(COMMAND ${QM_PKG_CONFIG} --cflags --libs ${module}
                  RESULT_VARIABLE _rc OUTPUT_VARIABLE _pc_flags ERROR_VARIABLE _pc_err
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "pkg-config --cflags --libs ${module} failed:\n${_pc_err}")
  endif()
  message(STATUS "pkg-config --cflags --libs ${module}: ${_pc_flags}")
  separate_arguments(_pc_args UNIX_COMMAND "${_pc_flags}")
  separate_arguments(_extra UNIX_COMMAND "${QM_EXTRA_FLAGS}")
  set(_exe ${QM_WORK_DIR}/pkgconfig-consumer)
  file(REMOVE ${_exe})
  qm_run(COMMAND ${QM_CXX_COMPILER} -std=c++20 ${_extra} ${QM_SOURCE_DIR}/tests/package/main.cc
                 ${_pc_args} -Wl,-rpath,${prefix}/${QM_INSTALL_LIBDIR} -o ${_exe})
  qm_run(COMMAND ${_exe})
  set(${out_var} "${_pc_flags}" PARENT_SCOPE)
endfunction()

# What names yaml-cpp in a command line or an `ldd` listing: libyaml-cpp.{a,so}, -lyaml-cpp, the
# yaml-cpp include directory or CMake target.
set(_qm_yaml_regex "yaml-cpp|libyaml|-lyaml")

file(MAKE_DIRECTORY ${QM_WORK_DIR})

if(QM_MODE STREQUAL "find_package")
  set(_prefix ${QM_WORK_DIR}/prefix)
  file(REMOVE_RECURSE ${_prefix})
  qm_run(COMMAND ${CMAKE_COMMAND} --install ${QM_BINARY_DIR} --prefix ${_prefix}
                 --config ${QM_CONFIG})

  message(STATUS "---- find_package(quartermaster) from the install prefix")
  qm_build_and_run_consumer(${QM_SOURCE_DIR}/tests/package ${QM_WORK_DIR}/installed
                            -DCMAKE_PREFIX_PATH=${_prefix} -DQM_EXPECTED_DIR=${_prefix})
  if(QM_LIBRARY_TYPE STREQUAL "STATIC_LIBRARY")
    qm_consumer_commands(${QM_WORK_DIR}/installed _commands)
    if(NOT _commands STREQUAL "" AND NOT _commands MATCHES "${_qm_yaml_regex}")
      message(FATAL_ERROR "the static library's consumer links no yaml-cpp? Its build commands:\n"
                          "${_commands}")
    endif()
  endif()

  if(QM_PKG_CONFIG)
    message(STATUS "---- pkg-config quartermaster from the install prefix")
    qm_pkgconfig_build_and_run(${_prefix} quartermaster _pc_flags)
  else()
    qm_pkgconfig_missing()
  endif()

  message(STATUS "---- find_package(quartermaster) from the build tree")
  qm_build_and_run_consumer(${QM_SOURCE_DIR}/tests/package ${QM_WORK_DIR}/build-tree
                            -Dquartermaster_DIR=${QM_BINARY_DIR} -DQM_EXPECTED_DIR=${QM_BINARY_DIR})
elseif(QM_MODE STREQUAL "engine_only")
  set(_prefix ${QM_WORK_DIR}/prefix)
  file(REMOVE_RECURSE ${_prefix})
  qm_run(COMMAND ${CMAKE_COMMAND} --install ${QM_BINARY_DIR} --prefix ${_prefix}
                 --config ${QM_CONFIG})

  message(STATUS "---- find_package(quartermaster COMPONENTS engine), quartermaster::engine alone")
  set(_build ${QM_WORK_DIR}/installed)
  qm_build_and_run_consumer(${QM_SOURCE_DIR}/tests/package/engine ${_build}
                            -DCMAKE_PREFIX_PATH=${_prefix} -DQM_EXPECTED_DIR=${_prefix})
  qm_consumer_commands(${_build} _commands)
  message(STATUS "the commands that built the engine-only consumer:\n${_commands}")
  if(_commands MATCHES "${_qm_yaml_regex}")
    message(FATAL_ERROR "the engine-only consumer's build commands name yaml-cpp "
                        "(\"${CMAKE_MATCH_0}\"): quartermaster::engine must not depend on it")
  endif()
  find_program(_ldd ldd)
  if(_ldd)
    foreach(_exe ${_build}/consumer ${_build}/${QM_CONFIG}/consumer)
      if(EXISTS ${_exe})
        execute_process(COMMAND ${_ldd} ${_exe} OUTPUT_VARIABLE _ldd_out ERROR_VARIABLE _ldd_out)
        if(_ldd_out MATCHES "${_qm_yaml_regex}")
          message(FATAL_ERROR "the engine-only consumer loads yaml-cpp:\n${_ldd_out}")
        endif()
      endif()
    endforeach()
  endif()

  if(QM_PKG_CONFIG)
    message(STATUS "---- pkg-config quartermaster-engine from the install prefix")
    qm_pkgconfig_build_and_run(${_prefix} quartermaster-engine _pc_flags)
    execute_process(COMMAND ${QM_PKG_CONFIG} --cflags --libs --static quartermaster-engine
                    OUTPUT_VARIABLE _pc_static_flags OUTPUT_STRIP_TRAILING_WHITESPACE)
    message(STATUS "pkg-config --cflags --libs --static quartermaster-engine: ${_pc_static_flags}")
    if("${_pc_flags} ${_pc_static_flags}" MATCHES "${_qm_yaml_regex}")
      message(FATAL_ERROR "quartermaster-engine.pc brings yaml-cpp")
    endif()
  else()
    qm_pkgconfig_missing()
  endif()
elseif(QM_MODE STREQUAL "add_subdirectory")
  # File by file (QM_UNITY_BUILD=OFF): the main build batches sources, and this build is what
  # catches an engine .cc file that compiles only thanks to a batch neighbour's includes.
  qm_build_and_run_consumer(${QM_SOURCE_DIR}/tests/package/subdir ${QM_WORK_DIR}/build
                            -DQM_SOURCE_DIR=${QM_SOURCE_DIR} -DQM_UNITY_BUILD=OFF)
else()
  message(FATAL_ERROR "unknown QM_MODE '${QM_MODE}'")
endif()
message(STATUS "package test ${QM_MODE}: OK")
