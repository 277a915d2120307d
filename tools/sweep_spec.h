// A design-space sweep (`systole sweep SPEC.yaml`): a base config, models, and a grid of config
// overrides (every combination, or a seeded random sample of them). Each point of the grid is a
// list of `--set KEY=VALUE` overrides; each (point, model) pair is one `systole run`.
//
//   isa: default                      # a shipped config's name or a path (relative to the spec)
//   models: [resnet18.onnx, {path: mlp.onnx, calib: samples/}]
//   grid:                             # in this order; the last key varies fastest
//     array: [{array.rows: 8, array.cols: 8}, {array.rows: 16, array.cols: 16}]   # linked keys
//     memories.dram.bytes_per_cycle: [8, 16, 32]
//   sample: {count: 4, seed: 1}       # optional: that many distinct points drawn from the grid
//   options: [--timing-only]          # optional: more `systole run` flags for every run
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace systole::tools {

struct SweepModel {
  std::string path;       // resolved against the spec's folder
  std::string name;       // the file's stem, unique in the sweep: names its result files
  std::string calib;      // --calib DIR|FILE.npz, resolved; empty: the default calibration
  int line = 0, col = 0;  // where the spec names it
};

struct SweepPoint {
  size_t id = 0;  // the point's index in the whole grid (stable whether or not it is sampled)
  std::vector<std::pair<std::string, std::string>> overrides;  // KEY, VALUE as given to --set
  std::vector<std::string> values;  // one text per grid dimension, for tables ("16x16", "32")
};

struct SweepSpec {
  std::string file;  // the spec's path
  std::string isa;   // as given: a shipped name, or a path resolved against the spec's folder
  std::vector<SweepModel> models;
  std::vector<std::string> dimensions;  // the grid's keys, in order
  std::vector<SweepPoint> points;       // the points to run, in grid order
  size_t grid_size = 0;                 // points in the whole grid
  std::vector<std::string> options;     // extra `systole run` flags

  /// Every (point, model) run: run k is point k / models.size(), model k % models.size().
  size_t runCount() const { return points.size() * models.size(); }
};

/// Parses a spec; every problem is an Error at file:line:col.
SweepSpec parseSweepSpec(const std::string& text, const std::string& file);
SweepSpec loadSweepSpec(const std::string& file);

}  // namespace systole::tools
