// INT8 accuracy against PyTorch on exported models (bench/export_accuracy_models.py). For each
// model directory and each calibration method: quantize with the model's calibration samples, run
// the float and the quantized reference interpreters (the NPU is bit-exact with the latter) on the
// evaluation inputs, and compare both with PyTorch's outputs: mean and worst cosine, SQNR in dB
// (over all evaluation outputs together) and top-1 agreement. --layers prints, for the first
// evaluation input, the SQNR of every int8 tensor of the quantized graph against the float graph's
// value of the same name, worst first, to find where the accuracy goes.
//
//   int8_accuracy [--methods M,...] [--eval N] [--layers K] MODEL_DIR...
//     M: minmax | entropy | percentile:P (e.g. percentile:99.99)
//     MODEL_DIR holds model.onnx, calib/ (loadCalibrationDir), eval_inputs.npy [E, ...] and
//     eval_outputs.npy [E, ...].
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "systole/compiler/interpreter.h"
#include "systole/compiler/onnx_import.h"
#include "systole/compiler/passes.h"
#include "systole/compiler/quantize.h"
#include "systole/isa/diagnostic.h"
#include "systole/isa/npy.h"

using namespace systole;
using namespace systole::compiler;

namespace {

/// Agreement of one output with a reference, summed over the evaluation inputs.
struct Agreement {
  double cosineSum = 0, worstCosine = 1, signal = 0, noise = 0;
  int top1 = 0, count = 0;

  void add(const float* ref, const float* got, int64_t n) {
    double dot = 0, rr = 0, gg = 0;
    int64_t tr = 0, tg = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double r = ref[i], g = got[i];
      dot += r * g, rr += r * r, gg += g * g;
      signal += r * r, noise += (r - g) * (r - g);
      if (ref[i] > ref[tr]) tr = i;
      if (got[i] > got[tg]) tg = i;
    }
    const double cosine = dot / (std::sqrt(rr * gg) + 1e-30);
    cosineSum += cosine;
    worstCosine = std::min(worstCosine, cosine);
    top1 += tr == tg;
    ++count;
  }
  double meanCosine() const { return count ? cosineSum / count : 0; }
  double sqnrDb() const { return 10 * std::log10(signal / std::max(noise, 1e-30)); }
  double top1Percent() const { return count ? 100.0 * top1 / count : 0; }
};

/// The rows of a stacked .npy [E, ...] as tensors of `shape`.
std::vector<HostTensor> rowsOf(const std::string& path, const std::vector<int64_t>& shape) {
  NpyArray a = readNpy(path);
  HostTensor row(ElemType::Float32, shape);
  if (a.dtype != isa::DType::Float32 || a.shape.empty() || a.bytes.size() % row.bytes.size() != 0)
    throw Error(SourceLocation{path}, "expected float32 rows of " + std::to_string(row.elements()) + " elements");
  std::vector<HostTensor> rows(a.bytes.size() / row.bytes.size(), row);
  for (size_t k = 0; k < rows.size(); ++k)
    std::memcpy(rows[k].bytes.data(), a.bytes.data() + k * row.bytes.size(), row.bytes.size());
  return rows;
}

struct Method {
  std::string label;
  QuantOptions options;
};

Method parseMethod(const std::string& text) {
  const size_t colon = text.find(':');
  const auto m = parseCalibrationMethod(text.substr(0, colon));
  if (!m) throw Error("unknown calibration method '" + text + "'");
  Method out{text, {}};
  out.options.method = *m;
  if (colon != std::string::npos) out.options.percentile = std::stod(text.substr(colon + 1));
  return out;
}

std::vector<Method> parseMethods(const std::string& list) {
  std::vector<Method> out;
  for (size_t start = 0; start <= list.size();) {
    const size_t comma = std::min(list.find(',', start), list.size());
    out.push_back(parseMethod(list.substr(start, comma - start)));
    start = comma + 1;
  }
  return out;
}

double sqnrDb(const HostTensor& ref, const HostTensor& got) {
  Agreement a;
  a.add(ref.data<float>(), got.data<float>(), ref.elements());
  return a.sqnrDb();
}

/// The float value of an int8 tensor with per-tensor Quant.
HostTensor dequantize(const HostTensor& t, const Quant& q) {
  HostTensor out(ElemType::Float32, t.shape);
  for (int64_t i = 0; i < t.elements(); ++i)
    out.data<float>()[i] = q.scale.at(0) * static_cast<float>(t.data<int8_t>()[i] - q.zero_point.at(0));
  return out;
}

