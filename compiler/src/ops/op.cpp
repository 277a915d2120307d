#include "systole/compiler/op.h"

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

namespace systole::compiler {

namespace {

constexpr std::string_view kNames[] = {"",
#define SYSTOLE_OP_NAME(name) #name,
                                       SYSTOLE_OPERATORS(SYSTOLE_OP_NAME)
#undef SYSTOLE_OP_NAME
};

/// The kinds sorted by name, for a binary search.
const std::vector<std::pair<std::string_view, Op>>& byName() {
  static const auto table = [] {
    std::vector<std::pair<std::string_view, Op>> t;
    for (size_t i = 1; i < std::size(kNames); ++i) t.emplace_back(kNames[i], static_cast<Op>(i));
    std::sort(t.begin(), t.end());
    return t;
  }();
  return table;
}

}  // namespace

std::string_view opName(Op op) {
  const auto i = static_cast<size_t>(op);
  return i < std::size(kNames) ? kNames[i] : std::string_view();
}

Op opFromName(std::string_view name) {
  const auto& t = byName();
  auto it = std::lower_bound(t.begin(), t.end(), name, [](const auto& e, std::string_view n) { return e.first < n; });
  return it != t.end() && it->first == name ? it->second : Op::Unknown;
}

}  // namespace systole::compiler
