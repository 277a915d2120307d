// Verilator check of rtl/requant_lane.sv (VECTOR_LANES lanes side by side, one accumulator row per
// cycle, as the vector unit runs requantize) against systole::isa::arith::requantizeLane into the
// config's activation lanes (int8 or int16), bit for bit,
// with edge values: int32 limits for inputs and multipliers, shifts 0 and 63 and shift words whose
// upper bits are set (only the low 6 count), exact rounding ties of both signs, non-zero zero
// points, ReLU, and clamp_min > clamp_max. Each instruction's occupancy - its first row in to its
// last row out - must equal requantize's YAML timing expression (`vector.latency + rows`).
#include <algorithm>
#include <array>
#include <climits>
#include <string>
#include <vector>

#include "Vtb_requant_lane.h"
#include "row_stream.h"
#include "systole/isa/arith.h"

namespace {

using namespace systole;
using namespace systole::rtlcheck;
using Tb = Vtb_requant_lane;

struct Instr {
  int id = 0;
  std::vector<int32_t> mult, shift;     // the two scale rows, per lane
  int32_t zp = 0, lo = 0, hi = 0;       // signed operands of activation.bits
  std::vector<std::vector<int32_t>> x;  // rows x lanes
  int64_t accRow = 0, spadRow = 0, scaleRow = 0;
};

int32_t pickX(std::mt19937_64& rng) {
  static constexpr std::array<int32_t, 10> kEdges = {INT32_MIN, INT32_MAX, INT32_MIN + 1, 0,     1,
                                                     -1,        1 << 30,   -(1 << 30),    65535, -65536};
  const uint64_t r = rng() % 4;
  if (r == 0) return kEdges[rng() % kEdges.size()];
  if (r == 1) return static_cast<int32_t>(uniform(rng, -100000, 100000));
  return static_cast<int32_t>(static_cast<uint32_t>(rng()));
}

int32_t pickMult(std::mt19937_64& rng) {
  static constexpr std::array<int32_t, 9> kEdges = {INT32_MIN,     INT32_MAX,     0,         1, -1, 1 << 30,
                                                    (1 << 30) + 1, INT32_MIN + 1, 1518500250};
  const uint64_t r = rng() % 3;
  if (r == 0) return kEdges[rng() % kEdges.size()];
  if (r == 1) return static_cast<int32_t>(uniform(rng, 1 << 29, INT32_MAX));  // a typical scale in (0.25, 1) * 2^31
  return static_cast<int32_t>(static_cast<uint32_t>(rng()));
}

int32_t pickShiftWord(std::mt19937_64& rng) {
  // The lane uses shift & 63: words with upper bits set must behave like their low 6 bits.
  static constexpr std::array<int32_t, 12> kEdges = {0,  63,     1,  31,        32,        62,
                                                     64, 64 + 5, -1, INT32_MIN, INT32_MAX, 0x7fffffc1};
  const uint64_t r = rng() % 4;
  if (r == 0) return kEdges[rng() % kEdges.size()];
  if (r == 3) return static_cast<int32_t>(static_cast<uint32_t>(rng()));
  return static_cast<int32_t>(uniform(rng, 0, 63));
}

/// A lane value of `bits` bits, its edges half the time.
int32_t pickLane(std::mt19937_64& rng, int bits) {
  const int32_t lo = isa::arith::activationMin(bits), hi = isa::arith::activationMax(bits);
  const std::array<int32_t, 6> edges = {lo, hi, 0, -1, 1, lo + 1};
  if (rng() & 1) return edges[rng() % edges.size()];
  return static_cast<int32_t>(uniform(rng, lo, hi));
}

class RequantCheck final : public LaneCheck<Tb, Instr> {
 public:
  RequantCheck(const isa::IsaConfig& isa, Clocked<Tb>& sim, Report& report, std::mt19937_64& rng)
      : LaneCheck(isa, sim, report, rng, isa::Semantics::Requantize) {}

  bool packageMatches() {
    bool ok = LaneCheck::packageMatches();
    ok &= samePackage(r_, "ACTIVATION_BITS", t_.pkg_act_bits_o, p_.act_bits);
    if (!timing_.present()) {
      r_.fail("the config has no requantize instruction");
      ok = false;
    }
    return ok;
  }

  int64_t fieldLimit(const char* field) const { return timing_.fieldLimit(field); }

