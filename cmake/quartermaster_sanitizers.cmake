# Sanitizers for the whole build tree, from QM_SANITIZE (e.g. "address;undefined"). Set tree-wide
# with add_compile_options/add_link_options (simgrid tools/cmake/Option.cmake), never on a target's
# INTERFACE, so consumers never inherit them; a consumer that links a sanitized static quartermaster
# must pass the same -fsanitize flags itself (the package tests do).
if(QM_SANITIZE)
  string(REPLACE "," ";" _qm_san_list "${QM_SANITIZE}")  # "address,undefined" works too
  foreach(_qm_san IN LISTS _qm_san_list)
    if(NOT _qm_san MATCHES "^(address|undefined|leak|thread)$")
      message(FATAL_ERROR "QM_SANITIZE: unknown sanitizer '${_qm_san}' "
                          "(expected address, undefined, leak or thread)")
    endif()
  endforeach()
  if("thread" IN_LIST _qm_san_list AND
     ("address" IN_LIST _qm_san_list OR "leak" IN_LIST _qm_san_list))
    message(FATAL_ERROR "QM_SANITIZE: thread cannot be combined with address or leak")
  endif()
  string(REPLACE ";" "," _qm_sanitizers "${_qm_san_list}")
  # Also what the package tests hand to their consumer builds.
  set(QM_SANITIZE_FLAGS -fsanitize=${_qm_sanitizers} -fno-omit-frame-pointer)
  add_compile_options(${QM_SANITIZE_FLAGS} -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${_qm_sanitizers})
  # Sanitizer reports need file:line and function names in their stack traces, not variables:
  # debug level 1 gives exactly that (it comes after the build type's -g, so it wins) and compiles
  # about 15 % faster (measured on tests/adapter/snapshot_test.cc: 25.2 s → 21.4 s user, GCC 12).
  # Set QM_SANITIZE_DEBUG_LEVEL to 2 (or empty: the build type's own) to debug in a sanitized build.
  set(QM_SANITIZE_DEBUG_LEVEL "1" CACHE STRING "-g level of sanitized builds (empty: the build type's)")
  if(NOT QM_SANITIZE_DEBUG_LEVEL STREQUAL "")
    add_compile_options(-g${QM_SANITIZE_DEBUG_LEVEL})
  endif()
  message(STATUS "quartermaster: sanitizers ${_qm_sanitizers}")
endif()
