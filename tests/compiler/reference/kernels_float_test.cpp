// The float kernels against straightforward loops written from the ONNX operator definitions:
// every output element computed independently (no shared geometry code with the kernels), for the
// parameter combinations that matter (groups, strides, asymmetric pads, dilation, transposes,
// broadcasting, opset-dependent attribute/input forms).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>

#include "compiler_test_util.h"

namespace systole::testing {
namespace {

constexpr double kTol = 1e-5;

// ---- Convolution -------------------------------------------------------------------------------

struct ConvCase {
  int64_t n, c, h, w, m, kh, kw, group, sh, sw, dh, dw, pt, pl, pb, pr;
  bool bias;
};

HostTensor refConv(const HostTensor& x, const HostTensor& w, const HostTensor* b, const ConvCase& p) {
  const int64_t oh = (p.h + p.pt + p.pb - ((p.kh - 1) * p.dh + 1)) / p.sh + 1;
  const int64_t ow = (p.w + p.pl + p.pr - ((p.kw - 1) * p.dw + 1)) / p.sw + 1;
  HostTensor y(ElemType::Float32, {p.n, p.m, oh, ow});
  const int64_t cg = p.c / p.group, mg = p.m / p.group;
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t m = 0; m < p.m; ++m)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          double acc = b ? b->data<float>()[m] : 0.0;
          const int64_t g = m / mg;
          for (int64_t ci = 0; ci < cg; ++ci)
            for (int64_t a = 0; a < p.kh; ++a)
              for (int64_t bb = 0; bb < p.kw; ++bb) {
                const int64_t ih = i * p.sh - p.pt + a * p.dh, iw = j * p.sw - p.pl + bb * p.dw;
                if (ih < 0 || ih >= p.h || iw < 0 || iw >= p.w) continue;
                acc += static_cast<double>(x.data<float>()[flat(x.shape, {n, g * cg + ci, ih, iw})]) *
                       w.data<float>()[flat(w.shape, {m, ci, a, bb})];
              }
          y.data<float>()[flat(y.shape, {n, m, i, j})] = static_cast<float>(acc);
        }
  return y;
}

class ConvTest : public ::testing::TestWithParam<ConvCase> {};

TEST_P(ConvTest, MatchesDirectLoops) {
  const ConvCase p = GetParam();
  const HostTensor x = randomTensor({p.n, p.c, p.h, p.w}, 1);
  const HostTensor w = randomTensor({p.m, p.c / p.group, p.kh, p.kw}, 2);
  const HostTensor b = randomTensor({p.m}, 3);
  std::map<std::string, AttrValue> attrs = {{"group", p.group},
                                            {"strides", Shape{p.sh, p.sw}},
                                            {"dilations", Shape{p.dh, p.dw}},
                                            {"pads", Shape{p.pt, p.pl, p.pb, p.pr}},
                                            {"kernel_shape", Shape{p.kh, p.kw}}};
  std::vector<const HostTensor*> in = {&x, &w};
  if (p.bias) in.push_back(&b);
  const HostTensor y = run1("Conv", in, attrs);
  const HostTensor ref = refConv(x, w, p.bias ? &b : nullptr, p);
  EXPECT_LE(maxAbsDiff(y, ref), kTol);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, ConvTest,
    ::testing::Values(ConvCase{1, 3, 8, 8, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true},    // same padding
                      ConvCase{2, 4, 9, 7, 6, 3, 3, 1, 2, 2, 1, 1, 1, 1, 1, 1, true},    // stride 2, batch
                      ConvCase{1, 6, 8, 8, 6, 3, 3, 6, 1, 1, 1, 1, 1, 1, 1, 1, true},    // depthwise
                      ConvCase{1, 8, 6, 6, 4, 1, 1, 2, 1, 1, 1, 1, 0, 0, 0, 0, false},   // grouped 1x1
                      ConvCase{1, 3, 10, 9, 2, 3, 2, 1, 1, 2, 2, 3, 0, 1, 2, 0, true},   // dilation, asym pads
                      ConvCase{1, 2, 7, 7, 3, 5, 5, 1, 3, 1, 1, 1, 2, 0, 1, 3, false},   // 5x5, odd strides
                      ConvCase{1, 3, 4, 4, 2, 4, 4, 1, 1, 1, 1, 1, 0, 0, 0, 0, true}));  // kernel = input

// auto_pad never reaches a kernel: the importer makes it explicit pads (auto_pad_test.cpp).
TEST(ConvKernel, FusedActivations) {
  const HostTensor x = randomTensor({1, 2, 5, 5}, 4);
  const HostTensor w = randomTensor({3, 2, 3, 3}, 5);
  const HostTensor relu = run1("Conv", {&x, &w}, {{"pads", Shape{1, 1, 1, 1}}, {"activation", std::string("relu")}});
  const HostTensor clip =
      run1("Conv", {&x, &w},
           {{"pads", Shape{1, 1, 1, 1}}, {"activation", std::string("clip")}, {"clip_min", -0.25}, {"clip_max", 0.5}});
  const HostTensor plain = run1("Conv", {&x, &w}, {{"pads", Shape{1, 1, 1, 1}}});
  for (int64_t i = 0; i < plain.elements(); ++i) {
    EXPECT_EQ(relu.data<float>()[i], std::max(plain.data<float>()[i], 0.f));
    EXPECT_EQ(clip.data<float>()[i], std::clamp(plain.data<float>()[i], -0.25f, 0.5f));
  }
}

