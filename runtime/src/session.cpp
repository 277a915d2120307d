// Algorithm: run the host part of the graph (QuantizeLinear at the inputs) as native code that the
// host JIT compiles at the first run (hostjit/; the interpreter's own kernels for a node it has no
// lowering for, or with RunOptions::host_jit off), transpose int8 NCHW to the program's NHWC,
// simulate, transpose the outputs back and run the host DequantizeLinear. For --check, evaluate
// the whole quantized graph with the interpreter and compare each NPU output exactly; on a
// difference, locate the element in DRAM and find the last store instruction whose rows covered it.
#include "systole/runtime/session.h"

#include <chrono>
#include <cstring>
#include <random>
#include <sstream>

#include "systole/compiler/interpreter.h"
#include "systole/hostjit/host_jit.h"
#include "systole/isa/huge_pages.h"
#include "systole/isa/assembler.h"
#include "systole/isa/diagnostic.h"
#include "systole/isa/encoding.h"
#include "systole/runtime/host_cost.h"
#include "model_timeline.h"

namespace systole::runtime {

using compiler::ElemType;
using compiler::HostTensor;

namespace {

/// Offset of element (n, c, y, x) in an NHWC buffer whose images have `halo` padding pixels on
/// each side.
int64_t nhwcOffset(const std::vector<int64_t>& nchw, int64_t halo, int64_t n, int64_t c, int64_t y, int64_t x) {
  const int64_t C = nchw[1], H = nchw[2] + 2 * halo, W = nchw[3] + 2 * halo;
  return ((n * H + y + halo) * W + (x + halo)) * C + c;
}

/// [N, C, H, W] -> [N, H, W, C] for quantized data.
std::vector<uint8_t> toNhwc(const HostTensor& t) {
  std::vector<uint8_t> out(t.bytes.size());
  compiler::moveNhwc(t.bytes.data(), out.data(), t.shape[0], t.shape[1], t.shape[2] * t.shape[3],
                     static_cast<size_t>(compiler::elemTypeBytes(t.type)), true);
  return out;
}

/// The program's bytes of a boundary tensor, as the graph's tensor of `type` (int8 or int16; NCHW,
/// no halo).
HostTensor fromProgram(const std::vector<uint8_t>& bytes, const compiler::BoundaryTensor& b, ElemType type) {
  HostTensor t(type, b.graph_shape);
  if (!b.nhwc) {
    t.bytes = bytes;
    t.bytes.resize(static_cast<size_t>(t.elements() * compiler::elemTypeBytes(type)));
    return t;
  }
  const auto lane = static_cast<size_t>(compiler::elemTypeBytes(type));
  const int64_t N = b.graph_shape[0], C = b.graph_shape[1], H = b.graph_shape[2], W = b.graph_shape[3];
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t y = 0; y < H; ++y)
        for (int64_t x = 0; x < W; ++x)
          std::memcpy(t.bytes.data() + static_cast<size_t>(((n * C + c) * H + y) * W + x) * lane,
                      bytes.data() + static_cast<size_t>(nhwcOffset(b.graph_shape, b.halo, n, c, y, x)) * lane, lane);
  return t;
}

/// Runs one host node, as JIT-compiled code if `jit` has it (hostjit/), else with the interpreter's
/// kernels; inputs come from `env` or are constants. Returns true if it ran compiled.
bool runHostNode(const compiler::Graph& g, int id, const hostjit::HostJit* jit, std::map<int, HostTensor>& env) {
  const compiler::Node& n = g.nodes[static_cast<size_t>(id)];
  const bool compiled = jit && jit->compiled(id);
  std::vector<HostTensor> constants;  // the kernels take tensors; the JIT reads the graph's bytes
  constants.reserve(n.inputs.size());
  std::vector<const HostTensor*> in;
  hostjit::Inputs inBytes;
  for (int v : n.inputs) {
    if (v < 0) {
      in.push_back(nullptr);
      inBytes.push_back(nullptr);
      continue;
    }
    const compiler::Value& val = g.values[static_cast<size_t>(v)];
    if (val.is_constant) {
      if (!compiled) constants.emplace_back(val.type, val.shape).bytes = val.data;
      in.push_back(compiled ? nullptr : &constants.back());
      inBytes.push_back(&val.data);
      continue;
    }
    auto it = env.find(v);
    if (it == env.end()) throw Error("host operator '" + n.name + "': input '" + val.name + "' has no value");
    in.push_back(&it->second);
    inBytes.push_back(&it->second.bytes);
  }
  std::vector<HostTensor> results;
  for (int v : n.outputs)
    results.emplace_back(g.values[static_cast<size_t>(v)].type, g.values[static_cast<size_t>(v)].shape);
  std::vector<HostTensor*> out;
  hostjit::Outputs outBytes;
  for (auto& r : results) {
    out.push_back(&r);
    outBytes.push_back(&r.bytes);
  }
  if (compiled)
    jit->run(id, inBytes, outBytes);
  else
    compiler::runKernel(g, n, in, out);
  for (size_t i = 0; i < n.outputs.size(); ++i) env[n.outputs[i]] = std::move(results[i]);
  return compiled;
}

std::vector<int64_t> unravel(int64_t flat, const std::vector<int64_t>& shape) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = flat % shape[d];
    flat /= shape[d];
  }
  return idx;
}

}  // namespace

