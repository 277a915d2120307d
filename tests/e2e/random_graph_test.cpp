// The differential heart of the back end: seeded random graphs (shapes that are not multiples of
// the array, 1x1 and odd kernels, strides, padding, depthwise, residual adds, pooling, matmul
// chains, auto_pad SAME_UPPER/SAME_LOWER) x every shipped config -> quantize -> compile -> simulate ->
// bit-exact against the reference interpreter, race-free. SYSTOLE_DIFFERENTIAL_CASES raises the
// number of seeds. Named cases stress one dimension each (AutoPad/...: SAME padding on H != W
// inputs; Dilation/...: dilations > 1 per axis; StridesByAxis/...: sh != sw over several chunks;
// Pooling/...: ceil_mode max pooling with overhang, padded average pooling; OddChannels/...: odd
// channel counts around every array width, grouped convs; Batch/...: N = 2..4 images;
// Attention/...: LayerNorm, Softmax and the two activation products on rows of random widths).
// The random mix draws batches and grouped convs too.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "graph_builder.h"
#include "systole/compiler/backend.h"
#include "systole/compiler/quantize.h"
#include "systole/isa/encoding.h"
#include "systole/runtime/session.h"

namespace systole::testing {
namespace {

const isa::IsaConfig& config(const std::string& name) {
  static std::map<std::string, isa::IsaConfig> cache;
  auto it = cache.find(name);
  if (it == cache.end())
    it = cache.emplace(name, isa::IsaConfig::load(std::string(SYSTOLE_SOURCE_DIR) + "/isa/configs/" + name + ".yaml"))
             .first;
  return it->second;
}

/// A random CNN-like graph: a stem conv, a few blocks drawn at random, a pooled classifier.
compiler::Graph randomGraph(uint64_t seed) {
  FloatGraphBuilder b(seed);
  auto& rng = b.rng();
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  const int64_t size = pick(5, 11), batch = pick(0, 3) == 0 ? pick(2, 3) : 1;
  int x = b.input("image", {batch, pick(1, 5), size, size});
  x = b.conv(x, pick(3, 20), pick(0, 1) ? 3 : 1, 1, 1, 1, true);
  const int blocks = static_cast<int>(pick(1, 3));
  for (int i = 0; i < blocks; ++i) {
    const auto s = b.shape(x);
    switch (pick(0, 7)) {
      case 0:  // residual block
        x = b.addOp(x, b.conv(x, s[1], 3, 1, 1, 1, false), true);
        break;
      case 1:  // depthwise then pointwise
        x = b.conv(b.conv(x, s[1], 3, 1, 1, s[1], true), pick(2, 24), 1, 1, 0, 1, true);
        break;
      case 2:  // strided conv
        if (s[2] >= 4) x = b.conv(x, pick(2, 24), 3, 2, 1, 1, true);
        break;
      case 3:  // max pooling
        if (s[2] >= 3) x = b.maxPool(x, 3, pick(1, 2), 1);
        break;
      case 4:  // average pooling
        if (s[2] >= 2) x = b.averagePool(x, 2, 2);
        break;
      case 5:  // concat of two branches
        x = b.concat(b.conv(x, pick(1, 9), 1, 1, 0, 1, true), b.conv(x, pick(1, 9), 3, 1, 1, 1, true));
        break;
      case 6:  // auto_pad
        x = b.convSame(x, pick(2, 24), pick(1, 5), pick(1, 2), pick(0, 1) ? "SAME_UPPER" : "SAME_LOWER", true);
        break;
      default:  // grouped conv, when the channels have a divisor 1 < g < C
        for (int64_t g = s[1] / 2; g > 1; --g)
          if (s[1] % g == 0) {
            x = b.conv(x, g * pick(1, 5), 3, 1, 1, g, true);
            break;
          }
    }
  }
  x = b.flatten(b.globalAveragePool(x));
  x = b.gemm(x, pick(3, 21), true);
  x = b.gemm(x, pick(2, 10), false);  // a matmul chain
  return b.finish(x);
}

/// SAME_UPPER / SAME_LOWER padding on an H != W input: convolutions with kernels 1..5 and strides
/// 1..2 (odd and even pad totals on each axis), then max or average pooling, a pooled classifier.
compiler::Graph autoPadGraph(uint64_t seed) {
  FloatGraphBuilder b(seed);
  auto& rng = b.rng();
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  auto mode = [&] { return pick(0, 1) ? "SAME_UPPER" : "SAME_LOWER"; };
  const int64_t h = pick(5, 12);
  int x = b.input("image", {1, pick(1, 5), h, h + pick(1, 4) * (pick(0, 1) ? 1 : -1)});
  x = b.convSame(x, pick(3, 20), pick(1, 5), pick(1, 2), mode(), true);
  x = b.convSame(x, pick(3, 20), pick(2, 4), pick(1, 2), mode(), true);
  x = b.poolSame(pick(0, 1) ? "MaxPool" : "AveragePool", x, pick(2, 3), pick(1, 2), mode());
  x = b.flatten(b.globalAveragePool(x));
  return b.finish(b.gemm(x, pick(2, 10), false));
}

/// Dilation > 1 (each axis its own) with non-square kernels and asymmetric pads on H != W inputs.
compiler::Graph dilatedGraph(uint64_t seed) {
  FloatGraphBuilder b(seed);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(b.rng()); };
  int x = b.input("image", {1, pick(1, 6), pick(9, 16), pick(7, 14)});
  for (int i = 0; i < 2; ++i) {
    FloatGraphBuilder::Window w{pick(1, 3), pick(2, 3), 1,          1,          pick(1, 3),
                                pick(2, 3), pick(0, 2), pick(0, 2), pick(0, 2), pick(0, 2)};
    x = b.convWindow(x, pick(2, 20), w, 1, true);
  }
  x = b.flatten(b.globalAveragePool(x));
  return b.finish(b.gemm(x, pick(2, 10), false));
}

/// Strides that differ by axis (sh != sw) and non-square kernels, on inputs tall or wide enough
/// that an output image spans several chunks on the small configs, with asymmetric pads.
compiler::Graph stridesGraph(uint64_t seed) {
  FloatGraphBuilder b(seed);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(b.rng()); };
  const bool tall = pick(0, 1) != 0;
  int x = b.input("image", {1, pick(1, 4), tall ? pick(30, 48) : pick(10, 20), tall ? pick(10, 20) : pick(30, 48)});
  const int64_t sh = pick(1, 3), sw = sh == 1 ? pick(2, 3) : pick(1, sh - 1);
  FloatGraphBuilder::Window w{pick(1, 4), pick(1, 4), sh, sw, 1, 1, pick(0, 1), pick(0, 2), pick(0, 2), pick(0, 1)};
  x = b.convWindow(x, pick(3, 24), w, 1, true);
  FloatGraphBuilder::Window v{3, 3, sw, sh, 1, 1, 1, 0, 0, 1};  // the other way round
  x = b.convWindow(x, pick(3, 24), v, 1, true);
  x = b.flatten(b.globalAveragePool(x));
  return b.finish(b.gemm(x, pick(2, 10), false));
}

