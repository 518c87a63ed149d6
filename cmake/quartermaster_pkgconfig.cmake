# quartermaster.pc: `pkg-config --cflags --libs quartermaster`. Included from the top-level
# CMakeLists.txt under QM_INSTALL, after the `quartermaster` target and QM_ABSL_COMPONENTS exist.
#
# Requires names the Debian 12 pkg-config modules of the link interface: one `absl_<name>` per
# QM_ABSL_COMPONENTS entry, `fmt`, and `yaml-cpp`. Boost ships no .pc file; Boost.Container is used
# header-only from the default include path. yaml-cpp is private to the library: a static
# quartermaster needs it on every link line, so it goes in Requires; a shared one only in
# Requires.private.
#
# The file is relocatable: `prefix` is computed from `${pcfiledir}`, so `cmake --install --prefix
# <dir>` yields a working .pc file whatever CMAKE_INSTALL_PREFIX was at configure time.

list(TRANSFORM QM_ABSL_COMPONENTS PREPEND absl_ OUTPUT_VARIABLE _qm_pc_absl)
set(_qm_pc_requires ${_qm_pc_absl} fmt)
set(_qm_pc_requires_private "")
get_target_property(_qm_pc_type quartermaster TYPE)
if(_qm_pc_type STREQUAL "STATIC_LIBRARY")
  list(APPEND _qm_pc_requires yaml-cpp)
else()
  list(APPEND _qm_pc_requires_private yaml-cpp)
endif()
list(JOIN _qm_pc_requires ", " QM_PC_REQUIRES)
list(JOIN _qm_pc_requires_private ", " QM_PC_REQUIRES_PRIVATE)

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

configure_file(${CMAKE_CURRENT_LIST_DIR}/quartermaster.pc.in
               ${PROJECT_BINARY_DIR}/quartermaster.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/quartermaster.pc DESTINATION ${QM_PKGCONFIG_DIR})