std::string Mismatch::describe() const {
  std::ostringstream out;
  out << "tensor '" << tensor << "' differs at [";
  for (size_t i = 0; i < index.size(); ++i) out << (i ? ", " : "") << index[i];
  out << "]: NPU " << npu << ", reference " << reference;
  if (instruction >= 0)
    out << "; written by instruction " << instruction << " (" << disassembly << ") of layer '" << layer << "'";
  else
    out << "; no store instruction wrote it";
  return out.str();
}

Session::Session(const isa::IsaConfig& isa, compiler::CompiledModel model, const compiler::Graph& quantized)
    : isa_(isa), model_(std::move(model)), graph_(quantized), simulator_(isa) {}

namespace {

compiler::CompiledModel aroundHostNodes(const compiler::Graph& g, compiler::CompiledProgram program) {
  compiler::CompiledModel m;
  std::vector<compiler::ScheduleItem> after;
  for (int id : g.topoOrder()) {
    const compiler::OpType& op = g.nodes[static_cast<size_t>(id)].op;
    if (op == compiler::Op::QuantizeLinear) m.schedule.push_back({id, "", std::nullopt});
    if (op == compiler::Op::DequantizeLinear) after.push_back({id, "", std::nullopt});
  }
  m.schedule.push_back({-1, "", std::move(program)});
  for (auto& item : after) m.schedule.push_back(std::move(item));
  return m;
}

/// The first element of `b` where the program's bytes differ from the reference, with the last
/// store instruction that wrote it.
std::optional<Mismatch> compareTensor(const isa::IsaConfig& isa, const compiler::CompiledProgram& program,
                                      const std::vector<isa::Instruction>& code, const compiler::BoundaryTensor& b,
                                      const sim::TensorValue& sv, const HostTensor& ref) {
  const HostTensor npu = fromProgram(sv.bytes, b, ref.type);
  for (int64_t e = 0; e < npu.elements(); ++e) {
    const int32_t a = compiler::laneAt(npu, e), r = compiler::laneAt(ref, e);
    if (a == r) continue;
    Mismatch m{b.value, unravel(e, b.graph_shape), a, r, -1, "", ""};
    const uint64_t addr =
        sv.info.dram_addr +
        static_cast<uint64_t>(
            (b.nhwc ? nhwcOffset(b.graph_shape, b.halo, m.index[0], m.index[1], m.index[2], m.index[3]) : e) *
            compiler::elemTypeBytes(ref.type));
    for (size_t k = code.size(); k-- > 0 && m.instruction < 0;) {
      const auto& d = isa.instr(code[k].desc);
      if (d.semantics != isa::Semantics::DmaStore) continue;
      const uint64_t base = static_cast<uint64_t>(code[k].operand(d, 0));
      const int64_t rows = code[k].operand(d, 2), bytes = code[k].operand(d, 3), stride = code[k].operand(d, 4);
      for (int64_t row = 0; row < rows; ++row) {
        const uint64_t start = base + static_cast<uint64_t>(row * stride);
        if (addr >= start && addr < start + static_cast<uint64_t>(bytes)) {
          m.instruction = static_cast<int64_t>(k);
          m.disassembly = isa::formatInstruction(isa, code[k]);
          for (const auto& l : program.layers)
            if (k >= l.first_instruction && k < l.end_instruction) m.layer = l.name;
          break;
        }
      }
    }
    return m;
  }
  return std::nullopt;
}

}  // namespace

