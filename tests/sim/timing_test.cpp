// Cycle counts on every shipped config, derived by hand from the configs' YAML timing expressions
// and the timing model of simulator/src/platform.cpp:
//
//   dispatch = one instruction per cycle in program order (instruction i at cycle i unless a full
//              queue holds the controller back; a slot frees when the instruction queue-depth
//              places earlier in the same queue starts);
//   start    = max(the unit's previous end, dispatch, stamps of the tokens it pops);
//   end      = start + YAML cycles + contention (DRAM channel waits, bank conflicts);
//   with dma.outstanding = k > 1 a DMA unit's "previous end" is the previous DMA's start + its
//   `issue` cycles (+ channel waits), and a DMA also waits for the completion of the one k
//   places before it; a unit's DMAs complete in order;
//   with `timing.issue` on compute instructions (default, large) the compute unit's "previous
//   end" is the previous one's start + issue, and an instruction needing an earlier one's result
//   waits for it (hazard stall; see pipeline_test.cpp, which derives those cases);
//   Stats.cycles = the latest end of any unit.
//
// The YAML expressions used below (identical in tiny, default, large and os16 except gemm):
//   DMA (all four classes)  dram.latency + rows * ceil_div(bytes, dram.bytes_per_cycle)
//   weight_preload          array.rows
//   matmul_tile             m + array.rows + array.cols - 2          (weight-stationary)
//                           array.rows + array.cols + 2 * m - 2      (os16, output-stationary)
//   requantize, widen, add, mul, max, lut   vector.latency + rows
//   vector_reduce           vector.latency + rows + log2_ceil(vector.lanes)
//   vector_recip            2 * vector.latency + rows
//   vector_mac              vector.latency + rows (default only)
//   nop, finish             1
// A DMA keeps the shared DRAM channel busy for rows * ceil_div(bytes, dram.bytes_per_cycle) cycles
// from its start, first come first served in cycle order (a DMA that finds the channel busy gets
// the free cycles after the earlier ones and ends that much later); a two-source vector_add/mul (accumulator) or
// vector_max (scratchpad) whose sources are congruent modulo the memory's bank count costs conflict_cycles more per
// row.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "chain_program.h"
#include "gemm_program.h"
#include "sim_test_util.h"
#include "systole/isa/builder.h"
#include "systole/isa/pipeline.h"

