# The pkg-config files, one per compiled library plus the umbrella:
#   quartermaster.pc           `pkg-config --cflags --libs quartermaster`: the whole library
#   quartermaster-engine.pc    qm::Engine alone (no yaml-cpp)
#   quartermaster-text.pc, quartermaster-hyperpod.pc, quartermaster-io.pc, quartermaster-sim.pc
# Included from the top-level CMakeLists.txt under QM_INSTALL, after the library targets,
# QM_LIBRARIES and QM_ABSL_COMPONENTS exist.
#
# Requires names the Debian 12 pkg-config modules of each link interface: one `absl_<name>` per
# QM_ABSL_COMPONENTS entry and `fmt` (quartermaster::core's), our own modules, and `yaml-cpp`.
# Boost ships no .pc file; Boost.Container is used header-only from the default include path.
# A library's PUBLIC dependencies go in Requires; its PRIVATE ones (yaml-cpp, and e.g. the text
# layer below hyperpod) must be on every link line of a static library, so they go in Requires
# too, and in Requires.private for a shared one. Keep the lists below in step with the
# target_link_libraries calls in CMakeLists.txt.
#
# The files are relocatable: `prefix` is computed from `${pcfiledir}`, so `cmake --install --prefix
# <dir>` yields working .pc files whatever CMAKE_INSTALL_PREFIX was at configure time.

list(TRANSFORM QM_ABSL_COMPONENTS PREPEND absl_ OUTPUT_VARIABLE _qm_pc_core)
list(APPEND _qm_pc_core fmt)

# Each library's PUBLIC and PRIVATE requirements.
set(_qm_pc_engine_public   ${_qm_pc_core})
set(_qm_pc_engine_private  "")
set(_qm_pc_text_public     quartermaster-engine)
set(_qm_pc_text_private    yaml-cpp)
set(_qm_pc_hyperpod_public quartermaster-engine)
set(_qm_pc_hyperpod_private quartermaster-text yaml-cpp)
set(_qm_pc_io_public       quartermaster-hyperpod quartermaster-text quartermaster-engine)
set(_qm_pc_io_private      yaml-cpp)
set(_qm_pc_sim_public      ${_qm_pc_core})
set(_qm_pc_sim_private     quartermaster-io quartermaster-hyperpod quartermaster-engine
                           quartermaster-text yaml-cpp)

set(QM_PKGCONFIG_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(QM_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(QM_PC_LIBDIR "${CMAKE_INSTALL_FULL_LIBDIR}")
  set(QM_PC_INCLUDEDIR "${CMAKE_INSTALL_FULL_INCLUDEDIR}")
else()
  file(RELATIVE_PATH _qm_pc_up "/qm/${QM_PKGCONFIG_DIR}" "/qm")
  string(REGEX REPLACE "/$" "" _qm_pc_up "${_qm_pc_up}")  # "../.."
  set(QM_PC_PREFIX "\${pcfiledir}/${_qm_pc_up}")
  set(QM_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
  set(QM_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()

# Writes and installs <module>.pc from quartermaster.pc.in.
function(_qm_write_pc module description libs requires requires_private)
  set(QM_PC_NAME ${module})
  set(QM_PC_DESCRIPTION "${description}")
  set(QM_PC_LIBS "${libs}")
  list(JOIN requires ", " QM_PC_REQUIRES)
  list(JOIN requires_private ", " QM_PC_REQUIRES_PRIVATE)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/quartermaster.pc.in
                 ${PROJECT_BINARY_DIR}/${module}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${module}.pc DESTINATION ${QM_PKGCONFIG_DIR})
endfunction()

foreach(_name IN LISTS QM_LIBRARIES)
  set(_requires ${_qm_pc_${_name}_public})
  set(_requires_private "")
  get_target_property(_type quartermaster_${_name} TYPE)
  if(_type STREQUAL "STATIC_LIBRARY")
    list(APPEND _requires ${_qm_pc_${_name}_private})
  else()
    list(APPEND _requires_private ${_qm_pc_${_name}_private})
  endif()
  _qm_write_pc(quartermaster-${_name} "${PROJECT_DESCRIPTION}: quartermaster::${_name}"
               "-L\${libdir} -lquartermaster_${_name}" "${_requires}" "${_requires_private}")
endforeach()

# The umbrella: every library, no library file of its own.
list(TRANSFORM QM_LIBRARIES PREPEND quartermaster- OUTPUT_VARIABLE _qm_pc_all)
_qm_write_pc(quartermaster "${PROJECT_DESCRIPTION}" "" "${_qm_pc_all}" "")
