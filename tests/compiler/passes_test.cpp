// Each graph pass on small hand-built graphs: the rewrite happens (or, where a precondition fails,
// does not), the graph stays valid (verification after every pass is on), output names survive,
// and the optimized graph computes what the original did (run both through the interpreter).
#include <gtest/gtest.h>

#include "compiler_test_util.h"
#include "systole/isa/diagnostic.h"

namespace systole::testing {
namespace {

class Builder {
 public:
  Builder() { g.opset = 14; }
  Graph g;

  int input(const std::string& name, Shape shape) {
    const int v = value(name, std::move(shape));
    g.inputs.push_back(v);
    return v;
  }
  int constant(Shape shape, uint64_t seed, float lo = -1.f, float hi = 1.f) {
    const HostTensor t = randomTensor(shape, seed, lo, hi);
    return constantFrom(t);
  }
  int scalar(float x) { return constantFrom(floatTensor({}, {x})); }
  int ints(std::vector<int64_t> v) { return constantFrom(intTensor({static_cast<int64_t>(v.size())}, v)); }
  int constantFrom(const HostTensor& t) {
    Value v;
    v.name = "c" + std::to_string(counter_++);
    v.type = t.type;
    v.shape = t.shape;
    v.is_constant = true;
    v.data = t.bytes;
    return g.addValue(std::move(v));
  }
  int op(const std::string& type, std::vector<int> inputs, std::map<std::string, AttrValue> attrs = {}, const std::string& out = "") {
    Node n;
    n.name = type + "_" + std::to_string(counter_);
    n.op = type;
    n.inputs = std::move(inputs);
    n.attrs = std::move(attrs);
    const int v = value(out.empty() ? "v" + std::to_string(counter_++) : out, {-1});
    n.outputs = {v};
    g.addNode(std::move(n));
    return v;
  }
  void output(int v) { g.outputs.push_back(v); }

  /// Shapes filled in, ready to interpret.
  Graph done() {
    Graph copy = g;
    compiler::inferShapes(copy);
    return copy;
  }

