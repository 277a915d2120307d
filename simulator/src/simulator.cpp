// Algorithm: take the program decoded, with its timings evaluated, from the decode cache; load the
// DRAM image (data segments, then inputs; not in timing-only mode), reset every queue, token FIFO and
// statistic, notify the platform's start event and run SystemC until nothing is left to do. If
// units are still waiting when it stops, the program deadlocked: report the waiting instruction.
#include "systole/sim/simulator.h"
#include "systole/sim/race_check.h"

#include <algorithm>

#include "asan_main_stack.h"
#include "decode_cache.h"
#include "platform.h"
#include "systole/isa/assembler.h"
#include "systole/sim/functional.h"

// The SystemC library refers to sc_main; Systole drives SystemC from its own main().
int sc_main(int, char**) { return 0; }

namespace systole::sim {

namespace {

Platform& platform() {
  static Platform* instance = [] {
    auto* p = new Platform("systole");  // lives for the process, as SystemC requires
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    restoreStackBoundsForAsan();
    return p;
  }();
  return *instance;
}

}  // namespace

struct Simulator::State {
  explicit State(const isa::Params& p) : machine(p), dram(static_cast<uint64_t>(p.dram_size)) {}
  MachineState machine;
  PagedDram dram;
  DecodeCache decoded;
};

Simulator::Simulator(const isa::IsaConfig& isa) : isa_(isa), state_(std::make_unique<State>(isa.params())) {
  platform();
}

Simulator::~Simulator() = default;

SimResult Simulator::run(const isa::Program& program, const std::map<std::string, std::vector<uint8_t>>& inputs,
                         const SimOptions& options) {
  isa::checkProgramMatches(program, isa_, "program");
  for (const auto& input : inputs) {
    const std::string& name = input.first;  // not a structured binding: clang 14 cannot capture one
    const std::vector<uint8_t>& bytes = input.second;
    auto it = std::find_if(program.tensors.begin(), program.tensors.end(), [&](const isa::TensorInfo& t) {
      return t.name == name && t.kind == isa::TensorKind::Input;
    });
    if (it == program.tensors.end()) throw Error("the program has no input tensor named '" + name + "'");
    if (static_cast<int64_t>(bytes.size()) != it->bytes())
      throw Error("input '" + name + "' has " + std::to_string(bytes.size()) + " bytes, the program expects " +
                  std::to_string(it->bytes()));
  }
  std::vector<Segment> image;
  for (const auto& seg : program.data) image.push_back({seg.dram_addr, seg.bytes});
  for (const auto& t : program.tensors) {
    if (t.kind != isa::TensorKind::Input) continue;
    auto it = inputs.find(t.name);
    if (it == inputs.end()) throw Error("missing input tensor '" + t.name + "'");
    image.push_back({t.dram_addr, it->second});
  }
  SimResult result = runPrepared(state_->decoded.decode(isa_, program.code), image, options);
  if (!options.timing_only)
    for (const auto& t : program.tensors) {
      if (t.kind != isa::TensorKind::Output && t.kind != isa::TensorKind::Intermediate) continue;
      TensorValue v{t, std::vector<uint8_t>(static_cast<size_t>(t.bytes()))};
      state_->dram.read(t.dram_addr, v.bytes.data(), v.bytes.size());
      result.outputs.push_back(std::move(v));
    }
  return result;
}

SimResult Simulator::runDecoded(const std::vector<isa::Instruction>& program, const std::vector<isa::DataSegment>& data,
                                const SimOptions& options) {
  std::vector<Segment> image;
  for (const auto& seg : data) image.push_back({seg.dram_addr, seg.bytes});
  return runPrepared(prepareProgram(isa_, program), image, options);
}

namespace {

/// After the kernel stops: throws the fault the run raised, else a deadlock (a unit blocked on a
/// token nobody will push), a queue that never drained, or a token pushed and never popped.
void throwIfUnfinished(RunContext& ctx) {
  if (!ctx.fault) {
    // Every unit that has not finished is blocked: on a token nobody will push, or (for the
    // controller's sake) behind one. Report the first instruction waiting for a token.
    for (int u = 0; u < isa::kNumUnits; ++u) {
      const UnitStatus& st = ctx.status[u];
      if (st.done || st.waiting_instruction < 0) continue;
      ctx.raise(static_cast<uint32_t>(st.waiting_instruction),
                "deadlock: the " + std::string(isa::unitName(static_cast<isa::Unit>(u))) +
                    " queue waits for a token from the " +
                    std::string(isa::unitName(static_cast<isa::Unit>(st.waiting_for))) + " queue that is never pushed");
      break;
    }
    if (!ctx.fault)
      for (int u = 0; u < isa::kNumUnits; ++u)
        if (!ctx.status[u].done)
          ctx.fault.emplace("the " + std::string(isa::unitName(static_cast<isa::Unit>(u))) + " queue never drained");
  }
  if (ctx.fault) throw *ctx.fault;
  // A token pushed and never popped is a dependency the program declared and never used: a
  // miscompiled or hand-written program whose synchronisation is not what its author meant.
  for (int from = 0; from < isa::kNumUnits; ++from)
    for (int to = 0; to < isa::kNumUnits; ++to)
      if (const size_t left = ctx.tokens[from][to].cycles.size(); left > 0)
        throw Fault(std::to_string(left) + " token(s) pushed by the " +
                    std::string(isa::unitName(static_cast<isa::Unit>(from))) + " queue to the " +
                    std::string(isa::unitName(static_cast<isa::Unit>(to))) + " queue were never popped");
}

}  // namespace

SimResult Simulator::runPrepared(const PreparedProgram& prepared, std::span<const Segment> image,
                                 const SimOptions& options) {
  const isa::Params& p = isa_.params();
  const std::vector<isa::Instruction>& program = prepared.instructions;
  if (!prepared.has_finish)
    throw Fault("the program has no '" + isa_.instr(isa_.bySemantics(isa::Semantics::Finish)).name +
                "' instruction, so it would never end");
  if (prepared.after_finish >= 0)
    throw Fault("instruction " + std::to_string(prepared.after_finish) + " (" +
                isa_.instr(program[static_cast<size_t>(prepared.after_finish)].desc).name + ") comes after '" +
                isa_.instr(isa_.bySemantics(isa::Semantics::Finish)).name + "', so it would never run");
  if (options.races)
    if (const auto race = findRace(isa_, program)) throw Fault("race: " + race->describe(isa_, program));
  state_->machine.clear();
  state_->dram.clear();
  for (const auto& seg : options.timing_only ? std::span<const Segment>() : image) {
    try {
      state_->dram.write(seg.dram_addr, seg.bytes.data(), seg.bytes.size());
    } catch (const FaultCause& c) {
      throw Fault("data segment at " + std::to_string(seg.dram_addr) + ": " + c.message);
    }
  }

  RunContext& ctx = platform().ctx;
  ctx.isa = &isa_;
  ctx.program = &program;
  ctx.timing = &prepared.timing;
  ctx.state = &state_->machine;
  ctx.dram = &state_->dram;
  ctx.timing_only = options.timing_only;
  ctx.poison = options.poison;
  ctx.record_trace = options.trace || options.timeline;
  ctx.quantum_cycles = options.quantum_cycles;
  ctx.array = options.timing_only ? nullptr : options.array;
  if (ctx.array) ctx.array->reset();
  ctx.base_cycle = timeToCycles(sc_core::sc_time_stamp());
  for (auto& q : ctx.queues) q.reset();
  for (auto& row : ctx.tokens)
    for (auto& f : row) f.cycles.clear();
  for (auto& st : ctx.status) st = UnitStatus{.local_cycle = ctx.base_cycle};
  ctx.channel.clear();
  ctx.trace.clear();
  ctx.fault.reset();
  ctx.stats = Stats{};
  ctx.region_starts = options.region_starts.empty() ? std::vector<uint32_t>{0} : options.region_starts;
  if (ctx.region_starts.front() != 0 || !std::is_sorted(ctx.region_starts.begin(), ctx.region_starts.end()))
    throw Error("SimOptions::region_starts must begin at instruction 0 and not decrease");
  ctx.regions.assign(ctx.region_starts.size(), RegionStats{});
  ctx.stats.isa = p.name;
  ctx.stats.clock_mhz = p.clock_mhz;
  ctx.stats.array_pes = p.array_rows * p.array_cols;
  ctx.stats.cost = p.cost;
  for (const auto& d : isa_.instructions()) ctx.stats.by_opcode.emplace_back(d.name, 0);

  ctx.start_run.notify(sc_core::SC_ZERO_TIME);
  sc_core::sc_start();
  restoreStackBoundsForAsan();

  throwIfUnfinished(ctx);

  uint64_t end = ctx.base_cycle;
  for (const auto& st : ctx.status) end = std::max(end, st.local_cycle);
  ctx.stats.cycles = end - ctx.base_cycle;
  for (const RegionStats& r : ctx.regions) ctx.stats.Counters::add(r.counters);
  ctx.stats.regions = std::move(ctx.regions);
  SimResult result;
  result.stats = ctx.stats;
  if (options.trace) result.trace_json = ctx.trace.toJson(isa_, program);
  if (options.trace || options.timeline) result.timeline = ctx.trace.slices();
  return result;
}

}  // namespace systole::sim
