// Every quantized kernel, run through the reference interpreter on a one-node int8 graph, against
// a long-hand loop written here from docs/quantized-ops.md: sums of (x - z) * w in int64, wrapped
// to int32 once at the end, then arith::requantize. The references never share code with
// kernels_quant.cpp (not even the window geometry).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <random>

#include "quantize/quant_test_util.h"
#include "systole/compiler/interpreter.h"
#include "systole/compiler/quant_math.h"
#include "systole/isa/arith.h"
#include "systole/isa/diagnostic.h"

namespace systole::compiler {
namespace {

namespace arith = isa::arith;
using test::GraphBuilder;
using test::perTensorQ;
using test::randomInt8;
using test::tensorOf;
using test::valuesOf;

/// A one-node graph over int8 inputs and its input tensors.
struct OneNode {
  GraphBuilder b;
  std::map<std::string, HostTensor> inputs;

  int int8Input(const std::string& name, std::vector<int64_t> shape, const std::vector<int8_t>& data, int32_t zp,
                float scale = 0.1f) {
    inputs[name] = tensorOf(ElemType::Int8, shape, data);
    return b.input(name, std::move(shape), ElemType::Int8, perTensorQ(scale, zp));
  }
  template <typename T>
  std::vector<T> run(const std::string& op, std::vector<int> in, std::vector<int64_t> outShape,
                     std::map<std::string, AttrValue> attrs, ElemType outType = ElemType::Int8,
                     std::optional<Quant> outQuant = std::nullopt) {
    const int y = b.node(op, std::move(in), "y", std::move(outShape), std::move(attrs), outType, std::move(outQuant));
    b.output(y);
    b.g.verify();
    const auto out = interpret(b.g, inputs);
    return valuesOf<T>(out.at("y"));
  }
};

struct Requant {
  std::vector<int64_t> multiplier, shift;
};

/// Random per-channel multipliers that keep sums of `terms` products of random int8s mostly in
/// range (some saturate, which the tests also want).
Requant randomRequant(int64_t channels, double terms, std::mt19937& rng, double typical = 74.0 * 74.0) {
  std::uniform_real_distribution<double> u(20.0, 90.0);
  Requant r;
  for (int64_t c = 0; c < channels; ++c) {
    const FixedMultiplier m = quantizeMultiplier(u(rng) / (typical * std::sqrt(terms)));
    r.multiplier.push_back(m.multiplier);
    r.shift.push_back(m.shift);
  }
  return r;
}

int8_t refRequant(int64_t acc, const Requant& r, size_t c, int32_t zy, int32_t lo, int32_t hi) {
  const size_t i = r.multiplier.size() == 1 ? 0 : c;
  return arith::requantize(arith::wrap32(acc), static_cast<int32_t>(r.multiplier[i]), static_cast<int32_t>(r.shift[i]),
                           zy, lo, hi);
}

// ---------------------------------------------------------------------------------------------
// Conv

struct ConvCase {
  const char* name;
  int64_t n, c, h, w, oc, kh, kw, group;
  int64_t sh, sw, dh, dw;
  std::array<int64_t, 4> pads;  // top, left, bottom, right
  bool bias;
  bool oneD = false;  // N C W (h must be 1, kh 1)
};

std::ostream& operator<<(std::ostream& os, const ConvCase& c) { return os << c.name; }

class QuantConv : public ::testing::TestWithParam<ConvCase> {};

TEST_P(QuantConv, MatchesLongHandLoop) {
  const ConvCase& p = GetParam();
  std::mt19937 rng(static_cast<uint32_t>(std::hash<std::string>{}(p.name)));
  const std::array<int64_t, 4> pads = p.pads;
  const int64_t oh = (p.h + pads[0] + pads[2] - ((p.kh - 1) * p.dh + 1)) / p.sh + 1;
  const int64_t ow = (p.w + pads[1] + pads[3] - ((p.kw - 1) * p.dw + 1)) / p.sw + 1;
  const int64_t icg = p.c / p.group, ocg = p.oc / p.group;
  const int32_t zx = std::uniform_int_distribution<int32_t>(-30, 30)(rng);
  const int32_t zy = std::uniform_int_distribution<int32_t>(-30, 30)(rng);
  const auto x = randomInt8(static_cast<size_t>(p.n * p.c * p.h * p.w), rng);
  const auto w = randomInt8(static_cast<size_t>(p.oc * icg * p.kh * p.kw), rng, -127, 127);
  std::vector<int32_t> bias(static_cast<size_t>(p.oc));
  for (auto& v : bias) v = std::uniform_int_distribution<int32_t>(-40000, 40000)(rng);
  const Requant rq = randomRequant(p.oc, static_cast<double>(icg * p.kh * p.kw), rng);
  const int32_t actMin = -100, actMax = 120;

  OneNode g;
  auto dims = [&](int64_t a, int64_t b, int64_t hh, int64_t ww) {
    return p.oneD ? std::vector<int64_t>{a, b, ww} : std::vector<int64_t>{a, b, hh, ww};
  };
  std::vector<int> in = {g.int8Input("x", dims(p.n, p.c, p.h, p.w), x, zx)};
  in.push_back(g.b.constant("w", dims(p.oc, icg, p.kh, p.kw), w, ElemType::Int8,
                            Quant{std::vector<float>(static_cast<size_t>(p.oc), 0.01f),
                                  std::vector<int32_t>(static_cast<size_t>(p.oc), 0), 0}));
  if (p.bias) in.push_back(g.b.constant("b", {p.oc}, bias, ElemType::Int32));
  std::map<std::string, AttrValue> attrs = {{"group", p.group},
                                            {"multiplier", rq.multiplier},
                                            {"shift", rq.shift},
                                            {"act_min", int64_t{actMin}},
                                            {"act_max", int64_t{actMax}}};
  if (p.oneD) {
    attrs["strides"] = std::vector<int64_t>{p.sw};
    attrs["dilations"] = std::vector<int64_t>{p.dw};
    attrs["pads"] = std::vector<int64_t>{pads[1], pads[3]};
    attrs["kernel_shape"] = std::vector<int64_t>{p.kw};
  } else {
    attrs["strides"] = std::vector<int64_t>{p.sh, p.sw};
    attrs["dilations"] = std::vector<int64_t>{p.dh, p.dw};
    attrs["kernel_shape"] = std::vector<int64_t>{p.kh, p.kw};
    attrs["pads"] = std::vector<int64_t>{pads[0], pads[1], pads[2], pads[3]};
  }
  const auto got = g.run<int8_t>("Conv", in, dims(p.n, p.oc, oh, ow), attrs, ElemType::Int8, perTensorQ(0.2f, zy));

  std::vector<int8_t> want;
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t o = 0; o < p.oc; ++o)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t xw = 0; xw < ow; ++xw) {
          int64_t acc = p.bias ? bias[static_cast<size_t>(o)] : 0;
          const int64_t g0 = (o / ocg) * icg;
          for (int64_t ic = g0; ic < g0 + icg; ++ic)
            for (int64_t ky = 0; ky < p.kh; ++ky)
              for (int64_t kx = 0; kx < p.kw; ++kx) {
                const int64_t iy = y * p.sh - pads[0] + ky * p.dh;
                const int64_t ix = xw * p.sw - pads[1] + kx * p.dw;
                if (iy < 0 || iy >= p.h || ix < 0 || ix >= p.w) continue;
                const int64_t xv = x[static_cast<size_t>(((n * p.c + ic) * p.h + iy) * p.w + ix)];
                const int64_t wv = w[static_cast<size_t>(((o * icg + (ic - g0)) * p.kh + ky) * p.kw + kx)];
                acc += (xv - zx) * wv;
              }
          want.push_back(refRequant(acc, rq, static_cast<size_t>(o), zy, actMin, actMax));
        }
  ASSERT_EQ(got.size(), want.size());
  EXPECT_EQ(got, want);
  // The test is only meaningful if outputs vary.
  EXPECT_GT(std::count_if(want.begin(), want.end(), [&](int8_t v) { return v != actMin && v != actMax; }),
            static_cast<long>(want.size() / 4));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, QuantConv,
    ::testing::Values(
        ConvCase{"plain3x3", 1, 3, 7, 6, 4, 3, 3, 1, 1, 1, 1, 1, {0, 0, 0, 0}, true},
        ConvCase{"pad1", 2, 4, 6, 6, 5, 3, 3, 1, 1, 1, 1, 1, {1, 1, 1, 1}, true},
        ConvCase{"asymmetricPadsStride2", 1, 3, 9, 8, 6, 3, 3, 1, 2, 2, 1, 1, {2, 0, 1, 3}, true},
        ConvCase{"stride2NoBias", 1, 8, 10, 10, 8, 3, 3, 1, 2, 2, 1, 1, {1, 1, 1, 1}, false},
        ConvCase{"dilation2", 1, 4, 11, 9, 3, 3, 3, 1, 1, 1, 2, 2, {2, 2, 2, 2}, true},
        ConvCase{"groups2", 1, 6, 8, 8, 4, 3, 3, 2, 1, 1, 1, 1, {1, 1, 1, 1}, true},
        ConvCase{"depthwise", 2, 8, 7, 7, 8, 3, 3, 8, 2, 1, 1, 1, {1, 1, 1, 1}, true},
        ConvCase{"depthwiseMultiplier2", 1, 4, 6, 6, 8, 5, 5, 4, 1, 1, 1, 1, {2, 2, 2, 2}, true},
        ConvCase{"pointwise", 1, 16, 5, 5, 12, 1, 1, 1, 1, 1, 1, 1, {0, 0, 0, 0}, true},
        ConvCase{"rectKernelMixed", 1, 3, 9, 12, 5, 2, 4, 1, 3, 2, 2, 1, {0, 3, 1, 0}, true},
        ConvCase{"largePadsBeyondKernel", 1, 2, 3, 3, 2, 3, 3, 1, 1, 1, 1, 1, {3, 3, 3, 3}, true},
        ConvCase{"sameUpperPadsStride2", 1, 3, 8, 7, 4, 3, 3, 1, 2, 2, 1, 1, {0, 1, 1, 1}, true},  // SAME_UPPER's
        ConvCase{"conv1d", 2, 4, 1, 17, 6, 1, 5, 2, 1, 2, 1, 2, {0, 3, 0, 1}, true, true}),
    [](const ::testing::TestParamInfo<ConvCase>& info) { return std::string(info.param.name); });

