// What the int8 kernels of the quantized interpreter share (docs/quantized-ops.md): the call
// signature each operator's definition gives its kernel, per-tensor quantization, attribute
// readers and the requantizer, all through systole/isa/arith.h so every rounding and wrap-around
// matches the NPU. Activations are int8 or, on a config with int16 activations, int16 (one width
// per graph): a kernel is written once over the lane type (forLanes).
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "systole/compiler/interpreter.h"
#include "systole/compiler/quant_math.h"
#include "systole/isa/arith.h"
#include "systole/isa/diagnostic.h"

namespace systole::compiler::int8_kernels {

namespace arith = isa::arith;

/// One int8 operator: the node, its input tensors and its one output, shaped from the graph.
using Kernel = void (*)(const Graph& g, const Node& n, const std::vector<const HostTensor*>& in, HostTensor& y);

struct PerTensor {
  float scale;
  int32_t zero_point;
};

inline const Value& valueOf(const Graph& g, int id) { return g.values.at(static_cast<size_t>(id)); }

inline PerTensor perTensorQuant(const Graph& g, int id) {
  const Value& v = valueOf(g, id);
  if (!v.quant || v.quant->scale.size() != 1 || v.quant->zero_point.size() != 1)
    throw Error("tensor '" + v.name + "' has no per-tensor quantization");
  return {v.quant->scale[0], v.quant->zero_point[0]};
}

inline void expectType(const HostTensor* t, ElemType type, const std::string& what) {
  if (t == nullptr) throw Error(what + " is missing");
  if (t->type != type)
    throw Error(what + " must be " + std::string(elemTypeName(type)) + ", not " + std::string(elemTypeName(t->type)));
}

/// Throws unless `t` is a quantized activation of the type `like` has (or of either width, when
/// `like` is null).
inline void expectActivation(const HostTensor* t, const std::string& what, const HostTensor* like = nullptr) {
  if (t == nullptr) throw Error(what + " is missing");
  if (like) return expectType(t, like->type, what);
  if (!isActivationType(t->type)) throw Error(what + " must be i8 or i16, not " + std::string(elemTypeName(t->type)));
}

/// Runs fn.template operator()<Lane>() with Lane the C++ type of activation type `t` (int8_t or
/// int16_t): a kernel's body written once for both widths.
template <typename Fn>
void forLanes(ElemType t, Fn&& fn) {
  if (t == ElemType::Int8) return fn.template operator()<int8_t>();
  if (t == ElemType::Int16) return fn.template operator()<int16_t>();
  throw Error("a quantized activation must be i8 or i16, not " + std::string(elemTypeName(t)));
}

/// An integer attribute given as one int or as a list.
inline std::vector<int64_t> intsAttr(const Node& n, const std::string& name) {
  if (!n.has(name)) throw Error("missing attribute '" + name + "'");
  if (auto* v = std::get_if<std::vector<int64_t>>(&n.attrs.at(name))) return *v;
  if (auto* i = std::get_if<int64_t>(&n.attrs.at(name))) return {*i};
  throw Error("attribute '" + name + "' must be an integer or integers");
}

inline int32_t intAttr(const Node& n, const std::string& name) {
  const std::vector<int64_t> v = intsAttr(n, name);
  if (v.size() != 1) throw Error("attribute '" + name + "' must be one integer");
  return static_cast<int32_t>(v[0]);
}

/// multiplier/shift, one per channel or one for all, into an activation of `bits` bits.
struct Requantizer {
  std::vector<int64_t> multiplier, shift;
  int bits;
  int32_t zero_point = 0, act_min, act_max;

  Requantizer(const Node& n, int64_t channels, int32_t zp, bool clamp, int laneBits)
      : bits(laneBits), zero_point(zp), act_min(arith::activationMin(bits)), act_max(arith::activationMax(bits)) {
    multiplier = intsAttr(n, "multiplier");
    shift = intsAttr(n, "shift");
    if (multiplier.size() != shift.size() ||
        (multiplier.size() != 1 && static_cast<int64_t>(multiplier.size()) != channels))
      throw Error("'multiplier' and 'shift' must have one entry or one per output channel");
    if (clamp) {
      act_min = intAttr(n, "act_min");
      act_max = intAttr(n, "act_max");
    }
  }
  int16_t operator()(int32_t acc, int64_t channel) const {
    const size_t i = multiplier.size() == 1 ? 0 : static_cast<size_t>(channel);
    return arith::requantizeLane(acc, static_cast<int32_t>(multiplier[i]), static_cast<int32_t>(shift[i]), zero_point,
                                 act_min, act_max, bits);
  }
};

}  // namespace systole::compiler::int8_kernels
