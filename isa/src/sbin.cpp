// Algorithm: a flat little-endian layout written by a byte appender and read back by a cursor that
// bounds-checks every read and names the section it was reading when the file ends early; a
// trailing FNV-1a checksum over all preceding bytes catches corruption.
#include <cmath>
#include <cstring>
#include <sstream>

#include "systole/isa/byte_stream.h"
#include "systole/isa/file_io.h"
#include "systole/isa/program.h"

namespace systole::isa {

namespace {

using Writer = ByteWriter;
using Reader = ByteReader;

constexpr char kMagic[8] = {'S', 'Y', 'S', 'T', 'O', 'L', 'E', '\0'};
}  // namespace

std::string_view dtypeName(DType t) {
  switch (t) {
    case DType::Int8: return "int8";
    case DType::Int32: return "int32";
    case DType::Float32: return "float32";
    case DType::Uint8: return "uint8";
    case DType::Int16: return "int16";
  }
  return "?";
}

std::optional<DType> dtypeByName(std::string_view name) {
  for (DType t : kDTypes)
    if (dtypeName(t) == name) return t;
  return std::nullopt;
}

int dtypeBytes(DType t) { return t == DType::Int32 || t == DType::Float32 ? 4 : t == DType::Int16 ? 2 : 1; }

std::string_view tensorKindName(TensorKind k) {
  switch (k) {
    case TensorKind::Input: return "input";
    case TensorKind::Output: return "output";
    case TensorKind::Constant: return "constant";
    case TensorKind::Intermediate: return "intermediate";
  }
  return "?";
}

std::optional<TensorKind> tensorKindByName(std::string_view name) {
  for (TensorKind k : {TensorKind::Input, TensorKind::Output, TensorKind::Constant, TensorKind::Intermediate})
    if (tensorKindName(k) == name) return k;
  return std::nullopt;
}

int64_t TensorInfo::elements() const {
  // Saturates at 2^60 (far beyond any DRAM) so that a huge shape cannot overflow here or in bytes()
  // and then pass a "fits in DRAM" check; a zero dimension still gives 0.
  constexpr int64_t kSaturated = int64_t{1} << 60;
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d <= 0) return 0;
    n = n > kSaturated / d ? kSaturated : n * d;
  }
  return n;
}

/// Magic, container version, reserved flags.
void writeHeader(Writer& w, uint32_t version) {
  w.raw(kMagic, sizeof kMagic);
  w.u32(version);
  w.u32(0);  // flags, reserved
}

/// Appends the checksum of everything written.
std::vector<uint8_t> sealed(Writer& w) {
  const uint64_t checksum = fnv1a64(w.out().data(), w.out().size());
  w.u64(checksum);
  return std::move(w.out());
}

/// The length of the bytes the trailing checksum covers, after checking it.
size_t checksummedBody(std::span<const uint8_t> bytes, const std::string& name) {
  if (bytes.size() < sizeof kMagic + 8 + 8) throw Error(SourceLocation{name, 0, 0}, "truncated file (no header)");
  const size_t body = bytes.size() - 8;
  uint64_t stored;
  std::memcpy(&stored, bytes.data() + body, 8);
  if (stored != fnv1a64(bytes.data(), body))
    throw Error(SourceLocation{name, 0, 0}, "checksum mismatch: the file is corrupted or truncated");
  return body;
}

std::vector<uint8_t> serializeSbin(const Program& p) {
  Writer w;
  writeHeader(w, kSbinVersion);
  w.str(p.isa_name);
  w.u64(p.isa_hash);
  w.u32(p.instr_bytes);
  w.bytes(p.code);
  w.u32(static_cast<uint32_t>(p.data.size()));
  for (const auto& seg : p.data) {
    w.u64(seg.dram_addr);
    w.bytes(seg.bytes);
  }
  w.u32(static_cast<uint32_t>(p.tensors.size()));
  for (const auto& t : p.tensors) {
    w.str(t.name);
    w.u8(static_cast<uint8_t>(t.kind));
    w.u8(static_cast<uint8_t>(t.dtype));
    w.u16(static_cast<uint16_t>(t.shape.size()));
    for (int64_t d : t.shape) w.i64(d);
    w.u64(t.dram_addr);
    w.f32(t.scale);
    w.i32(t.zero_point);
  }
  return sealed(w);
}

