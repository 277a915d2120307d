// The .sbin container: round trip, truncation and corruption detection, magic and version checks,
// structural validation, matching a program against a config, and file I/O.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "systole/isa/assembler.h"
#include "systole/isa/encoding.h"
#include "systole/isa/program.h"
#include "test_util.h"

namespace systole::isa {
namespace {

using test::catchError;
using test::loadConfig;

bool contains(const std::string& s, const std::string& needle) { return s.find(needle) != std::string::npos; }

/// Recomputes the trailing checksum so a deliberately malformed body reaches the structural checks.
void reseal(std::vector<uint8_t>& bytes) {
  const size_t body = bytes.size() - 8;
  const uint64_t h = fnv1a64(bytes.data(), body);
  for (size_t i = 0; i < 8; ++i) bytes[body + i] = static_cast<uint8_t>(h >> (8 * i));
}

std::vector<uint8_t> sealed(std::vector<uint8_t> body) {
  body.resize(body.size() + 8);
  reseal(body);
  return body;
}

/// A program for `isa` with code, several data segments and a tensor of every dtype and kind.
Program sampleProgram(const IsaConfig& isa) {
  Program p;
  p.isa_name = isa.params().name;
  p.isa_hash = isa.hash();
  p.instr_bytes = static_cast<uint32_t>(isa.params().instr_bytes);
  std::vector<Instruction> code(3);
  code[0].desc = isa.byName("gemm");
  code[0].fields = {16, 0, 16, 1};
  code[0].tokens = kPopPrev;
  code[1].desc = isa.byName("requant");
  code[1].fields = {0, 32, 16, 16, -128, -128, 127};
  code[2].desc = isa.bySemantics(Semantics::Finish);
  p.code = encodeAll(isa, code);
  DataSegment weights{0x1000, {}};
  for (int i = 0; i < 40; ++i) weights.bytes.push_back(static_cast<uint8_t>(i * 37));
  p.data.push_back(weights);
  p.data.push_back({0x2000, {}});  // empty segment
  p.data.push_back({0x3000, {0xFF, 0x00, 0x80}});
  p.tensors.push_back({"x", TensorKind::Input, DType::Int8, {16, 16}, 0x0, 0.05f, -128});
  p.tensors.push_back({"bias", TensorKind::Constant, DType::Int32, {16}, 0x2000, 1.0f, 0});
  p.tensors.push_back({"logits", TensorKind::Output, DType::Float32, {1, 10}, 0x4000, -2.5f, INT32_MIN});
  p.tensors.push_back(
      {"act", TensorKind::Intermediate, DType::Uint8, {2, 1, 1, 1, 1, 1, 1, 3}, 0x5000, 1e-30f, INT32_MAX});
  p.tensors.push_back({"scalar", TensorKind::Constant, DType::Int8, {}, 0x6000, 0.5f, 7});
  return p;
}

class Sbin : public ::testing::Test {
 protected:
  const IsaConfig isa = loadConfig("default");
  const Program prog = sampleProgram(isa);
  const std::vector<uint8_t> bytes = serializeSbin(prog);
};

TEST_F(Sbin, RoundTrip) {
  const Program back = deserializeSbin(bytes, "p.sbin");
  EXPECT_EQ(back, prog);
  EXPECT_EQ(back.instructionCount(), 3u);
  EXPECT_EQ(decodeAll(isa, back.code).size(), 3u);
  // Every dtype and kind made it through.
  ASSERT_EQ(back.tensors.size(), 5u);
  EXPECT_EQ(back.tensors[2].dtype, DType::Float32);
  EXPECT_EQ(back.tensors[2].zero_point, INT32_MIN);
  EXPECT_EQ(back.tensors[3].kind, TensorKind::Intermediate);
  EXPECT_EQ(back.tensors[3].shape.size(), 8u);
  EXPECT_EQ(back.tensors[3].scale, 1e-30f);
  EXPECT_TRUE(back.tensors[4].shape.empty());
  EXPECT_TRUE(back.data[1].bytes.empty());
  // Serialization is deterministic and stable under a second round.
  EXPECT_EQ(serializeSbin(back), bytes);
}

TEST_F(Sbin, HeaderLayout) {
  ASSERT_GE(bytes.size(), 32u);
  const uint8_t magic[8] = {'S', 'Y', 'S', 'T', 'O', 'L', 'E', 0};
  EXPECT_TRUE(std::equal(magic, magic + 8, bytes.begin()));
  EXPECT_EQ(bytes[8], 1);  // version 1, little-endian
  EXPECT_EQ(bytes[9] | bytes[10] | bytes[11], 0);
  EXPECT_EQ(bytes[12] | bytes[13] | bytes[14] | bytes[15], 0);  // flags
  EXPECT_EQ(bytes[16], 7);                                      // strlen("default")
  EXPECT_EQ(std::string(bytes.begin() + 20, bytes.begin() + 27), "default");
  uint64_t stored = 0;
  for (size_t i = 0; i < 8; ++i) stored |= uint64_t{bytes[bytes.size() - 8 + i]} << (8 * i);
  EXPECT_EQ(stored, fnv1a64(bytes.data(), bytes.size() - 8));
}

TEST(SbinBasics, EmptyProgramRoundTrip) {
  const Program empty;
  const auto bytes = serializeSbin(empty);
  // magic, version, flags, name, hash, instr_bytes, code blob, two counts, checksum.
  EXPECT_EQ(bytes.size(), 8u + 4 + 4 + 4 + 8 + 4 + 8 + 4 + 4 + 8);
  // instr_bytes 0 is not a loadable program.
  EXPECT_THROW(deserializeSbin(bytes, "e.sbin"), Error);
  Program minimal;
  minimal.instr_bytes = 8;
  EXPECT_EQ(deserializeSbin(serializeSbin(minimal), "m.sbin"), minimal);
}

TEST(SbinBasics, DtypeAndKindNames) {
  for (DType t : kDTypes) {
    EXPECT_EQ(dtypeByName(dtypeName(t)), t);
  }
  EXPECT_EQ(dtypeBytes(DType::Int8), 1);
  EXPECT_EQ(dtypeBytes(DType::Int16), 2);
  EXPECT_EQ(dtypeBytes(DType::Uint8), 1);
  EXPECT_EQ(dtypeBytes(DType::Int32), 4);
  EXPECT_EQ(dtypeBytes(DType::Float32), 4);
  EXPECT_FALSE(dtypeByName("int64"));
  for (TensorKind k : {TensorKind::Input, TensorKind::Output, TensorKind::Constant, TensorKind::Intermediate})
    EXPECT_EQ(tensorKindByName(tensorKindName(k)), k);
  EXPECT_FALSE(tensorKindByName("weight"));
  const TensorInfo t{"t", TensorKind::Input, DType::Int32, {2, 3, 4}, 0, 1.0f, 0};
  EXPECT_EQ(t.elements(), 24);
  EXPECT_EQ(t.bytes(), 96);
  EXPECT_EQ((TensorInfo{"s", TensorKind::Input, DType::Int8, {}, 0, 1.0f, 0}).elements(), 1);
}

TEST_F(Sbin, TruncatedAtEveryLength) {
  for (size_t len = 0; len < bytes.size(); ++len) {
    const std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(len));
    EXPECT_THROW(deserializeSbin(cut, "cut.sbin"), Error) << "length " << len;
  }
}

TEST_F(Sbin, TruncatedWithValidChecksumIsStillTruncated) {
  // A prefix of the body with a correct checksum for that prefix passes the checksum, so only the
  // bounds checks of the reader stand between it and a crash.
  const size_t body = bytes.size() - 8;
  for (size_t len = 0; len < body; ++len) {
    const auto cut = sealed(std::vector<uint8_t>(bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(len)));
    auto e = catchError([&] { deserializeSbin(cut, "cut.sbin"); });
    if (!e) {
      ADD_FAILURE() << "length " << len;
      continue;
    }
    EXPECT_EQ(e->where().file, "cut.sbin");
    if (len >= 8) {
      EXPECT_TRUE(contains(e->message(), "truncated")) << "length " << len << ": " << e->what();
    }
  }
  // The reader names the section it was in.
  const auto cut = sealed(std::vector<uint8_t>(bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(body - 3)));
  auto e = catchError([&] { deserializeSbin(cut, "cut.sbin"); });
  ASSERT_TRUE(e);
  EXPECT_TRUE(contains(e->message(), "reading tensor table")) << e->what();
}

TEST_F(Sbin, EverySingleByteCorruptionIsDetected) {
  int undetected = 0;
  for (size_t pos = 0; pos < bytes.size(); ++pos) {
    for (int v = 0; v < 256; ++v) {
      if (v == bytes[pos]) continue;
      std::vector<uint8_t> bad = bytes;
      bad[pos] = static_cast<uint8_t>(v);
      try {
        deserializeSbin(bad, "bad.sbin");
        if (++undetected <= 5) ADD_FAILURE() << "corruption at byte " << pos << " to " << v << " not detected";
      } catch (const Error&) {}
    }
  }
  EXPECT_EQ(undetected, 0);
}

TEST_F(Sbin, CorruptionMessages) {
  for (size_t pos = 0; pos < bytes.size(); ++pos) {
    std::vector<uint8_t> bad = bytes;
    bad[pos] ^= 0x01;
    auto e = catchError([&] { deserializeSbin(bad, "bad.sbin"); });
    if (!e) continue;
    const char* want = pos < 8 ? "bad magic" : pos < 12 ? "unsupported container version" : "checksum mismatch";
    EXPECT_TRUE(contains(e->message(), want)) << "byte " << pos << ": " << e->what();
  }
}

TEST_F(Sbin, BadMagic) {
  std::vector<uint8_t> bad = bytes;
  bad[0] = 'X';
  reseal(bad);
  auto e = catchError([&] { deserializeSbin(bad, "m.sbin"); });
  ASSERT_TRUE(e);
  EXPECT_TRUE(contains(e->message(), "bad magic")) << e->what();
  EXPECT_EQ(e->where().file, "m.sbin");
  const std::string elf =
      "\x7f"
      "ELF\x02\x01\x01\x00 and more bytes than a header";
  e = catchError([&] { deserializeSbin(std::vector<uint8_t>(elf.begin(), elf.end()), "a.out"); });
  ASSERT_TRUE(e);
  EXPECT_TRUE(contains(e->message(), "bad magic")) << e->what();
  e = catchError([&] { deserializeSbin({}, "empty.sbin"); });
  ASSERT_TRUE(e);
  EXPECT_TRUE(contains(e->message(), "bad magic")) << e->what();
}

TEST_F(Sbin, UnsupportedVersion) {
  for (uint32_t version : {0u, 3u, 0xFFFFFFFFu}) {
    std::vector<uint8_t> bad = bytes;
    for (size_t i = 0; i < 4; ++i) bad[8 + i] = static_cast<uint8_t>(version >> (8 * i));
    reseal(bad);  // a well-formed file of another version
    auto e = catchError([&] { deserializeSbin(bad, "v.sbin"); });
    ASSERT_TRUE(e);
    EXPECT_TRUE(contains(e->message(), "unsupported container version " + std::to_string(version))) << e->what();
    EXPECT_TRUE(contains(e->message(), "reads version 1")) << e->what();
  }
}

TEST_F(Sbin, ModelContainerIsNamedNotMisread) {
  std::vector<uint8_t> v2 = bytes;
  v2[8] = 2;
  reseal(v2);
  auto e = catchError([&] { deserializeSbin(v2, "m.sbin"); });
  ASSERT_TRUE(e);
  EXPECT_TRUE(contains(e->message(), "holds a whole compiled model (version 2)")) << e->what();
}

TEST_F(Sbin, ModelContainerRoundTripsAndRejectsEveryTruncation) {
  ModelContainer m;
  m.programs = {deserializeSbin(bytes, "p.sbin"), deserializeSbin(bytes, "p.sbin")};
  m.model = {1, 2, 3, 4, 5};
  const auto encoded = serializeModelSbin(m);
  const ModelContainer back = deserializeModelSbin(encoded, "m.sbin");
  ASSERT_EQ(back.programs.size(), 2u);
  EXPECT_EQ(back.programs[1], m.programs[1]);
  EXPECT_EQ(back.model, m.model);
  for (size_t cut = 0; cut < encoded.size(); cut += 7)
    EXPECT_TRUE(catchError([&] {
      deserializeModelSbin({encoded.begin(), encoded.begin() + static_cast<std::ptrdiff_t>(cut)}, "m.sbin");
    })) << cut;
}

// Offsets into the serialization of a program with no data and one rank-2 tensor named "t".
struct OneTensor {
  std::vector<uint8_t> bytes;
  size_t instrBytesAt, dataCountAt, kindAt, dtypeAt, rankAt, dimAt;
};

OneTensor oneTensorProgram() {
  Program p;
  p.isa_name = "default";
  p.instr_bytes = 16;
  p.code.assign(32, 0);
  p.tensors.push_back({"t", TensorKind::Input, DType::Int8, {4, 4}, 0x100, 1.0f, 0});
  OneTensor o;
  o.bytes = serializeSbin(p);
  o.instrBytesAt = 16 + 4 + 7 + 8;
  o.dataCountAt = o.instrBytesAt + 4 + 8 + 32;
  o.kindAt = o.dataCountAt + 4 + 4 + 4 + 1;
  o.dtypeAt = o.kindAt + 1;
  o.rankAt = o.dtypeAt + 1;
  o.dimAt = o.rankAt + 2;
  EXPECT_EQ(o.dimAt + 16 + 8 + 4 + 4 + 8, o.bytes.size());  // the offsets above are right
  EXPECT_EQ(o.bytes[o.kindAt], 1);
  EXPECT_EQ(o.bytes[o.dtypeAt], 1);
  EXPECT_EQ(o.bytes[o.rankAt], 2);
  EXPECT_EQ(o.bytes[o.dimAt], 4);
  return o;
}

std::string structuralError(std::vector<uint8_t> bytes) {
  reseal(bytes);
  auto e = catchError([&] { deserializeSbin(bytes, "s.sbin"); });
  return e ? e->message() : "";
}

TEST(SbinStructure, ValidChecksumButBadContent) {
  const OneTensor o = oneTensorProgram();
  EXPECT_NO_THROW(deserializeSbin(o.bytes, "ok.sbin"));
  auto with = [&](size_t at, std::initializer_list<uint8_t> values) {
    std::vector<uint8_t> b = o.bytes;
    size_t i = at;
    for (uint8_t v : values) b[i++] = v;
    return b;
  };
  EXPECT_TRUE(contains(structuralError(with(o.kindAt, {0})), "bad tensor kind 0"));
  EXPECT_TRUE(contains(structuralError(with(o.kindAt, {5})), "bad tensor kind 5"));
  EXPECT_TRUE(contains(structuralError(with(o.dtypeAt, {0})), "bad dtype 0"));
  EXPECT_TRUE(contains(structuralError(with(o.dtypeAt, {9})), "bad dtype 9"));
  EXPECT_TRUE(contains(structuralError(with(o.rankAt, {9, 0})), "tensor rank 9 above 8"));
  EXPECT_TRUE(contains(structuralError(with(o.rankAt, {0xFF, 0xFF})), "above 8"));
  EXPECT_TRUE(
      contains(structuralError(with(o.dimAt, {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF})), "bad dimension -1"));
  EXPECT_TRUE(contains(structuralError(with(o.instrBytesAt, {0, 0, 0, 0})), "bad instruction size 0"));
  EXPECT_TRUE(contains(structuralError(with(o.instrBytesAt, {65, 0, 0, 0})), "bad instruction size 65"));
  EXPECT_TRUE(contains(structuralError(with(o.instrBytesAt, {3, 0, 0, 0})), "code size is not a multiple"));
  EXPECT_TRUE(contains(structuralError(with(o.dataCountAt, {0xFF, 0xFF, 0xFF, 0xFF})), "truncated"));
  EXPECT_TRUE(contains(structuralError(with(16, {0xFF, 0xFF, 0xFF, 0x7F})), "truncated"));  // name length
  // A larger rank reads into the next fields and runs off the end.
  EXPECT_TRUE(contains(structuralError(with(o.rankAt, {8, 0})), "truncated"));
  // Bytes after the tensor table.
  std::vector<uint8_t> extra = o.bytes;
  extra.insert(extra.end() - 8, uint8_t{0});
  EXPECT_TRUE(contains(structuralError(extra), "unexpected bytes after the tensor table"));
}

TEST_F(Sbin, RandomMutationsWithValidChecksumNeverCrash) {
  std::mt19937 rng(99);
  const size_t body = bytes.size() - 8;
  int parsed = 0, rejected = 0;
  for (int iter = 0; iter < 5000; ++iter) {
    std::vector<uint8_t> bad = bytes;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < edits; ++k) {
      const size_t pos = 12 + rng() % (body - 12);  // keep magic and version, exercise the reader
      bad[pos] = static_cast<uint8_t>(rng() % 3 == 0 ? 0xFF : rng());
    }
    if (rng() % 4 == 0) bad.erase(bad.begin() + static_cast<ptrdiff_t>(12 + rng() % (body - 12)));
    reseal(bad);
    try {
      const Program p = deserializeSbin(bad, "fuzz.sbin");
      ++parsed;
      // Whatever parses re-serializes stably (compared as bytes: a fuzzed scale may be NaN).
      const auto again = serializeSbin(p);
      EXPECT_EQ(serializeSbin(deserializeSbin(again, "again.sbin")), again);
      bool nan = false;
      for (const auto& t : p.tensors) nan |= std::isnan(t.scale);
      if (!nan) {
        EXPECT_EQ(deserializeSbin(again, "again.sbin"), p);
      }
    } catch (const Error&) {
      ++rejected;
    }
  }
  EXPECT_GT(rejected, 0);
  EXPECT_EQ(parsed + rejected, 5000);
}