TEST(ConvKernel, OneDimensional) {
  const HostTensor x = randomTensor({1, 2, 11}, 6);
  const HostTensor w = randomTensor({3, 2, 3}, 7);
  const HostTensor y = run1("Conv", {&x, &w}, {{"strides", Shape{2}}, {"pads", Shape{1, 0}}});
  ASSERT_EQ(y.shape, (Shape{1, 3, 5}));
  for (int64_t m = 0; m < 3; ++m)
    for (int64_t o = 0; o < 5; ++o) {
      double acc = 0;
      for (int64_t c = 0; c < 2; ++c)
        for (int64_t k = 0; k < 3; ++k) {
          const int64_t i = o * 2 - 1 + k;
          if (i >= 0 && i < 11)
            acc += static_cast<double>(x.data<float>()[c * 11 + i]) * w.data<float>()[(m * 2 + c) * 3 + k];
        }
      EXPECT_NEAR(y.data<float>()[m * 5 + o], acc, kTol);
    }
}

// ---- Gemm / MatMul -----------------------------------------------------------------------------

TEST(GemmKernel, TransposesAlphaBetaAndBroadcastC) {
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb)
      for (const Shape& cShape : {Shape{5}, Shape{1, 5}, Shape{3, 5}, Shape{1}}) {
        const int64_t M = 3, K = 4, N = 5;
        const HostTensor a = randomTensor(ta ? Shape{K, M} : Shape{M, K}, 10);
        const HostTensor b = randomTensor(tb ? Shape{N, K} : Shape{K, N}, 11);
        const HostTensor c = randomTensor(cShape, 12);
        const double alpha = 0.75, beta = -1.5;
        const HostTensor y = run1("Gemm", {&a, &b, &c},
                                  {{"transA", int64_t{ta}}, {"transB", int64_t{tb}}, {"alpha", alpha}, {"beta", beta}});
        ASSERT_EQ(y.shape, (Shape{M, N}));
        for (int64_t m = 0; m < M; ++m)
          for (int64_t n = 0; n < N; ++n) {
            double acc = 0;
            for (int64_t k = 0; k < K; ++k)
              acc += static_cast<double>(a.data<float>()[ta ? k * M + m : m * K + k]) *
                     b.data<float>()[tb ? n * K + k : k * N + n];
            const int64_t ci = c.elements() == 1 ? 0 : c.elements() == N ? n : m * N + n;
            EXPECT_NEAR(y.data<float>()[m * N + n], alpha * acc + beta * c.data<float>()[ci], 1e-5) << ta << tb;
          }
      }
}

TEST(MatMulKernel, BatchedBroadcastAndVectors) {
  struct Case {
    Shape a, b, y;
  };
  for (const Case& cs : {Case{{2, 3, 4}, {4, 5}, {2, 3, 5}}, Case{{3, 4}, {2, 4, 5}, {2, 3, 5}},
                         Case{{2, 1, 3, 4}, {1, 3, 4, 2}, {2, 3, 3, 2}}, Case{{4}, {4, 5}, {5}}, Case{{3, 4}, {4}, {3}},
                         Case{{4}, {4}, {}}}) {
    const HostTensor a = randomTensor(cs.a, 20), b = randomTensor(cs.b, 21);
    const HostTensor y = run1("MatMul", {&a, &b});
    ASSERT_EQ(y.shape, cs.y);
    // Reference: promote vectors, broadcast batches by unraveling the output batch index.
    Shape pa = cs.a, pb = cs.b;
    if (pa.size() == 1) pa.insert(pa.begin(), 1);
    if (pb.size() == 1) pb = Shape{pb[0], 1};  // (not push_back: GCC 12 -Warray-bounds false positive)
    const int64_t M = pa[pa.size() - 2], K = pa.back(), N = pb.back();
    const size_t rb = std::max(pa.size(), pb.size()) - 2;
    Shape batch(rb);
    for (size_t i = 0; i < rb; ++i) {
      const int64_t da = i + pa.size() - 2 >= rb ? pa[i + pa.size() - 2 - rb] : 1;
      const int64_t db = i + pb.size() - 2 >= rb ? pb[i + pb.size() - 2 - rb] : 1;
      batch[i] = std::max(da, db);
    }
    int64_t nb = 1;
    for (int64_t d : batch) nb *= d;
    for (int64_t bi = 0; bi < nb; ++bi) {
      const auto idx = unflat(batch, bi);
      auto offset = [&](const Shape& s) {
        int64_t f = 0;
        const size_t r = s.size() - 2;
        for (size_t i = 0; i < r; ++i) {
          const int64_t d = s[i];
          f = f * d + (d == 1 ? 0 : idx[i + rb - r]);
        }
        return f;
      };
      const int64_t oa = offset(pa), ob = offset(pb);
      for (int64_t m = 0; m < M; ++m)
        for (int64_t n = 0; n < N; ++n) {
          double acc = 0;
          for (int64_t k = 0; k < K; ++k)
            acc += static_cast<double>(a.data<float>()[(oa * M + m) * K + k]) * b.data<float>()[(ob * K + k) * N + n];
          EXPECT_NEAR(y.data<float>()[(bi * M + m) * N + n], acc, 1e-5);
        }
    }
  }
}

TEST(MatMulKernel, FusedBiasAndActivation) {
  const HostTensor a = randomTensor({2, 3, 4}, 30), b = randomTensor({4, 5}, 31), bias = randomTensor({5}, 32);
  const HostTensor plain = run1("MatMul", {&a, &b});
  const HostTensor fused = run1("MatMul", {&a, &b, &bias}, {{"activation", std::string("relu")}});
  for (int64_t i = 0; i < plain.elements(); ++i)
    EXPECT_FLOAT_EQ(fused.data<float>()[i], std::max(0.f, plain.data<float>()[i] + bias.data<float>()[i % 5]));
}

// ---- Element-wise ------------------------------------------------------------------------------

double refBinary(const std::string& op, double a, double b) {
  if (op == "Add") return a + b;
  if (op == "Sub") return a - b;
  if (op == "Mul") return a * b;
  if (op == "Div") return a / b;
  if (op == "Pow") return std::pow(a, b);
  if (op == "Max") return std::max(a, b);
  return 0;
}