TEST(QuantConvWrap, TheAccumulatorWrapsAt32Bits) {
  // A bias near INT32_MAX plus positive products wraps negative, as the NPU's int32 adder does.
  OneNode g;
  const std::vector<int8_t> x = {127, 127, 127, 127};
  const int xi = g.int8Input("x", {1, 1, 2, 2}, x, -128);  // x - z = 255
  const int wi = g.b.constant("w", {2, 1, 2, 2}, std::vector<int8_t>{127, 127, 127, 127, -127, -127, -127, -127},
                              ElemType::Int8, Quant{{0.01f, 0.01f}, {0, 0}, 0});
  const std::vector<int32_t> bias = {std::numeric_limits<int32_t>::max() - 1000,
                                     std::numeric_limits<int32_t>::min() + 1000};
  const int bi = g.b.constant("b", {2}, bias, ElemType::Int32);
  const FixedMultiplier m = quantizeMultiplier(1.0 / (1 << 24));
  const auto got = g.run<int8_t>("Conv", {xi, wi, bi}, {1, 2, 1, 1},
                                 {{"multiplier", std::vector<int64_t>{m.multiplier}},
                                  {"shift", std::vector<int64_t>{m.shift}},
                                  {"act_min", int64_t{-128}},
                                  {"act_max", int64_t{127}}},
                                 ElemType::Int8, perTensorQ(1.0f, 0));
  for (int c = 0; c < 2; ++c) {
    const int64_t acc = int64_t{bias[static_cast<size_t>(c)]} + (c == 0 ? 4 * 255 * 127 : -4 * 255 * 127);
    const int32_t wrapped = arith::wrap32(acc);
    EXPECT_NE(int64_t{wrapped}, acc);  // it really wrapped
    EXPECT_EQ(got[static_cast<size_t>(c)], arith::requantize(wrapped, m.multiplier, m.shift, 0, -128, 127));
  }
  EXPECT_EQ(got[0], -128);  // wrapped to a large negative value
  EXPECT_EQ(got[1], 127);
}

