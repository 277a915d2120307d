// Algorithm: the grid is the Cartesian product of its dimensions, numbered in row-major order
// (the last dimension varies fastest), so a point's id is the same whether it is run alone, in a
// sample or in the whole grid, and a resumed sweep finds its earlier results by id. A sample is
// a seeded partial Fisher-Yates shuffle of the ids, run in id order.
#include "sweep_spec.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <numeric>
#include <optional>
#include <random>
#include <set>

#include "systole/isa/diagnostic.h"
#include "systole/isa/file_io.h"

namespace systole::tools {

namespace {

constexpr size_t kMaxGridPoints = 1'000'000;

struct Reader {
  std::string file;
  std::filesystem::path folder;

  SourceLocation at(const YAML::Node& n) const {
    const YAML::Mark m = n.Mark();
    return m.is_null() ? SourceLocation{file, 0, 0} : SourceLocation{file, m.line + 1, m.column + 1};
  }
  [[noreturn]] void fail(const YAML::Node& n, const std::string& message) const { throw Error(at(n), message); }

  std::string scalar(const YAML::Node& n, const std::string& what) const {
    if (!n.IsScalar() || n.Scalar().empty()) fail(n, what + " must be a non-empty scalar");
    return n.Scalar();
  }
  std::string path(const YAML::Node& n, const std::string& what) const {
    const std::filesystem::path p = scalar(n, what);
    return (p.is_absolute() ? p : folder / p).lexically_normal().string();
  }
};

SweepModel readModel(const Reader& r, const YAML::Node& n) {
  SweepModel m;
  if (n.IsMap()) {
    for (auto it = n.begin(); it != n.end(); ++it) {
      const std::string key = r.scalar(it->first, "a model's key");
      if (key == "path")
        m.path = r.path(it->second, "models[].path");
      else if (key == "calib")
        m.calib = r.path(it->second, "models[].calib");
      else
        r.fail(it->first, "unknown key '" + key + "' in a model (expected: path, calib)");
    }
    if (m.path.empty()) r.fail(n, "a model needs a path");
  } else {
    m.path = r.path(n, "a model");
  }
  m.name = std::filesystem::path(m.path).stem().string();
  const SourceLocation where = r.at(n);
  m.line = where.line;
  m.col = where.col;
  return m;
}

/// One dimension's values: each a list of overrides and its text for tables.
struct Dimension {
  std::string name;
  std::vector<std::vector<std::pair<std::string, std::string>>> overrides;
  std::vector<std::string> texts;
};

Dimension readDimension(const Reader& r, const YAML::Node& key, const YAML::Node& values) {
  Dimension d;
  d.name = r.scalar(key, "a grid key");
  if (!values.IsSequence() || values.size() == 0)
    r.fail(values, "grid." + d.name + " must be a non-empty list of values");
  for (const YAML::Node& v : values) {
    std::vector<std::pair<std::string, std::string>> sets;
    std::string text;
    if (v.IsMap()) {  // linked keys: one value of this dimension sets them all
      for (auto it = v.begin(); it != v.end(); ++it) {
        sets.emplace_back(r.scalar(it->first, "a linked key"), r.scalar(it->second, "a linked key's value"));
        text += (text.empty() ? "" : "x") + sets.back().second;
      }
      if (sets.empty()) r.fail(v, "an empty set of linked keys");
    } else {
      sets.emplace_back(d.name, r.scalar(v, "grid." + d.name + "'s value"));
      text = sets.back().second;
    }
    for (const auto& [k, value] : sets)
      if (k.find('=') != std::string::npos || k.empty()) r.fail(v, "'" + k + "' is not a config key");
    d.overrides.push_back(std::move(sets));
    d.texts.push_back(std::move(text));
  }
  return d;
}

std::vector<size_t> sampleIds(const Reader& r, const YAML::Node& sample, size_t gridSize) {
  if (!sample.IsMap()) r.fail(sample, "sample must be a map {count: N, seed: S}");
  int64_t count = -1;
  uint64_t seed = 1;
  for (auto it = sample.begin(); it != sample.end(); ++it) {
    const std::string key = r.scalar(it->first, "a sample key");
    try {
      if (key == "count")
        count = it->second.as<int64_t>();
      else if (key == "seed")
        seed = it->second.as<uint64_t>();
      else
        r.fail(it->first, "unknown key '" + key + "' in sample (expected: count, seed)");
    } catch (const YAML::Exception&) {
      r.fail(it->second, "sample." + key + " must be a non-negative integer");
    }
  }
  if (count < 1) r.fail(sample, "sample needs a count of at least 1");
  std::vector<size_t> ids(gridSize);
  std::iota(ids.begin(), ids.end(), size_t{0});
  const size_t n = std::min(static_cast<size_t>(count), gridSize);
  std::mt19937_64 rng(seed);
  for (size_t i = 0; i < n; ++i)
    std::swap(ids[i], ids[i + std::uniform_int_distribution<size_t>(0, gridSize - 1 - i)(rng)]);
  ids.resize(n);
  std::sort(ids.begin(), ids.end());
  return ids;
}

}  // namespace

SweepSpec parseSweepSpec(const std::string& text, const std::string& file) {
  Reader r{file, std::filesystem::path(file).parent_path()};
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw Error(SourceLocation{file, e.mark.line + 1, e.mark.column + 1}, e.msg);
  }
  if (!root.IsMap()) throw Error(SourceLocation{file, 1, 1}, "a sweep spec is a map with isa, models and grid");
  SweepSpec spec;
  spec.file = file;
  std::optional<YAML::Node> grid, sample;  // absent unless the spec has them
  for (auto it = root.begin(); it != root.end(); ++it) {
    const std::string key = r.scalar(it->first, "a key");
    const YAML::Node v = it->second;
    if (key == "isa") {
      const std::string isa = r.scalar(v, "isa");
      spec.isa = isa.find('/') == std::string::npos && isa.find('.') == std::string::npos ? isa : r.path(v, "isa");
    } else if (key == "models") {
      if (!v.IsSequence() || v.size() == 0) r.fail(v, "models must be a non-empty list");
      std::set<std::string> names;
      for (const YAML::Node& m : v) {
        spec.models.push_back(readModel(r, m));
        if (!names.insert(spec.models.back().name).second)
          r.fail(m, "two models are called '" + spec.models.back().name +
                        "' (result files are named by the model's file name)");
      }
    } else if (key == "grid") {
      grid = v;
    } else if (key == "sample") {
      sample = v;
    } else if (key == "options") {
      if (!v.IsSequence()) r.fail(v, "options must be a list of `systole run` flags");
      for (const YAML::Node& o : v) spec.options.push_back(r.scalar(o, "an option"));
    } else {
      r.fail(it->first, "unknown key '" + key + "' (expected: isa, models, grid, sample, options)");
    }
  }
  if (spec.isa.empty())
    throw Error(SourceLocation{file, 1, 1}, "the spec needs an isa (a shipped config's name or a path)");
  if (spec.models.empty()) throw Error(SourceLocation{file, 1, 1}, "the spec needs models");
  if (!grid) throw Error(SourceLocation{file, 1, 1}, "the spec needs a grid");
  if (!grid->IsMap() || grid->size() == 0) r.fail(*grid, "grid must be a map of config keys to lists of values");
  std::vector<Dimension> dims;
  spec.grid_size = 1;
  for (auto it = grid->begin(); it != grid->end(); ++it) {
    dims.push_back(readDimension(r, it->first, it->second));
    spec.dimensions.push_back(dims.back().name);
    spec.grid_size *= dims.back().texts.size();
    if (spec.grid_size > kMaxGridPoints)
      r.fail(it->first, "the grid has more than " + std::to_string(kMaxGridPoints) + " points; use sample");
  }
  std::vector<size_t> ids(spec.grid_size);
  std::iota(ids.begin(), ids.end(), size_t{0});
  if (sample) ids = sampleIds(r, *sample, spec.grid_size);
  for (size_t id : ids) {
    SweepPoint p;
    p.id = id;
    size_t rest = id;
    std::vector<size_t> index(dims.size());
    for (size_t d = dims.size(); d-- > 0;) {
      index[d] = rest % dims[d].texts.size();
      rest /= dims[d].texts.size();
    }
    for (size_t d = 0; d < dims.size(); ++d) {
      for (const auto& o : dims[d].overrides[index[d]]) p.overrides.push_back(o);
      p.values.push_back(dims[d].texts[index[d]]);
    }
    spec.points.push_back(std::move(p));
  }
  return spec;
}

SweepSpec loadSweepSpec(const std::string& file) { return parseSweepSpec(readTextFile(file), file); }

}  // namespace systole::tools