/// Pooling windows per axis on H != W inputs: MaxPool with ceil_mode (the last window hanging over
/// the input's end) and asymmetric pads, AveragePool counting its padding.
compiler::Graph poolingGraph(uint64_t seed) {
  FloatGraphBuilder b(seed);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(b.rng()); };
  int x = b.input("image", {1, pick(1, 6), pick(8, 17), pick(6, 15)});
  x = b.conv(x, pick(2, 20), 3, 1, 1, 1, true);
  const int64_t k = pick(2, 3);
  x = b.poolWindow("MaxPool", x,
                   {k, pick(2, 3), pick(2, 3), pick(1, 2), 1, 1, pick(0, k - 1), pick(0, 1), pick(0, k - 1), 0}, true);
  x = b.poolWindow("AveragePool", x,
                   {2, 2, pick(1, 2), pick(1, 2), 1, 1, pick(0, 1), pick(0, 1), pick(0, 1), pick(0, 1)}, false);
  x = b.flatten(b.globalAveragePool(x));
  return b.finish(b.gemm(x, pick(2, 10), false));
}

/// Odd channel counts everywhere, just below and above the arrays' widths (4, 16, 32) and small:
/// the stem (few input channels take the packed-taps path), a grouped conv with odd channels per
/// group, a depthwise conv, a concat whose second branch starts at an odd channel, a residual add,
/// and a classifier with odd K and N.
compiler::Graph oddChannelsGraph(uint64_t seed) {
  FloatGraphBuilder b(seed);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(b.rng()); };
  auto odd = [&] {
    static constexpr int64_t kOdd[] = {1, 3, 5, 7, 15, 17, 31, 33};
    return kOdd[pick(0, 7)];
  };
  int x = b.input("image", {1, odd(), pick(5, 10), pick(5, 10)});
  const int64_t groups = pick(0, 1) ? 3 : 5;
  x = b.conv(x, groups * (2 * pick(0, 3) + 1), 3, 1, 1, 1, true);
  x = b.conv(x, groups * (2 * pick(0, 3) + 1), 3, 1, 1, groups, true);
  x = b.conv(x, b.shape(x)[1], 3, pick(1, 2), 1, b.shape(x)[1], true);  // depthwise
  x = b.concat(b.conv(x, odd(), 1, 1, 0, 1, true), b.conv(x, odd(), 3, 1, 1, 1, true));
  x = b.conv(x, odd(), 1, 1, 0, 1, true);
  x = b.addOp(x, b.conv(x, b.shape(x)[1], 3, 1, 1, 1, false), true);
  x = b.flatten(b.globalAveragePool(x));
  x = b.gemm(x, odd(), true);
  return b.finish(b.gemm(x, odd(), false));
}