Session::Session(const isa::IsaConfig& isa, compiler::CompiledProgram program, const compiler::Graph& quantized)
    : Session(isa, aroundHostNodes(quantized, std::move(program)), quantized) {}

Session::~Session() = default;

const hostjit::HostJit* Session::hostCode(const RunOptions& options, RunResult& result) {
  if (jit_ || jitFailed_) return jit_.get();
  std::vector<int> nodes;
  for (const auto& item : model_.schedule)
    if (!item.npu) nodes.push_back(item.host_node);
  try {
    jit_ = std::make_shared<const hostjit::HostJit>(graph_, nodes, hostjit::Options{options.host_jit_cache_dir});
  } catch (const Error& e) {  // LLVM cannot compile here: the interpreter still can
    jitFailed_ = true;
    result.host_jit =
        HostJitReport{0, 0, false, "", "warning: " + e.message() + "; the host operators run in the interpreter"};
    return nullptr;
  }
  const hostjit::CompileReport& r = jit_->report();
  result.host_jit = HostJitReport{r.compiled, r.seconds, r.cache_hit, r.cache_entry, r.warning};
  return jit_.get();
}

namespace {

/// The program's input tensors from `env` (NHWC where the program wants it); zeros when timing only.
std::map<std::string, std::vector<uint8_t>> programInputs(const compiler::Graph& g,
                                                          const compiler::CompiledProgram& program,
                                                          const std::map<int, HostTensor>& env, bool timingOnly) {
  std::map<std::string, std::vector<uint8_t>> inputs;
  for (const auto& b : program.inputs) {
    const int v = g.findValue(b.value);
    if (timingOnly) {  // zeros the simulator does not load
      const auto n = static_cast<size_t>(g.values[static_cast<size_t>(v)].elements() *
                                         compiler::elemTypeBytes(g.values[static_cast<size_t>(v)].type));
      reserveHuge(inputs[b.value], n);
      inputs[b.value].resize(n);
      continue;
    }
    const HostTensor& t = env.at(v);
    inputs[b.value] = b.nhwc ? toNhwc(t) : t.bytes;
  }
  return inputs;
}

/// Compares the program's intermediates and outputs with the reference (while checking and no
/// difference was found yet; intermediates first, so the first differing value is named) and puts
/// its outputs into `env`.
void takeProgramOutputs(const isa::IsaConfig& isa, const compiler::Graph& g, const compiler::CompiledProgram& program,
                        const sim::SimResult& sim, const std::map<std::string, HostTensor>& reference,
                        RunResult& result, std::map<int, HostTensor>& env) {
  std::map<std::string, const sim::TensorValue*> fromSim;
  for (const auto& t : sim.outputs) fromSim[t.info.name] = &t;
  if (result.checked && !result.mismatch) {
    const auto code = isa::decodeAll(isa, program.program.code);
    std::vector<const compiler::BoundaryTensor*> checked;
    for (const auto& b : program.intermediates) checked.push_back(&b);
    for (const auto& b : program.outputs) checked.push_back(&b);
    for (const auto* b : checked) {
      result.mismatch = compareTensor(isa, program, code, *b, *fromSim.at(b->value), reference.at(b->value));
      if (result.mismatch) break;
    }
  }
  for (const auto& b : program.outputs) {
    HostTensor t = fromProgram(fromSim.at(b.value)->bytes, b, g.values[static_cast<size_t>(g.findValue(b.value))].type);
    result.npu_outputs[b.value] = t;
    env[g.findValue(b.value)] = std::move(t);
  }
}

}  // namespace

