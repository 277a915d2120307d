// Verilator check of rtl/vector_alu_lane.sv (VECTOR_LANES lanes side by side, one row per cycle, as
// the vector unit runs vector_widen, vector_add, vector_mul, vector_max and vector_lut) against
// systole::isa::arith (widen, add, mul, storeAccumulator, lutIndex and a lane-wise max), bit for
// bit, with edge values: scratchpad lanes at their limits, 0 and +-1 (int8 or int16; int16 lanes
// beyond int8 for the table index), accumulator lanes at the int32 limits (so sums and products
// wrap) and around a narrower accumulator's (so they saturate), zero points and multipliers at
// their fields' limits, random tables. Each instruction's occupancy - its first row in to its last
// row out - must equal its YAML timing expression (`vector.latency + rows` on every shipped
// config). Each class the config lacks is skipped, and the check says so.
#include <array>
#include <climits>
#include <string>
#include <vector>

#include "Vtb_vector_alu_lane.h"
#include "row_stream.h"
#include "systole/isa/arith.h"

namespace {

using namespace systole;
using namespace systole::rtlcheck;
using isa::Semantics;
using Tb = Vtb_vector_alu_lane;

constexpr std::array<Semantics, 5> kClasses = {Semantics::VectorWiden, Semantics::VectorAdd, Semantics::VectorMul,
                                               Semantics::VectorMax, Semantics::VectorLut};

struct Instr {
  int32_t zeroPoint = 0, multiplier = 0;
  std::vector<int32_t> table;              // 256 scratchpad lanes (lut)
  std::vector<std::vector<int32_t>> x, y;  // rows x lanes: scratchpad lanes
  std::vector<std::vector<int32_t>> a, b;  // rows x lanes: accumulator lanes
};

int32_t pickLane(std::mt19937_64& rng, int bits) {
  const int32_t lo = isa::arith::activationMin(bits), hi = isa::arith::activationMax(bits);
  const std::array<int32_t, 8> edges = {lo, hi, 0, -1, 1, -128, 127, 128 <= hi ? 128 : hi};
  return edgeOrUniform<int32_t>(rng, edges, lo, hi);
}

int32_t pickAcc(std::mt19937_64& rng, int bits) {
  const auto hi = static_cast<int32_t>(isa::arith::accumulatorMax(bits));
  const std::array<int32_t, 10> edges = {INT32_MIN, INT32_MAX, 0, 1, -1, hi, -hi - 1, hi / 2 + 1, 65536, -65536};
  return edgeOrUniform<int32_t>(rng, edges, INT32_MIN, INT32_MAX);
}

class AluCheck final : public LaneCheck<Tb, Instr> {
 public:
  AluCheck(const isa::IsaConfig& isa, Clocked<Tb>& sim, Report& report, std::mt19937_64& rng,
           Semantics semantics = Semantics::VectorAdd)
      : LaneCheck(isa, sim, report, rng, semantics), semantics_(semantics) {}

  bool packageMatches() { return packageAndLaneBitsMatch(); }

  bool present() const { return timing_.present(); }

  Instr randomInstr() {
    Instr in;
    const int A = p_.act_bits;
    const int rows = static_cast<int>(rng_() % 5 == 0 ? 1 : uniform(rng_, 1, 24));
    if (semantics_ == Semantics::VectorWiden) {
      const int64_t zpHi = timing_.operandLimit(3), mulHi = timing_.operandLimit(4);
      in.zeroPoint = static_cast<int32_t>(uniform(rng_, -zpHi - 1, zpHi));
      in.multiplier =
          static_cast<int32_t>(rng_() % 4 == 0 ? (rng_() & 1 ? mulHi : -mulHi - 1) : uniform(rng_, -mulHi - 1, mulHi));
    }
    for (int e = 0; e < 256; ++e) in.table.push_back(pickLane(rng_, A));
    auto lanes = [&](auto pick) {
      std::vector<std::vector<int32_t>> v(static_cast<size_t>(rows), std::vector<int32_t>(static_cast<size_t>(L_)));
      for (auto& row : v)
        for (auto& lane : row) lane = pick();
      return v;
    };
    in.x = lanes([&] { return pickLane(rng_, A); });
    in.y = lanes([&] { return pickLane(rng_, A); });
    in.a = lanes([&] { return pickAcc(rng_, p_.acc_bits); });
    in.b = lanes([&] { return pickAcc(rng_, p_.acc_bits); });
    return in;
  }

 private:
  uint32_t laneMask() const { return (1u << p_.act_bits) - 1; }

  void garbageInputs() override {
    const int A = p_.act_bits;
    for (int j = 0; j < L_; ++j) {
      putBits(t_.in_a_i, 32 * j, 32, rng_());
      putBits(t_.in_b_i, 32 * j, 32, rng_());
      putBits(t_.in_x_i, A * j, A, rng_());
      putBits(t_.in_y_i, A * j, A, rng_());
    }
    t_.in_semantics_i = static_cast<uint8_t>(rng_() & 31);
    t_.in_zero_point_i = static_cast<uint32_t>(rng_());
    t_.in_multiplier_i = static_cast<uint32_t>(rng_());
  }

