// The energy and area model of an NPU: per-event energies and per-unit areas, from the config's
// optional `energy:` and `area:` sections (docs/isa-schema.md). Every key, its default, unit and
// published source is one row of costParameters(); the loader, `isa check`, `isa doc` and the
// docs read that table. The simulator counts the events; sim/energy.h multiplies.
#pragma once

#include <limits>
#include <span>
#include <string>
#include <string_view>

namespace systole::isa {

struct Params;

/// Energies in pJ, areas in mm^2. Filled by the loader: a key the config omits takes its
/// costParameters() default.
struct CostModel {
  // --- energy: ---
  double mac_pj = 0;                // one int8 x int8 multiply with int32 accumulation
  double mac_multiplier_share = 0;  // of mac_pj: the part that scales with the weight width
  double scratchpad_read_pj_per_byte = 0;
  double scratchpad_write_pj_per_byte = 0;
  double accumulator_read_pj_per_byte = 0;
  double accumulator_write_pj_per_byte = 0;
  double dram_read_pj_per_byte = 0;
  double dram_write_pj_per_byte = 0;
  double vector_op_pj = 0;          // one lane-element of a vector instruction
  double leakage_pj_per_cycle = 0;  // the whole NPU, every cycle
  // --- area: ---
  double pe_mm2 = 0;               // one processing element of the array
  double pe_multiplier_share = 0;  // of pe_mm2: the part that scales with the weight width
  double depthwise_pe_share = 0;   // of pe_mm2: what the depthwise mode adds to a PE (with array.line_buffer_rows)
  double vector_mac_pe_share = 0;  // of pe_mm2: a vector lane's multiply-accumulate (with vector_mac)
  double scratchpad_mm2_per_kib = 0;
  double accumulator_mm2_per_kib = 0;
  double fixed_mm2 = 0;  // controller, queues, DMA engines, vector unit
  // --- derived by the loader from types.weight (not a key): ---
  double mac_energy_scale = 1;  // mac_pj's factor for the array's operand widths
  double pe_area_scale = 1;     // pe_mm2's factor for the array's operand widths
};

/// Sets cost.mac_energy_scale and cost.pe_area_scale for a PE whose multiplier takes activations of
/// `activation_bits` and weights of `weight_bits` bits: mac_pj and pe_mm2 are for an 8 x 8-bit
/// multiplier, and only their multiplier's share (mac_multiplier_share, pe_multiplier_share)
/// scales, with the product of the two widths (an array multiplier's partial products).
void scaleForOperandWidths(CostModel& cost, int activation_bits, int weight_bits);

/// One key of the `energy:` or `area:` section.
struct CostParameter {
  std::string_view section;  // "energy" or "area"
  std::string_view key;
  double CostModel::*member;
  double default_value;
  std::string_view unit;
  std::string_view meaning;
  std::string_view source;                                     // where the default comes from
  double max_value = std::numeric_limits<double>::infinity();  // the loader's upper bound (0 is the lower)
};

std::span<const CostParameter> costParameters();

/// A CostModel with every default.
CostModel defaultCostModel();

/// The chip's area by part, from the array size and the memories' capacities.
struct AreaBreakdown {
  double array_mm2 = 0, scratchpad_mm2 = 0, accumulator_mm2 = 0, fixed_mm2 = 0;
  double vector_mac_mm2 = 0;  // the vector lanes' multipliers (vector_mac); the rest of the unit is in fixed_mm2
  double total() const { return array_mm2 + scratchpad_mm2 + accumulator_mm2 + fixed_mm2 + vector_mac_mm2; }
};

AreaBreakdown areaOf(const Params& p);

/// A value as the shortest text that reads back exactly ("0.3", "162.5", "0.00084").
std::string formatCost(double v);

/// One line: "area: 1.84 mm^2 (array 0.22, scratchpad 1.46, accumulator 0.36, fixed 0.10)".
std::string areaSummary(const Params& p);

}  // namespace systole::isa