RunResult Session::run(const std::map<std::string, HostTensor>& inputs, const RunOptions& options) {
  const compiler::Graph& g = graph_;
  RunResult result;
  std::map<int, HostTensor> env;  // by value id
  for (int v : g.inputs) {
    const auto& name = g.values[static_cast<size_t>(v)].name;
    auto it = inputs.find(name);
    if (it == inputs.end()) throw Error("missing input '" + name + "'");
    if (!options.timing_only) env[v] = it->second;  // a timing-only run reads no data
  }
  std::map<std::string, HostTensor> reference;
  if (options.check && !options.timing_only) {
    reference = compiler::interpret(g, inputs, true);
    result.checked = true;
  }
  sim::SimOptions simOptions;
  simOptions.timing_only = options.timing_only;
  simOptions.races = options.races;
  simOptions.timeline = options.trace || options.after_program;
  ModelTimeline timeline(isa_, options.trace ? std::optional(options.trace_level) : std::nullopt);
  const auto transfers = [&](const std::vector<compiler::BoundaryTensor>& list) {
    uint64_t cycles = 0;
    for (const auto& b : list)
      cycles += transferCycles(isa_.params(), g.values[static_cast<size_t>(g.findValue(b.value))].elements());
    result.transfer_cycles += cycles;
    return cycles;
  };
  const hostjit::HostJit* jit = options.host_jit && !options.timing_only ? hostCode(options, result) : nullptr;
  for (const auto& item : model_.schedule) {
    if (options.progress)
      options.progress(result.programs + result.host_operators, model_.schedule.size(),
                       item.npu ? "NPU program " + std::to_string(result.programs)
                                : "host " + g.nodes[static_cast<size_t>(item.host_node)].op);
    if (!item.npu) {
      const compiler::Node& n = g.nodes[static_cast<size_t>(item.host_node)];
      HostStep step{
          n.name, n.op, nodeMacs(g, n), hostOperatorCycles(isa_.params(), g, n), timeline.now(), result.layers.size()};
      result.host_cycles += step.cycles;
      result.host_macs += step.macs;
      ++result.host_operators;
      timeline.host(step);
      result.host_steps.push_back(std::move(step));
      if (options.timing_only) continue;
      const auto start = std::chrono::steady_clock::now();
      if (runHostNode(g, item.host_node, jit, env))
        ++result.host_jit_runs;
      else
        ++result.host_interpreted_runs;
      result.host_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      continue;
    }
    const compiler::CompiledProgram& program = *item.npu;
    timeline.transfer("inputs to the NPU", transfers(program.inputs));
    simOptions.region_starts = layerRegionStarts(program);
    const auto inputs = programInputs(g, program, env, options.timing_only);
    sim::SimResult sim = simulator_.run(program.program, inputs, simOptions);
    ++result.programs;
    timeline.program(program, sim, result.layers);
    timeline.transfer("outputs to the host", transfers(program.outputs));
    if (options.after_program) options.after_program(program.program, inputs, sim);
    sim.timeline.clear();
    result.sim.stats.accumulate(sim.stats);
    if (!options.timing_only) takeProgramOutputs(isa_, g, program, sim, reference, result, env);
    const auto stats = result.sim.stats;
    result.sim = std::move(sim);
    result.sim.stats = stats;
  }
  result.trace_json = timeline.traceJson();
  for (int v : g.outputs) {
    auto it = env.find(v);
    if (it != env.end()) result.outputs[g.values[static_cast<size_t>(v)].name] = it->second;
  }
  return result;
}

std::map<std::string, HostTensor> zeroInputs(const compiler::Graph& g) {
  std::map<std::string, HostTensor> inputs;
  for (int v : g.inputs) {
    const auto& val = g.values[static_cast<size_t>(v)];
    inputs[val.name] = HostTensor(ElemType::Float32, val.shape);
  }
  return inputs;
}

std::map<std::string, HostTensor> randomInputs(const compiler::Graph& g, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::map<std::string, HostTensor> inputs = zeroInputs(g);
  for (int v : g.inputs) {  // in the graph's order, so a seed gives the same values as before
    HostTensor& t = inputs.at(g.values[static_cast<size_t>(v)].name);
    for (int64_t i = 0; i < t.elements(); ++i) t.data<float>()[i] = uniform(rng);
  }
  return inputs;
}

}  // namespace systole::runtime
