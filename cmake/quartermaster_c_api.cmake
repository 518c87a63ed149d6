# quartermaster::c: the C API as libquartermaster_c.so (include/qm/c/quartermaster.h, lib/c/,
# docs/c-api.md). Included from the top-level CMakeLists.txt after the C++ libraries exist.
#
# The shared library links the static C++ libraries PRIVATE, so they are compiled as
# position-independent code. Only the `qm_` functions are exported: the sources are compiled with
# hidden visibility (QM_C_EXPORT marks the API), and a linker version script hides everything the
# static libraries, Abseil's and the standard library's inline code would otherwise export (the
# c_api.exported_symbols test checks the result with `nm -D`).

# The sources are compiled once, as an object library: the shared library is made of these
# objects, and the C wrapper's own test (tests/c, qm_c_internal_test) links the same objects
# instead of compiling lib/c a second time (that was 7 of the slowest units, twice per CI run).
file(GLOB _qm_c_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/lib/c/*.cc)
add_library(quartermaster_c_objects OBJECT ${_qm_c_sources})
set_target_properties(quartermaster_c_objects PROPERTIES
  POSITION_INDEPENDENT_CODE ON
  C_VISIBILITY_PRESET hidden
  CXX_VISIBILITY_PRESET hidden
  VISIBILITY_INLINES_HIDDEN ON)
target_compile_definitions(quartermaster_c_objects PRIVATE QM_C_BUILDING)
target_include_directories(quartermaster_c_objects PRIVATE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/lib)
# For their include directories and definitions only: the objects are linked by their users.
target_link_libraries(quartermaster_c_objects PRIVATE quartermaster_io quartermaster_hyperpod
                      quartermaster_sim quartermaster_text quartermaster_engine)
quartermaster_set_warnings(quartermaster_c_objects)

add_library(quartermaster_c SHARED $<TARGET_OBJECTS:quartermaster_c_objects>)
add_library(quartermaster::c ALIAS quartermaster_c)
set_target_properties(quartermaster_c PROPERTIES
  EXPORT_NAME c
  OUTPUT_NAME quartermaster_c
  VERSION ${PROJECT_VERSION}
  SOVERSION 1
  C_VISIBILITY_PRESET hidden
  CXX_VISIBILITY_PRESET hidden
  VISIBILITY_INLINES_HIDDEN ON
  LINKER_LANGUAGE CXX)
set_target_properties(quartermaster_engine quartermaster_text quartermaster_hyperpod quartermaster_io
                      quartermaster_sim PROPERTIES POSITION_INDEPENDENT_CODE ON)
target_include_directories(quartermaster_c
  PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
         $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_link_libraries(quartermaster_c PRIVATE quartermaster_io quartermaster_hyperpod
                      quartermaster_sim quartermaster_text quartermaster_engine)
set(_qm_c_version_script ${PROJECT_SOURCE_DIR}/lib/c/exports.map)
target_link_options(quartermaster_c PRIVATE "LINKER:--version-script=${_qm_c_version_script}"
                    "LINKER:--no-undefined")
set_property(TARGET quartermaster_c APPEND PROPERTY LINK_DEPENDS ${_qm_c_version_script})

# qm_simulate needs the simulator library (linked above): qm_has_simulator() says whether this
# build has it; a build without the target answers QM_UNIMPLEMENTED.
if(TARGET quartermaster_sim)
  target_compile_definitions(quartermaster_c_objects PRIVATE QM_C_HAVE_SIMULATOR)
else()
  message(STATUS "quartermaster::c: no quartermaster_sim target; qm_simulate reports UNIMPLEMENTED")
endif()

# quartermaster-c.pc: a shared library that carries its dependencies, so no Requires. Relocatable
# like the other .pc files (cmake/quartermaster_pkgconfig.cmake): prefix from ${pcfiledir}.
if(QM_INSTALL)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
    set(QM_PC_C_PREFIX "${CMAKE_INSTALL_PREFIX}")
    set(QM_PC_C_LIBDIR "${CMAKE_INSTALL_FULL_LIBDIR}")
    set(QM_PC_C_INCLUDEDIR "${CMAKE_INSTALL_FULL_INCLUDEDIR}")
  else()
    file(RELATIVE_PATH _qm_pc_c_up "/qm/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/qm")
    string(REGEX REPLACE "/$" "" _qm_pc_c_up "${_qm_pc_c_up}")
    set(QM_PC_C_PREFIX "\${pcfiledir}/${_qm_pc_c_up}")
    set(QM_PC_C_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
    set(QM_PC_C_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
  endif()
  configure_file(${PROJECT_SOURCE_DIR}/cmake/quartermaster-c.pc.in
                 ${PROJECT_BINARY_DIR}/quartermaster-c.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/quartermaster-c.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()

# ---- The Python package (python/quartermaster), copied into <build>/python ------------------------
set(QM_PYTHON_BUILD_DIR ${PROJECT_BINARY_DIR}/python)
file(GLOB _qm_py_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/python/quartermaster/*)
set(_qm_py_outputs "")
foreach(_src IN LISTS _qm_py_sources)
  get_filename_component(_name ${_src} NAME)
  set(_out ${QM_PYTHON_BUILD_DIR}/quartermaster/${_name})
  add_custom_command(OUTPUT ${_out} COMMAND ${CMAKE_COMMAND} -E copy_if_different ${_src} ${_out}
                     DEPENDS ${_src} COMMENT "python/quartermaster/${_name}" VERBATIM)
  list(APPEND _qm_py_outputs ${_out})
endforeach()
# Where the build tree's library is, for quartermaster/_lib.py (QM_C_LIBRARY overrides it).
file(GENERATE OUTPUT ${QM_PYTHON_BUILD_DIR}/quartermaster/_build_info.py CONTENT
"# Generated by cmake/quartermaster_c_api.cmake: the library this build tree made.
VERSION = \"${PROJECT_VERSION}\"
LIBRARY_PATH = \"$<TARGET_FILE:quartermaster_c>\"
")
add_custom_target(quartermaster_python ALL DEPENDS ${_qm_py_outputs} quartermaster_c)
