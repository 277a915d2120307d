// The passes that turn an operator into ones the NPU runs (convtranspose-to-conv,
// resize-linear-to-conv, reducemean-to-pool, flatten-to-nhwc, decompose-prelu,
// strided-pointwise-to-slice, split-to-slice) on small hand-built graphs: the rewrite happens (or
// does not), and the optimized graph computes what the original did.
#include <gtest/gtest.h>

#include "passes/pass_test_util.h"

namespace systole::testing {
namespace {

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
                {{"strides", std::vector<int64_t>{c.s, c.s}},
                 {"pads", std::vector<int64_t>{c.padBegin, c.padBegin, c.padEnd, c.padEnd}},
                 {"output_padding", std::vector<int64_t>{c.outputPadding, c.outputPadding}}},
                "y"));
  const Graph before = b.done();
  const Graph after = optimized(before, {"infer-shapes", "convtranspose-to-conv"});
  const auto ops = opCounts(after);
  EXPECT_EQ(ops.count("ConvTranspose"), 0u);
  EXPECT_EQ(ops.at("Conv"), 1);
  EXPECT_EQ(ops.count("DepthToSpace"), c.s > 1 ? 1u : 0u);
  expectSameResults(before, after);
}

INSTANTIATE_TEST_SUITE_P(Cases, ConvTransposeToConv,
                         ::testing::Values(ConvTransposeCase{2, 2, 0, 0, 0, 4, 5},  // U-Net
                                           ConvTransposeCase{4, 2, 1, 1, 0, 4, 5},  // DCGAN
                                           ConvTransposeCase{3, 2, 1, 1, 1, 4, 5},  // "same" x2
                                           ConvTransposeCase{3, 2, 1, 1, 0, 4, 5},  // odd output: a crop
                                           ConvTransposeCase{3, 3, 0, 0, 0, 3, 4},
                                           ConvTransposeCase{1, 2, 0, 0, 1, 3, 4},  // k < s: zero phases
                                           ConvTransposeCase{5, 2, 2, 1, 1, 3, 4},
                                           ConvTransposeCase{4, 4, 3, 2, 0, 3, 3},
                                           ConvTransposeCase{3, 1, 1, 1, 0, 4, 5},  // stride 1: a plain Conv
                                           ConvTransposeCase{2, 2, 3, 3, 0, 5, 6},  // pads past the kernel
                                           ConvTransposeCase{6, 3, 4, 1, 2, 3, 4}));

TEST(ConvTransposeToConvLeaves, GroupedConvTransposeStays) {
  Builder b;
  const int x = b.input("x", {1, 4, 3, 3});
  b.output(b.op("ConvTranspose", {x, b.constant({4, 1, 2, 2}, 82)},
                {{"strides", std::vector<int64_t>{2, 2}}, {"group", int64_t{4}}}, "y"));
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
  const Graph after = optimized(before, {"infer-shapes", "resize-linear-to-conv"});
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
                                           ResizeLinearCase{"half_pixel", 8, 2, 3, false},  // lraspp's final upsampling
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
    b.output(b.op("Resize", {x, -1, scales},
                  {{"mode", std::string("linear")}, {"coordinate_transformation_mode", std::string("half_pixel")}},
                  "y"));
    const Graph before = b.done();
    Graph after = before;
    runPasses(after, {"infer-shapes", "resize-linear-to-conv"}, verifying());
    ASSERT_EQ(opCounts(after), (std::map<std::string, int>{{"Resize", 1}}));
    EXPECT_EQ(onlyNode(after, "Resize").getString("mode", ""), "nearest");
    expectSameResults(before, after);
  }
}

TEST(ResizeLinearToConvLeaves, AlignCornersAndUnequalFactorsStay) {
  for (const auto& [ctm, sh, sw] : {std::tuple{"align_corners", 2.f, 2.f},
                                    {"half_pixel", 2.f, 3.f},
                                    {"half_pixel", 1.5f, 1.5f},
                                    {"half_pixel", 9.f, 9.f}}) {
    Builder b;
    const int x = b.input("x", {1, 2, 4, 4});
    const int scales = b.constantFrom(floatTensor({4}, {1.f, 1.f, sh, sw}));
    b.output(b.op("Resize", {x, -1, scales},
                  {{"mode", std::string("linear")}, {"coordinate_transformation_mode", std::string(ctm)}}, "y"));
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
      b.output(b.op(op, sum ? std::vector<int>{x, b.ints({1})} : std::vector<int>{x},
                    sum ? std::map<std::string, AttrValue>{} : std::map<std::string, AttrValue>{{"axes", Shape{1}}},
                    "z"));
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
  const Graph after = optimized(before, {"infer-shapes", "flatten-to-nhwc"});
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
  const Graph after = optimized(before, {"infer-shapes", "decompose-prelu"});
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
  b.output(b.op("Conv", {x, b.constant({8, 4, 1, 1}, 70), b.constant({8}, 71)},
                {{"strides", std::vector<int64_t>{2, 2}}}, "y0"));
  b.output(b.op("Conv", {x, b.constant({6, 2, 1, 1}, 72)},
                {{"strides", std::vector<int64_t>{3, 2}}, {"group", int64_t{2}}}, "y1"));
  b.output(b.op("Conv", {x, b.constant({8, 4, 1, 1}, 73)},
                {{"strides", std::vector<int64_t>{2, 2}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}}, "y2"));
  b.output(b.op("Conv", {x, b.constant({8, 4, 3, 3}, 74)}, {{"strides", std::vector<int64_t>{2, 2}}}, "y3"));
  const Graph before = b.done();
  const Graph after = optimized(before, {"infer-shapes", "strided-pointwise-to-slice"});
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
    if (opset < 13)
      attrs["split"] = std::vector<int64_t>{1, 3, 1};
    else
      inputs.push_back(b.ints({1, 3, 1}));
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

}  // namespace
}  // namespace systole::testing
