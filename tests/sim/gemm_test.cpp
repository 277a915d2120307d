// Tiled GEMMs larger than the array on every shipped config: exact outputs against a plain C++
// reference, double buffering against serialized execution, determinism, and timing-only mode.
#include <gtest/gtest.h>

#include "gemm_program.h"
#include "sim_test_util.h"

namespace systole::testing {
namespace {

class GemmOnConfig : public ::testing::TestWithParam<std::string> {};

sim::SimResult runGemm(const isa::IsaConfig& isa, const GemmSpec& spec, uint32_t seed, sim::SimOptions options = {}) {
  const auto A = randomInt8(static_cast<size_t>(spec.M * spec.K), seed);
  const auto B = randomInt8(static_cast<size_t>(spec.K * spec.N), seed + 1);
  sim::Simulator simulator(isa);
  return simulator.run(buildGemmProgram(isa, spec, B), {{"A", bytesOf(A)}}, options);
}

TEST_P(GemmOnConfig, ManyTilesMatchReferenceExactly) {
  const auto& isa = shippedConfig(GetParam());
  const auto& p = isa.params();
  // Not multiples of the array: ragged tiles in every dimension.
  GemmSpec spec{.M = 3 * p.array_rows + 5, .K = 2 * p.array_rows + 3, .N = 2 * p.array_cols + 7};
  spec.zero_point = -3;
  const auto A = randomInt8(static_cast<size_t>(spec.M * spec.K), 7);
  const auto B = randomInt8(static_cast<size_t>(spec.K * spec.N), 8);
  sim::Simulator simulator(isa);
  sim::SimOptions options;
  options.poison = true;  // every row the program reads was written first
  const auto result = simulator.run(buildGemmProgram(isa, spec, B), {{"A", bytesOf(A)}}, options);
  ASSERT_EQ(result.outputs.size(), 1u);
  const auto got = int8Of(result.outputs[0].bytes);
  const auto want = referenceGemm(spec, A, B);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_EQ(got[i], want[i]) << "C[" << i / static_cast<size_t>(spec.N) << "][" << i % static_cast<size_t>(spec.N)
                               << "]";
  const auto tiling = planGemm(isa, spec);
  EXPECT_GT(tiling.n_tiles * tiling.k_tiles * tiling.m_chunks, 4) << "the test should need many tiles";
  EXPECT_EQ(result.stats.macs,
            static_cast<uint64_t>(tiling.n_tiles * tiling.k_tiles * spec.M * p.array_rows * p.array_cols));
}

TEST_P(GemmOnConfig, DoubleBufferingOverlapsLoadsWithCompute) {
  const auto& isa = shippedConfig(GetParam());
  const auto& p = isa.params();
  GemmSpec spec{.M = 4 * p.array_rows, .K = 4 * p.array_rows, .N = 2 * p.array_cols};
  spec.buffers = 1;
  const auto serial = runGemm(isa, spec, 3).stats;
  spec.buffers = 2;
  const auto overlapped = runGemm(isa, spec, 3).stats;
  EXPECT_LT(overlapped.cycles, serial.cycles) << "double buffering must save cycles";
  // Same work: same MACs and DMA traffic; the saving is time the compute queue no longer waits.
  EXPECT_EQ(overlapped.macs, serial.macs);
  EXPECT_EQ(overlapped.dram_bytes_read, serial.dram_bytes_read);
  const auto computeTokenWait = [](const sim::Stats& s) {
    return s.stall_cycles[static_cast<size_t>(isa::Unit::Compute)][static_cast<size_t>(sim::StallCause::Token)];
  };
  EXPECT_LT(computeTokenWait(overlapped), computeTokenWait(serial));
}

TEST_P(GemmOnConfig, SameProgramTwiceIsIdentical) {
  const auto& isa = shippedConfig(GetParam());
  const auto& p = isa.params();
  GemmSpec spec{.M = 2 * p.array_rows + 1, .K = 3 * p.array_rows, .N = p.array_cols + 1};
  sim::SimOptions options;
  options.trace = true;
  const auto first = runGemm(isa, spec, 11, options);
  const auto second = runGemm(isa, spec, 11, options);
  EXPECT_EQ(first.stats.toJson(), second.stats.toJson());
  EXPECT_EQ(first.trace_json, second.trace_json);
  ASSERT_EQ(first.outputs.size(), second.outputs.size());
  EXPECT_EQ(first.outputs[0].bytes, second.outputs[0].bytes);
}

TEST_P(GemmOnConfig, TimingOnlyGivesTheSameCyclesAndStats) {
  const auto& isa = shippedConfig(GetParam());
  const auto& p = isa.params();
  for (int buffers : {1, 2}) {
    GemmSpec spec{.M = 3 * p.array_rows, .K = 2 * p.array_rows + 1, .N = 3 * p.array_cols};
    spec.buffers = buffers;
    const auto full = runGemm(isa, spec, 5);
    sim::SimOptions timingOnly;
    timingOnly.timing_only = true;
    const auto fast = runGemm(isa, spec, 5, timingOnly);
    EXPECT_EQ(fast.stats.toJson(), full.stats.toJson());
    EXPECT_TRUE(fast.outputs.empty());
  }
}

INSTANTIATE_TEST_SUITE_P(ShippedConfigs, GemmOnConfig, ::testing::ValuesIn(shippedConfigs()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace systole::testing