// ---------------------------------------------------------------------------------------------
// Matching a program against a config

std::string hex(uint64_t v) {
  std::ostringstream s;
  s << std::hex << v;
  return s.str();
}

TEST_F(Sbin, CheckProgramMatches) {
  EXPECT_NO_THROW(checkProgramMatches(prog, isa, "p.sbin"));

  Program other = prog;
  other.isa_hash ^= 0x1;
  auto e = catchError([&] { checkProgramMatches(other, isa, "p.sbin"); });
  ASSERT_TRUE(e);
  EXPECT_EQ(e->where().file, "p.sbin");
  const std::string& msg = e->message();
  EXPECT_TRUE(contains(msg, "config hash " + hex(other.isa_hash))) << msg;
  EXPECT_TRUE(contains(msg, "hash " + hex(isa.hash()))) << msg;
  EXPECT_NE(hex(other.isa_hash), hex(isa.hash()));
  EXPECT_TRUE(contains(msg, "recompile or reassemble")) << msg;

  // A config that differs only in a comment has another hash, so the program no longer matches.
  const IsaConfig edited = IsaConfig::parse(test::configText("default") + "# edited\n", "default.yaml");
  EXPECT_EQ(edited.params().name, "default");
  e = catchError([&] { checkProgramMatches(prog, edited, "p.sbin"); });
  ASSERT_TRUE(e);
  EXPECT_TRUE(contains(e->message(), hex(edited.hash()))) << e->what();

  // Another config by name.
  const IsaConfig tiny = loadConfig("tiny");
  e = catchError([&] { checkProgramMatches(prog, tiny, "p.sbin"); });
  ASSERT_TRUE(e);
  EXPECT_TRUE(contains(e->message(), "built for ISA 'default'")) << e->what();
  EXPECT_TRUE(contains(e->message(), "the config is 'tiny'")) << e->what();

  // Right name and hash, wrong instruction size.
  other = prog;
  other.instr_bytes = 8;
  EXPECT_THROW(checkProgramMatches(other, isa, "p.sbin"), Error);
}

