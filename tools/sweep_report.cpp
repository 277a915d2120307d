// Algorithm: one pass over the runs' files fills each point's summaries and its per-layer chart
// fragment; the Pareto front is taken over the complete points' (cycles, energy, area); the CSV
// has one row per (point, model) and the page a table per point, two scatter plots (cycles
// against energy and against area, the front emphasised) and a collapsible section per design.
#include "sweep_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "pareto.h"
#include "report_page.h"
#include "svg_chart.h"
#include "sweep_runner.h"
#include "systole/isa/file_io.h"
#include "systole/runtime/stats_report.h"

namespace systole::tools {

namespace {

RunSummary summarise(const nlohmann::ordered_json& d) {
  const auto num = [&](const nlohmann::ordered_json& j, const char* a, const char* b = nullptr) {
    const nlohmann::ordered_json* v = j.contains(a) ? &j[a] : nullptr;
    if (v && b) v = v->is_object() && v->contains(b) ? &(*v)[b] : nullptr;
    return v && v->is_number() ? v->get<double>() : 0.0;
  };
  RunSummary s;
  s.total_cycles = num(d, "total_cycles");
  s.npu_cycles = num(d, "cycles");
  s.time_us = d.value("clock_mhz", 0.0) > 0 ? s.total_cycles / d.value("clock_mhz", 0.0) : 0;
  s.energy_pj = num(d, "energy", "total_pj");
  s.area_mm2 = num(d, "area", "total_mm2");
  s.mac_utilization = num(d["totals"], "mac_utilization");
  s.cycles_per_bound = num(d["totals"], "roofline", "cycles_per_bound");
  s.dram_bytes = num(d, "dma", "bytes_read") + num(d, "dma", "bytes_written");
  const auto& acc = d["accuracy"];
  if (acc.is_object() && acc.value("measured", false) && acc["outputs"].is_array() && !acc["outputs"].empty()) {
    double worst = 1;
    for (const auto& o : acc["outputs"])
      if (o.contains("cosine")) worst = std::min(worst, num(o, "cosine"));  // absent for one element
    s.cosine = worst;
  }
  return s;
}

std::string pointName(const SweepPoint& p) {
  char id[16];
  std::snprintf(id, sizeof id, "p%06zu", p.id);
  return id;
}

std::string settings(const SweepPoint& p) {
  std::string out;
  for (const auto& [k, v] : p.overrides) out += (out.empty() ? "" : ", ") + k + "=" + v;
  return out;
}

/// A ratio or an area: six significant digits.
std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

/// A count (cycles, bytes, pJ), in full.
std::string whole(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

/// A complete point's objectives: its worst cosine only when every model's run measured one.
DesignObjectives objectivesOf(const PointResult& r) {
  DesignObjectives d{r.cycles, r.energy_pj, r.area_mm2, std::nullopt};
  for (const auto& run : r.runs) {
    if (!run->cosine) return {r.cycles, r.energy_pj, r.area_mm2, std::nullopt};
    d.worst_cosine = std::min(d.worst_cosine.value_or(1.0), *run->cosine);
  }
  return d;
}

}  // namespace

std::vector<PointResult> collectSweep(const SweepSpec& spec, const std::string& dir) {
  std::vector<PointResult> results;
  for (size_t p = 0; p < spec.points.size(); ++p) {
    PointResult r;
    r.point = &spec.points[p];
    r.complete = true;
    for (size_t m = 0; m < spec.models.size(); ++m) {
      const RunFiles f = runFiles(spec, dir, p * spec.models.size() + m);
      r.runs.emplace_back();
      r.failures.emplace_back();
      if (std::filesystem::exists(f.stats)) {
        const StatsRun run = readStatsRun(f.stats);
        r.runs.back() = summarise(run.doc);
        r.cycles += r.runs.back()->total_cycles;
        r.energy_pj += r.runs.back()->energy_pj;
        r.area_mm2 = r.runs.back()->area_mm2;
        r.detail_html += "<h4>" + escapeXml(spec.models[m].name) + "</h4>" +
                         runBreakdownHtml(StatsRun{spec.models[m].name + " at " + pointName(*r.point), run.doc});
      } else {
        r.complete = false;
        if (std::filesystem::exists(f.failed)) r.failures.back() = readTextFile(f.failed);
      }
    }
    results.push_back(std::move(r));
  }
  std::vector<DesignObjectives> designs;
  std::vector<size_t> complete;
  for (size_t i = 0; i < results.size(); ++i)
    if (results[i].complete) designs.push_back(objectivesOf(results[i])), complete.push_back(i);
  const auto front = paretoOptimal(paretoRows(designs));
  for (size_t i = 0; i < complete.size(); ++i) results[complete[i]].pareto = front[i];
  return results;
}

std::string sweepCsv(const SweepSpec& spec, const std::vector<PointResult>& results) {
  std::ostringstream o;
  o << "point";
  for (const auto& d : spec.dimensions) o << "," << runtime::csvField(d);
  o << ",model,status,total_cycles,npu_cycles,time_us,energy_pj,area_mm2,mac_utilization,cycles_per_bound,dram_bytes,"
       "cosine,pareto\n";
  for (const auto& r : results)
    for (size_t m = 0; m < spec.models.size(); ++m) {
      o << r.point->id;
      for (const auto& v : r.point->values) o << "," << runtime::csvField(v);
      o << "," << runtime::csvField(spec.models[m].name);
      if (const auto& s = r.runs[m]) {
        o << ",ok," << whole(s->total_cycles) << "," << whole(s->npu_cycles) << "," << number(s->time_us) << ","
          << whole(s->energy_pj) << "," << number(s->area_mm2) << "," << number(s->mac_utilization) << ","
          << number(s->cycles_per_bound) << "," << whole(s->dram_bytes) << "," << (s->cosine ? number(*s->cosine) : "");
      } else {
        o << "," << (r.failures[m].empty() ? "pending" : "failed") << ",,,,,,,,,";
      }
      o << "," << (r.pareto ? 1 : 0) << "\n";
    }
  return o.str();
}

std::string sweepHtml(const SweepSpec& spec, const std::vector<PointResult>& results) {
  size_t complete = 0, failed = 0, pending = 0, front = 0;
  for (const auto& r : results) {
    complete += r.complete;
    front += r.pareto;
    for (size_t m = 0; m < spec.models.size(); ++m)
      if (!r.runs[m]) (r.failures[m].empty() ? pending : failed) += 1;
  }
  std::ostringstream o;
  o << "<p>Spec <code>" << escapeXml(spec.file) << "</code>: config <b>" << escapeXml(spec.isa) << "</b>, "
    << spec.points.size() << " design point(s) of a " << spec.grid_size << "-point grid over ";
  for (size_t d = 0; d < spec.dimensions.size(); ++d)
    o << (d ? ", " : "") << "<code>" << escapeXml(spec.dimensions[d]) << "</code>";
  o << "; models ";
  for (size_t m = 0; m < spec.models.size(); ++m) o << (m ? ", " : "") << escapeXml(spec.models[m].name);
  o << ". " << complete << " point(s) complete, " << failed << " run(s) failed, " << pending << " pending; " << front
    << " on the Pareto front (the models' total cycles, their total energy and the chip's area, all minimised).</p>";
  ScatterChart ce, ca;
  ce.title = "Cycles against energy (all models)";
  ce.x_label = "total cycles";
  ce.y_label = "energy (pJ)";
  ca.title = "Cycles against area";
  ca.x_label = "total cycles";
  ca.y_label = "area (mm²)";
  ce.series = ca.series = {"Pareto-optimal design", "dominated design"};
  for (const auto& r : results) {
    if (!r.complete) continue;
    const std::string tip = pointName(*r.point) + ": " + settings(*r.point) + "\n" + humanNumber(r.cycles) +
                            " cycles, " + humanNumber(r.energy_pj) + " pJ, " + humanNumber(r.area_mm2) + " mm²";
    ScatterPoint p{r.cycles, r.energy_pj, r.pareto ? 0u : 1u, tip, r.pareto ? pointName(*r.point) : "", r.pareto};
    ce.points.push_back(p);
    p.y = r.area_mm2;
    ca.points.push_back(p);
  }
  for (auto* chart : {&ce, &ca})
    std::stable_sort(chart->points.begin(), chart->points.end(),
                     [](const ScatterPoint& a, const ScatterPoint& b) { return a.emphasised < b.emphasised; });
  o << "<h2>Pareto front</h2>" << scatterSvg(ce) << scatterSvg(ca);
  o << "<h2>Design points</h2><table><tr><th>point</th>";
  for (const auto& d : spec.dimensions) o << "<th>" << escapeXml(d) << "</th>";
  for (const auto& m : spec.models) o << "<th>" << escapeXml(m.name) << " cycles</th>";
  o << "<th>total cycles</th><th>energy (pJ)</th><th>area (mm²)</th><th>Pareto</th></tr>";
  for (const auto& r : results) {
    o << "<tr" << (r.pareto ? " class='pareto'" : "") << "><td><a href='#" << pointName(*r.point) << "'>"
      << pointName(*r.point) << "</a></td>";
    for (const auto& v : r.point->values) o << "<td>" << escapeXml(v) << "</td>";
    for (size_t m = 0; m < spec.models.size(); ++m)
      o << "<td class='n'>"
        << (r.runs[m]               ? humanNumber(r.runs[m]->total_cycles)
            : r.failures[m].empty() ? "pending"
                                    : "failed")
        << "</td>";
    o << "<td class='n'>" << (r.complete ? humanNumber(r.cycles) : "") << "</td><td class='n'>"
      << (r.complete ? humanNumber(r.energy_pj) : "") << "</td><td class='n'>" << (r.complete ? number(r.area_mm2) : "")
      << "</td><td>" << (r.pareto ? "yes" : "") << "</td></tr>";
  }
  o << "</table><h2>Per design: where the cycles and energy went, per layer</h2>";
  for (const auto& r : results) {
    o << "<details id='" << pointName(*r.point) << "'" << (r.pareto ? " open" : "") << "><summary><b>"
      << pointName(*r.point) << "</b> " << escapeXml(settings(*r.point)) << (r.pareto ? " (Pareto-optimal)" : "")
      << "</summary>" << r.detail_html;
    for (size_t m = 0; m < spec.models.size(); ++m)
      if (!r.failures[m].empty())
        o << "<p><b>" << escapeXml(spec.models[m].name) << " failed:</b></p><pre>" << escapeXml(r.failures[m])
          << "</pre>";
    o << "</details>";
  }
  return o.str();
}

}  // namespace systole::tools
