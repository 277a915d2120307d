// Algorithm: one table holds every energy and area key with its default and its source; the
// defaults are 45 nm figures, mostly from M. Horowitz, "Computing's energy problem (and what we
// can do about it)", ISSCC 2014 (45 nm, 0.9 V), so a config without the sections is a 45 nm chip.
#include "systole/isa/cost_model.h"

#include <charconv>
#include <cstdio>

#include "systole/isa/config.h"

namespace systole::isa {

namespace {

constexpr CostParameter kTable[] = {
    {"energy", "mac_pj", &CostModel::mac_pj, 0.3, "pJ",
     "one int8 x int8 multiply-accumulate into int32 (array MACs, padding included)",
     "8-bit multiply 0.2 pJ + 32-bit add 0.1 pJ (Horowitz, ISSCC 2014, 45 nm)"},
    {"energy", "mac_multiplier_share", &CostModel::mac_multiplier_share, 0.667, "",
     "the multiplier's share of mac_pj, which scales with the widest weight type (types.weight) over 8 bits",
     "0.2 of 0.3 pJ (Horowitz, ISSCC 2014, 45 nm)", 1.0},
    {"energy", "scratchpad_read_pj_per_byte", &CostModel::scratchpad_read_pj_per_byte, 2.5, "pJ/byte",
     "a byte read from the scratchpad",
     "64-bit read of a 32 KB SRAM 20 pJ (Horowitz, ISSCC 2014, 45 nm; 8 KB 10 pJ, 1 MB 100 pJ): pick by bank size"},
    {"energy", "scratchpad_write_pj_per_byte", &CostModel::scratchpad_write_pj_per_byte, 2.5, "pJ/byte",
     "a byte written to the scratchpad", "taken equal to the read (Horowitz gives reads only)"},
    {"energy", "accumulator_read_pj_per_byte", &CostModel::accumulator_read_pj_per_byte, 2.5, "pJ/byte",
     "a byte read from the accumulator", "as the scratchpad (Horowitz, ISSCC 2014, 45 nm, 32 KB SRAM)"},
    {"energy", "accumulator_write_pj_per_byte", &CostModel::accumulator_write_pj_per_byte, 2.5, "pJ/byte",
     "a byte written to the accumulator", "taken equal to the read"},
    {"energy", "dram_read_pj_per_byte", &CostModel::dram_read_pj_per_byte, 162.5, "pJ/byte",
     "a byte the DMA reads from DRAM",
     "DRAM 1.3-2.6 nJ per 64-bit access, low end (Horowitz, ISSCC 2014, 45 nm); LPDDR4 is about 14 pJ/bit = 112 "
     "pJ/byte, HBM2 3.9 pJ/bit = 31 pJ/byte"},
    {"energy", "dram_write_pj_per_byte", &CostModel::dram_write_pj_per_byte, 162.5, "pJ/byte",
     "a byte the DMA writes to DRAM", "taken equal to the read"},
    {"energy", "vector_op_pj", &CostModel::vector_op_pj, 0.1, "pJ",
     "one lane-element of a vector instruction (requantize, widen, add, max, ...)",
     "32-bit add 0.1 pJ (Horowitz, ISSCC 2014, 45 nm)"},
    {"energy", "leakage_pj_per_cycle", &CostModel::leakage_pj_per_cycle, 8.0, "pJ/cycle",
     "static energy of the whole NPU per cycle it runs",
     "an assumption, not a published figure: about 10% of a 16 x 16 array's MAC energy per cycle at full load (256 x "
     "0.3 pJ)"},
    {"area", "pe_mm2", &CostModel::pe_mm2, 0.00084, "mm^2", "one processing element",
     "8-bit multiplier 282 um^2 + 32-bit adder 137 um^2 (Horowitz, ISSCC 2014, 45 nm), doubled for its registers and "
     "wiring (an assumption)"},
    {"area", "pe_multiplier_share", &CostModel::pe_multiplier_share, 0.673, "",
     "the multiplier's share of pe_mm2, which scales with the widest weight type (types.weight) over 8 bits",
     "282 of 419 um^2 (Horowitz, ISSCC 2014, 45 nm)", 1.0},
    {"area", "depthwise_pe_share", &CostModel::depthwise_pe_share, 0.1, "",
     "what the depthwise mode (array.line_buffer_rows) adds to each PE, as a share of pe_mm2: a tap input register and "
     "a multiplexer before the multiplier; its line buffer is costed as scratchpad SRAM",
     "an assumption: an 8-bit register and 2:1 multiplexer, about a tenth of an int8 PE", 1.0},
    {"area", "vector_mac_pe_share", &CostModel::vector_mac_pe_share, 0.5, "",
     "one vector lane's multiply-accumulate (vector_mac), as a share of pe_mm2: its multiplier and adder without the "
     "PE's pipeline registers",
     "pe_mm2 is the multiplier and adder doubled for registers and wiring, so half of it (an assumption)", 1.0},
    {"area", "scratchpad_mm2_per_kib", &CostModel::scratchpad_mm2_per_kib, 0.0057, "mm^2/KiB", "scratchpad capacity",
     "45 nm 6T SRAM cell 0.346 um^2 (Mistry et al., IEDM 2007) x 8192 bits at 50% array efficiency (an assumption)"},
    {"area", "accumulator_mm2_per_kib", &CostModel::accumulator_mm2_per_kib, 0.0057, "mm^2/KiB", "accumulator capacity",
     "as the scratchpad"},
    {"area", "fixed_mm2", &CostModel::fixed_mm2, 0.1, "mm^2",
     "controller, instruction queues, DMA engines and vector unit", "an assumption, not a published figure"},
};

}  // namespace

std::span<const CostParameter> costParameters() { return kTable; }

CostModel defaultCostModel() {
  CostModel m;
  for (const CostParameter& c : kTable) m.*c.member = c.default_value;
  return m;
}

void scaleForOperandWidths(CostModel& cost, int activation_bits, int weight_bits) {
  const double width = activation_bits / 8.0 * weight_bits / 8.0;
  cost.mac_energy_scale = 1 - cost.mac_multiplier_share + cost.mac_multiplier_share * width;
  cost.pe_area_scale = 1 - cost.pe_multiplier_share + cost.pe_multiplier_share * width;
}

AreaBreakdown areaOf(const Params& p) {
  constexpr double kBytesPerKib = 1024.0;
  const CostModel& c = p.cost;
  AreaBreakdown a;
  a.array_mm2 = static_cast<double>(p.array_rows * p.array_cols) * c.pe_mm2 * c.pe_area_scale;
  if (p.array_line_buffer_rows > 0)  // the depthwise mode: its PE inputs and its line buffer
    a.array_mm2 +=
        static_cast<double>(p.array_rows * p.array_cols) * c.pe_mm2 * c.depthwise_pe_share +
        static_cast<double>(p.array_line_buffer_rows * p.array_cols) / kBytesPerKib * c.scratchpad_mm2_per_kib;
  a.vector_mac_mm2 = static_cast<double>(p.vector_mac_lanes) * c.pe_mm2 * c.pe_area_scale * c.vector_mac_pe_share;
  a.scratchpad_mm2 = static_cast<double>(p.spad_size) / kBytesPerKib * c.scratchpad_mm2_per_kib;
  a.accumulator_mm2 = static_cast<double>(p.acc_size) / kBytesPerKib * c.accumulator_mm2_per_kib;
  a.fixed_mm2 = c.fixed_mm2;
  return a;
}

std::string formatCost(double v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : std::string("?");
}

std::string areaSummary(const Params& p) {
  const AreaBreakdown a = areaOf(p);
  char buf[192];
  std::snprintf(buf, sizeof buf, "area: %.2f mm^2 (array %.2f, scratchpad %.2f, accumulator %.2f, fixed %.2f",
                a.total(), a.array_mm2, a.scratchpad_mm2, a.accumulator_mm2, a.fixed_mm2);
  std::string line = buf;
  if (a.vector_mac_mm2 > 0) {
    std::snprintf(buf, sizeof buf, ", vector MACs %.3f", a.vector_mac_mm2);
    line += buf;
  }
  return line + ")";
}

}  // namespace systole::isa
