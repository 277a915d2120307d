// The compute unit's pipeline hazards, in one place: the simulator's compute unit and the
// compiler's cost model both ask this scoreboard when an instruction may start.
//
// A compute instruction whose YAML gives `timing.issue` occupies the unit for `issue` cycles and
// completes (its results written, its tokens pushed) after `cycles`; the next instruction may start
// once the unit is free, but not before the data it needs is ready:
//   - rows it reads or writes that an earlier instruction still writes (read after write, write
//     after write), or still reads (write after read), wait until that one completes; except that
//     a matmul (matmul_tile or matmul_stream) after a matmul does not wait for the other's accumulator rows: both
//     results leave the one array pipeline in issue order, so row r of the later one reaches the
//     accumulator after row r of the earlier one (this is what lets back-to-back matmuls
//     accumulating into one tile overlap their fill and drain);
//   - the array holds array.weight_buffers weight sets; the n-th weight_preload fills set
//     n mod weight_buffers once every matmul that read the set's previous weights has completed
//     and the preload before it has completed (one weight path), and a matmul_tile waits until
//     the set of the latest preload is complete (a matmul before any preload reads the last
//     set, still zero);
//   - finish waits for every earlier instruction to complete.
// Instructions start in program order, at most one per cycle. With two weight sets a preload runs
// on the array's weight path (onWeightPath): it starts without waiting for the instruction before
// it to finish issuing (it fills the set no matmul in flight reads) and holds up the instructions
// after it only by its start cycle, so the next tile's weights load while the current matmul's
// rows stream in. With vector.parallel the vector classes take a path of their own (issuePath,
// IssuePaths): each waits for the vector unit, not for the array instruction before it.
// These are data hazards (and the issue paths). How long an instruction holds the unit's input
// (its rows streaming in) is its `issue`, the YAML's claim; nothing here second-guesses it.
// An instruction's results are ready `cycles` after its start; the tokens it pushes are stamped
// no earlier than the completion of every instruction before it in its queue (the simulator's
// rule for every unit), so a token never overtakes the data before it.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "systole/isa/dram_channel.h"
#include "systole/isa/encoding.h"
#include "systole/isa/row_footprint.h"

namespace systole::isa {

/// The on-chip rows a compute instruction reads and writes, and whether it touches the weights.
struct ComputeAccesses {
  std::array<RowRange, 3> reads{};
  int num_reads = 0;
  RowRange write{};
  bool writes_rows = false;
  bool reads_weights = false;   // matmul_tile (matmul_stream reads its weights from the scratchpad)
  bool writes_weights = false;  // weight_preload
};
ComputeAccesses computeAccesses(const Params& p, const InstrDesc& d, const Instruction& in);
/// matmul_tile or matmul_stream: an instruction whose results leave the array's pipeline.
bool isArrayProduct(Semantics s);
/// A class the vector unit runs: every compute class but the array's (products, preloads) and
/// control (nop, finish). What vector.parallel moves to the vector path, and the vector's busy time.
bool isVectorClass(Semantics s);

class ComputeScoreboard {
 public:
  explicit ComputeScoreboard(const Params& p) : weight_buffers_(static_cast<int>(p.array_weight_buffers)) {}

  /// The earliest cycle, not before `t`, at which the instruction may start.
  uint64_t earliestStart(const Params& p, const InstrDesc& d, const Instruction& in, uint64_t t) const;
  /// Records that the instruction started at `start` and completes at `end` (start times are
  /// non-decreasing: the unit is in order).
  void record(const Params& p, const InstrDesc& d, const Instruction& in, uint64_t start, uint64_t end);
  /// The same, given the instruction's computeAccesses (for a caller that needs both).
  uint64_t earliestStart(const InstrDesc& d, const ComputeAccesses& a, uint64_t t) const;
  void record(const InstrDesc& d, const ComputeAccesses& a, uint64_t start, uint64_t end);

