// Config mutation: the ISA is data. Editing isa/configs/default.yaml (here, its text in memory)
// changes encodings, limits, field layout, opcodes and timing with no code change.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "systole/isa/assembler.h"
#include "systole/isa/encoding.h"
#include "systole/isa/program.h"
#include "test_util.h"

namespace systole::isa {
namespace {

using test::catchError;
using test::configText;
using test::replaceAfter;
using test::replaceFirst;

Instruction make(const IsaConfig& isa, std::string_view name,
                 std::initializer_list<std::pair<const char*, int64_t>> fields = {}, uint8_t tokens = 0) {
  Instruction in;
  in.desc = isa.byName(name);
  if (in.desc < 0) throw std::logic_error("test: no instruction " + std::string(name));
  in.tokens = tokens;
  for (const auto& [field, value] : fields) {
    const int idx = isa.instr(in.desc).fieldIndex(field);
    if (idx < 0) throw std::logic_error("test: no field " + std::string(field));
    in.fields[static_cast<size_t>(idx)] = value;
  }
  return in;
}

std::vector<uint8_t> enc(const IsaConfig& isa, const Instruction& in) {
  std::vector<uint8_t> bytes(static_cast<size_t>(isa.params().instr_bytes));
  encode(isa, in, bytes);
  return bytes;
}

bool bit(const std::vector<uint8_t>& b, int i) { return (b[static_cast<size_t>(i / 8)] >> (i % 8)) & 1; }

const FieldDesc& field(const IsaConfig& isa, std::string_view instr, std::string_view name) {
  const InstrDesc& d = isa.instr(isa.byName(instr));
  return d.fields[static_cast<size_t>(d.fieldIndex(name))];
}

/// The same instruction (by name and field values) in another config.
Instruction translate(const IsaConfig& from, const IsaConfig& to, const Instruction& in) {
  Instruction out = in;
  out.desc = to.byName(from.instr(in.desc).name);
  return out;
}

Instruction randomInstruction(const IsaConfig& isa, int desc, std::mt19937& rng) {
  const InstrDesc& d = isa.instr(desc);
  Instruction in;
  in.desc = desc;
  for (size_t i = 0; i < d.fields.size(); ++i)
    in.fields[i] = std::uniform_int_distribution<int64_t>(d.fields[i].minValue(), d.fields[i].limit())(rng);
  return in;
}

class Mutation : public ::testing::Test {
 protected:
  const std::string text = configText("default");
  const IsaConfig base = IsaConfig::parse(text, "default.yaml");
};

// ---------------------------------------------------------------------------------------------
// (a) narrowing a field

TEST_F(Mutation, NarrowGemmM) {
  const IsaConfig narrow = IsaConfig::parse(
      replaceAfter(text, "name: gemm", R"y({name: m, bits: "bits_for(accumulator.rows)"})y", "{name: m, bits: 8}"),
      "narrow.yaml");
  EXPECT_NE(narrow.hash(), base.hash());

  // Layout: m keeps its lsb, narrows to 8 bits; the field after it moves down by 8.
  EXPECT_EQ(field(base, "gemm", "m").bits, 11);  // bits_for(accumulator.rows = 1024)
  EXPECT_EQ(field(narrow, "gemm", "m").bits, 8);
  EXPECT_EQ(field(narrow, "gemm", "m").lsb, field(base, "gemm", "m").lsb);
  EXPECT_EQ(field(narrow, "gemm", "a_row").lsb, field(base, "gemm", "a_row").lsb);
  EXPECT_EQ(field(narrow, "gemm", "acc_row").lsb, field(base, "gemm", "acc_row").lsb);
  EXPECT_EQ(field(base, "gemm", "accumulate").lsb, 47);
  EXPECT_EQ(field(narrow, "gemm", "accumulate").lsb, 44);
  EXPECT_EQ(field(narrow, "gemm", "m").limit(), 255);

  // The encoded bits of a gemm change.
  const Instruction g = make(base, "gemm", {{"a_row", 1}, {"acc_row", 2}, {"m", 16}, {"accumulate", 1}});
  const auto oldBytes = enc(base, g);
  const auto newBytes = enc(narrow, translate(base, narrow, g));
  EXPECT_NE(oldBytes, newBytes);
  EXPECT_TRUE(bit(oldBytes, 47));
  EXPECT_FALSE(bit(oldBytes, 44));
  EXPECT_TRUE(bit(newBytes, 44));
  EXPECT_FALSE(bit(newBytes, 47));
  EXPECT_EQ(decode(narrow, newBytes), translate(base, narrow, g));

  // m = 255 still encodes; 256 no longer does (but did before).
  const Instruction m255 = make(narrow, "gemm", {{"m", 255}});
  EXPECT_EQ(decode(narrow, enc(narrow, m255)), m255);
  const Instruction m256 = make(narrow, "gemm", {{"m", 256}});
  auto e = catchError([&] { enc(narrow, m256); });
  ASSERT_TRUE(e);
  EXPECT_NE(e->message().find("value 256 out of range for field 'm' [0, 255]"), std::string::npos) << e->what();
  EXPECT_NO_THROW(enc(base, translate(narrow, base, m256)));

  // The assembler follows: the error points at the value.
  const std::string line = "gemm a_row=0, acc_row=0, m=256, accumulate=0";
  e = catchError([&] { assemble(narrow, line, "n.s"); });
  ASSERT_TRUE(e);
  EXPECT_EQ(e->where().line, 1);
  EXPECT_EQ(e->where().col, static_cast<int>(line.find("256")) + 1);
  EXPECT_NO_THROW(assemble(base, line, "n.s"));

  // Old bytes whose m used the upper 8 bits no longer decode (those bits are now reserved or
  // read as another field).
  const auto wide = enc(base, make(base, "gemm", {{"m", 0x634}}));
  EXPECT_THROW(decode(narrow, wide), Error);

  // Every other instruction encodes exactly as before.
  std::mt19937 rng(11);
  for (int di = 0; di < static_cast<int>(base.instructions().size()); ++di) {
    if (base.instr(di).name == "gemm") continue;
    for (int k = 0; k < 50; ++k) {
      const Instruction in = randomInstruction(base, di, rng);
      EXPECT_EQ(enc(base, in), enc(narrow, translate(base, narrow, in))) << base.instr(di).name;
    }
  }

  // A program built for the old config is refused by the new one.
  const Program p = assemble(base, line + "\nfinish\n", "p.s");
  EXPECT_THROW(checkProgramMatches(p, narrow, "p.sbin"), Error);
}

TEST_F(Mutation, WidenAndBoundGemmM) {
  // Widening m to 16 bits moves the field after it; a `max:` bound (as os16 has) limits m.
  const IsaConfig bounded =
      IsaConfig::parse(replaceAfter(text, "name: gemm", R"y({name: m, bits: "bits_for(accumulator.rows)"})y",
                                    "{name: m, bits: 16, max: array.rows}"),
                       "b.yaml");
  EXPECT_EQ(field(bounded, "gemm", "accumulate").lsb, 52);
  EXPECT_NO_THROW(enc(bounded, make(bounded, "gemm", {{"m", 16}})));
  EXPECT_THROW(enc(bounded, make(bounded, "gemm", {{"m", 17}})), Error);
  // Old bytes with m = 17 decode in the base config but not in the bounded one.
  const auto bytes = enc(base, make(base, "gemm", {{"m", 17}}));
  EXPECT_THROW(decode(bounded, bytes), Error);
}

// ---------------------------------------------------------------------------------------------
// (b) moving an opcode

TEST_F(Mutation, MoveGemmOpcode) {
  const IsaConfig moved =
      IsaConfig::parse(replaceAfter(text, "name: gemm", "opcode: 0x11", "opcode: 0x31"), "moved.yaml");
  EXPECT_EQ(moved.byOpcode(0x11), -1);
  EXPECT_EQ(moved.byOpcode(0x31), moved.byName("gemm"));
  EXPECT_EQ(base.byOpcode(0x31), -1);

  const Instruction g = make(base, "gemm", {{"a_row", 7}, {"acc_row", 9}, {"m", 16}, {"accumulate", 1}}, kPopPrev);
  const auto oldBytes = enc(base, g);
  const auto newBytes = enc(moved, translate(base, moved, g));
  EXPECT_EQ(oldBytes[0], 0x11);
  EXPECT_EQ(newBytes[0], 0x31);
  // Only the opcode changed.
  EXPECT_TRUE(std::equal(oldBytes.begin() + 1, oldBytes.end(), newBytes.begin() + 1));

  auto e = catchError([&] { decode(moved, oldBytes); });
  ASSERT_TRUE(e);
  EXPECT_NE(e->message().find("unknown opcode 17"), std::string::npos) << e->what();
  e = catchError([&] { decode(base, newBytes); });
  ASSERT_TRUE(e);
  EXPECT_NE(e->message().find("unknown opcode 49"), std::string::npos) << e->what();
  EXPECT_EQ(decode(moved, newBytes), translate(base, moved, g));

  // Assembling the same text gives different code.
  const std::string src = formatInstruction(base, g) + "\nfinish\n";
  EXPECT_NE(assemble(base, src, "g.s").code, assemble(moved, src, "g.s").code);
}

TEST_F(Mutation, SwapOpcodesDecodesAsTheOtherInstruction) {
  std::string t = replaceAfter(text, "name: vadd", "opcode: 0x22", "opcode: 0x23");
  t = replaceAfter(t, "name: vmul", "opcode: 0x23", "opcode: 0x22");
  const IsaConfig swapped = IsaConfig::parse(t, "swapped.yaml");
  const Instruction add = make(base, "vadd", {{"dst_row", 1}, {"a_row", 2}, {"b_row", 3}, {"rows", 4}});
  const auto oldBytes = enc(base, add);
  const Instruction read = decode(swapped, oldBytes);
  EXPECT_EQ(swapped.instr(read.desc).name, "vmul");
  EXPECT_EQ(read.fields, add.fields);
  EXPECT_NE(enc(swapped, translate(base, swapped, add)), oldBytes);
  // Disassembly of the old code with the new config names the other instruction.
  Program p;
  p.instr_bytes = 16;
  p.code = oldBytes;
  EXPECT_NE(disassemble(swapped, p).find("vmul dst_row=1, a_row=2, b_row=3, rows=4"), std::string::npos);
  EXPECT_NE(disassemble(base, p).find("vadd dst_row=1, a_row=2, b_row=3, rows=4"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// (c) changing a latency or a timing expression

TEST_F(Mutation, DramLatency) {
  const IsaConfig slow = IsaConfig::parse(replaceFirst(text, "latency: 100", "latency: 200"), "slow.yaml");
  EXPECT_EQ(slow.params().dram_latency, 200);
  std::mt19937 rng(21);
  for (int di = 0; di < static_cast<int>(base.instructions().size()); ++di) {
    const InstrDesc& d = base.instr(di);
    const bool dma = d.unit != Unit::Compute;
    for (int k = 0; k < 100; ++k) {
      const Instruction in = randomInstruction(base, di, rng);
      const int64_t before = timingCycles(base, in);
      const int64_t after = timingCycles(slow, translate(base, slow, in));
      EXPECT_EQ(after - before, dma ? 100 : 0) << d.name;
      // Encodings do not depend on timing.
      EXPECT_EQ(enc(base, in), enc(slow, translate(base, slow, in)));
    }
  }
  const Instruction ld = make(base, "dma.load", {{"rows", 4}, {"bytes", 16}});
  EXPECT_EQ(timingCycles(base, ld), 104);
  EXPECT_EQ(timingCycles(slow, ld), 204);
}

TEST_F(Mutation, DramBandwidth) {
  const IsaConfig narrowBus =
      IsaConfig::parse(replaceFirst(text, "bytes_per_cycle: 16", "bytes_per_cycle: 4"), "bus.yaml");
  const Instruction ld = make(base, "dma.load", {{"rows", 4}, {"bytes", 16}, {"dram_stride", 16}});
  EXPECT_EQ(timingCycles(base, ld), 100 + 4 * 1);
  EXPECT_EQ(timingCycles(narrowBus, ld), 100 + 4 * 4);
  const Instruction partial = make(base, "dma.load", {{"rows", 3}, {"bytes", 5}, {"dram_stride", 5}});
  EXPECT_EQ(timingCycles(narrowBus, partial), 100 + 3 * 2);  // ceil(5 / 4)
  // A broadcast (dram_stride 0) reads its row once, then writes one row per cycle.
  const Instruction broadcast = make(base, "dma.load", {{"rows", 4}, {"bytes", 16}});
  EXPECT_EQ(timingCycles(narrowBus, broadcast), 100 + 4 + 4 - 1);
}

TEST_F(Mutation, GemmTimingExpression) {
  const IsaConfig slowGemm = IsaConfig::parse(
      replaceAfter(text, "name: gemm", "\"m + array.rows + array.cols - 2\"", "\"2 * m + array.rows\""), "g.yaml");
  for (int64_t m : {0, 1, 16, 1000, 65535}) {
    const Instruction g = make(base, "gemm", {{"m", m}});
    EXPECT_EQ(timingCycles(base, g), m + 16 + 16 - 2) << m;
    EXPECT_EQ(timingCycles(slowGemm, g), 2 * m + 16) << m;
  }
  // Other instructions keep their timing.
  const Instruction rq = make(base, "requant", {{"rows", 9}});
  EXPECT_EQ(timingCycles(slowGemm, rq), timingCycles(base, rq));
}

TEST_F(Mutation, VectorLatency) {
  const IsaConfig v = IsaConfig::parse(replaceFirst(text, "vector: {latency: 4}", "vector: {latency: 10}"), "v.yaml");
  const Instruction rq = make(base, "requant", {{"rows", 9}});
  EXPECT_EQ(timingCycles(base, rq), 13);
  EXPECT_EQ(timingCycles(v, rq), 19);
  const Instruction g = make(base, "gemm", {{"m", 16}});
  EXPECT_EQ(timingCycles(v, g), timingCycles(base, g));
}

TEST_F(Mutation, ArrayShapePropagatesToDerivedParametersAndTiming) {
  const IsaConfig wide = IsaConfig::parse(replaceFirst(text, "cols: 16,", "cols: 32,"), "wide.yaml");
  EXPECT_EQ(wide.params().spad_row_bytes, 32);
  EXPECT_EQ(wide.params().spad_rows, 8192);
  EXPECT_EQ(wide.params().acc_row_bytes, 128);
  EXPECT_EQ(wide.params().acc_rows, 512);
  EXPECT_EQ(wide.params().vector_lanes, 32);
  EXPECT_EQ(wide.params().lut_rows, 8);
  // Limits that name derived parameters follow.
  EXPECT_EQ(field(wide, "dma.load", "bytes").limit(), 32);
  EXPECT_EQ(field(wide, "dma.load.acc", "bytes").limit(), 128);
  EXPECT_NO_THROW(enc(wide, make(wide, "dma.load", {{"bytes", 32}})));
  EXPECT_THROW(enc(base, make(base, "dma.load", {{"bytes", 32}})), Error);
  // Timing: gemm drains over the wider array, vreduce needs one more tree level.
  const Instruction g = make(base, "gemm", {{"m", 16}});
  EXPECT_EQ(timingCycles(wide, g), 16 + 16 + 32 - 2);
  const Instruction r = make(base, "vreduce", {{"rows", 3}});
  EXPECT_EQ(timingCycles(base, r), 4 + 3 + 4);
  EXPECT_EQ(timingCycles(wide, r), 4 + 3 + 5);
}

}  // namespace
}  // namespace systole::isa
