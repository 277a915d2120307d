// Algorithm: a list of the rows that instructions still in flight write or read, each with the
// cycle its instruction completes, pruned as the unit's start time passes them; and, per weight
// set of the array, when its preload completes and when the last matmul reading it completes. An
// instruction's earliest start is the latest completion among the entries it conflicts with
// (see pipeline.h for the rules).
#include "systole/isa/pipeline.h"

#include <algorithm>
#include <deque>

namespace systole::isa {

namespace {

RowRange spad(int64_t row, int64_t rows) { return {RowRange::Memory::Scratchpad, row, row + rows}; }
RowRange acc(int64_t row, int64_t rows) { return {RowRange::Memory::Accumulator, row, row + rows}; }

}  // namespace

ComputeAccesses computeAccesses(const Params& p, const InstrDesc& d, const Instruction& in) {
  ComputeAccesses a;
  auto op = [&](int k) { return in.operand(d, k); };
  auto read = [&](RowRange r) { a.reads[static_cast<size_t>(a.num_reads++)] = r; };
  auto write = [&](RowRange r) {
    a.write = r;
    a.writes_rows = true;
  };
  // Operand order per class: see semantics.cpp (and functional.cpp, which reads the same rows).
  switch (d.semantics) {
    case Semantics::WeightPreload:
      read(spad(op(0), p.array_rows));
      a.writes_weights = true;
      break;
    case Semantics::MatmulTile:
      read(spad(op(0), op(2)));
      if (op(3) != 0) read(acc(op(1), op(2)));
      write(acc(op(1), op(2)));
      a.reads_weights = true;
      break;
    case Semantics::Requantize:
      read(acc(op(0), op(2)));
      read(acc(op(3), 2));
      write(spad(op(1), op(2)));
      break;
    case Semantics::VectorWiden:
      read(spad(op(0), op(2)));
      write(acc(op(1), op(2)));
      break;
    case Semantics::VectorAdd:
    case Semantics::VectorMul:
      read(acc(op(1), op(3)));
      read(acc(op(2), op(3)));
      write(acc(op(0), op(3)));
      break;
    case Semantics::VectorMax:
      read(spad(op(1), op(3)));
      read(spad(op(2), op(3)));
      write(spad(op(0), op(3)));
      break;
    case Semantics::VectorLut:
      read(spad(op(1), op(2)));
      read(spad(op(3), p.lut_rows));
      write(spad(op(0), op(2)));
      break;
    case Semantics::VectorReduce:
      read(acc(op(1), op(2)));
      write(acc(op(0), op(2)));
      break;
    default: break;  // nop, finish; DMA classes are ordered by tokens
  }
  return a;
}

uint64_t ComputeScoreboard::earliestStart(const Params& p, const InstrDesc& d, const Instruction& in, uint64_t t) const {
  if (d.semantics == Semantics::Finish) return std::max(t, last_end_);
  const ComputeAccesses a = computeAccesses(p, d, in);
  const bool matmul = d.semantics == Semantics::MatmulTile;
  for (const Pending& e : pending_) {
    if (e.until <= t) continue;
    if (matmul && e.from_array) continue;  // one array pipeline: results reach the accumulator in order
    bool conflict = false;
    if (e.write)
      for (int k = 0; k < a.num_reads && !conflict; ++k) conflict = e.rows.overlaps(a.reads[static_cast<size_t>(k)]);
    if (!conflict && a.writes_rows) conflict = e.rows.overlaps(a.write);  // write after write or after read
    if (conflict) t = e.until;
  }
  if (a.writes_weights) {  // the set is free, and the weight path has finished the previous preload
    const WeightSet& s = sets_[static_cast<size_t>(preloads_ % weight_buffers_)];
    t = std::max({t, s.ready, s.freed, last_preload_end_});
  }
  if (a.reads_weights && preloads_ > 0) t = std::max(t, sets_[static_cast<size_t>((preloads_ - 1) % weight_buffers_)].ready);
  return t;
}

void ComputeScoreboard::record(const Params& p, const InstrDesc& d, const Instruction& in, uint64_t start, uint64_t end) {
  std::erase_if(pending_, [&](const Pending& e) { return e.until <= start; });
  last_end_ = std::max(last_end_, end);
  if (d.semantics == Semantics::Finish || d.semantics == Semantics::Nop) return;
  const ComputeAccesses a = computeAccesses(p, d, in);
  const bool matmul = d.semantics == Semantics::MatmulTile;
  for (int k = 0; k < a.num_reads; ++k) pending_.push_back({a.reads[static_cast<size_t>(k)], end, false, matmul});
  if (a.writes_rows) pending_.push_back({a.write, end, true, matmul});
  if (a.writes_weights) {
    sets_[static_cast<size_t>(preloads_ % weight_buffers_)] = {end, 0};
    last_preload_end_ = end;
    ++preloads_;
  }
  if (a.reads_weights && preloads_ > 0) {
    WeightSet& s = sets_[static_cast<size_t>((preloads_ - 1) % weight_buffers_)];
    s.freed = std::max(s.freed, end);
  }
}

int64_t bankConflictCycles(const Params& p, const InstrDesc& d, const Instruction& in) {
  const bool spad = d.semantics == Semantics::VectorMax;
  if (!spad && d.semantics != Semantics::VectorAdd && d.semantics != Semantics::VectorMul) return 0;
  const int64_t banks = spad ? p.spad_banks : p.acc_banks;
  const int64_t a = in.operand(d, 1), b = in.operand(d, 2), rows = in.operand(d, 3);
  return (a - b) % banks == 0 ? rows * (spad ? p.spad_conflict_cycles : p.acc_conflict_cycles) : 0;
}

uint64_t ComputeTimeline::issue(const Instruction& in, uint64_t notBefore) {
  const Params& p = isa_.params();
  const InstrDesc& d = isa_.instr(in.desc);
  if (d.unit != Unit::Compute) return notBefore;
  const bool weightPath = onWeightPath(p, d);
  const uint64_t start = board_.earliestStart(p, d, in, std::max(notBefore, weightPath ? order_ : std::max(next_, order_)));
  const auto penalty = static_cast<uint64_t>(bankConflictCycles(p, d, in));  // as the simulator: on both
  const uint64_t finish = start + static_cast<uint64_t>(d.cycles.eval(in.fields)) + penalty;
  board_.record(p, d, in, start, finish);
  next_ = weightPath ? std::max(next_, start + 1) : start + static_cast<uint64_t>(occupancyCycles(isa_, in)) + penalty;
  order_ = start + 1;
  done_ = std::max(done_, finish);
  return start;
}

int64_t computeSpan(const IsaConfig& isa, const Instruction* begin, const Instruction* end) {
  ComputeTimeline t(isa);
  for (const Instruction* i = begin; i != end; ++i) t.issue(*i);
  return static_cast<int64_t>(t.end());
}

uint64_t DmaTimeline::issue(const Instruction& in, uint64_t notBefore) {
  const InstrDesc& d = isa_.instr(in.desc);
  if (d.unit != unit_) return notBefore;
  const size_t limit = static_cast<size_t>(std::max<int64_t>(1, isa_.params().dma_outstanding));
  if (inflight_.empty()) inflight_.assign(limit, 0);
  // The transfer `limit` places earlier must have completed before this one takes its place.
  const uint64_t start = std::max({free_, notBefore, inflight_[head_]});
  done_ = std::max(done_, start + static_cast<uint64_t>(d.cycles.eval(in.fields)));  // in order
  inflight_[head_] = done_;
  head_ = (head_ + 1) % limit;
  free_ = start + static_cast<uint64_t>(occupancyCycles(isa_, in));
  return start;
}

int64_t dmaSpan(const IsaConfig& isa, Unit unit, const Instruction* begin, const Instruction* end) {
  DmaTimeline t(isa, unit);
  for (const Instruction* i = begin; i != end; ++i) t.issue(*i);
  return static_cast<int64_t>(t.end());
}

}  // namespace systole::isa
