# Script mode (cmake -P -DQM_SOURCE_DIR=<dir>), run by the lib.layering test: the lib/ folders,
# one library each (CMakeLists.txt), include one another's private headers only downwards:
#
#   adapter (quartermaster::engine)  <-  text  <-  hyperpod  <-  io;   text  <-  sim
#
# Private headers shared by several libraries live in lib/text, below all of them; io reaches
# hyperpod through its public headers (include/qm/hyperpod/). Public headers are not checked here:
# target_link_libraries in CMakeLists.txt decides which libraries a folder may call.
cmake_minimum_required(VERSION 3.25)
if(NOT QM_SOURCE_DIR)
  message(FATAL_ERROR "quartermaster_layering_test.cmake: QM_SOURCE_DIR is required")
endif()

# The lib/ folders each folder may include private headers from (besides its own).
set(_allowed_adapter "")
set(_allowed_text "")
set(_allowed_hyperpod text)
set(_allowed_io text)
set(_allowed_sim text)
set(_allowed_c text)

file(GLOB _folders LIST_DIRECTORIES true RELATIVE ${QM_SOURCE_DIR}/lib ${QM_SOURCE_DIR}/lib/*)
set(_errors "")
foreach(_folder IN LISTS _folders)
  if(NOT IS_DIRECTORY ${QM_SOURCE_DIR}/lib/${_folder})
    continue()
  endif()
  if(NOT DEFINED _allowed_${_folder})
    string(APPEND _errors "  lib/${_folder}/: a new folder; add it to ${CMAKE_CURRENT_LIST_FILE}\n")
    continue()
  endif()
  file(GLOB_RECURSE _files ${QM_SOURCE_DIR}/lib/${_folder}/*.cc ${QM_SOURCE_DIR}/lib/${_folder}/*.h)
  foreach(_file IN LISTS _files)
    file(STRINGS ${_file} _includes REGEX "^#include \"[a-z_]+/")
    foreach(_include IN LISTS _includes)
      string(REGEX REPLACE "^#include \"([a-z_]+)/.*" "\\1" _dir "${_include}")
      if(_dir STREQUAL _folder OR _dir IN_LIST _allowed_${_folder} OR NOT
         IS_DIRECTORY ${QM_SOURCE_DIR}/lib/${_dir})
        continue()
      endif()
      file(RELATIVE_PATH _shown ${QM_SOURCE_DIR} ${_file})
      string(APPEND _errors "  ${_shown}: ${_include} (lib/${_folder} may include lib/${_folder}")
      foreach(_ok IN LISTS _allowed_${_folder})
        string(APPEND _errors ", lib/${_ok}")
      endforeach()
      string(APPEND _errors ")\n")
    endforeach()
  endforeach()
endforeach()
if(_errors)
  message(FATAL_ERROR "private headers included against the library layering:\n${_errors}")
endif()
message(STATUS "lib/ layering: OK")
