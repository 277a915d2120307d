// auto_pad resolution against pad values worked out by hand from the ONNX operator definitions
// (out = ceil(in / stride); total = max(0, (out - 1) * stride + (k - 1) * dilation + 1 - in); the odd
// one at the end for SAME_UPPER, at the beginning for SAME_LOWER), and the graph rewrite the importer
// runs: every auto_pad becomes `pads`, whatever the operator and wherever its kernel size comes from.
#include <gtest/gtest.h>

#include "compiler_test_util.h"
#include "systole/compiler/auto_pad.h"
#include "systole/isa/diagnostic.h"

namespace systole::testing {
namespace {

using compiler::autoPads;
using compiler::resolveAutoPad;

struct AutoPadCase {
  const char* name;
  std::string mode;
  Shape in, kernel, strides, dilations, pads;
};

std::ostream& operator<<(std::ostream& os, const AutoPadCase& c) { return os << c.name; }

class AutoPads : public ::testing::TestWithParam<AutoPadCase> {};

TEST_P(AutoPads, MatchTheOnnxDefinition) {
  const AutoPadCase& c = GetParam();
  EXPECT_EQ(autoPads(c.mode, c.in, c.kernel, c.strides, c.dilations), c.pads);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, AutoPads,
    ::testing::Values(AutoPadCase{"upperEvenTotal", "SAME_UPPER", {5}, {3}, {2}, {1}, {1, 1}},  // out 3, total 2
                      AutoPadCase{"upperOddTotal", "SAME_UPPER", {8}, {3}, {2}, {1}, {0, 1}},   // out 4, total 1
                      AutoPadCase{"lowerOddTotal", "SAME_LOWER", {8}, {3}, {2}, {1}, {1, 0}},
                      AutoPadCase{"upperKernel4", "SAME_UPPER", {7}, {4}, {1}, {1}, {1, 2}},  // total 3
                      AutoPadCase{"lowerKernel4", "SAME_LOWER", {7}, {4}, {1}, {1}, {2, 1}},
                      AutoPadCase{"dilated", "SAME_UPPER", {7}, {2}, {1}, {3}, {1, 2}},        // span 4, total 3
                      AutoPadCase{"clampedAtZero", "SAME_UPPER", {6}, {1}, {4}, {1}, {0, 0}},  // out 2, total -1
                      AutoPadCase{"twoAxesHNotW", "SAME_UPPER", {7, 10}, {3, 3}, {2, 2}, {1, 1}, {1, 0, 1, 1}},
                      AutoPadCase{"twoAxesLower", "SAME_LOWER", {7, 10}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 0}},
                      AutoPadCase{"valid", "VALID", {7, 10}, {3, 3}, {1, 1}, {1, 1}, {0, 0, 0, 0}}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(AutoPads, RejectAnUnknownModeAndMismatchedLengths) {
  EXPECT_THROW(autoPads("SAME", {5}, {3}, {1}, {1}), Error);
  EXPECT_THROW(autoPads("SAME_UPPER", {5, 5}, {3}, {1, 1}, {1, 1}), Error);
}

/// x [1, 2, 7, 10] -> Conv (kernel from its weight) -> MaxPool (kernel_shape) -> Conv with NOTSET.
TEST(ResolveAutoPad, EveryNodeGetsExplicitPads) {
  Graph g;
  g.opset = 14;
  auto value = [&](const std::string& name, Shape shape, bool constant = false) {
    Value v;
    v.name = name;
    v.shape = std::move(shape);
    v.is_constant = constant;
    if (constant) v.data.assign(static_cast<size_t>(v.elements()) * 4, 0);
    return g.addValue(std::move(v));
  };
  auto node = [&](const std::string& name, const std::string& op, std::vector<int> in,
                  std::map<std::string, AttrValue> attrs, int out) {
    Node n;
    n.name = name;
    n.op = op;
    n.inputs = std::move(in);
    n.attrs = std::move(attrs);
    n.outputs = {out};
    g.addNode(std::move(n));
  };
  const int x = value("x", {1, 2, 7, 10});
  g.inputs = {x};
  const int c = value("c", {1, 4, 4, 5});
  node("conv", "Conv", {x, value("w", {4, 2, 3, 3}, true)},
       {{"auto_pad", std::string("SAME_LOWER")}, {"strides", Shape{2, 2}}}, c);
  const int m = value("m", {1, 4, 4, 5});
  node("pool", "MaxPool", {c}, {{"auto_pad", std::string("SAME_UPPER")}, {"kernel_shape", Shape{4, 2}}}, m);
  const int y = value("y", {1, 4, 4, 5});
  node("conv2", "Conv", {m, value("w2", {4, 4, 1, 1}, true)},
       {{"auto_pad", std::string("NOTSET")}, {"pads", Shape{0, 0, 0, 0}}}, y);
  g.outputs = {y};

  resolveAutoPad(g);
  for (const Node& n : g.nodes) EXPECT_FALSE(n.has("auto_pad")) << n.name;
  EXPECT_EQ(g.nodes[0].getInts("pads"), (Shape{1, 1, 1, 0}));  // H: total 2; W: total 1, at the beginning
  EXPECT_EQ(g.nodes[1].getInts("pads"), (Shape{1, 0, 2, 1}));  // H 4, k 4: total 3; W 5, k 2: total 1
  EXPECT_EQ(g.nodes[2].getInts("pads"), (Shape{0, 0, 0, 0}));  // NOTSET keeps `pads`
  g.verify();
}

TEST(ResolveAutoPad, AnUnknownInputSizeIsAnErrorNamingTheNode) {
  Graph g;
  Value x;
  x.name = "x";
  x.shape = {1, 2, -1, 10};
  g.inputs = {g.addValue(std::move(x))};
  Value y;
  y.name = "y";
  y.shape = {-1};
  Node n;
  n.name = "pool";
  n.op = "MaxPool";
  n.inputs = {g.inputs[0]};
  n.outputs = {g.addValue(std::move(y))};
  n.attrs = {{"auto_pad", std::string("SAME_UPPER")}, {"kernel_shape", Shape{3, 3}}};
  g.addNode(std::move(n));
  try {
    resolveAutoPad(g);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("node 'pool' (MaxPool): auto_pad SAME_UPPER needs the input's spatial sizes"),
              std::string::npos)
        << e.message();
  }
}

}  // namespace
}  // namespace systole::testing
