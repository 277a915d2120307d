// A program for one ISA config: code, DRAM data segments (weights, constants) and the tensor table.
// On disk it is a .sbin container, specified byte by byte in docs/sbin-format.md.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "systole/isa/config.h"

namespace systole::isa {

enum class DType : uint8_t { Int8 = 1, Int32 = 2, Float32 = 3, Uint8 = 4, Int16 = 5 };
/// Every DType, in the order of their codes.
inline constexpr DType kDTypes[] = {DType::Int8, DType::Int32, DType::Float32, DType::Uint8, DType::Int16};
std::string_view dtypeName(DType t);
std::optional<DType> dtypeByName(std::string_view name);
int dtypeBytes(DType t);

enum class TensorKind : uint8_t { Input = 1, Output = 2, Constant = 3, Intermediate = 4 };
std::string_view tensorKindName(TensorKind k);
std::optional<TensorKind> tensorKindByName(std::string_view name);

struct TensorInfo {
  std::string name;
  TensorKind kind = TensorKind::Input;
  DType dtype = DType::Int8;
  std::vector<int64_t> shape;
  uint64_t dram_addr = 0;
  float scale = 1.0f;  // real = scale * (q - zero_point)
  int32_t zero_point = 0;

  int64_t elements() const;
  int64_t bytes() const { return elements() * dtypeBytes(dtype); }
  bool operator==(const TensorInfo&) const = default;
};

struct DataSegment {
  uint64_t dram_addr = 0;
  std::vector<uint8_t> bytes;
  bool operator==(const DataSegment&) const = default;
};

struct Program {
  std::string isa_name;
  uint64_t isa_hash = 0;
  uint32_t instr_bytes = 0;
  std::vector<uint8_t> code;  // instr_bytes per instruction
  std::vector<DataSegment> data;
  std::vector<TensorInfo> tensors;

  size_t instructionCount() const { return instr_bytes ? code.size() / instr_bytes : 0; }
  bool operator==(const Program&) const = default;
};

inline constexpr uint32_t kSbinVersion = 1;
/// A whole compiled model: every NPU program plus the compiler's description of the host steps.
inline constexpr uint32_t kModelSbinVersion = 2;
/// The largest tensor dimension a container (and a .npy file) holds.
inline constexpr int64_t kMaxDimension = int64_t{1} << 32;
/// Bytes that identify a container: the magic and the version (what sbinVersion reads).
inline constexpr size_t kSbinHeaderBytes = 12;

struct ModelContainer {
  std::vector<Program> programs;
  std::vector<uint8_t> model;  // opaque here: written and read by the compiler (systole/compiler/artifact.h)
};

/// The container version of a .sbin's bytes (after checking its magic).
uint32_t sbinVersion(std::span<const uint8_t> bytes, const std::string& name);
std::vector<uint8_t> serializeModelSbin(const ModelContainer& model);
/// The same from programs held elsewhere (no copy of their code and data).
std::vector<uint8_t> serializeModelSbin(const std::vector<const Program*>& programs, const std::vector<uint8_t>& model);
/// Writes that container to `path` atomically, one program image at a time (a big model's
/// weights are never held twice in memory).
void writeModelSbin(const std::string& path, const std::vector<const Program*>& programs,
                    const std::vector<uint8_t>& model);
/// Parses a version-2 container; every program inside is a complete version-1 image, checked as
/// deserializeSbin checks one.
ModelContainer deserializeModelSbin(const std::vector<uint8_t>& bytes, const std::string& name);

std::vector<uint8_t> serializeSbin(const Program& program);
/// Parses a container; `name` is used in error messages. Throws Error on truncation, corruption,
/// a bad magic or an unsupported version. A program inside a model container whose checksum
/// already covered it is parsed with verifyChecksum false (its bytes are hashed once, not twice).
Program deserializeSbin(std::span<const uint8_t> bytes, const std::string& name, bool verifyChecksum = true);

/// Writes atomically (temporary file, then rename), so a failure leaves nothing half-written.
void writeSbin(const std::string& path, const Program& program);
Program readSbin(const std::string& path);

/// Throws Error if the program was not built for `isa` (name or content hash differ), or if its
/// tensors and data do not fit the DRAM.
void checkProgramMatches(const Program& program, const IsaConfig& isa, const std::string& programName);

}  // namespace systole::isa