/// The `worst` int8 tensors of `quantized` with the lowest SQNR against `floatGraph`'s values.
void printLayers(const Graph& floatGraph, const Graph& quantized, const TensorMap& input, int worst) {
  const auto f = interpret(floatGraph, input, true);
  const auto q = interpret(quantized, input, true);
  std::vector<std::pair<double, std::string>> rows;
  for (const Value& v : quantized.values) {
    auto fi = f.find(v.name);
    auto qi = q.find(v.name);
    if (v.type != ElemType::Int8 || !v.quant || v.quant->axis >= 0 || fi == f.end() || qi == q.end()) continue;
    char line[256];
    std::snprintf(line, sizeof line, "%s (scale %.4g, zp %d)", v.name.c_str(), v.quant->scale[0],
                  v.quant->zero_point[0]);
    rows.emplace_back(sqnrDb(fi->second, dequantize(qi->second, *v.quant)), line);
  }
  std::sort(rows.begin(), rows.end());
  for (int i = 0; i < worst && i < static_cast<int>(rows.size()); ++i)
    std::printf("    %7.2f dB  %s\n", rows[static_cast<size_t>(i)].first, rows[static_cast<size_t>(i)].second.c_str());
}

struct Args {
  std::vector<Method> methods = parseMethods("minmax,percentile:99.99,entropy");
  int eval = 0;    // 0 = all
  int layers = 0;  // how many worst layers to print
  std::vector<std::string> models;
};

Args parseArgs(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool hasValue = i + 1 < argc;
    if (arg == "--methods" && hasValue)
      a.methods = parseMethods(argv[++i]);
    else if (arg == "--eval" && hasValue)
      a.eval = std::atoi(argv[++i]);
    else if (arg == "--layers" && hasValue)
      a.layers = std::atoi(argv[++i]);
    else if (arg.starts_with("--"))
      throw Error("unknown option '" + arg + "'");
    else
      a.models.push_back(arg);
  }
  if (a.models.empty()) throw Error("usage: int8_accuracy [--methods M,...] [--eval N] [--layers K] MODEL_DIR...");
  return a;
}

void printRow(const std::string& model, const std::string& label, const Agreement& a, double seconds) {
  std::printf("| %s | %s | %d | %.5f | %.5f | %.2f | %.1f%% | %.0f |\n", model.c_str(), label.c_str(), a.count,
              a.meanCosine(), a.worstCosine, a.sqnrDb(), a.top1Percent(), seconds);
  std::fflush(stdout);
}

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void benchModel(const std::string& dir, const Args& args) {
  Graph floatGraph = importOnnx(dir + "/model.onnx");
  optimize(floatGraph);
  if (floatGraph.inputs.size() != 1 || floatGraph.outputs.size() != 1)
    throw Error(dir + ": expected one input and one output");
  const Value& in = floatGraph.values[static_cast<size_t>(floatGraph.inputs[0])];
  const Value& out = floatGraph.values[static_cast<size_t>(floatGraph.outputs[0])];
  std::vector<HostTensor> inputs = rowsOf(dir + "/eval_inputs.npy", in.shape);
  const std::vector<HostTensor> torch = rowsOf(dir + "/eval_outputs.npy", out.shape);
  if (args.eval > 0 && static_cast<size_t>(args.eval) < inputs.size()) inputs.resize(static_cast<size_t>(args.eval));
  const std::string model = dir.substr(dir.find_last_of('/') + 1);

  auto t0 = std::chrono::steady_clock::now();
  Agreement floatVsTorch;
  for (size_t k = 0; k < inputs.size(); ++k)
    floatVsTorch.add(torch[k].data<float>(), interpret(floatGraph, {{in.name, inputs[k]}}).at(out.name).data<float>(),
                     out.elements());
  printRow(model, "float (sanity)", floatVsTorch, secondsSince(t0));

  const std::vector<TensorMap> calibration = loadCalibrationDir(floatGraph, dir + "/calib");
  for (const Method& m : args.methods) {
    t0 = std::chrono::steady_clock::now();
    Graph quantized = floatGraph;
    quantize(quantized, calibration, m.options);
    Agreement int8VsTorch;
    for (size_t k = 0; k < inputs.size(); ++k)
      int8VsTorch.add(torch[k].data<float>(), interpret(quantized, {{in.name, inputs[k]}}).at(out.name).data<float>(),
                      out.elements());
    printRow(model, m.label, int8VsTorch, secondsSince(t0));
    if (args.layers > 0) printLayers(floatGraph, quantized, {{in.name, inputs[0]}}, args.layers);
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Args args = parseArgs(argc, argv);
    std::printf(
        "| model | method | inputs | mean cosine | worst cosine | SQNR dB | top-1 agreement | seconds |\n"
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (const std::string& dir : args.models) benchModel(dir, args);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "int8_accuracy: error: %s\n", e.what());
    return 1;
  }
}
