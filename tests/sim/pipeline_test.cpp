// Pipelined compute (timing.issue on compute instructions) and weight double buffering
// (array.weight_buffers), derived by hand on three variants of the default config:
//   on   the shipped default: gemm `cycles = m + array.rows + array.cols - 2`, `issue = m`; vector
//        instructions `cycles = vector.latency + rows`, `issue = rows`; weight_buffers = 2;
//        preload `cycles = array.rows` (no issue: it occupies the unit until its set is loaded);
//   one  the same with weight_buffers = 1;
//   off  no issue on compute and weight_buffers = 1 (the serial model of tiny and os16).
// The rules (isa/pipeline.h): instructions start in program order, one per cycle; the unit takes
// its next instruction `issue` cycles after a start, except that with two weight sets a preload
// runs on the array's weight path and starts without waiting for that (it fills the other set); an
// instruction that reads or writes rows an earlier one still writes or reads waits for that one's
// completion, except a matmul after a matmul (one array pipeline, results in order); the n-th
// preload fills set n mod weight_buffers once the matmuls that read that set have completed, and
// a matmul waits for its set's preload; finish waits for everything; instructions complete in order
// and push their tokens at completion. With R = C = 16 and vector.latency = 4 on default, the
// fill/drain is D = R + C - 2 = 30 cycles.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim_test_util.h"
#include "systole/isa/builder.h"
#include "systole/isa/file_io.h"
#include "systole/isa/pipeline.h"

namespace systole::testing {
namespace {

using isa::Semantics;
using sim::Resource;
using sim::StallCause;

std::string replaceAll(std::string text, const std::string& from, const std::string& to) {
  size_t n = 0;
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()), ++n)
    text.replace(at, from.size(), to);
  if (n == 0) throw std::logic_error("test edit: '" + from + "' not found");
  return text;
}

const std::string& defaultText() {
  static const std::string text = readTextFile(std::string(SYSTOLE_SOURCE_DIR) + "/isa/configs/default.yaml");
  return text;
}

const isa::IsaConfig& variant(const std::string& which) {
  static std::map<std::string, isa::IsaConfig> cache;
  auto it = cache.find(which);
  if (it != cache.end()) return it->second;
  std::string t = defaultText();
  if (which != "on") t = replaceAll(t, ", weight_buffers: 2}", "}");
  if (which == "preload-issue")
    t = replaceAll(t, "timing: {cycles: \"array.rows\"}", "timing: {cycles: \"array.rows\", issue: \"1\"}");
  if (which == "off") {
    t = replaceAll(t, ", issue: \"m\"", "");
    t = replaceAll(t, ", issue: \"rows\"", "");
    t = replaceAll(t, "\n      issue: \"min(m, 1) * (stride * (m - 1) + (kh - 1) * pitch + kw)\"", "");  // dwconv
  }
  return cache.emplace(which, isa::IsaConfig::parse(t, which + ".yaml")).first->second;
}

uint64_t u64(int64_t v) { return static_cast<uint64_t>(v); }
uint64_t stall(const sim::Stats& s, StallCause c) {
  return s.stall_cycles[static_cast<size_t>(isa::Unit::Compute)][static_cast<size_t>(c)];
}

sim::SimResult run(const isa::IsaConfig& isa, isa::ProgramBuilder& b) {
  sim::Simulator simulator(isa);
  sim::SimOptions options;
  options.timeline = true;
  return simulator.runDecoded(b.instructions(), b.data(), options);
}

const sim::TraceSlice& slice(const sim::SimResult& r, uint32_t instruction) {
  for (const auto& s : r.timeline)
    if (s.instruction == instruction) return s;
  throw std::logic_error("test: instruction not in the timeline");
}

constexpr int64_t R = 16, D = 30, VL = 4;  // default: array.rows, fill/drain, vector.latency

