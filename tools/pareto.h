// Pareto optimality over objectives to minimise (a sweep's cycles, energy, area and, when it was
// measured, accuracy).
#pragma once

#include <optional>
#include <vector>

namespace systole::tools {

/// For each point, whether it is Pareto-optimal: no other point is at least as good in every
/// objective and strictly better in one. Points are rows of equal length; equal points are all
/// optimal or all not.
std::vector<bool> paretoOptimal(const std::vector<std::vector<double>>& points);

/// What a sweep's design costs over its models, and how faithful it is.
struct DesignObjectives {
  double cycles = 0, energy_pj = 0, area_mm2 = 0;
  std::optional<double> worst_cosine;  // over its models' outputs, when every run measured it
};

/// The rows paretoOptimal compares: cycles, energy, area, and 1 - worst cosine when every design
/// measured it. Accuracy is then a fourth objective (a precision sweep's narrow designs are not on
/// the front for free); without it on every design it is left out.
std::vector<std::vector<double>> paretoRows(const std::vector<DesignObjectives>& designs);

}  // namespace systole::tools