// ---------------------------------------------------------------------------------------------
// Gemm / MatMul

void checkMatmul(const std::string& op, std::vector<int64_t> aShape, int64_t N, bool bias, bool perChannel,
                 uint32_t seed) {
  std::mt19937 rng(seed);
  const int64_t K = aShape.back();
  int64_t M = 1;
  for (size_t d = 0; d + 1 < aShape.size(); ++d) M *= aShape[d];
  const int32_t za = std::uniform_int_distribution<int32_t>(-128, 127)(rng);
  const int32_t zy = std::uniform_int_distribution<int32_t>(-50, 50)(rng);
  const auto a = randomInt8(static_cast<size_t>(M * K), rng);
  const auto w = randomInt8(static_cast<size_t>(K * N), rng, -127, 127);
  std::vector<int32_t> b(static_cast<size_t>(N));
  const double typical = 100.0 * 74.0 * std::sqrt(static_cast<double>(K));  // spread of a sum of K products
  for (auto& v : b) v = static_cast<int32_t>(std::uniform_real_distribution<double>(-typical, typical)(rng));
  const Requant rq = randomRequant(perChannel ? N : 1, static_cast<double>(K), rng, 100.0 * 74.0);

  OneNode g;
  std::vector<int> in = {g.int8Input("a", aShape, a, za),
                         g.b.constant("w", {K, N}, w, ElemType::Int8,
                                      Quant{std::vector<float>(static_cast<size_t>(N), 0.01f),
                                            std::vector<int32_t>(static_cast<size_t>(N), 0), 1})};
  if (bias) in.push_back(g.b.constant("b", {N}, b, ElemType::Int32));
  std::vector<int64_t> yShape = aShape;
  yShape.back() = N;
  const auto got = g.run<int8_t>(
      op, in, yShape,
      {{"multiplier", rq.multiplier}, {"shift", rq.shift}, {"act_min", int64_t{zy}}, {"act_max", int64_t{127}}},
      ElemType::Int8, perTensorQ(0.5f, zy));
  std::vector<int8_t> want;
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      int64_t acc = bias ? b[static_cast<size_t>(n)] : 0;
      for (int64_t k = 0; k < K; ++k)
        acc += (int64_t{a[static_cast<size_t>(m * K + k)]} - za) * w[static_cast<size_t>(k * N + n)];
      want.push_back(refRequant(acc, rq, static_cast<size_t>(n), zy, zy, 127));
    }
  EXPECT_EQ(got, want);
  EXPECT_GT(std::count_if(want.begin(), want.end(), [&](int8_t v) { return v != zy && v != 127; }),
            static_cast<long>(want.size() / 4));
}