TEST(ElementwiseKernel, NumpyBroadcasting) {
  struct Case {
    Shape a, b, y;
  };
  for (const std::string op : {"Add", "Sub", "Mul", "Div", "Pow", "Max"})
    for (const Case& cs :
         {Case{{2, 3, 4}, {2, 3, 4}, {2, 3, 4}}, Case{{2, 3, 4}, {4}, {2, 3, 4}}, Case{{2, 1, 4}, {3, 1}, {2, 3, 4}},
          Case{{1}, {2, 3}, {2, 3}}, Case{{}, {3}, {3}}, Case{{1, 3, 1, 2}, {2, 1, 5, 1}, {2, 3, 5, 2}}}) {
      const bool pow = op == "Pow";
      const HostTensor a = randomTensor(cs.a, 40, pow ? 0.1f : -2.f, 2.f);
      const HostTensor b = randomTensor(cs.b, 41, pow ? -2.f : 0.5f, 2.f);
      const HostTensor y = run1(op, {&a, &b}, {});
      ASSERT_EQ(y.shape, cs.y) << op;
      for (int64_t i = 0; i < y.elements(); ++i) {
        const auto idx = unflat(cs.y, i);
        auto pick = [&](const HostTensor& t) {
          std::vector<int64_t> sub;
          for (size_t d = 0; d < t.shape.size(); ++d) {
            const int64_t od = idx[d + cs.y.size() - t.shape.size()];
            sub.push_back(t.shape[d] == 1 ? 0 : od);
          }
          return static_cast<double>(t.data<float>()[t.shape.empty() ? 0 : flat(t.shape, sub)]);
        };
        EXPECT_NEAR(y.data<float>()[i], refBinary(op, pick(a), pick(b)),
                    1e-5 * std::max(1.0, std::abs(refBinary(op, pick(a), pick(b)))))
            << op;
      }
    }
}

TEST(ElementwiseKernel, Int64ShapeArithmetic) {
  const HostTensor a = intTensor({3}, {6, 8, 9}), b = intTensor({1}, {2});
  const HostTensor y = run1("Div", {&a, &b}, {});
  ASSERT_EQ(y.type, ElemType::Int64);
  EXPECT_EQ(y.data<int64_t>()[0], 3);
  EXPECT_EQ(y.data<int64_t>()[1], 4);
  EXPECT_EQ(y.data<int64_t>()[2], 4);
  const HostTensor m = run1("Mul", {&a, &b}, {});
  EXPECT_EQ(m.data<int64_t>()[2], 18);
}

TEST(ElementwiseKernel, AddWithFusedRelu) {
  const HostTensor a = randomTensor({2, 5}, 50), b = randomTensor({2, 5}, 51);
  const HostTensor y = run1("Add", {&a, &b}, {{"activation", std::string("relu")}});
  for (int64_t i = 0; i < y.elements(); ++i)
    EXPECT_FLOAT_EQ(y.data<float>()[i], std::max(0.f, a.data<float>()[i] + b.data<float>()[i]));
}

TEST(ElementwiseKernel, Unary) {
  const HostTensor x = randomTensor({3, 7}, 60, -4.f, 4.f);
  const HostTensor pos = randomTensor({3, 7}, 61, 0.f, 4.f);
  struct Case {
    std::string op;
    std::map<std::string, AttrValue> attrs;
    std::function<double(double)> f;
    bool positive = false;
  };
  const double s2 = std::numbers::sqrt2;
  const std::vector<Case> cases = {
      {"Relu", {}, [](double v) { return std::max(v, 0.0); }},
      {"LeakyRelu", {{"alpha", 0.1}}, [](double v) { return v >= 0 ? v : 0.1 * v; }},
      {"LeakyRelu", {}, [](double v) { return v >= 0 ? v : 0.01 * v; }},
      {"HardSigmoid", {}, [](double v) { return std::clamp(0.2 * v + 0.5, 0.0, 1.0); }},
      {"HardSigmoid",
       {{"alpha", 0.25}, {"beta", 0.25}},
       [](double v) { return std::clamp(0.25 * v + 0.25, 0.0, 1.0); }},
      {"HardSwish", {}, [](double v) { return v * std::clamp(v / 6 + 0.5, 0.0, 1.0); }},
      {"Sigmoid", {}, [](double v) { return 1 / (1 + std::exp(-v)); }},
      {"Tanh", {}, [](double v) { return std::tanh(v); }},
      {"Erf", {}, [](double v) { return std::erf(v); }},
      {"Exp", {}, [](double v) { return std::exp(v); }},
      {"Neg", {}, [](double v) { return -v; }},
      {"Sqrt", {}, [](double v) { return std::sqrt(v); }, true},
      {"Gelu", {}, [s2](double v) { return 0.5 * v * (1 + std::erf(v / s2)); }},
      {"Gelu",
       {{"approximate", std::string("tanh")}},
       [](double v) {
         return 0.5 * v * (1 + std::tanh(std::sqrt(2 / std::numbers::pi) * (v + 0.044715 * v * v * v)));
       }},
      {"Identity", {}, [](double v) { return v; }},
      {"Abs", {}, [](double v) { return std::abs(v); }},
      {"Elu", {}, [](double v) { return v >= 0 ? v : std::exp(v) - 1; }},
      {"Elu", {{"alpha", 0.5}}, [](double v) { return v >= 0 ? v : 0.5 * (std::exp(v) - 1); }},
      {"Softplus", {}, [](double v) { return std::log(1 + std::exp(v)); }},
      {"Softsign", {}, [](double v) { return v / (1 + std::abs(v)); }},
  };
  for (const auto& c : cases) {
    const HostTensor& in = c.positive ? pos : x;
    const HostTensor y = run1(c.op, {&in}, c.attrs);
    for (int64_t i = 0; i < y.elements(); ++i) {
      const double want = c.f(in.data<float>()[i]);
      EXPECT_NEAR(y.data<float>()[i], want, 1e-5 * std::max(1.0, std::abs(want))) << c.op;
    }
  }
}

