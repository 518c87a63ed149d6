# quartermaster_set_warnings(target): our warning flags, set PRIVATE per target (as abseil's
# GENERATED_AbseilCopts.cmake does) so consumers never inherit them. `-Werror` under QM_WERROR.
# No -Wconversion: the code base is not written for it.
function(quartermaster_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow
                                           $<$<COMPILE_LANGUAGE:CXX>:-Wnon-virtual-dtor>)
  # GCC 12's -O3 flow analysis reports impossible memcpy sizes inside boost::container::small_vector
  # (GCC bug 105705 family), and -Wrestrict inside std::string concatenation (GCC bug 105329); both
  # fire in library headers, not in our code.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -Wno-stringop-overread -Wno-stringop-overflow -Wno-restrict
                                             -Wno-array-bounds)
  endif()
  if(QM_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
