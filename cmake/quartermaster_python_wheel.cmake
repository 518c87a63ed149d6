# Builds the Python wheel with libquartermaster_c.so inside the package (docs/python.md,
# "Installing"). Script mode, called by the `quartermaster_wheel` target and by the python.wheel
# test, so that the test installs exactly what the target makes:
#   cmake -DPYTHON=<python3> -DSOURCE=<repo>/python -DLIBRARY=<libquartermaster_c.so>
#         -DVERSION=<project version> -DSTAGE=<scratch dir> -DDIST=<wheel dir> -P this-file
# No network: pip runs with --no-index and without build isolation, using the interpreter's own
# setuptools and wheel (Debian: python3-pip brings both).
cmake_minimum_required(VERSION 3.25)
foreach(var PYTHON SOURCE LIBRARY VERSION STAGE DIST)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "quartermaster_python_wheel.cmake: -D${var}= is required")
  endif()
endforeach()

# The package's version is written once in pyproject.toml; it must be the project's.
file(STRINGS ${SOURCE}/pyproject.toml _version_line REGEX "^version = ")
if(NOT _version_line STREQUAL "version = \"${VERSION}\"")
  message(FATAL_ERROR "python/pyproject.toml has '${_version_line}', the project is ${VERSION}")
endif()

file(REMOVE_RECURSE ${STAGE})
file(MAKE_DIRECTORY ${STAGE}/quartermaster ${DIST})
file(COPY ${SOURCE}/pyproject.toml ${SOURCE}/setup.py ${SOURCE}/README.md DESTINATION ${STAGE})
file(GLOB _sources ${SOURCE}/quartermaster/*.py ${SOURCE}/quartermaster/py.typed)
file(COPY ${_sources} DESTINATION ${STAGE}/quartermaster)
# The library under its plain name, found first by quartermaster/_lib.py (next to the package).
file(COPY_FILE ${LIBRARY} ${STAGE}/quartermaster/libquartermaster_c.so)

file(GLOB _old ${DIST}/quartermaster-${VERSION}-*.whl)
if(_old)
  file(REMOVE ${_old})
endif()
execute_process(COMMAND ${PYTHON} -m pip wheel --no-index --no-build-isolation --no-deps
                        --wheel-dir ${DIST} ${STAGE}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pip wheel failed (${rc}):\n${out}\n${err}")
endif()
file(GLOB _wheel ${DIST}/quartermaster-${VERSION}-*.whl)
message(STATUS "wheel: ${_wheel}")
