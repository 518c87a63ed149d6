# Unity builds (QM_UNITY_BUILD, default ON): CMake compiles each target's sources in batches of
# eight, one translation unit per batch (compile time, issue 26; docs/benchmarks.md "Compile time").
#
# Most of a unit's compile time is not its own code: it is the standard library, Abseil, fmt and
# Catch2, and the engine's inline scheduler, queue and state code that every unit using the Engine
# instantiates and emits again. A batch parses and emits them once for eight files. Measured on the
# 2-core machine, the test program compiles with about a third less CPU time, and the libraries too.
#
# What it asks of the sources: names local to a file must not collide with another file's in the
# same batch. Each test file keeps its helpers in a namespace named after the file
# (qm::snapshot_test::{anonymous}); library files qualify qm::internal explicitly where a
# qm::sim::internal or qm::hyperpod::internal exists beside it.
#
# What still compiles file by file: the header self-containment test (its point is one header per
# unit), and the package.add_subdirectory test builds the embedded engine with QM_UNITY_BUILD=OFF,
# so a .cc file that relies on an include from its batch neighbour fails there.
option(QM_UNITY_BUILD "Compile each target's sources in batches (faster full builds)" ON)
if(QM_UNITY_BUILD)
  set(CMAKE_UNITY_BUILD ON)
  set(CMAKE_UNITY_BUILD_BATCH_SIZE 8)
else()
  set(CMAKE_UNITY_BUILD OFF)
endif()