TEST(PipelineConfig, VariantsHaveTheExpectedParameters) {
  EXPECT_EQ(variant("on").params().array_weight_buffers, 2);
  EXPECT_EQ(variant("one").params().array_weight_buffers, 1);
  EXPECT_EQ(variant("off").params().array_weight_buffers, 1);
  const auto& on = variant("on");
  EXPECT_TRUE(on.instr(on.bySemantics(Semantics::MatmulTile)).has_issue);
  EXPECT_FALSE(on.instr(on.bySemantics(Semantics::WeightPreload)).has_issue);
  const auto& off = variant("off");
  for (const auto& d : off.instructions()) {
    if (d.unit == isa::Unit::Compute) {
      EXPECT_FALSE(d.has_issue) << d.name;
    }
  }
  EXPECT_EQ(on.params().array_rows, R);
  EXPECT_EQ(on.params().array_rows + on.params().array_cols - 2, D);
  EXPECT_EQ(on.params().vector_latency, VL);
  // tiny and os16 ship the serial model.
  for (const char* name : {"tiny", "os16"}) {
    const auto& isa = shippedConfig(name);
    EXPECT_EQ(isa.params().array_weight_buffers, 1) << name;
    for (const auto& d : isa.instructions()) {
      if (d.unit == isa::Unit::Compute) {
        EXPECT_FALSE(d.has_issue) << name << " " << d.name;
      }
    }
  }
}

// One preload, then N matmuls of m rows with those weights, then finish. The preload runs 0..R.
//   on/one: matmul k starts at R + k m (each issues in m cycles; the weights are ready at R) and
//           completes D later; finish waits for the last: cycles = R + N m + D + 1. Finish's wait
//           for the last drain (D) is a hazard stall; on, the preload ran on the weight path, so
//           the first matmul could have started at cycle 1 and waited R - 1 for the weights (a
//           hazard stall too), and the array's busy cycles are N m (the preload kept no row out);
//           one: the preload occupied the unit, the array is busy R + N m.
//   off:    each takes m + D: cycles = R + N (m + D) + 1.
// The same holds when every matmul accumulates into the same accumulator rows (a K reduction):
// results leave the array in order, so the accumulator is no hazard between matmuls.
TEST(Pipeline, BackToBackMatmulsOverlapFillAndDrain) {
  const int64_t N = 5;
  for (const int64_t m : {int64_t{1}, int64_t{16}, int64_t{100}}) {
    for (const bool sameRows : {false, true}) {
      SCOPED_TRACE("m " + std::to_string(m) + (sameRows ? " accumulating" : " distinct rows"));
      for (const char* which : {"on", "one", "off"}) {
        SCOPED_TRACE(which);
        const auto& isa = variant(which);
        isa::ProgramBuilder b(isa);
        b.emit(Semantics::WeightPreload, {0});
        for (int64_t k = 0; k < N; ++k)
          b.emit(Semantics::MatmulTile, {R + k * m, sameRows ? 0 : k * m, m, sameRows && k > 0 ? 1 : 0});
        b.emit(Semantics::Finish, {});
        const auto r = run(isa, b);
        const bool pipelined = std::string(which) != "off";
        for (int64_t k = 0; k < N; ++k) {
          const auto& s = slice(r, static_cast<uint32_t>(1 + k));
          EXPECT_EQ(s.start, u64(pipelined ? R + k * m : R + k * (m + D))) << k;
          EXPECT_EQ(s.end, s.start + u64(m + D)) << k;
        }
        EXPECT_EQ(r.stats.cycles, u64(pipelined ? R + N * m + D + 1 : R + N * (m + D) + 1));
        const bool two = std::string(which) == "on";
        EXPECT_EQ(r.stats.busy_cycles[static_cast<size_t>(Resource::Array)], u64(two         ? N * m
                                                                                 : pipelined ? R + N * m
                                                                                             : R + N * (m + D)));
        EXPECT_EQ(stall(r.stats, StallCause::Hazard), u64(two ? R - 1 + D : pipelined ? D : 0));
        EXPECT_EQ(r.stats.macs, u64(N * m * R * 16));
      }
    }
  }
}

/// N (preload into weight set k % 2, matmul of m rows accumulating after the first) pairs, then finish.
isa::ProgramBuilder preloadsAndMatmuls(const isa::IsaConfig& isa, int64_t N, int64_t m) {
  isa::ProgramBuilder b(isa);
  for (int64_t k = 0; k < N; ++k) {
    b.emit(Semantics::WeightPreload, {(k % 2) * R});
    b.emit(Semantics::MatmulTile, {2 * R, 0, m, k > 0 ? 1 : 0});
  }
  b.emit(Semantics::Finish, {});
  return b;
}

