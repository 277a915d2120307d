// Algorithm: pick an instruction of the config uniformly (not finish), then each field by its role
// (named as in semantics.cpp): a first row in the lower half of its range, a count of at most 8,
// a DRAM address on a 64-byte boundary below 1 MiB, any value for a signed field; then token
// flags: a push to each neighbour with probability 1/3, a pop from a neighbour whenever it has
// sent more tokens than were popped, with probability 1/2.
#include "random_program.h"

#include <algorithm>
#include <array>
#include <random>
#include <string_view>

namespace systole::testing {

namespace {

using isa::Semantics;
using isa::Unit;

int64_t fieldValue(const isa::FieldDesc& f, std::mt19937& rng) {
  auto in = [&](int64_t lo, int64_t hi) {
    hi = std::max(lo, std::min(hi, f.limit()));
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  const std::string_view name = f.name;
  if (f.is_signed) return in(f.minValue(), f.maxValue());
  if (name == "dram_addr") return std::min(in(0, (int64_t{1} << 20) / 64 - 1) * 64, f.limit() / 64 * 64);
  if (name.ends_with("_row")) return in(0, f.limit() / 2);
  if (name.ends_with("stride") && name != "stride") return in(0, 64);
  if (name == "accumulate") return in(0, 1);
  if (name == "kh" || name == "kw" || name == "stride") return in(1, 2);
  if (name == "pitch") return in(2, 8);
  return in(0, 8);  // rows, m, bytes, k_slices, runs, shift, op, ...
}

}  // namespace

std::vector<isa::Instruction> randomProgram(const isa::IsaConfig& isa, int count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<int> choices;
  for (int d = 0; d < static_cast<int>(isa.instructions().size()); ++d)
    if (isa.instr(d).semantics != Semantics::Finish) choices.push_back(d);
  std::array<std::array<int, isa::kNumUnits>, isa::kNumUnits> sent{};  // [from][to], not yet popped
  auto coin = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng) == 0; };
  std::vector<isa::Instruction> program;
  auto withTokens = [&](isa::Instruction in, bool random) {
    const int u = static_cast<int>(isa.instr(in.desc).unit);
    if (u > 0 && sent[u - 1][u] > 0 && (!random || coin(2))) --sent[u - 1][u], in.tokens |= isa::kPopPrev;
    if (u < 2 && sent[u + 1][u] > 0 && (!random || coin(2))) --sent[u + 1][u], in.tokens |= isa::kPopNext;
    if (random && u > 0 && coin(3)) ++sent[u][u - 1], in.tokens |= isa::kPushPrev;
    if (random && u < 2 && coin(3)) ++sent[u][u + 1], in.tokens |= isa::kPushNext;
    program.push_back(in);
  };
  for (int i = 0; i < count; ++i) {
    isa::Instruction in;
    in.desc = choices[std::uniform_int_distribution<size_t>(0, choices.size() - 1)(rng)];
    const isa::InstrDesc& d = isa.instr(in.desc);
    for (size_t f = 0; f < d.fields.size(); ++f) in.fields[f] = fieldValue(d.fields[f], rng);
    withTokens(in, true);
  }
  // Drain: each unit pops what it was sent, with an instruction that moves nothing.
  for (int u = 0; u < isa::kNumUnits; ++u) {
    for (int d : choices) {
      const isa::InstrDesc& desc = isa.instr(d);
      const bool empty = desc.semantics == Semantics::Nop || desc.unit != Unit::Compute;  // with every field 0
      if (static_cast<int>(desc.unit) != u || !empty) continue;
      while ((u > 0 && sent[u - 1][u] > 0) || (u < 2 && sent[u + 1][u] > 0)) withTokens({.desc = d}, false);
      break;
    }
  }
  program.push_back({.desc = isa.bySemantics(Semantics::Finish)});
  return program;
}

}  // namespace systole::testing