 private:
  int value(const std::string& name, Shape shape) {
    Value v;
    v.name = name;
    v.shape = std::move(shape);
    return g.addValue(std::move(v));
  }
  int counter_ = 0;
};

std::map<std::string, int> opCounts(const Graph& g) {
  std::map<std::string, int> c;
  for (const auto& n : g.nodes)
    if (!n.dead) ++c[n.op];
  return c;
}

const Node& onlyNode(const Graph& g, const std::string& op) {
  for (const auto& n : g.nodes)
    if (!n.dead && n.op == op) return n;
  throw std::runtime_error("no " + op + " node");
}

compiler::PassOptions verifying() {
  compiler::PassOptions o;
  o.verify = true;
  return o;
}

Graph optimized(Graph g, const std::vector<std::string>& pipeline = compiler::defaultPipeline()) {
  compiler::runPasses(g, pipeline, verifying());
  return g;
}

/// The original and the optimized graph give the same outputs (same names) on seeded inputs.
void expectSameResults(const Graph& before, const Graph& after, double tol = 1e-5) {
  const auto inputs = randomInputs(before, 7);
  const auto want = compiler::interpret(before, inputs);
  const auto got = compiler::interpret(after, inputs);
  ASSERT_EQ(want.size(), got.size());
  for (const auto& [name, t] : want) {
    ASSERT_TRUE(got.count(name)) << "output " << name << " lost its name";
    EXPECT_LE(maxAbsDiff(got.at(name), t), tol * std::max(1.0, maxAbs(t))) << name;
  }
}

// ---- remove-identity, dce, cse -----------------------------------------------------------------

TEST(RemoveIdentity, IdentityAndDropoutVanishOutputNamesStay) {
  Builder b;
  const int x = b.input("x", {2, 3});
  const int i1 = b.op("Identity", {x});
  const int r = b.op("Relu", {i1});
  const int d = b.op("Dropout", {r}, {{"ratio", 0.5}});
  const int y = b.op("Identity", {d}, {}, "y");
  b.output(y);
  const Graph before = b.done();
  const Graph after = optimized(before, {"infer-shapes", "remove-identity"});
  EXPECT_EQ(opCounts(after), (std::map<std::string, int>{{"Relu", 1}}));
  EXPECT_EQ(after.values[static_cast<size_t>(after.outputs[0])].name, "y");
  expectSameResults(before, after);
}

TEST(RemoveIdentity, InputToOutputIdentityStays) {
  Builder b;
  const int x = b.input("x", {2});
  b.output(b.op("Identity", {x}, {}, "y"));
  const Graph after = optimized(b.done());
  EXPECT_EQ(opCounts(after), (std::map<std::string, int>{{"Identity", 1}}));
}

TEST(DeadCode, UnusedBranchesGo) {
  Builder b;
  const int x = b.input("x", {4});
  b.op("Sigmoid", {b.op("Exp", {x})});  // nobody reads it
  b.output(b.op("Relu", {x}, {}, "y"));
  const Graph after = optimized(b.done(), {"dce"});
  EXPECT_EQ(opCounts(after), (std::map<std::string, int>{{"Relu", 1}}));
}

TEST(CommonSubexpressions, DuplicateNodesAndConstantsMerge) {
  Builder b;
  const int x = b.input("x", {2, 3});
  const int c1 = b.scalar(0.5f), c2 = b.scalar(0.5f);
  const int m1 = b.op("Mul", {x, c1});
  const int m2 = b.op("Mul", {x, c2});  // same once the constants merge
  const int r1 = b.op("Relu", {m1});
  const int r2 = b.op("Relu", {m2});
  b.output(b.op("Sub", {r1, r2}, {}, "y"));
  const Graph before = b.done();
  const Graph after = optimized(before, {"cse", "dce"});
  EXPECT_EQ(opCounts(after), (std::map<std::string, int>{{"Mul", 1}, {"Relu", 1}, {"Sub", 1}}));
  expectSameResults(before, after);
}

TEST(CommonSubexpressions, DifferentAttributesStayApart) {
  Builder b;
  const int x = b.input("x", {2, 3});
  const int a = b.op("LeakyRelu", {x}, {{"alpha", 0.1}});
  const int c = b.op("LeakyRelu", {x}, {{"alpha", 0.2}});
  b.output(b.op("Add", {a, c}, {}, "y"));
  EXPECT_EQ(opCounts(optimized(b.done(), {"cse", "dce"})).at("LeakyRelu"), 2);
}

// ---- fold-constants ----------------------------------------------------------------------------

TEST(ConstantFolding, ShapeGatherUnsqueezeConcatChainFeedsReshape) {
  // What torch exports for x.reshape(x.size(0), -1).
  Builder b;
  const int x = b.input("x", {2, 3, 4});
  const int shape = b.op("Shape", {x});
  const int dim0 = b.op("Gather", {shape, b.constantFrom(intTensor({}, {0}))}, {{"axis", int64_t{0}}});
  const int un = b.op("Unsqueeze", {dim0, b.ints({0})});
  const int cat = b.op("Concat", {un, b.ints({-1})}, {{"axis", int64_t{0}}});
  b.output(b.op("Reshape", {x, cat}, {}, "y"));
  Graph g = b.g;
  compiler::inferShapes(g);  // Reshape's shape is not known yet
  EXPECT_FALSE(compiler::hasStaticShape(g.values[static_cast<size_t>(g.outputs[0])]));
  const Graph after = optimized(b.g);
  EXPECT_EQ(opCounts(after), (std::map<std::string, int>{{"Reshape", 1}}));
  const Value& y = after.values[static_cast<size_t>(after.outputs[0])];
  EXPECT_EQ(y.shape, (Shape{2, 12}));
  const Node& reshape = onlyNode(after, "Reshape");
  const Value& target = after.values[static_cast<size_t>(reshape.inputs[1])];
  ASSERT_TRUE(target.is_constant);
  EXPECT_EQ(std::vector<int64_t>(target.as<int64_t>(), target.as<int64_t>() + 2), (Shape{2, -1}));
  const HostTensor in = randomTensor({2, 3, 4}, 1);
  const auto out = compiler::interpret(after, {{"x", in}});
  EXPECT_EQ(values(out.at("y")), values(in));
}

TEST(ConstantFolding, WeightOnlyComputationsFold) {
  Builder b;
  const int x = b.input("x", {3, 4});
  const int w = b.op("Transpose", {b.constant({5, 4}, 2)}, {{"perm", Shape{1, 0}}});
  const int scaled = b.op("Mul", {w, b.scalar(2.f)});
  b.output(b.op("MatMul", {x, scaled}, {}, "y"));
  const Graph before = b.done();
  const Graph after = optimized(before);
  EXPECT_EQ(opCounts(after), (std::map<std::string, int>{{"MatMul", 1}}));
  expectSameResults(before, after);
}

// ---- fold-batchnorm ----------------------------------------------------------------------------

int batchNorm(Builder& b, int x, int64_t c, uint64_t seed) {
  return b.op("BatchNormalization", {x, b.constant({c}, seed, 0.5f, 1.5f), b.constant({c}, seed + 1), b.constant({c}, seed + 2),
                                     b.constant({c}, seed + 3, 0.2f, 2.f)},
              {{"epsilon", 1e-3}});
}

TEST(FoldBatchNorm, IntoConvWithAndWithoutBiasAndGroups) {
  for (int withBias = 0; withBias < 2; ++withBias)
    for (int64_t group : {1, 4}) {
      Builder b;
      const int x = b.input("x", {1, 4, 6, 6});
      std::vector<int> in = {x, b.constant({8, 4 / group, 3, 3}, 10)};
      if (withBias) in.push_back(b.constant({8}, 11));
      const int conv = b.op("Conv", in, {{"pads", Shape{1, 1, 1, 1}}, {"group", group}});
      b.output(batchNorm(b, conv, 8, 20));
      const Graph before = b.done();
      const Graph after = optimized(before);
      EXPECT_EQ(opCounts(after), (std::map<std::string, int>{{"Conv", 1}})) << withBias << group;
      expectSameResults(before, after);
    }
}

TEST(FoldBatchNorm, IntoGemmBothLayoutsAndCForms) {
  for (int transB = 0; transB < 2; ++transB)
    for (int cForm = 0; cForm < 3; ++cForm) {
      Builder b;
      const int x = b.input("x", {3, 5});
      std::vector<int> in = {x, b.constant(transB ? Shape{6, 5} : Shape{5, 6}, 30)};
      if (cForm == 1) in.push_back(b.constant({6}, 31));
      if (cForm == 2) in.push_back(b.constant({1}, 32));
      const int gemm = b.op("Gemm", in, {{"transB", int64_t{transB}}, {"beta", 0.5}});
      b.output(batchNorm(b, gemm, 6, 40));
      const Graph before = b.done();
      const Graph after = optimized(before);
      EXPECT_EQ(opCounts(after), (std::map<std::string, int>{{"Gemm", 1}}));
      expectSameResults(before, after);
    }
}

TEST(FoldBatchNorm, SharedConvOutputIsNotFolded) {
  Builder b;
  const int x = b.input("x", {1, 2, 4, 4});
  const int conv = b.op("Conv", {x, b.constant({2, 2, 1, 1}, 50)});
  const int bn = batchNorm(b, conv, 2, 60);
  b.output(b.op("Add", {bn, conv}, {}, "y"));
  const Graph before = b.done();
  const Graph after = optimized(before);
  // Not folded into the shared Conv: the BN stays its own operator, as a depthwise 1x1 Conv.
  EXPECT_EQ(opCounts(after).count("BatchNormalization"), 0u);
  EXPECT_EQ(opCounts(after).at("Conv"), 2u);
  expectSameResults(before, after);
}

TEST(BatchNormToConv, UnfoldableBatchNormBecomesDepthwiseConv) {
  Builder b;
  const int x = b.input("x", {1, 3, 4, 4});
  b.output(batchNorm(b, x, 3, 70));  // nothing to fold into: it reads the graph input
  const Graph before = b.done();
  Graph after = before;
  runPasses(after, {"infer-shapes", "batchnorm-to-conv"});
  ASSERT_EQ(opCounts(after).count("Conv"), 1u);
  for (const Node& n : after.nodes) {
    if (n.op == "Conv") {
      EXPECT_EQ(n.getInt("group", 1), 3);
    }
  }
  expectSameResults(before, after);
}

// ---- convtranspose-to-conv --------------------------------------------------------------------

struct ConvTransposeCase {
  int64_t k, s, padBegin, padEnd, outputPadding, h, w;
};

class ConvTransposeToConv : public ::testing::TestWithParam<ConvTransposeCase> {};

// Every stride, kernel (k % s == 0 or not, k < s), pad and output_padding: the Conv of the s*s
// phases + DepthToSpace (+ Slice when the output is a crop) computes the ConvTranspose.
TEST_P(ConvTransposeToConv, SubPixelConvEqualsConvTranspose) {
  const auto c = GetParam();
  Builder b;
  const int x = b.input("x", {1, 3, c.h, c.w});
  b.output(b.op("ConvTranspose", {x, b.constant({3, 5, c.k, c.k}, 80), b.constant({5}, 81)},
                {{"strides", std::vector<int64_t>{c.s, c.s}}, {"pads", std::vector<int64_t>{c.padBegin, c.padBegin, c.padEnd, c.padEnd}},
                 {"output_padding", std::vector<int64_t>{c.outputPadding, c.outputPadding}}},
                "y"));
  const Graph before = b.done();
  Graph after = before;
  runPasses(after, {"infer-shapes", "convtranspose-to-conv"}, verifying());
  const auto ops = opCounts(after);
  EXPECT_EQ(ops.count("ConvTranspose"), 0u);
  EXPECT_EQ(ops.at("Conv"), 1);
  EXPECT_EQ(ops.count("DepthToSpace"), c.s > 1 ? 1u : 0u);
  expectSameResults(before, after);
}

INSTANTIATE_TEST_SUITE_P(Cases, ConvTransposeToConv,
                         ::testing::Values(ConvTransposeCase{2, 2, 0, 0, 0, 4, 5},   // U-Net
                                           ConvTransposeCase{4, 2, 1, 1, 0, 4, 5},   // DCGAN
                                           ConvTransposeCase{3, 2, 1, 1, 1, 4, 5},   // "same" x2
                                           ConvTransposeCase{3, 2, 1, 1, 0, 4, 5},   // odd output: a crop
                                           ConvTransposeCase{3, 3, 0, 0, 0, 3, 4},
                                           ConvTransposeCase{1, 2, 0, 0, 1, 3, 4},   // k < s: zero phases
                                           ConvTransposeCase{5, 2, 2, 1, 1, 3, 4},
                                           ConvTransposeCase{4, 4, 3, 2, 0, 3, 3},
                                           ConvTransposeCase{3, 1, 1, 1, 0, 4, 5},   // stride 1: a plain Conv
                                           ConvTransposeCase{2, 2, 3, 3, 0, 5, 6},   // pads past the kernel
                                           ConvTransposeCase{6, 3, 4, 1, 2, 3, 4}));

TEST(ConvTransposeToConvLeaves, GroupedConvTransposeStays) {
  Builder b;
  const int x = b.input("x", {1, 4, 3, 3});
  b.output(b.op("ConvTranspose", {x, b.constant({4, 1, 2, 2}, 82)}, {{"strides", std::vector<int64_t>{2, 2}}, {"group", int64_t{4}}}, "y"));
  Graph g = b.done();
  runPasses(g, {"infer-shapes", "convtranspose-to-conv"}, verifying());
  EXPECT_EQ(opCounts(g).at("ConvTranspose"), 1);
}

// ---- resize-linear-to-conv --------------------------------------------------------------------

struct ResizeLinearCase {
  std::string ctm;
  int64_t s, h, w;
  bool bySizes;  // the output size given by `sizes` instead of `scales`
};

class ResizeLinearToConv : public ::testing::TestWithParam<ResizeLinearCase> {};

// Each coordinate mode with phase-constant blends, factors 2..8, H != W, 1-pixel images: the edge
// Pads, the depthwise 2x2 Conv per phase, the Concat and the DepthToSpace compute the bilinear
// Resize, clamping at the borders included.
TEST_P(ResizeLinearToConv, PhaseConvsEqualResize) {
  const auto c = GetParam();
  Builder b;
  const int x = b.input("x", {1, 3, c.h, c.w});
  const float sf = static_cast<float>(c.s);
  const int scales = c.bySizes ? -1 : b.constantFrom(floatTensor({4}, {1.f, 1.f, sf, sf}));
  const int sizes = c.bySizes ? b.ints({1, 3, c.s * c.h, c.s * c.w}) : -1;
  std::vector<int> inputs = {x, -1, scales};
  if (c.bySizes) inputs.push_back(sizes);
  b.output(b.op("Resize", inputs, {{"mode", std::string("linear")}, {"coordinate_transformation_mode", c.ctm}}, "y"));
  const Graph before = b.done();
  Graph after = before;
  runPasses(after, {"infer-shapes", "resize-linear-to-conv"}, verifying());
  const auto ops = opCounts(after);
  EXPECT_EQ(ops.count("Resize"), 0u);
  EXPECT_EQ(ops.at("Pad"), c.ctm == "asymmetric" ? 1 : 4);  // one per window offset in use
  EXPECT_EQ(ops.at("Conv"), c.s * c.s);
  EXPECT_EQ(ops.at("DepthToSpace"), 1);
  expectSameResults(before, after);
}

INSTANTIATE_TEST_SUITE_P(Cases, ResizeLinearToConv,
                         ::testing::Values(ResizeLinearCase{"half_pixel", 2, 4, 5, false},
                                           ResizeLinearCase{"half_pixel", 3, 3, 4, true},
                                           ResizeLinearCase{"half_pixel", 8, 2, 3, false},   // lraspp's final upsampling
                                           ResizeLinearCase{"pytorch_half_pixel", 2, 5, 3, true},
                                           ResizeLinearCase{"asymmetric", 2, 4, 4, false},
                                           ResizeLinearCase{"asymmetric", 4, 3, 2, false}));

// A 1 x 1 input (a global-pooling branch upsampled, as in DeepLabV3): every tap clamps, every
// output copies the one pixel, so the Resize becomes a nearest upsampling (a layout move), not
// s * s Convs; by 28 too, past the phase limit.
TEST(ResizeLinearToConvLeaves, OnePixelInputBecomesNearest) {
  for (float s : {2.f, 28.f}) {
    Builder b;
    const int x = b.input("x", {1, 3, 1, 1});
    const int scales = b.constantFrom(floatTensor({4}, {1.f, 1.f, s, s}));
    b.output(b.op("Resize", {x, -1, scales}, {{"mode", std::string("linear")}, {"coordinate_transformation_mode", std::string("half_pixel")}}, "y"));
    const Graph before = b.done();
    Graph after = before;
    runPasses(after, {"infer-shapes", "resize-linear-to-conv"}, verifying());
    ASSERT_EQ(opCounts(after), (std::map<std::string, int>{{"Resize", 1}}));
    EXPECT_EQ(onlyNode(after, "Resize").getString("mode", ""), "nearest");
    expectSameResults(before, after);
  }
}

TEST(ResizeLinearToConvLeaves, AlignCornersAndUnequalFactorsStay) {
  for (const auto& [ctm, sh, sw] : {std::tuple{"align_corners", 2.f, 2.f}, {"half_pixel", 2.f, 3.f}, {"half_pixel", 1.5f, 1.5f}, {"half_pixel", 9.f, 9.f}}) {
    Builder b;
    const int x = b.input("x", {1, 2, 4, 4});
    const int scales = b.constantFrom(floatTensor({4}, {1.f, 1.f, sh, sw}));
    b.output(b.op("Resize", {x, -1, scales}, {{"mode", std::string("linear")}, {"coordinate_transformation_mode", std::string(ctm)}}, "y"));
    Graph g = b.done();
    runPasses(g, {"infer-shapes", "resize-linear-to-conv"}, verifying());
    EXPECT_EQ(opCounts(g).at("Resize"), 1) << ctm << " " << sh << "x" << sw;
  }
}

// ---- reducemean-to-pool ------------------------------------------------------------------------

// ReduceMean (axes attribute) and ReduceSum (axes input, opset 13) over H and W, with and without
// keepdims: the GlobalAveragePool (times H * W for the sum, then a Flatten) computes them; a
// reduction over C stays.
TEST(ReduceMeanToPool, SpatialMeanAndSumBecomePools) {
  for (const char* op : {"ReduceMean", "ReduceSum"})
    for (int64_t keep : {0, 1}) {
      Builder b;
      b.g.opset = 13;
      const int x = b.input("x", {2, 3, 4, 5});
      const bool sum = std::string(op) == "ReduceSum";
      std::map<std::string, AttrValue> attrs = {{"keepdims", keep}};
      if (!sum) attrs["axes"] = Shape{-2, -1};
      std::vector<int> inputs = {x};
      if (sum) inputs.push_back(b.ints({2, 3}));
      b.output(b.op(op, inputs, attrs, "y"));
      b.output(b.op(op, sum ? std::vector<int>{x, b.ints({1})} : std::vector<int>{x}, sum ? std::map<std::string, AttrValue>{} : std::map<std::string, AttrValue>{{"axes", Shape{1}}}, "z"));
      const Graph before = b.done();
      Graph after = before;
      runPasses(after, {"infer-shapes", "reducemean-to-pool"}, verifying());
      const auto ops = opCounts(after);
      EXPECT_EQ(ops.at("GlobalAveragePool"), 1) << op << " keepdims " << keep;
      EXPECT_EQ(ops.at(op), 1) << "the channel reduction stays";
      EXPECT_EQ(ops.count("Mul"), sum ? 1u : 0u);
      EXPECT_EQ(ops.count("Flatten"), keep ? 0u : 1u);
      expectSameResults(before, after);
    }
}

// ---- flatten-to-nhwc ---------------------------------------------------------------------------

// A Flatten read by a Gemm (transB 0 and 1) and a MatMul: FlattenNhwc and the permuted weights
// compute the same outputs; a Flatten also read by another operator stays.
TEST(FlattenToNhwc, PermutedWeightsEqualNchwFlatten) {
  Builder b;
  const int x = b.input("x", {2, 3, 2, 4});
  const int f = b.op("Flatten", {x}, {{"axis", int64_t{1}}});
  b.output(b.op("Gemm", {f, b.constant({5, 24}, 90), b.constant({5}, 91)}, {{"transB", int64_t{1}}}, "y0"));
  b.output(b.op("Gemm", {f, b.constant({24, 4}, 92)}, {}, "y1"));
  b.output(b.op("MatMul", {f, b.constant({24, 3}, 93)}, {}, "y2"));
  const int g = b.op("Flatten", {x}, {{"axis", int64_t{1}}});
  b.output(b.op("Gemm", {g, b.constant({24, 2}, 94)}, {}, "z0"));
  b.output(b.op("Relu", {g}, {}, "z1"));
  const Graph before = b.done();
  Graph after = before;
  runPasses(after, {"infer-shapes", "flatten-to-nhwc"}, verifying());
  const auto ops = opCounts(after);
  EXPECT_EQ(ops.at("FlattenNhwc"), 1);
  EXPECT_EQ(ops.at("Flatten"), 1);
  expectSameResults(before, after);
}

// ---- decompose-prelu ---------------------------------------------------------------------------

// One slope, positive and negative per-channel slopes: the decomposition computes PRelu; mixed
// signs stay.
TEST(DecomposePRelu, LeakyReluAndPerChannelFormsEqualPRelu) {
  Builder b;
  const int x = b.input("x", {2, 3, 4, 5});
  b.output(b.op("PRelu", {x, b.scalar(0.3f)}, {}, "y0"));
  b.output(b.op("PRelu", {x, b.constant({3, 1, 1}, 60, 0.1f, 0.9f)}, {}, "y1"));
  b.output(b.op("PRelu", {x, b.constant({1, 3, 1, 1}, 61, -0.9f, -0.1f)}, {}, "y2"));
  b.output(b.op("PRelu", {x, b.constant({3, 1, 1}, 62, -0.5f, 0.5f)}, {}, "y3"));
  const Graph before = b.done();
  Graph after = before;
  runPasses(after, {"infer-shapes", "decompose-prelu"}, verifying());
  const auto ops = opCounts(after);
  EXPECT_EQ(ops.at("LeakyRelu"), 1);
  EXPECT_EQ(ops.at("PRelu"), 1);
  EXPECT_EQ(ops.at("Sub"), 1);
  EXPECT_EQ(ops.at("Add"), 1);
  expectSameResults(before, after);
}

// ---- strided-pointwise-to-slice ----------------------------------------------------------------

// A strided 1x1 Conv (even and odd sizes, unequal strides, grouped) becomes a Slice and the Conv
// at stride 1, computing the same values; a padded one and a 3x3 one stay.
TEST(StridedPointwiseToSlice, SliceThenConvEqualsStridedConv) {
  Builder b;
  const int x = b.input("x", {2, 4, 7, 6});
  b.output(b.op("Conv", {x, b.constant({8, 4, 1, 1}, 70), b.constant({8}, 71)}, {{"strides", std::vector<int64_t>{2, 2}}}, "y0"));
  b.output(b.op("Conv", {x, b.constant({6, 2, 1, 1}, 72)}, {{"strides", std::vector<int64_t>{3, 2}}, {"group", int64_t{2}}}, "y1"));
  b.output(b.op("Conv", {x, b.constant({8, 4, 1, 1}, 73)}, {{"strides", std::vector<int64_t>{2, 2}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}}, "y2"));
  b.output(b.op("Conv", {x, b.constant({8, 4, 3, 3}, 74)}, {{"strides", std::vector<int64_t>{2, 2}}}, "y3"));
  const Graph before = b.done();
  Graph after = before;
  runPasses(after, {"infer-shapes", "strided-pointwise-to-slice"}, verifying());
  EXPECT_EQ(opCounts(after).at("Slice"), 2);
  expectSameResults(before, after);
}

// ---- split-to-slice ----------------------------------------------------------------------------

// Explicit sizes on the last axis and equal parts of a middle axis (opset 13), and the attribute
// form (opset 11): the Slices compute every output of the Split.
TEST(SplitToSlice, SlicesEqualSplit) {
  for (int64_t opset : {11, 13}) {
    Builder b;
    b.g.opset = opset;
    const int x = b.input("x", {2, 6, 4, 5});
    std::map<std::string, AttrValue> attrs = {{"axis", int64_t{-1}}};
    std::vector<int> inputs = {x};
    if (opset < 13) attrs["split"] = std::vector<int64_t>{1, 3, 1};
    else inputs.push_back(b.ints({1, 3, 1}));
    Graph& g = b.g;  // Builder::op makes one output; a Split here has three
    Node split;
    split.name = "split";
    split.op = "Split";
    split.inputs = inputs;
    split.attrs = attrs;
    for (const char* name : {"p0", "p1", "p2"}) {
      Value v;
      v.name = name;
      v.shape = {-1};
      split.outputs.push_back(g.addValue(std::move(v)));
    }
    g.addNode(split);
    for (int out : split.outputs) b.output(out);
    const int rows = b.op("Split", {x}, {{"axis", int64_t{1}}}, "q0");  // one output: the whole axis
    b.output(rows);
    const Graph before = b.done();
    Graph after = before;
    runPasses(after, {"infer-shapes", "split-to-slice"}, verifying());
    EXPECT_EQ(opCounts(after).count("Split"), 0u) << "opset " << opset;
    EXPECT_EQ(opCounts(after).at("Slice"), 4) << "opset " << opset;
    expectSameResults(before, after);
  }
}

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
    if (variant == 0) y = b.op("Mul", {b.op("Mul", {x, a}), b.scalar(0.5f)});
    else if (variant == 1) y = b.op("Mul", {b.op("Mul", {x, b.scalar(0.5f)}), a});
    else y = b.op("Mul", {x, b.op("Mul", {a, b.scalar(0.5f)})});
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
  conv.output(conv.op("Conv", {conv.input("x", {1, 2, 8, 8}), w}, {{"pads", std::vector<int64_t>{big, 0, big, 0}}}, "y"));
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
  b.output(y);
  try {
    compiler::inferShapes(b.g);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("node 'MatMul_"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("(MatMul): inconsistent shapes"), std::string::npos) << e.message();
  }
}

TEST(ShapeInference, FillsUnknownDimensionsAndRanks) {
  Builder b;
  const int x = b.input("x", {1, 3, 8, 8});
  const int p = b.op("MaxPool", {x}, {{"kernel_shape", Shape{3, 3}}, {"strides", Shape{2, 2}}, {"ceil_mode", int64_t{1}}});
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
