// The `systole` Python module's native part (_systole): configs, compile, load, run, and the run's
// results as Python objects and NumPy arrays. python/systole/__init__.py re-exports it. The GIL
// is released while the compiler and the simulator work.
#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "model.h"
#include "numpy_convert.h"
#include "systole/isa/diagnostic.h"
#include "systole/isa/shipped_configs.h"
#include "systole/runtime/stats_report.h"

namespace py = pybind11;
using namespace py::literals;

namespace systole::python {

namespace {

using ConfigPtr = std::shared_ptr<const isa::IsaConfig>;

/// A config's override value as the YAML text `--set` takes.
std::string overrideText(const py::handle& value) {
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>() ? "true" : "false";
  return py::str(value);
}

ConfigPtr loadConfig(const std::string& nameOrPath, const std::optional<py::dict>& overrides) {
  std::vector<isa::ConfigOverride> list;
  if (overrides)
    for (const auto& [key, value] : *overrides) list.push_back({py::str(key), overrideText(value)});
  const bool path = nameOrPath.find('/') != std::string::npos || nameOrPath.ends_with(".yaml");
  const std::string file = path ? nameOrPath : isa::shippedConfigPath(nameOrPath);
  py::gil_scoped_release release;
  return std::make_shared<const isa::IsaConfig>(isa::IsaConfig::load(file, list));
}

/// A Config object, or a shipped config's name or a YAML path.
ConfigPtr configArg(const py::object& config) {
  if (py::isinstance<isa::IsaConfig>(config)) return config.cast<ConfigPtr>();
  return loadConfig(config.cast<std::string>(), std::nullopt);
}

std::vector<std::string> shippedConfigs() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(isa::shippedConfigDir()))
    if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

/// Calibration data: a directory or .npz path, one array (samples of a one-input model, stacked
/// or not), a list of them, or a dict of arrays by input name (the .npz rule, quantize.h).
void setCalibration(compiler::PipelineOptions& options, const py::object& calibration) {
  if (calibration.is_none()) return;
  if (py::isinstance<py::str>(calibration) || py::hasattr(calibration, "__fspath__")) {
    options.calibration_dir = py::str(calibration);
    return;
  }
  if (py::isinstance<py::dict>(calibration)) {
    for (const auto& [name, array] : calibration.cast<py::dict>())
      options.calibration_arrays.emplace_back(py::str(name), toNpyArray(array));
  } else if (py::isinstance<py::list>(calibration) || py::isinstance<py::tuple>(calibration)) {
    size_t k = 0;
    for (const auto& array : calibration)
      options.calibration_arrays.emplace_back("[" + std::to_string(k++) + "]", toNpyArray(array));
  } else {
    options.calibration_arrays.emplace_back("array", toNpyArray(calibration));
  }
  if (options.calibration_arrays.empty()) throw Error("calibration: no arrays given");
}

std::unique_ptr<Model> compileModel(const std::string& model, const py::object& config, const py::object& calibration,
                                    int samples, uint64_t seed, const std::string& method, double percentile,
                                    const std::map<std::string, std::vector<int64_t>>& shapes,
                                    std::optional<int64_t> minNpuMacs, bool cache,
                                    const std::optional<std::string>& cacheDir, int jobs, const std::string& precision,
                                    double minCosine, const std::string& biasCorrection, int searchSamples,
                                    double smooth, const std::string& equalize) {
  ConfigPtr cfg = configArg(config);
  compiler::PipelineOptions options;
  setCalibration(options, calibration);
  options.quant.num_samples = samples;
  options.calibration_seed = seed;
  const auto m = compiler::parseCalibrationMethod(method);
  if (!m) throw Error("calibration_method: unknown method '" + method + "'");
  options.quant.method = *m;
  options.quant.percentile = percentile;
  options.quant.jobs = jobs;
  options.precision = precision;
  options.min_cosine = minCosine;
  if (searchSamples < 1) throw Error("search_samples: at least 1, got " + std::to_string(searchSamples));
  options.quant.search_samples = searchSamples;
  if (smooth < 0 || smooth >= 1) throw Error("smooth: an alpha in [0, 1), got " + std::to_string(smooth));
  options.quant.smoothing = smooth;
  const auto correction = compiler::parseBiasCorrection(biasCorrection);
  if (!correction) throw Error("bias_correction: 'off', 'narrow' or 'all', got '" + biasCorrection + "'");
  options.quant.bias_correction = *correction;
  const auto equalization = compiler::parseEqualization(equalize);
  if (!equalization) throw Error("equalize: 'off', 'on' or 'relu6', got '" + equalize + "'");
  options.quant.equalization = *equalization;
  options.import.input_shapes = shapes;
  if (minNpuMacs) options.lower.min_npu_macs = *minNpuMacs;
  const std::string dir = !cache ? "" : cacheDir ? *cacheDir : compiler::defaultCacheDir();
  py::gil_scoped_release release;
  try {
    return Model::compile(model, std::move(cfg), options, dir);
  } catch (const Error& e) {
    throw inFile(e, model);
  }
}

std::unique_ptr<Model> loadModel(const std::string& path, const py::object& config, bool cache) {
  ConfigPtr cfg;
  if (config.is_none()) {
    std::string name;
    {
      py::gil_scoped_release release;
      name = compiler::readArtifact(path).isa_name;
    }
    cfg = loadConfig(isa::shippedConfigPath(name, path), std::nullopt);
  } else {
    cfg = configArg(config);
  }
  py::gil_scoped_release release;
  return Model::load(path, std::move(cfg), cache ? compiler::defaultCacheDir() : "");
}

/// The model's inputs: a dict by name, one array for a one-input model, or None (seeded random).
compiler::TensorMap runInputs(const Model& model, const py::object& inputs, uint64_t seed) {
  compiler::TensorMap out = runtime::randomInputs(model.graph(), seed);
  if (inputs.is_none()) return out;
  if (!py::isinstance<py::dict>(inputs)) {
    if (out.size() != 1)
      throw Error("the model has " + std::to_string(out.size()) + " inputs: pass a dict of arrays by input name");
    auto& [name, tensor] = *out.begin();
    tensor = toHostTensor(inputs, tensor.shape, name);
    return out;
  }
  for (const auto& [key, array] : inputs.cast<py::dict>()) {
    const std::string name = py::str(key);
    auto it = out.find(name);
    if (it == out.end()) throw Error("the model has no input named '" + name + "'");
    it->second = toHostTensor(array, it->second.shape, name);
  }
  return out;
}

RunOutcome runModel(Model& model, const py::object& inputs, uint64_t seed, bool check, bool timingOnly, bool races,
                    bool accuracy, bool hostJit) {
  compiler::TensorMap tensors = runInputs(model, inputs, seed);
  runtime::RunOptions options;
  options.check = check;
  options.timing_only = timingOnly;
  options.races = races;
  options.host_jit = hostJit;
  py::gil_scoped_release release;
  try {
    return model.run(tensors, options, accuracy);
  } catch (const Error& e) {
    throw inFile(e, model.origin().path);
  }
}

py::dict tensorsToDict(const std::map<std::string, compiler::HostTensor>& tensors) {
  py::dict out;
  for (const auto& [name, t] : tensors) out[py::str(name)] = toNumpy(t);
  return out;
}

py::object jsonToPython(const nlohmann::ordered_json& document) {
  return py::module_::import("json").attr("loads")(document.dump());
}

void bindConfig(py::module_& m) {
  py::class_<isa::IsaConfig, std::shared_ptr<isa::IsaConfig>>(m, "Config",
                                                              "An NPU described by one YAML file (docs/isa-config.md).")
      .def_static("load", &loadConfig, "name_or_path"_a, "overrides"_a = py::none(),
                  "A shipped config by name ('default', 'tiny', ...) or a YAML file, with overrides such as "
                  "{'array.rows': 32} applied before validation (like `--set`).")
      .def_property_readonly("name", [](const isa::IsaConfig& c) { return c.params().name; })
      .def_property_readonly("path", &isa::IsaConfig::path)
      .def_property_readonly("array_rows", [](const isa::IsaConfig& c) { return c.params().array_rows; })
      .def_property_readonly("array_cols", [](const isa::IsaConfig& c) { return c.params().array_cols; })
      .def_property_readonly("clock_mhz", [](const isa::IsaConfig& c) { return c.params().clock_mhz; })
      .def_property_readonly("dram_bytes_per_cycle",
                             [](const isa::IsaConfig& c) { return c.params().dram_bytes_per_cycle; })
      .def_property_readonly("scratchpad_bytes", [](const isa::IsaConfig& c) { return c.params().spad_size; })
      .def_property_readonly("accumulator_bytes", [](const isa::IsaConfig& c) { return c.params().acc_size; })
      .def_property_readonly("hash", &isa::IsaConfig::hash, "covers the file's bytes and the overrides")
      .def_property_readonly(
          "params",
          [](const isa::IsaConfig& c) {
            py::dict params;
            for (const isa::ParamEntry& e : isa::parameterTable(c.params())) params[py::str(e.name)] = e.value;
            return params;
          },
          "every parameter `systole isa check` prints, independent and derived, by the name expressions use "
          "(e.g. 'activation.bits', 'scratchpad.rows')")
      .def("__repr__", [](const isa::IsaConfig& c) {
        return "<systole.Config '" + c.params().name + "' " + std::to_string(c.params().array_rows) + "x" +
               std::to_string(c.params().array_cols) + " from " + c.path() + ">";
      });
}

/// Accuracy, Layer and HostStep: the parts of a RunResult.
void bindRunParts(py::module_& m) {
  py::class_<runtime::TensorAccuracy>(m, "Accuracy", "One INT8 output against the float model's on the same inputs.")
      .def_readonly("name", &runtime::TensorAccuracy::name)
      .def_readonly("cosine", &runtime::TensorAccuracy::cosine)
      .def_readonly("sqnr_db", &runtime::TensorAccuracy::sqnr_db)
      .def_readonly("max_error_ratio", &runtime::TensorAccuracy::max_error_ratio)
      .def_readonly("top1_images", &runtime::TensorAccuracy::top1_images)
      .def_readonly("top1_agree", &runtime::TensorAccuracy::top1_agree)
      .def("__repr__", [](const runtime::TensorAccuracy& a) {
        return "<systole.Accuracy '" + a.name + "' cosine " + std::to_string(a.cosine) + ", SQNR " +
               std::to_string(a.sqnr_db) + " dB>";
      });

  py::class_<runtime::LayerTiming>(m, "Layer",
                                   "An NPU layer as it ran: the compiler's prediction and the simulator's cycles.")
      .def_property_readonly("name", [](const runtime::LayerTiming& l) { return l.report.name; })
      .def_property_readonly("op", [](const runtime::LayerTiming& l) { return l.report.op; })
      .def_property_readonly("output", [](const runtime::LayerTiming& l) { return l.report.output; })
      .def_property_readonly("macs", [](const runtime::LayerTiming& l) { return l.report.macs; })
      .def_property_readonly("predicted_cycles",
                             [](const runtime::LayerTiming& l) { return l.report.predicted_cycles; })
      .def_property_readonly("roofline_cycles", [](const runtime::LayerTiming& l) { return l.report.roofline_cycles; })
      .def_readonly("simulated_cycles", &runtime::LayerTiming::simulated_cycles)
      .def_readonly("attributed_cycles", &runtime::LayerTiming::attributed_cycles)
      .def_readonly("start_cycle", &runtime::LayerTiming::start_cycle)
      .def_readonly("program", &runtime::LayerTiming::program)
      .def_property_readonly("dram_bytes_read",
                             [](const runtime::LayerTiming& l) { return l.counters.dram_bytes_read; })
      .def_property_readonly("dram_bytes_written",
                             [](const runtime::LayerTiming& l) { return l.counters.dram_bytes_written; })
      .def("__repr__", [](const runtime::LayerTiming& l) {
        return "<systole.Layer '" + l.report.name + "' " + l.report.op + ": " + std::to_string(l.attributed_cycles) +
               " cycles>";
      });

  py::class_<runtime::HostStep>(m, "HostStep", "A host operator as it ran, costed by the config's host model.")
      .def_readonly("name", &runtime::HostStep::name)
      .def_readonly("op", &runtime::HostStep::op)
      .def_readonly("macs", &runtime::HostStep::macs)
      .def_readonly("cycles", &runtime::HostStep::cycles)
      .def_readonly("start_cycle", &runtime::HostStep::start_cycle);
}

void bindResults(py::module_& m) {
  bindRunParts(m);

  py::class_<RunOutcome>(m, "RunResult", "A run: outputs, cycles, per-layer statistics and accuracy.")
      .def_property_readonly(
          "outputs", [](const RunOutcome& r) { return tensorsToDict(r.result.outputs); },
          "float outputs by graph output name (empty for a timing-only run)")
      .def_property_readonly(
          "cycles", [](const RunOutcome& r) { return r.result.totalCycles(); }, "NPU + host + transfers")
      .def_property_readonly("npu_cycles", [](const RunOutcome& r) { return r.result.sim.stats.cycles; })
      .def_property_readonly("host_cycles", [](const RunOutcome& r) { return r.result.host_cycles; })
      .def_property_readonly("transfer_cycles", [](const RunOutcome& r) { return r.result.transfer_cycles; })
      .def_property_readonly("programs", [](const RunOutcome& r) { return r.result.programs; })
      .def_property_readonly("macs", [](const RunOutcome& r) { return r.result.sim.stats.macs; })
      .def_property_readonly(
          "utilization",
          [](const RunOutcome& r) {
            const uint64_t cycles = r.result.sim.stats.cycles;
            const double pes = static_cast<double>(r.params.array_rows * r.params.array_cols);
            return cycles ? static_cast<double>(r.result.sim.stats.macs) / (static_cast<double>(cycles) * pes) : 0.0;
          },
          "NPU MACs / (NPU cycles x PEs)")
      .def_property_readonly("layers", [](const RunOutcome& r) { return r.result.layers; })
      .def_property_readonly("host_steps", [](const RunOutcome& r) { return r.result.host_steps; })
      .def_property_readonly(
          "checked", [](const RunOutcome& r) { return r.result.checked; },
          "True when check=True compared every NPU output with the reference interpreter")
      .def_property_readonly(
          "mismatch",
          [](const RunOutcome& r) -> std::optional<std::string> {
            if (!r.result.mismatch) return std::nullopt;
            return r.result.mismatch->describe();
          },
          "the first element where the NPU and the reference differ, or None")
      .def_property_readonly(
          "accuracy", [](const RunOutcome& r) { return r.accuracy; },
          "each output against the float model (empty when not measured: see accuracy_note)")
      .def_readonly("accuracy_note", &RunOutcome::accuracy_note)
      .def_property_readonly(
          "host_seconds", [](const RunOutcome& r) { return r.result.host_seconds; },
          "wall time of the host operators in this process")
      .def_property_readonly("host_jit_runs", [](const RunOutcome& r) { return r.result.host_jit_runs; })
      .def_property_readonly("host_interpreted_runs",
                             [](const RunOutcome& r) { return r.result.host_interpreted_runs; })
      .def_readonly("run_seconds", &RunOutcome::run_seconds)
      .def_property_readonly(
          "stats", [](const RunOutcome& r) { return jsonToPython(runtime::statsDocument(r.result, r.params, {})); },
          "the statistics document of `systole run --stats` (docs/stats.md) as Python objects");
}

void bindModel(py::module_& m) {
  py::class_<Model>(m, "Model", "A model compiled for one config, ready to run on the simulator.")
      .def(
          "run", &runModel, "inputs"_a = py::none(), "seed"_a = 1, "check"_a = false, "timing_only"_a = false,
          "races"_a = false, "accuracy"_a = true, "host_jit"_a = true,
          "Runs on the simulator. inputs: a dict of arrays by input name, one array for a one-input model, or None for "
          "seeded random inputs. check: compare every NPU output with the reference interpreter, bit for bit. "
          "host_jit: host operators as LLVM-compiled code (False: the interpreter's kernels; same results).")
      .def("save", &Model::save, "path"_a,
           "Writes the compiled artifact (.sbin), which `systole run` and systole.load read.",
           py::call_guard<py::gil_scoped_release>())
      .def_property_readonly("config", &Model::sharedConfig)
      .def_property_readonly(
          "inputs",
          [](const Model& model) {
            py::dict out;
            for (int id : model.graph().inputs) {
              const auto& v = model.graph().values[static_cast<size_t>(id)];
              out[py::str(v.name)] = py::tuple(py::cast(v.shape));
            }
            return out;
          },
          "input shapes by name")
      .def_property_readonly("outputs",
                             [](const Model& model) {
                               std::vector<std::string> names;
                               for (int id : model.graph().outputs)
                                 names.push_back(model.graph().values[static_cast<size_t>(id)].name);
                               return names;
                             })
      .def_property_readonly("programs", [](const Model& model) { return model.compiled().programCount(); })
      .def_property_readonly(
          "weight_bits", [](const Model& model) { return compiler::matrixWeightWidths(model.graph()); },
          "the matrix layers (Conv, Gemm, MatMul with constant weights) and their weights' width, in node order")
      .def_property_readonly(
          "accumulator_fit", [](const Model& model) { return compiler::accumulatorFittedLayers(model.graph()); },
          "the matrix layers whose weight scales were coarsened to fit a narrow accumulator (types.accumulator), "
          "with how many output channels, in node order")
      .def_property_readonly("host_operators",
                             [](const Model& model) {
                               size_t n = 0;
                               for (const auto& item : model.compiled().schedule) n += item.npu ? 0 : 1;
                               return n;
                             })
      .def_property_readonly("from_cache", [](const Model& model) { return model.origin().from_cache; })
      .def_property_readonly("cache_entry", [](const Model& model) { return model.origin().cache_entry; })
      .def_property_readonly("compile_seconds", [](const Model& model) { return model.origin().compile_seconds; })
      .def("__repr__", [](const Model& model) {
        return "<systole.Model '" + model.origin().path + "' for '" + model.config().params().name +
               "': " + std::to_string(model.compiled().programCount()) + " NPU program(s)" +
               (model.origin().from_cache ? ", from the compile cache" : "") + ">";
      });
}

}  // namespace

}  // namespace systole::python