TEST_F(Sbin, CheckProgramFitsDram) {
  const uint64_t dram = static_cast<uint64_t>(isa.params().dram_size);
  Program p = prog;
  p.data.push_back({dram - 4, {1, 2, 3, 4}});  // ends exactly at the top
  p.tensors.push_back({"top", TensorKind::Output, DType::Int32, {2}, dram - 8, 1.0f, 0});
  EXPECT_NO_THROW(checkProgramMatches(p, isa, "p.sbin"));

  Program over = prog;
  over.data.push_back({dram - 3, {1, 2, 3, 4}});
  auto e = catchError([&] { checkProgramMatches(over, isa, "p.sbin"); });
  ASSERT_TRUE(e);
  EXPECT_TRUE(contains(e->message(), "does not fit in DRAM")) << e->what();
  over = prog;
  over.data.push_back({UINT64_MAX, {1}});  // address arithmetic must not wrap
  EXPECT_THROW(checkProgramMatches(over, isa, "p.sbin"), Error);

  over = prog;
  over.tensors.push_back({"big", TensorKind::Output, DType::Int32, {2}, dram - 7, 1.0f, 0});
  e = catchError([&] { checkProgramMatches(over, isa, "p.sbin"); });
  ASSERT_TRUE(e);
  EXPECT_TRUE(contains(e->message(), "tensor 'big' does not fit in DRAM")) << e->what();
  over = prog;
  over.tensors.push_back({"far", TensorKind::Output, DType::Int8, {1}, UINT64_MAX, 1.0f, 0});
  EXPECT_THROW(checkProgramMatches(over, isa, "p.sbin"), Error);
}

