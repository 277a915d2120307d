// Algorithm: every chart maps data to pixels through one Scale per axis (linear or log10, with
// "nice" ticks: powers of ten on a log axis, 1/2/5 steps on a linear one), then writes plain SVG
// elements; hover text is an SVG <title>, so no script is needed.
#include "svg_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

namespace systole::tools {

std::string escapeXml(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string humanNumber(double value) {
  static const char* const kSuffix[] = {"", " k", " M", " G", " T", " P"};
  double v = std::fabs(value);
  size_t s = 0;
  while (v >= 1000 && s + 1 < std::size(kSuffix)) {
    v /= 1000;
    ++s;
  }
  char buf[32];
  if (s == 0 && v == std::floor(v) && v < 1000)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : "%.3g", v);
  return (value < 0 ? "-" : "") + std::string(buf) + kSuffix[s];
}

std::string seriesColor(size_t series) {
  static const char* const kColors[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00",
                                        "#56B4E9", "#F0E442", "#000000", "#999999"};
  return kColors[series % std::size(kColors)];
}

namespace {

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

/// Data -> pixels on one axis.
struct Scale {
  double lo = 0, hi = 1;    // data range (log10 of it on a log axis)
  double from = 0, to = 1;  // pixel range
  bool log = false;

  static Scale over(std::vector<double> values, bool log, double from, double to) {
    Scale s;
    s.log = log;
    s.from = from;
    s.to = to;
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (double v : values) {
      if (log && v <= 0) continue;
      const double d = log ? std::log10(v) : v;
      lo = std::min(lo, d);
      hi = std::max(hi, d);
    }
    if (!std::isfinite(lo)) lo = 0, hi = 1;
    if (log) {
      lo = std::floor(lo);
      hi = std::max(std::ceil(hi), lo + 1);
    } else {
      if (lo > 0 && lo < hi / 2) lo = 0;  // a range that starts near zero starts at zero
      if (hi == lo) hi = lo + 1;
      const double pad = (hi - lo) * 0.05;
      if (lo != 0) lo -= pad;
      hi += pad;
    }
    s.lo = lo;
    s.hi = hi;
    return s;
  }

  double operator()(double v) const {
    const double d = log ? std::log10(v) : v;
    return from + (d - lo) / (hi - lo) * (to - from);
  }

