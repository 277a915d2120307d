// Fusion and pattern recognition (fuse-bias, fuse-activation, recognize-layernorm,
// recognize-gelu), shape inference and the pass pipeline on small hand-built graphs: the rewrite
// happens (or, where a precondition fails, does not), the graph stays valid (verification after
// every pass is on), and the optimized graph computes what the original did.
#include <gtest/gtest.h>

#include "passes/pass_test_util.h"
#include "systole/isa/diagnostic.h"

namespace systole::testing {
namespace {

// ---- fuse-bias, fuse-activation ----------------------------------------------------------------

TEST(Fusion, ConvBiasAddRelu) {
  Builder b;
  const int x = b.input("x", {1, 3, 5, 5});
  const int conv = b.op("Conv", {x, b.constant({4, 3, 3, 3}, 70), b.constant({4}, 71)});
  const int add = b.op("Add", {b.constant({4, 1, 1}, 72), conv});
  b.output(b.op("Relu", {add}, {}, "y"));
  const Graph before = b.done();
  const Graph after = optimized(before);
  ASSERT_EQ(opCounts(after), (std::map<std::string, int>{{"Conv", 1}}));
  const Node& c = onlyNode(after, "Conv");
  EXPECT_EQ(c.getString("activation", ""), "relu");
  EXPECT_EQ(after.values[static_cast<size_t>(c.outputs[0])].name, "y");
  expectSameResults(before, after);
}

TEST(Fusion, GemmBiasClipFromConstantInputs) {
  Builder b;
  const int x = b.input("x", {2, 4});
  const int gemm = b.op("Gemm", {x, b.constant({3, 4}, 80)}, {{"transB", int64_t{1}}});
  const int add = b.op("Add", {gemm, b.constant({1, 3}, 81)});
  b.output(b.op("Clip", {add, b.scalar(0.f), b.scalar(6.f)}, {}, "y"));
  const Graph before = b.done();
  const Graph after = optimized(before);
  ASSERT_EQ(opCounts(after), (std::map<std::string, int>{{"Gemm", 1}}));
  const Node& gm = onlyNode(after, "Gemm");
  EXPECT_EQ(gm.getString("activation", ""), "clip");
  EXPECT_EQ(gm.getFloat("clip_min", -1), 0.0);
  EXPECT_EQ(gm.getFloat("clip_max", -1), 6.0);
  expectSameResults(before, after);
}

TEST(Fusion, LegacyClipAttributesAndClipWithoutMaxIsRelu) {
  Builder b;
  b.g.opset = 9;
  const int x = b.input("x", {1, 2, 4, 4});
  const int c1 = b.op("Conv", {x, b.constant({2, 2, 1, 1}, 90)});
  const int r1 = b.op("Clip", {c1}, {{"min", -1.0}, {"max", 1.0}});
  const int c2 = b.op("Conv", {r1, b.constant({2, 2, 1, 1}, 91)});
  b.output(b.op("Clip", {c2}, {{"min", 0.0}}, "y"));
  const Graph before = b.done();
  const Graph after = optimized(before);
  ASSERT_EQ(opCounts(after), (std::map<std::string, int>{{"Conv", 2}}));
  std::vector<std::string> acts;
  for (const auto& n : after.nodes) acts.push_back(n.getString("activation", ""));
  EXPECT_EQ(acts, (std::vector<std::string>{"clip", "relu"}));
  expectSameResults(before, after);
}

TEST(Fusion, MatMulBiasBecomesThirdInput) {
  Builder b;
  const int x = b.input("x", {2, 3, 4});
  const int mm = b.op("MatMul", {x, b.constant({4, 5}, 100)});
  b.output(b.op("Relu", {b.op("Add", {b.constant({5}, 101), mm})}, {}, "y"));
  const Graph before = b.done();
  const Graph after = optimized(before);
  ASSERT_EQ(opCounts(after), (std::map<std::string, int>{{"MatMul", 1}}));
  const Node& m = onlyNode(after, "MatMul");
  EXPECT_EQ(m.inputs.size(), 3u);
  EXPECT_EQ(m.getString("activation", ""), "relu");
  expectSameResults(before, after);
}

TEST(Fusion, ResidualAddRelu) {
  Builder b;
  const int x = b.input("x", {1, 2, 3, 3});
  const int conv = b.op("Conv", {x, b.constant({2, 2, 1, 1}, 110)});
  b.output(b.op("Relu", {b.op("Add", {x, conv})}, {}, "y"));
  const Graph before = b.done();
  const Graph after = optimized(before);
  ASSERT_EQ(opCounts(after), (std::map<std::string, int>{{"Add", 1}, {"Conv", 1}}));
  EXPECT_EQ(onlyNode(after, "Add").getString("activation", ""), "relu");
  EXPECT_FALSE(onlyNode(after, "Conv").has("activation"));
  expectSameResults(before, after);
}

TEST(Fusion, NotWhenTheIntermediateHasOtherReaders) {
  Builder b;
  const int x = b.input("x", {1, 2, 3, 3});
  const int conv = b.op("Conv", {x, b.constant({2, 2, 1, 1}, 120)});
  const int relu = b.op("Relu", {conv});
  b.output(b.op("Add", {relu, conv}, {}, "y"));
  const Graph after = optimized(b.done());
  EXPECT_EQ(opCounts(after).count("Relu"), 1u);
  EXPECT_FALSE(onlyNode(after, "Conv").has("activation"));
}

TEST(Fusion, NonChannelBiasIsNotFolded) {
  Builder b;
  const int x = b.input("x", {1, 2, 3, 3});
  const int conv = b.op("Conv", {x, b.constant({2, 2, 1, 1}, 130)});
  b.output(b.op("Add", {conv, b.constant({3}, 131)}, {}, "y"));  // broadcasts along W, not channels
  const Graph before = b.done();
  const Graph after = optimized(before);
  EXPECT_EQ(opCounts(after).count("Add"), 1u);
  expectSameResults(before, after);
}

// ---- recognize-layernorm, recognize-gelu -------------------------------------------------------

int decomposedLayerNorm(Builder& b, int x, bool affine) {
  const int mean = b.op("ReduceMean", {x}, {{"axes", Shape{-1}}});
  const int d = b.op("Sub", {x, mean});
  const int var = b.op("ReduceMean", {b.op("Pow", {d, b.scalar(2.f)})}, {{"axes", Shape{-1}}});
  const int sd = b.op("Sqrt", {b.op("Add", {var, b.scalar(1e-5f)})});
  const int n = b.op("Div", {d, sd});
  if (!affine) return n;
  return b.op("Add", {b.op("Mul", {n, b.constant({8}, 140)}), b.constant({8}, 141)});
}

TEST(RecognizeLayerNorm, TorchDecompositionBecomesOneNode) {
  for (bool affine : {true, false}) {
    Builder b;
    const int x = b.input("x", {2, 3, 8});
    const int ln = decomposedLayerNorm(b, x, affine);
    b.output(b.op("Identity", {ln}, {}, "y"));
    const Graph before = b.done();
    const Graph after = optimized(before);
    ASSERT_EQ(opCounts(after), (std::map<std::string, int>{{"LayerNormalization", 1}})) << affine;
    const Node& n = onlyNode(after, "LayerNormalization");
    EXPECT_EQ(n.getInt("axis", 0), -1);
    EXPECT_NEAR(n.getFloat("epsilon", 0), 1e-5, 1e-12);
    EXPECT_EQ(n.inputs.size(), affine ? 3u : 2u);
    expectSameResults(before, after, 1e-5);
  }
}

TEST(RecognizeLayerNorm, WrongAxesOrExponentDoNotMatch) {
  Builder b;
  const int x = b.input("x", {2, 8});
  const int mean = b.op("ReduceMean", {x}, {{"axes", Shape{0}}});  // not the trailing axis
  const int d = b.op("Sub", {x, mean});
  const int var = b.op("ReduceMean", {b.op("Pow", {d, b.scalar(2.f)})}, {{"axes", Shape{0}}});
  b.output(b.op("Div", {d, b.op("Sqrt", {b.op("Add", {var, b.scalar(1e-5f)})})}, {}, "y"));
  const Graph after = optimized(b.done());
  EXPECT_EQ(opCounts(after).count("LayerNormalization"), 0u);
}

TEST(RecognizeGelu, AllThreeGroupings) {
  for (int variant = 0; variant < 3; ++variant) {
    Builder b;
    const int x = b.input("x", {2, 16});
    const int t = variant == 1 ? b.op("Mul", {x, b.scalar(0.70710678f)}) : b.op("Div", {x, b.scalar(1.41421356f)});
    const int a = b.op("Add", {b.scalar(1.f), b.op("Erf", {t})});
    int y;
    if (variant == 0)
      y = b.op("Mul", {b.op("Mul", {x, a}), b.scalar(0.5f)});
    else if (variant == 1)
      y = b.op("Mul", {b.op("Mul", {x, b.scalar(0.5f)}), a});
    else
      y = b.op("Mul", {x, b.op("Mul", {a, b.scalar(0.5f)})});
    b.output(b.op("Identity", {y}, {}, "y"));
    const Graph before = b.done();
    const Graph after = optimized(before);
    EXPECT_EQ(opCounts(after), (std::map<std::string, int>{{"Gelu", 1}})) << variant;
    expectSameResults(before, after);
  }
}

TEST(RecognizeGelu, WrongConstantDoesNotMatch) {
  Builder b;
  const int x = b.input("x", {4});
  const int a = b.op("Add", {b.op("Erf", {b.op("Div", {x, b.scalar(2.f)})}), b.scalar(1.f)});
  b.output(b.op("Mul", {b.op("Mul", {x, a}), b.scalar(0.5f)}, {}, "y"));
  EXPECT_EQ(opCounts(optimized(b.done())).count("Gelu"), 0u);
}

// ---- infer-shapes and the pipeline -------------------------------------------------------------

/// The message of the Error inferShapes throws for `g`.
std::string shapeError(Graph g) {
  try {
    compiler::inferShapes(g);
  } catch (const Error& e) {
    return e.message();
  }
  return "no error";
}

// Shape arithmetic is overflow-checked and a tensor's size is capped, naming the node (issue 16
// D6: Conv pads of 2^62 wrapped into an undersized buffer; D7: 2^40 ended in std::bad_alloc).
TEST(ShapeInference, OverflowingOrHugeShapesNameTheNode) {
  const int64_t big = int64_t{1} << 62;
  Builder pad62;
  pad62.output(pad62.op("Pad", {pad62.input("x", {1, 2, 8, 8}), pad62.ints({0, 0, 0, big, 0, 0, 0, big})}, {}, "y"));
  EXPECT_NE(shapeError(pad62.g).find("(Pad): inconsistent shapes: shape arithmetic overflows int64"), std::string::npos)
      << shapeError(pad62.g);

  Builder conv;
  const int w = conv.constant({4, 2, 3, 3}, 151);
  conv.output(
      conv.op("Conv", {conv.input("x", {1, 2, 8, 8}), w}, {{"pads", std::vector<int64_t>{big, 0, big, 0}}}, "y"));
  EXPECT_NE(shapeError(conv.g).find("(Conv): inconsistent shapes: shape arithmetic overflows int64"), std::string::npos)
      << shapeError(conv.g);

  Builder pad40;
  const int64_t t = int64_t{1} << 40;
  pad40.output(pad40.op("Pad", {pad40.input("x", {1, 2, 8, 8}), pad40.ints({0, 0, 0, t, 0, 0, 0, t})}, {}, "y"));
  EXPECT_NE(shapeError(pad40.g).find("(Pad): output 'y' has the shape [1,2,8,2199023255560], more than the limit of " +
                                     std::to_string(compiler::kMaxTensorElements) + " elements per tensor"),
            std::string::npos)
      << shapeError(pad40.g);

  EXPECT_THROW(compiler::shapeElements({int64_t{1} << 32, int64_t{1} << 32}), Error);
  EXPECT_NO_THROW(compiler::checkTensorSize({0, int64_t{1} << 40}, "empty"));
}

TEST(ShapeInference, InconsistentDeclaredShapeNamesTheNode) {
  Builder b;
  const int x = b.input("x", {2, 4});
  const int y = b.op("MatMul", {x, b.constant({4, 3}, 150)}, {}, "y");
  b.g.values[static_cast<size_t>(y)].shape = {2, 5};
  b.output(b.op("Relu", {y}));
  try {
    compiler::inferShapes(b.g);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("node 'MatMul_"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("(MatMul): inconsistent shapes"), std::string::npos) << e.message();
  }
}

// A graph output's declared shape is the exporter's claim: where it is wrong, the computed shape
// wins, as in onnxruntime (ddddocr's OCR declares [1, -1] and returns [20, 1, 8210]).
TEST(ShapeInference, ComputedShapeOverridesAWrongDeclaredOutput) {
  Builder b;
  const int x = b.input("x", {2, 4});
  const int y = b.op("MatMul", {x, b.constant({4, 3}, 150)}, {}, "y");
  b.g.values[static_cast<size_t>(y)].shape = {1, -1};
  b.output(y);
  compiler::inferShapes(b.g);
  EXPECT_EQ(b.g.values[static_cast<size_t>(y)].shape, (Shape{2, 3}));
}

TEST(ShapeInference, FillsUnknownDimensionsAndRanks) {
  Builder b;
  const int x = b.input("x", {1, 3, 8, 8});
  const int p =
      b.op("MaxPool", {x}, {{"kernel_shape", Shape{3, 3}}, {"strides", Shape{2, 2}}, {"ceil_mode", int64_t{1}}});
  b.g.values[static_cast<size_t>(p)].shape = {1, -1, -1, 4};
  b.output(p);
  compiler::inferShapes(b.g);
  EXPECT_EQ(b.g.values[static_cast<size_t>(p)].shape, (Shape{1, 3, 4, 4}));
}

TEST(Pipeline, UnknownPassIsAnError) {
  Graph g;
  EXPECT_THROW(compiler::runPasses(g, {"no-such-pass"}), Error);
  EXPECT_NE(compiler::findPass("fold-constants"), nullptr);
  EXPECT_EQ(compiler::defaultPipeline().front(), "infer-shapes");
}

TEST(Pipeline, HookSeesEveryPassAndVerifierCatchesBrokenGraphs) {
  Builder b;
  const int x = b.input("x", {2});
  b.output(b.op("Relu", {x}, {}, "y"));
  Graph g = b.done();
  std::vector<std::string> seen;
  compiler::PassOptions o = verifying();
  o.afterPass = [&](const compiler::PassInfo& p, const Graph&, double) { seen.emplace_back(p.name); };
  compiler::runPasses(g, compiler::defaultPipeline(), o);
  EXPECT_EQ(seen, compiler::defaultPipeline());

  Graph broken = b.done();
  broken.nodes[0].inputs[0] = 99;  // dangling id
  EXPECT_THROW(compiler::runPasses(broken, {"dce"}, verifying()), Error);
}

}  // namespace
}  // namespace systole::testing
