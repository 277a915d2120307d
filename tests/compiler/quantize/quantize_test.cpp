// End to end: small float graphs built with the Graph API are calibrated and quantized; the
// quantized graph runs in the reference interpreter (int8 kernels + host float kernels) and its
// outputs are compared with the float graph's on inputs that calibration never saw.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>

#include "quant_net.h"
#include "systole/compiler/interpreter.h"
#include "systole/compiler/quant_math.h"
#include "systole/compiler/quantize.h"
#include "systole/isa/diagnostic.h"

namespace systole::compiler {
namespace {

using test::convReluGraph;
using test::GraphBuilder;
using test::heWeights;
using test::Net;

int countOps(const Graph& g, const std::string& op) {
  int n = 0;
  for (const Node& node : g.nodes) n += !node.dead && node.op == op;
  return n;
}

const Node& nodeProducing(const Graph& g, const std::string& value) {
  const int v = g.findValue(value);
  EXPECT_GE(v, 0) << value;
  return g.nodes.at(static_cast<size_t>(g.values.at(static_cast<size_t>(v)).producer));
}

struct Result {
  Graph quantized;
  QuantSummary summary;
  double minCosine = 1.0;
};

/// Quantizes a copy of `fg` on 16 seeded random inputs, then compares float and quantized
/// outputs on 4 other inputs; returns the worst cosine similarity over outputs and inputs.
Result quantizeAndCompare(const Graph& fg, const std::string& label, QuantOptions opts = {},
                          RandomDistribution dist = RandomDistribution::Uniform) {
  fg.verify();
  Result r;
  r.quantized = fg;
  r.summary = quantize(r.quantized, makeRandomInputs(fg, 16, /*seed=*/1, dist), opts);
  EXPECT_NO_THROW(r.quantized.verify());
  EXPECT_EQ(r.quantized.inputs.size(), fg.inputs.size());
  EXPECT_EQ(r.quantized.outputs.size(), fg.outputs.size());
  for (const auto& in : makeRandomInputs(fg, 4, /*seed=*/99, dist)) {
    const auto want = interpret(fg, in);
    const auto got = interpret(r.quantized, in);
    for (int o : fg.outputs) {
      const std::string& name = fg.values[static_cast<size_t>(o)].name;
      EXPECT_TRUE(got.count(name)) << name;
      if (!got.count(name)) continue;
      r.minCosine = std::min(r.minCosine, test::cosineSimilarity(want.at(name), got.at(name)));
    }
  }
  std::printf("[ cosine   ] %-28s %-10s %.6f  (int8 nodes %d, float %d, Q %d, DQ %d, Requant %d)\n", label.c_str(),
              std::string(calibrationMethodName(opts.method)).c_str(), r.minCosine, r.summary.quantized_nodes,
              r.summary.float_nodes, r.summary.quantize_linear, r.summary.dequantize_linear, r.summary.requant);
  return r;
}

TEST(QuantizeE2E, ConvRelu) {
  const Result r = quantizeAndCompare(convReluGraph(), "conv+relu");
  EXPECT_GE(r.minCosine, 0.99);
  const Graph& q = r.quantized;
  EXPECT_EQ(countOps(q, "QuantizeLinear"), 1);
  EXPECT_EQ(countOps(q, "DequantizeLinear"), 1);
  EXPECT_EQ(r.summary.quantized_nodes, 2);
  EXPECT_EQ(r.summary.float_nodes, 0);
  // Interface unchanged: float input x, float output conv2.
  EXPECT_EQ(q.values[static_cast<size_t>(q.inputs[0])].name, "x");
  EXPECT_EQ(q.values[static_cast<size_t>(q.inputs[0])].type, ElemType::Float32);
  EXPECT_EQ(q.values[static_cast<size_t>(q.outputs[0])].name, "conv2");
  EXPECT_EQ(q.values[static_cast<size_t>(q.outputs[0])].type, ElemType::Float32);
  // conv1: int8 in/out, per-channel int8 weights (axis 0), int32 bias, the fused ReLU as a clamp.
  const Node& c1 = nodeProducing(q, "conv1");
  EXPECT_EQ(c1.op, "Conv");
  const Value& y1 = q.values[static_cast<size_t>(c1.outputs[0])];
  EXPECT_EQ(y1.type, ElemType::Int8);
  ASSERT_TRUE(y1.quant);
  EXPECT_EQ(y1.quant->zero_point[0], -128);  // ReLU output: range [0, max]
  const Value& w1 = q.values[static_cast<size_t>(c1.inputs[1])];
  EXPECT_EQ(w1.type, ElemType::Int8);
  EXPECT_EQ(w1.shape, (std::vector<int64_t>{16, 3, 3, 3}));
  ASSERT_TRUE(w1.quant);
  EXPECT_EQ(w1.quant->axis, 0);
  EXPECT_EQ(w1.quant->scale.size(), 16u);
  EXPECT_EQ(q.values[static_cast<size_t>(c1.inputs[2])].type, ElemType::Int32);
  EXPECT_EQ(c1.getInts("multiplier").size(), 16u);
  EXPECT_EQ(c1.getInts("shift").size(), 16u);
  EXPECT_EQ(c1.getInt("act_min", 0), -128);
  EXPECT_EQ(c1.getInt("act_max", 0), 127);
  EXPECT_FALSE(c1.has("activation"));
  for (int64_t s : c1.getInts("shift")) {
    EXPECT_GE(s, 0);
    EXPECT_LE(s, 63);
  }
}

TEST(QuantizeE2E, ConvReluWithPercentileAndEntropy) {
  for (CalibrationMethod m : {CalibrationMethod::Percentile, CalibrationMethod::Entropy}) {
    QuantOptions opts;
    opts.method = m;
    EXPECT_GE(quantizeAndCompare(convReluGraph(), "conv+relu", opts).minCosine, 0.99) << calibrationMethodName(m);
  }
}

TEST(QuantizeE2E, ConvRelu6ClipWithNormalInputs) {
  const Result r =
      quantizeAndCompare(convReluGraph("clip"), "conv+relu6 (normal inputs)", {}, RandomDistribution::Normal);
  EXPECT_GE(r.minCosine, 0.99);
  const Node& c1 = nodeProducing(r.quantized, "conv1");
  const Quant& q = *r.quantized.values[static_cast<size_t>(c1.outputs[0])].quant;
  EXPECT_EQ(c1.getInt("act_min", 0), q.zero_point[0]);
  EXPECT_LE(c1.getInt("act_max", 0), 127);
}

TEST(QuantizeE2E, GemmFoldsTransB) {
  Net n;
  const int x = n.b.input("x", {4, 32});
  const int g1 = n.gemm("fc1", x, 24, /*transB=*/true, "relu");
  const int g2 = n.gemm("fc2", g1, 10, /*transB=*/false);
  n.b.output(g2);
  const Result r = quantizeAndCompare(n.b.g, "gemm");
  EXPECT_GE(r.minCosine, 0.99);
  const Node& fc1 = nodeProducing(r.quantized, "fc1");
  EXPECT_EQ(fc1.op, "Gemm");
  EXPECT_FALSE(fc1.has("transB"));
  const Value& w = r.quantized.values[static_cast<size_t>(fc1.inputs[1])];
  EXPECT_EQ(w.shape, (std::vector<int64_t>{32, 24}));  // [K][N]
  EXPECT_EQ(w.quant->axis, 1);
  EXPECT_EQ(w.quant->scale.size(), 24u);
}

TEST(QuantizeE2E, GemmWithAlphaStaysFloat) {
  Net n;
  const int x = n.b.input("x", {2, 8});
  const int g1 = n.gemm("fc1", x, 8, false);
  n.b.g.nodes.back().attrs["alpha"] = 2.0;
  const int g2 = n.gemm("fc2", g1, 4, false);
  n.b.output(g2);
  const Result r = quantizeAndCompare(n.b.g, "gemm alpha=2 + gemm");
  EXPECT_GE(r.minCosine, 0.99);
  EXPECT_EQ(r.summary.float_nodes, 1);
  EXPECT_EQ(r.quantized.values[static_cast<size_t>(nodeProducing(r.quantized, "fc1").outputs[0])].type,
            ElemType::Float32);
}

TEST(QuantizeE2E, ResidualAdd) {
  Net n;
  const int x = n.b.input("x", {1, 8, 8, 8});
  const int a = n.conv("convA", x, 8, 3, 1, 1, "relu");
  const int c = n.conv("convB", a, 8, 3, 1, 1);
  const int s = n.b.node("Add", {c, x}, "sum", {1, 8, 8, 8}, {{"activation", std::string("relu")}});
  n.b.output(s);
  const Result r = quantizeAndCompare(n.b.g, "residual add");
  EXPECT_GE(r.minCosine, 0.99);
  EXPECT_EQ(countOps(r.quantized, "QuantizeLinear"), 1);  // x quantized once, read by convA and Add
  const Node& add = nodeProducing(r.quantized, "sum_q");
  EXPECT_EQ(add.op, "Add");
  const int64_t ma = add.getInt("a_multiplier", 0), mb = add.getInt("b_multiplier", 0);
  EXPECT_TRUE(ma == (1 << 14) || mb == (1 << 14));
  EXPECT_GT(ma, 0);
  EXPECT_GT(mb, 0);
  EXPECT_LT(std::max(ma, mb), 1 << 15);
}

TEST(QuantizeE2E, PoolsFlattenGemm) {
  Net n;
  const int x = n.b.input("x", {2, 3, 16, 16});
  const int c1 = n.conv("conv1", x, 8, 3, 1, 1, "relu");
  const int mp = n.b.node("MaxPool", {c1}, "maxpool", {2, 8, 8, 8},
                          {{"kernel_shape", std::vector<int64_t>{2, 2}}, {"strides", std::vector<int64_t>{2, 2}}});
  const int ap = n.b.node("AveragePool", {mp}, "avgpool", {2, 8, 8, 8},
                          {{"kernel_shape", std::vector<int64_t>{3, 3}},
                           {"pads", std::vector<int64_t>{1, 1, 1, 1}},
                           {"count_include_pad", int64_t{1}}});
  const int c2 = n.conv("conv2", ap, 16, 3, 1, 1, "relu");
  const int gap = n.b.node("GlobalAveragePool", {c2}, "gap", {2, 16, 1, 1});
  const int fl = n.b.node("Flatten", {gap}, "flat", {2, 16}, {{"axis", int64_t{1}}});
  const int fc = n.gemm("fc", fl, 5, true);
  n.b.output(fc);
  for (CalibrationMethod m : {CalibrationMethod::MinMax, CalibrationMethod::Percentile, CalibrationMethod::Entropy}) {
    QuantOptions opts;
    opts.method = m;
    const Result r = quantizeAndCompare(n.b.g, "pools+flatten+gemm", opts);
    EXPECT_GE(r.minCosine, 0.99);
    EXPECT_EQ(r.summary.float_nodes, 0);
    EXPECT_EQ(r.summary.quantized_nodes, 7);
    // MaxPool and Flatten keep their input's Quant; AveragePool and GAP requantize.
    const Graph& q = r.quantized;
    const Node& mpNode = nodeProducing(q, "maxpool");
    EXPECT_EQ(q.values[static_cast<size_t>(mpNode.outputs[0])].quant,
              q.values[static_cast<size_t>(mpNode.inputs[0])].quant);
    EXPECT_TRUE(nodeProducing(q, "avgpool").has("multiplier"));
    EXPECT_TRUE(nodeProducing(q, "gap").has("multiplier"));
    const Node& flNode = nodeProducing(q, "flat");
    EXPECT_EQ(q.values[static_cast<size_t>(flNode.outputs[0])].quant,
              q.values[static_cast<size_t>(flNode.inputs[0])].quant);
  }
}

TEST(QuantizeE2E, AveragePoolExcludingPaddingStaysFloat) {
  Net n;
  const int x = n.b.input("x", {1, 4, 8, 8});
  const int c1 = n.conv("conv1", x, 4, 3, 1, 1, "relu");
  const int ap = n.b.node("AveragePool", {c1}, "avgpool", {1, 4, 8, 8},
                          {{"kernel_shape", std::vector<int64_t>{3, 3}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}});
  const int c2 = n.conv("conv2", ap, 4, 3, 1, 1);
  n.b.output(c2);
  const Result r = quantizeAndCompare(n.b.g, "avgpool(count_include_pad=0)");
  EXPECT_GE(r.minCosine, 0.99);
  EXPECT_EQ(r.summary.float_nodes, 1);
  EXPECT_EQ(countOps(r.quantized, "QuantizeLinear"), 2);
  EXPECT_EQ(countOps(r.quantized, "DequantizeLinear"), 2);
}

TEST(QuantizeE2E, FloatOperatorBetweenDequantizeAndQuantize) {
  Net n;
  const int x = n.b.input("x", {1, 4, 8, 8});
  const int c1 = n.conv("conv1", x, 8, 3, 1, 1);
  const int sg = n.b.node("Softmax", {c1}, "sigmoid", {1, 8, 8, 8}, {{"axis", int64_t{1}}});  // stays float
  const int c2 = n.conv("conv2", sg, 4, 3, 1, 1);
  n.b.output(c2);
  const Result r = quantizeAndCompare(n.b.g, "conv+softmax+conv");
  EXPECT_GE(r.minCosine, 0.99);
  const Graph& q = r.quantized;
  EXPECT_EQ(countOps(q, "QuantizeLinear"), 2);
  EXPECT_EQ(countOps(q, "DequantizeLinear"), 2);
  const Node& sig = nodeProducing(q, "sigmoid");
  EXPECT_EQ(q.values[static_cast<size_t>(sig.inputs[0])].type, ElemType::Float32);
  EXPECT_EQ(nodeProducing(q, q.values[static_cast<size_t>(sig.inputs[0])].name).op, "DequantizeLinear");
  // Sigmoid's output is quantized with its own calibrated range (within [0, 1]).
  const Node& c2n = nodeProducing(q, "conv2_q");
  const Value& c2in = q.values[static_cast<size_t>(c2n.inputs[0])];
  EXPECT_EQ(c2in.type, ElemType::Int8);
  EXPECT_LE(c2in.quant->scale[0], 1.0f / 255.0f * 1.001f);
}

/// A row-wise operator after a MatMul: x [1, S, K] times weights uniform in +-`range` gives
/// s [1, S, C]; `op(b, s)` adds the operator, writing "y" [1, S, C]; s and y are both outputs. The
/// graph is quantized on 16 random inputs and the operator must read int8. Returns the quantized
/// graph and its outputs on 4 other inputs (s dequantized is the operator's own input).
struct RowOperatorRun {
  Graph q;
  Node op;  // the operator, quantized
  std::vector<std::map<std::string, HostTensor>> outputs;
};

RowOperatorRun runRowOperator(GraphBuilder& b, int64_t S, int64_t K, int64_t C, float range, std::mt19937& rng,
                              const std::function<int(GraphBuilder&, int)>& op) {
  const int x = b.input("x", {1, S, K});
  const int w = b.constF("w", {K, C}, test::randomFloats(static_cast<size_t>(K * C), rng, -range, range));
  const int s = b.node("MatMul", {x, w}, "s", {1, S, C});
  b.output(s);
  b.output(op(b, s));
  RowOperatorRun run{b.g, {}, {}};
  quantize(run.q, makeRandomInputs(b.g, 16, /*seed=*/1));
  run.op = nodeProducing(run.q, "y_q");
  EXPECT_EQ(run.q.values[static_cast<size_t>(run.op.inputs[0])].type, ElemType::Int8);
  for (const auto& in : makeRandomInputs(b.g, 4, /*seed=*/99)) run.outputs.push_back(interpret(run.q, in));
  return run;
}

// A Softmax over the last axis runs on int8 (the vector unit's algorithm): its output is a
// probability at zero point 0, the largest calibrated one at 127, and against the float softmax of
// its own (dequantized) input each probability the output can hold is within the documented bound
// (in steps of the output's scale), for scores of a small range (the table steps by s_x) and of a
// large one (finer steps than s_x over the table's range).
TEST(QuantizeE2E, SoftmaxOnInt8WithinItsErrorBound) {
  for (const float range : {0.05f, 2.0f}) {
    const int64_t S = 24, L = 48;
    GraphBuilder b;
    std::mt19937 rng(7);
    const RowOperatorRun run = runRowOperator(b, S, 32, L, range, rng, [&](GraphBuilder& gb, int s) {
      return gb.node("Softmax", {s}, "y", {1, S, L}, {{"axis", int64_t{-1}}});
    });
    ASSERT_EQ(run.op.op, "Softmax");
    // The table's last entry, where masked elements, padding lanes and farther distances land, is 0.
    EXPECT_EQ(run.op.getInts("table").at(255), 0);
    EXPECT_EQ(run.op.getInts("table_lo").at(255), -128);
    if (range < 1.0f) {  // 254 steps of s_x fall short of the table's range: entry 254 is not yet 0
      EXPECT_GT(run.op.getInts("table_lo").at(254) + 128 + 256 * run.op.getInts("table").at(254), 0);
    }
    const Quant& qy = *run.q.values[static_cast<size_t>(run.op.outputs[0])].quant;
    EXPECT_LE(qy.scale[0], 1.0f / 127.0f * 1.0001f);
    EXPECT_EQ(qy.zero_point[0], 0);
    const double sy = qy.scale[0];
    double worst = 0;
    for (const auto& got : run.outputs) {
      const float* sd = got.at("s").data<float>();
      const float* yd = got.at("y").data<float>();
      for (int64_t r = 0; r < S; ++r) {
        const float* row = sd + r * L;
        const double mx = *std::max_element(row, row + L);
        double z = 0;
        for (int64_t j = 0; j < L; ++j) z += std::exp(double{row[j]} - mx);
        for (int64_t j = 0; j < L; ++j) {
          const double want = std::exp(double{row[j]} - mx) / z;
          if (want <= 127 * sy) worst = std::max(worst, std::abs(double{yd[r * L + j]} - want) / sy);
        }
      }
    }
    std::printf("[ softmax  ] weight range %.2f: output scale 1/%.0f, largest error %.2f output steps\n", range, 1 / sy,
                worst);
    EXPECT_LE(worst, 1.2) << "weight range " << range;
  }
}

// A LayerNormalization over the last axis runs on int8 (the vector unit's algorithm): against the
// float LayerNormalization of its own (dequantized) input, each output the int8 output can hold
// is within two steps of the output's scale (its two requantizations), for a wide and a narrow
// input range.
TEST(QuantizeE2E, LayerNormOnInt8WithinTwoOutputSteps) {
  for (const float range : {0.05f, 1.0f}) {
    const int64_t S = 12, C = 64;
    GraphBuilder b;
    b.g.opset = 17;
    std::mt19937 rng(8);
    const std::vector<float> gamma = test::randomFloats(static_cast<size_t>(C), rng, -2, 2),
                             beta = test::randomFloats(static_cast<size_t>(C), rng, -1, 1);
    const RowOperatorRun run = runRowOperator(b, S, 32, C, range, rng, [&](GraphBuilder& gb, int s) {
      const int g = gb.constF("g", {C}, gamma), bt = gb.constF("b", {C}, beta);
      return gb.node("LayerNormalization", {s, g, bt}, "y", {1, S, C}, {{"axis", int64_t{-1}}});
    });
    ASSERT_EQ(run.op.op, "LayerNormalization");
    const Quant& qy = *run.q.values[static_cast<size_t>(run.op.outputs[0])].quant;
    const double sy = qy.scale[0], lo = sy * (-128 - qy.zero_point[0]), hi = sy * (127 - qy.zero_point[0]);
    double worst = 0;
    for (const auto& got : run.outputs) {
      const float* sd = got.at("s").data<float>();
      const float* yd = got.at("y").data<float>();
      for (int64_t r = 0; r < S; ++r) {
        const float* row = sd + r * C;
        double mean = 0, var = 0;
        for (int64_t j = 0; j < C; ++j) mean += row[j] / static_cast<double>(C);
        for (int64_t j = 0; j < C; ++j) var += (row[j] - mean) * (row[j] - mean) / static_cast<double>(C);
        for (int64_t j = 0; j < C; ++j) {
          const double want =
              (row[j] - mean) / std::sqrt(var + 1e-5) * gamma[static_cast<size_t>(j)] + beta[static_cast<size_t>(j)];
          if (want >= lo && want <= hi)  // beyond the calibrated range the output saturates, as any int8 one
            worst = std::max(worst, std::abs(double{yd[r * C + j]} - want) / sy);
        }
      }
    }
    std::printf("[ layernorm] weight range %.2f: largest error %.2f output steps\n", range, worst);
    EXPECT_LE(worst, 2.0) << "weight range " << range;
  }
}

TEST(QuantizeE2E, OneInputFunctionBecomesLutOfItsFloatKernel) {
  Net n;
  const int x = n.b.input("x", {1, 4, 8, 8});
  const int c1 = n.conv("conv1", x, 8, 3, 1, 1);
  const int sg = n.b.node("Sigmoid", {c1}, "sigmoid", {1, 8, 8, 8});
  n.b.output(n.conv("conv2", sg, 4, 3, 1, 1));
  const Result r = quantizeAndCompare(n.b.g, "conv+sigmoid(lut)+conv");
  EXPECT_GE(r.minCosine, 0.99);
  const Graph& q = r.quantized;
  EXPECT_EQ(countOps(q, "QuantizeLinear"), 1);  // no DequantizeLinear/QuantizeLinear around the sigmoid
  const Node& lut = nodeProducing(q, "sigmoid");
  ASSERT_EQ(lut.op, "Lut");
  EXPECT_EQ(lut.getString("function", ""), "Sigmoid");
  const Quant& qx = *q.values[static_cast<size_t>(lut.inputs[0])].quant;
  const Quant& qy = *q.values[static_cast<size_t>(lut.outputs[0])].quant;
  const auto table = lut.getInts("table");
  ASSERT_EQ(table.size(), 256u);
  for (int v = -128; v < 128; v += 17) {
    const float real = qx.scale[0] * static_cast<float>(v - qx.zero_point[0]);
    EXPECT_EQ(table[static_cast<size_t>(v + 128)],
              quantizeFloat(1.f / (1.f + std::exp(-real)), qy.scale[0], qy.zero_point[0]))
        << v;
  }
}

/// A 1x1 max pool of `x`: keeps a Conv from reading a Concat directly (a Conv reading a Concat of
/// ranges 8x apart is split per input instead: SplitMixedRangeConcat).
int pooled(Net& n, int x) {
  return n.b.node("MaxPool", {x}, "pool", {1, 8, 8, 8}, {{"kernel_shape", std::vector<int64_t>{1, 1}}});
}

TEST(QuantizeE2E, ConcatInputsComputedOnlyForItShareItsScale) {
  Net n;
  const int x = n.b.input("x", {1, 4, 8, 8});
  const int a = n.conv("convA", x, 4, 3, 1, 1, "", 1.0f);
  const int b = n.conv("convB", x, 4, 1, 1, 0, "", 8.0f);  // a much wider range
  const int cat = n.b.node("Concat", {a, b}, "cat", {1, 8, 8, 8}, {{"axis", int64_t{1}}});
  n.b.output(n.conv("conv", pooled(n, cat), 4, 3, 1, 1));
  const Result r = quantizeAndCompare(n.b.g, "concat (shared scale)");
  EXPECT_GE(r.minCosine, 0.99);
  EXPECT_EQ(r.summary.requant, 0);  // both convolutions requantize straight to the Concat's scale
  const Node& catNode = nodeProducing(r.quantized, "cat");
  for (int v : catNode.inputs)
    EXPECT_EQ(r.quantized.values[static_cast<size_t>(v)].quant,
              r.quantized.values[static_cast<size_t>(catNode.outputs[0])].quant);
}

TEST(QuantizeE2E, ConcatWithDifferentScalesGetsRequant) {
  Net n;
  const int x = n.b.input("x", {1, 4, 8, 8});
  const int a = n.conv("convA", x, 4, 3, 1, 1, "", 1.0f);
  const int b = n.conv("convB", x, 4, 1, 1, 0, "", 8.0f);  // a much wider range
  const int cat = n.b.node("Concat", {a, b}, "cat", {1, 8, 8, 8}, {{"axis", int64_t{1}}});
  const int c = n.conv("conv", pooled(n, cat), 4, 3, 1, 1);
  n.b.output(c);
  n.b.output(n.conv("other", a, 4, 1, 1, 0));  // convA's output has another reader: it keeps its narrow scale
  const Result r = quantizeAndCompare(n.b.g, "concat (two scales)");
  EXPECT_GE(r.minCosine, 0.99);
  EXPECT_GE(r.summary.requant, 1);
  const Graph& q = r.quantized;
  const Node& catNode = nodeProducing(q, "cat");
  for (int v : catNode.inputs)
    EXPECT_EQ(q.values[static_cast<size_t>(v)].quant, q.values[static_cast<size_t>(catNode.outputs[0])].quant);
}

// A Conv reading a Concat whose inputs' ranges are far apart becomes one Conv per input and an Add
// (each input at its own scale); the Concat, read by nothing else, is gone.
TEST(QuantizeE2E, SplitMixedRangeConcat) {
  Net n;
  const int x = n.b.input("x", {1, 4, 8, 8});
  const int a = n.conv("convA", x, 4, 3, 1, 1, "", 1.0f);
  const int b = n.conv("convB", x, 4, 1, 1, 0, "", 40.0f);  // a range far wider than convA's
  const int cat = n.b.node("Concat", {a, b}, "cat", {1, 8, 8, 8}, {{"axis", int64_t{1}}});
  n.b.output(n.conv("conv", cat, 4, 3, 1, 1));
  const Result r = quantizeAndCompare(n.b.g, "concat (split per input)");
  EXPECT_GE(r.minCosine, 0.99);
  int concats = 0, adds = 0;
  for (const Node& node : r.quantized.nodes) {
    concats += node.op == Op::Concat;
    adds += node.op == Op::Add;
  }
  EXPECT_EQ(concats, 0);
  EXPECT_EQ(adds, 1);
}

TEST(QuantizeE2E, MatMulWithConstantRightOperandAndStandaloneRelu) {
  Net n;
  const int x = n.b.input("x", {2, 6, 16});
  const int w1 = n.b.constF("w1", {16, 12}, heWeights(16 * 12, 16, n.rng));
  const int m1 = n.b.node("MatMul", {x, w1}, "mm1", {2, 6, 12});
  const int rl = n.b.node("Relu", {m1}, "relu", {2, 6, 12});
  const int w2 = n.b.constF("w2", {12, 8}, heWeights(12 * 8, 12, n.rng));
  const int m2 = n.b.node("MatMul", {rl, w2}, "mm2", {2, 6, 8});
  n.b.output(m2);
  const Result r = quantizeAndCompare(n.b.g, "matmul+relu+matmul");
  EXPECT_GE(r.minCosine, 0.99);
  EXPECT_EQ(r.summary.quantized_nodes, 3);
  const Node& relu = nodeProducing(r.quantized, "relu");
  EXPECT_EQ(relu.op, "Relu");
  const Quant& qin = *r.quantized.values[static_cast<size_t>(relu.inputs[0])].quant;
  EXPECT_EQ(relu.getInt("act_min", 0), qin.zero_point[0]);
  EXPECT_EQ(r.quantized.values[static_cast<size_t>(relu.outputs[0])].quant, qin);
}

TEST(QuantizeE2E, IntermediateGraphOutputAndDataMovementBeforeConv) {
  Net n;
  const int x = n.b.input("x", {1, 48});
  const int shape = n.b.constant("shape", {4}, std::vector<int64_t>{1, 3, 4, 4}, ElemType::Int64);
  const int rs = n.b.node("Reshape", {x, shape}, "img", {1, 3, 4, 4});
  const int c1 = n.conv("conv1", rs, 8, 3, 1, 1, "relu");
  const int c2 = n.conv("conv2", c1, 4, 1, 1, 0);
  n.b.output(c1);  // also an output
  n.b.output(c2);
  const Result r = quantizeAndCompare(n.b.g, "reshape+conv, two outputs");
  EXPECT_GE(r.minCosine, 0.99);
  const Graph& q = r.quantized;
  // The Reshape moves int8 data (quantized before it), and conv1 is dequantized once for the output.
  EXPECT_EQ(nodeProducing(q, "img").op, "Reshape");
  EXPECT_EQ(q.values[static_cast<size_t>(q.findValue("img"))].type, ElemType::Int8);
  EXPECT_EQ(countOps(q, "QuantizeLinear"), 1);
  EXPECT_EQ(countOps(q, "DequantizeLinear"), 2);
  EXPECT_EQ(q.values[static_cast<size_t>(q.outputs[0])].name, "conv1");
  EXPECT_EQ(q.values[static_cast<size_t>(q.outputs[1])].name, "conv2");
  EXPECT_NE(q.findValue("conv1_q"), -1);
}

TEST(QuantizeE2E, DepthwiseSeparable) {
  Net n;
  const int x = n.b.input("x", {1, 8, 12, 12});
  const int dw = n.conv("dw", x, 8, 3, 2, 1, "clip", 1.0f, /*group=*/8);
  const int pw = n.conv("pw", dw, 16, 1, 1, 0, "relu");
  n.b.output(pw);
  EXPECT_GE(quantizeAndCompare(n.b.g, "depthwise separable").minCosine, 0.99);
}

TEST(QuantizeE2E, ConstantOperandsOfAddAndConcat) {
  Net n;
  const int x = n.b.input("x", {1, 4, 6, 6});
  const int c1 = n.conv("conv1", x, 4, 3, 1, 1);
  const int k = n.b.constF("offsets", {1, 4, 6, 6}, test::randomFloats(144, n.rng, -0.5f, 0.5f));
  const int add = n.b.node("Add", {c1, k}, "add", {1, 4, 6, 6});
  const int k2 = n.b.constF("extra", {1, 2, 6, 6}, test::randomFloats(72, n.rng, 0.0f, 2.0f));
  const int cat = n.b.node("Concat", {add, k2}, "cat", {1, 6, 6, 6}, {{"axis", int64_t{1}}});
  const int c2 = n.conv("conv2", cat, 4, 1, 1, 0);
  n.b.output(c2);
  const Result r = quantizeAndCompare(n.b.g, "constant Add/Concat operands");
  EXPECT_GE(r.minCosine, 0.99);
  EXPECT_EQ(r.summary.float_nodes, 0);
  EXPECT_EQ(countOps(r.quantized, "QuantizeLinear"), 1);  // constants are quantized at compile time
  const Graph& q = r.quantized;
  const Node& addNode = nodeProducing(q, "add");
  const Value& kq = q.values[static_cast<size_t>(addNode.inputs[1])];
  EXPECT_TRUE(kq.is_constant);
  EXPECT_EQ(kq.type, ElemType::Int8);
  const Node& catNode = nodeProducing(q, "cat");
  const Value& k2q = q.values[static_cast<size_t>(catNode.inputs[1])];
  EXPECT_TRUE(k2q.is_constant);
  EXPECT_EQ(k2q.quant,
            q.values[static_cast<size_t>(catNode.outputs[0])].quant);  // quantized straight to Concat's scale
}

TEST(QuantizeE2E, DataMovementBetweenFloatOperatorsStaysFloat) {
  GraphBuilder b;
  const int x = b.input("x", {2, 8});
  const int s1 = b.node("Sigmoid", {x}, "s1", {2, 8});
  const int shape = b.constant("shape", {2}, std::vector<int64_t>{4, 4}, ElemType::Int64);
  const int rs = b.node("Reshape", {s1, shape}, "rs", {4, 4});
  const int tr = b.node("Transpose", {rs}, "tr", {4, 4}, {{"perm", std::vector<int64_t>{1, 0}}});
  const int s2 = b.node("Sigmoid", {tr}, "s2", {4, 4});
  b.output(s2);
  const Result r = quantizeAndCompare(b.g, "float ops only");
  EXPECT_EQ(r.summary.quantized_nodes, 0);
  EXPECT_EQ(r.summary.quantize_linear + r.summary.dequantize_linear, 0);
  EXPECT_GE(r.minCosine, 0.999999);
}

}  // namespace
}  // namespace systole::compiler
