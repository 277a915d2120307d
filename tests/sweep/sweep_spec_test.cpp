#include "sweep_spec.h"

#include <gtest/gtest.h>

#include "systole/isa/diagnostic.h"

namespace systole::tools {
namespace {

const char* const kSpec = R"(isa: default
models: [a/net.onnx, {path: /abs/mlp.onnx, calib: samples}]
grid:
  array: [{array.rows: 8, array.cols: 8}, {array.rows: 16, array.cols: 16}]
  memories.dram.bytes_per_cycle: [8, 16, 32]
options: [--timing-only]
)";

TEST(SweepSpec, GridIsTheProductInRowMajorOrder) {
  const SweepSpec s = parseSweepSpec(kSpec, "/specs/sweep.yaml");
  EXPECT_EQ(s.isa, "default");
  ASSERT_EQ(s.models.size(), 2u);
  EXPECT_EQ(s.models[0].path, "/specs/a/net.onnx");
  EXPECT_EQ(s.models[0].name, "net");
  EXPECT_EQ(s.models[1].path, "/abs/mlp.onnx");
  EXPECT_EQ(s.models[1].calib, "/specs/samples");
  EXPECT_EQ(s.dimensions, (std::vector<std::string>{"array", "memories.dram.bytes_per_cycle"}));
  ASSERT_EQ(s.points.size(), 6u);
  EXPECT_EQ(s.grid_size, 6u);
  EXPECT_EQ(s.runCount(), 12u);
  // The last dimension varies fastest; a linked value sets every key it names.
  const SweepPoint& p = s.points[4];
  EXPECT_EQ(p.id, 4u);
  EXPECT_EQ(p.values, (std::vector<std::string>{"16x16", "16"}));
  const std::vector<std::pair<std::string, std::string>> want = {
      {"array.rows", "16"}, {"array.cols", "16"}, {"memories.dram.bytes_per_cycle", "16"}};
  EXPECT_EQ(p.overrides, want);
  EXPECT_EQ(s.options, (std::vector<std::string>{"--timing-only"}));
}

TEST(SweepSpec, SampleIsSeededDistinctAndInGridOrder) {
  const std::string base =
      "isa: tiny\nmodels: [m.onnx]\ngrid:\n  a.b: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n  c.d: [1, 2, 3, 4, 5]\n";
  const SweepSpec one = parseSweepSpec(base + "sample: {count: 7, seed: 3}\n", "s.yaml");
  const SweepSpec again = parseSweepSpec(base + "sample: {count: 7, seed: 3}\n", "s.yaml");
  const SweepSpec other = parseSweepSpec(base + "sample: {count: 7, seed: 4}\n", "s.yaml");
  ASSERT_EQ(one.points.size(), 7u);
  EXPECT_EQ(one.grid_size, 50u);
  std::vector<size_t> ids, idsAgain, idsOther;
  for (const auto& p : one.points) ids.push_back(p.id);
  for (const auto& p : again.points) idsAgain.push_back(p.id);
  for (const auto& p : other.points) idsOther.push_back(p.id);
  EXPECT_EQ(ids, idsAgain);
  EXPECT_NE(ids, idsOther);
  EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end()));
  EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end());
  // A point keeps its values whether sampled or not: id 23 is a.b's 5th value, c.d's 4th.
  const SweepSpec all = parseSweepSpec(base, "s.yaml");
  for (const auto& p : one.points) EXPECT_EQ(p.values, all.points[p.id].values);
  EXPECT_EQ(all.points[23].values, (std::vector<std::string>{"5", "4"}));
  // More than the grid: every point.
  EXPECT_EQ(parseSweepSpec(base + "sample: {count: 500}\n", "s.yaml").points.size(), 50u);
}

std::string errorOf(const std::string& text) {
  try {
    parseSweepSpec(text, "s.yaml");
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(SweepSpec, ErrorsPointAtTheSpec) {
  EXPECT_EQ(errorOf("isa: tiny\nmodels: [m.onnx]\ngrid:\n  a.b: []\n"),
            "s.yaml:4:8: error: grid.a.b must be a non-empty list of values");
  EXPECT_EQ(errorOf("isa: tiny\nmodels: [m.onnx]\ngird: {a: [1]}\n"),
            "s.yaml:3:1: error: unknown key 'gird' (expected: isa, models, grid, sample, options)");
  EXPECT_EQ(errorOf("isa: tiny\nmodels: [x/m.onnx, y/m.onnx]\ngrid: {a: [1]}\n"),
            "s.yaml:2:20: error: two models are called 'm' (result files are named by the model's file name)");
  EXPECT_EQ(errorOf("isa: tiny\nmodels: [m.onnx]\n"), "s.yaml:1:1: error: the spec needs a grid");
  EXPECT_EQ(errorOf("isa: tiny\nmodels: [m.onnx]\ngrid: {a: [1]}\nsample: {count: 0}\n"),
            "s.yaml:4:9: error: sample needs a count of at least 1");
  EXPECT_EQ(errorOf("isa: [tiny\n").substr(0, 14), "s.yaml:2:1: er");
}

}  // namespace
}  // namespace systole::tools
