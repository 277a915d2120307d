// types.activation int16 (docs/isa-semantics.md): every scratchpad lane is 16 bits. DMA moves a
// lane as two little-endian bytes, the array multiplies it by the weight register, requantize
// saturates into the lane's range, vector_max and vector_lut work on whole lanes, and the SRAM
// traffic, the area and the SV package follow the width. int8 stays as it was.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "sim_test_util.h"
#include "systole/isa/generate.h"
#include "systole/isa/pipeline.h"
#include "systole/sim/functional.h"
#include "systole/sim/memory.h"
#include "systole/sim/sram_traffic.h"

namespace systole::testing {
namespace {

using isa::Semantics;

isa::IsaConfig withActivation(const std::string& type) {
  return isa::IsaConfig::load(std::string(SYSTOLE_SOURCE_DIR) + "/isa/configs/default.yaml",
                              {{"types.activation", type}});
}

/// Runs one compute instruction of class `s` with operands `ops` on `m`, poison checks on.
void run(const isa::IsaConfig& isa, sim::MachineState& m, Semantics s, std::initializer_list<int64_t> ops) {
  sim::executeCompute(isa.params(), isa.instr(isa.bySemantics(s)), makeInstruction(isa, s, ops), m, true);
}

void setRow(sim::MachineState& m, int64_t row, const std::vector<int32_t>& lanes) {
  for (size_t j = 0; j < lanes.size(); ++j) m.spad.row(row)[j] = static_cast<sim::Lane>(lanes[j]);
  m.spad.markWritten(row, 1);
}

TEST(Int16Activations, TheRowIsTwiceTheBytes) {
  const auto isa8 = withActivation("int8");
  const auto& p8 = isa8.params();
  const auto isa = withActivation("int16");
  const auto& p = isa.params();
  EXPECT_EQ(p.act_bits, 16);
  EXPECT_EQ(p.spad_row_elems, p8.spad_row_elems);
  EXPECT_EQ(p.spad_row_bytes, 2 * p8.spad_row_bytes);
  EXPECT_EQ(p.spad_rows * 2, p8.spad_rows);  // the same 256 KiB holds half the rows
  EXPECT_EQ(p.lut_rows, p8.lut_rows);        // 256 entries, one per lane
  // requantize's zero point and clamps are activation.bits wide in every shipped config.
  EXPECT_NO_THROW(makeInstruction(isa, Semantics::Requantize, {0, 0, 1, 2, -32768, -32768, 32767}));
  EXPECT_NE(isa::generateSvPackage(isa, "default.yaml").find("localparam int ACTIVATION_BITS = 16;"),
            std::string::npos);
}

TEST(Int16Activations, DmaMovesLittleEndianLanes) {
  const auto isa = withActivation("int16");
  const auto& p = isa.params();
  sim::MachineState m(p);
  const std::vector<int16_t> lanes = {-32768, 32767, -1, 300, 0, -300, 1, 12345};
  std::vector<uint8_t> dram(lanes.size() * 2);
  std::memcpy(dram.data(), lanes.data(), dram.size());
  const auto& load = isa.instr(isa.bySemantics(Semantics::DmaLoad));
  const auto t = sim::dmaTransfer(p, load, makeInstruction(isa, Semantics::DmaLoad, {0, 5, 1, 16, 16}));
  sim::dmaRowIn(t, 0, dram.data(), m);
  for (size_t j = 0; j < lanes.size(); ++j) EXPECT_EQ(m.spad.row(5)[j], lanes[j]) << j;
  for (int64_t j = 8; j < p.spad_row_elems; ++j) EXPECT_EQ(m.spad.row(5)[j], 0) << j;  // the tail is zeroed
  std::vector<uint8_t> out(dram.size());
  const auto& store = isa.instr(isa.bySemantics(Semantics::DmaStore));
  sim::dmaRowOut(sim::dmaTransfer(p, store, makeInstruction(isa, Semantics::DmaStore, {0, 5, 1, 16, 16})), 0,
                 out.data(), m);
  EXPECT_EQ(out, dram);
  // A row that is not whole lanes is a fault.
  const auto odd = sim::dmaTransfer(p, load, makeInstruction(isa, Semantics::DmaLoad, {0, 5, 1, 15, 16}));
  EXPECT_THROW(sim::checkDma(odd, m, 1 << 20, false), sim::FaultCause);
}

TEST(Int16Activations, Int4WeightsUnpackIntoLanes) {
  const auto isa = withActivation("int16");
  const auto& p = isa.params();
  sim::MachineState m(p);
  const std::vector<uint8_t> packed = {0x7F, 0x18};  // 15 (low nibble) -1, 7; 8 -> -8, 1
  const auto& d = isa.instr(isa.bySemantics(Semantics::DmaLoadInt4));
  const auto in = makeInstruction(isa, Semantics::DmaLoadInt4, {0, 3, 1, 8, 2});  // 8 bytes: 4 lanes
  const auto t = sim::dmaTransfer(p, d, in);
  EXPECT_EQ(t.dramRowBytes(), 2);
  EXPECT_EQ(isa::dramRowBytes(p, d, in), 2);
  sim::dmaRowIn(t, 0, packed.data(), m);
  EXPECT_EQ((std::vector<int32_t>(m.spad.row(3), m.spad.row(3) + 4)), (std::vector<int32_t>{-1, 7, -8, 1}));
}

TEST(Int16Activations, TheArrayMultipliesWholeLanes) {
  const auto isa = withActivation("int16");
  const auto& p = isa.params();
  const int64_t K = p.array_rows;
  sim::MachineState m(p);
  for (int64_t k = 0; k < K; ++k) {  // W[k][n] = -128 on the diagonal, 3 elsewhere
    std::vector<int32_t> w(static_cast<size_t>(p.spad_row_elems), 3);
    w[static_cast<size_t>(k)] = -128;
    setRow(m, k, w);
  }
  std::vector<int32_t> x(static_cast<size_t>(p.spad_row_elems));
  for (int64_t k = 0; k < K; ++k) x[static_cast<size_t>(k)] = k % 2 ? -32768 : 32767 - static_cast<int32_t>(k);
  setRow(m, 40, x);
  run(isa, m, Semantics::WeightPreload, {0});
  run(isa, m, Semantics::MatmulTile, {40, 7, 1, 0});
  for (int64_t n = 0; n < p.array_cols; ++n) {
    int64_t want = 0;
    for (int64_t k = 0; k < K; ++k) want += int64_t{x[static_cast<size_t>(k)]} * (k == n ? -128 : 3);
    EXPECT_EQ(m.acc.row(7)[n], want) << n;
  }
}

TEST(Int16Activations, RequantizeSaturatesToTheLane) {
  for (const std::string type : {"int8", "int16"}) {
    SCOPED_TRACE(type);
    const auto isa = withActivation(type);
    const auto& p = isa.params();
    sim::MachineState m(p);
    const std::vector<int32_t> acc = {40000, -40000, 1000, -1000, 100, 0};
    for (size_t j = 0; j < acc.size(); ++j) m.acc.row(0)[j] = acc[j];
    std::fill(m.acc.row(10), m.acc.row(10) + m.acc.lanes(), int32_t{1} << 30);  // multiplier 2^30,
    std::fill(m.acc.row(11), m.acc.row(11) + m.acc.lanes(), 30);                // shift 30: y = acc
    m.acc.markWritten(0, 12);
    const int32_t lo = isa::arith::activationMin(p.act_bits), hi = isa::arith::activationMax(p.act_bits);
    run(isa, m, Semantics::Requantize, {0, 20, 1, 10, 0, lo, hi});
    const std::vector<int32_t> want = type == "int8" ? std::vector<int32_t>{127, -128, 127, -128, 100, 0}
                                                     : std::vector<int32_t>{32767, -32768, 1000, -1000, 100, 0};
    EXPECT_EQ((std::vector<int32_t>(m.spad.row(20), m.spad.row(20) + 6)), want);
  }
}

TEST(Int16Activations, VectorMaxAndLookupTakeWholeLanes) {
  const auto isa = withActivation("int16");
  const auto& p = isa.params();
  sim::MachineState m(p);
  setRow(m, 1, {-30000, 300, 129, -129});
  setRow(m, 2, {-29999, 299, -5, -5});
  run(isa, m, Semantics::VectorMax, {3, 1, 2, 1});
  EXPECT_EQ((std::vector<int32_t>(m.spad.row(3), m.spad.row(3) + 4)), (std::vector<int32_t>{-29999, 300, 129, -5}));
  // A table whose entry e holds e - 128: the lookup saturates an int16 index to int8 first.
  for (int64_t e = 0; e < 256; ++e) m.spad.row(100)[e] = static_cast<sim::Lane>(e - 128);  // rows are contiguous
  m.spad.markWritten(100, p.lut_rows);
  run(isa, m, Semantics::VectorLut, {4, 1, 1, 100});
  EXPECT_EQ((std::vector<int32_t>(m.spad.row(4), m.spad.row(4) + 4)), (std::vector<int32_t>{-128, 127, 127, -128}));
}

TEST(Int16Activations, SramTrafficAndAreaFollowTheWidth) {
  const auto narrow = withActivation("int8"), wide = withActivation("int16");
  const auto traffic = [](const isa::IsaConfig& isa) {
    return sim::sramTraffic(isa.params(), isa.instr(isa.bySemantics(Semantics::MatmulTile)),
                            makeInstruction(isa, Semantics::MatmulTile, {0, 10, 4, 0}));
  };
  EXPECT_EQ(traffic(wide).spad_read, 2 * traffic(narrow).spad_read);
  EXPECT_EQ(traffic(wide).acc_written, traffic(narrow).acc_written);
  // The multiplier grows with the activation width; the SRAMs are the same size.
  const auto a8 = isa::areaOf(narrow.params()), a16 = isa::areaOf(wide.params());
  EXPECT_GT(a16.array_mm2, a8.array_mm2);
  EXPECT_EQ(a16.scratchpad_mm2, a8.scratchpad_mm2);
}

}  // namespace
}  // namespace systole::testing
