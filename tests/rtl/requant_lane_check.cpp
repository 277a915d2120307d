// Verilator check of rtl/requant_lane.sv (VECTOR_LANES lanes side by side, one accumulator row per
// cycle, as the vector unit runs requantize) against systole::isa::arith::requantize, bit for bit,
// with edge values: int32 limits for inputs and multipliers, shifts 0 and 63 and shift words whose
// upper bits are set (only the low 6 count), exact rounding ties of both signs, non-zero zero
// points, ReLU, and clamp_min > clamp_max. Each instruction's occupancy - its first row in to its
// last row out - must equal requantize's YAML timing expression (`vector.latency + rows`).
#include <algorithm>
#include <array>
#include <climits>
#include <deque>
#include <string>
#include <vector>

#include "Vtb_requant_lane.h"
#include "rtl_check.h"
#include "systole/isa/arith.h"

namespace {

using namespace systole;
using rtlcheck::Clocked;
using rtlcheck::getBits;
using rtlcheck::putBits;
using rtlcheck::Report;
using rtlcheck::Timing;
using rtlcheck::uniform;
using Tb = Vtb_requant_lane;

struct Instr {
  int id = 0;
  std::vector<int32_t> mult, shift;     // the two scale rows, per lane
  int32_t zp = 0, lo = -128, hi = 127;  // signed 8-bit operands
  std::vector<std::vector<int32_t>> x;  // rows x lanes
  int64_t accRow = 0, spadRow = 0, scaleRow = 0;
  int64_t firstIn = -1;  // cycle of the first row in
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

int32_t pickInt8(std::mt19937_64& rng) {
  static constexpr std::array<int32_t, 6> kEdges = {-128, 127, 0, -1, 1, -127};
  if (rng() & 1) return kEdges[rng() % kEdges.size()];
  return static_cast<int32_t>(uniform(rng, -128, 127));
}

class RequantCheck {
 public:
  RequantCheck(const isa::IsaConfig& isa, Clocked<Tb>& sim, Report& report, std::mt19937_64& rng)
      : p_(isa.params()),
        sim_(sim),
        t_(sim.top()),
        r_(report),
        rng_(rng),
        timing_(isa, isa::Semantics::Requantize),
        L_(static_cast<int>(p_.vector_lanes)) {}

  bool packageMatches() {
    sim_.settle();
    bool ok = rtlcheck::samePackage(r_, "VECTOR_LANES", t_.pkg_vector_lanes_o, p_.vector_lanes);
    ok &= rtlcheck::samePackage(r_, "VECTOR_LATENCY", t_.pkg_vector_latency_o, p_.vector_latency);
    if (!timing_.present()) {
      r_.fail("the config has no requantize instruction");
      ok = false;
    }
    return ok;
  }

  int64_t fieldLimit(const char* field) const {
    const int k = timing_.desc().fieldIndex(field);
    return timing_.desc().fields[static_cast<size_t>(k)].limit();
  }

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
    in.zp = pickInt8(rng_);
    switch (rng_() % 5) {
      case 0: in.lo = -128, in.hi = 127; break;                       // no activation
      case 1: in.lo = in.zp, in.hi = 127; break;                      // ReLU
      case 2: in.lo = pickInt8(rng_), in.hi = pickInt8(rng_); break;  // anything, crossed pairs included
      case 3:
        in.lo = static_cast<int32_t>(uniform(rng_, 0, 127)),
        in.hi = static_cast<int32_t>(uniform(rng_, -128, in.lo - 1));
        break;  // clamp_min > clamp_max
      default:
        in.lo = static_cast<int32_t>(uniform(rng_, -128, 0)), in.hi = static_cast<int32_t>(uniform(rng_, 0, 127));
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
    if (mode == 1) in.zp = (rng_() & 1) ? 127 : -128;
    in.accRow = uniform(rng_, 0, std::min<int64_t>(fieldLimit("acc_row"), p_.acc_rows - rows));
    in.spadRow = uniform(rng_, 0, std::min<int64_t>(fieldLimit("spad_row"), p_.spad_rows - rows));
    in.scaleRow = uniform(rng_, 0, std::min<int64_t>(fieldLimit("scale_row"), p_.acc_rows - 2));
    return in;
  }

