// End to end: small float graphs built with the Graph API are calibrated and quantized; the
// quantized graph runs in the reference interpreter (int8 kernels + host float kernels) and its
// outputs are compared with the float graph's on inputs that calibration never saw.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <random>

#include <unistd.h>

#include "quant_test_util.h"
#include "systole/compiler/interpreter.h"
#include "systole/compiler/quant_math.h"
#include "systole/compiler/quantize.h"
#include "systole/isa/diagnostic.h"
#include "systole/isa/npy.h"

namespace systole::compiler {
namespace {

using test::GraphBuilder;

/// Weights uniform in +-sqrt(6 / fanIn) (He-style), so activations keep their scale.
std::vector<float> heWeights(size_t n, int64_t fanIn, std::mt19937& rng, float gain = 1.0f) {
  const float a = gain * std::sqrt(6.0f / static_cast<float>(fanIn));
  return test::randomFloats(n, rng, -a, a);
}

struct Net {
  GraphBuilder b;
  std::mt19937 rng{1234};

  int conv(const std::string& name, int x, int64_t outC, int64_t k, int64_t stride, int64_t pad, const std::string& act = "",
           float gain = 1.0f, int64_t group = 1) {
    const std::vector<int64_t> xs = b.g.values[static_cast<size_t>(x)].shape;  // a copy: adding values moves them
    const int64_t inC = xs[1], icg = inC / group;
    const int64_t oh = (xs[2] + 2 * pad - k) / stride + 1, ow = (xs[3] + 2 * pad - k) / stride + 1;
    const int w = b.constF(name + ".w", {outC, icg, k, k}, heWeights(static_cast<size_t>(outC * icg * k * k), icg * k * k, rng, gain));
    const int bias = b.constF(name + ".b", {outC}, test::randomFloats(static_cast<size_t>(outC), rng, -0.1f, 0.1f));
    std::map<std::string, AttrValue> attrs = {{"kernel_shape", std::vector<int64_t>{k, k}},
                                              {"strides", std::vector<int64_t>{stride, stride}},
                                              {"pads", std::vector<int64_t>{pad, pad, pad, pad}},
                                              {"group", group}};
    if (!act.empty()) attrs["activation"] = act;
    if (act == "clip") {
      attrs["clip_min"] = 0.0;
      attrs["clip_max"] = 6.0;
    }
    return b.node("Conv", {x, w, bias}, name, {xs[0], outC, oh, ow}, attrs);
  }