Program deserializeSbin(std::span<const uint8_t> bytes, const std::string& name, bool verifyChecksum) {
  if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    throw Error(SourceLocation{name, 0, 0}, "not a Systole program (bad magic; expected 'SYSTOLE\\0')");
  if (bytes.size() < sizeof kMagic + 8 + 8) throw Error(SourceLocation{name, 0, 0}, "truncated file (no header)");
  const size_t body = bytes.size() - 8;
  Reader r(bytes, body, name);
  for (size_t i = 0; i < sizeof kMagic; ++i) r.u8();
  const uint32_t version = r.u32();
  if (version == kModelSbinVersion)
    throw Error(SourceLocation{name, 0, 0},
                "this .sbin holds a whole compiled model (version 2), not one program: run it with "
                "'systole run' or 'systole sim'");
  if (version != kSbinVersion)
    throw Error(SourceLocation{name, 0, 0}, "unsupported container version " + std::to_string(version) +
                                                " (this build reads version " + std::to_string(kSbinVersion) + ")");
  if (verifyChecksum) checksummedBody(bytes, name);  // after the version, so another version is named as such
  Program p;
  r.u32();  // flags
  r.section("ISA identity");
  p.isa_name = r.str();
  p.isa_hash = r.u64();
  r.section("code section");
  p.instr_bytes = r.u32();
  if (p.instr_bytes == 0 || p.instr_bytes > 64) r.fail("bad instruction size " + std::to_string(p.instr_bytes));
  p.code = r.bytes();
  if (p.code.size() % p.instr_bytes != 0) r.fail("code size is not a multiple of the instruction size");
  r.section("data segments");
  for (uint64_t n = r.count(), i = 0; i < n; ++i) {
    DataSegment seg;
    seg.dram_addr = r.u64();
    seg.bytes = r.bytes();
    p.data.push_back(std::move(seg));
  }
  r.section("tensor table");
  for (uint64_t n = r.count(), i = 0; i < n; ++i) {
    TensorInfo t;
    t.name = r.str();
    const uint8_t kind = r.u8(), dtype = r.u8();
    if (tensorKindName(static_cast<TensorKind>(kind)) == "?") r.fail("bad tensor kind " + std::to_string(kind));
    if (dtypeName(static_cast<DType>(dtype)) == "?") r.fail("bad dtype " + std::to_string(dtype));
    t.kind = static_cast<TensorKind>(kind);
    t.dtype = static_cast<DType>(dtype);
    const uint16_t rank = r.u16();
    if (rank > 8) r.fail("tensor rank " + std::to_string(rank) + " above 8");
    for (uint16_t d = 0; d < rank; ++d) {
      const int64_t dim = r.i64();
      if (dim < 0 || dim > kMaxDimension) r.fail("bad dimension " + std::to_string(dim));
      t.shape.push_back(dim);
    }
    t.dram_addr = r.u64();
    t.scale = r.f32();
    t.zero_point = r.i32();
    p.tensors.push_back(std::move(t));
  }
  if (r.pos() != body) r.fail("unexpected bytes after the tensor table");
  return p;
}