TEST(ElementwiseKernel, ClipBoundsFromAttributesOrInputs) {
  const HostTensor x = randomTensor({10}, 70, -10.f, 10.f);
  const HostTensor lo = floatTensor({}, {-1.f}), hi = floatTensor({}, {6.f});
  const HostTensor modern = run1("Clip", {&x, &lo, &hi});
  const HostTensor onlyMax = run1("Clip", {&x, nullptr, &hi});
  const HostTensor legacy = run1("Clip", {&x}, {{"min", -1.0}, {"max", 6.0}}, 9);
  for (int64_t i = 0; i < 10; ++i) {
    const float v = x.data<float>()[i];
    EXPECT_EQ(modern.data<float>()[i], std::clamp(v, -1.f, 6.f));
    EXPECT_EQ(legacy.data<float>()[i], std::clamp(v, -1.f, 6.f));
    EXPECT_EQ(onlyMax.data<float>()[i], std::min(v, 6.f));
  }
}

TEST(ElementwiseKernel, VariadicMax) {
  const HostTensor a = randomTensor({2, 3}, 80), b = randomTensor({3}, 81), c = randomTensor({2, 1}, 82);
  const HostTensor y = run1("Max", {&a, &b, &c});
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j)
      EXPECT_EQ(y.data<float>()[i * 3 + j],
                std::max({a.data<float>()[i * 3 + j], b.data<float>()[j], c.data<float>()[i]}));
}

// ---- Pooling and normalization -----------------------------------------------------------------

TEST(PoolKernel, MaxAndAverageWithPadsStridesCeil) {
  struct Case {
    int64_t h, w, kh, kw, sh, sw, pt, pl, pb, pr, ceil, includePad;
  };
  for (const Case& p : {Case{8, 8, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0}, Case{7, 9, 3, 3, 2, 2, 1, 1, 1, 1, 0, 0},
                        Case{7, 9, 3, 3, 2, 2, 1, 1, 1, 1, 0, 1}, Case{6, 6, 3, 3, 2, 2, 0, 0, 0, 0, 1, 0},
                        Case{5, 7, 2, 3, 1, 2, 0, 1, 1, 0, 0, 1}}) {
    const HostTensor x = randomTensor({2, 3, p.h, p.w}, 90);
    std::map<std::string, AttrValue> attrs = {{"kernel_shape", Shape{p.kh, p.kw}},
                                              {"strides", Shape{p.sh, p.sw}},
                                              {"pads", Shape{p.pt, p.pl, p.pb, p.pr}},
                                              {"ceil_mode", p.ceil}};
    const HostTensor mx = run1("MaxPool", {&x}, attrs);
    attrs["count_include_pad"] = p.includePad;
    const HostTensor avg = run1("AveragePool", {&x}, attrs);
    auto outDim = [&](int64_t in, int64_t k, int64_t s, int64_t pad) {
      const double v = static_cast<double>(in + pad - k) / static_cast<double>(s);
      return static_cast<int64_t>(p.ceil ? std::ceil(v) : std::floor(v)) + 1;
    };
    const int64_t oh = outDim(p.h, p.kh, p.sh, p.pt + p.pb), ow = outDim(p.w, p.kw, p.sw, p.pl + p.pr);
    ASSERT_EQ(mx.shape, (Shape{2, 3, oh, ow}));
    for (int64_t pl = 0; pl < 6; ++pl)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          double best = -INFINITY, sum = 0;
          int64_t valid = 0, inPadded = 0;
          for (int64_t a = 0; a < p.kh; ++a)
            for (int64_t b = 0; b < p.kw; ++b) {
              const int64_t ih = i * p.sh - p.pt + a, iw = j * p.sw - p.pl + b;
              if (ih < p.h + p.pb && iw < p.w + p.pr) ++inPadded;
              if (ih < 0 || iw < 0 || ih >= p.h || iw >= p.w) continue;
              const float v = x.data<float>()[(pl * p.h + ih) * p.w + iw];
              best = std::max(best, static_cast<double>(v));
              sum += v;
              ++valid;
            }
          EXPECT_EQ(mx.data<float>()[(pl * oh + i) * ow + j], static_cast<float>(best));
          EXPECT_NEAR(avg.data<float>()[(pl * oh + i) * ow + j],
                      sum / static_cast<double>(p.includePad ? inPadded : valid), 1e-6);
        }
  }
}

TEST(PoolKernel, GlobalAveragePool) {
  const HostTensor x = randomTensor({2, 3, 5, 4}, 95);
  const HostTensor y = run1("GlobalAveragePool", {&x});
  ASSERT_EQ(y.shape, (Shape{2, 3, 1, 1}));
  for (int64_t p = 0; p < 6; ++p) {
    double s = 0;
    for (int64_t i = 0; i < 20; ++i) s += x.data<float>()[p * 20 + i];
    EXPECT_NEAR(y.data<float>()[p], s / 20, 1e-6);
  }
}

TEST(NormKernel, BatchNormalization) {
  const HostTensor x = randomTensor({2, 3, 4, 2}, 100);
  const HostTensor scale = randomTensor({3}, 101), bias = randomTensor({3}, 102), mean = randomTensor({3}, 103);
  const HostTensor var = randomTensor({3}, 104, 0.5f, 2.f);
  const HostTensor y = run1("BatchNormalization", {&x, &scale, &bias, &mean, &var}, {{"epsilon", 1e-3}});
  for (int64_t i = 0; i < y.elements(); ++i) {
    const int64_t c = unflat(x.shape, i)[1];
    const double want =
        (x.data<float>()[i] - mean.data<float>()[c]) / std::sqrt(var.data<float>()[c] + 1e-3) * scale.data<float>()[c] +
        bias.data<float>()[c];
    EXPECT_NEAR(y.data<float>()[i], want, 1e-5);
  }
}

