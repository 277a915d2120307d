# The Verilator setup shared by the co-simulation library (rtl/cosim) and the RTL checks
# (tests/rtl): included from the top-level CMakeLists.txt so both folders see it. Sets
# verilator_FOUND (nothing else is defined without Verilator), verilator_args,
# verilated_cxx_flags and the library systole_verilated_runtime.
find_package(verilator HINTS $ENV{VERILATOR_ROOT} /usr/share/verilator)
if(NOT verilator_FOUND)
  message(STATUS "Verilator not found: RTL checks and co-simulation are not built")
  return()
endif()
find_package(Threads REQUIRED)

# Verilator flags. Warnings are errors (-Wall, fatal by default); the assertions are compiled in;
# registers without reset start random (the harness seeds them) so nothing relies on power-up
# values. The last three flags keep the list of generated C++ files independent of the package's
# values (no size-dependent file splitting, every module inlined): verilate() learns that list at
# configure time from the bootstrap placeholder package (see rtl/CMakeLists.txt).
set(verilator_args -Wall --assert --x-initial unique
                   --output-split 0 --output-split-cfuncs 0 --inline-mult -1)
# Verilated C++ is compiled quickly and without warnings (they are Verilator's, not ours); -O1
# compiles the 32x32 array about 1.5x faster than -Os and runs fast enough.
set(verilated_cxx_flags -O1 -g0 -w)

# The Verilator runtime, compiled once for all models (verilate() would compile it into each).
add_library(systole_verilated_runtime STATIC
  ${VERILATOR_ROOT}/include/verilated.cpp
  ${VERILATOR_ROOT}/include/verilated_threads.cpp)
target_include_directories(systole_verilated_runtime SYSTEM PUBLIC
  ${VERILATOR_ROOT}/include ${VERILATOR_ROOT}/include/vltstd)
target_compile_definitions(systole_verilated_runtime PRIVATE
  VM_COVERAGE=0 VM_SC=0 VM_TRACE=0 VM_TRACE_VCD=0 VM_TRACE_FST=0)
target_compile_options(systole_verilated_runtime PRIVATE ${verilated_cxx_flags})
target_link_libraries(systole_verilated_runtime PUBLIC Threads::Threads)

