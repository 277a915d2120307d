// An NPU description loaded from isa/configs/<name>.yaml: independent parameters as written,
// derived parameters computed in one place (derive.cpp), and the instruction table.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "systole/isa/cost_model.h"
#include "systole/isa/diagnostic.h"
#include "systole/isa/expr.h"
#include "systole/isa/semantics.h"

namespace systole::isa {

/// The largest memories.dram.size: the simulator backs every byte a program's tensors cover.
inline constexpr int64_t kMaxDramSize = int64_t{1} << 32;

enum class Dataflow : uint8_t { WeightStationary, OutputStationary };
std::string_view dataflowName(Dataflow d);

/// Every scalar parameter of the machine. The first block is read from the YAML; the second is
/// derived from it by deriveParameters() and nowhere else.
struct Params {
  // --- independent (from the YAML) ---
  std::string name;
  std::string description;
  int64_t clock_mhz = 0;
  int64_t array_rows = 0, array_cols = 0;
  int64_t array_weight_buffers = 1;    // weight sets the array holds (2: preload into a shadow set)
  int64_t array_line_buffer_rows = 0;  // depthwise mode: scratchpad rows its line buffer holds (0: no mode)
  Dataflow dataflow = Dataflow::WeightStationary;
  int64_t dram_size = 0, dram_bytes_per_cycle = 0, dram_latency = 0;
  int64_t spad_size = 0, spad_banks = 0, spad_conflict_cycles = 0;
  int64_t acc_size = 0, acc_banks = 0, acc_conflict_cycles = 0;
  int64_t dma_burst_bytes = 0;
  int64_t dma_outstanding = 1;  // DMA instructions in flight per DMA unit (their latency overlaps)
  int64_t dma_broadcast = 0;    // 1: a load with dram_stride 0 reads its row from DRAM once
  int64_t vector_latency = 0;
  int64_t vector_parallel = 0;  // 1: the vector classes have their own issue path beside the array's (pipeline.h)
  int64_t queue_depth[kNumUnits] = {0, 0, 0};
  int64_t instr_bits = 0, opcode_bits = 0;
  // The host processor that runs the operators the NPU does not, in NPU cycles.
  int64_t host_elements_per_cycle = 0;  // element-wise work and data movement: output elements
  int64_t host_macs_per_cycle = 0;      // Conv / Gemm / MatMul multiply-accumulates
  int64_t host_op_cycles = 0;           // fixed cost of one host operator (dispatch, synchronisation)
  CostModel cost;                       // energy and area (optional sections; defaults in cost_model.cpp)
  /// types.weight: the weight widths the array and DMA take (8, 4), the first the default. Weights
  /// are int8 on chip either way; int4 ones are packed two per byte in DRAM (dma_load_int4).
  std::vector<int> weight_bits = {8};

  bool offersWeightBits(int bits) const {
    return std::find(weight_bits.begin(), weight_bits.end(), bits) != weight_bits.end();
  }
  /// The widest weight type offered: what the array's multipliers are built for (area, energy).
  int widestWeightBits() const { return *std::max_element(weight_bits.begin(), weight_bits.end()); }
  /// types.accumulator: the bits of an accumulator lane (16, 24 or 32). A narrower accumulator
  /// saturates every lane an instruction writes (isa::arith::storeAccumulator); int32 wraps.
  int acc_bits = 32;
  /// types.activation: the bits of a scratchpad lane (8 or 16). Every scratchpad row, activation,
  /// weight or table, is lanes of this width; a weight keeps the lane's low bits (weight_preload).
  int act_bits = 8;

