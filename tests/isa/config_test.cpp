// Loading and validating ISA configs: the shipped ones load with the right derived parameters and
// layouts; invalid ones, made by editing a shipped config's text in memory, fail with an Error
// that points at the offending line and column.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>

#include "systole/isa/config.h"
#include "systole/isa/encoding.h"
#include "systole/isa/file_io.h"
#include "test_util.h"

namespace systole::isa {
namespace {

using test::catchError;
using test::configText;
using test::loadConfig;
using test::locate;
using test::replaceAfter;
using test::replaceFirst;
using test::replaceTiming;

const std::string kFile = "x.yaml";

int64_t param(const IsaConfig& isa, std::string_view name) {
  for (const auto& e : parameterTable(isa.params()))
    if (e.name == name) return e.value;
  throw std::logic_error("test: no parameter " + std::string(name));
}

/// Parses `text` expecting an Error at `where` (line and column) whose message contains `needle`.
void expectError(const std::string& text, const SourceLocation& where, const std::string& needle) {
  SCOPED_TRACE(needle);
  auto e = catchError([&] { IsaConfig::parse(text, kFile); });
  if (!e) return;
  EXPECT_EQ(e->where().file, kFile);
  EXPECT_EQ(e->where().line, where.line) << e->what();
  EXPECT_EQ(e->where().col, where.col) << e->what();
  EXPECT_NE(e->message().find(needle), std::string::npos) << e->what();
}

SourceLocation plus(SourceLocation loc, int cols) {
  loc.col += cols;
  return loc;
}

class ConfigErrors : public ::testing::Test {
 protected:
  const std::string def = configText("default");
  const std::string tiny = configText("tiny");
};

// ---------------------------------------------------------------------------------------------
// Shipped configs

TEST(Config, EveryShippedConfigLoads) {
  for (const std::string& name : test::shippedConfigNames()) {
    SCOPED_TRACE(name);
    const std::string text = configText(name);
    const IsaConfig isa = IsaConfig::load(test::configPath(name));
    EXPECT_EQ(isa.params().name, name);
    EXPECT_EQ(isa.path(), test::configPath(name));
    EXPECT_EQ(isa.hash(), fnv1a64(text.data(), text.size()));
    EXPECT_FALSE(isa.params().description.empty());
    // os16 also streams its reduction (matmul_stream); the weight-stationary configs do not.
    // default also has 2-D loads (dma_load_2d), offers int4 weights (dma_load_int4) and has the
    // array's depthwise mode (depthwise_tile) and vector multiply-accumulates (vector_mac).
    const bool streams = name == "os16", loads2d = name == "default", int4 = name == "default",
               depthwise = name == "default";
    EXPECT_EQ(isa.instructions().size(),
              17u + (streams ? 1 : 0) + (loads2d ? 1 : 0) + (int4 ? 1 : 0) + (depthwise ? 2 : 0));
    EXPECT_EQ(isa.params().vector_mac_lanes, depthwise ? isa.params().vector_lanes : 0);
    EXPECT_EQ(isa.params().array_line_buffer_rows > 0, depthwise);
    EXPECT_EQ(isa.params().offersWeightBits(4), int4);
    EXPECT_EQ(isa.params().weight_bits.front(), 8);
    // load() and parse() agree.
    const IsaConfig parsed = IsaConfig::parse(text, "mem.yaml");
    EXPECT_EQ(parsed.hash(), isa.hash());
    EXPECT_EQ(parsed.path(), "mem.yaml");
    // Every semantics class is implemented, and the lookups agree with the table.
    for (const SemanticsInfo& s : allSemantics()) {
      const int idx = isa.bySemantics(s.semantics);
      if ((s.semantics == Semantics::MatmulStream && !streams) || (s.semantics == Semantics::DmaLoad2d && !loads2d) ||
          (s.semantics == Semantics::DmaLoadInt4 && !int4) ||
          ((s.semantics == Semantics::DepthwiseTile || s.semantics == Semantics::VectorMac) && !depthwise)) {
        EXPECT_EQ(idx, -1);
        continue;
      }
      ASSERT_GE(idx, 0) << s.name;
      EXPECT_EQ(isa.instr(idx).semantics, s.semantics);
    }
    for (int i = 0; i < static_cast<int>(isa.instructions().size()); ++i) {
      const InstrDesc& d = isa.instr(i);
      EXPECT_EQ(isa.byName(d.name), i);
      EXPECT_EQ(isa.byOpcode(d.opcode), i);
      const SemanticsInfo& info = semanticsInfo(d.semantics);
      for (int k = 0; k < info.operandCount(); ++k)
        EXPECT_EQ(d.fields[static_cast<size_t>(d.operand_field[static_cast<size_t>(k)])].name,
                  info.operands[static_cast<size_t>(k)]);
    }
    EXPECT_EQ(isa.byName("no.such.instruction"), -1);
    EXPECT_EQ(isa.byOpcode(1u << isa.params().opcode_bits), -1);
  }
}

TEST(Config, MissingFile) {
  auto e = catchError([] { IsaConfig::load(test::configPath("no_such_config")); });
  ASSERT_TRUE(e);
  EXPECT_NE(e->message().find("cannot open"), std::string::npos) << e->what();
  EXPECT_EQ(e->where().file, test::configPath("no_such_config"));
}

TEST(Config, DerivedDefault) {
  const Params p = loadConfig("default").params();
  EXPECT_EQ(p.clock_mhz, 800);
  EXPECT_EQ(p.array_rows, 16);
  EXPECT_EQ(p.array_cols, 16);
  EXPECT_EQ(p.dataflow, Dataflow::WeightStationary);
  EXPECT_EQ(p.dram_size, int64_t{512} << 20);
  EXPECT_EQ(p.spad_size, 262144);
  EXPECT_EQ(p.acc_size, 65536);
  EXPECT_EQ(p.spad_row_elems, 16);
  EXPECT_EQ(p.spad_row_bytes, 16);
  EXPECT_EQ(p.spad_rows, 262144 / 16);
  EXPECT_EQ(p.spad_rows, 16384);
  EXPECT_EQ(p.acc_row_elems, 16);
  EXPECT_EQ(p.acc_row_bytes, 64);
  EXPECT_EQ(p.acc_rows, 65536 / 64);
  EXPECT_EQ(p.acc_rows, 1024);
  EXPECT_EQ(p.vector_lanes, 16);
  EXPECT_EQ(p.lut_rows, 16);
  EXPECT_EQ(p.instr_bits, 128);
  EXPECT_EQ(p.instr_bytes, 16);
  EXPECT_EQ(p.opcode_bits, 8);
  EXPECT_EQ(p.token_lsb, 8);
  EXPECT_EQ(p.fields_lsb, 12);
  EXPECT_EQ(p.queue_depth[0], 8);
}

// types.accumulator: a narrower lane makes the SRAM row narrower (so the same bytes hold more
// rows), while DMA still moves int32 lanes; the size must hold whole rows.
TEST(Config, NarrowAccumulator) {
  const auto p = IsaConfig::load(test::configPath("default"),
                                 {{"types.accumulator", "int24"}, {"memories.accumulator.size", "49152"}})
                     .params();
  EXPECT_EQ(p.acc_bits, 24);
  EXPECT_EQ(p.acc_sram_row_bytes, 48);
  EXPECT_EQ(p.acc_row_bytes, 64);
  EXPECT_EQ(p.acc_rows, 1024);
  const auto q = IsaConfig::load(test::configPath("default"), {{"types.accumulator", "int16"}}).params();
  EXPECT_EQ(q.acc_rows, 2048);
  bool listed = false;
  for (const auto& e : parameterTable(q)) listed |= e.name == "accumulator.bits" && e.value == 16;
  EXPECT_TRUE(listed);
  const auto e = test::catchError([] {
    IsaConfig::load(test::configPath("default"), {{"types.accumulator", "int24"}});
  });
  ASSERT_TRUE(e);
  EXPECT_NE(e->message().find("not a multiple of its row (48 bytes: 16 lanes of int24); the nearest are 65520 and "
                              "65568"),
            std::string::npos)
      << e->message();
}

TEST(Config, DerivedTiny) {
  const Params p = loadConfig("tiny").params();
  EXPECT_EQ(p.array_rows, 4);
  EXPECT_EQ(p.spad_size, 1024);
  EXPECT_EQ(p.spad_row_bytes, 4);
  EXPECT_EQ(p.spad_rows, 256);
  EXPECT_EQ(p.acc_row_bytes, 16);
  EXPECT_EQ(p.acc_rows, 64);
  EXPECT_EQ(p.lut_rows, 64);  // 256 entries / 4 bytes per row
  EXPECT_EQ(p.vector_lanes, 4);
  EXPECT_EQ(p.dram_size, int64_t{16} << 20);
  EXPECT_EQ(p.instr_bits, 64);
  EXPECT_EQ(p.instr_bytes, 8);
  EXPECT_EQ(p.token_lsb, 6);
  EXPECT_EQ(p.fields_lsb, 10);
}

TEST(Config, DerivedLargeAndOs16) {
  const Params l = loadConfig("large").params();
  EXPECT_EQ(l.spad_row_bytes, 32);
  EXPECT_EQ(l.spad_rows, (int64_t{1} << 20) / 32);
  EXPECT_EQ(l.acc_row_bytes, 128);
  EXPECT_EQ(l.acc_rows, (int64_t{256} << 10) / 128);
  EXPECT_EQ(l.lut_rows, 8);
  EXPECT_EQ(l.vector_lanes, 32);
  EXPECT_EQ(l.dram_size, int64_t{2} << 30);
  const Params o = loadConfig("os16").params();
  EXPECT_EQ(o.dataflow, Dataflow::OutputStationary);
  EXPECT_EQ(o.spad_rows, 16384);
  EXPECT_EQ(o.acc_rows, 1024);
  EXPECT_EQ(dataflowName(o.dataflow), "output_stationary");
}

TEST(Config, ParameterTable) {
  const IsaConfig isa = loadConfig("default");
  std::set<std::string> names;
  for (const auto& e : parameterTable(isa.params())) {
    EXPECT_TRUE(names.insert(e.name).second) << "duplicate " << e.name;
    EXPECT_FALSE(e.description.empty()) << e.name;
  }
  EXPECT_EQ(param(isa, "scratchpad.rows"), 16384);
  EXPECT_EQ(param(isa, "accumulator.rows"), 1024);
  EXPECT_EQ(param(isa, "lut.rows"), 16);
  EXPECT_EQ(param(isa, "scratchpad.row_bytes"), 16);
  EXPECT_EQ(param(isa, "accumulator.row_bytes"), 64);
  EXPECT_EQ(param(isa, "vector.lanes"), 16);
  EXPECT_EQ(param(isa, "dram.latency"), 100);
  EXPECT_EQ(param(isa, "encoding.width"), 128);
  for (const auto& e : parameterTable(isa.params())) {
    if (e.name == "scratchpad.rows" || e.name == "lut.rows") {
      EXPECT_TRUE(e.derived) << e.name;
    } else if (e.name == "array.rows" || e.name == "dram.latency") {
      EXPECT_FALSE(e.derived) << e.name;
    }
  }
}

TEST(Config, FieldLayoutIsPackedAndFits) {
  for (const std::string& name : test::shippedConfigNames()) {
    const IsaConfig isa = loadConfig(name);
    const Params& p = isa.params();
    for (const InstrDesc& d : isa.instructions()) {
      SCOPED_TRACE(name + " " + d.name);
      int next = static_cast<int>(p.fields_lsb);
      for (const FieldDesc& f : d.fields) {
        EXPECT_EQ(f.lsb, next) << f.name;  // no explicit lsb in the shipped configs: packed in order
        EXPECT_LE(f.lsb + f.bits, p.instr_bits) << f.name;
        next = f.lsb + f.bits;
      }
    }
  }
  const IsaConfig def = loadConfig("default");
  const InstrDesc& gemm = def.instr(def.byName("gemm"));
  ASSERT_EQ(gemm.fields.size(), 4u);
  EXPECT_EQ(gemm.opcode, 0x11u);
  EXPECT_EQ(gemm.unit, Unit::Compute);
  EXPECT_EQ(gemm.semantics, Semantics::MatmulTile);
  EXPECT_EQ(gemm.fields[0].lsb, 12);
  EXPECT_EQ(gemm.fields[1].lsb, 26);  // a_row: bits_for(scratchpad.rows - 1) = 14 bits
  EXPECT_EQ(gemm.fields[2].lsb, 36);  // acc_row: bits_for(accumulator.rows - 1) = 10 bits
  EXPECT_EQ(gemm.fields[3].lsb, 47);  // m: bits_for(accumulator.rows) = 11 bits
  EXPECT_EQ(gemm.fields[3].bits, 1);
  const InstrDesc& rq = def.instr(def.byName("requant"));
  EXPECT_TRUE(rq.fields[static_cast<size_t>(rq.fieldIndex("zero_point"))].is_signed);
  EXPECT_FALSE(rq.fields[static_cast<size_t>(rq.fieldIndex("rows"))].is_signed);
  // tiny's load fills its 64-bit instruction exactly.
  const IsaConfig tiny = loadConfig("tiny");
  const FieldDesc& last = tiny.instr(tiny.byName("ld")).fields.back();
  EXPECT_EQ(last.lsb + last.bits, 64);
}

TEST(Config, TimingExpressions) {
  const IsaConfig isa = loadConfig("default");
  Instruction in;
  in.desc = isa.byName("gemm");
  in.fields = {0, 0, 16, 1};
  EXPECT_EQ(timingCycles(isa, in), 16 + 16 + 16 - 2);
  in.desc = isa.byName("dma.load");
  in.fields = {0, 0, 4, 16, 16};
  EXPECT_EQ(timingCycles(isa, in), 100 + 4 * 1);
  in.fields = {0, 0, 4, 15, 16};
  EXPECT_EQ(timingCycles(isa, in), 100 + 4 * 1);
  in.desc = isa.byName("vreduce");
  in.fields = {0, 0, 2, 0};
  EXPECT_EQ(timingCycles(isa, in), 4 + 2 + 4);
  EXPECT_TRUE(isa.instr(isa.byName("preload")).cycles.isConstant());
  EXPECT_EQ(isa.instr(isa.byName("preload")).cycles.eval(), 16);
  const IsaConfig os = loadConfig("os16");
  in.desc = os.byName("gemm");
  in.fields = {0, 0, 16, 0};
  EXPECT_EQ(timingCycles(os, in), 16 + 16 + 2 * 16 - 2);
}

TEST(Config, HashChangesWithAnyByte) {
  const std::string text = configText("default");
  const IsaConfig a = IsaConfig::parse(text, kFile);
  const IsaConfig b = IsaConfig::parse(text + "# trailing comment\n", kFile);
  EXPECT_NE(a.hash(), b.hash());
  EXPECT_EQ(fnv1a64("", 0), 0xcbf29ce484222325ull);
  EXPECT_EQ(fnv1a64("a", 1), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(fnv1a64("foobar", 6), 0x85944171f73967e8ull);
}

TEST(Config, SizeSpellings) {
  const std::string def = configText("default");
  for (const char* spelling : {"262144", "256 KiB", "0x40000", "256KiB"}) {
    const IsaConfig isa = IsaConfig::parse(replaceFirst(def, "size: 256KiB", std::string("size: ") + spelling), kFile);
    EXPECT_EQ(isa.params().spad_size, 262144) << spelling;
    EXPECT_EQ(isa.params().spad_rows, 16384) << spelling;
  }
  // The DRAM limit is 2^32 bytes (kMaxDramSize): 4 GiB is accepted.
  const IsaConfig big = IsaConfig::parse(replaceFirst(def, "size: 512MiB", "size: 4GiB"), kFile);
  EXPECT_EQ(big.params().dram_size, int64_t{1} << 32);
}

TEST(Config, ExplicitLsbPlacesFields) {
  const std::string def = configText("default");
  // An explicit lsb moves the field; the fields after it follow it.
  const std::string text = replaceAfter(def, "name: gemm", R"y({name: a_row, bits: "bits_for(scratchpad.rows - 1)"})y",
                                        "{name: a_row, bits: 16, lsb: 64}");
  const IsaConfig isa = IsaConfig::parse(text, kFile);
  const InstrDesc& gemm = isa.instr(isa.byName("gemm"));
  EXPECT_EQ(gemm.fields[0].lsb, 64);
  EXPECT_EQ(gemm.fields[1].lsb, 80);
  EXPECT_EQ(gemm.fields[2].lsb, 90);
  EXPECT_EQ(gemm.fields[3].lsb, 101);
  // Adjacent to the previous field is fine; one bit lower overlaps (tested below).
  EXPECT_NO_THROW(IsaConfig::parse(
      replaceAfter(def, "name: gemm", "{name: accumulate, bits: 1}", "{name: accumulate, bits: 1, lsb: 60}"), kFile));
  // Last bit of the instruction.
  const IsaConfig top = IsaConfig::parse(
      replaceAfter(def, "name: gemm", "{name: accumulate, bits: 1}", "{name: accumulate, bits: 1, lsb: 127}"), kFile);
  EXPECT_EQ(top.instr(top.byName("gemm")).fields[3].lsb, 127);
}

TEST(Config, NopMayRunOnAnyUnit) {
  const std::string text = replaceAfter(configText("default"), "name: nop", "unit: compute", "unit: load");
  const IsaConfig isa = IsaConfig::parse(text, kFile);
  const InstrDesc& nop = isa.instr(isa.byName("nop"));
  EXPECT_EQ(nop.unit, Unit::Load);
  EXPECT_FALSE(checkTokens(nop, kPopPrev).empty());
  EXPECT_TRUE(checkTokens(nop, kPushNext).empty());
}

// ---------------------------------------------------------------------------------------------
// Invalid configs

TEST_F(ConfigErrors, ErrorTextCarriesFileLineColumn) {
  const std::string text = replaceFirst(def, "clock_mhz: 800", "clock_mhz: 8x0");
  auto e = catchError([&] { IsaConfig::parse(text, kFile); });
  ASSERT_TRUE(e);
  EXPECT_STREQ(e->what(), ("x.yaml:6:12: error: " + e->message()).c_str());
}

// dma.outstanding is a count of at least 1; `timing.issue` may be given on DMA and compute
// instructions but not on finish (which waits for everything); array.weight_buffers is 1 or 2.
TEST_F(ConfigErrors, OutstandingAndIssue) {
  const size_t dma = def.find("\ndma: {"), close = def.find('}', dma);
  ASSERT_NE(dma, std::string::npos);
  std::string t = def.substr(0, dma) + "\ndma: {burst_bytes: 64, outstanding: 0}" + def.substr(close + 1);
  expectError(t, plus(locate(t, "", "outstanding: 0"), 13), "dma.outstanding");
  t = replaceAfter(def, "name: finish", "{cycles: \"1\"}", "{cycles: \"1\", issue: \"1\"}");
  expectError(t, plus(locate(t, "name: finish", "issue: \"1\""), 7), "'timing.issue' does not apply to 'finish'");
  // On a compute instruction it is allowed (tiny has none), and an unknown name in it is an error
  // at its column.
  t = replaceAfter(tiny, "name: mm", "{cycles: \"m + array.rows + array.cols - 2\"}",
                   "{cycles: \"m + array.rows + array.cols - 2\", issue: \"m\"}");
  EXPECT_TRUE(
      IsaConfig::parse(t, kFile).instr(IsaConfig::parse(t, kFile).bySemantics(Semantics::MatmulTile)).has_issue);
  t = replaceAfter(tiny, "name: mm", "{cycles: \"m + array.rows + array.cols - 2\"}",
                   "{cycles: \"m + array.rows + array.cols - 2\", issue: \"m + q\"}");
  expectError(t, plus(locate(t, "name: mm", "m + q"), 4), "q");
}

TEST_F(ConfigErrors, WeightBuffers) {
  for (const char* bad : {"0", "3", "two", "-1"}) {
    SCOPED_TRACE(bad);
    const std::string t = replaceFirst(def, "weight_buffers: 2}", std::string("weight_buffers: ") + bad + "}");
    expectError(t, plus(locate(t, "", "weight_buffers: "), 16), "array.weight_buffers");
  }
  // Optional, default 1 (the serial model): tiny gives none.
  EXPECT_EQ(loadConfig("tiny").params().array_weight_buffers, 1);
  EXPECT_EQ(loadConfig("default").params().array_weight_buffers, 2);
  EXPECT_EQ(param(loadConfig("default"), "array.weight_buffers"), 2);
}

// energy: and area: are optional, each key too (then its default); values are finite numbers
// >= 0, reported at their position; --set reaches them.
TEST_F(ConfigErrors, EnergyAndArea) {
  for (const char* bad : {"-0.1", "nan", "inf", "lots", "[1]", "1e999"}) {
    SCOPED_TRACE(bad);
    const std::string t = replaceFirst(def, "  mac_pj: 0.3\n", std::string("  mac_pj: ") + bad + "\n");
    expectError(t, plus(locate(t, "energy:", "mac_pj: "), 8), "energy.mac_pj");
  }
  std::string t = replaceFirst(def, "  mac_pj: 0.3\n", "  mac_pj: 0.3\n  mac_fj: 1\n");
  expectError(t, locate(t, "energy:", "mac_fj"), "unknown key 'mac_fj' in 'energy'");
  t = replaceFirst(def, "fixed_mm2: 0.1}", "fixed_mm2: -2}");
  expectError(t, plus(locate(t, "area:", "fixed_mm2: "), 11), "area.fixed_mm2");
  // Without the sections every key takes its default.
  const size_t from = def.find("\nenergy:"), to = def.find("\nencoding:");
  ASSERT_NE(from, std::string::npos);
  const IsaConfig bare = IsaConfig::parse(def.substr(0, from) + def.substr(to), kFile);
  for (const auto& c : costParameters()) EXPECT_EQ(bare.params().cost.*c.member, c.default_value) << c.key;
  // --set reaches a section the file does not have; a misspelt section is still an error.
  const IsaConfig set = IsaConfig::parse(def.substr(0, from) + def.substr(to), kFile, {{"energy.mac_pj", "0.25"}});
  EXPECT_EQ(set.params().cost.mac_pj, 0.25);
  EXPECT_EQ(set.params().cost.vector_op_pj, defaultCostModel().vector_op_pj);
  auto e = catchError([&] { IsaConfig::parse(def, kFile, {{"energi.mac_pj", "1"}}); });
  ASSERT_TRUE(e);
  EXPECT_STREQ(e->what(),
               "--set energi.mac_pj=1: error: unknown key 'energi' in 'config' (expected: name, description, "
               "clock_mhz, types, array, "
               "memories, dma, vector, queues, host, energy, area, encoding, instructions)");
  // Only one key: the others keep their defaults.
  const IsaConfig one =
      IsaConfig::parse(def.substr(0, from) + "\nenergy: {dram_read_pj_per_byte: 20}" + def.substr(to), kFile);
  EXPECT_EQ(one.params().cost.dram_read_pj_per_byte, 20);
  EXPECT_EQ(one.params().cost.mac_pj, defaultCostModel().mac_pj);
  // --set energy.mac_pj=0.25 on a shipped config.
  EXPECT_EQ(IsaConfig::load(test::configPath("default"), {{"energy.mac_pj", "0.25"}}).params().cost.mac_pj, 0.25);
  // Area = PEs x pe (and the depthwise mode's share) + the 16 vector lanes' MACs (vmac) + KiB x
  // per-KiB (the line buffer's 256 rows of 16 bytes too) + fixed.
  const IsaConfig shipped = loadConfig("default");
  const Params& p = shipped.params();
  EXPECT_DOUBLE_EQ(areaOf(p).total(), 256 * p.cost.pe_mm2 * (1 + p.cost.depthwise_pe_share) +
                                          16 * p.cost.pe_mm2 * p.cost.vector_mac_pe_share +
                                          (256 + 4) * p.cost.scratchpad_mm2_per_kib +
                                          64 * p.cost.accumulator_mm2_per_kib + p.cost.fixed_mm2);
  // Without the mode's line buffer (and its instruction) and without vmac, the plain array.
  const IsaConfig plain =
      IsaConfig::load(test::configPath("default"),
                      {{"instructions.dwconv", "~"}, {"array.line_buffer_rows", "0"}, {"instructions.vmac", "~"}});
  EXPECT_DOUBLE_EQ(areaOf(plain.params()).total(), 256 * p.cost.pe_mm2 + 256 * p.cost.scratchpad_mm2_per_kib +
                                                       64 * p.cost.accumulator_mm2_per_kib + p.cost.fixed_mm2);
  EXPECT_EQ(plain.bySemantics(Semantics::DepthwiseTile), -1);
  EXPECT_EQ(plain.params().vector_mac_lanes, 0);
  // Removing an instruction the config lacks is an error naming it.
  EXPECT_THROW((void)IsaConfig::load(test::configPath("default"), {{"instructions.nosuch", "~"}}), Error);
}

// docs/isa-schema.md's table gives every key with the code's default.
TEST(Config, SchemaDocListsEveryCostDefault) {
  const std::string doc = readTextFile(std::string(SYSTOLE_SOURCE_DIR) + "/docs/isa-schema.md");
  for (const auto& c : costParameters()) {
    const std::string row =
        "| `" + std::string(c.section) + "." + std::string(c.key) + "` | " + formatCost(c.default_value) + " |";
    EXPECT_NE(doc.find(row), std::string::npos) << row;
  }
}

TEST_F(ConfigErrors, UnknownKey) {
  std::string t = replaceFirst(def, "clock_mhz: 800\n", "clock_mhz: 800\nclock_ghz: 1\n");
  expectError(t, locate(t, "", "clock_ghz"), "unknown key 'clock_ghz' in 'config'");
  t = replaceFirst(def, "cols: 16", "colz: 16");
  expectError(t, locate(t, "", "colz"),
              "unknown key 'colz' in 'array' (expected: rows, cols, dataflow, weight_buffers, line_buffer_rows)");
  t = replaceFirst(def, "latency: 100", "latncy: 100");
  expectError(t, locate(t, "", "latncy"), "unknown key 'latncy' in 'memories.dram'");
  t = replaceAfter(def, "name: gemm", R"y({name: m, bits: "bits_for(accumulator.rows)"})y", "{name: m, bitz: 16}");
  expectError(t, locate(t, "name: gemm", "bitz"), "unknown key 'bitz' in 'field'");
  t = replaceAfter(def, "name: gemm", "    unit: compute\n", "    unit: compute\n    latency: 3\n");
  expectError(t, locate(t, "name: gemm", "latency: 3"), "unknown key 'latency' in 'instruction'");
  t = replaceAfter(def, "name: gemm", "{cycles:", "{cycle:");
  expectError(t, locate(t, "name: gemm", "cycle:"), "unknown key 'cycle' in 'timing'");
}

TEST_F(ConfigErrors, MissingKey) {
  // The edits match keys, not values, so a retuned latency leaves the test valid.
  std::string t = std::regex_replace(def, std::regex("\nvector: \\{[^}]*\\}"), "");
  expectError(t, locate(t, "", "name: default"), "missing key 'vector' in 'config'");
  t = std::regex_replace(def, std::regex("(dram: *\\{[^}]*), latency: \\d+"), "$1");
  expectError(t, locate(t, "dram:", "{"), "missing key 'latency' in 'memories.dram'");
  t = replaceTiming(def, "gemm", "");
  expectError(t, locate(t, "", "name: gemm"), "missing key 'timing' in 'instruction'");
  t = replaceAfter(def, "name: gemm", R"y({name: m, bits: "bits_for(accumulator.rows)"})y", "{name: m}");
  expectError(t, locate(t, "name: gemm", "{name: m}"), "missing key 'bits' in 'field'");
  t = replaceFirst(def, "encoding: {width: 128, opcode_bits: 8}", "encoding: {width: 128}");
  expectError(t, locate(t, "encoding:", "{"), "missing key 'opcode_bits' in 'encoding'");
}

TEST_F(ConfigErrors, DuplicateKey) {
  std::string t = replaceFirst(def, "clock_mhz: 800\n", "clock_mhz: 800\nclock_mhz: 900\n");
  expectError(t, locate(t, "clock_mhz: 800", "clock_mhz: 900"), "duplicate key 'clock_mhz' in 'config'");
  t = replaceFirst(def, "{rows: 16, cols: 16,", "{rows: 16, cols: 16, rows: 8,");
  expectError(t, locate(t, "cols: 16", "rows: 8"), "duplicate key 'rows' in 'array'");
  t = replaceAfter(def, "name: gemm", "    opcode: 0x11\n", "    opcode: 0x11\n    opcode: 0x12\n");
  expectError(t, locate(t, "name: gemm", "opcode: 0x12"), "duplicate key 'opcode' in 'instruction'");
  // Two fields of the same name.
  t = replaceAfter(def, "name: gemm", "      - {name: accumulate, bits: 1}\n",
                   "      - {name: accumulate, bits: 1}\n      - {name: m, bits: 2}\n");
  expectError(t, plus(locate(t, "name: gemm", "{name: m, bits: 2}"), 7), "duplicate field 'm' in 'gemm'");
}

TEST_F(ConfigErrors, BadInteger) {
  std::string t = replaceFirst(def, "clock_mhz: 800", "clock_mhz: 8x0");
  expectError(t, locate(t, "", "8x0"), "'clock_mhz' must be an integer, got '8x0'");
  t = replaceFirst(def, "clock_mhz: 800", "clock_mhz: 8.5");
  expectError(t, locate(t, "", "8.5"), "'clock_mhz' must be an integer");
  t = replaceFirst(def, "clock_mhz: 800", "clock_mhz: \"\"");
  expectError(t, plus(locate(t, "", "clock_mhz:"), 11), "'clock_mhz' must be an integer");
  t = replaceFirst(def, "clock_mhz: 800", "clock_mhz: [800]");
  expectError(t, locate(t, "clock_mhz", "["), "'clock_mhz' must be an integer");
  t = replaceAfter(def, "name: gemm", "opcode: 0x11", "opcode: 0x1G");
  expectError(t, locate(t, "", "0x1G"), "'opcode' must be an integer, got '0x1G'");
  t = replaceFirst(def, "latency: 100", "latency: -5");
  expectError(t, locate(t, "", "-5}"), "'memories.dram.latency' must be between 0 and 100000, got -5");
  t = replaceAfter(def, "name: gemm", "opcode: 0x11", "opcode: 0x100");
  expectError(t, locate(t, "", "0x100"), "'opcode' must be between 0 and 255");
  t = replaceAfter(def, "name: gemm", R"y({name: m, bits: "bits_for(accumulator.rows)"})y", "{name: m, bits: 64}");
  expectError(t, locate(t, "name: gemm", "64}"), "'bits' must be between 1 and 63");
  t = replaceAfter(def, "name: gemm", R"y({name: m, bits: "bits_for(accumulator.rows)"})y", "{name: m, bits: 0}");
  expectError(t, locate(t, "name: gemm", "0}"), "'bits' must be between 1 and 63");
  t = replaceFirst(def, "queues: {load: 8,", "queues: {load: 99999999999999999999,");
  expectError(t, locate(t, "", "99999999999999999999"), "'queues.load' must be an integer");
}

TEST_F(ConfigErrors, SizeSuffix) {
  std::string t = replaceFirst(def, "size: 256KiB", "size: 256KB");
  expectError(t, locate(t, "", "256KB"),
              "'memories.scratchpad.size' must be an integer (optionally with KiB, MiB or GiB), got '256KB'");
  t = replaceFirst(def, "size: 256KiB", "size: 256kib");
  expectError(t, locate(t, "", "256kib"), "got '256kib'");
  t = replaceFirst(def, "size: 256KiB", "size: 1MiBKiB");
  expectError(t, locate(t, "", "1MiBKiB"), "got '1MiBKiB'");
  t = replaceFirst(def, "size: 256KiB", "size: KiB");
  expectError(t, plus(locate(t, "", "size: KiB"), 6), "got 'KiB'");
  // Only sizes take a suffix.
  t = replaceFirst(def, "latency: 100", "latency: 1KiB");
  expectError(t, locate(t, "", "1KiB"), "'memories.dram.latency' must be an integer, got '1KiB'");
  // Above the 2^32-byte DRAM limit, which keeps `sim` from backing a 1 TiB DRAM's tensors (issue 16 D9).
  t = replaceFirst(def, "size: 512MiB", "size: 1024GiB");
  expectError(t, locate(t, "", "1024GiB"), "'memories.dram.size' is too large: 1024GiB (at most 4294967296)");
  t = replaceFirst(def, "size: 512MiB", "size: 4294967297");
  expectError(t, locate(t, "", "4294967297"), "'memories.dram.size' must be between 1 and 4294967296");
  t = replaceFirst(def, "size: 512MiB", "size: -1KiB");
  expectError(t, locate(t, "", "-1KiB"), "must be between 1 and");
  // Large negative sizes must not wrap around into range when scaled.
  t = replaceFirst(def, "size: 512MiB", "size: -9223372036854775807GiB");
  expectError(t, locate(t, "", "-9223372036854775807GiB"), "'memories.dram.size' must be between 1 and");
  t = replaceFirst(def, "size: 512MiB", "size: -8589934591GiB");
  expectError(t, locate(t, "", "-8589934591GiB"), "'memories.dram.size' must be between 1 and");
  // A size that is not a whole number of rows is rejected by the derivation (at 'memories').
  t = replaceFirst(def, "size: 256KiB", "size: 1000");
  expectError(t, locate(t, "memories:", "dram:"), "scratchpad size 1000 is not a multiple of its row (16 bytes)");
}

TEST_F(ConfigErrors, OverlappingFields) {
  std::string t = replaceAfter(def, "name: gemm", R"y({name: acc_row, bits: "bits_for(accumulator.rows - 1)"})y",
                               "{name: acc_row, bits: 16, lsb: 20}");
  expectError(t, plus(locate(t, "name: gemm", "lsb: 20"), 5), "field 'acc_row' overlaps field 'a_row'");
  // One bit of overlap is enough.
  t = replaceAfter(def, "name: gemm", "{name: accumulate, bits: 1}", "{name: accumulate, bits: 1, lsb: 46}");
  expectError(t, plus(locate(t, "name: gemm", "lsb: 46"), 5), "field 'accumulate' overlaps field 'm'");
  // A later field placed under an earlier explicit one.
  t = replaceAfter(def, "name: gemm", R"y({name: m, bits: "bits_for(accumulator.rows)"})y",
                   "{name: m, bits: 16, lsb: 0x60}");
  t = replaceAfter(t, "name: gemm", "{name: accumulate, bits: 1}", "{name: accumulate, bits: 1, lsb: 100}");
  expectError(t, plus(locate(t, "name: gemm", "lsb: 100"), 5), "field 'accumulate' overlaps field 'm'");
  // The opcode and token header are not available to fields.
  t = replaceAfter(def, "name: gemm", R"y({name: a_row, bits: "bits_for(scratchpad.rows - 1)"})y",
                   "{name: a_row, bits: 16, lsb: 4}");
  expectError(t, plus(locate(t, "name: gemm", "lsb: 4"), 5),
              "field 'a_row' overlaps the opcode and token header (bits 0..11)");
  t = replaceAfter(def, "name: gemm", R"y({name: a_row, bits: "bits_for(scratchpad.rows - 1)"})y",
                   "{name: a_row, bits: 16, lsb: 11}");
  expectError(t, plus(locate(t, "name: gemm", "lsb: 11"), 5), "overlaps the opcode and token header");
}

TEST_F(ConfigErrors, FieldWiderThanInstruction) {
  // tiny's ld fills all 64 bits; one more bit does not fit.
  std::string t = replaceAfter(tiny, "name: ld", "{name: dram_stride, bits: 11}", "{name: dram_stride, bits: 12}");
  expectError(t, plus(locate(t, "name: ld", "bits: 12"), 6),
              "field 'dram_stride' (bits 53..64) does not fit in the 64-bit instruction");
  t = replaceAfter(def, "name: gemm", R"y({name: a_row, bits: "bits_for(scratchpad.rows - 1)"})y",
                   "{name: a_row, bits: 16, lsb: 120}");
  expectError(t, plus(locate(t, "name: gemm", "lsb: 120"), 5), "does not fit in the 128-bit instruction");
  t = replaceAfter(def, "name: gemm", "{name: accumulate, bits: 1}", "{name: accumulate, bits: 1, lsb: 128}");
  expectError(t, plus(locate(t, "name: gemm", "lsb: 128"), 5), "(bits 128..128) does not fit");
  t = replaceFirst(def, R"y({name: dram_addr, bits: "bits_for(dram.size - 1)"})y", "{name: dram_addr, bits: 63}");
  expectError(t, plus(locate(t, "bits: 63", "bits: 24"), 6), "field 'dram_stride' (bits 109..132) does not fit");
}

TEST_F(ConfigErrors, DuplicateOpcode) {
  std::string t = replaceAfter(def, "name: gemm", "opcode: 0x11", "opcode: 0x10");
  expectError(t, locate(t, "name: gemm", "0x10"), "opcode 16 of 'gemm' is already used by 'preload'");
  // Same number, different spelling.
  t = replaceAfter(def, "name: finish", "opcode: 0x7f", "opcode: 0");
  expectError(t, plus(locate(t, "name: finish", "opcode: 0"), 8), "already used by 'nop'");
}

TEST_F(ConfigErrors, DuplicateName) {
  std::string t = replaceFirst(def, "name: vmul", "name: vadd");
  expectError(t, plus(locate(t, "opcode: 0x22", "name: vadd"), 6), "duplicate instruction name 'vadd'");
}

TEST_F(ConfigErrors, TimingNamesUnknownVariable) {
  // Double-quoted: the column is the name's, inside the quotes.
  std::string t = replaceTiming(def, "gemm", "timing: {cycles: \"m + array.rowz + array.cols - 2\"}");
  expectError(t, locate(t, "name: gemm", "array.rowz"), "unknown name 'array.rowz' in expression");
  // Single-quoted.
  t = replaceTiming(def, "gemm", "timing: {cycles: 'm + array.rows + bogus'}");
  expectError(t, locate(t, "name: gemm", "bogus"), "unknown name 'bogus'");
  // Plain scalar.
  t = replaceTiming(def, "gemm", "timing: {cycles: m + bogus}");
  expectError(t, locate(t, "name: gemm", "bogus"), "unknown name 'bogus'");
  // Block mapping.
  t = replaceTiming(def, "gemm", "timing:\n      cycles: \"m +   nope\"");
  expectError(t, locate(t, "name: gemm", "nope"), "unknown name 'nope'");
  // A field of another instruction is not visible.
  t = replaceTiming(def, "gemm", "timing: {cycles: \"m + rows\"}");
  expectError(t, locate(t, "name: gemm", "rows\""), "unknown name 'rows'");
  // Other expression errors point into the string too.
  t = replaceTiming(def, "gemm", "timing: {cycles: \"m + sqrt(m)\"}");
  expectError(t, locate(t, "name: gemm", "sqrt"), "unknown function 'sqrt'");
  t = replaceTiming(def, "gemm", "timing: {cycles: \"m / (array.rows - array.rows)\"}");
  expectError(t, locate(t, "name: gemm", "/ (array"), "division by zero");
  t = replaceTiming(def, "gemm", "timing: {cycles: \"m + 2)\"}");
  expectError(t, locate(t, "cycles: \"m + 2", ")\""), "unexpected ')'");
  // The same for a field's `max:`.
  t = replaceFirst(def, "max: scratchpad.row_bytes", "max: scratchpad.row_byte");
  expectError(t, locate(t, "", "scratchpad.row_byte}"), "unknown name 'scratchpad.row_byte'");
  t = replaceFirst(def, "max: scratchpad.row_bytes", "max: \"2 * bytes\"");
  expectError(t, locate(t, "", "bytes\""), "unknown name 'bytes'");  // fields are not constants
}

TEST_F(ConfigErrors, FieldNotAnOperand) {
  std::string t = replaceAfter(def, "name: gemm", "      - {name: accumulate, bits: 1}\n",
                               "      - {name: accumulate, bits: 1}\n      - {name: foo, bits: 4}\n");
  expectError(t, locate(t, "name: gemm", "foo"),
              "field 'foo' is not an operand of semantics 'matmul_tile' (operands: a_row, acc_row, m, accumulate)");
  t = replaceAfter(def, "name: nop", "fields: []", "fields: [{name: x, bits: 1}]");
  expectError(t, plus(locate(t, "name: nop", "{name: x"), 7), "(operands: none)");
  // The other direction: an operand without a field.
  t = replaceAfter(def, "name: gemm", "      - {name: accumulate, bits: 1}\n", "");
  expectError(t, locate(t, "name: gemm", "- {name: a_row"), "needs a field named 'accumulate'");
}

TEST_F(ConfigErrors, UnitMismatch) {
  std::string t = replaceAfter(def, "name: gemm", "unit: compute", "unit: load");
  expectError(t, plus(locate(t, "name: gemm", "unit: load"), 6),
              "semantics 'matmul_tile' runs on the compute unit, not 'load'");
  t = replaceAfter(def, "name: dma.store", "unit: store", "unit: load");
  expectError(t, plus(locate(t, "name: dma.store", "unit: load"), 6), "runs on the store unit, not 'load'");
  t = replaceAfter(def, "name: gemm", "unit: compute", "unit: vector");
  expectError(t, plus(locate(t, "name: gemm", "unit: vector"), 6), "unknown unit 'vector'");
  t = replaceAfter(def, "name: gemm", "semantics: matmul_tile", "semantics: matmul");
  expectError(t, plus(locate(t, "name: gemm", "semantics: matmul"), 11), "unknown semantics class 'matmul'");
}

TEST_F(ConfigErrors, MalformedYaml) {
  // A key indented under a scalar value.
  std::string t = replaceFirst(def, "clock_mhz: 800\n", "clock_mhz: 800\n  oops: 1\n");
  expectError(t, plus(locate(t, "", "oops"), 4), "malformed YAML");
  // An unclosed flow mapping is noticed where the next line starts a key.
  const size_t dma = def.find("\ndma: {"), close = def.find('}', dma);
  ASSERT_NE(dma, std::string::npos);
  t = def.substr(0, close) + def.substr(close + 1);  // the dma mapping loses its closing brace
  auto e = catchError([&] { IsaConfig::parse(t, kFile); });
  ASSERT_TRUE(e);
  EXPECT_NE(e->message().find("malformed YAML"), std::string::npos) << e->what();
  const int dmaLine = locate(t, "", "dma:").line;
  EXPECT_GE(e->where().line, dmaLine) << e->what();
  EXPECT_LE(e->where().line, dmaLine + 1) << e->what();
  EXPECT_GT(e->where().col, 0) << e->what();
}

TEST_F(ConfigErrors, WrongShapes) {
  expectError("- 1\n- 2\n", {kFile, 1, 1}, "must be a mapping");
  expectError("", {kFile, 1, 1}, "must be a mapping");
  std::string t = replaceFirst(
      def, "array: {rows: 16, cols: 16, dataflow: weight_stationary, line_buffer_rows: 256, weight_buffers: 2}",
      "array: 16");
  expectError(t, plus(locate(t, "", "array: 16"), 7), "'array' must be a mapping");
  t = replaceAfter(def, "name: nop", "fields: []", "fields: 3");
  expectError(t, plus(locate(t, "name: nop", "fields: 3"), 8), "'fields' must be a list");
  t = replaceFirst(def, "accumulator: int32}", "accumulator: int12}");
  expectError(t, locate(t, "", "int12"), "types.accumulator must be int32, int24 or int16, got 'int12'");
  t = replaceFirst(def, "dataflow: weight_stationary", "dataflow: row_stationary");
  expectError(t, locate(t, "", "row_stationary"), "array.dataflow must be weight_stationary or output_stationary");
  t = replaceFirst(def, "width: 128", "width: 100");
  expectError(t, locate(t, "", "100,"), "encoding.width must be a multiple of 32 bits");
  t = replaceFirst(def, "name: default", "name: my config");
  expectError(t, locate(t, "", "my config"), "'name' must be a non-empty identifier");
  t = replaceFirst(def, "name: gemm", "name: gemm!");
  expectError(t, locate(t, "", "gemm!"), "instruction name 'gemm!' must use only letters");
  t = replaceAfter(def, "name: requant", "{name: zero_point, bits: activation.bits, signed: true}",
                   "{name: zero_point, bits: activation.bits, signed: yes}");
  expectError(t, locate(t, "name: requant", "yes"), "'signed' must be true or false");
  t = replaceFirst(def, "max: scratchpad.row_bytes", "max: -1");
  expectError(t, locate(t, "", "-1}"), "'max' is below the field's smallest value");
  t = replaceAfter(def, "name: finish", "semantics: finish", "semantics: nop");
  expectError(t, locate(t, "instructions:", "- name: dma.load"), "needs an instruction with semantics 'finish'");
  t = replaceFirst(def, "instructions:\n", "instructions: []\nunused:\n");
  expectError(t, locate(t, "", "unused"), "unknown key 'unused'");
}

TEST_F(ConfigErrors, InconsistentMemories) {
  // Fewer scratchpad rows than one lookup table needs (16 rows of 16 bytes).
  std::string t = replaceFirst(def, "size: 256KiB", "size: 240");
  expectError(t, locate(t, "memories:", "dram:"), "fewer than one weight tile or one lookup table needs");
  t = replaceFirst(def, "size: 64KiB", "size: 64");
  expectError(t, locate(t, "memories:", "dram:"), "accumulator must hold at least 2 rows");
  t = replaceFirst(def, "size: 64KiB, banks: 2", "size: 192, banks: 2");
  expectError(t, locate(t, "memories:", "dram:"), "must divide evenly into banks");
}

}  // namespace
}  // namespace systole::isa