TEST(QuantGemm, PerChannelWithBiasAndRelu) { checkMatmul("Gemm", {5, 37}, 11, true, true, 1); }
TEST(QuantGemm, OneMultiplierNoBias) { checkMatmul("Gemm", {3, 64}, 16, false, false, 2); }
TEST(QuantMatMul, ThreeDimensionalInput) { checkMatmul("MatMul", {2, 3, 20}, 7, false, true, 3); }
TEST(QuantMatMul, FusedBiasInput) { checkMatmul("MatMul", {4, 9}, 5, true, true, 4); }

TEST(QuantGemm, RejectsAnUnfoldedTranspose) {
  OneNode g;
  const int a = g.int8Input("a", {1, 2}, {1, 2}, 0);
  const int w = g.b.constant("w", {2, 2}, std::vector<int8_t>{1, 2, 3, 4}, ElemType::Int8, Quant{{1, 1}, {0, 0}, 1});
  EXPECT_THROW(g.run<int8_t>("Gemm", {a, w}, {1, 2},
                             {{"transB", int64_t{1}},
                              {"multiplier", std::vector<int64_t>{1 << 30}},
                              {"shift", std::vector<int64_t>{30}},
                              {"act_min", int64_t{-128}},
                              {"act_max", int64_t{127}}},
                             ElemType::Int8, perTensorQ(1, 0)),
               Error);
}

// ---------------------------------------------------------------------------------------------
// Add

