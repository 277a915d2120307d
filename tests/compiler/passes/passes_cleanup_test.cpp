// The clean-up passes (remove-identity, dce, cse, fold-constants, fold-batchnorm,
// batchnorm-to-conv) on small hand-built graphs: the rewrite happens (or, where a precondition
// fails, does not), the graph stays valid, output names survive, and the optimized graph computes
// what the original did.
#include <gtest/gtest.h>

#include "passes/pass_test_util.h"

namespace systole::testing {
namespace {

// ---- remove-identity, dce, cse -----------------------------------------------------------------

TEST(RemoveIdentity, IdentityAndDropoutVanishOutputNamesStay) {
  Builder b;
  const int x = b.input("x", {2, 3});
  const int i1 = b.op("Identity", {x});
  const int r = b.op("Relu", {i1});
  const int d = b.op("Dropout", {r}, {{"ratio", 0.5}});
  const int y = b.op("Identity", {d}, {}, "y");
  b.output(y);
  const Graph before = b.done();
  const Graph after = optimized(before, {"infer-shapes", "remove-identity"});
  EXPECT_EQ(opCounts(after), (std::map<std::string, int>{{"Relu", 1}}));
  EXPECT_EQ(after.values[static_cast<size_t>(after.outputs[0])].name, "y");
  expectSameResults(before, after);
}

TEST(RemoveIdentity, InputToOutputIdentityStays) {
  Builder b;
  const int x = b.input("x", {2});
  b.output(b.op("Identity", {x}, {}, "y"));
  const Graph after = optimized(b.done());
  EXPECT_EQ(opCounts(after), (std::map<std::string, int>{{"Identity", 1}}));
}

TEST(DeadCode, UnusedBranchesGo) {
  Builder b;
  const int x = b.input("x", {4});
  b.op("Sigmoid", {b.op("Exp", {x})});  // nobody reads it
  b.output(b.op("Relu", {x}, {}, "y"));
  const Graph after = optimized(b.done(), {"dce"});
  EXPECT_EQ(opCounts(after), (std::map<std::string, int>{{"Relu", 1}}));
}

TEST(CommonSubexpressions, DuplicateNodesAndConstantsMerge) {
  Builder b;
  const int x = b.input("x", {2, 3});
  const int c1 = b.scalar(0.5f), c2 = b.scalar(0.5f);
  const int m1 = b.op("Mul", {x, c1});
  const int m2 = b.op("Mul", {x, c2});  // same once the constants merge
  const int r1 = b.op("Relu", {m1});
  const int r2 = b.op("Relu", {m2});
  b.output(b.op("Sub", {r1, r2}, {}, "y"));
  const Graph before = b.done();
  const Graph after = optimized(before, {"cse", "dce"});
  EXPECT_EQ(opCounts(after), (std::map<std::string, int>{{"Mul", 1}, {"Relu", 1}, {"Sub", 1}}));
  expectSameResults(before, after);
}

TEST(CommonSubexpressions, DifferentAttributesStayApart) {
  Builder b;
  const int x = b.input("x", {2, 3});
  const int a = b.op("LeakyRelu", {x}, {{"alpha", 0.1}});
  const int c = b.op("LeakyRelu", {x}, {{"alpha", 0.2}});
  b.output(b.op("Add", {a, c}, {}, "y"));
  EXPECT_EQ(opCounts(optimized(b.done(), {"cse", "dce"})).at("LeakyRelu"), 2);
}

// ---- fold-constants ----------------------------------------------------------------------------

TEST(ConstantFolding, ShapeGatherUnsqueezeConcatChainFeedsReshape) {
  // What torch exports for x.reshape(x.size(0), -1).
  Builder b;
  const int x = b.input("x", {2, 3, 4});
  const int shape = b.op("Shape", {x});
  const int dim0 = b.op("Gather", {shape, b.constantFrom(intTensor({}, {0}))}, {{"axis", int64_t{0}}});
  const int un = b.op("Unsqueeze", {dim0, b.ints({0})});
  const int cat = b.op("Concat", {un, b.ints({-1})}, {{"axis", int64_t{0}}});
  b.output(b.op("Reshape", {x, cat}, {}, "y"));
  Graph g = b.g;
  compiler::inferShapes(g);  // Reshape's shape is not known yet
  EXPECT_FALSE(compiler::hasStaticShape(g.values[static_cast<size_t>(g.outputs[0])]));
  const Graph after = optimized(b.g);
  EXPECT_EQ(opCounts(after), (std::map<std::string, int>{{"Reshape", 1}}));
  const Value& y = after.values[static_cast<size_t>(after.outputs[0])];
  EXPECT_EQ(y.shape, (Shape{2, 12}));
  const Node& reshape = onlyNode(after, "Reshape");
  const Value& target = after.values[static_cast<size_t>(reshape.inputs[1])];
  ASSERT_TRUE(target.is_constant);
  EXPECT_EQ(std::vector<int64_t>(target.as<int64_t>(), target.as<int64_t>() + 2), (Shape{2, -1}));
  const HostTensor in = randomTensor({2, 3, 4}, 1);
  const auto out = compiler::interpret(after, {{"x", in}});
  EXPECT_EQ(values(out.at("y")), values(in));
}

TEST(ConstantFolding, WeightOnlyComputationsFold) {
  Builder b;
  const int x = b.input("x", {3, 4});
  const int w = b.op("Transpose", {b.constant({5, 4}, 2)}, {{"perm", Shape{1, 0}}});
  const int scaled = b.op("Mul", {w, b.scalar(2.f)});
  b.output(b.op("MatMul", {x, scaled}, {}, "y"));
  const Graph before = b.done();
  const Graph after = optimized(before);
  EXPECT_EQ(opCounts(after), (std::map<std::string, int>{{"MatMul", 1}}));
  expectSameResults(before, after);
}

// ---- fold-batchnorm ----------------------------------------------------------------------------

int batchNorm(Builder& b, int x, int64_t c, uint64_t seed) {
  return b.op("BatchNormalization",
              {x, b.constant({c}, seed, 0.5f, 1.5f), b.constant({c}, seed + 1), b.constant({c}, seed + 2),
               b.constant({c}, seed + 3, 0.2f, 2.f)},
              {{"epsilon", 1e-3}});
}

TEST(FoldBatchNorm, IntoConvWithAndWithoutBiasAndGroups) {
  for (int withBias = 0; withBias < 2; ++withBias)
    for (int64_t group : {1, 4}) {
      Builder b;
      const int x = b.input("x", {1, 4, 6, 6});
      std::vector<int> in = {x, b.constant({8, 4 / group, 3, 3}, 10)};
      if (withBias) in.push_back(b.constant({8}, 11));
      const int conv = b.op("Conv", in, {{"pads", Shape{1, 1, 1, 1}}, {"group", group}});
      b.output(batchNorm(b, conv, 8, 20));
      const Graph before = b.done();
      const Graph after = optimized(before);
      EXPECT_EQ(opCounts(after), (std::map<std::string, int>{{"Conv", 1}})) << withBias << group;
      expectSameResults(before, after);
    }
}

TEST(FoldBatchNorm, IntoGemmBothLayoutsAndCForms) {
  for (int transB = 0; transB < 2; ++transB)
    for (int cForm = 0; cForm < 3; ++cForm) {
      Builder b;
      const int x = b.input("x", {3, 5});
      std::vector<int> in = {x, b.constant(transB ? Shape{6, 5} : Shape{5, 6}, 30)};
      if (cForm == 1) in.push_back(b.constant({6}, 31));
      if (cForm == 2) in.push_back(b.constant({1}, 32));
      const int gemm = b.op("Gemm", in, {{"transB", int64_t{transB}}, {"beta", 0.5}});
      b.output(batchNorm(b, gemm, 6, 40));
      const Graph before = b.done();
      const Graph after = optimized(before);
      EXPECT_EQ(opCounts(after), (std::map<std::string, int>{{"Gemm", 1}}));
      expectSameResults(before, after);
    }
}

TEST(FoldBatchNorm, SharedConvOutputIsNotFolded) {
  Builder b;
  const int x = b.input("x", {1, 2, 4, 4});
  const int conv = b.op("Conv", {x, b.constant({2, 2, 1, 1}, 50)});
  const int bn = batchNorm(b, conv, 2, 60);
  b.output(b.op("Add", {bn, conv}, {}, "y"));
  const Graph before = b.done();
  const Graph after = optimized(before);
  // Not folded into the shared Conv: the BN stays its own operator, as a depthwise 1x1 Conv.
  EXPECT_EQ(opCounts(after).count("BatchNormalization"), 0u);
  EXPECT_EQ(opCounts(after).at("Conv"), 2u);
  expectSameResults(before, after);
}

TEST(BatchNormToConv, UnfoldableBatchNormBecomesDepthwiseConv) {
  Builder b;
  const int x = b.input("x", {1, 3, 4, 4});
  b.output(batchNorm(b, x, 3, 70));  // nothing to fold into: it reads the graph input
  const Graph before = b.done();
  Graph after = before;
  runPasses(after, {"infer-shapes", "batchnorm-to-conv"});
  ASSERT_EQ(opCounts(after).count("Conv"), 1u);
  for (const Node& n : after.nodes) {
    if (n.op == "Conv") {
      EXPECT_EQ(n.getInt("group", 1), 3);
    }
  }
  expectSameResults(before, after);
}

}  // namespace
}  // namespace systole::testing
