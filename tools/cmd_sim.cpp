// systole sim: run a .sbin program on the simulated NPU; print cycles and utilization, write
// outputs (.npy), statistics (JSON) and a timeline trace (Chrome/Perfetto JSON). A compiled model
// (.sbin version 2, from `systole compile -o`) runs end to end, float inputs and outputs by their
// ONNX names, as `systole run` runs it.
#include <iostream>
#include <memory>

#include "commands.h"
#include "systole/isa/file_io.h"
#include "systole/isa/shipped_configs.h"
#include "systole/sim/energy.h"
#include "systole/sim/simulator.h"
#include "rtl_npu_check.h"
#include "tensor_io.h"
#ifdef SYSTOLE_HAVE_RTL_COSIM
#include "systole/rtl/cosim.h"
#endif

namespace systole::tools {

namespace {

/// The Verilated array for --rtl=array, else null.
std::unique_ptr<sim::ArrayBackend> makeRtlArray(const isa::IsaConfig& config, const std::string& rtl,
                                                const std::string& vcd) {
  if (rtl != "array") return nullptr;
#ifdef SYSTOLE_HAVE_RTL_COSIM
  return rtl::makeRtlArray(config, {.vcd = vcd});
#else
  (void)config, (void)vcd;
  throw Error("--rtl: this systole was built without Verilator (no RTL co-simulation)");
#endif
}

}  // namespace

void registerSim(CLI::App& app, std::vector<std::pair<CLI::App*, Action>>& actions) {
  struct SimArgs {
    std::string program, isa, outputDir, stats, trace, rtl, vcd;
    std::vector<std::string> inputs;
    bool timingOnly = false, poison = false, races = false, quiet = false;
    uint64_t seed = 1;
  };
  static SimArgs a;
  auto* cmd = app.add_subcommand(
      "sim", "Run a .sbin program on the cycle-approximate SystemC simulator (exit 1 on a simulation fault)");
  cmd->add_option("PROG", a.program, ".sbin program")->required();
  cmd->add_option("--isa", a.isa, "ISA config (default: the shipped config the program names)");
  addSetOption(*cmd);
  cmd->add_option("--input", a.inputs, "NAME=FILE.npy for an input tensor (others get seeded random values)");
  cmd->add_option("--seed", a.seed, "seed for random inputs")->default_val(1);
  cmd->add_option("--output-dir", a.outputDir,
                  "write each output tensor as DIR/NAME.npy (in NAME, characters other than letters, digits, '_', '-' "
                  "and '.' become '_': Identity:0 is DIR/Identity_0.npy)");
  cmd->add_option("--stats", a.stats, "write statistics as JSON");
  cmd->add_option("--trace", a.trace, "write a Chrome/Perfetto trace-event JSON timeline");
  cmd->add_flag("--timing-only", a.timingOnly, "compute cycles and statistics without moving or computing data");
  cmd->add_flag("--poison", a.poison, "fault on reads of scratchpad/accumulator rows never written");
  cmd->add_flag("--races", a.races,
                "fault if two queues' accesses to a scratchpad or accumulator row are not ordered by tokens");
  cmd->add_flag("-q,--quiet", a.quiet, "print nothing on success");
  cmd->add_option(
         "--rtl", a.rtl,
         "co-simulate: `array` runs weight_preload, matmul_tile, matmul_stream and depthwise_tile on the Verilated RTL "
         "array; `npu` also runs the program on the whole Verilated NPU (rtl/npu: control, timing, DMA, the "
         "vector unit and the array) and compares every instruction's start and completion "
         "cycle with the "
         "simulator's, and the outputs when the RTL computed every instruction (exit 1 if any differs)")
      ->check(CLI::IsMember({"array", "npu"}));
  cmd->add_option("--vcd", a.vcd, "with --rtl: write the RTL array's waveform (VCD)");
  actions.emplace_back(cmd, [] {
    if (isa::sbinVersion(readFileStart(a.program, isa::kSbinHeaderBytes), a.program) == isa::kModelSbinVersion) {
      if (a.rtl == "array" || a.poison)
        throw Error("--rtl=array and --poison take a single program (.sbin version 1), not a compiled model");
      return runCompiledModel(
          {a.program, a.isa, a.outputDir, a.stats, a.trace, a.inputs, a.seed, a.timingOnly, a.races, a.rtl == "npu"});
    }
    const auto program = isa::readSbin(a.program);
    const auto config = loadConfig(a.isa.empty() ? isa::shippedConfigPath(program.isa_name, a.program) : a.isa);
    isa::checkProgramMatches(program, config, a.program);
    const auto inputs = bindInputs(program, a.inputs, a.seed);
    sim::Simulator simulator(config);
    sim::SimOptions options;
    options.timing_only = a.timingOnly;
    options.poison = a.poison;
    options.races = a.races;
    options.trace = !a.trace.empty();
    options.timeline = a.rtl == "npu";
    if (!a.vcd.empty() && a.rtl != "array") throw Error("--vcd needs --rtl=array");
    const auto rtlArray = makeRtlArray(config, a.rtl, a.vcd);
    options.array = rtlArray.get();
    sim::SimResult result;
    try {
      result = simulator.run(program, inputs, options);
    } catch (const sim::Fault& f) {
      std::cerr << a.program << ": error: simulation fault: " << f.message() << "\n";
      return static_cast<int>(kCheckFailed);
    } catch (const Error& e) {
      throw inFile(e, a.program);  // a decode error, or inputs that do not fit the program
    }
    if (!a.stats.empty()) writeFileAtomic(a.stats, result.stats.toJson());
    if (!a.trace.empty()) writeFileAtomic(a.trace, result.trace_json);
    if (!a.outputDir.empty()) {
      std::vector<std::pair<isa::TensorInfo, std::vector<uint8_t>>> outs;
      for (auto& t : result.outputs) outs.emplace_back(t.info, t.bytes);
      writeOutputs(a.outputDir, outs);
    }
    if (!a.quiet) std::cout << result.stats.summary() << sim::energyAreaLine(result.stats, config.params()) << "\n";
    if (a.rtl == "npu" && !compareOnRtlNpu(config, program, inputs, result)) return static_cast<int>(kCheckFailed);
    return static_cast<int>(kOk);
  });
}

}  // namespace systole::tools