TEST(QuantAdd, WidenAddRequantize) {
  std::mt19937 rng(21);
  for (int trial = 0; trial < 8; ++trial) {
    const std::vector<int64_t> shape = {2, 3, 5, 4};
    const size_t n = 120;
    const int32_t za = std::uniform_int_distribution<int32_t>(-128, 127)(rng);
    const int32_t zb = std::uniform_int_distribution<int32_t>(-128, 127)(rng);
    const int32_t zy = std::uniform_int_distribution<int32_t>(-20, 20)(rng);
    const int32_t ma = std::uniform_int_distribution<int32_t>(-(1 << 15) + 1, (1 << 15) - 1)(rng);
    const int32_t mb = std::uniform_int_distribution<int32_t>(1, (1 << 15) - 1)(rng);
    const FixedMultiplier m = quantizeMultiplier(std::uniform_real_distribution<double>(0.5, 2.0)(rng) / (1 << 15));
    const int32_t lo = trial % 2 ? zy : -128, hi = trial % 3 ? 127 : zy + 50;
    const auto a = randomInt8(n, rng), b = randomInt8(n, rng);
    OneNode g;
    const int ai = g.int8Input("a", shape, a, za), bi = g.int8Input("b", shape, b, zb);
    const auto got = g.run<int8_t>("Add", {ai, bi}, shape,
                                   {{"a_multiplier", int64_t{ma}},
                                    {"b_multiplier", int64_t{mb}},
                                    {"multiplier", std::vector<int64_t>{m.multiplier}},
                                    {"shift", std::vector<int64_t>{m.shift}},
                                    {"act_min", int64_t{lo}},
                                    {"act_max", int64_t{hi}}},
                                   ElemType::Int8, perTensorQ(0.1f, zy));
    for (size_t i = 0; i < n; ++i) {
      const int64_t acc = (int64_t{a[i]} - za) * ma + (int64_t{b[i]} - zb) * mb;
      ASSERT_EQ(got[i], arith::requantize(arith::wrap32(acc), m.multiplier, m.shift, zy, lo, hi))
          << "trial " << trial << " i " << i;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Pooling

struct PoolCase {
  int64_t h, w, kh, kw, sh, sw;
  std::array<int64_t, 4> pads;
};

/// Long-hand pooling over the window positions inside x.
template <typename Fn>
void forInside(const PoolCase& p, int64_t oy, int64_t ox, Fn&& fn) {
  for (int64_t ky = 0; ky < p.kh; ++ky)
    for (int64_t kx = 0; kx < p.kw; ++kx) {
      const int64_t iy = oy * p.sh - p.pads[0] + ky, ix = ox * p.sw - p.pads[1] + kx;
      if (iy >= 0 && iy < p.h && ix >= 0 && ix < p.w) fn(iy * p.w + ix);
    }
}

std::map<std::string, AttrValue> poolAttrs(const PoolCase& p) {
  return {{"kernel_shape", std::vector<int64_t>{p.kh, p.kw}},
          {"strides", std::vector<int64_t>{p.sh, p.sw}},
          {"pads", std::vector<int64_t>{p.pads[0], p.pads[1], p.pads[2], p.pads[3]}}};
}

TEST(QuantMaxPool, PaddingNeverWins) {
  std::mt19937 rng(31);
  for (const PoolCase& p : {PoolCase{8, 8, 2, 2, 2, 2, {0, 0, 0, 0}}, PoolCase{7, 9, 3, 3, 2, 2, {1, 1, 1, 1}},
                            PoolCase{5, 5, 3, 2, 1, 2, {2, 0, 0, 1}}}) {
    const int64_t planes = 6, oh = (p.h + p.pads[0] + p.pads[2] - p.kh) / p.sh + 1,
                  ow = (p.w + p.pads[1] + p.pads[3] - p.kw) / p.sw + 1;
    // All values below the zero point: a zero-point (or 0) padding would win; it must not.
    const auto x = randomInt8(static_cast<size_t>(planes * p.h * p.w), rng, -128, -60);
    OneNode g;
    const int xi = g.int8Input("x", {2, 3, p.h, p.w}, x, -10);
    const auto got =
        g.run<int8_t>("MaxPool", {xi}, {2, 3, oh, ow}, poolAttrs(p), ElemType::Int8, perTensorQ(0.1f, -10));
    std::vector<int8_t> want;
    for (int64_t c = 0; c < planes; ++c)
      for (int64_t oy = 0; oy < oh; ++oy)
        for (int64_t ox = 0; ox < ow; ++ox) {
          int m = std::numeric_limits<int>::min();
          forInside(p, oy, ox, [&](int64_t i) { m = std::max<int>(m, x[static_cast<size_t>(c * p.h * p.w + i)]); });
          want.push_back(static_cast<int8_t>(m));
        }
    EXPECT_EQ(got, want);
  }
}

TEST(QuantAveragePool, SumOfWidenedInputsRequantized) {
  std::mt19937 rng(41);
  // No padding, and padding with count_include_pad = 1 (padding positions add real zeros).
  for (const PoolCase& p : {PoolCase{8, 8, 2, 2, 2, 2, {0, 0, 0, 0}}, PoolCase{7, 7, 3, 3, 1, 1, {1, 1, 1, 1}},
                            PoolCase{9, 6, 3, 2, 2, 2, {1, 0, 1, 0}}}) {
    const int64_t oh = (p.h + p.pads[0] + p.pads[2] - p.kh) / p.sh + 1,
                  ow = (p.w + p.pads[1] + p.pads[3] - p.kw) / p.sw + 1;
    const int32_t zx = 17, zy = -5;
    const auto x = randomInt8(static_cast<size_t>(2 * p.h * p.w), rng);
    const FixedMultiplier m = quantizeMultiplier(0.1 / (0.12 * static_cast<double>(p.kh * p.kw)));
    OneNode g;
    const int xi = g.int8Input("x", {1, 2, p.h, p.w}, x, zx, 0.1f);
    auto attrs = poolAttrs(p);
    attrs["count_include_pad"] = int64_t{1};
    attrs["multiplier"] = std::vector<int64_t>{m.multiplier};
    attrs["shift"] = std::vector<int64_t>{m.shift};
    const auto got = g.run<int8_t>("AveragePool", {xi}, {1, 2, oh, ow}, attrs, ElemType::Int8, perTensorQ(0.12f, zy));
    std::vector<int8_t> want;
    for (int64_t c = 0; c < 2; ++c)
      for (int64_t oy = 0; oy < oh; ++oy)
        for (int64_t ox = 0; ox < ow; ++ox) {
          int64_t acc = 0;
          forInside(p, oy, ox, [&](int64_t i) { acc += int64_t{x[static_cast<size_t>(c * p.h * p.w + i)]} - zx; });
          want.push_back(arith::requantize(arith::wrap32(acc), m.multiplier, m.shift, zy, -128, 127));
        }
    EXPECT_EQ(got, want);
  }
}

TEST(QuantGlobalAveragePool, SumOverThePlane) {
  std::mt19937 rng(51);
  const auto x = randomInt8(2 * 5 * 7 * 6, rng);
  const int32_t zx = -3, zy = 8;
  const FixedMultiplier m = quantizeMultiplier(0.2 / (0.15 * 42.0));
  OneNode g;
  const int xi = g.int8Input("x", {2, 5, 7, 6}, x, zx, 0.2f);
  const auto got =
      g.run<int8_t>("GlobalAveragePool", {xi}, {2, 5, 1, 1},
                    {{"multiplier", std::vector<int64_t>{m.multiplier}}, {"shift", std::vector<int64_t>{m.shift}}},
                    ElemType::Int8, perTensorQ(0.15f, zy));
  for (size_t p = 0; p < 10; ++p) {
    int64_t acc = 0;
    for (size_t i = 0; i < 42; ++i) acc += int64_t{x[p * 42 + i]} - zx;
    EXPECT_EQ(got[p], arith::requantize(arith::wrap32(acc), m.multiplier, m.shift, zy, -128, 127));
  }
}

// ---------------------------------------------------------------------------------------------
// Clamps, Requant, host boundary

TEST(QuantRelu, ClampsAtActMinAndActMax) {
  std::mt19937 rng(61);
  const auto x = randomInt8(200, rng);
  for (const std::string op : {"Relu", "Clip"}) {
    OneNode g;
    const int xi = g.int8Input("x", {200}, x, -7);
    const auto got = g.run<int8_t>(op, {xi}, {200}, {{"act_min", int64_t{-7}}, {"act_max", int64_t{93}}},
                                   ElemType::Int8, perTensorQ(0.1f, -7));
    for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(got[i], std::clamp<int>(x[i], -7, 93));
  }
}

TEST(QuantMaxMin, ElementwiseOnSharedQuantization) {
  std::mt19937 rng(67);
  const auto a = randomInt8(120, rng), b = randomInt8(120, rng);
  for (const std::string op : {"Max", "Min"}) {
    OneNode g;
    const int ai = g.int8Input("a", {2, 60}, a, 5, 0.1f), bi = g.int8Input("b", {2, 60}, b, 5, 0.1f);
    const auto got = g.run<int8_t>(op, {ai, bi}, {2, 60}, {}, ElemType::Int8, perTensorQ(0.1f, 5));
    for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(got[i], op == "Max" ? std::max(a[i], b[i]) : std::min(a[i], b[i]));
  }
  // The quantizer gives both inputs the output's quantization; anything else is refused.
  OneNode g;
  const int ai = g.int8Input("a", {2, 60}, a, 5, 0.1f), bi = g.int8Input("b", {2, 60}, b, 5, 0.2f);
  EXPECT_THROW(g.run<int8_t>("Max", {ai, bi}, {2, 60}, {}, ElemType::Int8, perTensorQ(0.1f, 5)), Error);
}

TEST(QuantRequant, ChangesScaleAndZeroPoint) {
  std::mt19937 rng(71);
  const auto x = randomInt8(300, rng);
  const int32_t zx = 12, zy = -40;
  const FixedMultiplier m = quantizeMultiplier(0.05 / 0.08);
  OneNode g;
  const int xi = g.int8Input("x", {3, 100}, x, zx, 0.05f);
  const auto got =
      g.run<int8_t>("Requant", {xi}, {3, 100},
                    {{"multiplier", std::vector<int64_t>{m.multiplier}}, {"shift", std::vector<int64_t>{m.shift}}},
                    ElemType::Int8, perTensorQ(0.08f, zy));
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(got[i], arith::requantize(int32_t{x[i]} - zx, m.multiplier, m.shift, zy, -128, 127));
    EXPECT_NEAR(0.08 * (got[i] - zy), 0.05 * (x[i] - zx), 0.04 + 1e-6);
  }
}

TEST(QuantizeLinear, RoundHalfToEvenThenZeroPointThenSaturate) {
  GraphBuilder b;
  const std::vector<float> x = {1.25f, 1.75f, -1.25f, -1.75f, 0.0f, 0.26f, 1000.0f, -1000.0f, 63.0f, -70.0f};
  const int xi = b.input("x", {10});
  const int y = b.node("QuantizeLinear", {xi}, "y", {10}, {}, ElemType::Int8, perTensorQ(0.5f, 3));
  b.output(y);
  const auto out = interpret(b.g, {{"x", tensorOf(ElemType::Float32, {10}, x)}});
  // x / 0.5 = 2.5, 3.5, -2.5, -3.5, 0, 0.52, 2000, -2000, 126, -140; then + 3 and saturate.
  EXPECT_EQ(valuesOf<int8_t>(out.at("y")), (std::vector<int8_t>{5, 7, 1, -1, 3, 4, 127, -128, 127, -128}));
}

TEST(DequantizeLinear, ScaleTimesOffset) {
  GraphBuilder b;
  const std::vector<int8_t> q = {-128, -3, 0, 5, 127};
  const int xi = b.input("q", {5}, ElemType::Int8, perTensorQ(0.25f, -3));
  const int y = b.node("DequantizeLinear", {xi}, "y", {5});
  b.output(y);
  const auto out = interpret(b.g, {{"q", tensorOf(ElemType::Int8, {5}, q)}});
  EXPECT_EQ(valuesOf<float>(out.at("y")), (std::vector<float>{-31.25f, 0.0f, 0.75f, 2.0f, 32.5f}));
}

TEST(DequantizeLinear, PerAxisScales) {
  GraphBuilder b;
  const std::vector<int8_t> q = {1, 2, 3, 4, 5, 6};
  const int xi = b.input("q", {2, 3}, ElemType::Int8, Quant{{0.5f, 2.0f, 1.0f}, {0, 1, -1}, 1});
  const int y = b.node("DequantizeLinear", {xi}, "y", {2, 3});
  b.output(y);
  const auto out = interpret(b.g, {{"q", tensorOf(ElemType::Int8, {2, 3}, q)}});
  EXPECT_EQ(valuesOf<float>(out.at("y")), (std::vector<float>{0.5f, 2.0f, 4.0f, 2.0f, 8.0f, 7.0f}));
}

// ---------------------------------------------------------------------------------------------
// Data movement

TEST(QuantDataMovement, ReshapeFlattenTransposeConcat) {
  std::mt19937 rng(81);
  const auto x = randomInt8(24, rng), z = randomInt8(8, rng);
  {
    OneNode g;
    const int xi = g.int8Input("x", {2, 3, 4}, x, 0);
    const int shape = g.b.constant("shape", {2}, std::vector<int64_t>{4, 6}, ElemType::Int64);
    EXPECT_EQ(g.run<int8_t>("Reshape", {xi, shape}, {4, 6}, {}, ElemType::Int8, perTensorQ(0.1f, 0)), x);
  }
  {
    OneNode g;
    const int xi = g.int8Input("x", {2, 3, 4}, x, 0);
    EXPECT_EQ(g.run<int8_t>("Flatten", {xi}, {2, 12}, {{"axis", int64_t{1}}}, ElemType::Int8, perTensorQ(0.1f, 0)), x);
  }
  {
    OneNode g;
    const int xi = g.int8Input("x", {2, 3, 4}, x, 0);
    const auto got = g.run<int8_t>("Transpose", {xi}, {4, 2, 3}, {{"perm", std::vector<int64_t>{2, 0, -2}}},
                                   ElemType::Int8, perTensorQ(0.1f, 0));  // -2 is axis 1
    for (int64_t i = 0; i < 4; ++i)
      for (int64_t j = 0; j < 2; ++j)
        for (int64_t k = 0; k < 3; ++k)
          EXPECT_EQ(got[static_cast<size_t>((i * 2 + j) * 3 + k)], x[static_cast<size_t>((j * 3 + k) * 4 + i)]);
  }
  {
    OneNode g;
    const int xi = g.int8Input("x", {2, 3, 4}, x, 0);
    const int zi = g.int8Input("z", {2, 1, 4}, z, 0);
    const auto got =
        g.run<int8_t>("Concat", {xi, zi}, {2, 4, 4}, {{"axis", int64_t{-2}}}, ElemType::Int8, perTensorQ(0.1f, 0));
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t c = 0; c < 4; ++c)
        for (int64_t k = 0; k < 4; ++k)
          EXPECT_EQ(got[static_cast<size_t>((b * 4 + c) * 4 + k)],
                    c < 3 ? x[static_cast<size_t>((b * 3 + c) * 4 + k)] : z[static_cast<size_t>(b * 4 + k)]);
  }
}

// ---------------------------------------------------------------------------------------------
// Dispatch

TEST(QuantDispatch, FloatNodesAreNotQuantized) {
  GraphBuilder b;
  const int x = b.input("x", {4});
  const int y = b.node("Relu", {x}, "y", {4});
  b.output(y);
  HostTensor in(ElemType::Float32, {4}), out(ElemType::Float32, {4});
  std::vector<const HostTensor*> ins = {&in};
  std::vector<HostTensor*> outs = {&out};
  EXPECT_FALSE(runQuantizedKernel(b.g, b.g.nodes[0], ins, outs));
}

TEST(QuantDispatch, UnknownInt8OperatorIsAnError) {
  OneNode g;
  const int x = g.int8Input("x", {4}, {1, 2, 3, 4}, 0);
  try {
    g.run<int8_t>("Softmax", {x}, {4}, {}, ElemType::Int8, perTensorQ(0.1f, 0));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("Softmax"), std::string::npos) << e.message();
  }
}

TEST(QuantDispatch, MissingAttributesAreErrors) {
  OneNode g;
  const int x = g.int8Input("x", {1, 1, 2, 2}, {1, 2, 3, 4}, 0);
  const int w = g.b.constant("w", {1, 1, 1, 1}, std::vector<int8_t>{1}, ElemType::Int8, Quant{{1}, {0}, 0});
  EXPECT_THROW(g.run<int8_t>("Conv", {x, w}, {1, 1, 2, 2}, {}, ElemType::Int8, perTensorQ(0.1f, 0)), Error);
}

}  // namespace
}  // namespace systole::compiler
