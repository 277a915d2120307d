// matmul_stream (docs/isa-semantics.md) on os16, the shipped config that has it: the functional
// model against a plain reference and against k_slices preloaded matmul_tiles, its timing against
// the YAML expression written out by hand, its bank conflicts against a cycle-by-cycle count, and,
// with an `issue` expression, back-to-back streams into one tile overlapping while a dependent
// requantize waits (the scoreboard the compiler's cost model shares).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "sim_test_util.h"
#include "systole/isa/builder.h"
#include "systole/isa/file_io.h"
#include "systole/isa/pipeline.h"
#include "systole/sim/functional.h"
#include "systole/sim/memory.h"

namespace systole::testing {
namespace {

using isa::Semantics;

const isa::IsaConfig& os16() { return shippedConfig("os16"); }

struct Case {
  int64_t a_row, a_stride, w_row, acc_row, m, slices;
};

TEST(MatmulStream, EqualsThePlainSumAndPreloadedMatmulTiles) {
  const auto& isa = os16();
  const auto& p = isa.params();
  const int64_t R = p.array_rows, N = p.array_cols;
  const auto& stream = isa.instr(isa.bySemantics(Semantics::MatmulStream));
  const auto& tile = isa.instr(isa.bySemantics(Semantics::MatmulTile));
  const auto& preload = isa.instr(isa.bySemantics(Semantics::WeightPreload));
  // Strides below m (slices share rows), 0 (one activation block for every slice), ragged m.
  const std::vector<Case> cases = {{0, 16, 100, 0, 16, 1},    {5, 7, 300, 33, 11, 5},       {40, 3, 900, 7, 5, 9},
                                   {64, 0, 2000, 100, 16, 2}, {1000, 16, 3000, 900, 1, 40}, {17, 19, 4001, 500, 16, 0}};
  for (const Case& c : cases)
    for (int64_t accumulate : {0, 1}) {
      SCOPED_TRACE("case a_row " + std::to_string(c.a_row) + " slices " + std::to_string(c.slices) + " accumulate " +
                   std::to_string(accumulate));
      sim::MachineState got(p), tiles(p);
      fillRandomState(got, 7);
      fillRandomState(tiles, 7);
      // The array's preloaded weights are neither read nor changed by a stream.
      sim::executeCompute(p, preload, makeInstruction(isa, Semantics::WeightPreload, {8000}), got, true);
      const std::vector<int8_t> before(got.weights.plain(), got.weights.plain() + R * N);
      // The plain sum, modulo 2^32, of the state before.
      std::vector<uint32_t> want(static_cast<size_t>(c.m * N));
      for (int64_t i = 0; i < c.m; ++i)
        for (int64_t n = 0; n < N; ++n) {
          uint32_t v = accumulate ? static_cast<uint32_t>(got.acc.row(c.acc_row + i)[n]) : 0;
          for (int64_t s = 0; s < c.slices; ++s)
            for (int64_t k = 0; k < R; ++k)
              v += static_cast<uint32_t>(int32_t{got.spad.row(c.a_row + s * c.a_stride + i)[k]} *
                                         int32_t{got.spad.row(c.w_row + s * R + k)[n]});
          want[static_cast<size_t>(i * N + n)] = v;
        }
      sim::executeCompute(p, stream,
                          makeInstruction(isa, Semantics::MatmulStream,
                                          {c.a_row, c.a_stride, c.w_row, c.acc_row, c.m, c.slices, accumulate}),
                          got, true);
      for (int64_t i = 0; i < c.m; ++i)
        for (int64_t n = 0; n < N; ++n)
          ASSERT_EQ(static_cast<uint32_t>(got.acc.row(c.acc_row + i)[n]), want[static_cast<size_t>(i * N + n)])
              << "row " << i << " lane " << n;
      EXPECT_EQ(std::vector<int8_t>(got.weights.plain(), got.weights.plain() + R * N), before);
      if (c.slices == 0) continue;
      // The same as k_slices matmul_tiles, each after a preload of its slice's weights.
      for (int64_t s = 0; s < c.slices; ++s) {
        sim::executeCompute(p, preload, makeInstruction(isa, Semantics::WeightPreload, {c.w_row + s * R}), tiles, true);
        sim::executeCompute(p, tile,
                            makeInstruction(isa, Semantics::MatmulTile,
                                            {c.a_row + s * c.a_stride, c.acc_row, c.m, s > 0 || accumulate}),
                            tiles, true);
      }
      for (int64_t i = 0; i < c.m; ++i)
        for (int64_t n = 0; n < N; ++n) ASSERT_EQ(got.acc.row(c.acc_row + i)[n], tiles.acc.row(c.acc_row + i)[n]);
    }
}

TEST(MatmulStream, RowsOutOfRangeAreAFault) {
  const auto& isa = os16();
  const auto& p = isa.params();
  const auto& stream = isa.instr(isa.bySemantics(Semantics::MatmulStream));
  sim::MachineState m(p);
  // The last slice's activation rows run past the scratchpad; slice 0's do not.
  const int64_t last = p.spad_rows - 16;
  EXPECT_THROW(sim::executeCompute(p, stream, makeInstruction(isa, Semantics::MatmulStream, {last, 8, 0, 0, 16, 2, 0}),
                                   m, false),
               sim::FaultCause);
  EXPECT_THROW(sim::executeCompute(p, stream, makeInstruction(isa, Semantics::MatmulStream, {0, 16, last, 0, 16, 2, 0}),
                                   m, false),
               sim::FaultCause);
  EXPECT_NO_THROW(sim::executeCompute(
      p, stream, makeInstruction(isa, Semantics::MatmulStream, {last, 8, last - 16, 0, 16, 1, 0}), m, false));
  // Poison mode: a never-written weight row.
  EXPECT_THROW(
      sim::executeCompute(p, stream, makeInstruction(isa, Semantics::MatmulStream, {0, 16, 32, 0, 16, 1, 0}), m, true),
      sim::FaultCause);
}

sim::SimResult run(const isa::IsaConfig& isa, isa::ProgramBuilder& b) {
  sim::Simulator simulator(isa);
  sim::SimOptions options;
  options.timeline = true;
  return simulator.runDecoded(b.instructions(), b.data(), options);
}

uint64_t u64(int64_t v) { return static_cast<uint64_t>(v); }

// os16.yaml: cycles = k_slices * array.rows + m + array.cols - 2 (SCALE-Sim's
// output-stationary fold with T = k_slices * array.rows for m = array.rows; the RTL's row m - 1
// completes then), no issue: the unit is busy for all of it.
TEST(MatmulStream, TimingIsTheYamlExpression) {
  const auto& isa = os16();
  const auto& p = isa.params();
  const int64_t R = p.array_rows, N = p.array_cols;
  for (int64_t k : {1, 4, 37}) {
    SCOPED_TRACE("k_slices " + std::to_string(k));
    isa::ProgramBuilder b(isa);
    b.emit(Semantics::MatmulStream, {0, R, 4096 + 1, 0, 9, k, 0});  // a_row - w_row = -1 (mod 4): no bank conflict
    b.emit(Semantics::Finish, {});
    const auto r = run(isa, b);
    EXPECT_EQ(r.stats.cycles, u64(k * R + 9 + N - 2 + 1));
    EXPECT_EQ(r.stats.busy_cycles[static_cast<size_t>(sim::Resource::Array)], u64(k * R + 9 + N - 2));
    EXPECT_EQ(r.stats.macs, u64(9 * k * R * N));
    EXPECT_EQ(r.stats.spad_bytes_read, u64(k * (9 * R + R * N)));  // per slice 9 activation rows and R weight rows
    EXPECT_EQ(r.stats.acc_bytes_written, u64(9 * p.acc_row_bytes));
    EXPECT_EQ(r.stats.acc_bytes_read, 0u);
  }
}

// Two scratchpad rows per cycle: slice s's activation row a_row + s * a_stride + j beside weight
// row w_row + s * array.rows + j, j < m; each pair in one bank costs conflict_cycles.
TEST(MatmulStream, BankConflictsMatchACycleByCycleCount) {
  const auto& isa = os16();
  const auto& p = isa.params();
  const auto& d = isa.instr(isa.bySemantics(Semantics::MatmulStream));
  int64_t conflicting = 0;
  for (int64_t a = 0; a < 6; ++a)
    for (int64_t w = 100; w < 106; ++w)
      for (int64_t stride : {0, 1, 13, 16, 18, 19})
        for (int64_t k : {0, 1, 2, 5, 9})
          for (int64_t m : {1, 7, 16}) {
            int64_t want = 0;
            for (int64_t s = 0; s < k; ++s)
              for (int64_t j = 0; j < m; ++j)
                if ((a + s * stride + j) % p.spad_banks == (w + s * p.array_rows + j) % p.spad_banks)
                  want += p.spad_conflict_cycles;
            EXPECT_EQ(isa::bankConflictCycles(
                          p, d, makeInstruction(isa, Semantics::MatmulStream, {a, stride, w, 0, m, k, 0})),
                      want)
                << a << " " << stride << " " << w << " " << k << " " << m;
            conflicting += want > 0;
          }
  EXPECT_GT(conflicting, 100) << "the cases should include conflicts";
}

// With `issue: "k_slices * array.rows"` (its rows stream in; fill and drain overlap the next), three
// streams accumulating into one tile start kR apart (one array pipeline: no accumulator hazard)
// and a requantize of the tile waits for the last one's completion.
TEST(MatmulStream, IssueOverlapsBackToBackStreams) {
  std::string text = readTextFile(std::string(SYSTOLE_SOURCE_DIR) + "/isa/configs/os16.yaml");
  const std::string from = "timing: {cycles: \"k_slices * array.rows + m + array.cols - 2\"}";
  const auto at = text.find(from);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, from.size(),
               "timing: {cycles: \"k_slices * array.rows + m + array.cols - 2\", issue: \"k_slices * array.rows\"}");
  const auto isa = isa::IsaConfig::parse(text, "os16-issue.yaml");
  const auto& p = isa.params();
  const int64_t R = p.array_rows, D = 16 + p.array_cols - 2, k = 3, VL = p.vector_latency;  // m = 16
  isa::ProgramBuilder b(isa);
  for (int64_t i = 0; i < 3; ++i) b.emit(Semantics::MatmulStream, {0, R, 1001, 0, 16, k, i > 0});
  b.emit(Semantics::Requantize, {0, 2000, 16, 100, 0, -128, 127});
  b.emit(Semantics::Finish, {});
  const auto r = run(isa, b);
  std::vector<uint64_t> starts;
  for (const auto& s : r.timeline) starts.push_back(s.start);
  ASSERT_EQ(starts.size(), 5u);
  EXPECT_EQ(starts[0], 0u);
  EXPECT_EQ(starts[1], u64(k * R));
  EXPECT_EQ(starts[2], u64(2 * k * R));
  EXPECT_EQ(starts[3], u64(3 * k * R + D));  // the requantize waits for the drain of the last stream
  EXPECT_EQ(r.stats.cycles, u64(3 * k * R + D + VL + 16 + 1));
  // The compiler's cost model runs the same scoreboard.
  EXPECT_EQ(isa::computeSpan(isa, b.instructions().data(), b.instructions().data() + b.instructions().size()),
            static_cast<int64_t>(r.stats.cycles));
}

}  // namespace
}  // namespace systole::testing
