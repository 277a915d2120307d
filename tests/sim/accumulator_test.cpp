// types.accumulator narrower than int32 (docs/isa-semantics.md): every lane an instruction writes
// to the accumulator (array products, vector results, DMA loads) is saturated to the accumulator's
// range, while int32 keeps the 32-bit result as it was; the ISA and the SV package see the width.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "sim_test_util.h"
#include "systole/isa/generate.h"
#include "systole/sim/functional.h"
#include "systole/sim/memory.h"
#include "systole/sim/sram_traffic.h"

namespace systole::testing {
namespace {

using isa::Semantics;

/// default with `type` accumulators (int24: 1024 rows of 48 bytes, as 65536 bytes are not whole rows).
isa::IsaConfig withAccumulator(const std::string& type) {
  std::vector<isa::ConfigOverride> set = {{"types.accumulator", type}};
  if (type == "int24") set.push_back({"memories.accumulator.size", "49152"});
  return isa::IsaConfig::load(std::string(SYSTOLE_SOURCE_DIR) + "/isa/configs/default.yaml", set);
}

/// Rows of every scratchpad lane `a` and every accumulator lane `acc`, all marked written.
void fill(sim::MachineState& m, int8_t a, int32_t acc) {
  for (int64_t r = 0; r < m.spad.rows(); ++r) std::fill(m.spad.row(r), m.spad.row(r) + m.spad.lanes(), a);
  for (int64_t r = 0; r < m.acc.rows(); ++r) std::fill(m.acc.row(r), m.acc.row(r) + m.acc.lanes(), acc);
  m.spad.markWritten(0, m.spad.rows());
  m.acc.markWritten(0, m.acc.rows());
}

/// Runs one compute instruction on a state filled by `fill` and returns lane 0 of `accRow`.
int32_t laneAfter(const isa::IsaConfig& isa, Semantics s, std::initializer_list<int64_t> ops, int8_t a, int32_t acc,
                  int64_t accRow) {
  const auto& p = isa.params();
  sim::MachineState m(p);
  fill(m, a, acc);
  sim::executeCompute(p, isa.instr(isa.bySemantics(Semantics::WeightPreload)),
                      makeInstruction(isa, Semantics::WeightPreload, {0}), m, true);
  sim::executeCompute(p, isa.instr(isa.bySemantics(s)), makeInstruction(isa, s, ops), m, true);
  return m.acc.row(accRow)[0];
}

TEST(NarrowAccumulator, ArrayProductsSaturate) {
  // 16 products of 127 x 127 = 258064: past int16's and within int24's and int32's range.
  const int64_t sum = 16 * 127 * 127;
  const int64_t taps = 9 * 127 * 127;  // a 3x3 depthwise window of 127 x 127
  for (auto [type, want, wantTaps] :
       {std::tuple{"int32", sum, taps}, {"int24", sum, taps}, {"int16", int64_t{32767}, int64_t{32767}}}) {
    SCOPED_TRACE(type);
    const auto isa = withAccumulator(type);
    EXPECT_EQ(laneAfter(isa, Semantics::MatmulTile, {0, 10, 4, 0}, 127, 0, 12), want);
    // Accumulating onto the largest lane: int32 wraps past 2^31 - 1, a narrow accumulator stays.
    const int32_t top = static_cast<int32_t>(isa::arith::accumulatorMax(isa.params().acc_bits));
    EXPECT_EQ(laneAfter(isa, Semantics::MatmulTile, {0, 10, 4, 1}, 127, top, 12),
              type == std::string("int32") ? isa::arith::wrap32(int64_t{top} + sum) : top);
    // The depthwise mode writes the same way.
    EXPECT_EQ(laneAfter(isa, Semantics::DepthwiseTile, {0, 10, 4, 0, 3, 3, 20, 1}, 127, 0, 12), wantTaps);
  }
}

TEST(NarrowAccumulator, VectorResultsSaturate) {
  const auto narrow = withAccumulator("int16"), wide = withAccumulator("int32");
  // vector_add of two lanes of 30000; vector_mul of two lanes of 300.
  EXPECT_EQ(laneAfter(narrow, Semantics::VectorAdd, {20, 3, 4, 1}, 0, 30000, 20), 32767);
  EXPECT_EQ(laneAfter(wide, Semantics::VectorAdd, {20, 3, 4, 1}, 0, 30000, 20), 60000);
  EXPECT_EQ(laneAfter(narrow, Semantics::VectorMul, {20, 3, 4, 1}, 0, -300, 20), 32767);
  // vector_widen: (x - zp) * multiplier = (-128 - 127) * 200 = -51000.
  EXPECT_EQ(laneAfter(narrow, Semantics::VectorWiden, {0, 20, 1, 127, 200}, -128, 0, 20), -32768);
  EXPECT_EQ(laneAfter(wide, Semantics::VectorWiden, {0, 20, 1, 127, 200}, -128, 0, 20), -51000);
}

TEST(NarrowAccumulator, DmaLoadsSaturateAndStoresSignExtend) {
  const auto isa = withAccumulator("int24");
  const auto& p = isa.params();
  sim::MachineState m(p);
  const std::vector<int32_t> lanes = {100000000, -100000000, 5, -8388608};
  std::vector<uint8_t> dram(static_cast<size_t>(p.acc_row_bytes), 0);
  std::memcpy(dram.data(), lanes.data(), lanes.size() * sizeof(int32_t));
  const auto load = makeInstruction(isa, Semantics::DmaLoadAcc, {0, 7, 1, p.acc_row_bytes, p.acc_row_bytes});
  const sim::DmaTransfer in = sim::dmaTransfer(p, isa.instr(isa.bySemantics(Semantics::DmaLoadAcc)), load);
  sim::dmaRowIn(in, 0, dram.data(), m);
  EXPECT_EQ(m.acc.row(7)[0], 8388607);
  EXPECT_EQ(m.acc.row(7)[1], -8388608);
  EXPECT_EQ(m.acc.row(7)[2], 5);
  EXPECT_EQ(m.acc.row(7)[3], -8388608);
  const auto store = makeInstruction(isa, Semantics::DmaStoreAcc, {0, 7, 1, 16, 16});
  std::vector<int32_t> out(4);
  sim::dmaRowOut(sim::dmaTransfer(p, isa.instr(isa.bySemantics(Semantics::DmaStoreAcc)), store), 0,
                 reinterpret_cast<uint8_t*>(out.data()), m);
  EXPECT_EQ(out, (std::vector<int32_t>{8388607, -8388608, 5, -8388608}));
}

// The SRAM energy counts the accumulator's own bytes: a lane of accumulator.bits, and a store's
// int32 DRAM lanes as that many SRAM bits.
TEST(NarrowAccumulator, SramTrafficCountsTheNarrowLanes) {
  for (auto [type, laneBytes] : {std::pair{"int32", 4}, {"int24", 3}, {"int16", 2}}) {
    SCOPED_TRACE(type);
    const auto isa = withAccumulator(type);
    const int64_t N = isa.params().array_cols;
    const auto tile = sim::sramTraffic(isa.params(), isa.instr(isa.bySemantics(Semantics::MatmulTile)),
                                       makeInstruction(isa, Semantics::MatmulTile, {0, 10, 4, 1}));
    EXPECT_EQ(tile.acc_written, int64_t{4} * N * laneBytes);
    EXPECT_EQ(tile.acc_read, int64_t{4} * N * laneBytes);
    const auto store = sim::sramTraffic(isa.params(), isa.instr(isa.bySemantics(Semantics::DmaStoreAcc)),
                                        makeInstruction(isa, Semantics::DmaStoreAcc, {0, 7, 2, 16, 16}));
    EXPECT_EQ(store.acc_read, int64_t{2 * 4} * laneBytes);
  }
}

TEST(NarrowAccumulator, ThePackageAndTheDocsCarryTheWidth) {
  const auto isa = withAccumulator("int16");
  EXPECT_NE(isa::generateSvPackage(isa, "default.yaml").find("localparam int ACCUMULATOR_BITS = 16;"),
            std::string::npos);
}

}  // namespace
}  // namespace systole::testing
