// Activation smoothing (quantize/smoothing.h): the float graph computes the same function after it,
// a constant another node shares is copied rather than changed under that node, and on a
// LayerNormalization with outlier channels (a large gamma on a few of them, as trained
// transformers have) the int8 graph gets closer to the float one.
#include <gtest/gtest.h>

#include <random>

#include "quant_test_util.h"
#include "quantize/smoothing.h"
#include "systole/compiler/interpreter.h"
#include "systole/compiler/quantize.h"

namespace systole::compiler {
namespace {

using test::GraphBuilder;

constexpr int64_t S = 8, C = 32, N = 24;

/// x [1, S, C] -> LayerNormalization(gamma, beta) -> Reshape [S, C] -> MatMul W [C, N] -> y; and
/// x -> a second LayerNormalization sharing gamma -> z (a graph output, so not smoothed).
Graph normThenMatMul(const std::vector<float>& gamma, uint64_t seed) {
  std::mt19937 rng(static_cast<uint32_t>(seed));
  GraphBuilder b;
  b.g.opset = 17;
  const int x = b.input("x", {1, S, C});
  const int g = b.constF("gamma", {C}, gamma);
  const int beta = b.constF("beta", {C}, test::randomFloats(static_cast<size_t>(C), rng, -0.5f, 0.5f));
  const int ln = b.node("LayerNormalization", {x, g, beta}, "ln", {1, S, C}, {{"axis", int64_t{-1}}});
  const int shape = b.constant<int64_t>("shape", {2}, {S, C}, ElemType::Int64);
  const int rows = b.node("Reshape", {ln, shape}, "rows", {S, C});
  const int w = b.constF("w", {C, N}, test::randomFloats(static_cast<size_t>(C * N), rng, -0.3f, 0.3f));
  b.output(b.node("MatMul", {rows, w}, "y", {S, N}));
  b.output(b.node("LayerNormalization", {x, g}, "z", {1, S, C}, {{"axis", int64_t{-1}}}));
  return b.g;
}

std::vector<float> outliers() {
  std::vector<float> gamma(static_cast<size_t>(C), 1.0f);
  gamma[3] = 40.0f;
  gamma[17] = -25.0f;
  return gamma;
}

TEST(Smoothing, KeepsTheFloatFunctionAndSharedConstants) {
  const Graph before = normThenMatMul(outliers(), 1);
  Graph after = before;
  const auto calibration = makeRandomInputs(before, 8, 3);
  const SmoothingSummary s = smoothActivations(after, calibration, 0.5, 8, 1);
  EXPECT_EQ(s.norms, 1);
  EXPECT_EQ(s.layers, 1);
  after.verify();
  // The shared gamma was copied: the second norm still reads the original values.
  const int gamma = after.findValue("gamma");
  ASSERT_GE(gamma, 0);
  EXPECT_EQ(after.values[static_cast<size_t>(gamma)].data, before.values[static_cast<size_t>(gamma)].data);
  EXPECT_GE(after.findValue("gamma.smoothed"), 0);
  EXPECT_NE(after.values[static_cast<size_t>(after.findValue("w"))].data,
            before.values[static_cast<size_t>(before.findValue("w"))].data);
  for (const auto& in : makeRandomInputs(before, 2, 9)) {
    const auto want = interpret(before, in), got = interpret(after, in);
    for (const char* name : {"y", "z"}) {
      const HostTensor &a = want.at(name), &b = got.at(name);
      for (int64_t i = 0; i < a.elements(); ++i)
        EXPECT_NEAR(b.data<float>()[i], a.data<float>()[i], 1e-4 * (1 + std::abs(a.data<float>()[i]))) << name << i;
    }
  }
}

double int8Cosine(const Graph& fg, double alpha) {
  QuantOptions opts;
  opts.smoothing = alpha;
  return test::quantizedCosine(fg, opts, "y");
}

TEST(Smoothing, OutlierChannelsQuantizeBetter) {
  const Graph fg = normThenMatMul(outliers(), 2);
  const double plain = int8Cosine(fg, 0), smoothed = int8Cosine(fg, 0.5);
  std::printf("[ smoothing] outlier channels: int8 cosine %.6f, smoothed (alpha 0.5) %.6f\n", plain, smoothed);
  EXPECT_GT(smoothed, plain);
}

}  // namespace
}  // namespace systole::compiler
