// Algorithm: both tensors are flattened and compared in double precision. SQNR is the float
// signal's energy over the error's; an error of zero gives +inf. An output is logits-like when all
// its dimensions but the first (the batch) and the last are 1 and the last is more than 1; an
// image's top-1 agrees when both tensors have the maximum of its row at the same index. A quantized value's saturation
// counts int8 values at -128 or 127 except where that is its zero point (a ReLU's floor) or its clamp bound.
#include "systole/runtime/accuracy.h"

#include <algorithm>
#include <cmath>

#include "systole/compiler/interpreter.h"
#include "systole/isa/diagnostic.h"
#include "systole/isa/arith.h"

namespace systole::runtime {

using compiler::ElemType;
using compiler::HostTensor;

namespace {

bool logitsLike(const std::vector<int64_t>& shape) {
  if (shape.size() < 2 || shape.back() < 2) return false;
  return std::all_of(shape.begin() + 1, shape.end() - 1, [](int64_t d) { return d == 1; });
}

/// The index of the largest of `n` values.
int64_t argmax(const float* x, int64_t n) { return std::max_element(x, x + n) - x; }

/// The quantized tensor `q` of value `v` as float.
HostTensor dequantize(const compiler::Value& v, const HostTensor& q) {
  HostTensor f(ElemType::Float32, q.shape);
  const double scale = v.quant->scale.at(0), zero = v.quant->zero_point.at(0);
  for (int64_t i = 0; i < q.elements(); ++i) f.data<float>()[i] = static_cast<float>(scale * (laneAt(q, i) - zero));
  return f;
}

double saturatedFraction(const compiler::Graph& g, const compiler::Value& v, const HostTensor& q) {
  const int32_t zero = v.quant->zero_point.at(0);
  const int bits = compiler::activationBits(q.type);
  const int32_t min = isa::arith::activationMin(bits), max = isa::arith::activationMax(bits);
  int32_t lo = min, hi = max;  // bounds a fused activation clamps to are not saturation
  if (v.producer >= 0) {
    const compiler::Node& n = g.nodes[static_cast<size_t>(v.producer)];
    lo = static_cast<int32_t>(n.getInt("act_min", min)), hi = static_cast<int32_t>(n.getInt("act_max", max));
  }
  int64_t count = 0;
  for (int64_t i = 0; i < q.elements(); ++i) {
    const int32_t x = laneAt(q, i);
    count += (x == min && zero != min && lo == min) || (x == max && hi == max);
  }
  return q.elements() ? static_cast<double>(count) / static_cast<double>(q.elements()) : 0.0;
}

}  // namespace

TensorAccuracy compareTensors(const std::string& name, const HostTensor& reference, const HostTensor& got) {
  if (reference.type != ElemType::Float32 || got.type != ElemType::Float32 || reference.shape != got.shape)
    throw Error("accuracy: '" + name + "' differs in type or shape from the float model's");
  TensorAccuracy a;
  a.name = name;
  a.elements = reference.elements();
  double dot = 0, rr = 0, gg = 0, err = 0, maxRef = 0, maxErr = 0;
  const float* r = reference.data<float>();
  const float* q = got.data<float>();
  for (int64_t i = 0; i < reference.elements(); ++i) {
    const double x = r[i], y = q[i], d = y - x;
    dot += x * y, rr += x * x, gg += y * y, err += d * d;
    maxRef = std::max(maxRef, std::abs(x)), maxErr = std::max(maxErr, std::abs(d));
  }
  a.cosine = rr == 0 && gg == 0 ? 1.0 : dot / (std::sqrt(rr * gg) + 1e-300);
  a.sqnr_db = err == 0 ? std::numeric_limits<double>::infinity() : 10.0 * std::log10(rr / err);
  a.max_error_ratio = maxRef > 0 ? maxErr / maxRef : (maxErr > 0 ? std::numeric_limits<double>::infinity() : 0.0);
  if (logitsLike(reference.shape)) {
    const int64_t classes = reference.shape.back();
    a.top1_images = reference.shape.front();
    for (int64_t n = 0; n < a.top1_images; ++n)
      a.top1_agree += argmax(r + n * classes, classes) == argmax(q + n * classes, classes);
  }
  return a;
}

std::vector<TensorAccuracy> compareOutputs(const TensorMap& reference, const TensorMap& got) {
  std::vector<TensorAccuracy> out;
  for (const auto& [name, t] : got) {
    auto it = reference.find(name);
    if (it == reference.end()) throw Error("accuracy: the float model has no output '" + name + "'");
    out.push_back(compareTensors(name, it->second, t));
  }
  return out;
}

TensorMap floatReference(const compiler::Graph& floatGraph, const TensorMap& inputs) {
  return compiler::interpret(floatGraph, inputs);
}

std::map<std::string, TensorAccuracy> valueAccuracy(const compiler::Graph& floatGraph, const compiler::Graph& quantized,
                                                    const TensorMap& inputs, const std::vector<std::string>& values) {
  const TensorMap f = compiler::interpret(floatGraph, inputs, true);
  const TensorMap q = compiler::interpret(quantized, inputs, true);
  std::map<std::string, TensorAccuracy> out;
  for (const std::string& name : values) {
    const int id = quantized.findValue(name);
    auto qi = q.find(name);
    auto fi = f.find(name);
    if (fi == f.end() && name.size() > 2 && name.ends_with("_q"))
      fi = f.find(name.substr(0, name.size() - 2));          // a graph edge's int8 twin
    if (id < 0 || qi == q.end() || fi == f.end()) continue;  // no float counterpart (a value the quantizer made)
    const compiler::Value& v = quantized.values[static_cast<size_t>(id)];
    if (!compiler::isActivationType(v.type) || !v.quant || fi->second.type != ElemType::Float32 ||
        fi->second.shape != qi->second.shape)
      continue;
    TensorAccuracy a = compareTensors(name, fi->second, dequantize(v, qi->second));
    a.top1_images = a.top1_agree = 0;
    a.saturated = saturatedFraction(quantized, v, qi->second);
    out[name] = a;
  }
  return out;
}

}  // namespace systole::runtime
