// Operator kinds: every operator the compiler knows — the ONNX operators it imports and the Systole
// operators its passes create — as one enum, so that code outside the importer tests an operator by
// its kind (`n.op == Op::Conv`), never by comparing strings. What the compiler knows about each
// kind (opsets, shape function, kernels, flags, MACs) is its definition in compiler/src/ops/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

namespace systole::compiler {

// Every operator kind, by its ONNX (or Systole) name. Adding an operator: one name here and its
// definition in compiler/src/ops/.
// clang-format off
#define SYSTOLE_OPERATORS(X)                                                                                  \
  X(Abs) X(Add) X(And) X(AveragePool) X(BatchNormalization) X(Cast) X(Clip) X(Concat) X(Constant)             \
  X(ConstantOfShape) X(Conv) X(ConvTranspose) X(DepthToSpace) X(DequantizeLinear) X(Div) X(Dropout) X(Elu)    \
  X(Equal) X(Erf) X(Exp) X(Expand) X(Flatten) X(FlattenNhwc) X(Gather) X(Gelu) X(Gemm) X(GlobalAveragePool) X(Greater)  \
  X(GreaterOrEqual) X(HardSigmoid) X(HardSwish) X(Identity) X(LayerNormalization) X(LeakyRelu) X(Less)        \
  X(LessOrEqual) X(Log) X(LSTM) X(Lut) X(MatMul) X(Max) X(MaxPool) X(Min) X(Mul) X(Neg) X(Not) X(Or) X(Pad) X(Pow) X(PRelu)  \
  X(QuantizeLinear) X(ReduceMax) X(ReduceMean) X(ReduceSum) X(Relu) X(Requant) X(Reshape) X(Resize) X(Shape) X(Sigmoid)    \
  X(Slice) X(Softmax) X(Softplus) X(Softsign) X(Split) X(Sqrt) X(Squeeze) X(Sub) X(Tanh) X(Transpose)         \
  X(UnflattenNhwc) X(Unsqueeze) X(Upsample) X(Where) X(Xor)
// clang-format on

enum class Op : uint8_t {
  Unknown,  // an operator type the compiler does not know (kept by name for the error it causes)
#define SYSTOLE_OP_ENUM(name) name,
  SYSTOLE_OPERATORS(SYSTOLE_OP_ENUM)
#undef SYSTOLE_OP_ENUM
};

/// The number of kinds (Unknown included): Op values are 0 .. kOpCount - 1.
inline constexpr size_t kOpCount = 1
#define SYSTOLE_OP_COUNT(name) +1
    SYSTOLE_OPERATORS(SYSTOLE_OP_COUNT)
#undef SYSTOLE_OP_COUNT
    ;

/// The operator's name ("" for Unknown).
std::string_view opName(Op op);
/// The kind named `name`, or Op::Unknown.
Op opFromName(std::string_view name);

class Graph;
struct Node;
/// Multiply-accumulates of a node's operator by its definition (Conv, Gemm, MatMul; 0 for others).
int64_t operatorMacs(const Graph& g, const Node& n);
/// Whether the operator's output holds its input's bytes in the same order (Identity, Reshape,
/// Flatten, Squeeze, Unsqueeze, Dropout).
bool isByteCopy(Op op);

/// A node's operator: its kind and the name it was given (the same, except for an unknown type,
/// whose name is kept for messages). Assigning a name or a kind keeps the two in step.
class OpType {
 public:
  OpType() = default;
  OpType(Op op) : kind_(op), name_(opName(op)) {}                          // NOLINT(google-explicit-constructor)
  OpType(std::string_view name) : kind_(opFromName(name)), name_(name) {}  // NOLINT
  OpType(const std::string& name) : OpType(std::string_view(name)) {}      // NOLINT
  OpType(const char* name) : OpType(std::string_view(name)) {}             // NOLINT

  Op kind() const { return kind_; }
  const std::string& name() const { return name_; }
  operator const std::string&() const { return name_; }  // NOLINT: messages and printing

  bool operator==(Op op) const { return kind_ == op; }
  bool operator==(const OpType& o) const { return name_ == o.name_; }
  bool operator<(const OpType& o) const { return name_ < o.name_; }

  friend std::string operator+(const std::string& s, const OpType& o) { return s + o.name_; }
  friend std::string operator+(const char* s, const OpType& o) { return s + o.name_; }
  friend std::string operator+(const OpType& o, const std::string& s) { return o.name_ + s; }
  friend std::string operator+(const OpType& o, const char* s) { return o.name_ + s; }
  friend std::ostream& operator<<(std::ostream& os, const OpType& o) { return os << o.name_; }

 private:
  Op kind_ = Op::Unknown;
  std::string name_;
};

}  // namespace systole::compiler
