// Pareto optimality over objectives to minimise (a sweep's cycles, energy and area).
#pragma once

#include <vector>

namespace systole::tools {

/// For each point, whether it is Pareto-optimal: no other point is at least as good in every
/// objective and strictly better in one. Points are rows of equal length; equal points are all
/// optimal or all not.
std::vector<bool> paretoOptimal(const std::vector<std::vector<double>>& points);

}  // namespace systole::tools
