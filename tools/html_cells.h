// Table cells and numbers as the HTML reports show them.
#pragma once

#include <string>

namespace systole::tools {

/// `v` with `digits` decimals.
std::string fixed(double v, int digits);

/// A table cell; a numeric one is right-aligned (class 'n' in htmlPage's style).
std::string td(const std::string& text, bool numeric = true);

}  // namespace systole::tools
