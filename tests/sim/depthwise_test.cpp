// depthwise_tile (docs/isa-semantics.md) on default, the shipped config that has it: the functional
// model against the plain sum and against kh*kw accumulating matmul_tiles of diagonal weight
// tiles, its faults, and its timing against the YAML expression written out by hand.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "sim_test_util.h"
#include "systole/isa/builder.h"
#include "systole/isa/row_footprint.h"
#include "systole/sim/functional.h"
#include "systole/sim/memory.h"
#include "systole/isa/diagnostic.h"
#include "systole/sim/simulator.h"

namespace systole::testing {
namespace {

using isa::Semantics;

const isa::IsaConfig& withDepthwise() { return shippedConfig("default"); }

struct Case {
  int64_t a_row, acc_row, m, kh, kw, pitch, stride;
};

TEST(DepthwiseTile, EqualsThePlainSumAndDiagonalMatmulTiles) {
  const auto& isa = withDepthwise();
  const auto& p = isa.params();
  const int64_t R = p.array_rows, N = p.array_cols;
  const auto& dw = isa.instr(isa.bySemantics(Semantics::DepthwiseTile));
  const auto& tile = isa.instr(isa.bySemantics(Semantics::MatmulTile));
  const auto& preload = isa.instr(isa.bySemantics(Semantics::WeightPreload));
  // 3x3 at strides 1 and 2, a 5-wide row pass, 1x1, a full array of taps (4x4), pitch 0.
  const std::vector<Case> cases = {{0, 0, 40, 3, 3, 20, 1},     {100, 7, 33, 3, 3, 58, 2}, {7, 300, 60, 3, 5, 64, 1},
                                   {9, 2, 16, 1, 1, 0, 1},      {50, 40, 25, 4, 4, 30, 3}, {3, 9, 12, 2, 3, 0, 1},
                                   {1000, 500, 1, 3, 3, 126, 1}};
  for (const Case& c : cases)
    for (int64_t accumulate : {0, 1}) {
      SCOPED_TRACE("case kh " + std::to_string(c.kh) + " kw " + std::to_string(c.kw) + " stride " +
                   std::to_string(c.stride) + " accumulate " + std::to_string(accumulate));
      sim::MachineState got(p), tiles(p);
      fillRandomState(got, 11);
      fillRandomState(tiles, 11);
      const int64_t weights = 5000;
      sim::executeCompute(p, preload, makeInstruction(isa, Semantics::WeightPreload, {weights}), got, true);
      const auto x = [&](int64_t i, int64_t t) {
        return got.spad.row(c.a_row + c.stride * i + (t / c.kw) * c.pitch + t % c.kw);
      };
      std::vector<uint32_t> want(static_cast<size_t>(c.m * N));
      for (int64_t i = 0; i < c.m; ++i)
        for (int64_t n = 0; n < N; ++n) {
          uint32_t v = accumulate ? static_cast<uint32_t>(got.acc.row(c.acc_row + i)[n]) : 0;
          for (int64_t t = 0; t < c.kh * c.kw; ++t)
            v += static_cast<uint32_t>(int32_t{x(i, t)[n]} * int32_t{got.spad.row(weights + t)[n]});
          want[static_cast<size_t>(i * N + n)] = v;
        }
      sim::executeCompute(p, dw,
                          makeInstruction(isa, Semantics::DepthwiseTile,
                                          {c.a_row, c.acc_row, c.m, accumulate, c.kh, c.kw, c.pitch, c.stride}),
                          got, true);
      for (int64_t i = 0; i < c.m; ++i)
        for (int64_t n = 0; n < N; ++n)
          ASSERT_EQ(static_cast<uint32_t>(got.acc.row(c.acc_row + i)[n]), want[static_cast<size_t>(i * N + n)])
              << "row " << i << " lane " << n;
      if (c.stride != 1) continue;
      // Stride 1: tap t is a matmul_tile of the rows from a_row + offset(t) with the diagonal tile
      // diag(W[t][*]) (its rows past N zero).
      const int64_t diag = 6000, last = diag + R;
      for (int64_t t = 0; t < c.kh * c.kw; ++t) {
        for (int64_t k = 0; k < R; ++k)
          for (int64_t n = 0; n < tiles.spad.lanes(); ++n)
            tiles.spad.row(diag + k)[n] = k == n && n < N ? tiles.spad.row(weights + t)[n] : int8_t{0};
        ASSERT_LE(last, p.spad_rows);
        sim::executeCompute(p, preload, makeInstruction(isa, Semantics::WeightPreload, {diag}), tiles, true);
        sim::executeCompute(
            p, tile,
            makeInstruction(isa, Semantics::MatmulTile,
                            {c.a_row + (t / c.kw) * c.pitch + t % c.kw, c.acc_row, c.m, t > 0 || accumulate}),
            tiles, true);
      }
      for (int64_t i = 0; i < c.m; ++i)
        for (int64_t n = 0; n < N; ++n) ASSERT_EQ(got.acc.row(c.acc_row + i)[n], tiles.acc.row(c.acc_row + i)[n]);
    }
}

TEST(DepthwiseTile, BadShapesAndRowsAreFaults) {
  const auto& isa = withDepthwise();
  const auto& p = isa.params();
  const auto& dw = isa.instr(isa.bySemantics(Semantics::DepthwiseTile));
  sim::MachineState m(p);
  fillRandomState(m, 3);
  const auto run = [&](std::initializer_list<int64_t> ops) {
    sim::executeCompute(p, dw, makeInstruction(isa, Semantics::DepthwiseTile, ops), m, false);
  };
  EXPECT_THROW(run({0, 0, 4, 0, 0, 3, 10, 1}), sim::FaultCause);                        // kh 0
  EXPECT_THROW(run({0, 0, 4, 0, 3, 3, 10, 0}), sim::FaultCause);                        // stride 0
  EXPECT_THROW(run({0, 0, 4, 0, 5, 5, 10, 1}), sim::FaultCause);                        // 25 taps > 16 PE rows
  EXPECT_THROW(run({0, 0, 4, 0, 3, 3, p.array_line_buffer_rows, 1}), sim::FaultCause);  // window > line buffer
  EXPECT_THROW(run({p.spad_rows - 30, 0, 4, 0, 3, 3, 20, 1}), sim::FaultCause);         // past the scratchpad
  EXPECT_NO_THROW(run({p.spad_rows - isa::depthwiseWindowRows(4, 3, 3, 20, 1), 0, 4, 0, 3, 3, 20, 1}));
}

TEST(DepthwiseTile, TimingIsTheWindowPlusFillAndDrain) {
  const auto& isa = withDepthwise();
  const auto& p = isa.params();
  const auto& dw = isa.instr(isa.bySemantics(Semantics::DepthwiseTile));
  for (auto [m, kh, kw, pitch, stride] :
       {std::array<int64_t, 5>{40, 3, 3, 58, 1}, {17, 3, 5, 60, 2}, {1, 1, 1, 0, 1}}) {
    const isa::Instruction in = makeInstruction(isa, Semantics::DepthwiseTile, {0, 0, m, 1, kh, kw, pitch, stride});
    const int64_t window = stride * (m - 1) + (kh - 1) * pitch + kw;
    EXPECT_EQ(window, isa::depthwiseWindowRows(m, kh, kw, pitch, stride));
    EXPECT_EQ(dw.cycles.eval(in.fields), window + p.array_rows + p.array_cols - 2);
    EXPECT_EQ(dw.issue.eval(in.fields), window);
    // MACs: the kh * kw tap rows of PEs, one per output row and channel.
    EXPECT_EQ(sim::macCount(p, dw, in), m * kh * kw * p.array_cols);
  }
}

TEST(DepthwiseTile, NeedsALineBuffer) {
  const std::string path = std::string(SYSTOLE_SOURCE_DIR) + "/isa/configs/default.yaml";
  const auto without = isa::ConfigOverride::parse("array={rows: 16, cols: 16, dataflow: weight_stationary}");
  try {
    (void)isa::IsaConfig::load(path, {without});
    FAIL() << "a depthwise_tile without array.line_buffer_rows was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("array.line_buffer_rows"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace systole::testing