// N (preload, matmul) pairs, all matmuls accumulating into one tile, m >= R + D rows (64, 100).
//   on (two weight sets): preload k+1 runs on the weight path as soon as matmul k has started
//        (one start per cycle) and the set it overwrites is free: that set was last read by
//        matmul k-1. So matmul k starts at M_k = R + k m, back to back: preload 1 at R + 1, preload
//        k >= 2 at the completion of matmul k-2, M_{k-2} + m + D = R + (k-1) m + D, loaded R later,
//        no later than M_k because m >= R + D. cycles = R + N m + D + 1, as if all N matmuls used
//        one set. Hazard stalls: the first matmul waits R - 1 for its weights, preloads 2..N-1
//        wait D - 1 each for their set, finish D for the last drain;
//   one, off: preload k+1 waits for matmul k to complete (its only set is in use), and occupies
//        the unit: preload k starts at k (R + m + D), matmul k R later; cycles = N (R + m + D) + 1.
TEST(Pipeline, DoubleBufferedWeightsOverlapThePreload) {
  const int64_t N = 6;
  for (const int64_t m : {int64_t{64}, int64_t{100}}) {
    ASSERT_GE(m, R + D);
    SCOPED_TRACE("m " + std::to_string(m));
    for (const char* which : {"on", "one", "off"}) {
      SCOPED_TRACE(which);
      const auto& isa = variant(which);
      auto b = preloadsAndMatmuls(isa, N, m);
      const auto r = run(isa, b);
      const bool two = std::string(which) == "on";
      for (int64_t k = 0; k < N; ++k) {
        const int64_t preload = two ? (k == 0 ? 0 : k == 1 ? R + 1 : R + (k - 1) * m + D) : k * (R + m + D);
        const int64_t matmul = two ? R + k * m : k * (R + m + D) + R;
        EXPECT_EQ(slice(r, static_cast<uint32_t>(2 * k)).start, u64(preload)) << "preload " << k;
        EXPECT_EQ(slice(r, static_cast<uint32_t>(2 * k + 1)).start, u64(matmul)) << "matmul " << k;
      }
      EXPECT_EQ(r.stats.cycles, u64(two ? R + N * m + D + 1 : N * (R + m + D) + 1));
      const int64_t hazard = two ? (R - 1) + (N - 2) * (D - 1) + D : std::string(which) == "one" ? N * D : 0;
      EXPECT_EQ(stall(r.stats, StallCause::Hazard), u64(hazard));
    }
  }
}

// With two sets and short matmuls (m = 4 < R + D) the rules give, step by step (P_k, M_k the
// starts, M_k completing at M_k + m + D):
//   P_k     = max(M_{k-1} + 1, completion of M_{k-2} (its set), P_{k-1} + R (the weight path))
//   M_k     = max(M_{k-1} + m, P_k + R (its weights))
//   P = 0, 17, 50, 67, 100, 117;  M = 16, 33, 66, 83, 116, 133; the last completes at 167.
TEST(Pipeline, APreloadWaitsForTheMatmulsOfTheSetItOverwrites) {
  const int64_t m = 4, N = 6;
  const auto& isa = variant("on");
  auto b = preloadsAndMatmuls(isa, N, m);
  const auto r = run(isa, b);
  const std::vector<uint64_t> preloads = {0, 17, 50, 67, 100, 117}, matmuls = {16, 33, 66, 83, 116, 133};
  for (int64_t k = 0; k < N; ++k) {
    EXPECT_EQ(slice(r, static_cast<uint32_t>(2 * k)).start, preloads[static_cast<size_t>(k)]) << k;
    EXPECT_EQ(slice(r, static_cast<uint32_t>(2 * k + 1)).start, matmuls[static_cast<size_t>(k)]) << k;
  }
  EXPECT_EQ(r.stats.cycles, 168u);
}