TEST(NormKernel, LayerNormalizationOverTrailingAxes) {
  for (int64_t axis : {-1, -2, 1}) {
    const HostTensor x = randomTensor({2, 3, 4}, 110, -3.f, 3.f);
    const Shape norm = axis == -1 ? Shape{4} : Shape{3, 4};
    const HostTensor gamma = randomTensor(norm, 111), beta = randomTensor(norm, 112);
    const HostTensor y = run1("LayerNormalization", {&x, &gamma, &beta}, {{"axis", axis}, {"epsilon", 1e-5}});
    const int64_t inner = axis == -1 ? 4 : 12, outer = 24 / inner;
    for (int64_t o = 0; o < outer; ++o) {
      double mean = 0, var = 0;
      for (int64_t i = 0; i < inner; ++i) mean += x.data<float>()[o * inner + i];
      mean /= static_cast<double>(inner);
      for (int64_t i = 0; i < inner; ++i) var += std::pow(x.data<float>()[o * inner + i] - mean, 2);
      var /= static_cast<double>(inner);
      for (int64_t i = 0; i < inner; ++i) {
        const double want = (x.data<float>()[o * inner + i] - mean) / std::sqrt(var + 1e-5) * gamma.data<float>()[i] +
                            beta.data<float>()[i];
        EXPECT_NEAR(y.data<float>()[o * inner + i], want, 1e-5);
      }
    }
  }
}

TEST(NormKernel, SoftmaxBothOpsetSemantics) {
  const HostTensor x = randomTensor({2, 3, 4}, 120, -3.f, 3.f);
  // Opset 13+: along axis 1 only.
  const HostTensor y13 = run1("Softmax", {&x}, {{"axis", int64_t{1}}}, 13);
  for (int64_t a = 0; a < 2; ++a)
    for (int64_t c = 0; c < 4; ++c) {
      double s = 0;
      for (int64_t b = 0; b < 3; ++b) s += std::exp(x.data<float>()[(a * 3 + b) * 4 + c]);
      for (int64_t b = 0; b < 3; ++b)
        EXPECT_NEAR(y13.data<float>()[(a * 3 + b) * 4 + c], std::exp(x.data<float>()[(a * 3 + b) * 4 + c]) / s, 1e-6);
    }
  // Opset 11: coerced to 2-D at axis 1 ([2, 12]).
  const HostTensor y11 = run1("Softmax", {&x}, {{"axis", int64_t{1}}}, 11);
  for (int64_t a = 0; a < 2; ++a) {
    double s = 0;
    for (int64_t i = 0; i < 12; ++i) s += std::exp(x.data<float>()[a * 12 + i]);
    for (int64_t i = 0; i < 12; ++i)
      EXPECT_NEAR(y11.data<float>()[a * 12 + i], std::exp(x.data<float>()[a * 12 + i]) / s, 1e-6);
  }
}

TEST(NormKernel, ReduceMeanAxesKeepdims) {
  const HostTensor x = randomTensor({2, 3, 4}, 130);
  const HostTensor y = run1("ReduceMean", {&x}, {{"axes", Shape{0, -1}}, {"keepdims", int64_t{0}}});
  ASSERT_EQ(y.shape, (Shape{3}));
  for (int64_t b = 0; b < 3; ++b) {
    double s = 0;
    for (int64_t a = 0; a < 2; ++a)
      for (int64_t c = 0; c < 4; ++c) s += x.data<float>()[(a * 3 + b) * 4 + c];
    EXPECT_NEAR(y.data<float>()[b], s / 8, 1e-6);
  }
  const HostTensor all = run1("ReduceMean", {&x});
  ASSERT_EQ(all.shape, (Shape{1, 1, 1}));
}

// ---- Data movement -----------------------------------------------------------------------------

TEST(MovementKernel, TransposeConcatFlattenReshape) {
  const HostTensor x = randomTensor({2, 3, 4}, 140);
  const HostTensor t = run1("Transpose", {&x}, {{"perm", Shape{2, 0, 1}}});
  ASSERT_EQ(t.shape, (Shape{4, 2, 3}));
  for (int64_t i = 0; i < t.elements(); ++i) {
    const auto idx = unflat(t.shape, i);
    EXPECT_EQ(t.data<float>()[i], x.data<float>()[flat(x.shape, {idx[1], idx[2], idx[0]})]);
  }
  const HostTensor rev = run1("Transpose", {&x});
  ASSERT_EQ(rev.shape, (Shape{4, 3, 2}));

  const HostTensor y = randomTensor({2, 1, 4}, 141);
  const HostTensor c = run1("Concat", {&x, &y}, {{"axis", int64_t{-2}}});
  ASSERT_EQ(c.shape, (Shape{2, 4, 4}));
  for (int64_t i = 0; i < c.elements(); ++i) {
    const auto idx = unflat(c.shape, i);
    const float want =
        idx[1] < 3 ? x.data<float>()[flat(x.shape, idx)] : y.data<float>()[flat(y.shape, {idx[0], 0, idx[2]})];
    EXPECT_EQ(c.data<float>()[i], want);
  }
  EXPECT_EQ(run1("Flatten", {&x}, {{"axis", int64_t{2}}}).shape, (Shape{6, 4}));
  EXPECT_EQ(run1("Flatten", {&x}, {{"axis", int64_t{0}}}).shape, (Shape{1, 24}));
  const HostTensor shape = intTensor({3}, {0, -1, 2});
  const HostTensor r = run1("Reshape", {&x, &shape});
  EXPECT_EQ(r.shape, (Shape{2, 6, 2}));
  EXPECT_EQ(values(r), values(x));
}

// UnflattenNhwc (Systole's) takes rows [N, H * W, C] to the map [N, C, H, W] whose NHWC bytes they
// are, y[n, c, h, w] = x[n, h W + w, c]; FlattenNhwc takes the map back to the same rows.
TEST(MovementKernel, UnflattenNhwcInvertsFlattenNhwc) {
  const HostTensor x = randomTensor({2, 6, 3}, 142);
  const HostTensor m = run1("UnflattenNhwc", {&x}, {{"height", int64_t{2}}});
  ASSERT_EQ(m.shape, (Shape{2, 3, 2, 3}));
  for (int64_t i = 0; i < m.elements(); ++i) {
    const auto idx = unflat(m.shape, i);
    EXPECT_EQ(m.data<float>()[i], x.data<float>()[flat(x.shape, {idx[0], idx[2] * 3 + idx[3], idx[1]})]);
  }
  const HostTensor back = run1("FlattenNhwc", {&m});
  ASSERT_EQ(back.shape, (Shape{2, 18}));
  EXPECT_EQ(values(back), values(x));
}

