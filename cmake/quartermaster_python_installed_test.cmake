# The python.wheel test: builds the wheel as the `quartermaster_wheel` target does, installs it
# into a fresh virtual environment with pip (no index), and runs the Python tests against the
# installed package, not the build tree's copy. Script mode:
#   cmake -DPYTHON= -DSOURCE= -DLIBRARY= -DVERSION= -DWORK=<scratch> -DTESTS=<python/tests>
#         -DTEST_DATA=<repo>/tests -P this-file
# The environment sees the system's site-packages (pytest, Dask and pandas from Debian); the
# package itself must come from the environment, which the test checks.
cmake_minimum_required(VERSION 3.25)  # script mode: today's policies (list keeps empty elements)
set(STAGE ${WORK}/stage)
set(DIST ${WORK}/dist)
include(${CMAKE_CURRENT_LIST_DIR}/quartermaster_python_wheel.cmake)
file(GLOB _wheel ${DIST}/quartermaster-${VERSION}-*.whl)
if(NOT _wheel MATCHES "linux_")
  message(FATAL_ERROR "the wheel carries a library and must be platform-tagged: ${_wheel}")
endif()

set(venv ${WORK}/venv)
file(REMOVE_RECURSE ${venv})
execute_process(COMMAND ${PYTHON} -m venv --system-site-packages ${venv} RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "python3 -m venv failed (${rc}; apt-get install python3-venv):\n${err}")
endif()
set(vpy ${venv}/bin/python)
execute_process(COMMAND ${vpy} -m pip install --no-index --no-deps ${_wheel}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pip install of ${_wheel} failed (${rc}):\n${out}\n${err}")
endif()

# From outside the source tree, with no PYTHONPATH: the package and its library are the venv's.
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=PYTHONPATH --unset=QM_C_LIBRARY
                        ${vpy} -c "import quartermaster, quartermaster._lib as l, sys; print(quartermaster.__file__); print(l.lib()._name); print(quartermaster.__version__)"
                WORKING_DIRECTORY ${WORK} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the installed package does not import (${rc}):\n${out}\n${err}")
endif()
string(REPLACE "\n" ";" lines "${out}")
list(GET lines 0 module)
list(GET lines 1 library)
list(GET lines 2 version)
if(NOT module MATCHES "^${venv}/" OR NOT library MATCHES "^${venv}/")
  message(FATAL_ERROR "imported from outside the virtual environment: ${module}, ${library}")
endif()
if(NOT version STREQUAL VERSION)
  message(FATAL_ERROR "the installed library says version ${version}, the project is ${VERSION}")
endif()

execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=PYTHONPATH --unset=QM_C_LIBRARY
                        QM_TEST_DATA=${TEST_DATA}
                        ${vpy} -m pytest -q -p no:cacheprovider ${TESTS}
                WORKING_DIRECTORY ${TESTS} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the Python tests failed against the installed package (${rc})")
endif()
