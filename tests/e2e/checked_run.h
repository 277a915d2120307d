// Runs a compiled program on the simulator with --check semantics (outputs compared with the
// reference interpreter, a mismatch fails the test) and returns the simulated cycles.
#pragma once

#include <gtest/gtest.h>

#include "systole/compiler/backend.h"
#include "systole/runtime/session.h"

namespace systole::testing {

inline uint64_t simulateChecked(const isa::IsaConfig& isa, compiler::CompiledProgram compiled,
                                const compiler::Graph& g) {
  runtime::Session session(isa, std::move(compiled), g);
  runtime::RunOptions options;
  options.check = true;
  options.races = true;  // every program's cross-queue accesses ordered by tokens, whatever the timing
  const auto result = session.run(runtime::randomInputs(g, 3), options);
  EXPECT_FALSE(result.mismatch) << result.mismatch->describe();
  return result.sim.stats.cycles;
}

}  // namespace systole::testing