PYBIND11_MODULE(_systole, m) {
  using namespace systole;
  using namespace systole::python;
  m.doc() = "Systole: compile ONNX models for a systolic-array NPU described by a YAML file, and simulate them.";
  py::register_exception<Error>(m, "Error", PyExc_RuntimeError);
  bindConfig(m);
  bindResults(m);
  bindModel(m);
  m.def("_set_config_dir", &isa::setShippedConfigDir, "dir"_a);
  m.def("config_dir", &isa::shippedConfigDir, "Where shipped configs are found ($SYSTOLE_CONFIG_DIR overrides it).");
  m.def("shipped_configs", &shippedConfigs, "The names of the shipped configs.");
  m.def("compile", &compileModel, "model"_a, "config"_a = "default", py::kw_only(), "calibration"_a = py::none(),
        "calibration_samples"_a = 0, "calibration_seed"_a = 0, "calibration_method"_a = "percentile",
        "percentile"_a = 99.999, "shapes"_a = std::map<std::string, std::vector<int64_t>>{},
        "min_npu_macs"_a = py::none(), "cache"_a = true, "cache_dir"_a = py::none(), "jobs"_a = 0, "precision"_a = "",
        "min_cosine"_a = 0.99, "bias_correction"_a = "narrow", "search_samples"_a = 4, "smooth"_a = 0.0,
        "equalize"_a = "off",
        "Compiles an ONNX model for a config (a Config, a shipped config's name or a YAML path): import, optimize, "
        "calibrate and quantize to INT8, lower to NPU programs. calibration: NumPy arrays of real input samples "
        "(one array, a list, or a dict by input name; a one-input model's array may stack samples on the batch "
        "dimension), or a directory/.npz path; None calibrates on seeded random inputs, which is rarely faithful. "
        "precision: the weights' width, 'int8' or 'int4' (where the config offers it) or 'auto' (per layer, the "
        "narrowest that keeps the outputs' cosine against the float model at min_cosine); '' is the config's "
        "default. bias_correction: fold a layer's mean output shift from weight rounding into its bias in the layers "
        "narrower than int8 ('narrow'), every layer ('all') or none ('off'). search_samples: the calibration samples "
        "'auto' judges on (the next as many are held out). smooth: activation smoothing's alpha in [0, 1) for "
        "LayerNormalizations feeding only matrix layers (0: off). equalize: cross-layer equalization of Conv pairs, "
        "'on' (joined by nothing or a ReLU), 'relu6' (also turning a joining ReLU6 into a ReLU, which changes the "
        "float function) or 'off'. The compiled artifact is reused from the "
        "compile cache when nothing changed (cache=False skips "
        "it).");
  m.def(
      "load", &loadModel, "path"_a, "config"_a = py::none(), "cache"_a = true,
      "Loads a compiled .sbin (from Model.save or `systole compile`); config defaults to the shipped config it names.");
}
