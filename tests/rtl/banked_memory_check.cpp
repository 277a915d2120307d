// Verilator check of rtl/banked_memory.sv, the scratchpad and the accumulator in the YAML's banks,
// against a plain array of rows and the simulator's bank-conflict rule, isa::bankConflictCycles.
// First every row of both memories is written with random data, one row per cycle. Then random
// streams: a two-source stream reads the pairs (a + i, b + i), i < rows, as vector_add reads the
// accumulator and vector_max the scratchpad (sources in the same bank now and then, half the time
// on purpose); a one-source stream reads a + i. Meanwhile rows outside the stream's sources are
// written at random, so a write must never disturb a read of another row. Every row read must equal
// the model's row, in order; and a stream's cycles, from its first pair accepted to its last data
// out, must be its rows plus bankConflictCycles of that vector_add (vector_max) with those
// operands (one-source: its rows). Streams are followed by random idle and write-only cycles.
#include <algorithm>
#include <string>
#include <vector>

#include "Vtb_banked_memory.h"
#include "rtl_check.h"
#include "systole/isa/encoding.h"
#include "systole/isa/pipeline.h"

namespace {

using namespace systole;
using namespace systole::rtlcheck;
using Tb = Vtb_banked_memory;

struct Stream {
  bool acc = false, two = true;
  int64_t a = 0, b = 0, rows = 0;
};

class MemoryCheck : Bench<Tb> {
 public:
  MemoryCheck(const isa::IsaConfig& isa, Clocked<Tb>& sim, Report& report, std::mt19937_64& rng)
      : Bench(isa, sim, report, rng), isa_(isa) {
    memories_[0] = Memory{p_.spad_rows, p_.spad_row_bytes * 8, p_.spad_banks, {}};
    memories_[1] = Memory{p_.acc_rows, p_.acc_sram_row_bytes * 8, p_.acc_banks, {}};
  }

  bool packageMatches() {
    sim_.settle();
    bool ok = samePackage(r_, "SCRATCHPAD_ROWS", t_.pkg_spad_rows_o, p_.spad_rows);
    ok &= samePackage(r_, "SCRATCHPAD_ROW_BYTES", t_.pkg_spad_row_bytes_o, p_.spad_row_bytes);
    ok &= samePackage(r_, "SCRATCHPAD_BANKS", t_.pkg_spad_banks_o, p_.spad_banks);
    ok &= samePackage(r_, "SCRATCHPAD_CONFLICT_CYCLES", t_.pkg_spad_conflict_o, p_.spad_conflict_cycles);
    ok &= samePackage(r_, "ACCUMULATOR_ROWS", t_.pkg_acc_rows_o, p_.acc_rows);
    ok &= samePackage(r_, "ACCUMULATOR_SRAM_ROW_BYTES", t_.pkg_acc_row_bytes_o, p_.acc_sram_row_bytes);
    ok &= samePackage(r_, "ACCUMULATOR_BANKS", t_.pkg_acc_banks_o, p_.acc_banks);
    ok &= samePackage(r_, "ACCUMULATOR_CONFLICT_CYCLES", t_.pkg_acc_conflict_o, p_.acc_conflict_cycles);
    return ok;
  }

  /// Writes every row of both memories, one per cycle.
  void fill() {
    for (int m = 0; m < 2; ++m)
      for (int64_t row = 0; row < memories_[m].rows; ++row) {
        idle(m == 1);
        write(m == 1, row);
        sim_.tick();
      }
    idle(false);
  }

  Stream randomStream() {
    Stream s;
    s.acc = rng_() & 1;
    s.two = rng_() % 4 != 0;
    const Memory& mem = memories_[s.acc];
    s.rows = uniform(rng_, 1, std::min<int64_t>(mem.rows / 2, rng_() % 4 == 0 ? 64 : 8));
    s.a = uniform(rng_, 0, mem.rows - s.rows);
    s.b = uniform(rng_, 0, mem.rows - s.rows);
    if (s.two && rng_() % 2 == 0) {  // the same bank: b = a + k * banks, within the memory
      const int64_t k = uniform(rng_, -s.a / mem.banks, (mem.rows - s.rows - s.a) / mem.banks);
      s.b = s.a + k * mem.banks;
    }
    return s;
  }

  /// Streams one source's rows (or pairs) through, checking every row out and the cycles.
  void run(const Stream& s) {
    const Memory& mem = memories_[s.acc];
    int64_t sent = 0, received = 0, first = -1, last = -1;
    clockUntil(
        sim_, r_, s.rows * (2 + std::max(p_.spad_conflict_cycles, p_.acc_conflict_cycles)) + 100,
        "TIMEOUT waiting for a row",
        [&](int64_t) {
          idle(s.acc);
          if (sent < s.rows) {
            t_.rd_valid_i = s.two ? 3 : 1;
            t_.rd_row0_i = static_cast<uint32_t>(s.a + sent);
            t_.rd_row1_i = static_cast<uint32_t>(s.b + sent);
          }
          if (rng_() & 1) writeOutside(s);
        },
        [&](int64_t c) {
          if (sent < s.rows && t_.rd_ready_o) {
            if (first < 0) first = c;
            ++sent;
          }
          if (t_.rd_data_valid_o == 0) return;
          if (received >= s.rows) {
            r_.fail("a row out with no read in flight");
            return;
          }
          compare(s, mem, 0, s.a + received);
          if (s.two) compare(s, mem, 1, s.b + received);
          if (++received == s.rows) last = c;
        },
        [&](int64_t) { return received == s.rows; });
    idle(s.acc);
    if (last >= 0) checkCycles(s, last - first);
    ++streams_;
  }

