// Verilator check of rtl/vector_mac_lane.sv (VECTOR_LANES lanes side by side, one row per cycle, as
// the vector unit runs vector_mac) against systole::isa::arith::storeAccumulator(arith::mac(
// accumulate ? acc : 0, x, w), accumulator.bits), bit for bit, with edge values: activation and
// weight lanes at their limits, 0 and +-1 (int8 or int16), accumulators at the int32 limits (so the
// 32-bit sum wraps) and around the limits of a narrower accumulator (so it saturates), accumulate 0
// and 1. Each instruction's occupancy - its first row in to its last row out - must equal
// vector_mac's YAML timing expression (`vector.latency + rows` in default). A config without
// vector_mac has nothing to check: the check says so and passes.
#include <algorithm>
#include <array>
#include <climits>
#include <string>
#include <vector>

#include "Vtb_vector_mac_lane.h"
#include "row_stream.h"
#include "systole/isa/arith.h"

namespace {

using namespace systole;
using namespace systole::rtlcheck;
using Tb = Vtb_vector_mac_lane;

struct Instr {
  bool accumulate = false;
  std::vector<int32_t> w;                 // the weight row, per lane
  std::vector<std::vector<int32_t>> x;    // rows x lanes: the scratchpad rows
  std::vector<std::vector<int32_t>> acc;  // rows x lanes: the accumulator's old values
  int64_t dstRow = 0, srcRow = 0, wRow = 0, stride = 0;
};

/// A scratchpad lane of `bits` bits, its edges half the time.
int32_t pickLane(std::mt19937_64& rng, int bits) {
  const int32_t lo = isa::arith::activationMin(bits), hi = isa::arith::activationMax(bits);
  const std::array<int32_t, 6> edges = {lo, hi, 0, -1, 1, lo + 1};
  return edgeOrUniform<int32_t>(rng, edges, lo, hi);
}

/// An accumulator's old value: the int32 limits and those of a `bits`-bit accumulator, exactly or
/// within one product of them (|x * w| <= `span`), so the sum wraps or saturates; or any value.
int32_t pickAcc(std::mt19937_64& rng, int bits, int64_t span) {
  const int64_t hi = isa::arith::accumulatorMax(bits);
  const std::array<int64_t, 4> limits = {INT32_MAX, INT32_MIN, hi, -hi - 1};
  switch (rng() % 4) {
    case 0: {
      static constexpr std::array<int32_t, 7> kEdges = {INT32_MIN, INT32_MAX, INT32_MIN + 1, INT32_MAX - 1, 0, 1, -1};
      return kEdges[rng() % kEdges.size()];
    }
    case 1:
    case 2: return isa::arith::wrap32(limits[rng() % limits.size()] + uniform(rng, -span, span));
    default: return static_cast<int32_t>(static_cast<uint32_t>(rng()));
  }
}

class VectorMacCheck final : public LaneCheck<Tb, Instr> {
 public:
  VectorMacCheck(const isa::IsaConfig& isa, Clocked<Tb>& sim, Report& report, std::mt19937_64& rng)
      : LaneCheck(isa, sim, report, rng, isa::Semantics::VectorMac) {}

  bool packageMatches() { return packageAndLaneBitsMatch(); }

  bool present() const { return timing_.present(); }

  /// The limit of the class's k-th operand (dst_row, src_row, w_row, rows, stride, accumulate).
  int64_t limit(int k) const { return timing_.operandLimit(k); }

  Instr randomInstr() {
    Instr in;
    const int A = p_.act_bits;
    const int64_t span = int64_t{1} << (2 * A - 2);  // the largest |x * w|
    const int64_t rowsMax = std::min<int64_t>({limit(3), p_.acc_rows, 48});
    const int rows = static_cast<int>(rng_() % 5 == 0 ? 1 : uniform(rng_, 1, rowsMax));
    in.stride = uniform(rng_, 0, std::min<int64_t>(limit(4), (p_.spad_rows - 1) / std::max(rows - 1, 1)));
    in.accumulate = limit(5) >= 1 && (rng_() & 1);
    in.dstRow = uniform(rng_, 0, std::min(limit(0), p_.acc_rows - rows));
    in.srcRow = uniform(rng_, 0, std::min(limit(1), p_.spad_rows - 1 - in.stride * (rows - 1)));
    in.wRow = uniform(rng_, 0, std::min(limit(2), p_.spad_rows - 1));
    for (int j = 0; j < L_; ++j) in.w.push_back(pickLane(rng_, A));
    in.x.assign(static_cast<size_t>(rows), std::vector<int32_t>(static_cast<size_t>(L_)));
    in.acc = in.x;
    for (size_t i = 0; i < in.x.size(); ++i)
      for (size_t j = 0; j < static_cast<size_t>(L_); ++j) {
        in.x[i][j] = pickLane(rng_, A);
        in.acc[i][j] = pickAcc(rng_, p_.acc_bits, span);
      }
    return in;
  }

