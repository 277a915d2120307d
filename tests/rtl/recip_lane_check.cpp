// Verilator check of rtl/recip_lane.sv (VECTOR_LANES lanes side by side, one accumulator row per
// cycle, as the vector unit runs vector_recip) against systole::isa::arith::reciprocal (op 0) and
// reciprocalSqrt (op 1), bit for bit, with edge values: x <= 0, 1, int32 limits, powers of two and
// their neighbours, perfect squares and their neighbours, x at the saturation boundary (y = 2^31
// exactly or just below) and x at the boundaries where y steps (x * y == 2^s, x * y^2 == 2^(2s)
// and one either side), for every shift from 0 to 63. Each instruction's occupancy - its first row
// in to its last row out - must equal vector_recip's YAML timing expression
// (`2 * vector.latency + rows` in the shipped configs). A config without vector_recip has nothing
// to check: the check says so and passes.
#include <algorithm>
#include <array>
#include <climits>
#include <string>
#include <vector>

#include "Vtb_recip_lane.h"
#include "row_stream.h"
#include "systole/isa/arith.h"

namespace {

using namespace systole;
using namespace systole::rtlcheck;
using Tb = Vtb_recip_lane;
using u128 = unsigned __int128;

struct Instr {
  int shift = 0;  // the 6-bit field
  bool sqrt = false;
  std::vector<std::vector<int32_t>> x;  // rows x lanes
  int64_t dstRow = 0, srcRow = 0;
};

int32_t clampX(u128 v) { return static_cast<int32_t>(std::min<u128>(v, INT32_MAX)); }

/// An x for shift s and the op: mostly values where the result changes or saturates.
int32_t pickX(std::mt19937_64& rng, int s, bool sqrt) {
  const int k = sqrt ? 2 : 1;
  const u128 budget = u128{1} << (k * s);  // 2^(k s)
  const int64_t nudge = uniform(rng, -1, 1);
  auto near = [&](u128 v) {  // v - 1, v or v + 1, within [0, INT32_MAX]
    return clampX(nudge < 0 ? (v == 0 ? 0 : v - 1) : v + static_cast<u128>(nudge));
  };
  switch (rng() % 9) {
    case 0: {
      static constexpr std::array<int32_t, 10> kEdges = {INT32_MIN,     -1,      0,         1, 2, 3, INT32_MAX,
                                                         INT32_MAX - 1, 1 << 30, -(1 << 30)};
      return kEdges[rng() % kEdges.size()];
    }
    case 1: return near(u128{1} << uniform(rng, 0, 30));  // 2^a - 1, 2^a, 2^a + 1
    case 2: {                                             // a perfect square and its neighbours
      const auto r = static_cast<uint64_t>(uniform(rng, 1, 46340));
      return near(u128{r} * r);
    }
    case 3:
      // The saturation boundary: y = 2^31 exactly when x = 2^(k (s - 31)).
      if (s >= 31 && k * (s - 31) <= 31) return near(u128{1} << (k * (s - 31)));
      return static_cast<int32_t>(uniform(rng, 1, INT32_MAX));
    case 4:
    case 5: {
      // A step of the result: x = floor(2^(k s) / y^k) for a random y, and one either side.
      const auto y = static_cast<uint64_t>(uniform(rng, 1, rng() & 1 ? 100000 : INT32_MAX));
      const u128 fy = sqrt ? u128{y} * y : u128{y};
      return near(budget / fy);
    }
    case 6: return static_cast<int32_t>(uniform(rng, 1, 1000));
    case 7: return static_cast<int32_t>(static_cast<uint32_t>(rng()) >> uniform(rng, 0, 31));  // any magnitude
    default: return static_cast<int32_t>(static_cast<uint32_t>(rng()));
  }
}

int pickShift(std::mt19937_64& rng, bool sqrt) {
  static constexpr std::array<int, 12> kEdges = {0, 1, 16, 30, 31, 32, 33, 46, 47, 61, 62, 63};
  switch (rng() % 4) {
    case 0: return kEdges[rng() % kEdges.size()];
    case 1: return static_cast<int>(uniform(rng, 0, 63));
    // Where most results are neither 0 nor saturated: y < 2^31 needs 2^s < 2^31 x (op 0) or
    // 2^(2s) < 2^62 x (op 1), so s <= 61 or s <= 46.
    default: return static_cast<int>(sqrt ? uniform(rng, 12, 46) : uniform(rng, 20, 61));
  }
}

/// Every shift's and op's edge values, in order: x <= 0, 1..3, INT32_MAX, 2^a and its neighbours,
/// the saturation boundary x = 2^(k (s - 31)) and its neighbours, and the x where the result steps
/// (x = floor(2^(k s) / y^k) for small, mid-range and near-saturating y) and their neighbours.
std::vector<int32_t> sweepXs(int s, bool sqrt) {
  const int k = sqrt ? 2 : 1;
  std::vector<int32_t> xs = {INT32_MIN, -1, 0, 1, 2, 3, INT32_MAX};
  auto around = [&](u128 v) {  // v - 1, v, v + 1 (within [0, INT32_MAX])
    if (v > 0) xs.push_back(clampX(v - 1));
    xs.push_back(clampX(v));
    xs.push_back(clampX(v + 1));
  };
  for (int a = 0; a <= 30; ++a) around(u128{1} << a);
  if (s >= 31 && k * (s - 31) <= 31) around(u128{1} << (k * (s - 31)));
  std::vector<uint64_t> ys;
  for (uint64_t y = 1; y <= 24; ++y) ys.push_back(y);
  constexpr uint64_t kMax = INT32_MAX;
  for (const uint64_t y :
       std::array<uint64_t, 9>{46340, 46341, 65535, 65536, kMax / 2 + 1, kMax / 2 + 2, kMax - 1, kMax, kMax + 1})
    ys.push_back(y);
  for (uint64_t y : ys) around((u128{1} << (k * s)) / (sqrt ? u128{y} * y : u128{y}));
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  return xs;
}

class RecipCheck final : public LaneCheck<Tb, Instr> {
 public:
  RecipCheck(const isa::IsaConfig& isa, Clocked<Tb>& sim, Report& report, std::mt19937_64& rng)
      : LaneCheck(isa, sim, report, rng, isa::Semantics::VectorRecip) {}

