// Simulation faults on every shipped config: each gives a sim::Fault whose message names the
// instruction's index, its disassembly and the cause ("instruction N (DISASSEMBLY): CAUSE"), and
// after each one the same Simulator object runs a correct program correctly, with the same cycles,
// statistics and trace as before any fault (the SystemC platform recovers).
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "gemm_program.h"
#include "sim_test_util.h"
#include "systole/isa/assembler.h"
#include "systole/isa/builder.h"

namespace systole::testing {
namespace {

using isa::Semantics;

std::string rangeText(int64_t first, int64_t end) {
  return "[" + std::to_string(first) + ", " + std::to_string(end) + ")";
}

/// A fault scenario: a program, the instruction expected to fault (-1: none) and substrings its
/// cause must contain.
struct FaultCase {
  std::string name;
  std::function<void(const isa::IsaConfig&, isa::ProgramBuilder&)> build;
  int64_t instruction;
  std::function<std::vector<std::string>(const isa::Params&)> causes;
  bool poison = false;
};

std::vector<FaultCase> faultCases() {
  std::vector<FaultCase> cases;
  // --- scratchpad rows out of range ---
  cases.push_back({"scratchpad rows out of range (vector_max)",
                   [](const isa::IsaConfig& isa, isa::ProgramBuilder& b) {
                     const auto& p = isa.params();
                     b.emit(Semantics::Nop, {});
                     b.emit(Semantics::VectorMax, {p.spad_rows - 1, 0, 0, 2});
                     b.emit(Semantics::Finish, {});
                   },
                   1,
                   [](const isa::Params& p) {
                     return std::vector<std::string>{"destination rows " + rangeText(p.spad_rows - 1, p.spad_rows + 1) +
                                                     " out of range: the scratchpad has " +
                                                     std::to_string(p.spad_rows) + " rows"};
                   }});
  cases.push_back({"scratchpad rows out of range (dma_load)",
                   [](const isa::IsaConfig& isa, isa::ProgramBuilder& b) {
                     const auto& p = isa.params();
                     b.emit(Semantics::DmaLoad, {0, p.spad_rows - 2, 3, p.spad_row_elems, p.spad_row_elems});
                     b.emit(Semantics::Finish, {});
                   },
                   0,
                   [](const isa::Params& p) {
                     return std::vector<std::string>{rangeText(p.spad_rows - 2, p.spad_rows + 1) + " out of range",
                                                     "the scratchpad has " + std::to_string(p.spad_rows) + " rows"};
                   }});
  // --- accumulator rows out of range ---
  cases.push_back({"accumulator rows out of range (vector_add)",
                   [](const isa::IsaConfig& isa, isa::ProgramBuilder& b) {
                     const auto& p = isa.params();
                     b.emit(Semantics::Nop, {});
                     b.emit(Semantics::Nop, {});
                     b.emit(Semantics::VectorAdd, {0, p.acc_rows - 1, 0, 2});
                     b.emit(Semantics::Finish, {});
                   },
                   2,
                   [](const isa::Params& p) {
                     return std::vector<std::string>{"first source rows " + rangeText(p.acc_rows - 1, p.acc_rows + 1) +
                                                     " out of range: the accumulator has " +
                                                     std::to_string(p.acc_rows) + " rows"};
                   }});
  cases.push_back({"accumulator rows out of range (matmul_tile)",
                   [](const isa::IsaConfig& isa, isa::ProgramBuilder& b) {
                     const auto& p = isa.params();
                     b.emit(Semantics::MatmulTile, {0, p.acc_rows - 1, 2, 0});
                     b.emit(Semantics::Finish, {});
                   },
                   0,
                   [](const isa::Params& p) {
                     return std::vector<std::string>{rangeText(p.acc_rows - 1, p.acc_rows + 1) + " out of range",
                                                     "the accumulator has " + std::to_string(p.acc_rows) + " rows"};
                   }});
  // --- DRAM out of range: the first row fits, the second (one stride on) does not ---
  cases.push_back({"DRAM address out of range (dma_load, second row)",
                   [](const isa::IsaConfig& isa, isa::ProgramBuilder& b) {
                     const auto& p = isa.params();
                     const int64_t E = p.spad_row_elems;
                     b.emit(Semantics::DmaLoad, {p.dram_size - E, 0, 2, E, E});
                     b.emit(Semantics::Finish, {});
                   },
                   0,
                   [](const isa::Params& p) {
                     return std::vector<std::string>{
                         "DRAM access " + rangeText(p.dram_size, p.dram_size + p.spad_row_elems) +
                         " out of range: the DRAM has " + std::to_string(p.dram_size) + " bytes"};
                   }});
  cases.push_back({"DRAM address out of range (dma_store after a token chain)",
                   [](const isa::IsaConfig& isa, isa::ProgramBuilder& b) {
                     const auto& p = isa.params();
                     const int64_t E = p.spad_row_elems;
                     b.emit(Semantics::DmaLoad, {0, 0, 1, E, E}, isa::kPushNext);
                     b.emit(Semantics::Nop, {}, isa::kPopPrev | isa::kPushNext);
                     b.emit(Semantics::DmaStore, {p.dram_size - 2, 0, 1, E, E}, isa::kPopPrev);
                     b.emit(Semantics::Finish, {});
                   },
                   2,
                   [](const isa::Params& p) {
                     return std::vector<std::string>{"DRAM access " +
                                                     rangeText(p.dram_size - 2, p.dram_size - 2 + p.spad_row_elems) +
                                                     " out of range"};
                   }});
  // --- deadlocks: a pop no instruction will ever satisfy ---
  cases.push_back({"deadlock: compute pops a load token never pushed",
                   [](const isa::IsaConfig&, isa::ProgramBuilder& b) {
                     b.emit(Semantics::Nop, {});
                     b.emit(Semantics::Nop, {}, isa::kPopPrev);
                     b.emit(Semantics::Finish, {});
                   },
                   1,
                   [](const isa::Params&) {
                     return std::vector<std::string>{
                         "deadlock: the compute queue waits for a token from the load queue that is never pushed"};
                   }});
  cases.push_back({"deadlock: store pops a compute token never pushed",
                   [](const isa::IsaConfig& isa, isa::ProgramBuilder& b) {
                     const int64_t E = isa.params().spad_row_elems;
                     b.emit(Semantics::DmaLoad, {0, 0, 1, E, E});
                     b.emit(Semantics::DmaStore, {0x1000, 0, 1, E, E}, isa::kPopPrev);
                     b.emit(Semantics::Finish, {});
                   },
                   1,
                   [](const isa::Params&) {
                     return std::vector<std::string>{
                         "deadlock: the store queue waits for a token from the compute queue"};
                   }});
  cases.push_back({"deadlock: load and compute wait for each other",
                   [](const isa::IsaConfig& isa, isa::ProgramBuilder& b) {
                     const int64_t E = isa.params().spad_row_elems;
                     b.emit(Semantics::DmaLoad, {0, 0, 1, E, E}, isa::kPopNext | isa::kPushNext);
                     b.emit(Semantics::Nop, {}, isa::kPopPrev | isa::kPushPrev);
                     b.emit(Semantics::Finish, {});
                   },
                   0,
                   [](const isa::Params&) {
                     return std::vector<std::string>{
                         "deadlock: the load queue waits for a token from the compute queue"};
                   }});
  // --- poison: reads of rows never written ---
  cases.push_back({"poison: requantize of accumulator rows never written",
                   [](const isa::IsaConfig&, isa::ProgramBuilder& b) {
                     b.emit(Semantics::Requantize, {0, 0, 1, 2, 0, -128, 127});
                     b.emit(Semantics::Finish, {});
                   },
                   0,
                   [](const isa::Params&) {
                     return std::vector<std::string>{
                         "source reads accumulator row 0, which was never written (poison mode)"};
                   },
                   true});
  cases.push_back(
      {"poison: weight_preload of a tile one row short",
       [](const isa::IsaConfig& isa, isa::ProgramBuilder& b) {
         const auto& p = isa.params();
         b.emit(Semantics::DmaLoad, {0, 0, p.array_rows - 1, p.spad_row_elems, p.spad_row_elems}, isa::kPushNext);
         b.emit(Semantics::WeightPreload, {0}, isa::kPopPrev);
         b.emit(Semantics::Finish, {});
       },
       1,
       [](const isa::Params& p) {
         return std::vector<std::string>{"weight reads scratchpad row " + std::to_string(p.array_rows - 1) +
                                         ", which was never written (poison mode)"};
       },
       true});
  cases.push_back({"poison: dma_store of scratchpad rows never written",
                   [](const isa::IsaConfig& isa, isa::ProgramBuilder& b) {
                     const int64_t E = isa.params().spad_row_elems;
                     b.emit(Semantics::DmaStore, {0x1000, 5, 2, E, E});
                     b.emit(Semantics::Finish, {});
                   },
                   0,
                   [](const isa::Params&) {
                     return std::vector<std::string>{"reads scratchpad row 5, which was never written (poison mode)"};
                   },
                   true});
  // --- a fault while the other queues are busy: loads streaming, the store waiting for a token ---
  cases.push_back({"fault in a busy pipeline",
                   [](const isa::IsaConfig& isa, isa::ProgramBuilder& b) {
                     const auto& p = isa.params();
                     const int64_t E = p.spad_row_elems;
                     for (int i = 0; i < 5; ++i) b.emit(Semantics::DmaLoad, {0, 0, 40, E, E}, isa::kPushNext);
                     b.emit(Semantics::Nop, {}, isa::kPopPrev);
                     b.emit(Semantics::Nop, {}, isa::kPopPrev);
                     b.emit(Semantics::VectorMax, {0, p.spad_rows - 1, 0, 2});  // index 7
                     b.emit(Semantics::Nop, {}, isa::kPopPrev | isa::kPushNext);
                     b.emit(Semantics::DmaStore, {0x1000, 0, 4, E, E}, isa::kPopPrev);
                     b.emit(Semantics::Finish, {});
                   },
                   7,
                   [](const isa::Params& p) {
                     return std::vector<std::string>{"first source rows " +
                                                     rangeText(p.spad_rows - 1, p.spad_rows + 1)};
                   }});
  // --- a fault while the dispatcher waits for a slot in a full compute queue ---
  cases.push_back({"fault while the dispatcher waits on a full queue",
                   [](const isa::IsaConfig& isa, isa::ProgramBuilder& b) {
                     const auto& p = isa.params();
                     const int64_t E = p.spad_row_elems;
                     b.emit(Semantics::DmaLoad, {p.dram_size - E, 0, 2, E, E}, isa::kPushNext);
                     b.emit(Semantics::Nop, {}, isa::kPopPrev);
                     for (int64_t i = 0; i < p.queue_depth[static_cast<size_t>(isa::Unit::Compute)] + 3; ++i)
                       b.emit(Semantics::Nop, {});
                     b.emit(Semantics::Finish, {});
                   },
                   0,
                   [](const isa::Params& p) {
                     return std::vector<std::string>{"DRAM access " +
                                                     rangeText(p.dram_size, p.dram_size + p.spad_row_elems)};
                   }});
  return cases;
}

class FaultOnConfig : public ::testing::TestWithParam<std::string> {};

/// The correct program run before, between and after faults: a tiled GEMM that uses every queue.
struct GoodRun {
  GemmSpec spec;
  std::vector<int8_t> A, B;
  isa::Program program;
  std::vector<int8_t> want;