  int64_t wrapped() const { return wrapped_; }
  int64_t saturated() const { return saturated_; }

 private:
  uint32_t laneMask() const { return (1u << p_.act_bits) - 1; }

  void garbageInputs() override {
    const int A = p_.act_bits;
    for (int j = 0; j < L_; ++j) {
      putBits(t_.in_x_i, A * j, A, rng_());
      putBits(t_.in_w_i, A * j, A, rng_());
      putBits(t_.in_acc_i, 32 * j, 32, rng_());
    }
    t_.in_accumulate_i = rng_() & 1;
  }

  void putInputs(const Instr& in, size_t row) override {
    const int A = p_.act_bits;
    for (int j = 0; j < L_; ++j) {
      const size_t lj = static_cast<size_t>(j);
      putBits(t_.in_x_i, A * j, A, static_cast<uint32_t>(in.x[row][lj]) & laneMask());
      putBits(t_.in_w_i, A * j, A, static_cast<uint32_t>(in.w[lj]) & laneMask());
      putBits(t_.in_acc_i, 32 * j, 32, static_cast<uint32_t>(in.acc[row][lj]));
    }
    t_.in_accumulate_i = in.accumulate;
  }

  void compareRow(const Instr& in, size_t row) override {
    for (int j = 0; j < L_; ++j) {
      const size_t lj = static_cast<size_t>(j);
      const int32_t x = in.x[row][lj], w = in.w[lj], acc = in.accumulate ? in.acc[row][lj] : 0;
      const int32_t sum = isa::arith::mac(acc, x, w);
      const int32_t want = isa::arith::storeAccumulator(sum, p_.acc_bits);
      const auto got = static_cast<int32_t>(getBits(t_.out_data_o, 32 * j, 32));
      wrapped_ += sum != int64_t{acc} + int64_t{x} * w;
      saturated_ += want != sum;
      if (got != want)
        r_.fail("DATA MISMATCH vector_mac(acc=" + std::to_string(in.acc[row][lj]) + ", x=" + std::to_string(x) +
                ", w=" + std::to_string(w) + ", accumulate=" + std::to_string(in.accumulate) + ") lane " +
                std::to_string(j) + ": model " + std::to_string(want) + ", RTL " + std::to_string(got));
      else
        r_.pass();
    }
  }

  /// An instruction's occupancy: its first row in to its last row out.
  void checkTiming(const Instr& in, int64_t cycles) override {
    auto name = [&](int k) { return timing_.operandName(k); };
    const std::vector<std::pair<const char*, int64_t>> ops = {
        {name(0), in.dstRow}, {name(1), in.srcRow},
        {name(2), in.wRow},   {name(3), static_cast<int64_t>(in.x.size())},
        {name(4), in.stride}, {name(5), in.accumulate ? 1 : 0}};
    timing_.check(r_, ops, cycles);
  }

  int64_t wrapped_ = 0, saturated_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  return checkMain<Tb, VectorMacCheck>(argc, argv, "vector_mac_lane", [](Session<Tb>& s, VectorMacCheck& check) {
    if (!check.present()) return s.report.finish("the config has no vector_mac instruction: nothing to check");

    // Batches of vector_mac instructions, some back to back, some with idle gaps between them.
    check.runBatches(s.cases(500), s.isa.params().vector_latency, [&] { return check.randomInstr(); });
    return s.finish(std::to_string(check.items()) + " vector_mac instructions, " + std::to_string(check.rows()) +
                    " rows x " + std::to_string(s.isa.params().vector_lanes) + " lanes compared (" +
                    std::to_string(check.wrapped()) + " wrapped, " + std::to_string(check.saturated()) + " saturated)");
  });
}