namespace systole::testing {
namespace {

using isa::Semantics;
using sim::Resource;
using sim::StallCause;

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t log2Ceil(int64_t a) {
  int64_t r = 0;
  while ((int64_t{1} << r) < a) ++r;
  return r;
}

// The YAML expressions, by hand, in terms of the config's parameters.
int64_t dmaCycles(const isa::Params& p, int64_t rows, int64_t bytes) {
  return p.dram_latency + rows * ceilDiv(bytes, p.dram_bytes_per_cycle);
}
int64_t channelCycles(const isa::Params& p, int64_t rows, int64_t bytes) {
  return rows * ceilDiv(bytes, p.dram_bytes_per_cycle);
}
// The cycles a DMA occupies its unit (its busy cycles): its `issue` when several may be in flight.
int64_t dmaBusy(const isa::Params& p, int64_t rows, int64_t bytes) {
  return p.dma_outstanding > 1 ? channelCycles(p, rows, bytes) : dmaCycles(p, rows, bytes);
}
/// When the last of `n` independent DMAs of one unit, issued back to back from cycle `first`,
/// completes: DMA i starts when the unit is free of DMA i - 1 (its busy cycles) and DMA
/// i - outstanding has completed; each completes latency + occupancy after its start.
int64_t dmaStreamEnd(const isa::Params& p, int64_t n, int64_t rows, int64_t bytes, int64_t first) {
  std::vector<int64_t> start(static_cast<size_t>(n)), end(static_cast<size_t>(n));
  for (size_t i = 0; i < start.size(); ++i) {
    start[i] = i == 0 ? first : start[i - 1] + dmaBusy(p, rows, bytes);
    if (i >= static_cast<size_t>(p.dma_outstanding))
      start[i] = std::max(start[i], end[i - static_cast<size_t>(p.dma_outstanding)]);
    end[i] = start[i] + dmaCycles(p, rows, bytes);
  }
  return end.back();
}
int64_t preloadCycles(const isa::Params& p) { return p.array_rows; }
int64_t gemmCycles(const isa::Params& p, int64_t m) {
  return p.dataflow == isa::Dataflow::WeightStationary ? m + p.array_rows + p.array_cols - 2
                                                       : p.array_rows + p.array_cols + 2 * m - 2;
}
int64_t vectorCycles(const isa::Params& p, int64_t rows) { return p.vector_latency + rows; }
// Pipelined compute (default, large): gemm `issue = m`, vector instructions `issue = rows`; the
// unit is busy for those cycles and a dependent instruction waits for the completion (see
// pipeline_test.cpp). tiny and os16 give no issue: busy = cycles.
bool pipelined(const isa::IsaConfig& isa) { return isa.instr(isa.bySemantics(Semantics::MatmulTile)).has_issue; }
int64_t gemmBusy(const isa::IsaConfig& isa, int64_t m) { return pipelined(isa) ? m : gemmCycles(isa.params(), m); }
int64_t vectorBusy(const isa::IsaConfig& isa, int64_t rows) {
  return pipelined(isa) ? rows : vectorCycles(isa.params(), rows);
}
int64_t reduceCycles(const isa::Params& p, int64_t rows) { return p.vector_latency + rows + log2Ceil(p.vector_lanes); }

uint64_t stall(const sim::Stats& s, isa::Unit u, StallCause c) {
  return s.stall_cycles[static_cast<size_t>(u)][static_cast<size_t>(c)];
}
uint64_t totalStall(const sim::Stats& s, StallCause c) {
  uint64_t t = 0;
  for (int u = 0; u < isa::kNumUnits; ++u) t += stall(s, static_cast<isa::Unit>(u), c);
  return t;
}
uint64_t busy(const sim::Stats& s, Resource r) { return s.busy_cycles[static_cast<size_t>(r)]; }
uint64_t u64(int64_t v) { return static_cast<uint64_t>(v); }

sim::Stats runProgram(const isa::IsaConfig& isa, isa::ProgramBuilder& b) {
  sim::Simulator simulator(isa);
  return simulator.runDecoded(b.instructions(), b.data()).stats;
}

class TimingOnConfig : public ::testing::TestWithParam<std::string> {};

// load -> preload -> gemm -> requantize -> store, each waiting for the one before:
//   load      starts 0                 ends L  = dram.latency + (R + m) * ceil_div(E, bw)
//   preload   waits for the load token ends L + array.rows
//   gemm      follows on its queue     ends ... + gemm(m)
//   requant   follows                  ends Q  = ... + vector.latency + m
//   store     waits for the requant token, ends Q + dram.latency + m * ceil_div(E, bw)
//   finish    ends Q + 1, before the store.
TEST_P(TimingOnConfig, SerializedChainMatchesHandDerivation) {
  const auto& isa = shippedConfig(GetParam());
  const auto& p = isa.params();
  const int64_t R = p.array_rows, E = p.spad_row_elems;
  for (int64_t m : {int64_t{1}, R / 2, R}) {
    SCOPED_TRACE("m = " + std::to_string(m));
    isa::ProgramBuilder b(isa);
    emitSerialChain(b, m);
    const auto& code = b.instructions();

    const int64_t load = dmaCycles(p, R + m, E), preload = preloadCycles(p), gemm = gemmCycles(p, m),
                  requant = vectorCycles(p, m), store = dmaCycles(p, m, E);
    // The YAML agrees with the hand derivation, instruction by instruction.
    EXPECT_EQ(isa::timingCycles(isa, code[0]), load);
    EXPECT_EQ(isa::timingCycles(isa, code[1]), preload);
    EXPECT_EQ(isa::timingCycles(isa, code[2]), gemm);
    EXPECT_EQ(isa::timingCycles(isa, code[3]), requant);
    EXPECT_EQ(isa::timingCycles(isa, code[4]), store);
    EXPECT_EQ(isa::timingCycles(isa, code[5]), 1);

    const auto stats = runProgram(isa, b);
    const int64_t requantEnd = load + preload + gemm + requant;
    EXPECT_EQ(stats.cycles, u64(requantEnd + store));
    EXPECT_EQ(stats.instructions, 6u);
    EXPECT_EQ(busy(stats, Resource::LoadDma), u64(dmaBusy(p, R + m, E)));
    // With two weight sets the preload runs on the weight path (not array busy time), so the gemm
    // could start a cycle after it and waits R - 1 for the weights.
    const bool weightPath = p.array_weight_buffers > 1;
    EXPECT_EQ(busy(stats, Resource::Array), u64((weightPath ? 0 : preload) + gemmBusy(isa, m)));
    EXPECT_EQ(busy(stats, Resource::Vector), u64(vectorBusy(isa, m)));
    // Pipelined, the requantize waits for the gemm's drain and finish for the requantize's.
    EXPECT_EQ(totalStall(stats, StallCause::Hazard),
              u64((weightPath ? preload - 1 : 0) + gemm - gemmBusy(isa, m) + requant - vectorBusy(isa, m)));
    EXPECT_EQ(busy(stats, Resource::StoreDma), u64(dmaBusy(p, m, E)));
    // The preload was dispatched at cycle 1 and waited for the load's token; the store,
    // dispatched at cycle 4, for the requantize's.
    EXPECT_EQ(stall(stats, isa::Unit::Compute, StallCause::Token), u64(load - 1));
    EXPECT_EQ(stall(stats, isa::Unit::Store, StallCause::Token), u64(requantEnd - 4));
    EXPECT_EQ(totalStall(stats, StallCause::DramBandwidth), 0u);
    EXPECT_EQ(totalStall(stats, StallCause::BankConflict), 0u);
    EXPECT_EQ(totalStall(stats, StallCause::QueueFull), 0u);
    EXPECT_EQ(stats.macs, u64(m * R * p.array_cols));
  }
}

// Each compute instruction alone, followed by finish (dispatched at cycle 1, it starts when the
// instruction ends and takes 1 cycle): cycles = YAML cycles + 1. Two-source vector instructions
// use sources in different banks where the config has more than one bank.
TEST_P(TimingOnConfig, EachComputeInstructionTakesItsYamlCycles) {
  const auto& isa = shippedConfig(GetParam());
  const auto& p = isa.params();
  const int64_t R = p.array_rows, rows = 3;
  const int64_t accDiff = p.acc_banks > 1 ? 1 : 0;  // with one bank every pair conflicts
  const int64_t accPenalty = p.acc_banks > 1 ? 0 : rows * p.acc_conflict_cycles;
  struct Case {
    const char* what;
    Semantics s;
    std::vector<int64_t> ops;
    int64_t cycles;
  };
  const std::vector<Case> cases = {
      {"preload", Semantics::WeightPreload, {0}, preloadCycles(p)},
      {"gemm m=1", Semantics::MatmulTile, {0, 0, 1, 0}, gemmCycles(p, 1)},
      {"gemm m=R", Semantics::MatmulTile, {0, 0, R, 1}, gemmCycles(p, R)},
      {"requantize", Semantics::Requantize, {0, 0, rows, 8, 0, -128, 127}, vectorCycles(p, rows)},
      {"widen", Semantics::VectorWiden, {0, 0, rows, 0, 1}, vectorCycles(p, rows)},
      {"add", Semantics::VectorAdd, {16, 0, 4 + accDiff, rows}, vectorCycles(p, rows) + accPenalty},
      {"mul", Semantics::VectorMul, {16, 0, 4 + accDiff, rows}, vectorCycles(p, rows) + accPenalty},
      {"max", Semantics::VectorMax, {16, 0, 5, rows}, vectorCycles(p, rows)},
      {"lut", Semantics::VectorLut, {0, 0, rows, 100}, vectorCycles(p, rows)},
      {"reduce", Semantics::VectorReduce, {8, 0, rows, 1}, reduceCycles(p, rows)},
      {"recip", Semantics::VectorRecip, {8, 0, rows, 20, 1}, vectorCycles(p, rows) + p.vector_latency},
      {"vmac", Semantics::VectorMac, {8, 0, 100, rows, 2, 1}, vectorCycles(p, rows)},
      {"nop", Semantics::Nop, {}, 1},
  };
  ASSERT_GT(p.spad_banks, 1);
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    if (isa.bySemantics(c.s) < 0) continue;  // a class the config does not have (vector_mac)
    isa::ProgramBuilder b(isa);
    switch (c.ops.size()) {
      case 0: b.emit(c.s, {}); break;
      case 1: b.emit(c.s, {c.ops[0]}); break;
      case 4: b.emit(c.s, {c.ops[0], c.ops[1], c.ops[2], c.ops[3]}); break;
      case 5: b.emit(c.s, {c.ops[0], c.ops[1], c.ops[2], c.ops[3], c.ops[4]}); break;
      case 6: b.emit(c.s, {c.ops[0], c.ops[1], c.ops[2], c.ops[3], c.ops[4], c.ops[5]}); break;
      case 7: b.emit(c.s, {c.ops[0], c.ops[1], c.ops[2], c.ops[3], c.ops[4], c.ops[5], c.ops[6]}); break;
      default: FAIL() << "unexpected operand count";
    }
    b.emit(Semantics::Finish, {});
    const auto stats = runProgram(isa, b);
    EXPECT_EQ(stats.cycles, u64(c.cycles + 1));
    EXPECT_EQ(totalStall(stats, StallCause::BankConflict),
              u64(c.s == Semantics::VectorAdd || c.s == Semantics::VectorMul ? accPenalty : 0));
  }
}

// vector.parallel: a requantize holds the compute queue for its rows (issue: rows) unless the vector
// unit has its own issue path; then the gemm after it (no shared rows) starts the next cycle, and
// the compiler's cost model (ComputeTimeline) predicts the same end.
TEST(Timing, ParallelVectorUnitLetsTheArrayStartBesideARequantize) {
  for (const char* parallel : {"false", "true"}) {
    SCOPED_TRACE(std::string("vector.parallel ") + parallel);
    const isa::IsaConfig isa = isa::IsaConfig::load(std::string(SYSTOLE_SOURCE_DIR) + "/isa/configs/default.yaml",
                                                    {{"vector.parallel", parallel}});
    const auto& p = isa.params();
    const int64_t rows = 64;
    isa::ProgramBuilder b(isa);
    b.emit(Semantics::Requantize, {0, 0, rows, 200, 0, -128, 127});  // accumulator [0, 64) -> scratchpad [0, 64)
    b.emit(Semantics::MatmulTile, {100, 300, rows, 0});              // scratchpad [100, 164) -> accumulator [300, 364)
    const int64_t gemmStart = p.vector_parallel ? 1 : rows;
    const int64_t end = std::max(vectorCycles(p, rows), gemmStart + gemmCycles(p, rows));
    EXPECT_EQ(isa::computeSpan(isa, b.instructions().data(), b.instructions().data() + 2), end);
    b.emit(Semantics::Finish, {});
    EXPECT_EQ(runProgram(isa, b).cycles, u64(end + 1));
  }
}

// A DMA alone: dram.latency + rows * ceil_div(bytes, bw), including byte counts that are not a
// multiple of the bandwidth (the last beat of each row is partly empty).
TEST_P(TimingOnConfig, DmaAloneTakesLatencyPlusRowsTimesBeats) {
  const auto& isa = shippedConfig(GetParam());
  const auto& p = isa.params();
  const int64_t accBytes = p.acc_row_bytes, E = p.spad_row_elems;
  struct Case {
    Semantics s;
    int64_t rows, bytes;
  };
  for (const Case& c : {Case{Semantics::DmaLoad, 7, E}, Case{Semantics::DmaLoad, 7, 1},
                        Case{Semantics::DmaStore, 5, E - 1}, Case{Semantics::DmaLoadAcc, 6, accBytes},
                        Case{Semantics::DmaLoadAcc, 6, accBytes - 4}, Case{Semantics::DmaStoreAcc, 9, accBytes - 4}}) {
    SCOPED_TRACE(std::string(isa::semanticsInfo(c.s).name) + " rows " + std::to_string(c.rows) + " bytes " +
                 std::to_string(c.bytes));
    isa::ProgramBuilder b(isa);
    b.emit(c.s, {0x2000, 0, c.rows, c.bytes, c.bytes});
    b.emit(Semantics::Finish, {});
    const auto stats = runProgram(isa, b);
    EXPECT_EQ(stats.cycles, u64(dmaCycles(p, c.rows, c.bytes)));
    EXPECT_EQ(totalStall(stats, StallCause::DramBandwidth), 0u);
  }
  // dma_load_int4 moves ceil(bytes / 2) DRAM bytes per row (default's YAML timing says so too).
  if (!p.offersWeightBits(4)) return;
  for (int64_t bytes : {E, E - 1}) {
    isa::ProgramBuilder b(isa);
    b.emit(Semantics::DmaLoadInt4, {0x2000, 0, 7, bytes, (bytes + 1) / 2});
    b.emit(Semantics::Finish, {});
    EXPECT_EQ(runProgram(isa, b).cycles, u64(dmaCycles(p, 7, (bytes + 1) / 2))) << "int4 row of " << bytes;
  }
}

// Independent loads back to back: with dma.outstanding = k, load i starts when the channel is
// free of load i - 1 (its `issue` = occupancy occ) and when load i - k has completed; each
// completes dram.latency + occ after its start. With k = 1 that is N * (latency + occ); with
// k >= N one latency plus N occupancies.
TEST_P(TimingOnConfig, OutstandingDmasOverlapTheirLatency) {
  const auto& isa = shippedConfig(GetParam());
  const auto& p = isa.params();
  const int64_t R = p.array_rows, E = p.spad_row_elems, N = 6, occ = channelCycles(p, R, E);
  isa::ProgramBuilder b(isa);
  for (int64_t i = 0; i < N; ++i) b.emit(Semantics::DmaLoad, {0x2000 + i * R * E, i * R, R, E, E});
  b.emit(Semantics::Finish, {});
  const auto stats = runProgram(isa, b);
  EXPECT_EQ(stats.cycles, u64(dmaStreamEnd(p, N, R, E, 0)));
  if (p.dma_outstanding >= N) {
    EXPECT_EQ(stats.cycles, u64(p.dram_latency + N * occ));
  }
  if (p.dma_outstanding == 1) {
    EXPECT_EQ(stats.cycles, u64(N * dmaCycles(p, R, E)));
  }
  EXPECT_EQ(totalStall(stats, StallCause::DramBandwidth), 0u);
}

// A load and an independent compute instruction overlap: the units are decoupled.
TEST_P(TimingOnConfig, IndependentQueuesRunInParallel) {
  const auto& isa = shippedConfig(GetParam());
  const auto& p = isa.params();
  const int64_t R = p.array_rows, E = p.spad_row_elems;
  isa::ProgramBuilder b(isa);
  b.emit(Semantics::DmaLoad, {0, 0, 2 * R, E, E});  // load queue, starts at 0
  b.emit(Semantics::MatmulTile, {4 * R, 0, R, 0});  // compute queue, dispatched at 1
  b.emit(Semantics::Finish, {});                    // after the gemm
  const auto stats = runProgram(isa, b);
  EXPECT_EQ(stats.cycles, u64(std::max(dmaCycles(p, 2 * R, E), 1 + gemmCycles(p, R) + 1)));
  EXPECT_LT(stats.cycles, u64(dmaCycles(p, 2 * R, E) + gemmCycles(p, R)));
}

// Two independent DMA streams started together: a long load on the load queue (cycle 0) and a
// long store on the store queue (dispatched at cycle 1). Each alone takes dram.latency plus its
// channel occupancy occ = rows * ceil_div(bytes, bw). Together they share the channel: the load,
// first at cycle 0, keeps it for occ(load) cycles; the store, starting at cycle 1, gets it after
// that and waits occ(load) - 1 cycles (dram_bandwidth stall), so
//   cycles = 1 + (dram.latency + occ(store)) + (occ(load) - 1) = dram.latency + occ(load) + occ(store),
// one latency plus the sum of the channel occupancies. In the other order (the store first) the
// load waits occ(store) - 1 cycles, and the total is the same. Accumulator rows make each row
// several beats long on every config.
TEST_P(TimingOnConfig, SharedDramBandwidthDelaysConcurrentStreams) {
  const auto& isa = shippedConfig(GetParam());
  const auto& p = isa.params();
  const int64_t bytes = p.acc_row_bytes, NL = 40, NS = 24;
  const int64_t occL = channelCycles(p, NL, bytes), occS = channelCycles(p, NS, bytes);
  ASSERT_GT(ceilDiv(bytes, p.dram_bytes_per_cycle), 1);
  auto emitLoad = [&](isa::ProgramBuilder& b, uint8_t tokens = 0) {
    b.emit(Semantics::DmaLoadAcc, {0x0, 0, NL, bytes, bytes}, tokens);
  };
  auto emitStore = [&](isa::ProgramBuilder& b, uint8_t tokens = 0) {
    b.emit(Semantics::DmaStoreAcc, {0x100000, NL, NS, bytes, bytes}, tokens);
  };

  isa::ProgramBuilder loadOnly(isa), storeOnly(isa), both(isa), storeFirst(isa);
  emitLoad(loadOnly);
  loadOnly.emit(Semantics::Finish, {});
  emitStore(storeOnly);
  storeOnly.emit(Semantics::Finish, {});
  emitLoad(both);
  emitStore(both);
  both.emit(Semantics::Finish, {});
  emitStore(storeFirst);
  emitLoad(storeFirst);
  storeFirst.emit(Semantics::Finish, {});
  const auto aloneL = runProgram(isa, loadOnly), aloneS = runProgram(isa, storeOnly), together = runProgram(isa, both);

  EXPECT_EQ(aloneL.cycles, u64(p.dram_latency + occL));
  EXPECT_EQ(aloneS.cycles, u64(p.dram_latency + occS));
  EXPECT_EQ(totalStall(aloneL, StallCause::DramBandwidth) + totalStall(aloneS, StallCause::DramBandwidth), 0u);

  const uint64_t stallL = stall(together, isa::Unit::Load, StallCause::DramBandwidth);
  const uint64_t stallS = stall(together, isa::Unit::Store, StallCause::DramBandwidth);
  EXPECT_GT(stallL + stallS, 0u) << "the streams overlap, so one must wait for the channel";
  // First come, first served: the load asked at cycle 0, the store at cycle 1.
  EXPECT_EQ(stallL, 0u);
  EXPECT_EQ(stallS, u64(occL - 1));
  // The total is one latency plus the sum of the channel occupancies ...
  EXPECT_EQ(together.cycles, u64(p.dram_latency + occL + occS));
  // ... so the extra over the longer stream alone is the shorter stream's occupancy.
  ASSERT_GT(occL, occS);
  EXPECT_EQ(together.cycles - std::max(aloneL.cycles, aloneS.cycles), u64(occS));
  // Every cycle of the end is accounted for: start + YAML cycles + the DRAM stall, per stream.
  EXPECT_EQ(together.cycles,
            std::max(u64(dmaCycles(p, NL, bytes)) + stallL, 1 + u64(dmaCycles(p, NS, bytes)) + stallS));
  EXPECT_EQ(busy(together, Resource::LoadDma), u64(dmaBusy(p, NL, bytes)) + stallL);
  EXPECT_EQ(busy(together, Resource::StoreDma), u64(dmaBusy(p, NS, bytes)) + stallS);
  EXPECT_EQ(together.dram_bytes_read, u64(NL * bytes));
  EXPECT_EQ(together.dram_bytes_written, u64(NS * bytes));

  // The store first (cycle 0), the load a cycle later: now the load waits.
  const auto reversed = runProgram(isa, storeFirst);
  EXPECT_EQ(stall(reversed, isa::Unit::Store, StallCause::DramBandwidth), 0u);
  EXPECT_EQ(stall(reversed, isa::Unit::Load, StallCause::DramBandwidth), u64(occS - 1));
  EXPECT_EQ(reversed.cycles, u64(p.dram_latency + occL + occS));

  // The same two streams, serialised by tokens (load -> nop -> store): the store starts after the
  // load's channel use has ended, so nothing waits for bandwidth:
  //   cycles = (dram.latency + occ(load)) + 1 + (dram.latency + occ(store)).
  isa::ProgramBuilder serial(isa);
  emitLoad(serial, isa::kPushNext);
  serial.emit(Semantics::Nop, {}, isa::kPopPrev | isa::kPushNext);
  emitStore(serial, isa::kPopPrev);
  serial.emit(Semantics::Finish, {});
  const auto serialStats = runProgram(isa, serial);
  EXPECT_EQ(totalStall(serialStats, StallCause::DramBandwidth), 0u);
  EXPECT_EQ(serialStats.cycles, u64(dmaCycles(p, NL, bytes) + 1 + dmaCycles(p, NS, bytes)));
}

// Bank conflicts: a two-source vector instruction whose sources are in the same bank (congruent
// modulo the bank count) costs rows * conflict_cycles more than one whose sources are not.
// vector_add and vector_mul read accumulator rows, vector_max scratchpad rows. With a single
// accumulator bank (tiny) every pair of accumulator sources conflicts.
TEST_P(TimingOnConfig, BankConflictsCostConflictCyclesPerRow) {
  const auto& isa = shippedConfig(GetParam());
  const auto& p = isa.params();
  const int64_t rows = 8;
  struct Op {
    Semantics s;
    int64_t banks, conflictCycles;
  };
  for (const Op& op : {Op{Semantics::VectorAdd, p.acc_banks, p.acc_conflict_cycles},
                       Op{Semantics::VectorMul, p.acc_banks, p.acc_conflict_cycles},
                       Op{Semantics::VectorMax, p.spad_banks, p.spad_conflict_cycles}}) {
    SCOPED_TRACE(std::string(isa::semanticsInfo(op.s).name));
    ASSERT_GT(op.conflictCycles, 0);
    const int64_t sameBank = op.banks * rows;  // congruent to row 0
    const int64_t dst = 2 * sameBank + 2;
    auto run = [&](int64_t a, int64_t b) {
      isa::ProgramBuilder pb(isa);
      pb.emit(op.s, {dst, a, b, rows});
      pb.emit(Semantics::Finish, {});
      return runProgram(isa, pb);
    };
    // Sources in the same bank: vector.latency + rows + rows * conflict_cycles, then finish.
    const auto same = run(0, sameBank);
    EXPECT_EQ(same.cycles, u64(vectorCycles(p, rows) + rows * op.conflictCycles + 1));
    EXPECT_EQ(stall(same, isa::Unit::Compute, StallCause::BankConflict), u64(rows * op.conflictCycles));
    // The same source twice is the same bank too.
    EXPECT_EQ(run(3, 3).cycles, same.cycles);
    if (op.banks > 1) {
      for (int64_t offset = 1; offset < op.banks; ++offset) {
        const auto diff = run(0, sameBank + offset);
        EXPECT_EQ(diff.cycles, u64(vectorCycles(p, rows) + 1)) << "offset " << offset;
        EXPECT_EQ(stall(diff, isa::Unit::Compute, StallCause::BankConflict), 0u);
        EXPECT_EQ(same.cycles - diff.cycles, u64(rows * op.conflictCycles));
      }
      // Only the sources matter: a destination in a source's bank costs nothing.
      isa::ProgramBuilder pb(isa);
      pb.emit(op.s, {sameBank, 0, 1, rows});
      pb.emit(Semantics::Finish, {});
      EXPECT_EQ(runProgram(isa, pb).cycles, u64(vectorCycles(p, rows) + 1));
    } else {
      EXPECT_EQ(run(0, 1).cycles, same.cycles) << "one bank: every pair of sources conflicts";
    }
  }
}

// Queue back-pressure: a nop that pops a token from the load queue blocks the compute queue until
// the load ends at L = dram.latency + rows * ceil_div(E, bw). The program then dispatches more
// than queue-depth D instructions behind it. The k-th compute instruction (k = 0 the blocked
// nop, dispatched at cycle 1) would be dispatched at cycle k + 1; the one at k = D finds the
// queue full and waits until the blocked nop starts at L:
//   queue_full stall = L - (D + 1);
// after that every slot frees one cycle after the last, exactly when the next instruction is
// ready, so there is no further stall. The compute queue then runs its D + 4 instructions (nops
// and finish), one cycle each: cycles = L + D + 4.
TEST_P(TimingOnConfig, QueueFullStallsTheDispatcher) {
  const auto& isa = shippedConfig(GetParam());
  const auto& p = isa.params();
  const int64_t E = p.spad_row_elems, rows = 8;
  const int64_t D = p.queue_depth[static_cast<size_t>(isa::Unit::Compute)];
  const int64_t L = dmaCycles(p, rows, E);
  ASSERT_GT(L, D + 1) << "the load must outlast the dispatch of a full queue";
  isa::ProgramBuilder b(isa);
  b.emit(Semantics::DmaLoad, {0, 0, rows, E, E}, isa::kPushNext);
  b.emit(Semantics::Nop, {}, isa::kPopPrev);
  for (int64_t i = 0; i < D + 2; ++i) b.emit(Semantics::Nop, {});
  b.emit(Semantics::Finish, {});
  const auto stats = runProgram(isa, b);
  EXPECT_EQ(stall(stats, isa::Unit::Compute, StallCause::QueueFull), u64(L - (D + 1)));
  EXPECT_EQ(stall(stats, isa::Unit::Compute, StallCause::Token), u64(L - 1));
  EXPECT_EQ(stats.cycles, u64(L + D + 4));

  // With one instruction fewer behind the blocked nop the queue never holds more than D: no stall.
  isa::ProgramBuilder fits(isa);
  fits.emit(Semantics::DmaLoad, {0, 0, rows, E, E}, isa::kPushNext);
  fits.emit(Semantics::Nop, {}, isa::kPopPrev);
  for (int64_t i = 0; i < D - 2; ++i) fits.emit(Semantics::Nop, {});
  fits.emit(Semantics::Finish, {});
  const auto fitStats = runProgram(isa, fits);
  EXPECT_EQ(totalStall(fitStats, StallCause::QueueFull), 0u);
  EXPECT_EQ(fitStats.cycles, u64(L + D));
}

// The store queue fills the same way behind a store that waits for the compute queue; its depth
// is the store queue's.
TEST_P(TimingOnConfig, QueueFullOnTheStoreQueue) {
  const auto& isa = shippedConfig(GetParam());
  const auto& p = isa.params();
  const int64_t E = p.spad_row_elems;
  const int64_t D = p.queue_depth[static_cast<size_t>(isa::Unit::Store)];
  // The compute queue's gemm ends at G = gemm(R) and pushes the token the first store pops.
  const int64_t G = gemmCycles(p, p.array_rows);
  ASSERT_GT(G, D + 1);
  isa::ProgramBuilder b(isa);
  b.emit(Semantics::MatmulTile, {0, 0, p.array_rows, 0}, isa::kPushNext);
  // Store k (k = 0 the blocked one) would be dispatched at cycle k + 1; store D waits for store 0
  // to start at G.
  for (int64_t k = 0; k <= D; ++k)
    b.emit(Semantics::DmaStore, {0x1000 * (k + 1), 0, 1, E, E}, k == 0 ? isa::kPopPrev : 0);
  b.emit(Semantics::Finish, {});
  const auto stats = runProgram(isa, b);
  EXPECT_EQ(stall(stats, isa::Unit::Store, StallCause::QueueFull), u64(G - (D + 1)));
  // The stores run back to back from G, each dram.latency + ceil_div(E, bw) cycles (their
  // latencies overlapping with dma.outstanding > 1).
  EXPECT_EQ(stats.cycles, u64(dmaStreamEnd(p, D + 1, 1, E, G)));
  if (p.dma_outstanding == 1) {
    EXPECT_EQ(stats.cycles, u64(G + (D + 1) * dmaCycles(p, 1, E)));
  }
}

// Temporal decoupling is a host-side speed knob: how far a unit may run ahead of SystemC time
// (SimOptions::quantum_cycles) must not change any simulated result. Contended DRAM traffic is
// where it could: the channel must go to the DMA that asks at the earlier cycle, not to the one
// the host happens to run first. Tiled GEMMs with one buffer (loads and stores overlapping, with
// DRAM stalls on every config) and two, with quanta from 1 cycle to effectively unlimited.
TEST_P(TimingOnConfig, QuantumDoesNotChangeCyclesOrStats) {
  const auto& isa = shippedConfig(GetParam());
  const auto& p = isa.params();
  for (int buffers : {1, 2}) {
    SCOPED_TRACE("buffers " + std::to_string(buffers));
    GemmSpec spec{.M = 4 * p.array_rows + 3, .K = 3 * p.array_rows, .N = 3 * p.array_cols};
    spec.buffers = buffers;
    const auto A = randomInt8(static_cast<size_t>(spec.M * spec.K), 1),
               B = randomInt8(static_cast<size_t>(spec.K * spec.N), 2);
    const auto program = buildGemmProgram(isa, spec, B);
    sim::Simulator simulator(isa);
    auto run = [&](uint64_t quantum) {
      sim::SimOptions options;
      options.quantum_cycles = quantum;
      options.trace = true;
      return simulator.run(program, {{"A", bytesOf(A)}}, options);
    };
    const auto reference = run(1);
    if (buffers == 1) {
      EXPECT_GT(totalStall(reference.stats, StallCause::DramBandwidth), 0u) << "the test needs DRAM contention";
    }
    for (uint64_t quantum : {uint64_t{10}, uint64_t{100}, uint64_t{1000}, uint64_t{100000}, uint64_t{1} << 40}) {
      SCOPED_TRACE("quantum " + std::to_string(quantum));
      const auto r = run(quantum);
      EXPECT_EQ(r.stats.cycles, reference.stats.cycles);
      EXPECT_EQ(r.stats.toJson(), reference.stats.toJson());
      EXPECT_EQ(r.trace_json, reference.trace_json);
      ASSERT_EQ(r.outputs.size(), 1u);
      EXPECT_EQ(r.outputs[0].bytes, reference.outputs[0].bytes);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(ShippedConfigs, TimingOnConfig, ::testing::ValuesIn(shippedConfigs()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace systole::testing
