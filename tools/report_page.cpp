// Algorithm: each section reads the stats document's fields by name (docs/stats.md) and turns
// them into an svg_chart chart or an HTML table. A layer's cycles are partitioned for its bar:
// the array's and the vector unit's busy cycles (scaled down together if overlapping layers make
// them exceed the layer's share), then the compute queue's stalls by cause (token = waiting for a
// load or a free buffer, hazard, bank conflict; scaled to fit the idle rest), then what is left.
#include "report_page.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "html_cells.h"
#include "json_file.h"
#include "svg_chart.h"
#include "systole/isa/diagnostic.h"
#include "systole/sim/energy.h"

namespace systole::tools {

namespace {

using Json = nlohmann::ordered_json;

double num(const Json& j, std::initializer_list<const char*> path) {
  const Json* v = &j;
  for (const char* key : path) {
    if (!v->is_object() || !v->contains(key)) return 0;
    v = &(*v)[key];
  }
  return v->is_number() ? v->get<double>() : 0;
}

std::string str(const Json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

std::string percent(double ratio) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100 * ratio);
  return buf;
}

const char* const kEnergyParts[] = {"mac", "scratchpad", "accumulator", "dram", "vector", "leakage"};
const char* const kUnits[] = {"load_dma", "array", "vector", "store_dma"};

/// The layer's cycles, partitioned for its bar (see the file comment).
std::vector<double> cycleParts(const Json& layer) {
  if (str(layer, "runs_on") == "host") return {0, 0, 0, 0, 0, 0, num(layer, {"host_cycles"})};
  const double cycles = num(layer, {"npu_cycles"});
  double array = num(layer, {"units", "array", "busy_cycles"}), vector = num(layer, {"units", "vector", "busy_cycles"});
  if (array + vector > cycles && array + vector > 0) {
    const double f = cycles / (array + vector);
    array *= f, vector *= f;
  }
  const double idle = std::max(0.0, cycles - array - vector);
  double token = num(layer, {"stall_cycles", "compute", "token"}),
         hazard = num(layer, {"stall_cycles", "compute", "hazard"}),
         bank = num(layer, {"stall_cycles", "compute", "bank_conflict"});
  if (token + hazard + bank > idle) {
    const double f = idle / (token + hazard + bank);
    token *= f, hazard *= f, bank *= f;
  }
  return {array, vector, token, hazard, bank, std::max(0.0, idle - token - hazard - bank), 0};
}

const std::vector<std::string> kCycleSeries = {"array busy",
                                               "vector busy",
                                               "compute waits: token (data or buffer)",
                                               "compute waits: hazard",
                                               "compute waits: bank conflict",
                                               "other",
                                               "host"};

std::string layerLabel(const Json& l) { return str(l, "name") + " (" + str(l, "op") + ")"; }

std::string rooflineSvg(const StatsRun& run) {
  const Json& d = run.doc;
  const double pes = num(d, {"array_pes"}), bandwidth = num(d, {"config", "parameters", "dram.bytes_per_cycle"});
  ScatterChart c;
  c.title = "Roofline: " + run.label;
  c.x_label = "operational intensity (model MACs per DRAM byte moved)";
  c.y_label = "MACs per cycle";
  c.log_x = c.log_y = true;
  c.series = {"compute-bound layer", "memory-bound layer"};
  double lo = 1e300, hi = 0;
  for (const auto& l : d["layers"]) {
    if (str(l, "runs_on") != "npu") continue;
    const double macs = num(l, {"macs"}), cycles = num(l, {"npu_cycles"});
    const double bytes = num(l, {"dram", "bytes_read"}) + num(l, {"dram", "bytes_written"});
    if (macs <= 0 || cycles <= 0 || bytes <= 0) continue;
    ScatterPoint p;
    p.x = macs / bytes;
    p.y = macs / cycles;
    p.series = str(l["roofline"], "bound") == "memory" ? 1 : 0;
    p.tooltip = layerLabel(l) + "\n" + humanNumber(macs) + " MACs, " + humanNumber(cycles) + " cycles, " +
                humanNumber(bytes) + " DRAM bytes\n" + fixed(num(l, {"roofline", "cycles_per_bound"}), 2) +
                "x its bound (" + str(l["roofline"], "bound") + ")";
    c.points.push_back(p);
    lo = std::min(lo, p.x), hi = std::max(hi, p.x);
  }
  if (c.points.empty()) return "<p>No NPU layer with MACs and DRAM traffic: no roofline to draw.</p>";
  if (pes > 0 && bandwidth > 0) {
    ScatterLine roof;
    roof.name = "roof: min(" + humanNumber(pes) + " PEs, " + humanNumber(bandwidth) + " B/cycle x intensity)";
    const double knee = pes / bandwidth, a = std::min(lo, knee) / 2, b = std::max(hi, knee) * 2;
    roof.points = {{a, std::min(pes, bandwidth * a)}, {knee, pes}, {b, pes}};
    if (knee <= a) roof.points.erase(roof.points.begin() + 1);
    c.lines.push_back(roof);
  }
  return scatterSvg(c);
}

std::string cycleBarsSvg(const StatsRun& run) {
  StackedBars c;
  c.title = "Where the cycles went, per layer: " + run.label;
  c.value_label = "cycles";
  c.series = kCycleSeries;
  for (const auto& l : run.doc["layers"]) {
    BarRow r{layerLabel(l), "", cycleParts(l)};
    if (str(l, "runs_on") == "npu") {
      r.tooltip = "cycles " + humanNumber(num(l, {"npu_cycles"})) + ", predicted " +
                  humanNumber(num(l, {"predicted_cycles"})) + ", bound " +
                  humanNumber(num(l, {"roofline", "bound_cycles"})) + "\nload DMA busy " +
                  percent(num(l, {"units", "load_dma", "utilization"})) + ", store DMA busy " +
                  percent(num(l, {"units", "store_dma", "utilization"}));
    }
    c.rows.push_back(std::move(r));
  }
  return stackedBarsSvg(c);
}

std::string dmaBarsSvg(const StatsRun& run) {
  StackedBars c;
  c.title = "DMA per layer: " + run.label;
  c.value_label = "cycles";
  c.series = {"load DMA busy", "store DMA busy", "waits for the DRAM channel (load + store)"};
  for (const auto& l : run.doc["layers"]) {
    if (str(l, "runs_on") != "npu") continue;
    c.rows.push_back(
        {layerLabel(l),
         humanNumber(num(l, {"dram", "bytes_read"})) + " B read, " + humanNumber(num(l, {"dram", "bytes_written"})) +
             " B written",
         {num(l, {"units", "load_dma", "busy_cycles"}), num(l, {"units", "store_dma", "busy_cycles"}),
          num(l, {"stall_cycles", "load", "dram_bandwidth"}) + num(l, {"stall_cycles", "store", "dram_bandwidth"})}});
  }
  return stackedBarsSvg(c);
}

std::vector<double> energyParts(const Json& energy) {
  std::vector<double> v;
  for (const char* part : kEnergyParts) v.push_back(num(energy, {(std::string(part) + "_pj").c_str()}));
  return v;
}

std::string energyBarsSvg(const StatsRun& run) {
  StackedBars c;
  c.title = "Energy per layer: " + run.label;
  c.value_label = "pJ";
  c.series.assign(std::begin(kEnergyParts), std::end(kEnergyParts));
  for (const auto& l : run.doc["layers"])
    if (l.contains("energy") && l["energy"].is_object())
      c.rows.push_back({layerLabel(l), "", energyParts(l["energy"])});
  return stackedBarsSvg(c);
}

std::string energyBreakdownHtml(const StatsRun& run) {
  const Json& e = run.doc["totals"]["energy"];
  if (!e.is_object()) return "<p>No energy figures in this document.</p>";
  StackedBars c;
  c.title = "Energy, whole model: " + sim::formatEnergy(num(e, {"total_pj"}));
  c.value_label = "pJ";
  c.series.assign(std::begin(kEnergyParts), std::end(kEnergyParts));
  c.row_height = 22;
  c.rows.push_back({"NPU total", "", energyParts(e)});
  std::ostringstream o;
  o << stackedBarsSvg(c) << "<table><tr><th>component</th><th>energy</th><th>share</th></tr>";
  const double total = num(e, {"total_pj"});
  for (const char* part : kEnergyParts) {
    const double v = num(e, {(std::string(part) + "_pj").c_str()});
    o << "<tr>" << td(part, false) << td(sim::formatEnergy(v)) << td(percent(total > 0 ? v / total : 0)) << "</tr>";
  }
  o << "</table><p class='note'>Host operators and host&lt;-&gt;NPU transfers are not in the energy (not modelled; "
       "docs/stats.md#energy).</p>";
  return o.str();
}

std::string configHtml(const Json& d) {
  const Json& config = d["config"];
  if (!config.is_object()) return "<p>This document has no config section (written by an older systole).</p>";
  std::ostringstream o;
  o << "<p><b>" << escapeXml(str(config, "name")) << "</b>: " << escapeXml(str(config, "description")) << "; "
    << escapeXml(str(config, "dataflow")) << ", " << num(d, {"clock_mhz"}) << " MHz, area "
    << fixed(num(d, {"area", "total_mm2"}), 2)
    << " mm²</p><details><summary>all parameters</summary><table class='params'>";
  for (const auto& [name, value] : config["parameters"].items())
    o << "<tr>" << td(escapeXml(name), false) << td(value.dump()) << "</tr>";
  o << "</table></details>";
  return o.str();
}

std::string layerTableHtml(const Json& d) {
  std::ostringstream o;
  o << "<details><summary>per-layer "
       "table</summary><table><tr><th>#</th><th>layer</th><th>op</th><th>on</th><th>MACs</th><th>cycles</th>"
       "<th>predicted</th><th>bound</th><th>cycles / bound</th><th>MAC util.</th><th>DRAM read</th><th>DRAM "
       "written</th><th>energy</th></tr>";
  for (const auto& l : d["layers"]) {
    const bool npu = str(l, "runs_on") == "npu";
    o << "<tr>" << td(fixed(num(l, {"index"}), 0)) << td(escapeXml(str(l, "name")), false)
      << td(escapeXml(str(l, "op")), false) << td(str(l, "runs_on"), false) << td(humanNumber(num(l, {"macs"})))
      << td(humanNumber(num(l, {"cycles"}))) << td(npu ? humanNumber(num(l, {"predicted_cycles"})) : "")
      << td(npu ? str(l["roofline"], "bound") : "", false)
      << td(npu ? fixed(num(l, {"roofline", "cycles_per_bound"}), 2) : "")
      << td(npu ? percent(num(l, {"mac_utilization"})) : "") << td(humanNumber(num(l, {"dram", "bytes_read"})))
      << td(humanNumber(num(l, {"dram", "bytes_written"})))
      << td(npu ? sim::formatEnergy(num(l, {"energy", "total_pj"})) : "") << "</tr>";
  }
  o << "</table></details>";
  return o.str();
}

std::string accuracyText(const Json& d) {
  const Json& acc = d["accuracy"];
  if (!acc.is_object() || !acc.value("measured", false) || !acc["outputs"].is_array() || acc["outputs"].empty())
    return "not measured";
  double worst = 1;
  for (const auto& o : acc["outputs"]) worst = std::min(worst, num(o, {"cosine"}));
  return "cosine " + fixed(worst, 5);
}

}  // namespace

