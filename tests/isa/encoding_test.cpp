// The table-driven encoder/decoder: exact bit placement, every field boundary, token flags,
// rejection of unknown opcodes and reserved bits, and a seeded round-trip property test through
// encode/decode and formatInstruction/assemble for every shipped config.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "systole/isa/assembler.h"
#include "systole/isa/encoding.h"
#include "test_util.h"

namespace systole::isa {
namespace {

using test::catchError;
using test::loadConfig;

std::vector<uint8_t> enc(const IsaConfig& isa, const Instruction& in) {
  std::vector<uint8_t> bytes(static_cast<size_t>(isa.params().instr_bytes), 0xAA);
  encode(isa, in, bytes);
  return bytes;
}

Instruction dec(const IsaConfig& isa, const std::vector<uint8_t>& bytes) { return decode(isa, bytes); }

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

bool getBit(const std::vector<uint8_t>& b, int bit) { return (b[static_cast<size_t>(bit / 8)] >> (bit % 8)) & 1; }
void flipBit(std::vector<uint8_t>& b, int bit) {
  b[static_cast<size_t>(bit / 8)] ^= static_cast<uint8_t>(1u << (bit % 8));
}

uint64_t readBits(const std::vector<uint8_t>& b, int lsb, int bits) {
  uint64_t v = 0;
  for (int i = 0; i < bits; ++i) v |= uint64_t{getBit(b, lsb + i)} << i;
  return v;
}

void writeBits(std::vector<uint8_t>& b, int lsb, int bits, uint64_t value) {
  for (int i = 0; i < bits; ++i)
    if (getBit(b, lsb + i) != ((value >> i) & 1)) flipBit(b, lsb + i);
}

uint64_t mask(int bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }

/// Bits the instruction uses: opcode, token flags and its fields. Everything else is reserved.
std::vector<bool> usedBits(const IsaConfig& isa, const InstrDesc& d) {
  const Params& p = isa.params();
  std::vector<bool> used(static_cast<size_t>(p.instr_bits), false);
  for (int i = 0; i < p.opcode_bits; ++i) used[static_cast<size_t>(i)] = true;
  for (int i = 0; i < kNumTokenFlags; ++i) used[static_cast<size_t>(p.token_lsb + i)] = true;
  for (const FieldDesc& f : d.fields)
    for (int i = 0; i < f.bits; ++i) used[static_cast<size_t>(f.lsb + i)] = true;
  return used;
}

uint8_t validTokenMask(Unit u) {
  uint8_t m = 0xF;
  if (!hasPrev(u)) m &= static_cast<uint8_t>(~(kPopPrev | kPushPrev));
  if (!hasNext(u)) m &= static_cast<uint8_t>(~(kPopNext | kPushNext));
  return m;
}

Instruction randomInstruction(const IsaConfig& isa, int desc, std::mt19937& rng) {
  const InstrDesc& d = isa.instr(desc);
  Instruction in;
  in.desc = desc;
  for (size_t i = 0; i < d.fields.size(); ++i) {
    const FieldDesc& f = d.fields[i];
    const int64_t lo = f.minValue(), hi = f.limit();
    switch (rng() % 8) {
      case 0: in.fields[i] = lo; break;
      case 1: in.fields[i] = hi; break;
      default: in.fields[i] = std::uniform_int_distribution<int64_t>(lo, hi)(rng);
    }
  }
  in.tokens = static_cast<uint8_t>(rng() & validTokenMask(d.unit));
  return in;
}

// ---------------------------------------------------------------------------------------------
// Exact layout

TEST(Encoding, GemmBitLayoutDefault) {
  const IsaConfig isa = loadConfig("default");
  const Instruction in =
      make(isa, "gemm", {{"a_row", 0x1234}, {"acc_row", 0x278}, {"m", 0x6BC}, {"accumulate", 1}}, kPopPrev | kPushNext);
  // opcode 0x11 at bits 0..7, tokens at 8..11, a_row 12..25, acc_row 26..35, m 36..46, accumulate 47
  // (row fields as wide as default's 16384 scratchpad and 1024 accumulator rows need).
  unsigned __int128 v = 0x11;
  v |= static_cast<unsigned __int128>(kPopPrev | kPushNext) << 8;
  v |= static_cast<unsigned __int128>(0x1234) << 12;
  v |= static_cast<unsigned __int128>(0x278) << 26;
  v |= static_cast<unsigned __int128>(0x6BC) << 36;
  v |= static_cast<unsigned __int128>(1) << 47;
  std::vector<uint8_t> expected(16);
  for (size_t i = 0; i < 16; ++i) expected[i] = static_cast<uint8_t>(v >> (8 * i));
  EXPECT_EQ(enc(isa, in), expected);
  EXPECT_EQ(dec(isa, expected), in);
}

TEST(Encoding, SignedFieldsTwosComplement) {
  const IsaConfig isa = loadConfig("default");
  const InstrDesc& d = isa.instr(isa.byName("requant"));
  const FieldDesc& zp = d.fields[static_cast<size_t>(d.fieldIndex("zero_point"))];
  const FieldDesc& lo = d.fields[static_cast<size_t>(d.fieldIndex("clamp_min"))];
  const FieldDesc& hi = d.fields[static_cast<size_t>(d.fieldIndex("clamp_max"))];
  const Instruction in = make(isa, "requant", {{"zero_point", -1}, {"clamp_min", -128}, {"clamp_max", 127}});
  const auto bytes = enc(isa, in);
  EXPECT_EQ(readBits(bytes, zp.lsb, zp.bits), 0xFFu);
  EXPECT_EQ(readBits(bytes, lo.lsb, lo.bits), 0x80u);
  EXPECT_EQ(readBits(bytes, hi.lsb, hi.bits), 0x7Fu);
  const Instruction back = dec(isa, bytes);
  EXPECT_EQ(back, in);
  EXPECT_EQ(back.fields[static_cast<size_t>(d.fieldIndex("zero_point"))], -1);
  EXPECT_EQ(back.fields[static_cast<size_t>(d.fieldIndex("clamp_min"))], -128);
}

TEST(Encoding, EncodeOverwritesTheWholeBuffer) {
  const IsaConfig isa = loadConfig("default");
  std::vector<uint8_t> a(16, 0x00), b(16, 0xFF);
  const Instruction in = make(isa, "finish");
  encode(isa, in, a);
  encode(isa, in, b);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a[0], 0x7F);
  for (size_t i = 1; i < a.size(); ++i) EXPECT_EQ(a[i], 0) << i;
}

// ---------------------------------------------------------------------------------------------
// Field boundaries

TEST(Encoding, KnownLimits) {
  const IsaConfig def = loadConfig("default");
  auto limitOf = [](const IsaConfig& isa, const char* instr, const char* field) {
    const InstrDesc& d = isa.instr(isa.byName(instr));
    return d.fields[static_cast<size_t>(d.fieldIndex(field))].limit();
  };
  EXPECT_EQ(limitOf(def, "dma.load", "bytes"), 16);              // scratchpad.row_bytes, below the 8-bit 255
  EXPECT_EQ(limitOf(def, "dma.load.acc", "bytes"), 64);          // accumulator.row_bytes
  EXPECT_EQ(limitOf(def, "dma.load", "dram_addr"), 0x1FFFFFFF);  // bits_for(dram.size - 1): 512 MiB
  EXPECT_EQ(limitOf(def, "gemm", "m"), 2047);                    // bits_for(accumulator.rows): 1024
  EXPECT_EQ(limitOf(def, "gemm", "accumulate"), 1);
  EXPECT_EQ(limitOf(def, "widen", "multiplier"), 32767);
  EXPECT_EQ(limitOf(loadConfig("os16"), "gemm", "m"), 16);  // max: array.rows
  const IsaConfig tiny = loadConfig("tiny");
  EXPECT_EQ(limitOf(tiny, "ld", "bytes"), 4);       // 3 bits would allow 7
  EXPECT_EQ(limitOf(tiny, "ld.acc", "bytes"), 16);  // 5 bits would allow 31
  EXPECT_EQ(limitOf(loadConfig("large"), "dma.load.acc", "bytes"), 128);
}

TEST(Encoding, SpecificBoundariesDefault) {
  const IsaConfig isa = loadConfig("default");
  auto ok = [&](const Instruction& in) { EXPECT_EQ(dec(isa, enc(isa, in)), in) << formatInstruction(isa, in); };
  auto bad = [&](const Instruction& in, const std::string& needle) {
    auto e = catchError([&] { enc(isa, in); });
    if (e) {
      EXPECT_NE(e->message().find(needle), std::string::npos) << e->message();
    }
  };
  ok(make(isa, "requant", {{"zero_point", -128}, {"clamp_min", -128}, {"clamp_max", 127}}));
  ok(make(isa, "requant", {{"zero_point", 127}}));
  bad(make(isa, "requant", {{"zero_point", 128}}), "out of range for field 'zero_point' [-128, 127]");
  bad(make(isa, "requant", {{"clamp_min", -129}}), "out of range for field 'clamp_min'");
  ok(make(isa, "widen", {{"multiplier", -32768}}));
  ok(make(isa, "widen", {{"multiplier", 32767}}));
  bad(make(isa, "widen", {{"multiplier", 32768}}), "'multiplier'");
  bad(make(isa, "widen", {{"multiplier", -32769}}), "'multiplier'");
  ok(make(isa, "dma.load", {{"bytes", 16}, {"dram_addr", 0x1FFFFFFF}, {"dram_stride", 0xFFFFFF}}));
  bad(make(isa, "dma.load", {{"bytes", 17}}), "(max: scratchpad.row_bytes)");
  bad(make(isa, "dma.load", {{"dram_addr", int64_t{1} << 29}}), "'dram_addr'");
  bad(make(isa, "dma.load", {{"dram_addr", -1}}), "'dram_addr'");
  bad(make(isa, "dma.load", {{"dram_stride", 1 << 24}}), "'dram_stride'");
  ok(make(isa, "dma.load.acc", {{"bytes", 64}}));
  bad(make(isa, "dma.load.acc", {{"bytes", 65}}), "(max: accumulator.row_bytes)");
  ok(make(isa, "gemm", {{"m", 2047}, {"accumulate", 1}}));
  bad(make(isa, "gemm", {{"m", 2048}}), "'m'");
  bad(make(isa, "gemm", {{"accumulate", 2}}), "'accumulate'");
}

class EveryConfig : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryConfig, EveryFieldBoundary) {
  const IsaConfig isa = loadConfig(GetParam());
  for (int di = 0; di < static_cast<int>(isa.instructions().size()); ++di) {
    const InstrDesc& d = isa.instr(di);
    for (size_t fi = 0; fi < d.fields.size(); ++fi) {
      const FieldDesc& f = d.fields[fi];
      SCOPED_TRACE(d.name + "." + f.name);
      ASSERT_LE(f.limit(), f.maxValue());
      ASSERT_GE(f.limit(), f.minValue());
      Instruction in;
      in.desc = di;
      for (int64_t v : {f.minValue(), f.limit(), f.minValue() + 1, f.limit() - 1}) {
        in.fields[fi] = v;
        const auto bytes = enc(isa, in);
        EXPECT_EQ(readBits(bytes, f.lsb, f.bits), static_cast<uint64_t>(v) & mask(f.bits)) << v;
        EXPECT_EQ(dec(isa, bytes), in) << v;
      }
      for (int64_t v : {f.minValue() - 1, f.limit() + 1}) {
        in.fields[fi] = v;
        auto e = catchError([&] { enc(isa, in); });
        if (e) {
          EXPECT_NE(e->message().find("out of range for field '" + f.name + "'"), std::string::npos) << e->message();
          EXPECT_NE(e->message().find(d.name), std::string::npos) << e->message();
        }
      }
      // A limit below the width's maximum (`max:`) is enforced by decode as well.
      if (f.limit() < f.maxValue()) {
        in.fields[fi] = 0;
        auto bytes = enc(isa, in);
        for (int64_t raw : {f.limit() + 1, f.maxValue()}) {
          writeBits(bytes, f.lsb, f.bits, static_cast<uint64_t>(raw));
          auto e = catchError([&] { dec(isa, bytes); });
          if (e) {
            EXPECT_NE(e->message().find("out of range"), std::string::npos) << e->message();
          }
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Token flags

TEST_P(EveryConfig, TokenFlagsPerUnit) {
  const IsaConfig isa = loadConfig(GetParam());
  const int tokenLsb = static_cast<int>(isa.params().token_lsb);
  for (int di = 0; di < static_cast<int>(isa.instructions().size()); ++di) {
    const InstrDesc& d = isa.instr(di);
    SCOPED_TRACE(d.name);
    for (int t = 0; t < 16; ++t) {
      const bool valid = (t & ~validTokenMask(d.unit)) == 0;
      EXPECT_EQ(checkTokens(d, static_cast<uint8_t>(t)).empty(), valid) << t;
      Instruction in;
      in.desc = di;
      in.tokens = static_cast<uint8_t>(t);
      if (valid) {
        const auto bytes = enc(isa, in);
        EXPECT_EQ(readBits(bytes, tokenLsb, kNumTokenFlags), static_cast<uint64_t>(t));
        EXPECT_EQ(dec(isa, bytes), in);
      } else {
        EXPECT_THROW(enc(isa, in), Error) << t;
        // The same bits arriving from a binary are rejected by decode.
        in.tokens = 0;
        auto bytes = enc(isa, in);
        writeBits(bytes, tokenLsb, kNumTokenFlags, static_cast<uint64_t>(t));
        EXPECT_THROW(dec(isa, bytes), Error) << t;
      }
    }
    for (int t : {16, 0x30, 0xFF}) {
      Instruction in;
      in.desc = di;
      in.tokens = static_cast<uint8_t>(t);
      EXPECT_THROW(enc(isa, in), Error) << t;
    }
  }
}

TEST(Encoding, LoadWithPopPrevIsRejected) {
  const IsaConfig isa = loadConfig("default");
  const Instruction load = make(isa, "dma.load", {{"rows", 1}, {"bytes", 16}}, kPopPrev);
  auto e = catchError([&] { enc(isa, load); });
  ASSERT_TRUE(e);
  EXPECT_NE(e->message().find("dma.load"), std::string::npos) << e->message();
  EXPECT_NE(e->message().find("no previous queue"), std::string::npos) << e->message();
  // Legal for the load queue: its neighbour is the compute queue.
  EXPECT_NO_THROW(enc(isa, make(isa, "dma.load", {}, kPopNext | kPushNext)));
  // The store queue has no next queue.
  e = catchError([&] { enc(isa, make(isa, "dma.store", {}, kPushNext)); });
  ASSERT_TRUE(e);
  EXPECT_NE(e->message().find("no next queue"), std::string::npos) << e->message();
  // Compute talks to both.
  EXPECT_NO_THROW(enc(isa, make(isa, "gemm", {}, kPopPrev | kPopNext | kPushPrev | kPushNext)));

  // In assembly the error points at the token.
  const std::string line = "dma.load 0, 0, 1, 16, 0 [pop_prev]";
  e = catchError([&] { assemble(isa, line, "t.s"); });
  ASSERT_TRUE(e);
  EXPECT_EQ(e->where().file, "t.s");
  EXPECT_EQ(e->where().line, 1);
  EXPECT_EQ(e->where().col, static_cast<int>(line.find("pop_prev")) + 1);
}

// ---------------------------------------------------------------------------------------------
// Decoder rejections

TEST_P(EveryConfig, EveryOpcodeDecodesOrIsRejected) {
  const IsaConfig isa = loadConfig(GetParam());
  const Params& p = isa.params();
  int known = 0;
  for (uint32_t op = 0; op < (1u << p.opcode_bits); ++op) {
    std::vector<uint8_t> bytes(static_cast<size_t>(p.instr_bytes), 0);
    writeBits(bytes, 0, static_cast<int>(p.opcode_bits), op);
    const int desc = isa.byOpcode(op);
    if (desc >= 0) {
      ++known;
      const Instruction in = dec(isa, bytes);
      EXPECT_EQ(in.desc, desc);
      EXPECT_EQ(isa.instr(desc).opcode, op);
      Instruction zero;
      zero.desc = desc;
      EXPECT_EQ(in, zero);
    } else {
      auto e = catchError([&] { dec(isa, bytes); });
      if (e) {
        EXPECT_NE(e->message().find("unknown opcode " + std::to_string(op)), std::string::npos) << e->message();
      }
    }
  }
  EXPECT_EQ(known, static_cast<int>(isa.instructions().size()));
}

TEST(Encoding, UnknownOpcodeDefault) {
  const IsaConfig isa = loadConfig("default");
  std::vector<uint8_t> bytes(16, 0);
  bytes[0] = 0x06;
  EXPECT_THROW(dec(isa, bytes), Error);
  bytes[0] = 0xFF;
  EXPECT_THROW(dec(isa, bytes), Error);
  bytes[0] = 0x11;
  EXPECT_EQ(dec(isa, bytes).desc, isa.byName("gemm"));
}

TEST_P(EveryConfig, ReservedBitsRejectedAndUsedBitsMatter) {
  const IsaConfig isa = loadConfig(GetParam());
  std::mt19937 rng(12345);
  for (int di = 0; di < static_cast<int>(isa.instructions().size()); ++di) {
    const InstrDesc& d = isa.instr(di);
    SCOPED_TRACE(d.name);
    const std::vector<bool> used = usedBits(isa, d);
    const Instruction in = randomInstruction(isa, di, rng);
    const auto good = enc(isa, in);
    int reserved = 0;
    for (int bit = 0; bit < isa.params().instr_bits; ++bit) {
      auto bytes = good;
      flipBit(bytes, bit);
      if (!used[static_cast<size_t>(bit)]) {
        ++reserved;
        // Encode never sets a reserved bit; decode refuses one that is set.
        EXPECT_FALSE(getBit(good, bit)) << bit;
        auto e = catchError([&] { dec(isa, bytes); });
        if (e) {
          EXPECT_NE(e->message().find("reserved bits are not zero"), std::string::npos) << bit << ": " << e->message();
        }
      } else {
        // Every used bit carries information: flipping it never decodes to the same instruction.
        try {
          EXPECT_NE(dec(isa, bytes), in) << "bit " << bit;
        } catch (const Error&) {}
      }
    }
    // Bits the header and fields leave free are reserved (nop and finish have no fields at all).
    if (d.fields.empty()) {
      EXPECT_EQ(reserved, isa.params().instr_bits - isa.params().fields_lsb);
    }
  }
}

TEST(Encoding, DecodeAllRejectsPartialInstruction) {
  const IsaConfig isa = loadConfig("default");
  std::vector<uint8_t> code = enc(isa, make(isa, "finish"));
  code.push_back(0);
  EXPECT_THROW(decodeAll(isa, code), Error);
  code.pop_back();
  EXPECT_EQ(decodeAll(isa, code).size(), 1u);
  EXPECT_TRUE(decodeAll(isa, std::vector<uint8_t>{}).empty());
  // decodeAll names the instruction that failed.
  std::vector<uint8_t> two = code;
  two.insert(two.end(), code.begin(), code.end());
  two[16] = 0x06;
  auto e = catchError([&] { decodeAll(isa, two); });
  ASSERT_TRUE(e);
  EXPECT_NE(e->message().find("instruction 1"), std::string::npos) << e->message();
}

// ---------------------------------------------------------------------------------------------
// Round-trip property

TEST_P(EveryConfig, RandomRoundTrip) {
  const IsaConfig isa = loadConfig(GetParam());
  std::mt19937 rng(0x5157011E);  // fixed seed: failures reproduce
  constexpr int kPerInstruction = 500;
  for (int di = 0; di < static_cast<int>(isa.instructions().size()); ++di) {
    const InstrDesc& d = isa.instr(di);
    SCOPED_TRACE(d.name);
    int failures = 0;
    for (int k = 0; k < kPerInstruction && failures < 5; ++k) {
      const Instruction in = randomInstruction(isa, di, rng);
      const std::string text = formatInstruction(isa, in);
      std::vector<uint8_t> bytes;
      try {
        bytes = enc(isa, in);
        const Instruction back = dec(isa, bytes);
        if (back != in) {
          ++failures;
          ADD_FAILURE() << "decode(encode(x)) != x for " << text << "; got " << formatInstruction(isa, back);
        }
        const Program prog = assemble(isa, text, "roundtrip.s");
        if (prog.code != bytes) {
          ++failures;
          ADD_FAILURE() << "assemble(formatInstruction(x)) differs from encode(x) for " << text;
        }
      } catch (const Error& e) {
        ++failures;
        ADD_FAILURE() << text << ": " << e.what();
      }
    }
  }
}

TEST_P(EveryConfig, RandomProgramDisassemblesAndReassembles) {
  const IsaConfig isa = loadConfig(GetParam());
  std::mt19937 rng(777);
  std::vector<Instruction> stream;
  const int n = static_cast<int>(isa.instructions().size());
  for (int k = 0; k < 2000; ++k)
    stream.push_back(randomInstruction(isa, static_cast<int>(rng() % static_cast<unsigned>(n)), rng));
  Program prog;
  prog.isa_name = isa.params().name;
  prog.isa_hash = isa.hash();
  prog.instr_bytes = static_cast<uint32_t>(isa.params().instr_bytes);
  prog.code = encodeAll(isa, stream);
  ASSERT_EQ(prog.code.size(), stream.size() * static_cast<size_t>(isa.params().instr_bytes));
  EXPECT_EQ(decodeAll(isa, prog.code), stream);
  const Program again = assemble(isa, disassemble(isa, prog), "dis.s");
  EXPECT_EQ(again.code, prog.code);
  EXPECT_EQ(again.isa_hash, isa.hash());
  EXPECT_EQ(again.instr_bytes, prog.instr_bytes);
}

INSTANTIATE_TEST_SUITE_P(Shipped, EveryConfig, ::testing::ValuesIn(test::shippedConfigNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace systole::isa
