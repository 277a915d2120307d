# cmake -DBUILT=V.cmake -DCONFIGURED=V_copy.cmake -P check_file_list.cmake
# Fails if the Verilator run of this build wrote a different list of C++ files than the one CMake
# configured the target with (the list verilate() learned at configure time, possibly from the
# bootstrap placeholder package). Not expected with the flags in tests/rtl/CMakeLists.txt.
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${BUILT} ${CONFIGURED} RESULT_VARIABLE differ)
if(differ)
  message(FATAL_ERROR "Verilator's list of generated files changed since CMake configured this target "
                      "(${BUILT} differs from ${CONFIGURED}). Re-run cmake; if this repeats, the "
                      "Verilator flags no longer make the list independent of the package values.")
endif()
