# Precompiled headers for the compiled libraries and the qm command (compile time, issue 26).
#
# Every unit under lib/ and tools/ parses the C++ standard library, Abseil's Status (which pulls in
# absl::Cord), fmt and the Engine's public header: about 130,000 preprocessed lines before its first
# own line. Parsing them once per target instead of once per unit saves 1-3 s per unit on the 2-core
# CI machine (docs/benchmarks.md, "Compile time"). The list holds only headers every library already
# includes, so a unit never sees a declaration it would not have seen anyway; the header
# self-containment test (cmake/quartermaster_header_tests.cmake) is built without them on purpose.
#
# The libraries share one precompiled header (they are compiled with the same flags: -fPIC, the
# same definitions and warnings); executables get their own, since they are not position
# independent. A mismatch is an error, not a silent slowdown: CMake adds -Winvalid-pch, and
# QM_WERROR makes it fatal.

set(QM_PRECOMPILED_HEADERS <string> <vector> <absl/status/statusor.h> <fmt/format.h>
    <qm/adapter/engine.h>)

# quartermaster_precompile_headers(<target> [REUSE_FROM <library>])
function(quartermaster_precompile_headers target)
  cmake_parse_arguments(PARSE_ARGV 1 _qm "" "REUSE_FROM" "")
  if(_qm_REUSE_FROM)
    target_precompile_headers(${target} REUSE_FROM ${_qm_REUSE_FROM})
  else()
    target_precompile_headers(${target} PRIVATE ${QM_PRECOMPILED_HEADERS})
  endif()
endfunction()
