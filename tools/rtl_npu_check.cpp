#include "rtl_npu_check.h"

#include <iostream>
#include <sstream>

#include "systole/isa/diagnostic.h"
#ifdef SYSTOLE_HAVE_RTL_COSIM
#include "systole/rtl/npu.h"
#endif

namespace systole::tools {

bool compareOnRtlNpu(const isa::IsaConfig& config, const isa::Program& program,
                     const std::map<std::string, std::vector<uint8_t>>& inputs, const sim::SimResult& simulated,
                     const std::string& prefix) {
#ifdef SYSTOLE_HAVE_RTL_COSIM
  const rtl::NpuRun run = rtl::runRtlNpu(config, program.code, rtl::programImage(program, inputs));
  const auto instructions = isa::decodeAll(config, program.code);
  const rtl::NpuComparison c = rtl::compareWithSimulator(config, instructions, run, simulated);
  std::string report = c.report;
  if (run.fault) report += "RTL NPU fault: an unknown opcode or a token FIFO overflow\n";
  if (run.timed_out) report += "RTL NPU did not finish\n";
  bool agree = c.same_instruction_cycles && c.same_stall_cycles && c.cycles_difference == 0 && c.same_outputs &&
               !run.fault && !run.timed_out && !run.write_conflict && run.dram_fault.empty();
  for (double d : c.busy_difference) agree = agree && d == 0;
  report += agree ? std::string(
                        "RTL NPU agrees with the simulator: every instruction's cycles, the total, busy and "
                        "stall cycles") +
                        (c.outputs_compared ? ", the outputs\n" : "\n")
                  : "RTL NPU DIFFERS from the simulator\n";
  std::istringstream lines(report);
  for (std::string line; std::getline(lines, line);) std::cout << prefix << line << "\n";
  return agree;
#else
  (void)config, (void)program, (void)inputs, (void)simulated, (void)prefix;
  throw Error("--rtl: this systole was built without Verilator (no RTL co-simulation)");
#endif
}

}  // namespace systole::tools