uint32_t sbinVersion(std::span<const uint8_t> bytes, const std::string& name) {
  if (bytes.size() < sizeof kMagic + 4 || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    throw Error(SourceLocation{name, 0, 0}, "not a Systole program (bad magic; expected 'SYSTOLE\\0')");
  uint32_t version;
  std::memcpy(&version, bytes.data() + sizeof kMagic, 4);
  return version;
}

std::vector<uint8_t> serializeModelSbin(const ModelContainer& m) {
  std::vector<const Program*> programs;
  for (const Program& p : m.programs) programs.push_back(&p);
  return serializeModelSbin(programs, m.model);
}

namespace {

/// The version-2 container, piece by piece into `sink`, the checksum of all of it last.
void emitModelSbin(const std::vector<const Program*>& programs, const std::vector<uint8_t>& model,
                   const std::function<void(const uint8_t*, size_t)>& sink) {
  uint64_t checksum = fnv1a64(nullptr, 0);
  const auto put = [&](const std::vector<uint8_t>& bytes) {
    sink(bytes.data(), bytes.size());
    checksum = fnv1a64(bytes.data(), bytes.size(), checksum);  // FNV-1a continues from the running hash
  };
  const auto putBytes = [&](const std::vector<uint8_t>& bytes) {  // as Writer::bytes: a u64 length, then the bytes
    Writer length;
    length.u64(bytes.size());
    put(length.out());
    put(bytes);
  };
  Writer head;
  writeHeader(head, kModelSbinVersion);
  head.u32(static_cast<uint32_t>(programs.size()));
  put(head.out());
  for (const Program* p : programs) putBytes(serializeSbin(*p));
  putBytes(model);
  Writer tail;
  tail.u64(checksum);
  sink(tail.out().data(), tail.out().size());
}

}  // namespace

std::vector<uint8_t> serializeModelSbin(const std::vector<const Program*>& programs,
                                        const std::vector<uint8_t>& model) {
  std::vector<uint8_t> out;
  emitModelSbin(programs, model, [&](const uint8_t* p, size_t n) { out.insert(out.end(), p, p + n); });
  return out;
}

void writeModelSbin(const std::string& path, const std::vector<const Program*>& programs,
                    const std::vector<uint8_t>& model) {
  writeFileAtomic(path, [&](std::ostream& out) {
    emitModelSbin(programs, model, [&](const uint8_t* p, size_t n) {
      out.write(reinterpret_cast<const char*>(p), static_cast<std::streamsize>(n));
    });
  });
}

ModelContainer deserializeModelSbin(const std::vector<uint8_t>& bytes, const std::string& name) {
  if (sbinVersion(bytes, name) != kModelSbinVersion)
    throw Error(SourceLocation{name, 0, 0},
                "not a compiled model (container version " + std::to_string(sbinVersion(bytes, name)) + ")");
  const size_t body = checksummedBody(bytes, name);
  Reader r(bytes, body, name);
  for (size_t i = 0; i < sizeof kMagic + 8; ++i) r.u8();
  ModelContainer m;
  r.section("programs");
  for (uint64_t n = r.count(1 << 20), i = 0; i < n; ++i)
    m.programs.push_back(deserializeSbin(r.view(), name + " (program " + std::to_string(i) + ")", false));
  r.section("model description");
  m.model = r.bytes();
  if (r.pos() != body) r.fail("unexpected bytes after the model description");
  return m;
}

void writeSbin(const std::string& path, const Program& program) {
  const auto bytes = serializeSbin(program);
  writeFileAtomic(path, bytes.data(), bytes.size());
}

Program readSbin(const std::string& path) { return deserializeSbin(readBinaryFile(path), path); }

void checkProgramMatches(const Program& p, const IsaConfig& isa, const std::string& programName) {
  const SourceLocation where{programName, 0, 0};
  if (p.isa_name != isa.params().name || p.isa_hash != isa.hash()) {
    std::ostringstream msg;
    msg << "program was built for ISA '" << p.isa_name << "' (config hash " << std::hex << p.isa_hash
        << ") but the config is '" << isa.params().name << "' (hash " << isa.hash() << "): the "
        << (p.isa_name == isa.params().name ? "config hash differs, so its content changed" : "ISA differs")
        << "; recompile or reassemble it for this config";
    throw Error(where, msg.str());
  }
  if (p.instr_bytes != static_cast<uint32_t>(isa.params().instr_bytes))
    throw Error(where, "instruction size differs from the config's");
  const auto dram = static_cast<uint64_t>(isa.params().dram_size);
  for (const auto& seg : p.data)
    if (seg.dram_addr > dram || seg.bytes.size() > dram - seg.dram_addr)
      throw Error(where, "data segment at " + std::to_string(seg.dram_addr) + " does not fit in DRAM");
  for (const auto& t : p.tensors)
    if (t.dram_addr > dram || static_cast<uint64_t>(t.bytes()) > dram - t.dram_addr)
      throw Error(where, "tensor '" + t.name + "' does not fit in DRAM");
}

}  // namespace systole::isa
