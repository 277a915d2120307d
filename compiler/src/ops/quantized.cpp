// Systole's int8 operators and the int8 boundary (docs/quantized-ops.md): QuantizeLinear and
// DequantizeLinear between the float and int8 graphs, Requant (a change of scale) and Lut (any
// int8 -> int8 function of one input as a 256-entry table). The quantizer creates them; only their
// int8 kernels exist.
#include <algorithm>

#include "ops/int8_kernel.h"
#include "ops/op_def.h"

namespace systole::compiler::int8_kernels {

namespace {

/// Index of the quantization parameter that element `i` of a tensor of `shape` uses.
struct ChannelOf {
  int64_t inner = 1, channels = 1;
  bool perAxis = false;
  ChannelOf(const Quant& q, const std::vector<int64_t>& shape) {
    if (q.axis < 0) {
      if (q.scale.size() != 1 || q.zero_point.size() != 1) throw Error("per-tensor quantization needs one scale");
      return;
    }
    if (q.axis >= static_cast<int>(shape.size())) throw Error("quantization axis out of range");
    perAxis = true;
    channels = shape[static_cast<size_t>(q.axis)];
    for (size_t d = static_cast<size_t>(q.axis) + 1; d < shape.size(); ++d) inner *= shape[d];
    if (static_cast<int64_t>(q.scale.size()) != channels || static_cast<int64_t>(q.zero_point.size()) != channels)
      throw Error("per-axis quantization needs one scale and zero point per channel");
  }
  size_t operator()(int64_t i) const { return perAxis ? static_cast<size_t>((i / inner) % channels) : 0; }
};

void quantizeLinear(const Graph& g, const Node& n, const std::vector<const HostTensor*>& in, HostTensor& y) {
  expectType(in.at(0), ElemType::Float32, "QuantizeLinear input");
  const Value& yv = valueOf(g, n.outputs.at(0));
  if (!yv.quant) throw Error("output '" + yv.name + "' has no quantization");
  const Quant& q = *yv.quant;
  const ChannelOf ch(q, y.shape);
  const float* x = in[0]->data<float>();
  const int bits = activationBits(y.type);
  forLanes(y.type, [&]<typename Lane>() {
    Lane* out = y.data<Lane>();
    for (int64_t i = 0; i < y.elements(); ++i)
      out[i] = static_cast<Lane>(quantizeFloat(x[i], q.scale[ch(i)], q.zero_point[ch(i)], bits));
  });
}

void dequantizeLinear(const Graph& g, const Node& n, const std::vector<const HostTensor*>& in, HostTensor& y) {
  expectActivation(in.at(0), "DequantizeLinear input");
  const Value& xv = valueOf(g, n.inputs.at(0));
  if (!xv.quant) throw Error("input '" + xv.name + "' has no quantization");
  const Quant& q = *xv.quant;
  const ChannelOf ch(q, in[0]->shape);
  float* out = y.data<float>();
  forLanes(in[0]->type, [&]<typename Lane>() {
    const Lane* x = in[0]->data<Lane>();
    for (int64_t i = 0; i < y.elements(); ++i)
      out[i] = q.scale[ch(i)] * static_cast<float>(int32_t{x[i]} - q.zero_point[ch(i)]);
  });
}

/// Requant: one multiplier, or one per channel of a 4-D [N, C, H, W] tensor.
void requant(const Graph& g, const Node& n, const std::vector<const HostTensor*>& in, HostTensor& y) {
  expectActivation(in.at(0), "Requant input", &y);
  const int32_t zx = perTensorQuant(g, n.inputs[0]).zero_point;
  const auto& shape = in[0]->shape;
  const int64_t channels = shape.size() == 4 ? shape[1] : 1, pixels = shape.size() == 4 ? shape[2] * shape[3] : 1;
  const Requantizer rq(n, channels, perTensorQuant(g, n.outputs.at(0)).zero_point, false, activationBits(y.type));
  forLanes(y.type, [&]<typename Lane>() {
    const Lane* x = in[0]->data<Lane>();
    Lane* out = y.data<Lane>();
    for (int64_t i = 0; i < y.elements(); ++i)
      out[i] = static_cast<Lane>(rq(arith::widen(x[i], zx, 1), (i / pixels) % channels));
  });
}

/// Systole's table op: y = table[x + 128] (any int8 -> int8 function of one input).
void lut(const Graph&, const Node& n, const std::vector<const HostTensor*>& in, HostTensor& y) {
  expectType(in.at(0), ElemType::Int8, "Lut input");
  const std::vector<int64_t> table = intsAttr(n, "table");
  if (table.size() != 256) throw Error("a Lut's 'table' has 256 entries");
  const int8_t* x = in[0]->data<int8_t>();
  int8_t* out = y.data<int8_t>();
  for (int64_t i = 0; i < y.elements(); ++i) out[i] = static_cast<int8_t>(table[static_cast<size_t>(x[i] + 128)]);
}

}  // namespace

}  // namespace systole::compiler::int8_kernels

namespace systole::compiler {

void defineQuantizedOps(OpTable& t) {
  t.int8Kernels({
      {Op::QuantizeLinear, int8_kernels::quantizeLinear},
      {Op::DequantizeLinear, int8_kernels::dequantizeLinear},
      {Op::Requant, int8_kernels::requant},
      {Op::Lut, int8_kernels::lut},
  });
}

}  // namespace systole::compiler
