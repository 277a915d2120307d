// Cross-layer equalization (quantize/equalization.h): the pairs it takes and leaves, that it keeps
// the float function (or, under Relu6, changes only the joining clip), that the ranges meet, and
// that it helps where one layer's channels have very unequal ranges.
#include "quantize/equalization.h"

#include "quantize/channel_stats.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "quant_net.h"
#include "systole/compiler/interpreter.h"
#include "systole/compiler/quantize.h"

namespace systole::compiler {
namespace {

/// x [1, 4, 8, 8] -> conv1 1x1 (8 channels, `act`) -> depthwise 3x3 (relu) -> conv3 1x1 (6
/// channels), with conv1's channels 0..3 scaled by `small` and the depthwise filters reading them
/// by 1 / small: under a ReLU the same function as unscaled, with very unequal ranges (as folding a
/// BatchNorm can leave them).
Graph chain(const std::string& act, float small) {
  test::Net n;
  const int x = n.b.input("x", {1, 4, 8, 8});
  const int c1 = n.conv("conv1", x, 8, 1, 1, 0, act);
  float* w1 = reinterpret_cast<float*>(n.b.g.values[static_cast<size_t>(n.b.g.findValue("conv1.w"))].data.data());
  float* b1 = reinterpret_cast<float*>(n.b.g.values[static_cast<size_t>(n.b.g.findValue("conv1.b"))].data.data());
  for (int i = 0; i < 4; ++i) {
    for (int k = 0; k < 4; ++k) w1[i * 4 + k] *= small;
    b1[i] *= small;
  }
  const int c2 = n.conv("dw", c1, 8, 3, 1, 1, "relu", 1.0f, 8);
  float* dw = reinterpret_cast<float*>(n.b.g.values[static_cast<size_t>(n.b.g.findValue("dw.w"))].data.data());
  for (int k = 0; k < 4 * 9; ++k) dw[k] /= small;
  n.b.output(n.conv("conv3", c2, 6, 1, 1, 0));
  return n.b.g;
}

double maxAbs(const Graph& g, const std::string& value, int64_t from, int64_t count, int64_t step) {
  const float* w = g.values[static_cast<size_t>(g.findValue(value))].as<float>();
  double m = 0;
  for (int64_t k = 0; k < count; ++k) m = std::max(m, static_cast<double>(std::fabs(w[from + k * step])));
  return m;
}

void expectSameOutputs(const Graph& a, const Graph& b) {
  for (const auto& in : makeRandomInputs(a, 2, 5)) {
    const auto want = interpret(a, in).begin()->second, got = interpret(b, in).begin()->second;
    for (int64_t i = 0; i < want.elements(); ++i)
      EXPECT_NEAR(got.data<float>()[i], want.data<float>()[i], 1e-4 * (1 + std::abs(want.data<float>()[i]))) << i;
  }
}

EqualizationSummary equalize(Graph& g, Equalization mode) {
  return equalizeLayers(g, mode, makeRandomInputs(g, 8, 3), 8, 1);
}

TEST(Equalization, KeepsTheFloatFunctionAndMeetsTheRanges) {
  const Graph before = chain("relu", 0.01f);
  Graph after = before;
  const EqualizationSummary s = equalize(after, Equalization::On);
  EXPECT_EQ(s.pairs, 2);  // conv1 -> dw, dw -> conv3
  EXPECT_EQ(s.relu6_relu, 0);
  after.verify();
  expectSameOutputs(before, after);
  // Before the depthwise layer every channel has the same range; before conv3 each channel i has
  // the range of conv3's input column i. On the same samples.
  const auto stats = channelStats(after, {{after.findValue("conv1"), 1}, {after.findValue("dw"), 1}},
                                  makeRandomInputs(after, 8, 3), 8, 1);
  for (int64_t i = 0; i < 8; ++i) {
    const double a1 = stats.at(after.findValue("conv1")).absmax[static_cast<size_t>(i)];
    const double a2 = stats.at(after.findValue("dw")).absmax[static_cast<size_t>(i)];
    EXPECT_NEAR(a1, stats.at(after.findValue("conv1")).absmax[0], 1e-4 * a1) << i;
    EXPECT_NEAR(a2, maxAbs(after, "conv3.w", i, 6, 8), 1e-4 * a2) << i;
  }
  EXPECT_EQ(equalizedPairs(after).pairs, 2);
}

TEST(Equalization, OffAndClipJoinsLeaveTheGraphAlone) {
  const Graph before = chain("clip", 0.01f);
  for (Equalization mode : {Equalization::Off, Equalization::On}) {
    Graph after = before;
    const EqualizationSummary s = equalize(after, mode);
    EXPECT_EQ(s.pairs, mode == Equalization::Off ? 0 : 1) << equalizationName(mode);  // On: only dw -> conv3
    EXPECT_EQ(after.nodes[0].getString("activation", ""), "clip");
  }
}

TEST(Equalization, Relu6TurnsTheJoiningClipIntoARelu) {
  Graph g = chain("clip", 1.0f);
  const EqualizationSummary s = equalize(g, Equalization::Relu6);
  EXPECT_EQ(s.pairs, 2);
  EXPECT_EQ(s.relu6_relu, 1);
  EXPECT_EQ(g.nodes[0].getString("activation", ""), "relu");
  EXPECT_FALSE(g.nodes[0].has("clip_max"));
  EXPECT_EQ(equalizedPairs(g).relu6_to_relu, 1);
  EXPECT_EQ(parseEqualization("relu6"), Equalization::Relu6);
  EXPECT_FALSE(parseEqualization("always"));
}

TEST(Equalization, SkipsSharedOutputsAndGroupedConvs) {
  test::Net n;
  const int x = n.b.input("x", {1, 4, 8, 8});
  const int c1 = n.conv("conv1", x, 8, 1, 1, 0, "relu");
  n.b.output(n.conv("grouped", c1, 8, 3, 1, 1, "", 1.0f, 2));  // group 2 of 8 channels: neither kind
  const int c3 = n.conv("conv3", x, 8, 1, 1, 0, "relu");
  n.b.output(n.conv("conv4", c3, 4, 1, 1, 0));
  n.b.output(c3);  // conv3's output is also a graph output
  Graph g = n.b.g;
  EXPECT_EQ(equalize(g, Equalization::On).pairs, 0);
}

double int8Cosine(const Graph& fg, Equalization mode) {
  QuantOptions opts;
  opts.equalization = mode;
  return test::quantizedCosine(fg, opts, "conv3");
}

TEST(Equalization, UnequalChannelRangesQuantizeBetter) {
  // Half of conv1's channels are 100x smaller, and as important as the others downstream:
  // per-tensor int8 activations resolve them poorly until equalization moves their scale back
  // into the depthwise weights.
  const Graph fg = chain("relu", 0.01f);
  const double plain = int8Cosine(fg, Equalization::Off), equalized = int8Cosine(fg, Equalization::On);
  std::printf("[ equalization] unequal channels: int8 cosine %.6f, equalized %.6f\n", plain, equalized);
  EXPECT_GT(equalized, plain);
}

}  // namespace
}  // namespace systole::compiler