  Instr randomInstr(int id) {
    Instr in;
    in.id = id;
    const int64_t rowsMax = std::min<int64_t>({fieldLimit("rows"), p_.acc_rows - 2, 48});
    const int rows = static_cast<int>(rng_() % 5 == 0 ? 1 : uniform(rng_, 1, rowsMax));
    const int mode = static_cast<int>(rng_() % 8);
    in.mult.resize(static_cast<size_t>(L_));
    in.shift.resize(static_cast<size_t>(L_));
    for (int j = 0; j < L_; ++j) {
      in.mult[static_cast<size_t>(j)] = pickMult(rng_);
      in.shift[static_cast<size_t>(j)] = pickShiftWord(rng_);
    }
    const int A = p_.act_bits;
    const int32_t amin = isa::arith::activationMin(A), amax = isa::arith::activationMax(A);
    in.zp = pickLane(rng_, A);
    switch (rng_() % 5) {
      case 0: in.lo = amin, in.hi = amax; break;                            // no activation
      case 1: in.lo = in.zp, in.hi = amax; break;                           // ReLU
      case 2: in.lo = pickLane(rng_, A), in.hi = pickLane(rng_, A); break;  // anything, crossed pairs included
      case 3:
        in.lo = static_cast<int32_t>(uniform(rng_, 0, amax)),
        in.hi = static_cast<int32_t>(uniform(rng_, amin, in.lo - 1));
        break;  // clamp_min > clamp_max
      default:
        in.lo = static_cast<int32_t>(uniform(rng_, amin, 0)), in.hi = static_cast<int32_t>(uniform(rng_, 0, amax));
    }
    in.x.assign(static_cast<size_t>(rows), std::vector<int32_t>(static_cast<size_t>(L_)));
    for (auto& row : in.x)
      for (int j = 0; j < L_; ++j) {
        int32_t& x = row[static_cast<size_t>(j)];
        x = pickX(rng_);
        if (mode == 0) {
          // An exact tie: x * M = odd * 2^(s-1), so the rounding direction decides the result.
          const int s = static_cast<int>(uniform(rng_, 1, 30));
          const int64_t odd = 2 * uniform(rng_, 0, (int64_t{1} << (31 - s)) - 1) + 1;
          in.mult[static_cast<size_t>(j)] = (rng_() & 1) ? 1 : -1;
          in.shift[static_cast<size_t>(j)] = s;
          x = static_cast<int32_t>(((rng_() & 1) ? odd : -odd) << (s - 1));
        }
      }
    if (mode == 1) in.zp = (rng_() & 1) ? amax : amin;
    in.accRow = uniform(rng_, 0, std::min<int64_t>(fieldLimit("acc_row"), p_.acc_rows - rows));
    in.spadRow = uniform(rng_, 0, std::min<int64_t>(fieldLimit("spad_row"), p_.spad_rows - rows));
    in.scaleRow = uniform(rng_, 0, std::min<int64_t>(fieldLimit("scale_row"), p_.acc_rows - 2));
    return in;
  }

 private:
  uint32_t laneMask() const { return (1u << p_.act_bits) - 1; }

  void garbageInputs() override {
    for (int j = 0; j < L_; ++j) {
      putBits(t_.in_acc_i, 32 * j, 32, rng_());
      putBits(t_.in_multiplier_i, 32 * j, 32, rng_());
      putBits(t_.in_shift_i, 32 * j, 32, rng_());
    }
    t_.in_zero_point_i = static_cast<uint16_t>(rng_() & laneMask());
    t_.in_clamp_min_i = static_cast<uint16_t>(rng_() & laneMask());
    t_.in_clamp_max_i = static_cast<uint16_t>(rng_() & laneMask());
  }

  void putInputs(const Instr& in, size_t row) override {
    for (int j = 0; j < L_; ++j) {
      putBits(t_.in_acc_i, 32 * j, 32, static_cast<uint32_t>(in.x[row][static_cast<size_t>(j)]));
      putBits(t_.in_multiplier_i, 32 * j, 32, static_cast<uint32_t>(in.mult[static_cast<size_t>(j)]));
      putBits(t_.in_shift_i, 32 * j, 32, static_cast<uint32_t>(in.shift[static_cast<size_t>(j)]));
    }
    t_.in_zero_point_i = static_cast<uint16_t>(in.zp & laneMask());
    t_.in_clamp_min_i = static_cast<uint16_t>(in.lo & laneMask());
    t_.in_clamp_max_i = static_cast<uint16_t>(in.hi & laneMask());
  }

  void compareRow(const Instr& in, size_t row) override {
    for (int j = 0; j < L_; ++j) {
      const size_t lj = static_cast<size_t>(j);
      const int32_t x = in.x[row][lj];
      const int A = p_.act_bits;
      const int16_t want = isa::arith::requantizeLane(x, in.mult[lj], in.shift[lj], in.zp, in.lo, in.hi, A);
      const auto raw = static_cast<int32_t>(getBits(t_.out_data_o, A * j, A));
      const int32_t got = raw > isa::arith::activationMax(A) ? raw - (1 << A) : raw;  // sign-extend the lane
      if (got != want)
        r_.fail("DATA MISMATCH requantize(acc=" + std::to_string(x) + ", multiplier=" + std::to_string(in.mult[lj]) +
                ", shift=" + std::to_string(in.shift[lj]) + " (& 63 = " + std::to_string(in.shift[lj] & 63) +
                "), zero_point=" + std::to_string(in.zp) + ", clamp=[" + std::to_string(in.lo) + ", " +
                std::to_string(in.hi) + "]) lane " + std::to_string(j) + ": model " + std::to_string(want) + ", RTL " +
                std::to_string(got));
      else
        r_.pass();
    }
  }

  /// An instruction's occupancy: its first row in to its last row out.
  void checkTiming(const Instr& in, int64_t cycles) override {
    const std::vector<std::pair<const char*, int64_t>> ops = {
        {"acc_row", in.accRow},     {"spad_row", in.spadRow}, {"rows", static_cast<int64_t>(in.x.size())},
        {"scale_row", in.scaleRow}, {"zero_point", in.zp},    {"clamp_min", in.lo},
        {"clamp_max", in.hi}};
    timing_.check(r_, ops, cycles);
  }
};

}  // namespace

int main(int argc, char** argv) {
  return checkMain<Tb, RequantCheck>(argc, argv, "requant_lane", [](Session<Tb>& s, RequantCheck& check) {
    // Batches of requantize instructions, some back to back, some with idle gaps between them.
    int id = 0;
    check.runBatches(s.cases(500), s.isa.params().vector_latency, [&] { return check.randomInstr(id++); });
    return s.finish(std::to_string(check.items()) + " requantize instructions, " + std::to_string(check.rows()) +
                    " rows x " + std::to_string(s.isa.params().vector_lanes) + " lanes compared");
  });
}