/// Batch > 1: N = 2..4 images of H != W through convs (one strided), a residual add, max or
/// average pooling and a concat, then a classifier whose matrix rows are the N images.
compiler::Graph batchGraph(uint64_t seed) {
  FloatGraphBuilder b(seed);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(b.rng()); };
  int x = b.input("image", {pick(2, 4), pick(1, 5), pick(6, 12), pick(6, 12)});
  x = b.conv(x, pick(3, 20), 3, pick(1, 2), 1, 1, true);
  x = b.addOp(x, b.conv(x, b.shape(x)[1], 3, 1, 1, 1, false), true);
  x = pick(0, 1) ? b.maxPool(x, 3, pick(1, 2), 1) : b.averagePool(x, 2, pick(1, 2));
  x = b.concat(b.conv(x, pick(1, 9), 1, 1, 0, 1, true), b.conv(x, pick(1, 9), 3, 1, 1, 1, true));
  x = b.flatten(b.globalAveragePool(x));
  x = b.gemm(x, pick(3, 21), true);
  return b.finish(b.gemm(x, pick(2, 10), false));
}

/// Attention and its neighbours on [1, S, H d] rows of random, mostly ragged, widths: a position
/// embedding (an Add of a constant), LayerNorm, the Q, K and V projections, the heads split,
/// Q K^T (the transposed preload), a Softmax over S, P V, the heads merged, the output
/// projection, a residual Add and a last LayerNorm.
compiler::Graph attentionGraph(uint64_t seed) {
  FloatGraphBuilder b(seed);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(b.rng()); };
  const int64_t S = pick(2, 40), H = pick(1, 3), d = pick(2, 20), D = H * d;
  int x = b.input("tokens", {1, S, D});
  x = b.addOp(x, b.constant({1, S, D}, 0.5f), false);
  const int h = b.layerNorm(x);
  const auto heads = [&] { return b.transposeRows(b.reshape(b.matmul(h, D), {S, H, d})); };
  const int q = heads(), k = heads(), v = heads();
  const int p = b.softmax(b.matmulActivations(q, k, true));
  const int o = b.reshape(b.transposeRows(b.matmulActivations(p, v, false)), {1, S, D});
  return b.finish(b.layerNorm(b.addOp(b.matmul(o, D), x, false)));
}

struct Case {
  uint64_t seed;
  std::string config;
  compiler::Graph (*make)(uint64_t) = randomGraph;
};

class RandomGraph : public ::testing::TestWithParam<Case> {};

TEST_P(RandomGraph, CompilesAndRunsBitExact) {
  const auto [seed, name, make] = GetParam();
  const isa::IsaConfig& isa = config(name);
  compiler::Graph g = make(seed);
  compiler::quantize(g, compiler::makeRandomInputs(g, 4, seed));
  compiler::LowerOptions lowerOptions;
  lowerOptions.keep_intermediates = true;  // a mismatch then names the first differing value
  compiler::CompiledProgram compiled = compiler::lowerToProgram(g, isa, lowerOptions);
  runtime::Session session(isa, compiled, g);
  runtime::RunOptions options;
  options.check = true;
  options.races = true;
  const auto inputs = runtime::randomInputs(g, seed + 1000);
  const auto result = session.run(inputs, options);
  ASSERT_TRUE(result.checked);
  ASSERT_FALSE(result.mismatch) << result.mismatch->describe() << "\n" << g.print();
  EXPECT_GT(result.sim.stats.cycles, 0u);
}

