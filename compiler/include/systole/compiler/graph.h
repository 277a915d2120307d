// The compiler's graph IR: typed values (shape, element type, quantization, constant data) and
// operator nodes that keep ONNX's operator meaning (Conv, MatMul, Add...) until the back end
// lowers them. Every stage prints as stable text (systole compile --emit=graph|opt|quant).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "systole/compiler/op.h"

namespace systole::compiler {

enum class ElemType : uint8_t {
  Float32,
  Int8,
  Int32,
  Int64,
  Bool,
  Int16
};  // Bool: one byte, 0 or 1; numbered as stored in artifacts
std::string_view elemTypeName(ElemType t);
int elemTypeBytes(ElemType t);
/// Whether `t` is a quantized activation's type (types.activation: int8 or int16), and its width.
inline bool isActivationType(ElemType t) { return t == ElemType::Int8 || t == ElemType::Int16; }
inline int activationBits(ElemType t) { return t == ElemType::Int16 ? 16 : 8; }

/// The most elements one tensor may have (1 GiB of float32), and so the largest dimension or
/// window attribute: a larger shape is rejected where it first appears (import, shape inference),
/// naming the node or value, instead of failing an allocation or overflowing later.
inline constexpr int64_t kMaxTensorElements = int64_t{1} << 28;

/// A shape as text: [1,3,224,224].
std::string shapeText(const std::vector<int64_t>& shape);

/// The product of `shape`'s dimensions (1 for a scalar); throws Error if it overflows int64.
int64_t shapeElements(const std::vector<int64_t>& shape);

/// Throws Error("WHAT has the shape [...], ...") unless every dimension is >= 0 and the tensor has
/// at most kMaxTensorElements elements.
void checkTensorSize(const std::vector<int64_t>& shape, const std::string& what);

/// Affine quantization: real = scale * (q - zero_point). Per-tensor when axis = -1 (one scale and
/// zero point), else one per index of dimension `axis` (weights: the output-channel axis).
struct Quant {
  std::vector<float> scale;
  std::vector<int32_t> zero_point;
  int axis = -1;
  bool operator==(const Quant&) const = default;
};

struct Value {
  std::string name;
  ElemType type = ElemType::Float32;
  std::vector<int64_t> shape;  // row-major; empty for a scalar
  std::optional<Quant> quant;
  bool is_constant = false;
  std::vector<uint8_t> data;  // a constant's contents, row-major, little-endian
  int producer = -1;          // index of the node that writes it; -1 for inputs and constants

  int64_t elements() const;
  template <typename T>
  const T* as() const {
    return reinterpret_cast<const T*>(data.data());
  }
};

using AttrValue = std::variant<int64_t, double, std::string, std::vector<int64_t>, std::vector<double>>;

struct Node {
  std::string name;
  OpType op;                // ONNX op type, or a Systole op (see docs/quantized-ops.md)
  std::vector<int> inputs;  // value ids; -1 marks an omitted optional input
  std::vector<int> outputs;
  std::map<std::string, AttrValue> attrs;
  bool dead = false;  // removed by a pass; dropped by Graph::compact()

  bool has(const std::string& attr) const { return attrs.count(attr) != 0; }
  int64_t getInt(const std::string& attr, int64_t fallback) const;
  double getFloat(const std::string& attr, double fallback) const;
  std::string getString(const std::string& attr, const std::string& fallback) const;
  std::vector<int64_t> getInts(const std::string& attr, std::vector<int64_t> fallback = {}) const;
  std::vector<double> getFloats(const std::string& attr, std::vector<double> fallback = {}) const;
};

class Graph {
 public:
  std::vector<Value> values;
  std::vector<Node> nodes;
  std::vector<int> inputs;   // graph inputs (value ids), in ONNX order
  std::vector<int> outputs;  // graph outputs
  int64_t opset = 0;

  int addValue(Value v);
  /// Appends a node and records it as the producer of its outputs.
  int addNode(Node n);
  int findValue(const std::string& name) const;  // -1 if absent

  /// Live nodes in an order where every node follows the producers of its inputs.
  std::vector<int> topoOrder() const;
  /// For each value, the live nodes that read it.
  std::vector<std::vector<int>> users() const;
  /// Drops dead nodes and values nothing refers to, renumbering ids.
  void compact();
  /// Throws systole::Error naming the first broken invariant (dangling ids, two producers, a
  /// cycle, a graph output without producer or constant).
  void verify() const;
  /// Stable text: one line per value declaration and per node, in topological order.
  std::string print() const;
};

}  // namespace systole::compiler
