// The simulator's decode cache (simulator/src/decode_cache.h) serves a program's decoding again
// only for the same code bytes, keeps the most recently used ones and does not keep failures.
#include <gtest/gtest.h>

#include "decode_cache.h"
#include "systole/isa/assembler.h"
#include "../isa/test_util.h"

namespace systole::sim {
namespace {

TEST(DecodeCache, ServesTheSameBytesOnceDecodedAndNeverStaleOnes) {
  const isa::IsaConfig isa = test::loadConfig("default");
  const auto one = isa::assemble(isa, "nop\nfinish\n", "one.s").code;
  auto two = isa::assemble(isa, "nop\nnop\nfinish\n", "two.s").code;
  DecodeCache cache;
  const auto* first = &cache.decode(isa, one);
  EXPECT_EQ(first->instructions, isa::decodeAll(isa, one));
  EXPECT_EQ(&cache.decode(isa, one), first);  // a hit: the same decoding, not decoded again
  EXPECT_EQ(cache.decode(isa, two).instructions, isa::decodeAll(isa, two));
  EXPECT_EQ(&cache.decode(isa, one), first);  // still kept beside the other program
  const std::vector<uint8_t> copy = one;      // equal bytes in another buffer are the same program
  EXPECT_EQ(&cache.decode(isa, copy), first);
  two.back() ^= 1;  // an edited program is decoded afresh (here: it no longer decodes)
  EXPECT_THROW(cache.decode(isa, two), Error);
}

TEST(DecodeCache, EvaluatesEachInstructionsTimingOnce) {
  const isa::IsaConfig isa = test::loadConfig("default");
  const auto code = isa::assemble(isa, "gemm a_row=0, acc_row=0, m=7, accumulate=0\nnop\nfinish\n", "t.s").code;
  DecodeCache cache;
  const PreparedProgram& p = cache.decode(isa, code);
  ASSERT_EQ(p.timing.size(), p.instructions.size());
  EXPECT_TRUE(p.has_finish);
  for (size_t i = 0; i < p.instructions.size(); ++i) {
    EXPECT_TRUE(p.timing[i].known);
    EXPECT_EQ(p.timing[i].cycles, static_cast<uint64_t>(isa::timingCycles(isa, p.instructions[i])));
    EXPECT_EQ(p.timing[i].occupancy, static_cast<uint64_t>(isa::occupancyCycles(isa, p.instructions[i])));
  }
  EXPECT_FALSE(prepareProgram(isa, {p.instructions[0]}).has_finish);
}

TEST(DecodeCache, KeepsTheMostRecentAndNoFailures) {
  const isa::IsaConfig isa = test::loadConfig("default");
  DecodeCache cache;
  std::vector<std::vector<uint8_t>> programs;
  std::string text;
  for (size_t i = 0; i <= DecodeCache::kEntries; ++i) {
    text = "nop\n" + text;
    programs.push_back(isa::assemble(isa, text + "finish\n", "p.s").code);
    cache.decode(isa, programs.back());
  }
  const auto* newest = &cache.decode(isa, programs.back());
  EXPECT_EQ(cache.decode(isa, programs.front()).instructions,
            isa::decodeAll(isa, programs.front()));  // dropped, decoded again
  EXPECT_EQ(&cache.decode(isa, programs.back()), newest);
  std::vector<uint8_t> broken = programs.front();
  broken.push_back(0);  // a partial instruction
  EXPECT_THROW(cache.decode(isa, broken), Error);
  EXPECT_THROW(cache.decode(isa, broken), Error);
}

}  // namespace
}  // namespace systole::sim
