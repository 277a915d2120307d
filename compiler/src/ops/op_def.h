// One definition per operator: what the compiler knows about each Op, gathered in one table that
// the importer, shape inference, the float and quantized interpreters, the quantizer, the host JIT
// and the host cost model read. Each family file (elementwise.cpp, linear.cpp, normalization.cpp,
// movement.cpp, quantized.cpp, recurrent.cpp) defines its operators: their float and int8 kernels, shape
// functions, flags and MACs. The back end's operator_registry keeps only NPU facts.
//
// Adding an operator: its name in SYSTOLE_OPERATORS (systole/compiler/op.h) and its entries in one
// family file here (plus, for the NPU, one operator_registry entry and one tiler file).
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <utility>
#include <vector>

#include "ops/float_kernel.h"
#include "ops/int8_kernel.h"
#include "systole/compiler/passes.h"

namespace systole::compiler {

/// What a shape function sees: the node, the model's opset and its inputs (shape, type and, for
/// constants, contents).
struct ShapeCtx {
  const Node& n;
  int64_t opset;
  const std::vector<ops::Operand>& in;

  const ops::Operand& x() const { return in[0]; }
  size_t rank() const { return in.empty() ? 0 : in[0].shape.size(); }
  /// Throws unless inputs 0..count-1 are present.
  void need(size_t count) const;
  /// Every output with the first input's type and `shape`.
  std::vector<OutputInfo> same(std::vector<int64_t> shape) const;
};
using ShapeFn = std::vector<OutputInfo> (*)(const ShapeCtx&);
using MacsFn = int64_t (*)(const Graph& g, const Node& n);

enum OpFlag : uint32_t {
  kImported = 1u << 0,  // an ONNX operator the importer accepts (else a Systole operator, or one not supported)
  kByteCopy = 1u << 1,  // the output holds the input's bytes in the same order (Reshape, Flatten...)
};

/// The int8 form the quantizer gives a float operator where the form's conditions hold
/// (docs/quantized-ops.md; quantize/quantize_classify.cpp checks them); Float: none, it stays float.
enum class Int8Form : uint8_t {
  Float,
  Conv,
  Gemm,
  MatMul,
  Add,  // Add and Sub
  Mul,
  AveragePool,
  GlobalAveragePool,
  MaxPool,
  Relu,
  Clip,
  Move,  // pure data movement: the float kernel moves bytes of any element type, so int8 too
  Concat,
  Lut,       // an element-wise function of one input: on int8, a 256-entry table
  Scale,     // a product with (or quotient by) positive constants: a rescale
  Extremum,  // Max or Min of two activations of one shape
  Softmax,   // over the last axis: the vector unit's exponential table, row sums and reciprocal
  LayerNorm  // over the last axis: row sums, reciprocal square root, per-channel scale and shift
};

struct OpDef {
  Op op = Op::Unknown;
  uint32_t flags = 0;
  int since_opset = 0;    // the first ONNX opset defining the operator as imported (0: any the importer takes)
  size_t min_inputs = 1;  // inputs that must be present before its shape function runs
  ShapeFn shape = nullptr;
  float_kernels::Kernel float_kernel = nullptr;
  Int8Form int8_form = Int8Form::Float;  // its int8 form, and that form's kernel
  int8_kernels::Kernel int8_kernel = nullptr;
  MacsFn macs = nullptr;  // multiply-accumulates of the float operator (nullptr: none)

  bool has(OpFlag f) const { return (flags & f) != 0; }
};

/// The definition of `op` (an empty one, with no kernel or shape function, for Op::Unknown).
const OpDef& opDef(Op op);
inline const OpDef& opDef(const Node& n) { return opDef(n.op.kind()); }

/// The operators' definitions by kind, as the family files fill it in.
class OpTable {
 public:
  OpTable();
  OpDef& operator[](Op op) { return defs_[static_cast<size_t>(op)]; }
  const OpDef& operator[](Op op) const { return defs_[static_cast<size_t>(op)]; }

  void floatKernels(std::initializer_list<std::pair<Op, float_kernels::Kernel>> kernels);
  void int8Kernels(std::initializer_list<std::pair<Op, int8_kernels::Kernel>> kernels);
  void shapes(std::initializer_list<std::pair<Op, ShapeFn>> shapes);
  void flag(OpFlag f, std::initializer_list<Op> ops);
  void int8Form(Int8Form form, std::initializer_list<Op> ops);

 private:
  std::array<OpDef, kOpCount> defs_;
};

// The family files.
void defineElementwiseOps(OpTable& t);    // elementwise.cpp
void defineLinearOps(OpTable& t);         // linear.cpp
void defineNormalizationOps(OpTable& t);  // normalization.cpp
void defineMovementOps(OpTable& t);       // movement.cpp
void defineQuantizedOps(OpTable& t);      // quantized.cpp
void defineRecurrentOps(OpTable& t);      // recurrent.cpp

}  // namespace systole::compiler
