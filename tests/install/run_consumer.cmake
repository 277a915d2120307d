# The installed package end to end (ctest label `install`): installs the build tree into a fresh
# prefix, builds tests/install/consumer against it with find_package(Systole), installs the
# consumer beside the `systole` tool, and runs both with SYSTOLE_CONFIG_DIR unset, so the shipped
# configs are found relative to the install; then SYSTOLE_CONFIG_DIR must override that. A Python
# script does the same through the installed `systole` package.
# -D: BUILD_DIR (Systole's build tree), CONSUMER (the consumer's sources), WORK (a scratch
# directory), MODEL (an ONNX model), CXX (the C++ compiler), PYTHON (the interpreter),
# PYTHON_DIR (the package's directory relative to the prefix).
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "failed (${status}): ${ARGN}\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK})
set(prefix ${WORK}/prefix)
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
run(${CMAKE_COMMAND} -S ${CONSUMER} -B ${WORK}/build -G Ninja -DCMAKE_CXX_COMPILER=${CXX}
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_INSTALL_PREFIX=${prefix})
run(${CMAKE_COMMAND} --build ${WORK}/build -j 2)
run(${CMAKE_COMMAND} --install ${WORK}/build)

unset(ENV{SYSTOLE_CONFIG_DIR})
run(${prefix}/bin/classify ${MODEL} tiny)
message(STATUS "${out}")
if(NOT out MATCHES "cycles on 'tiny'.*bit for bit")
  message(FATAL_ERROR "the consumer did not run the model on the shipped config 'tiny':\n${out}")
endif()
run(${prefix}/bin/systole isa check tiny)

set(ENV{PYTHONPATH} ${prefix}/${PYTHON_DIR})
set(ENV{XDG_CACHE_HOME} ${WORK}/cache)
run(${PYTHON} ${CONSUMER}/classify.py ${MODEL} tiny)
message(STATUS "${out}")
if(NOT out MATCHES "cycles on 'tiny'.*bit for bit.*${prefix}")
  message(FATAL_ERROR "the installed Python package did not run the model on the installed config 'tiny':\n${out}")
endif()
run(${PYTHON} ${CONSUMER}/classify.py ${MODEL} tiny)
if(NOT out MATCHES "from the compile cache")
  message(FATAL_ERROR "the second Python run did not reuse the compiled artifact:\n${out}")
endif()

set(ENV{SYSTOLE_CONFIG_DIR} ${WORK}/nowhere)
execute_process(COMMAND ${prefix}/bin/classify ${MODEL} tiny RESULT_VARIABLE status ERROR_VARIABLE err)
if(status EQUAL 0 OR NOT err MATCHES "nowhere/tiny.yaml")
  message(FATAL_ERROR "SYSTOLE_CONFIG_DIR did not override the installed configs (${status}): ${err}")
endif()