  // --- derived ---
  int64_t spad_row_elems = 0;  // lanes of a scratchpad row: max(array.rows, array.cols)
  int64_t spad_row_bytes = 0;  // = spad_row_elems x act_bits / 8
  int64_t spad_rows = 0;
  int64_t acc_row_elems = 0;       // lanes of an accumulator row: array.cols
  int64_t acc_row_bytes = 0;       // an accumulator row as DMA moves it: little-endian int32 lanes
  int64_t acc_sram_row_bytes = 0;  // an accumulator row as the SRAM stores it: acc_bits per lane
  int64_t acc_rows = 0;
  int64_t vector_lanes = 0;      // = acc_row_elems
  int64_t vector_mac_lanes = 0;  // lanes with a multiplier: vector.lanes with a vector_mac instruction, else 0
  int64_t instr_bytes = 0;
  int64_t token_lsb = 0;   // first bit of the dependency-token flags (= opcode_bits)
  int64_t fields_lsb = 0;  // first bit free for fields (= token_lsb + 4)
  int64_t lut_rows = 0;    // scratchpad rows a 256-entry lookup table occupies
};

/// The width of a weight type named as types.weight names it ("int8" 8, "int4" 4); 0 for any other.
int weightTypeBits(std::string_view name);
/// The width of an accumulator type as types.accumulator names it (int16, int24, int32); 0 for any other.
int accumulatorTypeBits(std::string_view name);
/// The width of an activation type as types.activation names it (int8, int16); 0 for any other.
int activationTypeBits(std::string_view name);

/// One row of the parameter table that expressions and docs see.
struct ParamEntry {
  std::string name;  // as written in expressions, e.g. "scratchpad.rows"
  int64_t value;
  bool derived;
  std::string description;  // with unit
};

/// Fills the derived block of `p` (throws Error at `where` if the independent ones are inconsistent).
void deriveParameters(Params& p, const SourceLocation& where);

/// All parameters as named in expressions, in a stable order.
std::vector<ParamEntry> parameterTable(const Params& p);

struct FieldDesc {
  std::string name;
  int lsb = 0;
  int bits = 0;
  std::string bits_expr;  // the width's expression when it is one (e.g. "bits_for(scratchpad.rows - 1)")
  bool is_signed = false;
  std::optional<Expr> max;  // extra upper bound beyond the width (e.g. scratchpad.row_bytes)
  int64_t limit_value = 0;  // limit(), computed once by the loader (decoding reads it per field)
  SourceLocation where;

  int64_t minValue() const { return is_signed ? -(int64_t{1} << (bits - 1)) : 0; }
  int64_t maxValue() const { return is_signed ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1; }
  /// The largest value an operand may take: the width's maximum, lowered by `max` if given.
  int64_t limit() const { return limit_value; }
};

/// Every field is one of its semantics class's operands, so no instruction has more fields than a
/// class has operand slots.
inline constexpr int kMaxFields = static_cast<int>(std::tuple_size_v<decltype(SemanticsInfo::operands)>);

struct InstrDesc {
  std::string name;
  uint32_t opcode = 0;
  Unit unit = Unit::Compute;
  Semantics semantics = Semantics::Nop;
  std::vector<FieldDesc> fields;
  /// operand_field[k] = index into `fields` of the semantics class's k-th operand.
  std::array<int, 8> operand_field{};
  Expr cycles;  // from start to completion (tokens are pushed then)
  Expr issue;   // optional: from start until the unit may start its next one (at most cycles)
  bool has_issue = false;
  /// The bits the opcode, the token flags and the fields occupy; every other bit is reserved.
  std::array<uint64_t, 8> used_bits{};
  SourceLocation where;

  int fieldIndex(std::string_view field) const;  // -1 if absent
};

/// `--set KEY=VALUE`: a dotted path into the YAML (an instruction by its name under
/// `instructions`, e.g. instructions.gemm.timing.cycles) and a YAML value, applied to the parsed
/// file before it is validated and derived exactly like the file itself.
struct ConfigOverride {
  std::string key, value;
  /// Parses "KEY=VALUE"; throws Error naming the argument.
  static ConfigOverride parse(const std::string& arg);
  std::string text() const { return "--set " + key + "=" + value; }
};

class IsaConfig {
 public:
  /// Loads and validates a config; throws Error with file:line:col on any problem (a problem in an
  /// override is reported against "--set KEY=VALUE"). The hash covers the overrides.
  static IsaConfig load(const std::string& path, const std::vector<ConfigOverride>& overrides = {});
  static IsaConfig parse(const std::string& text, const std::string& filename,
                         const std::vector<ConfigOverride>& overrides = {});

  const Params& params() const { return params_; }
  const std::vector<InstrDesc>& instructions() const { return instrs_; }
  const InstrDesc& instr(int index) const { return instrs_[static_cast<size_t>(index)]; }
  /// Index of the instruction with this opcode, or -1.
  int byOpcode(uint32_t opcode) const { return opcode < opcode_table_.size() ? opcode_table_[opcode] : -1; }
  int byName(std::string_view name) const;  // -1 if absent
  /// First instruction of a semantics class (the one the compiler selects), or -1.
  int bySemantics(Semantics s) const;

  /// FNV-1a 64-bit hash of the config file's bytes; .sbin programs record it.
  uint64_t hash() const { return hash_; }
  const std::string& path() const { return path_; }

 private:
  friend class ConfigLoader;
  Params params_;
  std::vector<InstrDesc> instrs_;
  std::vector<int> opcode_table_;
  uint64_t hash_ = 0;
  std::string path_;
};

uint64_t fnv1a64(const void* data, size_t size, uint64_t seed = 0xcbf29ce484222325ull);

}  // namespace systole::isa
