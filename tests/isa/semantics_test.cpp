// operandRowSpace against the rows each compute instruction actually touches (computeAccesses), for
// every instruction of every shipped config, and against the operands' names.
#include <gtest/gtest.h>

#include <string>

#include "systole/isa/pipeline.h"
#include "systole/isa/semantics.h"
#include "test_util.h"

namespace systole::isa {
namespace {

std::optional<RowRange::Memory> memoryOf(RowSpace s) {
  if (s == RowSpace::Scratchpad) return RowRange::Memory::Scratchpad;
  if (s == RowSpace::Accumulator) return RowRange::Memory::Accumulator;
  return std::nullopt;
}

/// The memories in which some row range the instruction reads or writes starts at `row`.
std::vector<RowRange::Memory> rangesStartingAt(const ComputeAccesses& a, int64_t row) {
  std::vector<RowRange::Memory> found;
  for (int i = 0; i < a.num_reads; ++i)
    if (a.reads[static_cast<size_t>(i)].lo == row) found.push_back(a.reads[static_cast<size_t>(i)].memory);
  if (a.writes_rows && a.write.lo == row) found.push_back(a.write.memory);
  return found;
}

TEST(OperandRowSpace, NamesTheMemoryTheComputeInstructionsAccess) {
  constexpr int64_t kMarked = 1000;  // the probed operand; every other operand is 1
  int probed = 0;
  for (const std::string& name : test::shippedConfigNames()) {
    const IsaConfig isa = test::loadConfig(name);
    const Params& p = isa.params();
    for (int i = 0; i < static_cast<int>(isa.instructions().size()); ++i) {
      const InstrDesc& d = isa.instr(i);
      if (semanticsInfo(d.semantics).unit != Unit::Compute) continue;
      for (int k = 0; k < semanticsInfo(d.semantics).operandCount(); ++k) {
        Instruction in;
        in.desc = i;
        for (int j = 0; j < semanticsInfo(d.semantics).operandCount(); ++j)
          in.fields[static_cast<size_t>(d.operand_field[static_cast<size_t>(j)])] = j == k ? kMarked : 1;
        const auto found = rangesStartingAt(computeAccesses(p, d, in), kMarked);
        const auto expected = memoryOf(operandRowSpace(d.semantics, k));
        SCOPED_TRACE(name + ": " + d.name + " operand " + std::to_string(k));
        if (expected) {
          ASSERT_FALSE(found.empty());
          for (RowRange::Memory m : found) EXPECT_EQ(m, *expected);
        } else {
          EXPECT_TRUE(found.empty());
        }
        ++probed;
      }
    }
  }
  EXPECT_GT(probed, 40);
}

TEST(OperandRowSpace, IsSetForTheRowOperandsOnly) {
  for (const SemanticsInfo& info : allSemantics())
    for (int k = 0; k < info.operandCount(); ++k) {
      const std::string_view operand = info.operands[static_cast<size_t>(k)];
      EXPECT_EQ(operandRowSpace(info.semantics, k) != RowSpace::None, operand.ends_with("_row"))
          << info.name << " operand " << operand;
    }
  EXPECT_EQ(operandRowSpace(Semantics::DmaLoad, 1), RowSpace::Scratchpad);
  EXPECT_EQ(operandRowSpace(Semantics::DmaStoreAcc, 1), RowSpace::Accumulator);
  EXPECT_EQ(operandRowSpace(Semantics::Requantize, 7), RowSpace::None);  // past the operands
  EXPECT_EQ(operandRowSpace(Semantics::Requantize, -1), RowSpace::None);
}

}  // namespace
}  // namespace systole::isa