/// `seeds` seeds (SYSTOLE_DIFFERENTIAL_CASES overrides) of `make` on every shipped config (or those
/// named).
std::vector<Case> cases(int seeds, compiler::Graph (*make)(uint64_t),
                        std::vector<const char*> configs = {"tiny", "default", "large", "os16"}) {
  if (const char* env = std::getenv("SYSTOLE_DIFFERENTIAL_CASES")) seeds = std::max(1, std::atoi(env));
  std::vector<Case> out;
  for (const char* c : configs)
    for (int s = 0; s < seeds; ++s) out.push_back({static_cast<uint64_t>(s), c, make});
  return out;
}

std::string caseName(const ::testing::TestParamInfo<Case>& info) {
  return info.param.config + "_seed" + std::to_string(info.param.seed);
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomGraph, ::testing::ValuesIn(cases(50, randomGraph)), caseName);
INSTANTIATE_TEST_SUITE_P(AutoPad, RandomGraph, ::testing::ValuesIn(cases(10, autoPadGraph)), caseName);
INSTANTIATE_TEST_SUITE_P(Dilation, RandomGraph, ::testing::ValuesIn(cases(8, dilatedGraph)), caseName);
INSTANTIATE_TEST_SUITE_P(StridesByAxis, RandomGraph, ::testing::ValuesIn(cases(8, stridesGraph)), caseName);
INSTANTIATE_TEST_SUITE_P(Pooling, RandomGraph, ::testing::ValuesIn(cases(8, poolingGraph)), caseName);
INSTANTIATE_TEST_SUITE_P(OddChannels, RandomGraph, ::testing::ValuesIn(cases(8, oddChannelsGraph)), caseName);
INSTANTIATE_TEST_SUITE_P(Batch, RandomGraph, ::testing::ValuesIn(cases(8, batchGraph)), caseName);
// tiny has no room for the Softmax's exponential tables (it runs on the host there, which one
// program cannot hold).
INSTANTIATE_TEST_SUITE_P(Attention, RandomGraph,
                         ::testing::ValuesIn(cases(10, attentionGraph, {"default", "large", "os16"})), caseName);

}  // namespace
}  // namespace systole::testing

namespace systole::testing {
namespace {

TEST(Check, ACorruptedProgramIsCaughtAtTheFirstDifferingValue) {
  const isa::IsaConfig& isa = config("default");
  compiler::Graph g = randomGraph(3);
  compiler::quantize(g, compiler::makeRandomInputs(g, 4, 3));
  compiler::LowerOptions options;
  options.keep_intermediates = true;
  compiler::CompiledProgram compiled = compiler::lowerToProgram(g, isa, options);
  // Shift the zero point of the first requantize by one. That is the copy of the input into its
  // haloed buffer (layer 0, not a graph value), so the first value it changes, and the one the
  // check must report, is the stem convolution's output (layer 1).
  auto code = isa::decodeAll(isa, compiled.program.code);
  const auto it = std::find_if(code.begin(), code.end(), [&](const isa::Instruction& in) {
    return isa.instr(in.desc).semantics == isa::Semantics::Requantize;
  });
  ASSERT_NE(it, code.end());
  const isa::InstrDesc& d = isa.instr(it->desc);
  int64_t& zeroPoint = it->fields[static_cast<size_t>(d.operand_field[4])];
  zeroPoint = zeroPoint < 127 ? zeroPoint + 1 : zeroPoint - 1;
  compiled.program.code = isa::encodeAll(isa, code);
  ASSERT_EQ(compiled.layers.at(0).op, "Pad");
  const std::string firstLayer = compiled.layers.at(1).name;
  runtime::Session session(isa, std::move(compiled), g);
  runtime::RunOptions run;
  run.check = true;
  const auto result = session.run(runtime::randomInputs(g, 4), run);
  ASSERT_TRUE(result.mismatch);
  EXPECT_EQ(result.mismatch->layer, firstLayer);
  EXPECT_GE(result.mismatch->instruction, 0);
  EXPECT_NE(result.mismatch->describe().find("written by instruction"), std::string::npos)
      << result.mismatch->describe();
}

}  // namespace
}  // namespace systole::testing