 private:
  struct Pending {
    RowRange rows;
    uint64_t until;   // the instruction's completion
    bool write;       // it writes these rows (else it reads them)
    bool from_array;  // a matmul_tile's or matmul_stream's rows
  };
  struct WeightSet {
    uint64_t ready = 0;  // the preload that filled it completes
    uint64_t freed = 0;  // the matmuls that read it complete
  };
  /// The set the latest preload filled (before any, the last set: both hold zeros, and the first
  /// preload fills set 0 while a matmul before it may still read).
  size_t readSet() const { return static_cast<size_t>((preloads_ + weight_buffers_ - 1) % weight_buffers_); }
  int weight_buffers_;
  std::vector<Pending> pending_;
  std::array<WeightSet, 2> sets_{};
  int64_t preloads_ = 0;
  uint64_t last_preload_end_ = 0;
  uint64_t last_end_ = 0;
};

/// Whether the instruction runs on the array's weight path beside the compute unit's instruction
/// stream: a weight_preload (either form) when the array holds two weight sets.
inline bool onWeightPath(const Params& p, const InstrDesc& d) {
  return isWeightPreload(d.semantics) && p.array_weight_buffers > 1;
}

/// The compute unit's issue paths: the main stream; the array's weight path (onWeightPath); and,
/// with vector.parallel, the vector unit's own, which every vector class (requantize, vector_*)
/// takes: it then waits for the vector unit to be free, not for the array instruction before it.
enum class IssuePath : uint8_t { Main, Weight, Vector };
IssuePath issuePath(const Params& p, const InstrDesc& d);

/// When the compute unit's issue paths can start their next instruction. Every instruction starts
/// in program order, at most one per cycle (`order`); one on the weight path holds up the next only
/// by its start; one on the main or vector path holds its path for its occupancy.
struct IssuePaths {
  uint64_t main = 0, vector = 0, order = 0;
  uint64_t earliest(IssuePath path) const {
    return path == IssuePath::Weight ? order : std::max(order, path == IssuePath::Vector ? vector : main);
  }
  void started(IssuePath path, uint64_t start, uint64_t occupiedUntil) {
    if (path == IssuePath::Weight)
      main = std::max(main, start + 1);
    else
      (path == IssuePath::Vector ? vector : main) = occupiedUntil;
    order = start + 1;
  }
  uint64_t free() const { return std::max(main, vector); }
};

/// The cycles a two-source vector instruction loses to bank conflicts: rows interleave across
/// banks (row r in bank r % banks), so sources a + i and b + i share a bank for every i exactly
/// when a and b are congruent modulo the bank count; then each row costs the memory's
/// conflict_cycles more (vector_max reads the scratchpad, vector_add/mul the accumulator).
/// matmul_stream's two sources are its activation and weight rows, slice by slice.
int64_t bankConflictCycles(const Params& p, const InstrDesc& d, const Instruction& in);

/// The compute unit's timeline over its instructions in program order, as the simulator runs them:
/// each starts when the previous one's `issue` (occupancyCycles) has passed, the scoreboard allows,
/// and not before a given cycle (the arrival of a token it pops).
class ComputeTimeline {
 public:
  explicit ComputeTimeline(const IsaConfig& isa) : isa_(isa), board_(isa.params()) {}
  /// Starts `in` no earlier than `notBefore`; returns its start cycle (instructions of other
  /// units are ignored: then `notBefore`).
  uint64_t issue(const Instruction& in, uint64_t notBefore = 0);
  /// When every instruction so far has completed.
  uint64_t done() const { return done_; }
  /// When the unit has completed them and is free for another.
  uint64_t end() const { return std::max(paths_.free(), done_); }

 private:
  const IsaConfig& isa_;
  ComputeScoreboard board_;
  IssuePaths paths_;
  uint64_t done_ = 0;  // last completion
};

/// When a run of compute instructions, started back to back from cycle 0 with no tokens to wait
/// for, completes (a ComputeTimeline over them).
int64_t computeSpan(const IsaConfig& isa, const Instruction* begin, const Instruction* end);

/// The DRAM rows a DMA instruction moves: its rows, or one for a broadcast (dma.broadcast: a
/// load of several rows at dram_stride 0 reads its row once).
int64_t dramRows(const Params& p, const InstrDesc& d, const Instruction& in);
/// The bytes a DMA instruction moves per DRAM row: `bytes`, or for dma_load_int4 half a byte per
/// on-chip lane, rounded up (two packed 4-bit values per DRAM byte).
int64_t dramRowBytes(const Params& p, const InstrDesc& d, const Instruction& in);
/// The cycles a DMA instruction holds the shared DRAM data channel: its DRAM rows times
/// ceil(dramRowBytes / dram.bytes_per_cycle).
int64_t dramChannelCycles(const Params& p, const InstrDesc& d, const Instruction& in);

/// One DMA unit's timeline, as the simulator runs it: each instruction occupies the unit for its
/// occupancyCycles, at most dma.outstanding are in flight, and they complete in order after their
/// `timing.cycles`. A run of short transfers is then bounded by the latency window (cycles /
/// outstanding each), not only by their summed `issue`.
class DmaTimeline {
 public:
  /// With `channel`, each transfer also reserves its cycles of the shared DRAM data channel from
  /// its start (the simulator's rule) and waits for them.
  DmaTimeline(const IsaConfig& isa, Unit unit, DramChannel* channel = nullptr)
      : isa_(isa), unit_(unit), channel_(channel) {}
  /// Starts `in` no earlier than `notBefore`; returns its start cycle (instructions of other
  /// units are ignored: then `notBefore`).
  uint64_t issue(const Instruction& in, uint64_t notBefore = 0);
  /// When every transfer so far has completed.
  uint64_t done() const { return done_; }
  /// When they have completed and the unit is free for another.
  uint64_t end() const { return std::max(free_, done_); }

 private:
  const IsaConfig& isa_;
  Unit unit_;
  DramChannel* channel_;
  std::vector<uint64_t> inflight_;  // completion times, in order (a ring of dma.outstanding)
  size_t head_ = 0;
  uint64_t free_ = 0, done_ = 0;
};

/// When a run of one DMA unit's instructions (the others are skipped), started from cycle 0,
/// completes (a DmaTimeline over them).
int64_t dmaSpan(const IsaConfig& isa, Unit unit, const Instruction* begin, const Instruction* end);

}  // namespace systole::isa
