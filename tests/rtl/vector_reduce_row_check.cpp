// Verilator check of rtl/vector_reduce_row.sv (one accumulator row per cycle, as the vector unit
// runs vector_reduce) against the simulator's reduction - the lane sum with isa::arith::add, or
// the lane maximum, then arith::storeAccumulator - bit for bit, in every lane of the output row,
// with lanes at the int32 limits (so sums wrap) and around a narrower accumulator's (so they
// saturate), op 0 and 1. Each instruction's occupancy - its first row in to its last row out -
// must equal vector_reduce's YAML timing expression (`vector.latency + rows +
// log2_ceil(vector.lanes)` on every shipped config).
#include <algorithm>
#include <array>
#include <climits>
#include <string>
#include <vector>

#include "Vtb_vector_reduce_row.h"
#include "row_stream.h"
#include "systole/isa/arith.h"

namespace {

using namespace systole;
using namespace systole::rtlcheck;
using Tb = Vtb_vector_reduce_row;

struct Instr {
  bool max = false;
  std::vector<std::vector<int32_t>> x;  // rows x lanes
};

class ReduceCheck final : public LaneCheck<Tb, Instr> {
 public:
  ReduceCheck(const isa::IsaConfig& isa, Clocked<Tb>& sim, Report& report, std::mt19937_64& rng)
      : LaneCheck(isa, sim, report, rng, isa::Semantics::VectorReduce) {}

  bool packageMatches() { return packageAndLaneBitsMatch(); }
  bool present() const { return timing_.present(); }

  Instr randomInstr() {
    Instr in;
    in.max = rng_() & 1;
    const int rows = static_cast<int>(rng_() % 5 == 0 ? 1 : uniform(rng_, 1, 24));
    const auto hi = static_cast<int32_t>(isa::arith::accumulatorMax(p_.acc_bits));
    const std::array<int32_t, 8> edges = {INT32_MIN, INT32_MAX, 0, 1, -1, hi, -hi - 1, hi / 4 + 1};
    in.x.assign(static_cast<size_t>(rows), std::vector<int32_t>(static_cast<size_t>(L_)));
    for (auto& row : in.x)
      for (auto& lane : row) lane = edgeOrUniform<int32_t>(rng_, edges, INT32_MIN, INT32_MAX);
    return in;
  }

 private:
  void garbageInputs() override {
    for (int j = 0; j < L_; ++j) putBits(t_.in_row_i, 32 * j, 32, rng_());
    t_.in_max_i = rng_() & 1;
  }

  void putInputs(const Instr& in, size_t row) override {
    for (int j = 0; j < L_; ++j)
      putBits(t_.in_row_i, 32 * j, 32, static_cast<uint32_t>(in.x[row][static_cast<size_t>(j)]));
    t_.in_max_i = in.max;
  }

  void compareRow(const Instr& in, size_t row) override {
    const std::vector<int32_t>& x = in.x[row];
    int32_t s = in.max ? x[0] : 0;
    for (int32_t v : x) s = in.max ? std::max(s, v) : isa::arith::add(s, v);
    const int32_t want = isa::arith::storeAccumulator(s, p_.acc_bits);
    for (int j = 0; j < L_; ++j) {
      const auto got = static_cast<int32_t>(getBits(t_.out_row_o, 32 * j, 32));
      r_.expect(got == want, "DATA MISMATCH vector_reduce(op=" + std::to_string(in.max) + ") row " +
                                 std::to_string(row) + " lane " + std::to_string(j) + ": model " +
                                 std::to_string(want) + ", RTL " + std::to_string(got));
    }
  }

  void checkTiming(const Instr& in, int64_t cycles) override {
    auto name = [&](int k) { return timing_.operandName(k); };
    const std::vector<std::pair<const char*, int64_t>> ops = {
        {name(0), 0}, {name(1), 0}, {name(2), static_cast<int64_t>(in.x.size())}, {name(3), in.max ? 1 : 0}};
    timing_.check(r_, ops, cycles);
  }
};

}  // namespace

int main(int argc, char** argv) {
  return checkMain<Tb, ReduceCheck>(argc, argv, "vector_reduce_row", [](Session<Tb>& s, ReduceCheck& check) {
    if (!check.present()) return s.report.finish("the config has no vector_reduce instruction: nothing to check");
    const auto& p = s.isa.params();
    check.runBatches(s.cases(400), p.vector_latency + 8, [&] { return check.randomInstr(); });
    return s.finish(std::to_string(check.items()) + " vector_reduce instructions, " + std::to_string(check.rows()) +
                    " rows x " + std::to_string(p.vector_lanes) + " lanes compared");
  });
}
