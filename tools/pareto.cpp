// Algorithm: the plain pairwise dominance test, O(n^2 d): sweeps have hundreds to thousands of
// points, where this takes milliseconds and is obviously right.
#include "pareto.h"

#include <cstddef>

namespace systole::tools {

namespace {

bool dominates(const std::vector<double>& a, const std::vector<double>& b) {
  bool better = false;
  for (size_t k = 0; k < a.size(); ++k) {
    if (a[k] > b[k]) return false;
    if (a[k] < b[k]) better = true;
  }
  return better;
}

}  // namespace

std::vector<bool> paretoOptimal(const std::vector<std::vector<double>>& points) {
  std::vector<bool> optimal(points.size(), true);
  for (size_t i = 0; i < points.size(); ++i)
    for (size_t j = 0; j < points.size() && optimal[i]; ++j)
      if (j != i && dominates(points[j], points[i])) optimal[i] = false;
  return optimal;
}

std::vector<std::vector<double>> paretoRows(const std::vector<DesignObjectives>& designs) {
  bool accuracy = !designs.empty();
  for (const auto& d : designs) accuracy = accuracy && d.worst_cosine.has_value();
  std::vector<std::vector<double>> rows;
  for (const auto& d : designs) {
    rows.push_back({d.cycles, d.energy_pj, d.area_mm2});
    if (accuracy) rows.back().push_back(1 - *d.worst_cosine);
  }
  return rows;
}

}  // namespace systole::tools
