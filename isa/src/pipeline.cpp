// Algorithm: a list of the rows that instructions still in flight write or read, each with the
// cycle its instruction completes, pruned as the unit's start time passes them; and, per weight
// set of the array, when its preload completes and when the last matmul reading it completes. An
// instruction's earliest start is the latest completion among the entries it conflicts with
// (see pipeline.h for the rules).
#include "systole/isa/pipeline.h"

#include <algorithm>
#include <deque>

#include "systole/isa/arith.h"

namespace systole::isa {

namespace {

/// matmul_stream reads two scratchpad rows per cycle: for slice s, in cycle j < m of the slice,
/// activation row a_row + s * a_stride + j and weight row w_row + s * array.rows + j. They share a
/// bank for every j of the slice exactly when (a_row - w_row + s * (a_stride - array.rows)) is a
/// multiple of the bank count; such a slice costs m * conflict_cycles more. The residue repeats
/// every `banks` slices, so the count takes at most `banks` steps.
int64_t streamBankConflictCycles(const Params& p, const InstrDesc& d, const Instruction& in) {
  const int64_t banks = p.spad_banks, m = in.operand(d, 4), slices = in.operand(d, 5);
  if (banks <= 1 || m == 0) return 0;
  const int64_t diff = in.operand(d, 0) - in.operand(d, 2), step = in.operand(d, 1) - p.array_rows;
  int64_t conflicting = 0;
  for (int64_t s = 0; s < std::min(slices, banks); ++s)
    if (((diff + s * step) % banks + banks) % banks == 0) conflicting += (slices - s + banks - 1) / banks;
  return conflicting * m * p.spad_conflict_cycles;
}

}  // namespace

bool isArrayProduct(Semantics s) {
  return s == Semantics::MatmulTile || s == Semantics::MatmulStream || s == Semantics::DepthwiseTile;
}

ComputeAccesses computeAccesses(const Params& p, const InstrDesc& d, const Instruction& in) {
  ComputeAccesses a;
  if (d.unit != Unit::Compute) return a;  // DMA classes are ordered by tokens
  for (const RowAccess& r : rowFootprint(p, d, in)) {
    if (r.write) {
      a.write = r.span();
      a.writes_rows = true;
    } else {
      a.reads[static_cast<size_t>(a.num_reads++)] = r.span();  // matmul_stream's slices as one range
    }
  }
  a.writes_weights = isWeightPreload(d.semantics);
  a.reads_weights = d.semantics == Semantics::MatmulTile || d.semantics == Semantics::DepthwiseTile;
  return a;
}

uint64_t ComputeScoreboard::earliestStart(const Params& p, const InstrDesc& d, const Instruction& in,
                                          uint64_t t) const {
  return earliestStart(d, computeAccesses(p, d, in), t);
}

void ComputeScoreboard::record(const Params& p, const InstrDesc& d, const Instruction& in, uint64_t start,
                               uint64_t end) {
  record(d, computeAccesses(p, d, in), start, end);
}

uint64_t ComputeScoreboard::earliestStart(const InstrDesc& d, const ComputeAccesses& a, uint64_t t) const {
  if (d.semantics == Semantics::Finish) return std::max(t, last_end_);
  const bool matmul = isArrayProduct(d.semantics);
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
  if (a.reads_weights) t = std::max(t, sets_[readSet()].ready);
  return t;
}

void ComputeScoreboard::record(const InstrDesc& d, const ComputeAccesses& a, uint64_t start, uint64_t end) {
  std::erase_if(pending_, [&](const Pending& e) { return e.until <= start; });
  last_end_ = std::max(last_end_, end);
  if (d.semantics == Semantics::Finish || d.semantics == Semantics::Nop) return;
  const bool matmul = isArrayProduct(d.semantics);
  for (int k = 0; k < a.num_reads; ++k) pending_.push_back({a.reads[static_cast<size_t>(k)], end, false, matmul});
  if (a.writes_rows) pending_.push_back({a.write, end, true, matmul});
  if (a.writes_weights) {
    sets_[static_cast<size_t>(preloads_ % weight_buffers_)] = {end, 0};
    last_preload_end_ = end;
    ++preloads_;
  }
  if (a.reads_weights) sets_[readSet()].freed = std::max(sets_[readSet()].freed, end);
}

int64_t bankConflictCycles(const Params& p, const InstrDesc& d, const Instruction& in) {
  if (d.semantics == Semantics::MatmulStream) return streamBankConflictCycles(p, d, in);
  const bool spad = d.semantics == Semantics::VectorMax;
  if (!spad && d.semantics != Semantics::VectorAdd && d.semantics != Semantics::VectorMul) return 0;
  const int64_t banks = spad ? p.spad_banks : p.acc_banks;
  const int64_t a = in.operand(d, 1), b = in.operand(d, 2), rows = in.operand(d, 3);
  return (a - b) % banks == 0 ? rows * (spad ? p.spad_conflict_cycles : p.acc_conflict_cycles) : 0;
}

bool isVectorClass(Semantics s) {
  return semanticsInfo(s).unit == Unit::Compute && !isArrayProduct(s) && !isWeightPreload(s) && s != Semantics::Nop &&
         s != Semantics::Finish;
}

IssuePath issuePath(const Params& p, const InstrDesc& d) {
  if (onWeightPath(p, d)) return IssuePath::Weight;
  return p.vector_parallel && isVectorClass(d.semantics) ? IssuePath::Vector : IssuePath::Main;
}

uint64_t ComputeTimeline::issue(const Instruction& in, uint64_t notBefore) {
  const Params& p = isa_.params();
  const InstrDesc& d = isa_.instr(in.desc);
  if (d.unit != Unit::Compute) return notBefore;
  const IssuePath path = issuePath(p, d);
  const uint64_t start = board_.earliestStart(p, d, in, std::max(notBefore, paths_.earliest(path)));
  const auto penalty = static_cast<uint64_t>(bankConflictCycles(p, d, in));  // as the simulator: on both
  const uint64_t finish = start + static_cast<uint64_t>(d.cycles.eval(in.fields)) + penalty;
  board_.record(p, d, in, start, finish);
  paths_.started(path, start, start + static_cast<uint64_t>(occupancyCycles(isa_, in)) + penalty);
  done_ = std::max(done_, finish);
  return start;
}

int64_t computeSpan(const IsaConfig& isa, const Instruction* begin, const Instruction* end) {
  ComputeTimeline t(isa);
  for (const Instruction* i = begin; i != end; ++i) t.issue(*i);
  return static_cast<int64_t>(t.end());
}

int64_t dramRows(const Params& p, const InstrDesc& d, const Instruction& in) {
  if (d.semantics == Semantics::DmaLoad2d) return in.operand(d, 2) * in.operand(d, 5);  // rows x runs, never broadcast
  const bool load = d.semantics == Semantics::DmaLoad || d.semantics == Semantics::DmaLoadAcc;
  const int64_t rows = in.operand(d, 2);
  return p.dma_broadcast && load && in.operand(d, 4) == 0 && rows > 1 ? 1 : rows;
}

int64_t dramRowBytes(const Params& p, const InstrDesc& d, const Instruction& in) {
  const int64_t bytes = in.operand(d, 3);
  return d.semantics == Semantics::DmaLoadInt4 ? arith::int4PackedBytes(bytes * 8 / p.act_bits) : bytes;
}

int64_t dramChannelCycles(const Params& p, const InstrDesc& d, const Instruction& in) {
  return dramRows(p, d, in) * ((dramRowBytes(p, d, in) + p.dram_bytes_per_cycle - 1) / p.dram_bytes_per_cycle);
}

uint64_t DmaTimeline::issue(const Instruction& in, uint64_t notBefore) {
  const InstrDesc& d = isa_.instr(in.desc);
  if (d.unit != unit_) return notBefore;
  const size_t limit = static_cast<size_t>(std::max<int64_t>(1, isa_.params().dma_outstanding));
  if (inflight_.empty()) inflight_.assign(limit, 0);
  // The transfer `limit` places earlier must have completed before this one takes its place.
  const uint64_t start = std::max({free_, notBefore, inflight_[head_]});
  uint64_t wait = 0;  // for the shared channel
  if (channel_) {
    const auto busy = static_cast<uint64_t>(dramChannelCycles(isa_.params(), d, in));
    wait = channel_->reserve(start, busy) - start - busy;
  }
  done_ = std::max(done_, start + static_cast<uint64_t>(d.cycles.eval(in.fields)) + wait);  // in order
  inflight_[head_] = done_;
  head_ = (head_ + 1) % limit;
  free_ =
      start + std::max<uint64_t>(static_cast<uint64_t>(occupancyCycles(isa_, in)) + wait, 1);  // one start per cycle
  return start;
}

int64_t dmaSpan(const IsaConfig& isa, Unit unit, const Instruction* begin, const Instruction* end) {
  DmaTimeline t(isa, unit);
  for (const Instruction* i = begin; i != end; ++i) t.issue(*i);
  return static_cast<int64_t>(t.end());
}

}  // namespace systole::isa