TEST_F(Sbin, AssembledProgramMatchesItsConfig) {
  const std::string text = "gemm a_row=0, acc_row=0, m=16, accumulate=0 [pop_prev]\nfinish\n";
  const Program p = assemble(isa, text, "a.s");
  EXPECT_EQ(p.isa_name, "default");
  EXPECT_EQ(p.isa_hash, isa.hash());
  EXPECT_NO_THROW(checkProgramMatches(p, isa, "a.sbin"));
  EXPECT_EQ(deserializeSbin(serializeSbin(p), "a.sbin"), p);
}

// ---------------------------------------------------------------------------------------------
// Files

class SbinFiles : public Sbin {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir = std::filesystem::temp_directory_path() /
          ("systole_sbin_test_" + std::to_string(::getpid()) + "_" + info->name());
    std::filesystem::create_directories(dir);
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  std::filesystem::path dir;
};

TEST_F(SbinFiles, WriteThenRead) {
  const std::string path = (dir / "prog.sbin").string();
  writeSbin(path, prog);
  EXPECT_EQ(readSbin(path), prog);
  EXPECT_EQ(readBinaryFile(path), bytes);
  // Written atomically: no temporary is left behind.
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    ++files;
    EXPECT_EQ(entry.path().filename().string(), "prog.sbin");
  }
  EXPECT_EQ(files, 1);
  // Overwriting replaces the whole file.
  Program small = prog;
  small.data.clear();
  small.tensors.resize(1);
  writeSbin(path, small);
  EXPECT_EQ(readSbin(path), small);
  EXPECT_LT(std::filesystem::file_size(path), bytes.size());
}

TEST_F(SbinFiles, ReadErrorsNameTheFile) {
  const std::string missing = (dir / "missing.sbin").string();
  auto e = catchError([&] { readSbin(missing); });
  ASSERT_TRUE(e);
  EXPECT_EQ(e->where().file, missing);
  EXPECT_TRUE(contains(e->message(), "cannot open")) << e->what();

  e = catchError([&] { readSbin(dir.string()); });  // a directory
  ASSERT_TRUE(e);

  const std::string cut = (dir / "cut.sbin").string();
  writeFileAtomic(cut, bytes.data(), bytes.size() / 2);
  e = catchError([&] { readSbin(cut); });
  ASSERT_TRUE(e);
  EXPECT_EQ(e->where().file, cut);
  EXPECT_TRUE(std::string(e->what()).rfind(cut + ": error: ", 0) == 0) << e->what();

  // Writing into a directory that does not exist fails cleanly.
  EXPECT_THROW(writeSbin((dir / "no" / "such" / "dir.sbin").string(), prog), Error);
}

}  // namespace
}  // namespace systole::isa
