#include "systole/isa/builder.h"

namespace systole::isa {

Instruction& ProgramBuilder::emit(Semantics s, std::span<const int64_t> operands, uint8_t tokens) {
  const int index = isa_.bySemantics(s);
  const SemanticsInfo& info = semanticsInfo(s);
  if (index < 0)
    throw Error("ISA '" + isa_.params().name + "' has no instruction with semantics '" + std::string(info.name) + "'");
  const InstrDesc& d = isa_.instr(index);
  if (static_cast<int>(operands.size()) != info.operandCount())
    throw Error(std::string(info.name) + " takes " + std::to_string(info.operandCount()) + " operands");
  Instruction in;
  in.desc = index;
  in.tokens = tokens;
  int k = 0;
  for (int64_t v : operands) {
    const auto field = static_cast<size_t>(d.operand_field[static_cast<size_t>(k++)]);
    if (auto msg = checkFieldValue(d.fields[field], v); !msg.empty()) throw Error(d.name + ": " + msg);
    in.fields[field] = v;
  }
  if (auto msg = checkTokens(d, tokens); !msg.empty()) throw Error(d.name + ": " + msg);
  code_.push_back(in);
  return code_.back();
}

void ProgramBuilder::flush(size_t encodedBytes) {
  if (encoded_.capacity() < encodedBytes) encoded_.reserve(encodedBytes);
  const std::vector<uint8_t> code = encodeAll(isa_, code_);
  encoded_.insert(encoded_.end(), code.begin(), code.end());
  flushed_ += code_.size();
  std::vector<Instruction>().swap(code_);
}

Program ProgramBuilder::build() const& { return ProgramBuilder(*this).build(); }

Program ProgramBuilder::build() && {
  Program p;
  p.isa_name = isa_.params().name;
  p.isa_hash = isa_.hash();
  p.instr_bytes = static_cast<uint32_t>(isa_.params().instr_bytes);
  flush();
  p.code = std::move(encoded_);
  p.data = std::move(data_);
  p.tensors = std::move(tensors_);
  return p;
}

}  // namespace systole::isa
