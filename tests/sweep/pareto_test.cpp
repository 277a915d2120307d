#include "pareto.h"

#include <gtest/gtest.h>

namespace systole::tools {
namespace {

TEST(Pareto, KeepsOnlyTheUndominated) {
  // (cycles, energy, area): b is dominated by a in all three; c trades cycles for energy; d ties a.
  const std::vector<std::vector<double>> points = {{10, 5, 2}, {11, 6, 2}, {20, 1, 2}, {10, 5, 2}, {9, 9, 9}};
  EXPECT_EQ(paretoOptimal(points), (std::vector<bool>{true, false, true, true, true}));
}

TEST(Pareto, OneBetterObjectiveIsEnough) {
  EXPECT_EQ(paretoOptimal({{1, 1, 1}, {1, 1, 2}}), (std::vector<bool>{true, false}));
  EXPECT_EQ(paretoOptimal({{1, 2, 1}, {2, 1, 1}}), (std::vector<bool>{true, true}));
  EXPECT_TRUE(paretoOptimal({}).empty());
}

}  // namespace
}  // namespace systole::tools