  void putInputs(const Instr& in, size_t row) override {
    const int A = p_.act_bits;
    for (int j = 0; j < L_; ++j) {
      const size_t lj = static_cast<size_t>(j);
      putBits(t_.in_a_i, 32 * j, 32, static_cast<uint32_t>(in.a[row][lj]));
      putBits(t_.in_b_i, 32 * j, 32, static_cast<uint32_t>(in.b[row][lj]));
      putBits(t_.in_x_i, A * j, A, static_cast<uint32_t>(in.x[row][lj]) & laneMask());
      putBits(t_.in_y_i, A * j, A, static_cast<uint32_t>(in.y[row][lj]) & laneMask());
    }
    for (int e = 0; e < 256; ++e)
      putBits(t_.in_table_i, A * e, A, static_cast<uint32_t>(in.table[static_cast<size_t>(e)]) & laneMask());
    t_.in_semantics_i = static_cast<uint8_t>(semantics_);
    t_.in_zero_point_i = static_cast<uint32_t>(in.zeroPoint);
    t_.in_multiplier_i = static_cast<uint32_t>(in.multiplier);
  }

  /// The lane's model result: an accumulator lane (widen, add, mul) or a scratchpad lane.
  int32_t model(const Instr& in, size_t row, size_t j) const {
    namespace arith = isa::arith;
    const int32_t x = in.x[row][j], y = in.y[row][j], a = in.a[row][j], b = in.b[row][j];
    switch (semantics_) {
      case Semantics::VectorWiden:
        return arith::storeAccumulator(arith::widen(x, in.zeroPoint, in.multiplier), p_.acc_bits);
      case Semantics::VectorAdd: return arith::storeAccumulator(arith::add(a, b), p_.acc_bits);
      case Semantics::VectorMul: return arith::storeAccumulator(arith::mul(a, b), p_.acc_bits);
      case Semantics::VectorMax: return std::max(x, y);
      default: return in.table[static_cast<size_t>(arith::lutIndex(x))];
    }
  }

  void compareRow(const Instr& in, size_t row) override {
    const int A = p_.act_bits;
    const bool toAcc = semantics_ != Semantics::VectorMax && semantics_ != Semantics::VectorLut;
    for (int j = 0; j < L_; ++j) {
      const size_t lj = static_cast<size_t>(j);
      const int32_t want = model(in, row, lj);
      const int32_t got = toAcc ? static_cast<int32_t>(getBits(t_.out_acc_o, 32 * j, 32))
                                : signExtend(getBits(t_.out_spad_o, A * j, A), A);
      if (got != want)
        r_.fail("DATA MISMATCH " + std::string(isa::semanticsInfo(semantics_).name) + " row " + std::to_string(row) +
                " lane " + std::to_string(j) + " (x=" + std::to_string(in.x[row][lj]) +
                ", y=" + std::to_string(in.y[row][lj]) + ", a=" + std::to_string(in.a[row][lj]) + ", b=" +
                std::to_string(in.b[row][lj]) + "): model " + std::to_string(want) + ", RTL " + std::to_string(got));
      else
        r_.pass();
    }
  }

  static int32_t signExtend(uint32_t v, int bits) { return static_cast<int32_t>(v << (32 - bits)) >> (32 - bits); }

  void checkTiming(const Instr& in, int64_t cycles) override {
    const isa::SemanticsInfo& info = isa::semanticsInfo(semantics_);
    std::vector<std::pair<const char*, int64_t>> ops;
    for (int k = 0; k < info.operandCount(); ++k) {
      const std::string_view name = info.operands[static_cast<size_t>(k)];
      const int64_t value = name == "rows"         ? static_cast<int64_t>(in.x.size())
                            : name == "zero_point" ? in.zeroPoint
                            : name == "multiplier" ? in.multiplier
                                                   : 0;
      ops.emplace_back(timing_.operandName(k), value);
    }
    timing_.check(r_, ops, cycles);
  }

  Semantics semantics_;
};

}  // namespace

int main(int argc, char** argv) {
  return checkMain<Tb, AluCheck>(argc, argv, "vector_alu_lane", [](Session<Tb>& s, AluCheck&) {
    std::string counts, absent;
    for (Semantics c : kClasses) {
      AluCheck check(s.isa, s.sim, s.report, s.rng, c);
      const std::string name(isa::semanticsInfo(c).name);
      if (!check.present()) {
        absent += " " + name;
        continue;
      }
      check.runBatches(s.cases(100), s.isa.params().vector_latency, [&] { return check.randomInstr(); });
      counts += (counts.empty() ? "" : ", ") + name + " " + std::to_string(check.items()) + " instructions, " +
                std::to_string(check.rows()) + " rows";
    }
    if (!absent.empty()) counts += "; not in the config:" + absent;
    return s.finish(counts + " (x " + std::to_string(s.isa.params().vector_lanes) + " lanes)");
  });
}
