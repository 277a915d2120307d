// Changing the YAML changes the compiled program, with no code change: halving the scratchpad or
// narrowing an operand field forces smaller tiles (more of them), and the program stays bit-exact.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "checked_run.h"
#include "graph_builder.h"
#include "shipped_config.h"
#include "systole/compiler/backend.h"
#include "systole/compiler/quantize.h"
#include "systole/runtime/session.h"

namespace systole::testing {
namespace {

compiler::Graph model() {
  FloatGraphBuilder b(42);
  int x = b.input("image", {1, 8, 24, 24});
  x = b.conv(x, 24, 3, 1, 1, 1, true);
  x = b.addOp(x, b.conv(x, 24, 3, 1, 1, 1, false), true);
  x = b.maxPool(x, 3, 2, 1);
  x = b.gemm(b.flatten(b.globalAveragePool(x)), 10, false);
  compiler::Graph g = b.finish(x);
  compiler::quantize(g, compiler::makeRandomInputs(g, 4, 1));
  return g;
}

struct Outcome {
  int64_t chunk;
  size_t instructions;
};

Outcome compileAndCheck(const std::string& yaml, const compiler::Graph& g) {
  const isa::IsaConfig isa = isa::IsaConfig::parse(yaml, "changed.yaml");
  compiler::CompiledProgram compiled = compiler::lowerToProgram(g, isa);
  const Outcome o{compiled.chunk_rows, compiled.program.instructionCount()};
  runtime::Session session(isa, std::move(compiled), g);
  runtime::RunOptions options;
  options.check = true;
  const auto result = session.run(runtime::randomInputs(g, 3), options);
  EXPECT_FALSE(result.mismatch) << result.mismatch->describe();
  return o;
}

TEST(ConfigChange, HalvingTheScratchpadMakesMoreTiles) {
  const compiler::Graph g = model();
  const std::string base = defaultConfigText();
  // A scratchpad of 1 KiB rows x 16 bytes forces chunks far below the accumulator's limit.
  const std::string small =
      std::regex_replace(base, std::regex("scratchpad:  \\{size: 256KiB"), "scratchpad:  {size: 2KiB");
  ASSERT_NE(small, base);
  const Outcome before = compileAndCheck(base, g), after = compileAndCheck(small, g);
  EXPECT_LT(after.chunk, before.chunk);
  EXPECT_GT(after.instructions, before.instructions);
}

TEST(ConfigChange, NarrowingTheGemmRowsFieldMakesMoreTiles) {
  const compiler::Graph g = model();
  const std::string base = defaultConfigText();
  const std::string narrow = std::regex_replace(
      base, std::regex("\\{name: m, bits: \"bits_for\\(accumulator.rows\\)\"\\}"), "{name: m, bits: 5}");
  ASSERT_NE(narrow, base);
  const Outcome before = compileAndCheck(base, g), after = compileAndCheck(narrow, g);
  EXPECT_EQ(after.chunk, 31);  // the largest value a 5-bit field holds
  EXPECT_GT(after.instructions, before.instructions);
}

TEST(ConfigChange, ALongerLatencyChangesPredictedAndSimulatedCycles) {
  const compiler::Graph g = model();
  const std::string base = defaultConfigText();
  const std::string slow = std::regex_replace(base, std::regex("latency: 100\\}"), "latency: 400}");
  ASSERT_NE(slow, base);
  auto cycles = [&](const std::string& yaml) {
    const isa::IsaConfig isa = isa::IsaConfig::parse(yaml, "changed.yaml");
    compiler::CompiledProgram compiled = compiler::lowerToProgram(g, isa);
    int64_t predicted = 0;
    for (const auto& l : compiled.layers) predicted += l.predicted_cycles;
    runtime::Session session(isa, std::move(compiled), g);
    return std::pair{predicted, session.run(runtime::randomInputs(g, 3)).sim.stats.cycles};
  };
  const auto [predictedFast, simulatedFast] = cycles(base);
  const auto [predictedSlow, simulatedSlow] = cycles(slow);
  EXPECT_GT(predictedSlow, predictedFast);
  EXPECT_GT(simulatedSlow, simulatedFast);
}

// Taking the compute `timing.issue` and the second weight set out of default.yaml gives more
// predicted and simulated cycles, and the result stays bit-exact either way. (The programs may
// differ: the tiler chooses strided forms and output-channel blocks by predicted cycles.)
TEST(ConfigChange, PipelinedComputeAndWeightBuffersCostCycles) {
  const compiler::Graph g = model();
  const std::string base = defaultConfigText();
  std::string serial = std::regex_replace(base, std::regex(", weight_buffers: 2\\}"), "}");
  serial = std::regex_replace(serial, std::regex(", issue: \"(m|rows)\"\\}"), "}");
  ASSERT_NE(serial, base);
  struct Run {
    int64_t predicted = 0;
    uint64_t simulated = 0;
  };
  auto run = [&](const std::string& yaml) {
    const isa::IsaConfig isa = isa::IsaConfig::parse(yaml, "changed.yaml");
    compiler::CompiledProgram compiled = compiler::lowerToProgram(g, isa);
    Run r;
    for (const auto& l : compiled.layers) r.predicted += l.predicted_cycles;
    r.simulated = simulateChecked(isa, std::move(compiled), g);
    return r;
  };
  const Run pipelined = run(base), plain = run(serial);
  EXPECT_LT(pipelined.predicted, plain.predicted);
  EXPECT_LT(pipelined.simulated, plain.simulated);
}

}  // namespace
}  // namespace systole::testing