  std::vector<double> ticks() const {
    std::vector<double> out;
    if (log) {
      for (double e = lo; e <= hi + 1e-9; e += 1) out.push_back(std::pow(10, e));
      return out;
    }
    const double raw = (hi - lo) / 6, mag = std::pow(10, std::floor(std::log10(raw)));
    const double step = raw / mag < 2 ? 2 * mag : raw / mag < 5 ? 5 * mag : 10 * mag;
    for (double t = std::ceil(lo / step) * step; t <= hi + 1e-9 * step; t += step) out.push_back(t);
    return out;
  }
};

/// Legend entries left to right from (x, y), wrapping before `maxX`; `lines` is how many rows it took.
std::string legend(const std::vector<std::pair<std::string, std::string>>& entries, double x, double y, double maxX,
                   int& lines) {
  std::ostringstream o;
  const double x0 = x;
  lines = entries.empty() ? 0 : 1;
  for (const auto& [name, color] : entries) {
    const double w = 24 + 6.5 * static_cast<double>(name.size());
    if (x > x0 && x + w > maxX) x = x0, y += 15, ++lines;
    o << "<rect x='" << fmt(x) << "' y='" << fmt(y - 9) << "' width='10' height='10' fill='" << color << "'/>"
      << "<text x='" << fmt(x + 14) << "' y='" << fmt(y) << "' font-size='11'>" << escapeXml(name) << "</text>";
    x += w;
  }
  return o.str();
}

/// How many legend rows `entries` need between x and maxX (the same wrapping as legend()).
int legendLines(const std::vector<std::pair<std::string, std::string>>& entries, double x, double maxX) {
  int lines = 0;
  legend(entries, x, 0, maxX, lines);
  return lines;
}

}  // namespace

std::string scatterSvg(const ScatterChart& c) {
  std::vector<std::pair<std::string, std::string>> entries;
  for (size_t s = 0; s < c.series.size(); ++s) entries.emplace_back(c.series[s], seriesColor(s));
  for (const auto& l : c.lines) entries.emplace_back(l.name, "#444");
  const double left = 70, right = c.width - 20.0, top = 30 + 15.0 * legendLines(entries, left, right),
               bottom = c.height - 50.0;
  std::vector<double> xs, ys;
  size_t hidden = 0;
  for (const auto& p : c.points) {
    if ((c.log_x && p.x <= 0) || (c.log_y && p.y <= 0)) {
      ++hidden;
      continue;
    }
    xs.push_back(p.x);
    ys.push_back(p.y);
  }
  const Scale sx = Scale::over(xs, c.log_x, left, right);
  std::vector<double> lineYs = ys;
  for (const auto& l : c.lines)
    for (const auto& [x, y] : l.points)
      if (x >= (c.log_x ? std::pow(10, sx.lo) : sx.lo) && x <= (c.log_x ? std::pow(10, sx.hi) : sx.hi))
        lineYs.push_back(y);
  const Scale sy = Scale::over(lineYs, c.log_y, bottom, top);
  std::ostringstream o;
  o << "<svg class='chart scatter' xmlns='http://www.w3.org/2000/svg' width='" << c.width << "' height='" << c.height
    << "' font-family='sans-serif'><title>" << escapeXml(c.title) << "</title>";
  o << "<text x='" << fmt(left) << "' y='18' font-size='14' font-weight='bold'>" << escapeXml(c.title) << "</text>";
  o << "<rect x='" << fmt(left) << "' y='" << fmt(top) << "' width='" << fmt(right - left) << "' height='"
    << fmt(bottom - top) << "' fill='none' stroke='#888'/>";
  for (double t : sx.ticks()) {
    const double x = sx(t);
    o << "<line x1='" << fmt(x) << "' x2='" << fmt(x) << "' y1='" << fmt(top) << "' y2='" << fmt(bottom)
      << "' stroke='#eee'/>"
      << "<text x='" << fmt(x) << "' y='" << fmt(bottom + 15) << "' font-size='11' text-anchor='middle'>"
      << humanNumber(t) << "</text>";
  }
  for (double t : sy.ticks()) {
    const double y = sy(t);
    o << "<line x1='" << fmt(left) << "' x2='" << fmt(right) << "' y1='" << fmt(y) << "' y2='" << fmt(y)
      << "' stroke='#eee'/>"
      << "<text x='" << fmt(left - 5) << "' y='" << fmt(y + 4) << "' font-size='11' text-anchor='end'>"
      << humanNumber(t) << "</text>";
  }
  o << "<text x='" << fmt((left + right) / 2) << "' y='" << fmt(bottom + 35) << "' font-size='12' text-anchor='middle'>"
    << escapeXml(c.x_label) << "</text>";
  o << "<text transform='translate(16," << fmt((top + bottom) / 2)
    << ") rotate(-90)' font-size='12' text-anchor='middle'>" << escapeXml(c.y_label) << "</text>";
  o << "<svg x='" << fmt(left) << "' y='" << fmt(top) << "' width='" << fmt(right - left) << "' height='"
    << fmt(bottom - top) << "' viewBox='" << fmt(left) << " " << fmt(top) << " " << fmt(right - left) << " "
    << fmt(bottom - top) << "'>";
  for (size_t i = 0; i < c.lines.size(); ++i) {
    const auto& l = c.lines[i];
    o << "<polyline class='line' fill='none' stroke='#444' stroke-width='1.5'"
      << (l.dashed ? " stroke-dasharray='5,4'" : "") << " points='";
    for (const auto& [x, y] : l.points)
      if ((!c.log_x || x > 0) && (!c.log_y || y > 0)) o << fmt(sx(x)) << "," << fmt(sy(y)) << " ";
    o << "'><title>" << escapeXml(l.name) << "</title></polyline>";
  }
  for (const auto& p : c.points) {
    if ((c.log_x && p.x <= 0) || (c.log_y && p.y <= 0)) continue;
    o << "<circle class='point' cx='" << fmt(sx(p.x)) << "' cy='" << fmt(sy(p.y)) << "' r='" << (p.emphasised ? 6 : 4)
      << "' fill='" << seriesColor(p.series) << "' fill-opacity='0.8'"
      << (p.emphasised ? " stroke='#000' stroke-width='1.5'" : "") << "><title>" << escapeXml(p.tooltip)
      << "</title></circle>";
    if (!p.label.empty())
      o << "<text x='" << fmt(sx(p.x) + 7) << "' y='" << fmt(sy(p.y) - 5) << "' font-size='10'>" << escapeXml(p.label)
        << "</text>";
  }
  o << "</svg>";
  int lines = 0;
  o << legend(entries, left, 34, right, lines);
  if (hidden)
    o << "<text x='" << fmt(right) << "' y='" << fmt(c.height - 4.0) << "' font-size='10' text-anchor='end'>" << hidden
      << " point(s) with a zero coordinate not shown on the log axis</text>";
  o << "</svg>";
  return o.str();
}

std::string stackedBarsSvg(const StackedBars& c) {
  std::vector<std::pair<std::string, std::string>> entries;
  for (size_t s = 0; s < c.series.size(); ++s) entries.emplace_back(c.series[s], seriesColor(s));
  const double labelWidth = 230, left = labelWidth + 10, right = c.width - 70.0;
  const double top = 34 + 15.0 * legendLines(entries, 10, c.width - 10.0);
  const double rowH = c.row_height, height = top + rowH * static_cast<double>(c.rows.size()) + 40;
  double maxTotal = 0;
  for (const auto& r : c.rows) {
    double total = 0;
    for (double v : r.values) total += std::max(v, 0.0);
    maxTotal = std::max(maxTotal, total);
  }
  const Scale sx = Scale::over({0.0, maxTotal}, false, left, right);
  std::ostringstream o;
  o << "<svg class='chart bars' xmlns='http://www.w3.org/2000/svg' width='" << c.width << "' height='" << fmt(height)
    << "' font-family='sans-serif'><title>" << escapeXml(c.title) << "</title>";
  o << "<text x='10' y='18' font-size='14' font-weight='bold'>" << escapeXml(c.title) << "</text>";
  int lines = 0;
  o << legend(entries, 10, 36, c.width - 10.0, lines);
  const double bottom = top + rowH * static_cast<double>(c.rows.size());
  for (double t : sx.ticks()) {
    if (t < 0) continue;
    o << "<line x1='" << fmt(sx(t)) << "' x2='" << fmt(sx(t)) << "' y1='" << fmt(top) << "' y2='" << fmt(bottom)
      << "' stroke='#eee'/>"
      << "<text x='" << fmt(sx(t)) << "' y='" << fmt(bottom + 14) << "' font-size='10' text-anchor='middle'>"
      << humanNumber(t) << "</text>";
  }
  o << "<text x='" << fmt((left + right) / 2) << "' y='" << fmt(bottom + 30) << "' font-size='12' text-anchor='middle'>"
    << escapeXml(c.value_label) << "</text>";
  for (size_t i = 0; i < c.rows.size(); ++i) {
    const auto& r = c.rows[i];
    const double y = top + rowH * static_cast<double>(i);
    std::string label = r.label.size() > 36 ? r.label.substr(0, 35) + "…" : r.label;
    o << "<text x='" << fmt(labelWidth) << "' y='" << fmt(y + rowH - 3) << "' font-size='"
      << fmt(std::min(11.0, rowH - 2)) << "' text-anchor='end'>" << escapeXml(label) << "<title>" << escapeXml(r.label)
      << "</title></text>";
    double x = 0, total = 0;
    for (size_t s = 0; s < r.values.size(); ++s) {
      const double v = std::max(r.values[s], 0.0);
      total += v;
      if (v == 0) continue;
      o << "<rect class='segment' x='" << fmt(sx(x)) << "' y='" << fmt(y + 1) << "' width='" << fmt(sx(x + v) - sx(x))
        << "' height='" << fmt(rowH - 2) << "' fill='" << seriesColor(s) << "'><title>" << escapeXml(r.label) << ": "
        << escapeXml(s < c.series.size() ? c.series[s] : "") << " " << humanNumber(v) << " " << escapeXml(c.value_label)
        << (r.tooltip.empty() ? "" : "\n" + escapeXml(r.tooltip)) << "</title></rect>";
      x += v;
    }
    o << "<text x='" << fmt(sx(total) + 4) << "' y='" << fmt(y + rowH - 3) << "' font-size='"
      << fmt(std::min(10.0, rowH - 3)) << "'>" << humanNumber(total) << "</text>";
  }
  o << "</svg>";
  return o.str();
}

}  // namespace systole::tools