// The array has one weight path: two preloads in a row load one after the other (the second
// starts at R), and a matmul waits for its set (at 2 R); an independent widen after the first
// preload starts at cycle 1 (the preload is on the weight path; here, a variant of on whose
// preload also gives `issue: 1`, which the weight path makes moot).
TEST(Pipeline, OnePreloadAtATime) {
  const auto& isa = variant("preload-issue");
  isa::ProgramBuilder b(isa);
  b.emit(Semantics::WeightPreload, {0});
  b.emit(Semantics::VectorWiden, {200, 300, 4, 0, 1});
  b.emit(Semantics::WeightPreload, {R});
  b.emit(Semantics::MatmulTile, {2 * R, 0, 8, 0});
  b.emit(Semantics::Finish, {});
  const auto r = run(isa, b);
  EXPECT_EQ(slice(r, 1).start, 1u);
  EXPECT_EQ(slice(r, 2).start, u64(R));
  EXPECT_EQ(slice(r, 3).start, u64(2 * R));
  EXPECT_EQ(r.stats.cycles, u64(2 * R + 8 + D + 1));
}

// What must wait, and what need not (on; off in brackets). The preload runs 0..R, the matmul
// (m = 32 rows, accumulator rows 0..32, activations in scratchpad rows R..R+32) from R, issuing
// until R + m and completing at E = R + m + D.
//   requantize of the matmul's rows:          waits for E (read after write) [starts at E too]
//   widen into other accumulator rows:        starts at R + m [E]
//   requantize writing the matmul's
//   activation rows (write after read):       waits for E [E]
//   vector_add writing the matmul's rows:     waits for E (write after write) [E]
// Each then issues in `rows` cycles and completes vector.latency later.
TEST(Pipeline, ComputeWaitsOnlyForTheResultsItNeeds) {
  const int64_t m = 32, rows = 8, E = R + m + D;
  struct Case {
    const char* what;
    Semantics s;
    std::vector<int64_t> ops;
    int64_t onStart;
  };
  const std::vector<Case> cases = {
      {"requantize reads the result", Semantics::Requantize, {0, 200, rows, 500, 0, -128, 127}, E},
      {"widen elsewhere", Semantics::VectorWiden, {200, 300, rows, 0, 1}, R + m},
      {"requantize over the activations", Semantics::Requantize, {300, R, rows, 500, 0, -128, 127}, E},
      {"add over the result", Semantics::VectorAdd, {4, 300, 401, rows}, E},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    for (const char* which : {"on", "off"}) {
      SCOPED_TRACE(which);
      const auto& isa = variant(which);
      isa::ProgramBuilder b(isa);
      b.emit(Semantics::WeightPreload, {0});
      b.emit(Semantics::MatmulTile, {R, 0, m, 0});
      if (c.ops.size() == 7)
        b.emit(c.s, {c.ops[0], c.ops[1], c.ops[2], c.ops[3], c.ops[4], c.ops[5], c.ops[6]});
      else if (c.ops.size() == 5)
        b.emit(c.s, {c.ops[0], c.ops[1], c.ops[2], c.ops[3], c.ops[4]});
      else
        b.emit(c.s, {c.ops[0], c.ops[1], c.ops[2], c.ops[3]});
      b.emit(Semantics::Finish, {});
      const auto r = run(isa, b);
      const bool on = std::string(which) == "on";
      const auto& v = slice(r, 2);
      EXPECT_EQ(v.start, u64(on ? c.onStart : E));
      EXPECT_EQ(v.end, v.start + u64(VL + rows));
      // On, the matmul (free to start at 1: the preload is on the weight path) waits R - 1 for its
      // weights, the vector instruction onStart - (R + m), and finish, free at v.start + rows,
      // for the later of the two completions.
      const int64_t finishWait = std::max(E, c.onStart + VL + rows) - (c.onStart + rows);
      EXPECT_EQ(stall(r.stats, StallCause::Hazard), u64(on ? (R - 1) + c.onStart - (R + m) + finishWait : 0));
      EXPECT_EQ(r.stats.cycles, std::max(u64(E), v.end) + 1);
    }
  }
}