  bool present() const { return timing_.present(); }

  /// The limit of the class's k-th operand (dst_row, src_row, rows, shift, op).
  int64_t limit(int k) const { return timing_.operandLimit(k); }

  Instr randomInstr() {
    Instr in;
    const int64_t rowsMax = std::min<int64_t>({limit(2), p_.acc_rows, 48});
    const int rows = static_cast<int>(rng_() % 5 == 0 ? 1 : uniform(rng_, 1, rowsMax));
    in.sqrt = limit(4) >= 1 && (rng_() & 1);
    in.shift = static_cast<int>(std::min<int64_t>(pickShift(rng_, in.sqrt), limit(3)));
    in.srcRow = uniform(rng_, 0, std::min(limit(1), p_.acc_rows - rows));
    in.dstRow = uniform(rng_, 0, std::min(limit(0), p_.acc_rows - rows));
    in.x.assign(static_cast<size_t>(rows), std::vector<int32_t>(static_cast<size_t>(L_)));
    for (auto& row : in.x)
      for (auto& x : row) x = pickX(rng_, in.shift, in.sqrt);
    return in;
  }

  /// The sweep of every shift (within the field) and op: sweepXs packed into rows, back to back.
  std::vector<Instr> sweep() {
    std::vector<Instr> prog;
    const size_t rowsMax = static_cast<size_t>(std::min<int64_t>({limit(2), p_.acc_rows, 48}));
    for (int op = 0; op <= std::min<int64_t>(limit(4), 1); ++op)
      for (int sh = 0; sh <= std::min<int64_t>(limit(3), 63); ++sh) {
        const auto xs = sweepXs(sh, op != 0);
        for (size_t e = 0; e < xs.size();) {
          Instr in;
          in.shift = sh;
          in.sqrt = op != 0;
          while (e < xs.size() && in.x.size() < rowsMax) {
            in.x.emplace_back(static_cast<size_t>(L_), 1);
            for (auto& x : in.x.back()) x = e < xs.size() ? xs[e++] : 1;
          }
          prog.push_back(std::move(in));
        }
      }
    return prog;
  }

