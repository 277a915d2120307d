// The operator definitions (compiler/src/ops/): kinds and names, and what the importer, shape
// inference, the interpreters, the quantizer and the host cost model read from them.
#include <gtest/gtest.h>

#include "ops/op_def.h"
#include "quantize/quantize_lut.h"
#include "systole/compiler/onnx_import.h"

namespace systole::compiler {
namespace {

TEST(Ops, NamesRoundTrip) {
  for (size_t i = 1; i < kOpCount; ++i) {
    const Op op = static_cast<Op>(i);
    EXPECT_EQ(opFromName(opName(op)), op) << opName(op);
  }
  EXPECT_EQ(opFromName("Loop"), Op::Unknown);
  EXPECT_EQ(opFromName(""), Op::Unknown);
}

TEST(Ops, OpTypeKeepsKindAndName) {
  Node n;
  n.op = "Conv";
  EXPECT_TRUE(n.op == Op::Conv);
  EXPECT_EQ(n.op.name(), "Conv");
  n.op = Op::MatMul;
  EXPECT_TRUE(n.op == Op::MatMul);
  EXPECT_EQ(n.op.name(), "MatMul");
  n.op = "Loop";  // unknown: the name stays for messages
  EXPECT_TRUE(n.op == Op::Unknown);
  EXPECT_EQ("node (" + n.op + ")", "node (Loop)");
}

TEST(Ops, EveryImportedOperatorHasAShapeFunctionAndAFloatKernel) {
  ASSERT_FALSE(supportedOps().empty());
  for (const std::string& name : supportedOps()) {
    const OpDef& def = opDef(opFromName(name));
    EXPECT_NE(def.shape, nullptr) << name;
    EXPECT_NE(def.float_kernel, nullptr) << name;
  }
  // Systole's own operators are never imported.
  for (Op op :
       {Op::FlattenNhwc, Op::UnflattenNhwc, Op::Lut, Op::Requant, Op::QuantizeLinear, Op::DequantizeLinear, Op::Gelu})
    EXPECT_FALSE(isSupportedOp(opName(op))) << opName(op);
}

TEST(Ops, Flags) {
  EXPECT_TRUE(isByteCopy(Op::Reshape));
  EXPECT_TRUE(isByteCopy(Op::Dropout));
  EXPECT_FALSE(isByteCopy(Op::Transpose));  // moves bytes, in another order
  EXPECT_EQ(opDef(Op::Transpose).int8_form, Int8Form::Move);
  EXPECT_EQ(opDef(Op::Sub).int8_form, Int8Form::Add);          // a - b is an Add whose b multiplier is negative
  EXPECT_EQ(opDef(Op::Softmax).int8_form, Int8Form::Softmax);  // the vector unit's table, sums and reciprocal
  EXPECT_EQ(opDef(Op::LayerNormalization).int8_form, Int8Form::LayerNorm);
  // Every operator that the quantized graph can hold has an int8 kernel (the quantizer renames
  // Sub to Add, a Lut-able function to Lut, a Scale to Identity or Requant; data moves run the
  // float kernels on bytes).
  for (Op op :
       {Op::Conv, Op::Gemm, Op::MatMul, Op::Add, Op::Mul, Op::MaxPool, Op::AveragePool, Op::GlobalAveragePool, Op::Relu,
        Op::Clip, Op::Concat, Op::Max, Op::Min, Op::QuantizeLinear, Op::DequantizeLinear, Op::Requant, Op::Lut})
    EXPECT_NE(opDef(op).int8_kernel, nullptr) << opName(op);
  EXPECT_TRUE(isLutOperator(Op::Sigmoid));
  EXPECT_FALSE(isLutOperator(Op::Relu));  // a rescale on the NPU, not a table
  EXPECT_EQ(opDef(Op::LayerNormalization).since_opset, 17);
}

/// A graph with one node of `op` on inputs of the given shapes (the output shape from inference).
Graph oneNode(Op op, const std::vector<std::vector<int64_t>>& inputs, std::map<std::string, AttrValue> attrs = {}) {
  Graph g;
  g.opset = 14;
  Node n;
  n.name = "n";
  n.op = op;
  n.attrs = std::move(attrs);
  for (size_t k = 0; k < inputs.size(); ++k) {
    Value v;
    v.name = "in" + std::to_string(k);
    v.shape = inputs[k];
    n.inputs.push_back(g.addValue(v));
  }
  Value out;
  out.name = "out";
  out.shape = {-1};
  n.outputs.push_back(g.addValue(out));
  g.addNode(n);
  inferShapes(g);
  return g;
}

TEST(Ops, ShapeFunctionsAndMacs) {
  const Graph conv = oneNode(Op::Conv, {{1, 8, 10, 10}, {16, 8, 3, 3}}, {{"pads", std::vector<int64_t>{1, 1, 1, 1}}});
  EXPECT_EQ(conv.values.back().shape, (std::vector<int64_t>{1, 16, 10, 10}));
  EXPECT_EQ(operatorMacs(conv, conv.nodes[0]), int64_t{16 * 10 * 10} * 8 * 9);

  const Graph gemm = oneNode(Op::Gemm, {{4, 32}, {10, 32}}, {{"transB", int64_t{1}}});
  EXPECT_EQ(gemm.values.back().shape, (std::vector<int64_t>{4, 10}));
  EXPECT_EQ(operatorMacs(gemm, gemm.nodes[0]), 4 * 10 * 32);

  const Graph add = oneNode(Op::Add, {{2, 1, 5}, {3, 1}});
  EXPECT_EQ(add.values.back().shape, (std::vector<int64_t>{2, 3, 5}));
  EXPECT_EQ(operatorMacs(add, add.nodes[0]), 0);

  const Graph less = oneNode(Op::Less, {{4}, {4}});
  EXPECT_EQ(less.values.back().type, ElemType::Bool);

  EXPECT_THROW(oneNode(Op::MatMul, {{2, 3}, {4, 5}}), Error);  // inner dimensions differ
  EXPECT_THROW(oneNode(Op::Requant, {{2, 3}}), Error);         // no shape function
}

}  // namespace
}  // namespace systole::compiler