// Tokens are pushed at completion, not at issue: a store waiting for a pipelined matmul's token
// starts when the matmul's rows are written, E = R + m + D, on and off alike.
TEST(Pipeline, TokensArePushedWhenTheResultIsReady) {
  const int64_t m = 16;
  for (const char* which : {"on", "off"}) {
    SCOPED_TRACE(which);
    const auto& isa = variant(which);
    isa::ProgramBuilder b(isa);
    b.emit(Semantics::WeightPreload, {0});
    b.emit(Semantics::MatmulTile, {R, 0, m, 0}, isa::kPushNext);
    b.emit(Semantics::DmaStoreAcc, {0x10000, 0, m, 64, 64}, isa::kPopPrev);
    b.emit(Semantics::Finish, {});
    const auto r = run(isa, b);
    EXPECT_EQ(slice(r, 2).start, u64(R + m + D));
  }
}

// The compiler's cost model runs the same scoreboard (isa::computeSpan): the compute span of the
// programs above equals the simulated end of their last compute instruction.
TEST(Pipeline, ComputeSpanMatchesTheSimulator) {
  for (const char* which : {"on", "one", "off"}) {
    SCOPED_TRACE(which);
    const auto& isa = variant(which);
    for (const int64_t m : {int64_t{4}, int64_t{64}}) {
      isa::ProgramBuilder b(isa);
      for (int64_t k = 0; k < 5; ++k) {
        b.emit(Semantics::WeightPreload, {(k % 2) * R});
        b.emit(Semantics::MatmulTile, {2 * R, 0, m, k > 0 ? 1 : 0});
      }
      b.emit(Semantics::Requantize, {0, 2 * R + m, m, 500, 0, -128, 127});
      b.emit(Semantics::VectorWiden, {2 * R, 600, m, 0, 1});
      const auto& code = b.instructions();
      const int64_t span = isa::computeSpan(isa, code.data(), code.data() + code.size());
      b.emit(Semantics::Finish, {});
      const auto r = run(isa, b);
      EXPECT_EQ(u64(span) + 1, r.stats.cycles) << "m " << m;
    }
  }
}

// The compiler's cost model of a DMA queue (isa::dmaSpan): each transfer occupies the unit for its
// occupancy (`issue` with dma.outstanding > 1), at most dma.outstanding are in flight and they
// complete in order after their `timing.cycles`. On one DMA unit with the channel to itself, the
// span equals the simulated end of its last transfer: short transfers are bounded by the latency
// window, long ones by their transfer time.
TEST(Pipeline, DmaSpanMatchesTheSimulator) {
  for (const char* outstanding : {"outstanding: 4", "outstanding: 1"}) {
    SCOPED_TRACE(outstanding);
    const isa::IsaConfig isa =
        isa::IsaConfig::parse(replaceAll(defaultText(), "outstanding: 4", outstanding), "dma.yaml");
    for (const int64_t rows : {int64_t{7}, int64_t{300}}) {
      isa::ProgramBuilder b(isa);
      for (int64_t k = 0; k < 12; ++k) b.emit(Semantics::DmaLoad, {4096 + k * 16 * rows, (k % 4) * rows, rows, 16, 16});
      const auto& code = b.instructions();
      const int64_t span = isa::dmaSpan(isa, isa::Unit::Load, code.data(), code.data() + code.size());
      b.emit(Semantics::Finish, {});
      const auto r = run(isa, b);
      EXPECT_EQ(u64(span), r.stats.cycles)
          << "rows " << rows;  // finish, on the compute queue, ends with the last transfer
    }
  }
}

}  // namespace
}  // namespace systole::testing

namespace systole::testing {
namespace {

// The shared DRAM channel (isa::DramChannel, used by the simulator and the cost model): a
// transfer takes free cycles from its request on, possibly in pieces, and a request that arrives
// out of time order fills an earlier gap instead of queueing behind later traffic.
TEST(DramChannel, FirstComeFirstServedWithGapFilling) {
  isa::DramChannel c;
  EXPECT_EQ(c.reserve(0, 10), 10u);  // idle: no wait
  EXPECT_EQ(c.reserve(5, 10), 20u);  // waits for the first transfer's cycles 5..9
  EXPECT_EQ(c.reserve(40, 5), 45u);
  EXPECT_EQ(c.reserve(22, 5), 27u);   // an earlier gap: no wait behind [40, 45)
  EXPECT_EQ(c.reserve(25, 20), 52u);  // pieces [27, 40) and [45, 52): 20 cycles end at 52
}

}  // namespace
}  // namespace systole::testing