  int64_t saturated() const { return saturated_; }
  int64_t zeros() const { return zeros_; }

 private:
  void garbageInputs() override {
    for (int j = 0; j < L_; ++j) putBits(t_.in_x_i, 32 * j, 32, rng_());
    t_.in_shift_i = static_cast<uint8_t>(rng_() & 63);
    t_.in_op_i = rng_() & 1;
  }

  void putInputs(const Instr& in, size_t row) override {
    for (int j = 0; j < L_; ++j)
      putBits(t_.in_x_i, 32 * j, 32, static_cast<uint32_t>(in.x[row][static_cast<size_t>(j)]));
    t_.in_shift_i = static_cast<uint8_t>(in.shift);
    t_.in_op_i = in.sqrt;
  }

  void compareRow(const Instr& in, size_t row) override {
    for (int j = 0; j < L_; ++j) {
      const int32_t x = in.x[row][static_cast<size_t>(j)];
      const int32_t want = in.sqrt ? isa::arith::reciprocalSqrt(x, in.shift) : isa::arith::reciprocal(x, in.shift);
      const auto got = static_cast<int32_t>(getBits(t_.out_data_o, 32 * j, 32));
      saturated_ += want == isa::arith::kInt32Max;
      zeros_ += want == 0;
      if (got != want)
        r_.fail(std::string("DATA MISMATCH ") + (in.sqrt ? "reciprocalSqrt" : "reciprocal") +
                "(x=" + std::to_string(x) + ", shift=" + std::to_string(in.shift) + ") lane " + std::to_string(j) +
                ": model " + std::to_string(want) + ", RTL " + std::to_string(got));
      else
        r_.pass();
    }
  }

  /// An instruction's occupancy: its first row in to its last row out.
  void checkTiming(const Instr& in, int64_t cycles) override {
    auto name = [&](int k) { return timing_.operandName(k); };
    const std::vector<std::pair<const char*, int64_t>> ops = {{name(0), in.dstRow},
                                                              {name(1), in.srcRow},
                                                              {name(2), static_cast<int64_t>(in.x.size())},
                                                              {name(3), in.shift},
                                                              {name(4), in.sqrt ? 1 : 0}};
    timing_.check(r_, ops, cycles);
  }

  int64_t saturated_ = 0, zeros_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  return checkMain<Tb, RecipCheck>(argc, argv, "recip_lane", [](Session<Tb>& s, RecipCheck& check) {
    if (!check.present()) return s.report.finish("the config has no vector_recip instruction: nothing to check");

    // First every shift and op with its edge values, then random batches.
    const std::vector<Instr> sweep = check.sweep();
    check.run(sweep, std::vector<int>(sweep.size(), 0));
    // Batches of vector_recip instructions, some back to back, some with idle gaps between them.
    check.runBatches(s.cases(1000), 2 * s.isa.params().vector_latency, [&] { return check.randomInstr(); });
    return s.finish(std::to_string(check.items()) + " vector_recip instructions, " + std::to_string(check.rows()) +
                    " rows x " + std::to_string(s.isa.params().vector_lanes) + " lanes compared (" +
                    std::to_string(check.saturated()) + " saturated or x <= 0, " + std::to_string(check.zeros()) +
                    " zero)");
  });
}