namespace systole::testing {
namespace {

TEST(ConfigChange, DroppingAnInstructionMovesItsOperatorsToTheHost) {
  const compiler::Graph g = model();
  const std::string base = defaultConfigText();
  // Remove the vmax instruction (semantics vector_max): the NPU can no longer max-pool.
  const std::string noMax = std::regex_replace(base, std::regex("  - name: vmax\\n(    .*\\n)+?(?=  - name:)"), "");
  ASSERT_EQ(noMax.find("vector_max"), std::string::npos);
  const isa::IsaConfig isa = isa::IsaConfig::parse(noMax, "no-max.yaml");
  compiler::CompiledModel compiled = compiler::compileModel(g, isa);
  EXPECT_EQ(compiled.programCount(), 2u) << "the max pool splits the NPU part in two";
  bool hostMaxPool = false;
  for (const auto& item : compiled.schedule)
    hostMaxPool |= !item.npu && g.nodes[static_cast<size_t>(item.host_node)].op == "MaxPool";
  EXPECT_TRUE(hostMaxPool);
  runtime::Session session(isa, std::move(compiled), g);
  runtime::RunOptions options;
  options.check = true;
  const auto result = session.run(runtime::randomInputs(g, 3), options);
  EXPECT_FALSE(result.mismatch) << result.mismatch->describe();
  EXPECT_EQ(result.programs, 2u);
}

TEST(ConfigChange, SmallSubgraphsStayOnTheHostBelowTheThreshold) {
  const compiler::Graph g = model();
  const isa::IsaConfig isa = isa::IsaConfig::parse(defaultConfigText(), "default.yaml");
  compiler::LowerOptions options;
  EXPECT_EQ(compiler::compileModel(g, isa, options).programCount(), 1u);
  options.min_npu_macs = int64_t{1} << 40;
  const compiler::CompiledModel host = compiler::compileModel(g, isa, options);
  EXPECT_EQ(host.programCount(), 0u);
  runtime::Session session(isa, host, g);
  runtime::RunOptions run;
  run.check = true;
  const auto result = session.run(runtime::randomInputs(g, 3), run);
  EXPECT_EQ(result.programs, 0u);
  EXPECT_FALSE(result.outputs.empty());
}

}  // namespace
}  // namespace systole::testing

namespace systole::testing {
namespace {

// A graph quantized for int8 lanes, lowered for a config of int16 lanes (a cached graph with an
// edited YAML): no operator reads its int8 tensors on the NPU, so each runs on the host and says
// why, and the run still computes the graph.
TEST(ConfigChange, AnInt8GraphRunsOnTheHostOfAnInt16Config) {
  FloatGraphBuilder b(7);
  int x = b.input("image", {1, 8, 6, 6});
  x = b.conv(x, 8, 3, 1, 1, 1, true);
  x = b.addOp(x, b.constant({1, 8, 6, 6}, 1.0f), false);
  compiler::Graph g = b.finish(x);
  compiler::quantize(g, compiler::makeRandomInputs(g, 4, 1));
  const std::string base = defaultConfigText();
  const std::string wide = std::regex_replace(base, std::regex("activation: int8"), "activation: int16");
  ASSERT_NE(wide, base);
  const isa::IsaConfig isa = isa::IsaConfig::parse(wide, "default-int16.yaml");
  const compiler::CompiledModel compiled = compiler::compileModel(g, isa);
  EXPECT_EQ(compiled.programCount(), 0u);
  int refused = 0;
  for (const auto& item : compiled.schedule)
    refused += item.host_reason.find("not a quantized int16 tensor") != std::string::npos;
  EXPECT_EQ(refused, 2) << "the Conv and the Add";
  runtime::Session session(isa, compiled, g);
  EXPECT_FALSE(session.run(runtime::randomInputs(g, 3), {}).outputs.empty());
}

}  // namespace
}  // namespace systole::testing
