#include "run_report.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

namespace systole::tools {

namespace {

std::string db(double v) {
  if (std::isinf(v)) return "inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

nlohmann::ordered_json toJson(const runtime::TensorAccuracy& a) {
  nlohmann::ordered_json j;
  j["name"] = a.name;
  if (a.elements > 1) j["cosine"] = a.cosine;  // one element has only a sign to compare
  j["sqnr_db"] = std::isinf(a.sqnr_db) ? nlohmann::ordered_json("inf") : nlohmann::ordered_json(a.sqnr_db);
  j["max_error_ratio"] = a.max_error_ratio;
  if (a.top1_images) {
    j["top1_agrees"] = a.top1_agree == a.top1_images;
    j["top1_images"] = a.top1_images;
    j["top1_agree"] = a.top1_agree;
  }
  if (a.saturated) j["saturated"] = *a.saturated;
  return j;
}

}  // namespace

void printAccuracy(const Accuracy& accuracy) {
  if (!accuracy.measured) {
    std::printf("accuracy: not measured (%s)\n", accuracy.why_not.c_str());
    return;
  }
  for (const auto& a : accuracy.outputs) {
    std::printf("accuracy of '%s' against the float model: ", a.name.c_str());
    if (a.elements > 1)
      std::printf("cosine %.5f, ", a.cosine);
    else
      std::printf("cosine n/a (one element), ");
    std::printf("SQNR %s dB, max |error| / max |float| %.4f", db(a.sqnr_db).c_str(), a.max_error_ratio);
    // "argmax": the same index is the top-1 class only if the output is a classifier's logits.
    if (a.top1_images == 1) std::printf(", top-1 (argmax) %s", a.top1_agree ? "agrees" : "DIFFERS");
    if (a.top1_images > 1)
      std::printf(", top-1 (argmax) agrees on %lld of %lld images", static_cast<long long>(a.top1_agree),
                  static_cast<long long>(a.top1_images));
    std::printf("\n");
  }
}

std::string accuracyFailure(const Accuracy& accuracy, double minSqnr, double minCosine) {
  std::ostringstream out;
  for (const auto& a : accuracy.outputs) {
    if (!std::isnan(minCosine) && a.elements > 1 && a.cosine < minCosine)
      out << "output '" << a.name << "' has cosine " << a.cosine << " < --min-cosine " << minCosine << "; ";
    if (!std::isnan(minSqnr) && a.sqnr_db < minSqnr)
      out << "output '" << a.name << "' has SQNR " << db(a.sqnr_db) << " dB < --min-sqnr " << minSqnr << "; ";
  }
  std::string s = out.str();
  if (s.size() >= 2) s.resize(s.size() - 2);
  return s;
}

void printHostOperators(const compiler::Graph& quantized, const compiler::CompiledModel& model) {
  std::map<std::string, int> byType;
  std::vector<std::string> named;
  for (const auto& item : model.schedule) {
    if (item.npu) continue;
    const compiler::Node& n = quantized.nodes[static_cast<size_t>(item.host_node)];
    ++byType[n.op];
    if (!item.host_reason.empty() && item.host_reason != "no NPU lowering for this operator")
      named.push_back("node '" + n.name + "' (" + n.op + "): " + item.host_reason);
  }
  if (byType.empty()) return;
  std::string types;
  int total = 0;
  for (const auto& [op, count] : byType)
    types += (types.empty() ? "" : ", ") + op + " " + std::to_string(count), total += count;
  std::printf("host operators: %d (%s)\n", total, types.c_str());
  for (const auto& line : named) std::printf("on the host although the NPU has a lowering: %s\n", line.c_str());
}

void printWeightWidths(const compiler::Graph& quantized) {
  const auto layers = compiler::matrixWeightWidths(quantized);
  std::string narrow;
  int count = 0;
  for (const auto& [name, bits] : layers)
    if (bits == 4) narrow += (count++ ? ", " : "") + name;
  if (count > 0) std::printf("weights: int4 in %d of %zu matrix layers: %s\n", count, layers.size(), narrow.c_str());
  std::fputs(equalizationLine(quantized).c_str(), stdout);
  std::fputs(accumulatorFitLine(quantized).c_str(), stdout);
}

std::string equalizationLine(const compiler::Graph& quantized) {
  const auto marks = compiler::equalizedPairs(quantized);
  if (marks.pairs == 0) return "";
  std::string line = "cross-layer equalization: " + std::to_string(marks.pairs) + " Conv -> Conv pairs rescaled";
  if (marks.relu6_to_relu > 0)
    line += "; " + std::to_string(marks.relu6_to_relu) +
            " joining ReLU6s became ReLUs, which changes the float function (accuracy is still against the original)";
  return line + "\n";
}

std::string accumulatorFitLine(const compiler::Graph& quantized) {
  const auto fitted = compiler::accumulatorFittedLayers(quantized);
  if (fitted.empty()) return "";
  int64_t channels = 0;
  for (const auto& [name, c] : fitted) channels += c;
  return "accumulator fit: weight scales coarsened in " + std::to_string(fitted.size()) + " of " +
         std::to_string(compiler::matrixWeightWidths(quantized).size()) + " matrix layers (" +
         std::to_string(channels) + " output channels) so that no sum can pass the accumulator\n";
}

void printHostTime(const runtime::RunResult& result) {
  if (result.host_jit_runs + result.host_interpreted_runs == 0) return;
  std::printf("host operators run: %zu JIT-compiled, %zu interpreted, %.3f ms", result.host_jit_runs,
              result.host_interpreted_runs, 1e3 * result.host_seconds);
  if (const auto& jit = result.host_jit; jit && jit->compiled > 0)
    std::printf(" (JIT compile %.1f ms%s%s)", 1e3 * jit->seconds,
                jit->cache_entry.empty() ? ""
                : jit->cache_hit         ? ", code from cache "
                                         : ", code stored in cache ",
                jit->cache_entry.c_str());
  std::printf("\n");
  if (result.host_jit && !result.host_jit->warning.empty())
    std::fprintf(stderr, "%s\n", result.host_jit->warning.c_str());
}

void printTotalCycles(const runtime::RunResult& result) {
  std::printf(
      "total cycles: %llu = NPU %llu + host %llu (%zu operators, %lld MACs, the config's host model) + host<->NPU "
      "transfers %llu\n",
      static_cast<unsigned long long>(result.totalCycles()), static_cast<unsigned long long>(result.sim.stats.cycles),
      static_cast<unsigned long long>(result.host_cycles), result.host_operators,
      static_cast<long long>(result.host_macs), static_cast<unsigned long long>(result.transfer_cycles));
}

void printUtilization(const std::vector<runtime::LayerTiming>& layers, uint64_t cycles, int64_t pes) {
  int64_t macs = 0;
  for (const auto& l : layers) macs += l.report.macs;
  const double util =
      cycles ? static_cast<double>(macs) / (static_cast<double>(cycles) * static_cast<double>(pes)) : 0.0;
  std::printf("MAC utilization: %.1f%% (model MACs %lld / (cycles %llu x %lld PEs))\n", 100.0 * util,
              static_cast<long long>(macs), static_cast<unsigned long long>(cycles), static_cast<long long>(pes));
}

void printLayers(const std::vector<runtime::LayerTiming>& layers, int64_t pes, const Accuracy& accuracy) {
  std::printf("%-28s %-18s %12s %12s %12s %8s %8s %7s\n", "layer", "op", "MACs", "predicted", "simulated", "util",
              "SQNR dB", "sat %");
  int64_t predicted = 0, simulated = 0, roofline = 0, macs = 0;
  for (const auto& l : layers) {
    const double util = l.simulated_cycles ? static_cast<double>(l.report.macs) /
                                                 (static_cast<double>(l.simulated_cycles) * static_cast<double>(pes))
                                           : 0.0;
    std::string sqnr = "-", sat = "-";
    if (auto it = accuracy.values.find(l.report.output); it != accuracy.values.end()) {
      sqnr = db(it->second.sqnr_db);
      char buf[16];
      std::snprintf(buf, sizeof buf, "%.2f", 100.0 * it->second.saturated.value_or(0));
      sat = buf;
    }
    std::printf("%-28.28s %-18.18s %12lld %12lld %12llu %7.1f%% %8s %7s\n", l.report.name.c_str(), l.report.op.c_str(),
                static_cast<long long>(l.report.macs), static_cast<long long>(l.report.predicted_cycles),
                static_cast<unsigned long long>(l.simulated_cycles), 100.0 * util, sqnr.c_str(), sat.c_str());
    predicted += l.report.predicted_cycles;
    simulated += static_cast<int64_t>(l.simulated_cycles);
    roofline += l.report.roofline_cycles;
    macs += l.report.macs;
  }
  std::printf("%-28s %-18s %12lld %12lld %12lld   (roofline bound %lld)\n", "total", "", static_cast<long long>(macs),
              static_cast<long long>(predicted), static_cast<long long>(simulated), static_cast<long long>(roofline));
}

nlohmann::ordered_json statsJson(const runtime::RunResult& result, const Accuracy& accuracy, const isa::Params& p) {
  auto j = runtime::statsDocument(result, p, accuracy.values);
  auto& acc = j["accuracy"];
  acc["measured"] = accuracy.measured;
  acc["outputs"] = nlohmann::ordered_json::array();
  for (const auto& a : accuracy.outputs) acc["outputs"].push_back(toJson(a));
  acc["layers"] = nlohmann::ordered_json::array();
  for (const auto& [name, a] : accuracy.values) acc["layers"].push_back(toJson(a));
  return j;
}

}  // namespace systole::tools
