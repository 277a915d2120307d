// The back end's passes, each alone on a hand-built tile plan: the DRAM allocator, memory
// planning's slot and tile alternation and address resolution, and scheduling's tokens.
#include <gtest/gtest.h>

#include <algorithm>

#include "backend/backend_passes.h"
#include "backend/dram_allocator.h"
#include "systole/isa/diagnostic.h"

namespace systole::compiler {
namespace {

/// The row or address memory planning gave an operand (fails the test if it gave none).
int64_t resolvedRow(const Operand& o) {
  EXPECT_TRUE(o.is_resolved);
  return o.row;
}

using isa::Semantics;

const isa::IsaConfig& tinyConfig() {
  static const isa::IsaConfig config = isa::IsaConfig::load(std::string(SYSTOLE_SOURCE_DIR) + "/isa/configs/tiny.yaml");
  return config;
}

TEST(DramAllocator, FirstFitAlignedWithReuseAndPeak) {
  DramAllocator a(1024, 1024 + 512);
  const uint64_t x = a.allocate(10), y = a.allocate(100), z = a.allocate(64);
  EXPECT_EQ(x, 1024u);
  EXPECT_EQ(y, 1024u + 64);  // 64-byte aligned sizes
  EXPECT_EQ(z, 1024u + 192);
  a.release(y);
  EXPECT_EQ(a.allocate(64), 1024u + 64);  // first fit into the freed region
  a.release(x);
  a.release(1024 + 64);
  EXPECT_EQ(a.allocate(192), 1024u);  // freed neighbours coalesce
  EXPECT_EQ(a.peak(), 256u);
  EXPECT_THROW(a.allocate(1024), Error);
}

/// A step with one load into its load slot, one compute, and (if `out`) an output slot stored.
PlanStep step(bool out, Operand acc = {}) {
  PlanStep s;
  s.loads.push_back({Semantics::DmaLoad, {Operand(Space::Buffer, 7, 16), Operand(Space::LoadSlot, 0, 3), 1, 4, 4}});
  s.computes.push_back({Semantics::VectorWiden, {Operand(Space::LoadSlot, 0, 0), acc, 1, 0, 1}});
  if (out) {
    s.computes.push_back({Semantics::Requantize, {acc, Operand(Space::OutSlot, 0, 0), 1, 0, 0, -128, 127}});
    s.writes_output = true;
    s.stores.push_back({Semantics::DmaStore, {Operand(Space::Buffer, 8, 0), Operand(Space::OutSlot, 0, 0), 1, 4, 4}});
  }
  return s;
}

PlanStep barrier() {
  PlanStep b;
  b.barrier = true;
  return b;
}

TilePlan twoLayerPlan() {
  TilePlan plan;
  plan.layout = {.chunk = 10, .slot_rows = 40, .acc_half = 20, .scale_base = 40, .scale_rows = 4};
  plan.buffers[7] = {.id = 7, .N = 1, .H = 1, .W = 4, .C = 4};
  plan.buffers[8] = {.id = 8, .N = 1, .H = 1, .W = 4, .C = 4};
  plan.input_buffers = {7};
  plan.constants = {std::vector<uint8_t>(10, 1)};
  plan.constant_names = {"c"};
  LayerPlan a;
  a.name = a.op = "A";
  a.writes = 8;
  a.reads = {7};
  a.steps = {step(true, Operand(Space::AccTile, 0, 0)), step(true, Operand(Space::AccTile, 1, 0)),
             step(true, Operand(Space::AccTile, 0, 2)), barrier()};
  a.acc_tiles = 2;
  LayerPlan b;
  b.name = b.op = "B";
  b.writes = 8;
  b.reads = {8};
  b.steps = {step(true, Operand(Space::AccTile, 0, 0)), barrier()};
  b.acc_tiles = 1;
  plan.layers = {a, b};
  return plan;
}

TEST(PlanMemory, AlternatesSlotsAndTilesAndResolvesAddresses) {
  TilePlan plan = twoLayerPlan();
  planMemory(tinyConfig(), plan);
  EXPECT_EQ(plan.constant_addr, std::vector<uint64_t>{0});
  EXPECT_EQ(plan.constant_bytes, 64u);
  const uint64_t base = static_cast<uint64_t>(tinyConfig().params().dram_size) / 2;
  EXPECT_EQ(plan.buffer_addr.at(7), base);
  EXPECT_EQ(plan.buffer_addr.at(8), base + 64);
  const auto& s = plan.layers[0].steps;
  EXPECT_EQ(resolvedRow(s[0].loads[0].operands[0]), static_cast<int64_t>(base) + 16);
  EXPECT_EQ(resolvedRow(s[0].loads[0].operands[1]), 3);       // load slot 0
  EXPECT_EQ(resolvedRow(s[1].loads[0].operands[1]), 40 + 3);  // load slot 1
  EXPECT_EQ(resolvedRow(s[2].loads[0].operands[1]), 3);
  EXPECT_EQ(resolvedRow(s[0].stores[0].operands[1]), 80);    // output slot 0: after both load slots
  EXPECT_EQ(resolvedRow(s[1].stores[0].operands[1]), 90);    // output slot 1
  EXPECT_EQ(resolvedRow(s[0].computes[0].operands[1]), 0);   // tile 0: half 0
  EXPECT_EQ(resolvedRow(s[1].computes[0].operands[1]), 20);  // tile 1: half 1
  EXPECT_EQ(resolvedRow(s[2].computes[0].operands[1]), 2);   // tile 0 again, row 2
  // Layer B's tile 0 is the program's third tile: half 0.
  EXPECT_EQ(resolvedRow(plan.layers[1].steps[0].computes[0].operands[1]), 0);
}

TEST(PlanMemory, ConstantsLargerThanHalfTheDramMoveTheActivations) {
  TilePlan plan = twoLayerPlan();
  const auto dram = static_cast<size_t>(tinyConfig().params().dram_size);
  plan.constants = {std::vector<uint8_t>(dram / 2 + 100, 0)};
  planMemory(tinyConfig(), plan);
  EXPECT_EQ(plan.activation_base % 4096, 0u);
  EXPECT_GE(plan.activation_base, plan.constant_bytes);
  plan.constants = {std::vector<uint8_t>(dram, 0)};
  EXPECT_THROW(planMemory(tinyConfig(), plan), Error);
}

uint8_t tokens(const PlanInstr& in) { return in.tokens; }

TEST(Schedule, DoubleBufferingTokensAndBarriers) {
  TilePlan plan = twoLayerPlan();
  planMemory(tinyConfig(), plan);
  schedulePlan(plan);
  const auto& s = plan.layers[0].steps;
  // Step 0: the load fills slot 0 and says so; the computes wait for it, release the slot and
  // hand the output slot to the store queue, which releases it after storing.
  EXPECT_EQ(tokens(s[0].loads[0]), isa::kPushNext);
  EXPECT_EQ(tokens(s[0].computes[0]), isa::kPopPrev);
  EXPECT_EQ(tokens(s[0].computes[1]), isa::kPushPrev | isa::kPushNext);
  EXPECT_EQ(tokens(s[0].stores[0]), isa::kPopPrev | isa::kPushPrev);
  // Step 2 reuses slot 0 and output slot 0: it waits for their releases.
  EXPECT_EQ(tokens(s[2].loads[0]), isa::kPopNext | isa::kPushNext);
  EXPECT_EQ(tokens(s[2].computes[0]), isa::kPopPrev | isa::kPopNext);
  // The barrier withholds the two releases no load consumed (steps 1 and 2), drains the stores
  // and releases both slots itself.
  EXPECT_EQ(tokens(s[1].computes[1]), isa::kPushNext);
  EXPECT_EQ(tokens(s[2].computes[1]), isa::kPushNext);
  ASSERT_EQ(s[3].sync.size(), 4u);
  EXPECT_EQ(tokens(s[3].sync[0]), isa::kPopNext);
  EXPECT_EQ(tokens(s[3].sync[1]), isa::kPopNext);
  EXPECT_EQ(tokens(s[3].sync[2]), isa::kPushPrev);
  // Layer B's load consumes that release; the other one (sync[3]) is still unconsumed at B's
  // barrier, which withholds it in turn, with B's own release.
  EXPECT_EQ(tokens(plan.layers[1].steps[0].loads[0]), isa::kPopNext | isa::kPushNext);
  EXPECT_EQ(tokens(s[3].sync[3]), 0);
  EXPECT_EQ(tokens(plan.layers[1].steps[0].computes[1]), isa::kPushNext);
  ASSERT_FALSE(plan.epilogue.empty());
  EXPECT_EQ(plan.epilogue.back().semantics, Semantics::Finish);
}

/// Layer A of `twoLayerPlan` with `n` steps and four load slots; the steps listed in `acc` also
/// load their accumulation tile (a bias) after their slot load, as the matmul tiler does.
TilePlan fourSlotPlan(int n, const std::vector<int>& acc) {
  TilePlan plan = twoLayerPlan();
  plan.layout.load_slots = 4;
  auto& steps = plan.layers[0].steps;
  steps.clear();
  for (int i = 0; i < n; ++i) {
    steps.push_back(step(true, Operand(Space::AccTile, i % 2, 0)));
    if (std::find(acc.begin(), acc.end(), i) != acc.end())
      steps.back().loads.insert(steps.back().loads.begin(), PlanInstr{Semantics::DmaLoadAcc,
                                                                      {Operand(Space::Constant, 0, 0),
                                                                       Operand(Space::AccTile, i % 2, 0), 1, 16, 0}});
  }
  steps.push_back(barrier());
  return plan;
}

TEST(PlanMemory, StepsTakeTheLoadSlotsInTurn) {
  TilePlan plan = fourSlotPlan(5, {});
  planMemory(tinyConfig(), plan);
  const auto& s = plan.layers[0].steps;
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(resolvedRow(s[static_cast<size_t>(i)].loads[0].operands[1]), 40 * (i % 4) + 3) << "step " << i;
  EXPECT_EQ(resolvedRow(s[0].stores[0].operands[1]), 160);  // output slot 0: after the four load slots
}

TEST(Schedule, FourLoadSlotsKeepFourStepsInFlight) {
  TilePlan plan = fourSlotPlan(6, {});
  planMemory(tinyConfig(), plan);
  schedulePlan(plan);
  const auto& s = plan.layers[0].steps;
  for (int i = 0; i < 4; ++i) EXPECT_EQ(tokens(s[static_cast<size_t>(i)].loads[0]), isa::kPushNext) << "step " << i;
  // Step 4 reuses step 0's slot, step 5 step 1's: each waits for one release.
  EXPECT_EQ(tokens(s[4].loads[0]), isa::kPopNext | isa::kPushNext);
  EXPECT_EQ(tokens(s[5].loads[0]), isa::kPopNext | isa::kPushNext);
  // The barrier withholds the four releases no load consumed and releases the four slots itself
  // (layer B's barrier later withholds the three of these that B's one step left unconsumed).
  EXPECT_EQ(tokens(s[5].computes[1]), isa::kPushNext);
  int releases = 0;
  for (const auto& in : s[6].sync) releases += in.tokens != isa::kPopNext;
  EXPECT_EQ(releases, 4);
  EXPECT_EQ(tokens(s[6].sync.back()), 0);
}

TEST(Schedule, AccumulatorLoadsWaitForTheStepTwoBefore) {
  // Steps 0-3 take the four slots; step 4 loads its accumulation tile, which step 2 used, so it
  // pops the releases of steps 0, 1 and 2 (not step 3's). Its accumulator load goes last; the
  // slot load and the accumulator load carry two of the pops, an empty transfer the third.
  TilePlan plan = fourSlotPlan(5, {4});
  planMemory(tinyConfig(), plan);
  schedulePlan(plan);
  const auto& loads = plan.layers[0].steps[4].loads;
  ASSERT_EQ(loads.size(), 3u);
  EXPECT_EQ(loads[0].semantics, Semantics::DmaLoad);
  EXPECT_EQ(loads[0].operands[2].value(), 0);  // rows = 0
  EXPECT_EQ(tokens(loads[0]), isa::kPopNext);
  EXPECT_EQ(loads[1].operands[2].value(), 1);  // the slot load
  EXPECT_EQ(tokens(loads[1]), isa::kPopNext);
  EXPECT_EQ(loads[2].semantics, Semantics::DmaLoadAcc);
  EXPECT_EQ(tokens(loads[2]), isa::kPopNext | isa::kPushNext);
}

TEST(Schedule, EveryLoadSlotReleaseIsConsumedOnce) {
  TilePlan plan = fourSlotPlan(11, {0, 3, 4, 9});
  planMemory(tinyConfig(), plan);
  schedulePlan(plan);
  // Walking the program, the load queue never pops a release the compute queue has not pushed
  // by then (in program order, pushes of earlier steps and barriers only), and at the end the
  // pushes and pops balance: the releases no load consumed are withheld (the simulator faults on
  // a token never popped).
  int released = 0;
  for (const auto& layer : plan.layers)
    for (const auto& s : layer.steps) {
      for (const auto& in : s.loads) released -= (in.tokens & isa::kPopNext) != 0;
      EXPECT_GE(released, 0);
      for (const auto& in : s.computes) released += (in.tokens & isa::kPushPrev) != 0;
      for (const auto& in : s.sync) released += (in.tokens & isa::kPushPrev) != 0;
    }
  EXPECT_EQ(released, 0);
}

TEST(Schedule, EveryStoreTokenIsConsumed) {
  TilePlan plan = twoLayerPlan();
  planMemory(tinyConfig(), plan);
  schedulePlan(plan);
  int computeToStore = 0, storeToCompute = 0;
  auto count = [&](const PlanInstr& in, bool storeQueue) {
    if (storeQueue)
      computeToStore -= (in.tokens & isa::kPopPrev) != 0, storeToCompute += (in.tokens & isa::kPushPrev) != 0;
    else
      computeToStore += (in.tokens & isa::kPushNext) != 0, storeToCompute -= (in.tokens & isa::kPopNext) != 0;
  };
  for (const auto& layer : plan.layers)
    for (const auto& s : layer.steps) {
      for (const auto& in : s.computes) count(in, false);
      for (const auto& in : s.sync) count(in, false);
      for (const auto& in : s.stores) count(in, true);
    }
  for (const auto& in : plan.epilogue) count(in, false);
  EXPECT_EQ(computeToStore, 0);
  EXPECT_EQ(storeToCompute, 0);
}

}  // namespace
}  // namespace systole::compiler
