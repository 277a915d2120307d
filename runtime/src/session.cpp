// Algorithm: run the host part of the graph (QuantizeLinear at the inputs) with the reference
// interpreter's own kernels, transpose int8 NCHW to the program's NHWC, simulate, transpose the
// outputs back and run the host DequantizeLinear. For --check, evaluate the whole quantized graph
// with the interpreter and compare each NPU output exactly; on a difference, locate the element in
// DRAM and find the last store instruction whose rows covered it.
#include "systole/runtime/session.h"

#include <random>
#include <sstream>

#include "systole/compiler/interpreter.h"
#include "systole/isa/assembler.h"
#include "systole/isa/diagnostic.h"
#include "systole/isa/encoding.h"

namespace systole::runtime {

using compiler::ElemType;
using compiler::HostTensor;

namespace {

/// [1, C, H, W] <-> [1, H, W, C] for int8 data.
std::vector<uint8_t> toNhwc(const HostTensor& t) {
  const int64_t C = t.shape[1], H = t.shape[2], W = t.shape[3];
  std::vector<uint8_t> out(t.bytes.size());
  for (int64_t c = 0; c < C; ++c)
    for (int64_t y = 0; y < H; ++y)
      for (int64_t x = 0; x < W; ++x) out[static_cast<size_t>((y * W + x) * C + c)] = t.bytes[static_cast<size_t>((c * H + y) * W + x)];
  return out;
}

/// Offset of element (c, y, x) in an NHWC buffer with `halo` padding pixels on each side.
int64_t nhwcOffset(const std::vector<int64_t>& nchw, int64_t halo, int64_t c, int64_t y, int64_t x) {
  const int64_t C = nchw[1], W = nchw[3] + 2 * halo;
  return ((y + halo) * W + (x + halo)) * C + c;
}

/// The program's bytes of a boundary tensor, as the graph's int8 tensor (NCHW, no halo).
HostTensor fromProgram(const std::vector<uint8_t>& bytes, const compiler::BoundaryTensor& b) {
  HostTensor t(ElemType::Int8, b.graph_shape);
  if (!b.nhwc) {
    t.bytes = bytes;
    return t;
  }
  const int64_t C = b.graph_shape[1], H = b.graph_shape[2], W = b.graph_shape[3];
  for (int64_t c = 0; c < C; ++c)
    for (int64_t y = 0; y < H; ++y)
      for (int64_t x = 0; x < W; ++x)
        t.bytes[static_cast<size_t>((c * H + y) * W + x)] = bytes[static_cast<size_t>(nhwcOffset(b.graph_shape, b.halo, c, y, x))];
  return t;
}

/// Runs one host node with the interpreter's kernels.
std::vector<HostTensor> runHostNode(const compiler::Graph& g, const compiler::Node& n, const HostTensor& first) {
  std::vector<HostTensor> constants;
  constants.reserve(n.inputs.size());
  std::vector<const HostTensor*> in = {&first};
  for (size_t i = 1; i < n.inputs.size(); ++i) {
    if (n.inputs[i] < 0) {
      in.push_back(nullptr);
      continue;
    }
    const compiler::Value& v = g.values[static_cast<size_t>(n.inputs[i])];
    HostTensor t(v.type, v.shape);
    t.bytes = v.data;
    constants.push_back(std::move(t));
    in.push_back(&constants.back());
  }
  std::vector<HostTensor> results;
  for (int v : n.outputs) results.emplace_back(g.values[static_cast<size_t>(v)].type, g.values[static_cast<size_t>(v)].shape);
  std::vector<HostTensor*> out;
  for (auto& r : results) out.push_back(&r);
  if (!compiler::runQuantizedKernel(g, n, in, out)) compiler::runFloatKernel(g, n, in, out);
  return results;
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
  if (instruction >= 0) out << "; written by instruction " << instruction << " (" << disassembly << ") of layer '" << layer << "'";
  else out << "; no store instruction wrote it";
  return out.str();
}

Session::Session(const isa::IsaConfig& isa, compiler::CompiledProgram compiled, const compiler::Graph& quantized)
    : isa_(isa), compiled_(std::move(compiled)), graph_(quantized), simulator_(isa) {}

RunResult Session::run(const std::map<std::string, HostTensor>& inputs, const RunOptions& options) {
  const compiler::Graph& g = graph_;
  RunResult result;
  // Host: quantize each graph input into its program tensor.
  std::map<std::string, std::vector<uint8_t>> programInputs;
  for (const auto& n : g.nodes) {
    if (n.dead || n.op != "QuantizeLinear") continue;
    const std::string& name = g.values[static_cast<size_t>(n.inputs[0])].name;
    auto it = inputs.find(name);
    if (it == inputs.end()) throw Error("missing input '" + name + "'");
    HostTensor q = runHostNode(g, n, it->second).at(0);
    const auto& boundary = std::find_if(compiled_.inputs.begin(), compiled_.inputs.end(), [&](const compiler::BoundaryTensor& b) {
      return b.value == g.values[static_cast<size_t>(n.outputs[0])].name;
    });
    if (boundary == compiled_.inputs.end()) continue;
    programInputs[boundary->value] = boundary->nhwc ? toNhwc(q) : q.bytes;
  }
  sim::SimOptions simOptions;
  simOptions.timing_only = options.timing_only;
  simOptions.trace = options.trace;
  simOptions.timeline = true;
  result.sim = simulator_.run(compiled_.program, programInputs, simOptions);

  // Per-layer simulated cycles from the instructions' start and end.
  for (const auto& report : compiled_.layers) {
    LayerTiming t{report, 0};
    uint64_t first = UINT64_MAX, last = 0;
    for (const auto& s : result.sim.timeline)
      if (s.instruction >= report.first_instruction && s.instruction < report.end_instruction) {
        first = std::min(first, s.start);
        last = std::max(last, s.end);
      }
    t.simulated_cycles = last > first ? last - first : 0;
    result.layers.push_back(t);
  }
  if (options.timing_only) return result;

  std::map<std::string, const sim::TensorValue*> fromSim;
  for (const auto& t : result.sim.outputs) fromSim[t.info.name] = &t;
  for (const auto& b : compiled_.outputs) result.npu_outputs[b.value] = fromProgram(fromSim.at(b.value)->bytes, b);
  // Host: dequantize into the graph's float outputs.
  for (const auto& n : g.nodes) {
    if (n.dead || n.op != "DequantizeLinear") continue;
    auto it = result.npu_outputs.find(g.values[static_cast<size_t>(n.inputs[0])].name);
    if (it == result.npu_outputs.end()) continue;
    result.outputs[g.values[static_cast<size_t>(n.outputs[0])].name] = runHostNode(g, n, it->second).at(0);
  }

  if (!options.check) return result;
  result.checked = true;
  const auto reference = compiler::interpret(g, inputs, true);
  const auto code = isa::decodeAll(isa_, compiled_.program.code);
  // Intermediates first (in order), so the first differing value is the one reported.
  std::vector<const compiler::BoundaryTensor*> checked;
  for (const auto& b : compiled_.intermediates) checked.push_back(&b);
  for (const auto& b : compiled_.outputs) checked.push_back(&b);
  for (const compiler::BoundaryTensor* b : checked) {
    const sim::TensorValue& sv = *fromSim.at(b->value);
    const HostTensor npu = fromProgram(sv.bytes, *b);
    const HostTensor& ref = reference.at(b->value);
    for (int64_t e = 0; e < npu.elements() && !result.mismatch; ++e) {
      const auto a = npu.data<int8_t>()[e], r = ref.data<int8_t>()[e];
      if (a == r) continue;
      Mismatch m{b->value, unravel(e, b->graph_shape), a, r, -1, "", ""};
      const uint64_t addr = sv.info.dram_addr +
                            static_cast<uint64_t>(b->nhwc ? nhwcOffset(b->graph_shape, b->halo, m.index[1], m.index[2], m.index[3]) : e);
      for (size_t k = code.size(); k-- > 0 && m.instruction < 0;) {
        const auto& d = isa_.instr(code[k].desc);
        if (d.semantics != isa::Semantics::DmaStore) continue;
        const uint64_t base = static_cast<uint64_t>(code[k].operand(d, 0));
        const int64_t rows = code[k].operand(d, 2), bytes = code[k].operand(d, 3), stride = code[k].operand(d, 4);
        for (int64_t row = 0; row < rows; ++row) {
          const uint64_t start = base + static_cast<uint64_t>(row * stride);
          if (addr >= start && addr < start + static_cast<uint64_t>(bytes)) {
            m.instruction = static_cast<int64_t>(k);
            m.disassembly = isa::formatInstruction(isa_, code[k]);
            for (const auto& l : compiled_.layers)
              if (k >= l.first_instruction && k < l.end_instruction) m.layer = l.name;
            break;
          }
        }
      }
      result.mismatch = m;
    }
    if (result.mismatch) break;
  }
  return result;
}

std::map<std::string, HostTensor> randomInputs(const compiler::Graph& g, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::map<std::string, HostTensor> inputs;
  for (int v : g.inputs) {
    const auto& val = g.values[static_cast<size_t>(v)];
    HostTensor t(ElemType::Float32, val.shape);
    for (int64_t i = 0; i < t.elements(); ++i) t.data<float>()[i] = uniform(rng);
    inputs[val.name] = std::move(t);
  }
  return inputs;
}

}  // namespace systole::runtime