  int gemm(const std::string& name, int x, int64_t outN, bool transB, const std::string& act = "") {
    const int64_t M = b.g.values[static_cast<size_t>(x)].shape[0], K = b.g.values[static_cast<size_t>(x)].shape[1];
    const int w = b.constF(name + ".w", transB ? std::vector<int64_t>{outN, K} : std::vector<int64_t>{K, outN},
                           heWeights(static_cast<size_t>(K * outN), K, rng));
    const int c = b.constF(name + ".c", {outN}, test::randomFloats(static_cast<size_t>(outN), rng, -0.1f, 0.1f));
    std::map<std::string, AttrValue> attrs = {{"transB", int64_t{transB ? 1 : 0}}, {"alpha", 1.0}, {"beta", 1.0}};
    if (!act.empty()) attrs["activation"] = act;
    return b.node("Gemm", {x, w, c}, name, {M, outN}, attrs);
  }
};

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

Graph convReluGraph(const std::string& act = "relu") {
  Net n;
  const int x = n.b.input("x", {1, 3, 16, 16});
  const int c1 = n.conv("conv1", x, 16, 3, 1, 1, act);
  const int c2 = n.conv("conv2", c1, 8, 3, 2, 1);
  n.b.output(c2);
  return n.b.g;
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
  const Result r = quantizeAndCompare(convReluGraph("clip"), "conv+relu6 (normal inputs)", {}, RandomDistribution::Normal);
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
  EXPECT_EQ(r.quantized.values[static_cast<size_t>(nodeProducing(r.quantized, "fc1").outputs[0])].type, ElemType::Float32);
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
                          {{"kernel_shape", std::vector<int64_t>{3, 3}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}},
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
    EXPECT_EQ(q.values[static_cast<size_t>(mpNode.outputs[0])].quant, q.values[static_cast<size_t>(mpNode.inputs[0])].quant);
    EXPECT_TRUE(nodeProducing(q, "avgpool").has("multiplier"));
    EXPECT_TRUE(nodeProducing(q, "gap").has("multiplier"));
    const Node& flNode = nodeProducing(q, "flat");
    EXPECT_EQ(q.values[static_cast<size_t>(flNode.outputs[0])].quant, q.values[static_cast<size_t>(flNode.inputs[0])].quant);
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
    EXPECT_EQ(table[static_cast<size_t>(v + 128)], quantizeFloat(1.f / (1.f + std::exp(-real)), qy.scale[0], qy.zero_point[0])) << v;
  }
}

TEST(QuantizeE2E, ConcatInputsComputedOnlyForItShareItsScale) {
  Net n;
  const int x = n.b.input("x", {1, 4, 8, 8});
  const int a = n.conv("convA", x, 4, 3, 1, 1, "", 1.0f);
  const int b = n.conv("convB", x, 4, 1, 1, 0, "", 8.0f);  // a much wider range
  const int cat = n.b.node("Concat", {a, b}, "cat", {1, 8, 8, 8}, {{"axis", int64_t{1}}});
  n.b.output(n.conv("conv", cat, 4, 3, 1, 1));
  const Result r = quantizeAndCompare(n.b.g, "concat (shared scale)");
  EXPECT_GE(r.minCosine, 0.99);
  EXPECT_EQ(r.summary.requant, 0);  // both convolutions requantize straight to the Concat's scale
  const Node& catNode = nodeProducing(r.quantized, "cat");
  for (int v : catNode.inputs)
    EXPECT_EQ(r.quantized.values[static_cast<size_t>(v)].quant, r.quantized.values[static_cast<size_t>(catNode.outputs[0])].quant);
}

TEST(QuantizeE2E, ConcatWithDifferentScalesGetsRequant) {
  Net n;
  const int x = n.b.input("x", {1, 4, 8, 8});
  const int a = n.conv("convA", x, 4, 3, 1, 1, "", 1.0f);
  const int b = n.conv("convB", x, 4, 1, 1, 0, "", 8.0f);  // a much wider range
  const int cat = n.b.node("Concat", {a, b}, "cat", {1, 8, 8, 8}, {{"axis", int64_t{1}}});
  const int c = n.conv("conv", cat, 4, 3, 1, 1);
  n.b.output(c);
  n.b.output(n.conv("other", a, 4, 1, 1, 0));  // convA's output has another reader: it keeps its narrow scale
  const Result r = quantizeAndCompare(n.b.g, "concat (two scales)");
  EXPECT_GE(r.minCosine, 0.99);
  EXPECT_GE(r.summary.requant, 1);
  const Graph& q = r.quantized;
  const Node& catNode = nodeProducing(q, "cat");
  for (int v : catNode.inputs) EXPECT_EQ(q.values[static_cast<size_t>(v)].quant, q.values[static_cast<size_t>(catNode.outputs[0])].quant);
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
  EXPECT_EQ(k2q.quant, q.values[static_cast<size_t>(catNode.outputs[0])].quant);  // quantized straight to Concat's scale
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

TEST(Quantize, IsDeterministic) {
  Graph a = convReluGraph(), b = convReluGraph();
  const auto calib = makeRandomInputs(a, 4, 5);
  quantize(a, calib);
  quantize(b, calib);
  EXPECT_EQ(a.print(), b.print());
  EXPECT_NE(a.print().find("QuantizeLinear"), std::string::npos);
}

TEST(Quantize, ErrorsAreReported) {
  Graph g = convReluGraph();
  EXPECT_THROW(quantize(g, {}), Error);  // no calibration data
  quantize(g, makeRandomInputs(g, 2, 0));
  EXPECT_THROW(quantize(g, makeRandomInputs(g, 2, 0)), Error);  // already quantized
  Graph h = convReluGraph();
  QuantOptions bad;
  bad.method = CalibrationMethod::Percentile;
  bad.percentile = 20;
  EXPECT_THROW(quantize(h, makeRandomInputs(h, 1, 0), bad), Error);
  EXPECT_THROW(quantizeWithRanges(h, {}), Error);  // no ranges
}

TEST(Quantize, NumSamplesLimitsCalibration) {
  const Graph g = convReluGraph();
  const auto calib = makeRandomInputs(g, 8, 3);
  QuantOptions one;
  one.num_samples = 1;
  const auto r1 = calibrate(g, calib, one);
  const auto r1b = calibrate(g, {calib[0]});
  ASSERT_EQ(r1.size(), r1b.size());
  for (const auto& [name, range] : r1) {
    EXPECT_EQ(range.lo, r1b.at(name).lo) << name;
    EXPECT_EQ(range.hi, r1b.at(name).hi) << name;
  }
  const auto all = calibrate(g, calib);
  EXPECT_GE(all.at("conv2").hi, r1.at("conv2").hi);
  EXPECT_LE(all.at("conv2").lo, r1.at("conv2").lo);
}

/// A deeper graph than convReluGraph, with a residual Add, so values are freed at different times.
Graph residualGraph() {
  Net n;
  const int x = n.b.input("x", {1, 3, 24, 24});
  const int c1 = n.conv("c1", x, 8, 3, 1, 1, "relu");
  const int c2 = n.conv("c2", c1, 8, 3, 1, 1);
  const int c3 = n.conv("c3", c2, 8, 1, 1, 0, "clip");
  const int sum = n.b.node("Add", {c1, c3}, "sum", {1, 8, 24, 24});
  n.b.output(n.conv("c4", sum, 4, 3, 2, 1));
  return n.b.g;
}

TEST(Calibrate, SameRangesWhateverTheThreadCount) {
  const Graph g = residualGraph();
  const auto calib = makeRandomInputs(g, 7, 5, RandomDistribution::Normal);
  for (CalibrationMethod method : {CalibrationMethod::MinMax, CalibrationMethod::Percentile, CalibrationMethod::Entropy}) {
    QuantOptions opts;
    opts.method = method;
    opts.percentile = 99.9;
    opts.jobs = 1;
    const auto serial = calibrate(g, calib, opts);
    EXPECT_EQ(serial.size(), 6u);  // x, c1..c4, sum
    for (int jobs : {2, 3, 8}) {
      opts.jobs = jobs;
      const auto parallel = calibrate(g, calib, opts);
      ASSERT_EQ(parallel.size(), serial.size());
      for (const auto& [name, range] : serial) {
        EXPECT_EQ(parallel.at(name).lo, range.lo) << calibrationMethodName(method) << " " << name << " jobs " << jobs;
        EXPECT_EQ(parallel.at(name).hi, range.hi) << calibrationMethodName(method) << " " << name << " jobs " << jobs;
      }
    }
  }
}

// Progress counts samples over the passes the method takes: one for MinMax and Percentile (whose
// tails come with the ranges), two for Entropy (a histogram over the ranges).
TEST(Calibrate, ReportsProgressOverItsPasses) {
  const Graph g = convReluGraph();
  const auto calib = makeRandomInputs(g, 5, 1);
  for (auto [method, passes] : {std::pair{CalibrationMethod::MinMax, 1u}, {CalibrationMethod::Percentile, 1u}, {CalibrationMethod::Entropy, 2u}}) {
    SCOPED_TRACE(std::string(calibrationMethodName(method)));
    QuantOptions opts;
    opts.method = method;
    opts.jobs = 2;
    std::vector<size_t> done;
    opts.progress = [&](size_t d, size_t total) {
      EXPECT_EQ(total, 5u * passes);
      done.push_back(d);
    };
    (void)calibrate(g, calib, opts);
    ASSERT_EQ(done.size(), 5u * passes);
    for (size_t i = 0; i < done.size(); ++i) EXPECT_EQ(done[i], i + 1);
  }
}

TEST(Interpreter, ObserverSeesEveryValueKeepAllReturns) {
  const Graph g = residualGraph();
  const auto in = makeRandomInputs(g, 1, 3)[0];
  const auto all = interpret(g, in, /*keepAll=*/true);
  const Interpreter interpreter(g);
  std::map<std::string, HostTensor> seen;
  const auto outputs = interpreter.run(in, [&](int v, const HostTensor& t) {
    EXPECT_TRUE(seen.emplace(g.values[static_cast<size_t>(v)].name, t).second) << "seen twice";
  });
  EXPECT_EQ(seen, all);
  EXPECT_EQ(outputs, interpret(g, in));
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(outputs.at("c4"), all.at("c4"));
}

TEST(Quantize, PercentileAndEntropyNarrowOutliers) {
  // One extreme input value: MinMax keeps it, Percentile and Entropy clip it.
  GraphBuilder b;
  const int x = b.input("x", {1, 1, 100, 100});
  const int r = b.node("Relu", {x}, "r", {1, 1, 100, 100});
  b.output(r);
  auto calib = makeRandomInputs(b.g, 1, 0);
  calib[0].at("x").data<float>()[17] = 1000.0f;
  QuantOptions m;
  m.method = CalibrationMethod::MinMax;
  QuantOptions p;
  p.method = CalibrationMethod::Percentile;
  p.percentile = 99.99;  // one element in 10^4 may be clipped on each side
  QuantOptions e;
  e.method = CalibrationMethod::Entropy;
  EXPECT_EQ(calibrate(b.g, calib, m).at("x").hi, 1000.0);
  EXPECT_LT(calibrate(b.g, calib, p).at("x").hi, 2.0);
  // Entropy's threshold is at least 128 of its 2048 bins over [0, 1000] (62.7).
  EXPECT_LT(calibrate(b.g, calib, e).at("x").hi, 200.0);
  EXPECT_LT(calibrate(b.g, calib, p).at("x").lo, -0.9);
  // The default, percentile 99.999, keeps one outlier in 10^4 elements.
  EXPECT_EQ(calibrate(b.g, calib).at("x").hi, 1000.0);
}

TEST(Quantize, DefaultIsPercentile99999) {
  const QuantOptions defaults;
  EXPECT_EQ(defaults.method, CalibrationMethod::Percentile);
  EXPECT_EQ(defaults.percentile, 99.999);
}

TEST(Quantize, EntropyKeepsTheTailOfANarrowDistributionFarFromZero) {
  // Like a global average pool's output: most values in [0.25, 0.35], 5% spread up to 1.4. The
  // KL threshold alone clips near 0.35 (the 5% largest values, the informative ones, saturate);
  // Entropy keeps the full range when its threshold clips more than 1% of the values.
  GraphBuilder b;
  const int x = b.input("x", {1, 1, 100, 100});
  const int r = b.node("Relu", {x}, "r", {1, 1, 100, 100});
  b.output(r);
  auto calib = makeRandomInputs(b.g, 1, 0);
  float* d = calib[0].at("x").data<float>();
  for (int i = 0; i < 10000; ++i) d[i] = i % 20 == 0 ? 0.4f + 1.0f * static_cast<float>(i) / 10000 : 0.3f + 0.05f * d[i];
  QuantOptions e;
  e.method = CalibrationMethod::Entropy;
  QuantOptions m;
  m.method = CalibrationMethod::MinMax;
  const TensorRange range = calibrate(b.g, calib, e).at("x");
  EXPECT_FLOAT_EQ(static_cast<float>(range.hi), calibrate(b.g, calib, m).at("x").hi);
}

TEST(RandomInputs, SeededUniformAndNormal) {
  GraphBuilder b;
  b.input("x", {10000});
  b.input("ids", {3}, ElemType::Int64);
  const auto u1 = makeRandomInputs(b.g, 2, 42), u2 = makeRandomInputs(b.g, 2, 42), u3 = makeRandomInputs(b.g, 2, 43);
  ASSERT_EQ(u1.size(), 2u);
  EXPECT_EQ(u1, u2);
  EXPECT_NE(u1, u3);
  EXPECT_NE(u1[0].at("x"), u1[1].at("x"));
  EXPECT_EQ(u1[0].at("ids").elements(), 3);
  const HostTensor& u = u1[0].at("x");
  double mean = 0;
  for (int64_t i = 0; i < u.elements(); ++i) {
    ASSERT_GE(u.data<float>()[i], -1.0f);
    ASSERT_LT(u.data<float>()[i], 1.0f);
    mean += u.data<float>()[i];
  }
  EXPECT_NEAR(mean / 10000, 0.0, 0.03);
  const HostTensor nt = makeRandomInputs(b.g, 1, 7, RandomDistribution::Normal)[0].at("x");
  double m = 0, sq = 0;
  for (int64_t i = 0; i < nt.elements(); ++i) {
    m += nt.data<float>()[i];
    sq += double{nt.data<float>()[i]} * nt.data<float>()[i];
  }
  m /= 10000;
  EXPECT_NEAR(m, 0.0, 0.05);
  EXPECT_NEAR(std::sqrt(sq / 10000 - m * m), 1.0, 0.05);

  GraphBuilder dyn;
  dyn.input("x", {-1, 3});
  EXPECT_THROW(makeRandomInputs(dyn.g, 1, 0), Error);
}

/// A fresh empty directory under the system's temporary directory, removed at scope exit.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path = std::filesystem::temp_directory_path() / ("systole_quant_" + std::string(info->name()) + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

void writeFloats(const std::filesystem::path& file, std::vector<int64_t> shape, float first) {
  NpyArray a;
  a.dtype = isa::DType::Float32;
  a.shape = std::move(shape);
  int64_t n = 1;
  for (int64_t d : a.shape) n *= d;
  std::vector<float> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = first + static_cast<float>(i);
  a.bytes.resize(v.size() * 4);
  std::memcpy(a.bytes.data(), v.data(), a.bytes.size());
  writeNpy(file.string(), a);
}

TEST(CalibrationDir, OneFilePerSampleOrStacked) {
  GraphBuilder b;
  b.input("x", {1, 2, 3});
  TempDir dir;
  writeFloats(dir.path / "b.npy", {1, 2, 3}, 100);
  writeFloats(dir.path / "a.npy", {3, 2, 3}, 0);  // three stacked samples
  writeFloats(dir.path / "ignored.txt", {1}, 0);
  const auto samples = loadCalibrationDir(b.g, dir.path.string());
  ASSERT_EQ(samples.size(), 4u);  // a.npy's three, then b.npy
  EXPECT_EQ(samples[0].at("x").shape, (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(samples[0].at("x").data<float>()[0], 0.0f);
  EXPECT_EQ(samples[1].at("x").data<float>()[0], 6.0f);
  EXPECT_EQ(samples[2].at("x").data<float>()[5], 17.0f);
  EXPECT_EQ(samples[3].at("x").data<float>()[0], 100.0f);

  writeFloats(dir.path / "c.npy", {1, 3, 2}, 0);
  try {
    loadCalibrationDir(b.g, dir.path.string());
    FAIL() << "expected a shape error";
  } catch (const Error& e) {
    EXPECT_NE(e.where().file.find("c.npy"), std::string::npos);
    EXPECT_NE(e.message().find("[1,3,2]"), std::string::npos) << e.message();
  }
}

TEST(CalibrationDir, SubdirectoryPerSampleForSeveralInputs) {
  GraphBuilder b;
  b.input("x", {2});
  b.input("y", {1, 3});
  TempDir dir;
  for (int s = 0; s < 2; ++s) {
    const auto sub = dir.path / ("sample" + std::to_string(s));
    std::filesystem::create_directories(sub);
    writeFloats(sub / "x.npy", {2}, static_cast<float>(10 * s));
    writeFloats(sub / "y.npy", {1, 3}, static_cast<float>(10 * s + 5));
  }
  const auto samples = loadCalibrationDir(b.g, dir.path.string());
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_EQ(samples[1].at("x").data<float>()[1], 11.0f);
  EXPECT_EQ(samples[1].at("y").data<float>()[2], 17.0f);
  std::filesystem::remove(dir.path / "sample1" / "y.npy");
  EXPECT_THROW(loadCalibrationDir(b.g, dir.path.string()), Error);
  EXPECT_THROW(loadCalibrationDir(b.g, (dir.path / "nothing").string()), Error);
}

TEST(CalibrationMethodNames, RoundTrip) {
  for (CalibrationMethod m : {CalibrationMethod::MinMax, CalibrationMethod::Percentile, CalibrationMethod::Entropy})
    EXPECT_EQ(parseCalibrationMethod(calibrationMethodName(m)), m);
  EXPECT_FALSE(parseCalibrationMethod("kl"));
}

}  // namespace
}  // namespace systole::compiler