  /// Streams the instructions through the lanes, `gap[i]` idle cycles before instruction i
  /// (0 = back to back), and checks every output row and each instruction's occupancy.
  void run(std::vector<Instr>& prog, const std::vector<int>& gaps) {
    struct Pending {
      size_t instr;
      size_t row;
    };
    std::deque<Pending> expected;
    size_t next = 0, nextRow = 0;
    int gapLeft = prog.empty() ? 0 : gaps[0];
    int64_t c = 0;
    for (;; ++c) {
      bool valid = false;
      for (int j = 0; j < L_; ++j) {
        putBits(t_.in_acc_i, 32 * j, 32, rng_());
        putBits(t_.in_multiplier_i, 32 * j, 32, rng_());
        putBits(t_.in_shift_i, 32 * j, 32, rng_());
      }
      t_.in_zero_point_i = static_cast<uint8_t>(rng_());
      t_.in_clamp_min_i = static_cast<uint8_t>(rng_());
      t_.in_clamp_max_i = static_cast<uint8_t>(rng_());
      if (next < prog.size() && gapLeft == 0) {
        Instr& in = prog[next];
        if (nextRow == 0) in.firstIn = c;
        for (int j = 0; j < L_; ++j) {
          putBits(t_.in_acc_i, 32 * j, 32, static_cast<uint32_t>(in.x[nextRow][static_cast<size_t>(j)]));
          putBits(t_.in_multiplier_i, 32 * j, 32, static_cast<uint32_t>(in.mult[static_cast<size_t>(j)]));
          putBits(t_.in_shift_i, 32 * j, 32, static_cast<uint32_t>(in.shift[static_cast<size_t>(j)]));
        }
        t_.in_zero_point_i = static_cast<uint8_t>(in.zp);
        t_.in_clamp_min_i = static_cast<uint8_t>(in.lo);
        t_.in_clamp_max_i = static_cast<uint8_t>(in.hi);
        valid = true;
        expected.push_back({next, nextRow});
        if (++nextRow == in.x.size()) {
          nextRow = 0;
          if (++next < prog.size()) gapLeft = gaps[next];
        }
      } else if (gapLeft > 0) {
        --gapLeft;
      }
      t_.in_valid_i = valid;
      sim_.settle();
      if (t_.out_valid_o) {
        if (expected.empty()) {
          r_.fail("output row with no row in flight");
        } else {
          const Pending pend = expected.front();
          expected.pop_front();
          compareRow(prog[pend.instr], pend.row, c);
        }
      }
      sim_.tick();
      if (sim_.assertionFailed()) {
        r_.fail("ASSERTION failed in the RTL (see above)");
        break;
      }
      if (next == prog.size() && expected.empty()) break;
      if (c > static_cast<int64_t>(prog.size()) * 200 + 1000) {
        r_.fail("TIMEOUT waiting for output rows");
        break;
      }
    }
    t_.in_valid_i = 0;
  }

  int64_t rows() const { return rows_; }
  int64_t instrs() const { return instrs_; }

 private:
  void compareRow(const Instr& in, size_t row, int64_t cycle) {
    ++rows_;
    for (int j = 0; j < L_; ++j) {
      const size_t lj = static_cast<size_t>(j);
      const int32_t x = in.x[row][lj];
      const int8_t want = isa::arith::requantize(x, in.mult[lj], in.shift[lj], in.zp, in.lo, in.hi);
      const auto got = static_cast<int8_t>(getBits(t_.out_data_o, 8 * j, 8));
      if (got != want)
        r_.fail("DATA MISMATCH requantize(acc=" + std::to_string(x) + ", multiplier=" + std::to_string(in.mult[lj]) +
                ", shift=" + std::to_string(in.shift[lj]) + " (& 63 = " + std::to_string(in.shift[lj] & 63) +
                "), zero_point=" + std::to_string(in.zp) + ", clamp=[" + std::to_string(in.lo) + ", " +
                std::to_string(in.hi) + "]) lane " + std::to_string(j) + ": model " + std::to_string(want) + ", RTL " +
                std::to_string(got));
      else
        r_.pass();
    }
    if (row + 1 == in.x.size()) {
      ++instrs_;
      const std::vector<std::pair<const char*, int64_t>> ops = {
          {"acc_row", in.accRow},     {"spad_row", in.spadRow}, {"rows", static_cast<int64_t>(in.x.size())},
          {"scale_row", in.scaleRow}, {"zero_point", in.zp},    {"clamp_min", in.lo},
          {"clamp_max", in.hi}};
      timing_.check(r_, ops, cycle - in.firstIn + 1);
    }
  }

  const isa::Params& p_;
  Clocked<Tb>& sim_;
  Tb& t_;
  Report& r_;
  std::mt19937_64& rng_;
  Timing timing_;
  int L_;
  int64_t rows_ = 0, instrs_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  const auto opt = rtlcheck::parseOptions(argc, argv, "requant_lane_check --config FILE.yaml [--seed N] [--cases N]");
  return rtlcheck::runCheck("requant_lane", [&] {
    const auto isa = isa::IsaConfig::load(opt.config);
    Report report("requant_lane[" + isa.params().name + "]");
    const uint64_t seed = rtlcheck::seedFor(opt, isa);
    Clocked<Tb> sim(seed);
    sim.reset();
    std::mt19937_64 rng(seed);
    RequantCheck check(isa, sim, report, rng);
    if (!check.packageMatches()) return report.finish("package does not match the config");

    const int batches = opt.cases > 0 ? opt.cases : 500;
    const int64_t latency = isa.params().vector_latency;
    int id = 0;
    for (int b = 0; b < batches; ++b) {
      if (sim.assertionFailed()) break;  // reported once; the state is no longer meaningful
      // A batch of requantize instructions: some back to back, some with idle gaps (shorter,
      // equal to and longer than the pipeline) between them.
      std::vector<Instr> prog;
      std::vector<int> gaps;
      const int count = 1 + static_cast<int>(rng() % 6);
      for (int i = 0; i < count; ++i) {
        prog.push_back(check.randomInstr(id++));
        gaps.push_back(static_cast<int>(uniform(rng, 0, latency + 2)));
      }
      check.run(prog, gaps);
    }
    return report.finish("seed " + std::to_string(seed) + ": " + std::to_string(check.instrs()) +
                         " requantize instructions, " + std::to_string(check.rows()) + " rows x " +
                         std::to_string(isa.params().vector_lanes) + " lanes compared");
  });
}
