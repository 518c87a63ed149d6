# quartermaster_set_warnings(target): our warning flags, set PRIVATE per target (as abseil's
# GENERATED_AbseilCopts.cmake does) so consumers never inherit them. `-Werror` under QM_WERROR.
# No -Wconversion: the code base is not written for it.
function(quartermaster_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow
                                           $<$<COMPILE_LANGUAGE:CXX>:-Wnon-virtual-dtor>)
  if(QM_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
