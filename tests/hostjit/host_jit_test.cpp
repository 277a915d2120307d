// The host JIT (hostjit/) against the reference interpreter's kernels: every lowered operator on
// seeded random inputs (and, for QuantizeLinear, NaN, infinities, signed zeros, huge and tiny
// values and exact halfway cases), compared bit for bit; nodes without a lowering; the object
// cache (a miss stores, a hit reuses, a corrupt entry is rebuilt).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <unistd.h>

#include "systole/compiler/interpreter.h"
#include "systole/hostjit/host_jit.h"

namespace systole {
namespace {

using compiler::ElemType;
using compiler::Graph;
using compiler::HostTensor;
using compiler::Node;
using compiler::Quant;

/// A graph of one node under test; inputs get seeded random contents.
struct OneNode {
  Graph g;
  std::map<int, HostTensor> inputs;  // by value id
  std::mt19937 rng{7};

  explicit OneNode(int64_t opset = 14) { g.opset = opset; }

  int value(ElemType type, std::vector<int64_t> shape, std::optional<Quant> quant = std::nullopt) {
    compiler::Value v;
    v.name = "v" + std::to_string(g.values.size());
    v.type = type;
    v.shape = std::move(shape);
    v.quant = std::move(quant);
    return g.addValue(std::move(v));
  }
  /// A graph input with random contents: floats uniform in [-4, 4), integers over their range.
  int input(ElemType type, std::vector<int64_t> shape, std::optional<Quant> quant = std::nullopt) {
    const int id = value(type, shape, quant);
    HostTensor t(type, shape);
    std::uniform_real_distribution<float> uniform(-4.f, 4.f);
    for (int64_t i = 0; i < t.elements(); ++i) {
      if (type == ElemType::Float32)
        t.data<float>()[i] = uniform(rng);
      else if (type == ElemType::Int8)
        t.data<int8_t>()[i] = static_cast<int8_t>(rng());
      else if (type == ElemType::Int32)
        t.data<int32_t>()[i] = static_cast<int32_t>(rng() % 20001) - 10000;
    }
    inputs[id] = std::move(t);
    g.inputs.push_back(id);
    return id;
  }
  int constantInts(const std::vector<int64_t>& values) {
    const int id = value(ElemType::Int64, {static_cast<int64_t>(values.size())});
    auto& v = g.values[static_cast<size_t>(id)];
    v.is_constant = true;
    v.data.resize(values.size() * 8);
    std::memcpy(v.data.data(), values.data(), v.data.size());
    return id;
  }
  int node(const std::string& op, std::vector<int> in, std::vector<int> out,
           std::map<std::string, compiler::AttrValue> attrs = {}) {
    Node n;
    n.name = op;
    n.op = op;
    n.inputs = std::move(in);
    n.outputs = std::move(out);
    n.attrs = std::move(attrs);
    return g.addNode(std::move(n));
  }
  float* floats(int id) { return inputs.at(id).data<float>(); }
};

/// The node's outputs from the interpreter's kernel and from the JIT.
struct Both {
  std::vector<HostTensor> interpreted, compiled;
};

Both runBoth(OneNode& t, int id, const hostjit::Options& options = {}) {
  const Node& n = t.g.nodes[static_cast<size_t>(id)];
  std::vector<HostTensor> constants;
  constants.reserve(n.inputs.size());
  std::vector<const HostTensor*> in;
  hostjit::Inputs bytesIn;
  for (int v : n.inputs) {
    if (v < 0) {
      in.push_back(nullptr);
      bytesIn.push_back(nullptr);
      continue;
    }
    const auto& val = t.g.values[static_cast<size_t>(v)];
    if (val.is_constant) {
      constants.emplace_back(val.type, val.shape).bytes = val.data;
      in.push_back(&constants.back());
    } else {
      in.push_back(&t.inputs.at(v));
    }
    bytesIn.push_back(&in.back()->bytes);
  }
  Both r;
  for (int v : n.outputs) {
    r.interpreted.emplace_back(t.g.values[static_cast<size_t>(v)].type, t.g.values[static_cast<size_t>(v)].shape);
    r.compiled.emplace_back(t.g.values[static_cast<size_t>(v)].type, t.g.values[static_cast<size_t>(v)].shape);
  }
  std::vector<HostTensor*> out;
  hostjit::Outputs bytesOut;
  for (auto& o : r.interpreted) out.push_back(&o);
  for (auto& o : r.compiled) {
    std::memset(o.bytes.data(), 0x5a, o.bytes.size());  // so an element the code forgets cannot match by luck
    bytesOut.push_back(&o.bytes);
  }
  compiler::runKernel(t.g, n, in, out);
  hostjit::HostJit jit(t.g, {id}, options);
  EXPECT_TRUE(jit.compiled(id)) << n.op << " has no lowering";
  if (jit.compiled(id)) jit.run(id, bytesIn, bytesOut);
  return r;
}

/// Runs both and expects every output byte to agree (the first difference is reported).
void expectBitExact(OneNode& t, int id) {
  const Both r = runBoth(t, id);
  for (size_t k = 0; k < r.interpreted.size(); ++k) {
    const auto& a = r.interpreted[k].bytes;
    const auto& b = r.compiled[k].bytes;
    ASSERT_EQ(a.size(), b.size());
    const auto diff = std::mismatch(a.begin(), a.end(), b.begin());
    EXPECT_TRUE(diff.first == a.end()) << t.g.nodes[static_cast<size_t>(id)].op << " output " << k
                                       << " differs at byte " << (diff.first - a.begin());
  }
}

Quant perTensor(float scale, int32_t zero) { return Quant{{scale}, {zero}, -1}; }

/// Floats that exercise QuantizeLinear's edges for scale s: NaN, infinities, signed zeros, huge and
/// tiny magnitudes, and x = (k + 0.5) * s, whose quotient is exactly halfway when s is a power of 2.
void addSpecialFloats(float* x, int64_t n, float s) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> special = {std::nanf(""),
                                -std::nanf(""),
                                inf,
                                -inf,
                                0.f,
                                -0.f,
                                1e30f,
                                -1e30f,
                                1e-40f,
                                -1e-40f,
                                std::numeric_limits<float>::max(),
                                std::numeric_limits<float>::lowest()};
  for (int k = -140; k <= 140; ++k) special.push_back((static_cast<float>(k) + 0.5f) * s);
  for (size_t i = 0; i < special.size() && static_cast<int64_t>(i) < n; ++i)
    x[i * 3 % static_cast<size_t>(n)] = special[i];
}

TEST(HostJit, QuantizeLinearPerTensorWithHalfwayAndSpecialValues) {
  for (float scale : {0.25f, 0.0078416f, 3.0f}) {
    OneNode t;
    const int x = t.input(ElemType::Float32, {3, 7, 41});
    addSpecialFloats(t.floats(x), 3 * 7 * 41, scale);
    const int y = t.value(ElemType::Int8, {3, 7, 41}, perTensor(scale, -3));
    expectBitExact(t, t.node("QuantizeLinear", {x}, {y}));
  }
}

TEST(HostJit, QuantizeLinearPerAxis) {
  OneNode t;
  const int x = t.input(ElemType::Float32, {2, 3, 5, 4});
  addSpecialFloats(t.floats(x), 120, 0.5f);
  const int y = t.value(ElemType::Int8, {2, 3, 5, 4}, Quant{{0.5f, 0.03f, 0.125f}, {0, 7, -128}, 1});
  expectBitExact(t, t.node("QuantizeLinear", {x}, {y}));
}

TEST(HostJit, DequantizeLinear) {
  OneNode t;
  const int x = t.input(ElemType::Int8, {4, 3, 64}, perTensor(0.0140565f, 2));
  for (int i = 0; i < 256; ++i) t.inputs.at(x).data<int8_t>()[i] = static_cast<int8_t>(i - 128);
  expectBitExact(t, t.node("DequantizeLinear", {x}, {t.value(ElemType::Float32, {4, 3, 64})}));
  OneNode axis;
  const int xa = axis.input(ElemType::Int8, {2, 3, 8}, Quant{{0.5f, 0.03f, 1e-3f}, {0, 7, -128}, 1});
  expectBitExact(axis, axis.node("DequantizeLinear", {xa}, {axis.value(ElemType::Float32, {2, 3, 8})}));
}

TEST(HostJit, CopiesAndTransposes) {
  OneNode t;
  const int x = t.input(ElemType::Int8, {2, 3, 4, 5});
  expectBitExact(t, t.node("Transpose", {x}, {t.value(ElemType::Int8, {2, 4, 5, 3})},
                           {{"perm", std::vector<int64_t>{0, 2, 3, 1}}}));
  expectBitExact(t, t.node("Transpose", {x}, {t.value(ElemType::Int8, {5, 4, 3, 2})}));  // default: reversed
  expectBitExact(t, t.node("Reshape", {x, t.constantInts({6, 20})}, {t.value(ElemType::Int8, {6, 20})}));
  expectBitExact(t, t.node("FlattenNhwc", {x}, {t.value(ElemType::Int8, {2, 60})}));
  const int rows = t.input(ElemType::Int8, {2, 20, 3});
  expectBitExact(t, t.node("UnflattenNhwc", {rows}, {t.value(ElemType::Int8, {2, 3, 4, 5})}, {{"height", int64_t{4}}}));
  const int f = t.input(ElemType::Float32, {4, 16, 16});
  t.floats(f)[5] = std::nanf("");  // moved as bits
  expectBitExact(t, t.node("Transpose", {f}, {t.value(ElemType::Float32, {16, 4, 16})},
                           {{"perm", std::vector<int64_t>{1, 0, 2}}}));
  expectBitExact(t, t.node("Identity", {f}, {t.value(ElemType::Float32, {4, 16, 16})}));
}

TEST(HostJit, Slice) {
  OneNode t;
  const int x = t.input(ElemType::Int8, {16, 1, 192});
  expectBitExact(t, t.node("Slice", {x, t.constantInts({64}), t.constantInts({128}), t.constantInts({2})},
                           {t.value(ElemType::Int8, {16, 1, 64})}));
  // Negative step over two axes: rows 14, 11, ..., 2 and columns 190, 188, ..., 0.
  expectBitExact(t, t.node("Slice",
                           {x, t.constantInts({14, -2}), t.constantInts({0, -200}), t.constantInts({0, 2}),
                            t.constantInts({-3, -2})},
                           {t.value(ElemType::Int8, {5, 1, 96})}));
}

TEST(HostJit, Softmax) {
  OneNode t;
  const int x = t.input(ElemType::Float32, {4, 16, 16});
  t.floats(x)[3] = -std::numeric_limits<float>::infinity();
  expectBitExact(t, t.node("Softmax", {x}, {t.value(ElemType::Float32, {4, 16, 16})}, {{"axis", int64_t{-1}}}));
  expectBitExact(
      t, t.node("Softmax", {x}, {t.value(ElemType::Float32, {4, 16, 16})}, {{"axis", int64_t{1}}}));  // strided lines
  OneNode legacy(11);  // before opset 13: flattened from the axis on
  const int l = legacy.input(ElemType::Float32, {2, 3, 4});
  expectBitExact(legacy,
                 legacy.node("Softmax", {l}, {legacy.value(ElemType::Float32, {2, 3, 4})}, {{"axis", int64_t{1}}}));
}

TEST(HostJit, LayerNormalization) {
  OneNode t;
  const int x = t.input(ElemType::Float32, {1, 16, 64});
  const int scale = t.input(ElemType::Float32, {64}), bias = t.input(ElemType::Float32, {64});
  expectBitExact(t, t.node("LayerNormalization", {x, scale, bias}, {t.value(ElemType::Float32, {1, 16, 64})},
                           {{"axis", int64_t{-1}}, {"epsilon", 1e-5}}));
  expectBitExact(
      t, t.node("LayerNormalization", {x, scale}, {t.value(ElemType::Float32, {1, 16, 64})}, {{"axis", int64_t{-1}}}));
  const int wide = t.input(ElemType::Float32, {16, 64});
  expectBitExact(
      t, t.node("LayerNormalization", {x, wide}, {t.value(ElemType::Float32, {1, 16, 64})}, {{"axis", int64_t{1}}}));
}

TEST(HostJit, FloatMatMul) {
  OneNode t;
  const int a = t.input(ElemType::Float32, {4, 16, 16}), b = t.input(ElemType::Float32, {4, 16, 16});
  for (int i = 0; i < 1024; i += 7) t.floats(a)[i] = 0.f;  // skipped terms
  expectBitExact(t, t.node("MatMul", {a, b}, {t.value(ElemType::Float32, {4, 16, 16})}));
  const int c = t.input(ElemType::Float32, {2, 1, 3, 5}),
            d = t.input(ElemType::Float32, {4, 5, 6});  // broadcast batches
  expectBitExact(t, t.node("MatMul", {c, d}, {t.value(ElemType::Float32, {2, 4, 3, 6})}));
}

TEST(HostJit, DivByAnActivation) {
  OneNode t;
  const int a = t.input(ElemType::Float32, {2, 3, 8}), b = t.input(ElemType::Float32, {2, 3, 8});
  const int c = t.input(ElemType::Float32, {3, 1}), s = t.input(ElemType::Float32, {});
  addSpecialFloats(t.floats(a), 48, 0.5f);   // NaN, infinities, signed zeros, huge and tiny values as dividends
  addSpecialFloats(t.floats(b), 48, 0.25f);  // and as divisors (0 / 0, x / -0, inf / inf...)
  expectBitExact(t, t.node("Div", {a, b}, {t.value(ElemType::Float32, {2, 3, 8})}));
  expectBitExact(t, t.node("Div", {a, c}, {t.value(ElemType::Float32, {2, 3, 8})}));  // c broadcast along the rows
  expectBitExact(t, t.node("Div", {c, a}, {t.value(ElemType::Float32, {2, 3, 8})}));
  expectBitExact(t, t.node("Div", {s, s}, {t.value(ElemType::Float32, {})}));  // scalars
}

TEST(HostJit, Int8MatMulRequantizes) {
  OneNode t;
  const int a = t.input(ElemType::Int8, {16, 1, 64}, perTensor(0.0078f, -1));
  const int w = t.input(ElemType::Int8, {64, 192});
  const int bias = t.input(ElemType::Int32, {192});
  std::vector<int64_t> multiplier, shift;
  for (int j = 0; j < 192; ++j) {
    multiplier.push_back(1073741824 + j * 5000000);
    shift.push_back(j % 5 == 0 ? 0 : 30 + j % 12);  // S = 0 too
  }
  const int y = t.value(ElemType::Int8, {16, 1, 192}, perTensor(0.014f, 2));
  expectBitExact(
      t, t.node("MatMul", {a, w, bias}, {y},
                {{"multiplier", multiplier}, {"shift", shift}, {"act_min", int64_t{-100}}, {"act_max", int64_t{127}}}));
  const int y2 = t.value(ElemType::Int8, {16, 1, 192}, perTensor(0.014f, -5));
  expectBitExact(t, t.node("Gemm", {a, w}, {y2},
                           {{"multiplier", std::vector<int64_t>{1500000000}},
                            {"shift", std::vector<int64_t>{38}},
                            {"act_min", int64_t{-128}},
                            {"act_max", int64_t{127}}}));
}

TEST(HostJit, NodesWithoutALoweringAreLeftToTheInterpreter) {
  OneNode t;
  const int x = t.input(ElemType::Float32, {8}), y = t.input(ElemType::Float32, {8});
  const int add = t.node("Add", {x, y}, {t.value(ElemType::Float32, {8})});  // (float Add has no lowering)
  const int q = t.node("QuantizeLinear", {x}, {t.value(ElemType::Int8, {8}, perTensor(0.1f, 0))});
  hostjit::HostJit jit(t.g, {add, q});
  EXPECT_FALSE(jit.compiled(add));
  EXPECT_TRUE(jit.compiled(q));
  EXPECT_EQ(jit.report().compiled, 1u);
  EXPECT_FALSE(hostjit::hasLowering(t.g, t.g.nodes[static_cast<size_t>(add)]));
}

TEST(HostJit, ObjectCacheStoresReusesAndRebuildsACorruptEntry) {
  const auto dir = std::filesystem::temp_directory_path() / ("systole-hostjit-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  OneNode t;
  const int x = t.input(ElemType::Float32, {4, 16, 16});
  const int id = t.node("Softmax", {x}, {t.value(ElemType::Float32, {4, 16, 16})}, {{"axis", int64_t{-1}}});
  const hostjit::Options options{dir.string()};
  std::string entry;
  {
    hostjit::HostJit first(t.g, {id}, options);
    EXPECT_FALSE(first.report().cache_hit);
    entry = first.report().cache_entry;
    ASSERT_TRUE(std::filesystem::exists(entry));
  }
  {
    hostjit::HostJit second(t.g, {id}, options);
    EXPECT_TRUE(second.report().cache_hit);
    EXPECT_EQ(second.report().cache_entry, entry);
  }
  {  // flip one byte of the stored object
    std::fstream f(entry, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100);
    f.put('\x7f');
  }
  const Both rebuilt = runBoth(t, id, options);
  EXPECT_EQ(rebuilt.compiled[0].bytes, rebuilt.interpreted[0].bytes);
  hostjit::HostJit third(t.g, {id}, options);
  EXPECT_TRUE(third.report().cache_hit) << "the corrupt entry was stored again";
  std::filesystem::remove_all(dir);
}

TEST(HostJit, ReportsACorruptEntry) {
  const auto dir = std::filesystem::temp_directory_path() / ("systole-hostjit-corrupt-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  OneNode t;
  const int x = t.input(ElemType::Float32, {8});
  const int id = t.node("QuantizeLinear", {x}, {t.value(ElemType::Int8, {8}, perTensor(0.1f, 0))});
  std::string entry = hostjit::HostJit(t.g, {id}, {dir.string()}).report().cache_entry;
  std::filesystem::resize_file(entry, 10);
  hostjit::HostJit again(t.g, {id}, {dir.string()});
  EXPECT_FALSE(again.report().cache_hit);
  EXPECT_NE(again.report().warning.find("corrupt"), std::string::npos) << again.report().warning;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace systole
