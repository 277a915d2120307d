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

// A precision sweep: the narrow design is cheaper in every cost and less accurate. With accuracy
// measured on every design both are on the front; without it (or with one design unmeasured) the
// wide one is dominated.
TEST(Pareto, MeasuredAccuracyIsAFourthObjective) {
  const DesignObjectives wide{100, 50, 2.2, 0.9999}, narrow{100, 45, 2.0, 0.93};
  EXPECT_EQ(paretoRows({wide, narrow}),
            (std::vector<std::vector<double>>{{100, 50, 2.2, 1 - 0.9999}, {100, 45, 2.0, 1 - 0.93}}));
  EXPECT_EQ(paretoOptimal(paretoRows({wide, narrow})), (std::vector<bool>{true, true}));
  DesignObjectives unmeasured = wide;
  unmeasured.worst_cosine.reset();
  EXPECT_EQ(paretoOptimal(paretoRows({unmeasured, narrow})), (std::vector<bool>{false, true}));
}

}  // namespace
}  // namespace systole::tools
