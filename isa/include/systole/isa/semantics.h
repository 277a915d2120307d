// The semantics classes an instruction can have. A class fixes what the instruction does and which
// named operands (fields) it needs; the YAML chooses the opcode, the field widths and positions,
// the unit's timing and the limits. The arithmetic of each class is specified in
// docs/isa-semantics.md and implemented once, in systole/isa/arith.h.
#pragma once

#include <array>
#include <optional>
#include <span>
#include <string_view>

namespace systole::isa {

/// The three decoupled instruction queues (and the units behind them).
enum class Unit : uint8_t { Load, Compute, Store };
inline constexpr int kNumUnits = 3;

enum class Semantics : uint8_t {
  DmaLoad,         // DRAM -> scratchpad rows
  DmaLoadAcc,      // DRAM -> accumulator rows (int32)
  DmaStore,        // scratchpad rows -> DRAM
  DmaStoreAcc,     // accumulator rows -> DRAM (int32)
  WeightPreload,   // scratchpad rows -> the array's weight registers
  MatmulTile,      // activation rows x weights -> accumulator rows
  MatmulStream,    // output-stationary: a reduction of several slices, both operands from the scratchpad
  Requantize,      // accumulator rows -> scratchpad rows (int32 -> int8)
  VectorWiden,     // scratchpad rows -> accumulator rows ((x - zp) * multiplier)
  VectorAdd,       // accumulator rows + accumulator rows
  VectorMul,       // accumulator rows * accumulator rows
  VectorMax,       // max of scratchpad rows
  VectorLut,       // scratchpad rows through a 256-entry int8 table
  VectorReduce,    // accumulator row -> its lane sum or lane max, broadcast to every lane
  Nop,             // no effect; carries dependency tokens
  Finish,          // end of program once all queues drain
  DmaLoad2d,       // DRAM -> scratchpad rows, several runs of strided rows (a 2-D transfer)
  VectorRecip,     // accumulator rows -> 2^shift / x or 2^shift / sqrt(x), lane by lane
  WeightPreloadT,  // scratchpad rows -> the array's weight registers, transposed (rows become columns)
  DmaLoadInt4,     // DRAM rows of packed signed 4-bit values -> scratchpad rows of int8 (int4 weights)
  DepthwiseTile,   // the array's depthwise mode: a tap per PE row, a channel per column, windows from a line buffer
  VectorMac,       // strided scratchpad rows times one scratchpad row, lane by lane, into accumulator rows
};
inline constexpr int kNumSemantics = 22;

/// weight_preload and its transposed form: both load the array's next weight set.
inline bool isWeightPreload(Semantics s) { return s == Semantics::WeightPreload || s == Semantics::WeightPreloadT; }

/// Operands of a semantics class, in the order they are passed to the arithmetic.
struct SemanticsInfo {
  Semantics semantics;
  std::string_view name;                     // as written in the YAML
  Unit unit;                                 // the queue that executes it
  std::array<std::string_view, 8> operands;  // required field names; empty entries unused
  std::string_view summary;                  // one line for docs and --help

  int operandCount() const {
    int n = 0;
    while (n < static_cast<int>(operands.size()) && !operands[static_cast<size_t>(n)].empty()) ++n;
    return n;
  }
};

const SemanticsInfo& semanticsInfo(Semantics s);

/// The on-chip memory whose rows an operand addresses (the first row of a range), if any.
enum class RowSpace : uint8_t { None, Scratchpad, Accumulator };
RowSpace operandRowSpace(Semantics s, int operand);

std::span<const SemanticsInfo> allSemantics();
std::optional<Semantics> semanticsByName(std::string_view name);

std::string_view unitName(Unit u);
std::optional<Unit> unitByName(std::string_view name);

/// Dependency-token flags, in the fixed header of every instruction (after the opcode).
enum TokenFlag : uint8_t { kPopPrev = 1, kPopNext = 2, kPushPrev = 4, kPushNext = 8 };
inline constexpr int kNumTokenFlags = 4;
inline constexpr std::array<std::string_view, kNumTokenFlags> kTokenFlagNames = {"pop_prev", "pop_next", "push_prev",
                                                                                 "push_next"};

/// Whether a queue has a neighbour before / after it (load <-> compute <-> store).
inline bool hasPrev(Unit u) { return u != Unit::Load; }
inline bool hasNext(Unit u) { return u != Unit::Store; }

}  // namespace systole::isa