  explicit GoodRun(const isa::IsaConfig& isa) {
    const auto& p = isa.params();
    spec = GemmSpec{.M = p.array_rows + 3, .K = 2 * p.array_rows + 1, .N = p.array_cols + 2};
    A = randomInt8(static_cast<size_t>(spec.M * spec.K), 31);
    B = randomInt8(static_cast<size_t>(spec.K * spec.N), 32);
    program = buildGemmProgram(isa, spec, B);
    want = referenceGemm(spec, A, B);
  }
  sim::SimResult run(sim::Simulator& simulator) const {
    sim::SimOptions options;
    options.poison = true;
    options.trace = true;
    return simulator.run(program, {{"A", bytesOf(A)}}, options);
  }
};

TEST_P(FaultOnConfig, EachFaultNamesInstructionAndCauseAndThePlatformRecovers) {
  const auto& isa = shippedConfig(GetParam());
  const auto& p = isa.params();
  sim::Simulator simulator(isa);
  const GoodRun good(isa);
  const auto baseline = good.run(simulator);
  ASSERT_EQ(baseline.outputs.size(), 1u);
  ASSERT_EQ(int8Of(baseline.outputs[0].bytes), good.want);

  for (const FaultCase& c : faultCases()) {
    SCOPED_TRACE(c.name);
    isa::ProgramBuilder b(isa);
    c.build(isa, b);
    const auto& code = b.instructions();
    sim::SimOptions options;
    options.poison = c.poison;
    bool faulted = false;
    try {
      simulator.runDecoded(code, {}, options);
    } catch (const sim::Fault& f) {
      faulted = true;
      ASSERT_EQ(f.instruction(), c.instruction) << f.message();
      const std::string prefix = "instruction " + std::to_string(c.instruction) + " (" +
                                 isa::formatInstruction(isa, code[static_cast<size_t>(c.instruction)]) + "): ";
      EXPECT_EQ(f.message().substr(0, prefix.size()), prefix) << f.message();
      // The disassembly starts with the config's mnemonic.
      EXPECT_NE(f.message().find("(" + isa.instr(code[static_cast<size_t>(c.instruction)].desc).name),
                std::string::npos);
      for (const auto& cause : c.causes(p))
        EXPECT_NE(f.message().find(cause), std::string::npos) << f.message() << "\nwanted: " << cause;
      EXPECT_NE(std::string(f.what()).find(f.message()), std::string::npos);
    }
    EXPECT_TRUE(faulted) << "the program should fault";

    // The same simulator runs the correct program as before: same output, cycles, stats, trace.
    const auto after = good.run(simulator);
    ASSERT_EQ(after.outputs.size(), 1u);
    EXPECT_EQ(int8Of(after.outputs[0].bytes), good.want);
    EXPECT_EQ(after.stats.cycles, baseline.stats.cycles);
    EXPECT_EQ(after.stats.toJson(), baseline.stats.toJson());
    EXPECT_EQ(after.trace_json, baseline.trace_json);
  }
}

// Poison mode is what turns a read of never-written rows into a fault: without it the same
// programs run (reading zeros).
TEST_P(FaultOnConfig, PoisonFaultsOnlyInPoisonMode) {
  const auto& isa = shippedConfig(GetParam());
  sim::Simulator simulator(isa);
  for (const FaultCase& c : faultCases()) {
    if (!c.poison) continue;
    SCOPED_TRACE(c.name);
    isa::ProgramBuilder b(isa);
    c.build(isa, b);
    EXPECT_NO_THROW(simulator.runDecoded(b.instructions(), {}));
  }
}

// A program without a finish instruction would never end; the simulator refuses it up front with
// a fault that names the config's finish mnemonic (no instruction is at fault), both through
// runDecoded and through run, and then runs a correct program.
TEST_P(FaultOnConfig, ProgramWithoutFinishIsRefused) {
  const auto& isa = shippedConfig(GetParam());
  const auto& p = isa.params();
  sim::Simulator simulator(isa);
  const GoodRun good(isa);
  const auto baseline = good.run(simulator);
  const std::string finishName = isa.instr(isa.bySemantics(Semantics::Finish)).name;

  isa::ProgramBuilder b(isa);
  b.emit(Semantics::DmaLoad, {0, 0, 1, p.spad_row_elems, p.spad_row_elems}, isa::kPushNext);
  b.emit(Semantics::Nop, {}, isa::kPopPrev);
  for (int viaRun = 0; viaRun < 2; ++viaRun) {
    SCOPED_TRACE(viaRun ? "run" : "runDecoded");
    try {
      if (viaRun)
        simulator.run(b.build(), {});
      else
        simulator.runDecoded(b.instructions(), {});
      ADD_FAILURE() << "a program without '" << finishName << "' must fault";
    } catch (const sim::Fault& f) {
      EXPECT_EQ(f.instruction(), -1);
      EXPECT_NE(f.message().find("no '" + finishName + "' instruction"), std::string::npos) << f.message();
      EXPECT_NE(f.message().find("never end"), std::string::npos) << f.message();
    }
    const auto after = good.run(simulator);
    ASSERT_EQ(after.outputs.size(), 1u);
    EXPECT_EQ(int8Of(after.outputs[0].bytes), good.want);
    EXPECT_EQ(after.stats.toJson(), baseline.stats.toJson());
  }
}

// A fault ends the run; faults in different Simulator objects on different configs do not
// disturb each other (they share the one SystemC platform).
TEST(FaultAcrossConfigs, FaultOnOneConfigThenCorrectRunOnAnother) {
  const auto& tiny = shippedConfig("tiny");
  const auto& large = shippedConfig("large");
  sim::Simulator tinySim(tiny), largeSim(large);
  const GoodRun goodLarge(large);
  const auto baseline = goodLarge.run(largeSim);
  isa::ProgramBuilder b(tiny);
  b.emit(Semantics::Nop, {}, isa::kPopPrev);
  b.emit(Semantics::Finish, {});
  EXPECT_THROW(tinySim.runDecoded(b.instructions(), {}), sim::Fault);
  const auto after = goodLarge.run(largeSim);
  EXPECT_EQ(int8Of(after.outputs[0].bytes), goodLarge.want);
  EXPECT_EQ(after.stats.toJson(), baseline.stats.toJson());
}

INSTANTIATE_TEST_SUITE_P(ShippedConfigs, FaultOnConfig, ::testing::ValuesIn(shippedConfigs()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace systole::testing
