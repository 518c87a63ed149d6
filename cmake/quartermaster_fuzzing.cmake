# QM_FUZZ: the libFuzzer build (fuzz/, docs/fuzzing.md). Every target of the tree is compiled with
# libFuzzer's coverage instrumentation plus ASan and UBSan, so a bug deep in the library is found
# and reported where it happens, not only where a harness notices; only the harnesses link
# libFuzzer's main (-fsanitize=fuzzer, in fuzz/CMakeLists.txt). libFuzzer ships with clang alone
# (Debian 12: packages clang and libclang-rt-14-dev).
if(QM_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "QM_FUZZ=ON needs clang (libFuzzer); configure with "
                        "-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ "
                        "(this build uses ${CMAKE_CXX_COMPILER_ID})")
  endif()
  if(QM_SANITIZE)
    message(FATAL_ERROR "QM_FUZZ=ON already sets address and undefined; leave QM_SANITIZE empty")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
  message(STATUS "quartermaster: libFuzzer build (fuzzer-no-link, address, undefined)")
endif()