TEST(MovementKernel, SliceWithStepsAxesAndNegativeIndices) {
  const HostTensor x = randomTensor({4, 6}, 150);
  const HostTensor starts = intTensor({2}, {-1, 1}), ends = intTensor({2}, {INT64_MIN, 100}),
                   axes = intTensor({2}, {0, 1}), steps = intTensor({2}, {-2, 2});
  const HostTensor y = run1("Slice", {&x, &starts, &ends, &axes, &steps});
  ASSERT_EQ(y.shape, (Shape{2, 3}));
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j) EXPECT_EQ(y.data<float>()[i * 3 + j], x.data<float>()[(3 - 2 * i) * 6 + 1 + 2 * j]);
  // Opset 9: attributes.
  const HostTensor legacy = run1("Slice", {&x}, {{"starts", Shape{1}}, {"ends", Shape{3}}, {"axes", Shape{1}}}, 9);
  ASSERT_EQ(legacy.shape, (Shape{4, 2}));
  EXPECT_EQ(legacy.data<float>()[2], x.data<float>()[7]);
}

TEST(MovementKernel, PadModes) {
  const HostTensor x = floatTensor({1, 3}, {1, 2, 3});
  const HostTensor pads = intTensor({4}, {0, 2, 1, 1});
  const HostTensor value = floatTensor({}, {9.f});
  EXPECT_EQ(values(run1("Pad", {&x, &pads, &value})), (std::vector<float>{9, 9, 1, 2, 3, 9, 9, 9, 9, 9, 9, 9}));
  EXPECT_EQ(values(run1("Pad", {&x, &pads}, {{"mode", std::string("edge")}})),
            (std::vector<float>{1, 1, 1, 2, 3, 3, 1, 1, 1, 2, 3, 3}));
  const HostTensor padsR = intTensor({4}, {0, 2, 0, 2});
  EXPECT_EQ(values(run1("Pad", {&x, &padsR}, {{"mode", std::string("reflect")}})),
            (std::vector<float>{3, 2, 1, 2, 3, 2, 1}));
  EXPECT_EQ(values(run1("Pad", {&x}, {{"pads", Shape{0, 1, 0, 0}}, {"value", 5.0}}, 9)),
            (std::vector<float>{5, 1, 2, 3}));
}

