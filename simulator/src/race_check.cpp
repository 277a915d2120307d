// Algorithm: vector clocks over the three queues (a FastTrack-style check). The queues run in an
// order the tokens allow, as close to program order as they allow: of the queues whose next
// instruction has every token it pops, the one whose next instruction comes first. A queue's clock counts its
// instructions and takes the element-wise maximum with the clock a popped token carries (the pusher's clock at the
// push). Each row remembers its last write (queue and that queue's clock) and, per queue, its last read since; an
// access is ordered after a remembered one from another queue q exactly when the accessing queue's clock has seen q's
// clock at it. Reads are checked against the last write, writes against the last write and every queue's last read.
#include "systole/sim/race_check.h"

#include <algorithm>
#include <array>
#include <deque>

#include "systole/isa/assembler.h"
#include "systole/isa/row_footprint.h"

namespace systole::sim {

using isa::Semantics;

namespace {

constexpr int kQueues = isa::kNumUnits;
using Clock = std::array<uint32_t, kQueues>;

struct RowState {
  int64_t writer = -1;  // instruction index of the last write
  int writer_queue = 0;
  uint32_t write_clock = 0;
  std::array<int64_t, kQueues> reader{-1, -1, -1};  // per queue, its last read since that write
  std::array<uint32_t, kQueues> read_clock{};
};

class Checker {
 public:
  Checker(const isa::Params& p) : spad_(static_cast<size_t>(p.spad_rows)), acc_(static_cast<size_t>(p.acc_rows)) {}

  /// Instruction `index` of queue q, at clock c, reads or writes `range`; the race it finds, if any.
  std::optional<Race> access(uint32_t index, int q, const Clock& c, const isa::RowRange& range, bool write) {
    const bool accumulator = range.memory == isa::RowRange::Memory::Accumulator;
    std::vector<RowState>& rows = accumulator ? acc_ : spad_;
    const int64_t first = std::max<int64_t>(range.lo, 0),
                  end = std::min<int64_t>(range.hi, static_cast<int64_t>(rows.size()));
    for (int64_t r = first; r < end; ++r) {  // rows out of range are the simulator's to fault on
      RowState& s = rows[static_cast<size_t>(r)];
      const auto unordered = [&](int64_t other, int otherQueue, uint32_t otherClock) {
        return other >= 0 && otherQueue != q && c[static_cast<size_t>(otherQueue)] < otherClock;
      };
      const auto race = [&](int64_t other, const char* kind) {
        return Race{static_cast<uint32_t>(other), index, accumulator, r, kind};
      };
      if (unordered(s.writer, s.writer_queue, s.write_clock))
        return race(s.writer, write ? "write after write" : "read after write");
      if (!write) {
        s.reader[static_cast<size_t>(q)] = index;
        s.read_clock[static_cast<size_t>(q)] = c[static_cast<size_t>(q)];
        continue;
      }
      for (int rq = 0; rq < kQueues; ++rq)
        if (unordered(s.reader[static_cast<size_t>(rq)], rq, s.read_clock[static_cast<size_t>(rq)]))
          return race(s.reader[static_cast<size_t>(rq)], "write after read");
      s = RowState{index, q, c[static_cast<size_t>(q)]};
    }
    return std::nullopt;
  }

 private:
  std::vector<RowState> spad_, acc_;
};

}  // namespace

std::string Race::describe(const isa::IsaConfig& isa, const std::vector<isa::Instruction>& program) const {
  const bool laterWrites = kind != "read after write";
  const auto show = [&](uint32_t i) {
    return "instruction " + std::to_string(i) + " (" + isa::formatInstruction(isa, program[i]) + ")";
  };
  return show(later) + (laterWrites ? " writes " : " reads ") + (accumulator ? "accumulator" : "scratchpad") + " row " +
         std::to_string(row) + ", which " + show(earlier) + (kind == "write after read" ? " reads" : " writes") +
         ", and no dependency token orders them (" + kind + ")";
}

std::optional<Race> findRace(const isa::IsaConfig& isa, const std::vector<isa::Instruction>& program) {
  const isa::Params& p = isa.params();
  std::array<std::vector<uint32_t>, kQueues> queue;  // each queue's instructions, in program order
  for (uint32_t i = 0; i < program.size(); ++i) {
    const isa::InstrDesc& d = isa.instr(program[i].desc);
    queue[static_cast<size_t>(d.unit)].push_back(i);
    if (d.semantics == Semantics::Finish) break;
  }
  std::array<std::array<std::deque<Clock>, kQueues>, kQueues> tokens;  // [from][to]: the pusher's clock per token
  std::array<Clock, kQueues> clock{};
  std::array<size_t, kQueues> next{};
  Checker checker(p);
  const auto ready = [&](int q) {
    const auto qs = static_cast<size_t>(q);
    if (next[qs] >= queue[qs].size()) return false;
    const uint8_t t = program[queue[qs][next[qs]]].tokens;
    return !((t & isa::kPopPrev) && (q == 0 || tokens[qs - 1][qs].empty())) &&
           !((t & isa::kPopNext) && (q + 1 >= kQueues || tokens[qs + 1][qs].empty()));
  };
  for (;;) {
    int q = -1;  // the ready queue whose next instruction comes first in the program: races read in program order
    for (int k = 0; k < kQueues; ++k)
      if (ready(k) && (q < 0 || queue[static_cast<size_t>(k)][next[static_cast<size_t>(k)]] <
                                    queue[static_cast<size_t>(q)][next[static_cast<size_t>(q)]]))
        q = k;
    if (q < 0) break;
    const auto qs = static_cast<size_t>(q);
    const uint32_t index = queue[qs][next[qs]++];
    const isa::Instruction& in = program[index];
    Clock& c = clock[qs];
    for (auto* fifo : {(in.tokens & isa::kPopPrev) ? &tokens[qs - 1][qs] : nullptr,
                       (in.tokens & isa::kPopNext) ? &tokens[qs + 1][qs] : nullptr}) {
      if (!fifo) continue;
      for (size_t k = 0; k < kQueues; ++k) c[k] = std::max(c[k], fifo->front()[k]);
      fifo->pop_front();
    }
    ++c[qs];
    const isa::RowFootprint f = isa::rowFootprint(p, isa.instr(in.desc), in);
    int64_t runs = 1;
    for (const isa::RowAccess& a : f) runs = std::max(runs, a.runs);
    for (bool writes : {false, true})  // reads first: an instruction that reads and writes a row is ordered with itself
      for (int64_t k = 0; k < runs; ++k)  // matmul_stream's slices in order, its other rows first
        for (const isa::RowAccess& a : f)
          if (a.write == writes && k < a.runs)
            if (auto race = checker.access(index, q, c, a.run(k), a.write)) return race;
    if ((in.tokens & isa::kPushPrev) && q > 0) tokens[qs][qs - 1].push_back(c);
    if ((in.tokens & isa::kPushNext) && q + 1 < kQueues) tokens[qs][qs + 1].push_back(c);
  }
  return std::nullopt;
}

}  // namespace systole::sim