StatsRun readStatsRun(const std::string& path) {
  StatsRun run{path, readJsonFile(path)};
  if (!run.doc.is_object() || str(run.doc, "schema") != "systole.stats/2" || !run.doc["layers"].is_array() ||
      !run.doc["totals"].is_object())
    throw Error(SourceLocation{path, 0, 0},
                "not a systole stats document (schema \"systole.stats/2\" with layers and totals; write one with "
                "`systole run --stats`)");
  return run;
}

std::string configName(const StatsRun& run) {
  const std::string name = run.doc.contains("config") ? str(run.doc["config"], "name") : "";
  return name.empty() ? str(run.doc, "isa") : name;
}

std::string runsSummaryHtml(const std::vector<const StatsRun*>& runs) {
  std::ostringstream o;
  o << "<table class='summary'><tr><th>run</th><th>config</th><th>total cycles</th><th>time</th><th>MAC "
       "util.</th><th>cycles / bound</th>"
       "<th>DRAM bytes</th><th>energy</th><th>area</th><th>accuracy vs float</th></tr>";
  for (const StatsRun* r : runs) {
    const Json& d = r->doc;
    const double mhz = num(d, {"clock_mhz"});
    o << "<tr>" << td(escapeXml(r->label), false) << td(escapeXml(configName(*r)), false)
      << td(humanNumber(num(d, {"total_cycles"})))
      << td(mhz > 0 ? humanNumber(num(d, {"total_cycles"}) / mhz) + " us" : "")
      << td(percent(num(d, {"totals", "mac_utilization"})))
      << td(fixed(num(d, {"totals", "roofline", "cycles_per_bound"}), 2))
      << td(humanNumber(num(d, {"dma", "bytes_read"}) + num(d, {"dma", "bytes_written"})))
      << td(sim::formatEnergy(num(d, {"energy", "total_pj"}))) << td(fixed(num(d, {"area", "total_mm2"}), 2) + " mm²")
      << td(accuracyText(d), false) << "</tr>";
  }
  o << "</table>";
  return o.str();
}

