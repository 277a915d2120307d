// What every float kernel of the reference interpreter shares: the call context (the node, its
// input and output tensors, their operand view for src/float_ops.h), numpy broadcasting and the
// fused activation. The kernels are part of each operator's definition (src/ops/).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "systole/compiler/float_ops.h"
#include "systole/compiler/interpreter.h"

namespace systole::compiler::float_kernels {

using ops::Operand;
using Shape = std::vector<int64_t>;

using Shape = std::vector<int64_t>;

struct Ctx {
  const Graph& g;
  const Node& n;
  const std::vector<const HostTensor*>& in;
  std::vector<HostTensor*>& out;
  std::vector<Operand> operands;

  const HostTensor& input(size_t k) const {
    if (k >= in.size() || !in[k]) throw Error("input " + std::to_string(k) + " is missing");
    return *in[k];
  }
  bool has(size_t k) const { return k < in.size() && in[k] != nullptr; }
  HostTensor& output(size_t k = 0) const {
    if (k >= out.size() || !out[k]) throw Error("output " + std::to_string(k) + " is missing");
    return *out[k];
  }
  const float* f(size_t k) const { return requireFloat(input(k)).data<float>(); }
  float* fo(size_t k = 0) const { return requireFloat(output(k)).data<float>(); }

  static const HostTensor& requireFloat(const HostTensor& t) {
    if (t.type != ElemType::Float32) throw Error("expects float32 tensors, got " + std::string(elemTypeName(t.type)));
    return t;
  }
  static HostTensor& requireFloat(HostTensor& t) {
    if (t.type != ElemType::Float32) throw Error("expects float32 tensors, got " + std::string(elemTypeName(t.type)));
    return t;
  }
};

using Kernel = void (*)(const Ctx&);

/// The fused activation of Conv/Gemm/MatMul/Add ("activation" attribute: "relu", or "clip" with
/// clip_min/clip_max), applied in place.
void applyActivation(const Node& n, float* y, int64_t count);

/// Calls body(outIndex, inOffsets...) for every output element, with numpy broadcasting. The
/// innermost dimension is a tight loop over strided offsets.
template <typename Body>
void forEachBroadcast(const Shape& outShape, const std::vector<Shape>& inShapes, Body body) {
  const size_t r = outShape.size();
  const size_t k = inShapes.size();
  std::vector<Shape> strides;
  for (const auto& s : inShapes) strides.push_back(ops::broadcastStrides(s, outShape));
  const int64_t total = ops::product(outShape);
  if (total == 0) return;
  const int64_t inner = r ? outShape[r - 1] : 1;
  std::vector<int64_t> innerStride(k);
  for (size_t j = 0; j < k; ++j) innerStride[j] = r ? strides[j][r - 1] : 0;
  std::vector<int64_t> idx(r, 0), base(k, 0), offs(k);
  for (int64_t o = 0; o < total; o += inner) {
    for (int64_t i = 0; i < inner; ++i) {
      for (size_t j = 0; j < k; ++j) offs[j] = base[j] + i * innerStride[j];
      body(o + i, offs);
    }
    for (size_t d = r - 1; d-- > 0;) {  // advance the outer odometer
      ++idx[d];
      for (size_t j = 0; j < k; ++j) base[j] += strides[j][d];
      if (idx[d] < outShape[d]) break;
      for (size_t j = 0; j < k; ++j) base[j] -= strides[j][d] * outShape[d];
      idx[d] = 0;
    }
  }
}

}  // namespace systole::compiler::float_kernels
