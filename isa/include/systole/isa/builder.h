// Building programs by semantics class rather than by mnemonic, so code that generates programs
// (the compiler's codegen, tests, benchmarks) works on every config: the builder picks the
// config's instruction for each class and places operands by the class's operand order.
#pragma once

#include <initializer_list>
#include <span>
#include <vector>

#include "systole/isa/encoding.h"
#include "systole/isa/program.h"

namespace systole::isa {

class ProgramBuilder {
 public:
  explicit ProgramBuilder(const IsaConfig& isa) : isa_(isa) {}

  /// Appends the config's instruction for `s` with `operands` in the class's operand order
  /// (see semantics.h). Throws Error if the config has no such instruction or an operand does not
  /// fit its field.
  Instruction& emit(Semantics s, std::span<const int64_t> operands, uint8_t tokens = 0);
  Instruction& emit(Semantics s, std::initializer_list<int64_t> operands, uint8_t tokens = 0) {
    return emit(s, std::span<const int64_t>(operands.begin(), operands.size()), tokens);
  }
  const IsaConfig& isa() const { return isa_; }
  bool has(Semantics s) const { return isa_.bySemantics(s) >= 0; }

  void addTensor(TensorInfo t) { tensors_.push_back(std::move(t)); }
  void addData(uint64_t dram_addr, std::vector<uint8_t> bytes) { data_.push_back({dram_addr, std::move(bytes)}); }

  /// Room for `count` instructions in all (a big program's code grows without copies).
  void reserve(size_t count) { code_.reserve(count); }
  /// The instructions emitted since the last flush() (all of them if it was never called).
  const std::vector<Instruction>& instructions() const { return code_; }
  std::vector<Instruction>& instructions() { return code_; }
  /// How many instructions were emitted in all, flushed or not.
  size_t count() const { return flushed_ + code_.size(); }
  /// Encodes the instructions emitted so far and drops their decoded form (about 100 bytes each
  /// against a few encoded): a generator of a big program flushes as it goes. `encodedBytes`
  /// reserves room for the whole program's encoding on the first call.
  void flush(size_t encodedBytes = 0);
  const std::vector<DataSegment>& data() const { return data_; }

  /// The encoded program with its tensor table and data.
  Program build() const&;
  /// The same, moving the data segments out instead of copying them (a model's weights).
  Program build() &&;

 private:
  const IsaConfig& isa_;
  std::vector<Instruction> code_;
  std::vector<uint8_t> encoded_;  // the flushed instructions
  size_t flushed_ = 0;
  std::vector<DataSegment> data_;
  std::vector<TensorInfo> tensors_;
};

}  // namespace systole::isa