TEST(MovementKernel, ResizeNearest) {
  const HostTensor x = floatTensor({1, 1, 2, 2}, {1, 2, 3, 4});
  const HostTensor scales = floatTensor({4}, {1, 1, 2, 2});
  const HostTensor roi = floatTensor({0}, {});
  // asymmetric + floor: each pixel repeated.
  const HostTensor up = run1("Resize", {&x, &roi, &scales},
                             {{"mode", std::string("nearest")},
                              {"coordinate_transformation_mode", std::string("asymmetric")},
                              {"nearest_mode", std::string("floor")}});
  EXPECT_EQ(values(up), (std::vector<float>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
  // Default half_pixel + round_prefer_floor on 2x gives the same picture.
  EXPECT_EQ(values(run1("Resize", {&x, &roi, &scales}, {{"mode", std::string("nearest")}})), values(up));
  const HostTensor sizes = intTensor({4}, {1, 1, 3, 1});
  const HostTensor s3 = run1("Resize", {&x, &roi, nullptr, &sizes}, {{"mode", std::string("nearest")}});
  ASSERT_EQ(s3.shape, (Shape{1, 1, 3, 1}));
  EXPECT_EQ(values(run1("Upsample", {&x, &scales}, {{"mode", std::string("nearest")}}, 9)), values(up));
}

TEST(MovementKernel, ShapeGatherUnsqueezeSqueezeCast) {
  const HostTensor x = randomTensor({2, 3, 4}, 160);
  const HostTensor s = run1("Shape", {&x});
  ASSERT_EQ(s.type, ElemType::Int64);
  EXPECT_EQ(std::vector<int64_t>(s.data<int64_t>(), s.data<int64_t>() + 3), (Shape{2, 3, 4}));
  const HostTensor s15 = run1("Shape", {&x}, {{"start", int64_t{1}}, {"end", int64_t{-1}}}, 15);
  ASSERT_EQ(s15.shape, (Shape{1}));
  EXPECT_EQ(s15.data<int64_t>()[0], 3);

  const HostTensor idx = intTensor({2}, {-1, 0});
  const HostTensor g = run1("Gather", {&x, &idx}, {{"axis", int64_t{1}}});
  ASSERT_EQ(g.shape, (Shape{2, 2, 4}));
  for (int64_t a = 0; a < 2; ++a)
    for (int64_t c = 0; c < 4; ++c) {
      EXPECT_EQ(g.data<float>()[(a * 2 + 0) * 4 + c], x.data<float>()[(a * 3 + 2) * 4 + c]);
      EXPECT_EQ(g.data<float>()[(a * 2 + 1) * 4 + c], x.data<float>()[(a * 3 + 0) * 4 + c]);
    }
  const HostTensor scalarIdx = intTensor({}, {1});
  EXPECT_EQ(run1("Gather", {&s, &scalarIdx}).shape, Shape{});

  const HostTensor axes = intTensor({2}, {0, -1});
  EXPECT_EQ(run1("Unsqueeze", {&x, &axes}).shape, (Shape{1, 2, 3, 4, 1}));
  EXPECT_EQ(run1("Unsqueeze", {&x}, {{"axes", Shape{1}}}, 11).shape, (Shape{2, 1, 3, 4}));
  const HostTensor ones = randomTensor({1, 3, 1}, 161);
  EXPECT_EQ(run1("Squeeze", {&ones}).shape, (Shape{3}));
  const HostTensor ax = intTensor({1}, {0});
  EXPECT_EQ(run1("Squeeze", {&ones, &ax}).shape, (Shape{3, 1}));

  const HostTensor f = run1("Cast", {&s}, {{"to", int64_t{1}}});
  ASSERT_EQ(f.type, ElemType::Float32);
  EXPECT_EQ(values(f), (std::vector<float>{2, 3, 4}));
}

// An out-of-range Cast to an integer type saturates and NaN becomes 0 (ONNX leaves it undefined;
// the plain C++ conversion was undefined behaviour, INT_MIN on x86 for every such value).
TEST(MovementKernel, CastToIntegerSaturates) {
  HostTensor x(ElemType::Float32, {5});
  const float in[] = {1e30f, -1e30f, std::numeric_limits<float>::quiet_NaN(), 3.7f, -3.7f};
  std::copy(std::begin(in), std::end(in), x.data<float>());
  const HostTensor i32 = run1("Cast", {&x}, {{"to", int64_t{6}}});
  ASSERT_EQ(i32.type, ElemType::Int32);
  EXPECT_EQ(std::vector<int32_t>(i32.data<int32_t>(), i32.data<int32_t>() + 5),
            (std::vector<int32_t>{INT32_MAX, INT32_MIN, 0, 3, -3}));
  const HostTensor i64 = run1("Cast", {&x}, {{"to", int64_t{7}}});
  ASSERT_EQ(i64.type, ElemType::Int64);
  EXPECT_EQ(std::vector<int64_t>(i64.data<int64_t>(), i64.data<int64_t>() + 5),
            (std::vector<int64_t>{INT64_MAX, INT64_MIN, 0, 3, -3}));
}

TEST(MovementKernel, SplitSizesFromAttributeInputOrEqualParts) {
  const HostTensor x = randomTensor({2, 6, 3}, 165);
  auto check = [&](const std::vector<HostTensor>& parts, const std::vector<int64_t>& sizes) {
    ASSERT_EQ(parts.size(), sizes.size());
    int64_t start = 0;
    for (size_t k = 0; k < parts.size(); ++k) {
      ASSERT_EQ(parts[k].shape, (Shape{2, sizes[k], 3}));
      for (int64_t i = 0; i < parts[k].elements(); ++i) {
        auto idx = unflat(parts[k].shape, i);
        idx[1] += start;
        EXPECT_EQ(parts[k].data<float>()[i], x.data<float>()[flat(x.shape, idx)]);
      }
      start += sizes[k];
    }
  };
  const HostTensor sizes = intTensor({3}, {1, 2, 3});
  check(runOp("Split", {&x, &sizes}, {{"axis", int64_t{1}}}, 3), {1, 2, 3});
  check(runOp("Split", {&x}, {{"axis", int64_t{-2}}, {"split", Shape{4, 2}}}, 2, 11), {4, 2});
  check(runOp("Split", {&x}, {{"axis", int64_t{1}}}, 3), {2, 2, 2});
  OneNode bad = oneNodeGraph("Split", {&x}, {{"axis", int64_t{1}}}, 4);
  EXPECT_THROW(compiler::inferShapes(bad.g), Error);
}

TEST(MovementKernel, ConstantNodeAttributes) {
  EXPECT_EQ(values(run1("Constant", {}, {{"value_floats", std::vector<double>{1.5, -2}}})),
            (std::vector<float>{1.5f, -2.f}));
  const HostTensor i = run1("Constant", {}, {{"value_int", int64_t{7}}});
  EXPECT_EQ(i.data<int64_t>()[0], 7);
}

TEST(KernelErrors, UnknownOpAndBadShapes) {
  const HostTensor a = randomTensor({2, 3}, 170), b = randomTensor({4, 5}, 171);
  OneNode one = oneNodeGraph("MatMul", {&a, &b});
  EXPECT_THROW(compiler::inferShapes(one.g), Error);
  OneNode bad = oneNodeGraph("Foo", {&a});
  HostTensor out;
  std::vector<HostTensor*> outs = {&out};
  EXPECT_THROW(compiler::runFloatKernel(bad.g, bad.g.nodes[0], {&a}, outs), Error);
}

// One LSTM unit (hidden 1, input 1) with every optional input (bias, initial state, peepholes),
// batch first and reversed, against its equations written out: gates i, o, f, c in ONNX's order.
TEST(LstmKernel, OneUnitFollowsTheEquations) {
  const int64_t S = 3, B = 2;
  const HostTensor x = randomTensor({B, S, 1}, 1);  // layout 1: [batch, seq, input]
  const std::vector<float> w = {0.7f, -0.4f, 0.9f, 0.5f}, r = {0.3f, 0.8f, -0.6f, 0.2f};
  const std::vector<float> wb = {0.1f, -0.2f, 0.3f, 0.05f}, rb = {-0.1f, 0.15f, 0.2f, -0.3f}, p = {0.4f, -0.5f, 0.6f};
  const HostTensor W = floatTensor({1, 4, 1}, w), R = floatTensor({1, 4, 1}, r);
  std::vector<float> bias(wb);
  bias.insert(bias.end(), rb.begin(), rb.end());
  const HostTensor Bt = floatTensor({1, 8}, bias), P = floatTensor({1, 3}, p);
  const HostTensor h0 = floatTensor({B, 1, 1}, {0.2f, -0.7f}), c0 = floatTensor({B, 1, 1}, {-0.3f, 0.5f});
  const auto out =
      runOp("LSTM", {&x, &W, &R, &Bt, nullptr, &h0, &c0, &P},
            {{"hidden_size", int64_t{1}}, {"layout", int64_t{1}}, {"direction", std::string("reverse")}}, 3);
  ASSERT_EQ(out[0].shape, (Shape{B, S, 1, 1}));
  ASSERT_EQ(out[1].shape, (Shape{B, 1, 1}));
  const auto sig = [](double v) { return 1.0 / (1.0 + std::exp(-v)); };
  for (int64_t b = 0; b < B; ++b) {
    double h = values(h0)[static_cast<size_t>(b)], c = values(c0)[static_cast<size_t>(b)];
    for (int64_t t = S - 1; t >= 0; --t) {
      const double xt = values(x)[static_cast<size_t>(b * S + t)];
      const auto pre = [&](int k) { return w[k] * xt + r[k] * h + wb[k] + rb[k]; };
      const double i = sig(pre(0) + p[0] * c), f = sig(pre(2) + p[2] * c);
      c = f * c + i * std::tanh(pre(3));
      h = sig(pre(1) + p[1] * c) * std::tanh(c);
      EXPECT_NEAR(values(out[0])[static_cast<size_t>(b * S + t)], h, 1e-6) << "b " << b << " t " << t;
    }
    EXPECT_NEAR(values(out[1])[static_cast<size_t>(b)], h, 1e-6);
    EXPECT_NEAR(values(out[2])[static_cast<size_t>(b)], c, 1e-6);
  }
}

// A bidirectional LSTM is a forward and a reverse one, side by side in Y ([S, 2, B, H]).
TEST(LstmKernel, BidirectionalIsForwardAndReverse) {
  const int64_t S = 4, B = 2, I = 3, H = 5;
  const HostTensor x = randomTensor({S, B, I}, 2), W = randomTensor({2, 4 * H, I}, 3),
                   R = randomTensor({2, 4 * H, H}, 4);
  const auto both = runOp("LSTM", {&x, &W, &R}, {{"hidden_size", H}, {"direction", std::string("bidirectional")}}, 1);
  for (int64_t dir = 0; dir < 2; ++dir) {
    const auto slice = [&](const HostTensor& t, int64_t rows) {
      const auto v = values(t);
      return floatTensor({1, rows, t.shape[2]}, std::vector<float>(v.begin() + dir * rows * t.shape[2],
                                                                   v.begin() + (dir + 1) * rows * t.shape[2]));
    };
    const HostTensor Wd = slice(W, 4 * H), Rd = slice(R, 4 * H);
    const auto one = runOp("LSTM", {&x, &Wd, &Rd},
                           {{"hidden_size", H}, {"direction", std::string(dir == 0 ? "forward" : "reverse")}}, 1);
    for (int64_t t = 0; t < S; ++t)
      for (int64_t k = 0; k < B * H; ++k)
        EXPECT_EQ(values(both[0])[static_cast<size_t>((t * 2 + dir) * B * H + k)],
                  values(one[0])[static_cast<size_t>(t * B * H + k)]);
  }
}

// Inputs whose shapes disagree with X, W and R, or sequences shorter than X, are errors, not reads
// past the end.
TEST(LstmKernel, MismatchedInputsAreErrors) {
  const HostTensor x = randomTensor({3, 1, 2}, 5), W = randomTensor({1, 8, 2}, 6), R = randomTensor({1, 8, 2}, 7);
  const HostTensor shortBias = randomTensor({1, 4}, 8), wrongR = randomTensor({1, 8, 3}, 9);
  const std::map<std::string, AttrValue> attrs = {{"hidden_size", int64_t{2}}};
  EXPECT_THROW(runOp("LSTM", {&x, &W, &R, &shortBias}, attrs, 1), Error);
  EXPECT_THROW(runOp("LSTM", {&x, &W, &wrongR}, attrs, 1), Error);
  HostTensor lens(ElemType::Int32, {1});
  lens.data<int32_t>()[0] = 2;  // shorter than the 3 steps of X
  EXPECT_THROW(runOp("LSTM", {&x, &W, &R, nullptr, &lens}, attrs, 1), Error);
}

// Systole's masked Softmax (attention-layout's fold of an additive mask): masked elements are 0
// and take no part in the max or the sum; the mask's rows repeat over the input's; a row with
// every element masked is all 0.
TEST(SoftmaxKernel, MaskedElementsAreZeroAndRowsRepeat) {
  const HostTensor x = floatTensor({2, 2, 3}, {1, 2, 3, 4, 5, 6, 0, 9, 1, -1, -2, -3});
  const HostTensor keep = floatTensor({2, 3}, {1, 1, 0, 0, 0, 0});
  const HostTensor y = run1("Softmax", {&x, &keep}, {{"axis", int64_t{-1}}});
  const auto v = values(y);
  const double e = std::exp(1.0);
  EXPECT_NEAR(v[0], 1 / (1 + e), 1e-6);
  EXPECT_NEAR(v[1], e / (1 + e), 1e-6);
  EXPECT_EQ(v[2], 0.0f);
  for (int i : {3, 4, 5, 9, 10, 11}) EXPECT_EQ(v[static_cast<size_t>(i)], 0.0f) << i;  // a row masked whole
  EXPECT_NEAR(v[6], 1 / (1 + std::exp(9.0)), 1e-6);  // the second matrix reuses the mask's rows
  EXPECT_NEAR(v[7], std::exp(9.0) / (1 + std::exp(9.0)), 1e-6);
  EXPECT_EQ(v[8], 0.0f);
}

// Expand broadcasts with numpy's rules, to the larger of both shapes.
TEST(ExpandKernel, BroadcastsToTheShapeInput) {
  const HostTensor x = floatTensor({3, 1}, {1, 2, 3}), shape = intTensor({3}, {2, 1, 4});
  const HostTensor y = run1("Expand", {&x, &shape});
  ASSERT_EQ(y.shape, (Shape{2, 3, 4}));
  for (int64_t i = 0; i < 24; ++i) EXPECT_EQ(values(y)[static_cast<size_t>(i)], static_cast<float>(i / 4 % 3 + 1));
}

}  // namespace
}  // namespace systole::testing