  /// Random cycles with no read: idle, some with writes.
  void pause() {
    const int64_t cycles = uniform(rng_, 0, 3);
    for (int64_t c = 0; c < cycles; ++c) {
      const bool acc = rng_() & 1;
      idle(acc);
      if (rng_() & 1) write(acc, uniform(rng_, 0, memories_[acc].rows - 1));
      sim_.tick();
    }
    idle(false);
  }

  int64_t streams() const { return streams_; }
  int64_t conflicting() const { return conflicting_; }

 private:
  struct Memory {
    int64_t rows = 0, bits = 0, banks = 1;
    std::vector<std::vector<uint32_t>> data;  // the model's rows, as 32-bit words from bit 0

    int64_t words() const { return (bits + 31) / 32; }
    int wordBits(int64_t w) const { return static_cast<int>(std::min<int64_t>(32, bits - 32 * w)); }
  };

  void idle(bool acc) {
    t_.acc_i = acc;
    t_.rd_valid_i = 0;
    const auto rows = static_cast<uint64_t>(std::max(p_.spad_rows, p_.acc_rows));
    t_.rd_row0_i = static_cast<uint32_t>(rng_() % rows);  // garbage within the port's width, not read
    t_.rd_row1_i = static_cast<uint32_t>(rng_() % rows);
    t_.wr_valid_i = 0;
  }

  /// Presents a write of random data to `row` in this cycle and applies it to the model.
  void write(bool acc, int64_t row) {
    Memory& mem = memories_[acc];
    if (mem.data.empty()) mem.data.assign(static_cast<size_t>(mem.rows), std::vector<uint32_t>(mem.words()));
    t_.wr_valid_i = 1;
    t_.wr_row_i = static_cast<uint32_t>(row);
    for (int64_t w = 0; w < mem.words(); ++w) {
      const int bits = mem.wordBits(w);
      const auto value = static_cast<uint32_t>(rng_() & ((uint64_t{1} << bits) - 1));
      putBits(t_.wr_data_i, static_cast<int>(32 * w), bits, value);
      mem.data[static_cast<size_t>(row)][static_cast<size_t>(w)] = value;
    }
  }

  /// A write to a random row that no read of the stream touches (if there is one).
  void writeOutside(const Stream& s) {
    const Memory& mem = memories_[s.acc];
    const int64_t row = uniform(rng_, 0, mem.rows - 1);
    const auto inside = [&](int64_t base) { return row >= base && row < base + s.rows; };
    if (!inside(s.a) && !(s.two && inside(s.b))) write(s.acc, row);
  }

  void compare(const Stream& s, const Memory& mem, int port, int64_t row) {
    for (int64_t w = 0; w < mem.words(); ++w) {
      const auto got = static_cast<uint32_t>(
          getBits(port == 0 ? t_.rd_data0_o : t_.rd_data1_o, static_cast<int>(32 * w), mem.wordBits(w)));
      const uint32_t want = mem.data[static_cast<size_t>(row)][static_cast<size_t>(w)];
      if (got != want) {
        r_.fail(std::string("DATA MISMATCH ") + (s.acc ? "accumulator" : "scratchpad") + " row " + std::to_string(row) +
                " (read port " + std::to_string(port) + "), word " + std::to_string(w) + ": model " +
                std::to_string(want) + ", RTL " + std::to_string(got));
        return;
      }
    }
    r_.pass();
  }

  /// The stream's cycles against its rows plus the simulator's bank-conflict cycles.
  void checkCycles(const Stream& s, int64_t cycles) {
    int64_t want = s.rows;
    const int desc = isa_.bySemantics(s.acc ? isa::Semantics::VectorAdd : isa::Semantics::VectorMax);
    if (s.two && desc >= 0) {
      const isa::InstrDesc& d = isa_.instr(desc);
      isa::Instruction in;
      in.desc = desc;
      in.fields[static_cast<size_t>(d.operand_field[1])] = s.a;
      in.fields[static_cast<size_t>(d.operand_field[2])] = s.b;
      in.fields[static_cast<size_t>(d.operand_field[3])] = s.rows;
      const int64_t extra = isa::bankConflictCycles(p_, d, in);
      if (extra > 0) ++conflicting_;
      want += extra;
    } else if (s.two) {
      return;  // no instruction of the config reads this pair: no rule to hold it to
    }
    r_.expect(cycles == want, std::string("TIMING MISMATCH ") + (s.acc ? "accumulator" : "scratchpad") +
                                  " a=" + std::to_string(s.a) + " b=" + std::to_string(s.b) +
                                  " rows=" + std::to_string(s.rows) + (s.two ? "" : " (one source)") + ": expected " +
                                  std::to_string(want) + " cycles, RTL " + std::to_string(cycles));
  }

  const isa::IsaConfig& isa_;
  Memory memories_[2];
  int64_t streams_ = 0, conflicting_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  return checkMain<Tb, MemoryCheck>(argc, argv, "banked_memory", [](Session<Tb>& s, MemoryCheck& check) {
    check.fill();
    const int streams = s.cases(2000);
    for (int i = 0; i < streams; ++i) {
      if (s.sim.assertionFailed()) break;  // reported once; the state is no longer meaningful
      check.run(check.randomStream());
      check.pause();
    }
    return s.finish(std::to_string(check.streams()) + " read streams compared (" + std::to_string(check.conflicting()) +
                    " with bank conflicts)");
  });
}