std::string runDetailHtml(const StatsRun& run) {
  std::ostringstream o;
  o << "<h3>Config</h3>" << configHtml(run.doc) << "<h3>Roofline</h3>" << rooflineSvg(run)
    << "<p class='note'>Each point is an NPU layer with MACs; the roof is the array's peak and the DRAM bandwidth. "
       "Layers without "
       "MACs (pooling, element-wise, layout moves) are in the bars below.</p>"
    << "<h3>Cycles</h3>" << cycleBarsSvg(run) << dmaBarsSvg(run) << "<h3>Energy</h3>" << energyBreakdownHtml(run)
    << energyBarsSvg(run) << layerTableHtml(run.doc);
  return o.str();
}

std::string runBreakdownHtml(const StatsRun& run) { return cycleBarsSvg(run) + energyBarsSvg(run); }

std::string runDiffHtml(const StatsRun& a, const StatsRun& b) {
  std::ostringstream o;
  o << "<p>A = " << escapeXml(a.label) << ", B = " << escapeXml(b.label)
    << ".</p><table><tr><th>parameter</th><th>A</th><th>B</th></tr>";
  const Json& pa = a.doc["config"]["parameters"];
  const Json& pb = b.doc["config"]["parameters"];
  size_t differing = 0;
  if (pa.is_object() && pb.is_object()) {
    std::set<std::string> names;
    for (const auto& [k, v] : pa.items()) names.insert(k);
    for (const auto& [k, v] : pb.items()) names.insert(k);
    for (const auto& k : names) {
      const std::string va = pa.contains(k) ? pa[k].dump() : "-", vb = pb.contains(k) ? pb[k].dump() : "-";
      if (va == vb) continue;
      ++differing;
      o << "<tr>" << td(escapeXml(k), false) << td(va) << td(vb) << "</tr>";
    }
  }
  o << "</table>";
  if (differing == 0) o << "<p>The configs' parameters are the same.</p>";
  std::map<std::string, const Json*> inB;
  for (const auto& l : b.doc["layers"]) inB[str(l, "name")] = &l;
  StackedBars c;
  c.title = "Cycles per layer, A against B";
  c.value_label = "cycles";
  c.series = {"A: " + a.label, "B: " + b.label};
  std::ostringstream table;
  table << "<table><tr><th>layer</th><th>cycles A</th><th>cycles B</th><th>B / A</th><th>energy A</th><th>energy "
           "B</th><th>B / A</th></tr>";
  const auto ratio = [](double x, double y) { return x > 0 ? fixed(y / x, 3) : std::string("-"); };
  std::set<std::string> seen;
  for (const auto& l : a.doc["layers"]) {
    const std::string name = str(l, "name");
    seen.insert(name);
    const Json* m = inB.count(name) ? inB[name] : nullptr;
    const double ca = num(l, {"cycles"}), cb = m ? num(*m, {"cycles"}) : 0;
    const double ea = num(l, {"energy", "total_pj"}), eb = m ? num(*m, {"energy", "total_pj"}) : 0;
    c.rows.push_back({layerLabel(l) + " A", "", {ca, 0}});
    c.rows.push_back({layerLabel(l) + " B", m ? "" : "not in B", {0, cb}});
    table << "<tr>" << td(escapeXml(layerLabel(l)), false) << td(humanNumber(ca)) << td(m ? humanNumber(cb) : "absent")
          << td(m ? ratio(ca, cb) : "-") << td(sim::formatEnergy(ea)) << td(m ? sim::formatEnergy(eb) : "absent")
          << td(m ? ratio(ea, eb) : "-") << "</tr>";
  }
  for (const auto& l : b.doc["layers"])
    if (!seen.count(str(l, "name")))
      table << "<tr>" << td(escapeXml(layerLabel(l)), false) << td("absent") << td(humanNumber(num(l, {"cycles"})))
            << td("-") << td("absent") << td(sim::formatEnergy(num(l, {"energy", "total_pj"}))) << td("-") << "</tr>";
  const double ta = num(a.doc, {"total_cycles"}), tb = num(b.doc, {"total_cycles"});
  const double ea = num(a.doc, {"energy", "total_pj"}), eb = num(b.doc, {"energy", "total_pj"});
  table << "<tr class='total'>" << td("total", false) << td(humanNumber(ta)) << td(humanNumber(tb)) << td(ratio(ta, tb))
        << td(sim::formatEnergy(ea)) << td(sim::formatEnergy(eb)) << td(ratio(ea, eb)) << "</tr></table>";
  c.row_height = 9;
  o << table.str() << stackedBarsSvg(c);
  return o.str();
}

std::string htmlPage(const std::string& title, const std::string& body) {
  return "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'><title>" + escapeXml(title) +
         "</title><style>"
         "body{font-family:sans-serif;margin:24px;color:#222;max-width:1200px}"
         "table{border-collapse:collapse;margin:8px 0;font-size:13px}"
         "th,td{border:1px solid #ccc;padding:3px "
         "8px;text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums}"
         "th{background:#f0f0f0}tr.total td{font-weight:bold}tr.pareto td{background:#eef6ff}"
         "svg.chart{display:block;margin:12px 0}details{margin:8px 0}summary{cursor:pointer}"
         ".note{color:#555;font-size:12px}h2{border-bottom:1px solid #ccc;padding-bottom:4px;margin-top:32px}"
         "</style></head><body><h1>" +
         escapeXml(title) + "</h1>\n" + body + "\n</body></html>\n";
}

}  // namespace systole::tools
