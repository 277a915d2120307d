// The energy model: a hand-made program's energy equals the figure computed by hand from the
// config's per-event energies and the instruction semantics (sim/sram_traffic.h), and changing
// one energy in the YAML moves exactly its component.
#include <gtest/gtest.h>

#include "chain_program.h"
#include "systole/isa/builder.h"
#include "systole/isa/config.h"
#include "systole/sim/energy.h"
#include "systole/sim/simulator.h"

namespace systole {
namespace {

const std::string kConfigs = std::string(SYSTOLE_SOURCE_DIR) + "/isa/configs/";

/// load (R weight rows + m activation rows) -> preload -> gemm -> requantize -> store -> finish.
sim::Stats runChain(const isa::IsaConfig& isa, int64_t m) {
  isa::ProgramBuilder b(isa);
  testing::emitSerialChain(b, m);
  sim::Simulator simulator(isa);
  return simulator.runDecoded(b.instructions(), b.data()).stats;
}

class EnergyOnConfig : public ::testing::TestWithParam<const char*> {};

TEST_P(EnergyOnConfig, HandMadeProgramMatchesHandComputedEnergy) {
  const auto isa = isa::IsaConfig::load(kConfigs + GetParam() + ".yaml");
  const isa::Params& p = isa.params();
  const isa::CostModel& c = p.cost;
  const int64_t R = p.array_rows, C = p.array_cols, E = p.spad_row_elems, S = p.spad_row_bytes, A = p.acc_row_bytes;
  const int64_t L = p.vector_lanes, m = 3;
  const sim::Stats s = runChain(isa, m);
  // By instruction: load writes R + m whole scratchpad rows from DRAM; the preload reads the
  // R x C weights; the gemm reads m rows of K = R int8 and writes m accumulator rows (no
  // accumulate: no read); requantize reads m rows and the 2 scale rows, writes m scratchpad rows
  // over L lanes; the store reads m rows of E bytes and writes them to DRAM.
  EXPECT_EQ(s.macs, static_cast<uint64_t>(m * R * C));
  EXPECT_EQ(s.spad_bytes_written, static_cast<uint64_t>((R + m) * S + m * S));
  EXPECT_EQ(s.spad_bytes_read, static_cast<uint64_t>(R * C + m * R + m * E));
  EXPECT_EQ(s.acc_bytes_written, static_cast<uint64_t>(m * A));
  EXPECT_EQ(s.acc_bytes_read, static_cast<uint64_t>((m + 2) * A));
  EXPECT_EQ(s.vector_elements, static_cast<uint64_t>(m * L));
  EXPECT_EQ(s.dram_bytes_read, static_cast<uint64_t>((R + m) * E));
  EXPECT_EQ(s.dram_bytes_written, static_cast<uint64_t>(m * E));

  const auto d = [](int64_t v) { return static_cast<double>(v); };
  const double mac = d(m * R * C) * c.mac_pj;
  const double spad =
      d(2 * m * S + R * S) * c.scratchpad_write_pj_per_byte + d(R * C + m * R + m * E) * c.scratchpad_read_pj_per_byte;
  const double acc = d(m * A) * c.accumulator_write_pj_per_byte + d((m + 2) * A) * c.accumulator_read_pj_per_byte;
  const double dram = d((R + m) * E) * c.dram_read_pj_per_byte + d(m * E) * c.dram_write_pj_per_byte;
  const double vec = d(m * L) * c.vector_op_pj;
  const double leak = static_cast<double>(s.cycles) * c.leakage_pj_per_cycle;
  const sim::Energy e = sim::energyOf(s, s.cycles, c);
  EXPECT_DOUBLE_EQ(e.mac, mac);
  EXPECT_DOUBLE_EQ(e.scratchpad, spad);
  EXPECT_DOUBLE_EQ(e.accumulator, acc);
  EXPECT_DOUBLE_EQ(e.dram, dram);
  EXPECT_DOUBLE_EQ(e.vector, vec);
  EXPECT_DOUBLE_EQ(e.leakage, leak);
  EXPECT_DOUBLE_EQ(e.total(), mac + spad + acc + dram + vec + leak);
  EXPECT_GT(e.mac, 0);
  EXPECT_GT(e.leakage, 0);
}

TEST_P(EnergyOnConfig, OneYamlEnergyScalesOnlyItsComponent) {
  const std::string path = kConfigs + GetParam() + ".yaml";
  const auto base = isa::IsaConfig::load(path);
  const sim::Stats s = runChain(base, 2);
  const sim::Energy e0 = sim::energyOf(s, s.cycles, base.params().cost);
  struct Case {
    const char* key;
    double sim::Energy::*component;
  };
  for (const Case& k :
       {Case{"mac_pj", &sim::Energy::mac}, Case{"dram_write_pj_per_byte", &sim::Energy::dram},
        Case{"scratchpad_read_pj_per_byte", &sim::Energy::scratchpad},
        Case{"accumulator_write_pj_per_byte", &sim::Energy::accumulator}, Case{"vector_op_pj", &sim::Energy::vector},
        Case{"leakage_pj_per_cycle", &sim::Energy::leakage}}) {
    SCOPED_TRACE(k.key);
    double before = 0;
    for (const auto& c : isa::costParameters())
      if (c.key == k.key) before = base.params().cost.*c.member;
    ASSERT_GT(before, 0);
    const auto changed = isa::IsaConfig::load(path, {{std::string("energy.") + k.key, isa::formatCost(before * 3)}});
    const sim::Energy e1 = sim::energyOf(s, s.cycles, changed.params().cost);
    for (double sim::Energy::*part : {&sim::Energy::mac, &sim::Energy::scratchpad, &sim::Energy::accumulator,
                                      &sim::Energy::dram, &sim::Energy::vector, &sim::Energy::leakage}) {
      if (part != k.component) {
        EXPECT_DOUBLE_EQ(e1.*part, e0.*part);
      }
    }
    EXPECT_GT(e1.*k.component, e0.*k.component);
    // A component with one event kind triples; dram and the SRAMs also hold the other direction.
    const double other = k.component == &sim::Energy::dram
                             ? static_cast<double>(s.dram_bytes_read) * base.params().cost.dram_read_pj_per_byte
                         : k.component == &sim::Energy::scratchpad ? static_cast<double>(s.spad_bytes_written) *
                                                                         base.params().cost.scratchpad_write_pj_per_byte
                         : k.component == &sim::Energy::accumulator
                             ? static_cast<double>(s.acc_bytes_read) * base.params().cost.accumulator_read_pj_per_byte
                             : 0.0;
    EXPECT_NEAR(e1.*k.component - other, 3 * (e0.*k.component - other), 1e-9 * e1.*k.component);
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, EnergyOnConfig, ::testing::Values("tiny", "default", "large", "os16"));

TEST(Energy, SummaryLineGivesTheSharesOfTheTotal) {
  sim::Energy e;
  e.mac = 4e6;
  e.scratchpad = 1e6;
  e.accumulator = 1e6;
  e.dram = 3.5e6;
  e.leakage = 0.5e6;
  EXPECT_EQ(sim::energySummary(e), "energy: 10 uJ (MAC 40%, SRAM 20%, DRAM 35%, vector 0%, leakage 5%)");
  e = sim::Energy{};
  e.dram = 31.98e9;
  EXPECT_EQ(sim::energySummary(e), "energy: 31.98 mJ (MAC 0%, SRAM 0%, DRAM 100%, vector 0%, leakage 0%)");
  EXPECT_EQ(sim::energySummary(sim::Energy{}), "energy: 0 pJ (MAC 0%, SRAM 0%, DRAM 0%, vector 0%, leakage 0%)");
}

}  // namespace
}  // namespace systole
