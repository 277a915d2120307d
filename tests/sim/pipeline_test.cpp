// Pipelined compute (timing.issue on compute instructions) and weight double buffering
// (array.weight_buffers), derived by hand on three variants of the default config:
//   on   the shipped default: gemm `cycles = m + array.rows + array.cols - 2`, `issue = m`; vector
//        instructions `cycles = vector.latency + rows`, `issue = rows`; weight_buffers = 2;
//        preload `cycles = array.rows` (no issue: it occupies the unit until its set is loaded);
//   one  the same with weight_buffers = 1;
//   off  no issue on compute and weight_buffers = 1 (the serial model of tiny and os16).
// The rules (isa/pipeline.h): the unit takes its next instruction `issue` cycles after a start; an
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
  if (which == "preload-issue") t = replaceAll(t, "timing: {cycles: \"array.rows\"}", "timing: {cycles: \"array.rows\", issue: \"1\"}");
  if (which == "off") {
    t = replaceAll(t, ", issue: \"m\"", "");
    t = replaceAll(t, ", issue: \"rows\"", "");
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
//           completes D later; finish waits for the last: cycles = R + N m + D + 1. The array is
//           busy R + N m cycles; finish's wait for the last drain (D) is a hazard stall.
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
        EXPECT_EQ(r.stats.busy_cycles[static_cast<size_t>(Resource::Array)], u64(pipelined ? R + N * m : R + N * (m + D)));
        EXPECT_EQ(stall(r.stats, StallCause::Hazard), u64(pipelined ? D : 0));
        EXPECT_EQ(r.stats.macs, u64(N * m * R * 16));
      }
    }
  }
}

// N (preload, matmul) pairs, matmul k with m >= D - R rows (here 16 and 64), all accumulating into
// one tile. Preload k starts at s_k and ends at s_k + R; matmul k starts there and ends at
// s_k + R + m + D, issuing until s_k + R + m.
//   on (two weight sets): preload k+1 fills the other set as soon as matmul k has issued
//        (s_k + R + m); the set it overwrites was last read by matmul k-1, complete at
//        s_{k-1} + R + m + D, which is no later because R + m >= D. So s_k = k (R + m):
//        cycles = N (R + m) + D + 1, and only finish waits (D) for a result;
//   one, off: preload k+1 waits for matmul k to complete (its only set is in use), so
//        s_k = k (R + m + D): cycles = N (R + m + D) + 1.
TEST(Pipeline, DoubleBufferedWeightsOverlapThePreload) {
  const int64_t N = 6;
  for (const int64_t m : {int64_t{16}, int64_t{64}}) {
    ASSERT_GE(m, D - R);
    SCOPED_TRACE("m " + std::to_string(m));
    for (const char* which : {"on", "one", "off"}) {
      SCOPED_TRACE(which);
      const auto& isa = variant(which);
      isa::ProgramBuilder b(isa);
      for (int64_t k = 0; k < N; ++k) {
        b.emit(Semantics::WeightPreload, {(k % 2) * R});
        b.emit(Semantics::MatmulTile, {2 * R, 0, m, k > 0 ? 1 : 0});
      }
      b.emit(Semantics::Finish, {});
      const auto r = run(isa, b);
      const bool two = std::string(which) == "on";
      const int64_t period = two ? R + m : R + m + D;
      for (int64_t k = 0; k < N; ++k) {
        EXPECT_EQ(slice(r, static_cast<uint32_t>(2 * k)).start, u64(k * period)) << "preload " << k;
        EXPECT_EQ(slice(r, static_cast<uint32_t>(2 * k + 1)).start, u64(k * period + R)) << "matmul " << k;
      }
      EXPECT_EQ(r.stats.cycles, u64(two ? N * (R + m) + D + 1 : N * (R + m + D) + 1));
      // With one set and a pipelined matmul, each preload waits D for the matmul before it.
      EXPECT_EQ(stall(r.stats, StallCause::Hazard), u64(std::string(which) == "one" ? (N - 1) * D + D : two ? D : 0));
    }
  }
}

// With two sets and short matmuls (m < D - R) the set a preload overwrites may still be in use:
// preload k+1 starts at max(s_k + R + m, s_{k-1} + R + m + D). For m = 4: s = 0, 20, 50, 70, 100,
// 120: two pairs per R + m + D = 50 cycles.
TEST(Pipeline, APreloadWaitsForTheMatmulsOfTheSetItOverwrites) {
  const int64_t m = 4, N = 6;
  const auto& isa = variant("on");
  isa::ProgramBuilder b(isa);
  for (int64_t k = 0; k < N; ++k) {
    b.emit(Semantics::WeightPreload, {(k % 2) * R});
    b.emit(Semantics::MatmulTile, {2 * R, 0, m, k > 0 ? 1 : 0});
  }
  b.emit(Semantics::Finish, {});
  const auto r = run(isa, b);
  const std::vector<uint64_t> expected = {0, 20, 50, 70, 100, 120};
  for (int64_t k = 0; k < N; ++k) EXPECT_EQ(slice(r, static_cast<uint32_t>(2 * k)).start, expected[static_cast<size_t>(k)]) << k;
  EXPECT_EQ(r.stats.cycles, 120u + R + m + D + 1);
}

// A preload that gives `issue: 1` (a variant of on) frees the unit after a cycle, but the array
// has one weight path: two preloads in a row still load one after the other (the second starts
// at R), and a matmul waits for its set (at 2 R); an independent widen after the first preload
// starts at cycle 1.
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
      if (c.ops.size() == 7) b.emit(c.s, {c.ops[0], c.ops[1], c.ops[2], c.ops[3], c.ops[4], c.ops[5], c.ops[6]});
      else if (c.ops.size() == 5) b.emit(c.s, {c.ops[0], c.ops[1], c.ops[2], c.ops[3], c.ops[4]});
      else b.emit(c.s, {c.ops[0], c.ops[1], c.ops[2], c.ops[3]});
      b.emit(Semantics::Finish, {});
      const auto r = run(isa, b);
      const bool on = std::string(which) == "on";
      const auto& v = slice(r, 2);
      EXPECT_EQ(v.start, u64(on ? c.onStart : E));
      EXPECT_EQ(v.end, v.start + u64(VL + rows));
      // On, the vector instruction waits onStart - (R + m), and finish, free at v.start + rows,
      // waits for the later of the two completions.
      const int64_t finishWait = std::max(E, c.onStart + VL + rows) - (c.onStart + rows);
      EXPECT_EQ(stall(r.stats, StallCause::Hazard), u64(on ? c.onStart - (R + m) + finishWait : 0));
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

}  // namespace
}  // namespace systole::testing
