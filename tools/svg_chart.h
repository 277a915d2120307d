// Inline SVG charts for the HTML reports (`systole report`, `systole sweep`): a scatter plot on
// linear or logarithmic axes with optional line overlays (rooflines, Pareto fronts), and
// horizontal stacked bars (where a layer's cycles or energy went). Plain SVG text, no script and
// no network, so a report is one self-contained file that any browser renders.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace systole::tools {

/// `text` with &, <, >, " and ' escaped for HTML and SVG text and attributes.
std::string escapeXml(std::string_view text);

/// 1234567 -> "1.23 M", 0.5 -> "0.5": three significant digits and an SI suffix.
std::string humanNumber(double value);

/// A colour per series, the same order everywhere (colour-blind safe, from Okabe and Ito).
std::string seriesColor(size_t series);

struct ScatterPoint {
  double x = 0, y = 0;
  size_t series = 0;        // colour (seriesColor) and legend entry
  std::string tooltip;      // shown on hover (an SVG <title>)
  std::string label;        // drawn beside the point; empty: none
  bool emphasised = false;  // drawn larger, with an outline
};

struct ScatterLine {
  std::vector<std::pair<double, double>> points;  // in data coordinates, drawn in order
  std::string name;                               // in the legend
  bool dashed = false;
};

struct ScatterChart {
  std::string title, x_label, y_label;
  bool log_x = false, log_y = false;
  std::vector<std::string> series;  // legend names, by ScatterPoint::series
  std::vector<ScatterPoint> points;
  std::vector<ScatterLine> lines;
  int width = 720, height = 420;
};

/// The chart as an <svg> element; points with a non-positive coordinate on a log axis are left out
/// (and counted in the caption under the plot).
std::string scatterSvg(const ScatterChart& chart);

struct BarRow {
  std::string label, tooltip;  // the tooltip adds to the row's segments' own
  std::vector<double> values;  // one per series, stacked left to right; negative ones count as 0
};

struct StackedBars {
  std::string title, value_label;   // value_label: the unit on the axis ("cycles", "pJ")
  std::vector<std::string> series;  // legend names, one per BarRow::values entry
  std::vector<BarRow> rows;
  int width = 900, row_height = 14;
};

/// Horizontal stacked bars, one row per BarRow, all on one linear scale.
std::string stackedBarsSvg(const StackedBars& chart);

}  // namespace systole::tools
