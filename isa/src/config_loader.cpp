// Algorithm: parse the YAML with yaml-cpp (which keeps each node's line and column), walk it with a
// strict reader that rejects unknown, duplicate and missing keys at their position, fill Params,
// derive the rest, then build and cross-check the instruction table (names, opcodes, field layout,
// operands of each semantics class, expressions).
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <set>

#include "systole/isa/config.h"
#include "systole/isa/file_io.h"

namespace systole::isa {

uint64_t fnv1a64(const void* data, size_t size, uint64_t seed) {
  uint64_t h = seed;
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < size; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

int InstrDesc::fieldIndex(std::string_view field) const {
  for (size_t i = 0; i < fields.size(); ++i)
    if (fields[i].name == field) return static_cast<int>(i);
  return -1;
}

int IsaConfig::byName(std::string_view name) const {
  for (size_t i = 0; i < instrs_.size(); ++i)
    if (instrs_[i].name == name) return static_cast<int>(i);
  return -1;
}

int IsaConfig::bySemantics(Semantics s) const {
  for (size_t i = 0; i < instrs_.size(); ++i)
    if (instrs_[i].semantics == s) return static_cast<int>(i);
  return -1;
}

class ConfigLoader {
 public:
  explicit ConfigLoader(std::string file) : file_(std::move(file)) {}

  IsaConfig load(const std::string& text, const std::vector<ConfigOverride>& overrides) {
    YAML::Node root;
    try {
      root = YAML::Load(text);
    } catch (const YAML::ParserException& e) {
      throw Error({file_, e.mark.line + 1, e.mark.column + 1}, "malformed YAML: " + e.msg);
    }
    if (!root.IsMap()) {
      SourceLocation where = at(root);  // past any leading comments; 1:1 for an empty file
      if (where.line == 0) where = {file_, 1, 1};
      throw Error(where, "an ISA config must be a mapping of keys to values");
    }
    std::string hashed = text;
    for (const ConfigOverride& o : overrides) {
      apply(root, o);
      hashed += "\n" + o.text();
    }
    IsaConfig config;
    config.path_ = file_;
    config.hash_ = fnv1a64(hashed.data(), hashed.size());
    readParams(root, config.params_);
    readInstructions(root, config);
    return config;
  }

 private:
  /// Replaces (or adds) the value at `o.key`: maps by key (a missing one is made, so an optional
  /// section can be set without writing it in the file), the instruction list by name;
  /// `instructions.NAME=~` removes that instruction (a design without it).
  void apply(YAML::Node root, const ConfigOverride& o) {
    YAML::Node value;
    try {
      value = YAML::Load(o.value);
    } catch (const YAML::ParserException& e) {
      throw Error({o.text(), 0, 0}, "malformed YAML value: " + e.msg);
    }
    if (const std::string prefix = "instructions."; value.IsNull() && o.key.starts_with(prefix))
      return removeInstruction(root, o.key.substr(prefix.size()), o);
    std::vector<std::string> path;
    for (size_t start = 0;;) {
      const size_t dot = o.key.find('.', start);
      path.push_back(o.key.substr(start, dot - start));
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    YAML::Node node = root;
    std::string where;
    for (size_t i = 0; i + 1 < path.size(); ++i) {
      std::string part = path[i];
      YAML::Node next;
      if (node.IsSequence()) {  // an instruction by name; a mnemonic may contain dots (gemm.stream)
        const auto itemNamed = [&node](const std::string& name) {
          for (YAML::Node item : node)
            if (item.IsMap() && item["name"] && item["name"].IsScalar() && item["name"].Scalar() == name) return item;
          return YAML::Node();
        };
        std::string name = part;
        for (size_t j = i;;) {  // the longest run of parts that names one, leaving the last part
          if (YAML::Node item = itemNamed(name); item.IsMap()) {
            next.reset(item);
            part = name;
            i = j;
          }
          if (++j + 1 >= path.size()) break;
          name += "." + path[j];
        }
      } else if (node.IsMap() && node[part]) {
        next.reset(node[part]);
      } else if (node.IsMap()) {                       // an absent section (energy:, area:) is made; the reader then
        node[part] = YAML::Node(YAML::NodeType::Map);  // rejects it as it would in the file
        next.reset(node[part]);
        for (auto it = node.begin(); it != node.end(); ++it)
          if (it->first.IsScalar() && it->first.Scalar() == part) remember(it->first, o);
      }
      if (!next.IsDefined() || next.IsNull())
        throw Error({o.text(), 0, 0},
                    "no " + (node.IsSequence() ? "instruction named '" + part + "'" : "key '" + part + "'") + " in '" +
                        (where.empty() ? "the config" : where) + "'");
      if (!next.IsMap() && !next.IsSequence())
        throw Error({o.text(), 0, 0}, "'" + where + (where.empty() ? "" : ".") + part + "' is not a mapping");
      where += (where.empty() ? "" : ".") + part;
      node.reset(next);  // rebind (operator= would overwrite the node it refers to)
    }
    if (!node.IsMap())
      throw Error({o.text(), 0, 0}, "'" + (where.empty() ? std::string("the config") : where) + "' is not a mapping");
    node[path.back()] = value;
    for (auto it = node.begin(); it != node.end(); ++it)
      if (it->first.IsScalar() && it->first.Scalar() == path.back()) remember(it->first, o);
    remember(node[path.back()], o);
  }

  void removeInstruction(YAML::Node root, const std::string& name, const ConfigOverride& o) {
    const YAML::Node list = root["instructions"];
    YAML::Node kept(YAML::NodeType::Sequence);
    bool found = false;
    if (list.IsSequence())
      for (const YAML::Node& item : list) {
        const bool named = item.IsMap() && item["name"] && item["name"].IsScalar() && item["name"].Scalar() == name;
        found |= named;
        if (!named) kept.push_back(item);
      }
    if (!found) throw Error({o.text(), 0, 0}, "no instruction named '" + name + "' to remove");
    root["instructions"] = kept;
  }

  /// Nodes an override made are reported against it, not against the file.
  void remember(const YAML::Node& n, const ConfigOverride& o) {
    overridden_.emplace_back(n, o.text());
    if (n.IsMap())
      for (auto it = n.begin(); it != n.end(); ++it) remember(it->first, o), remember(it->second, o);
    else if (n.IsSequence())
      for (const YAML::Node& item : n) remember(item, o);
  }

  SourceLocation at(const YAML::Node& n) const {
    for (const auto& [node, text] : overridden_)
      if (n.is(node)) return {text, 0, 0};
    const YAML::Mark m = n.Mark();
    if (m.is_null()) return {file_, 0, 0};
    return {file_, m.line + 1, m.column + 1};
  }

  /// Checks that `map` is a mapping with only `allowed` keys, each at most once, and all `required`.
  void checkKeys(const YAML::Node& map, const std::string& what, std::initializer_list<const char*> allowed,
                 std::initializer_list<const char*> required) const {
    checkKeys(map, what, std::vector<std::string>(allowed.begin(), allowed.end()),
              std::vector<std::string>(required.begin(), required.end()));
  }

  void checkKeys(const YAML::Node& map, const std::string& what, const std::vector<std::string>& allowed,
                 const std::vector<std::string>& required) const {
    if (!map.IsMap()) throw Error(at(map), "'" + what + "' must be a mapping");
    std::set<std::string> seen;
    for (auto it = map.begin(); it != map.end(); ++it) {
      if (!it->first.IsScalar()) throw Error(at(it->first), "a key in '" + what + "' must be a plain name");
      const std::string key = it->first.Scalar();
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        std::string list;
        for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
        throw Error(at(it->first), "unknown key '" + key + "' in '" + what + "' (expected: " + list + ")");
      }
      if (!seen.insert(key).second) throw Error(at(it->first), "duplicate key '" + key + "' in '" + what + "'");
    }
    for (const std::string& r : required)
      if (!seen.count(r)) throw Error(at(map), "missing key '" + r + "' in '" + what + "'");
  }

  std::string str(const YAML::Node& n, const std::string& what) const {
    if (!n.IsScalar()) throw Error(at(n), "'" + what + "' must be a string");
    return n.Scalar();
  }

  /// An integer: decimal or 0x-hex, optionally with a binary size suffix (KiB, MiB, GiB) when
  /// `sizes` is set. Range-checked against [lo, hi].
  int64_t integer(const YAML::Node& n, const std::string& what, int64_t lo, int64_t hi, bool sizes = false) const {
    if (!n.IsScalar()) throw Error(at(n), "'" + what + "' must be an integer");
    std::string s = n.Scalar();
    int64_t scale = 1;
    if (sizes) {
      static const std::pair<const char*, int64_t> suffixes[] = {
          {"KiB", 1ll << 10}, {"MiB", 1ll << 20}, {"GiB", 1ll << 30}};
      for (const auto& [suffix, factor] : suffixes) {
        const std::string sx = suffix;
        if (s.size() > sx.size() && s.compare(s.size() - sx.size(), sx.size(), sx) == 0) {
          s = s.substr(0, s.size() - sx.size());
          while (!s.empty() && s.back() == ' ') s.pop_back();
          scale = factor;
          break;  // one suffix only: "1MiBKiB" is not a size
        }
      }
    }
    int base = 10;
    std::string digits = s;
    if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
      base = 16;
      digits = digits.substr(2);
    }
    int64_t value = 0;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
    if (ec != std::errc() || ptr != digits.data() + digits.size() || digits.empty())
      throw Error(at(n), "'" + what + "' must be an integer" +
                             std::string(sizes ? " (optionally with KiB, MiB or GiB)" : "") + ", got '" + n.Scalar() +
                             "'");
    // Compare before scaling, so that no value overflows when the suffix is applied.
    if (scale > 1 && value > hi / scale)
      throw Error(at(n), "'" + what + "' is too large: " + n.Scalar() + " (at most " + std::to_string(hi) + ")");
    if (value < lo / scale - 1 || value * scale < lo || value * scale > hi)
      throw Error(at(n), "'" + what + "' must be between " + std::to_string(lo) + " and " + std::to_string(hi) +
                             ", got " + n.Scalar());
    return value * scale;
  }

  /// A finite, non-negative decimal number (energies and areas: "0.3", "1e-3").
  double number(const YAML::Node& n, const std::string& what) const {
    if (!n.IsScalar()) throw Error(at(n), "'" + what + "' must be a number");
    const std::string& s = n.Scalar();
    double value = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec != std::errc() || ptr != s.data() + s.size() || s.empty())
      throw Error(at(n), "'" + what + "' must be a number, got '" + s + "'");
    if (!std::isfinite(value) || value < 0) throw Error(at(n), "'" + what + "' must be a finite number >= 0, got " + s);
    return value;
  }

  /// The optional `energy:` and `area:` sections: each key of costParameters(), its default
  /// where the config omits it.
  void readCost(const YAML::Node& root, CostModel& cost) const {
    cost = defaultCostModel();
    for (const char* section : {"energy", "area"}) {
      const YAML::Node node = root[section];
      if (!node) continue;
      std::vector<std::string> keys;
      for (const CostParameter& c : costParameters())
        if (c.section == section) keys.emplace_back(c.key);
      checkKeys(node, section, keys, {});
      for (const CostParameter& c : costParameters())
        if (c.section == section && node[std::string(c.key)]) {
          const YAML::Node value = node[std::string(c.key)];
          const std::string what = std::string(section) + "." + std::string(c.key);
          cost.*c.member = number(value, what);
          if (cost.*c.member > c.max_value)
            throw Error(at(value),
                        "'" + what + "' must be at most " + formatCost(c.max_value) + ", got " + value.Scalar());
        }
    }
  }

  bool boolean(const YAML::Node& n, const std::string& what) const {
    if (n.IsScalar()) {
      if (n.Scalar() == "true") return true;
      if (n.Scalar() == "false") return false;
    }
    throw Error(at(n), "'" + what + "' must be true or false");
  }

  void readParams(const YAML::Node& root, Params& p) {
    checkKeys(root, "config",
              {"name", "description", "clock_mhz", "types", "array", "memories", "dma", "vector", "queues", "host",
               "energy", "area", "encoding", "instructions"},
              {"name", "clock_mhz", "types", "array", "memories", "dma", "vector", "queues", "host", "encoding",
               "instructions"});
    p.name = str(root["name"], "name");
    if (p.name.empty() || !std::all_of(p.name.begin(), p.name.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
        }))
      throw Error(at(root["name"]), "'name' must be a non-empty identifier (letters, digits, '_', '-')");
    if (root["description"]) p.description = str(root["description"], "description");
    p.clock_mhz = integer(root["clock_mhz"], "clock_mhz", 1, 100000);

    readTypes(root["types"], p);

    const YAML::Node array = root["array"];
    checkKeys(array, "array", {"rows", "cols", "dataflow", "weight_buffers", "line_buffer_rows"},
              {"rows", "cols", "dataflow"});
    p.array_rows = integer(array["rows"], "array.rows", 1, 256);
    p.array_cols = integer(array["cols"], "array.cols", 1, 256);
    if (array["weight_buffers"])
      p.array_weight_buffers = integer(array["weight_buffers"], "array.weight_buffers", 1, 2);
    if (array["line_buffer_rows"])
      p.array_line_buffer_rows = integer(array["line_buffer_rows"], "array.line_buffer_rows", 0, 65536);
    const std::string df = str(array["dataflow"], "array.dataflow");
    if (df == "weight_stationary")
      p.dataflow = Dataflow::WeightStationary;
    else if (df == "output_stationary")
      p.dataflow = Dataflow::OutputStationary;
    else
      throw Error(at(array["dataflow"]),
                  "array.dataflow must be weight_stationary or output_stationary, got '" + df + "'");

    readMemories(root["memories"], p);
    readUnits(root, p);
    readCost(root, p.cost);
    scaleForOperandWidths(p.cost, p.act_bits, p.widestWeightBits());
    deriveParameters(p, at(root["memories"]));
  }

  /// memories: dram, scratchpad, accumulator.
  /// types: int8 or int16 activations (the scratchpad's lanes); int32, int24 or int16
  /// accumulators; weights int8, int4, or a list of them (the first is every layer's default; the
  /// compiler may choose another per layer).
  void readTypes(const YAML::Node& types, Params& p) {
    checkKeys(types, "types", {"activation", "weight", "accumulator"}, {"activation", "weight", "accumulator"});
    const std::string act = str(types["activation"], "types.activation");
    p.act_bits = activationTypeBits(act);
    if (p.act_bits == 0)
      throw Error(at(types["activation"]), "types.activation must be int8 or int16, got '" + act + "'");
    const std::string acc = str(types["accumulator"], "types.accumulator");
    p.acc_bits = accumulatorTypeBits(acc);
    if (p.acc_bits == 0)
      throw Error(at(types["accumulator"]), "types.accumulator must be int32, int24 or int16, got '" + acc + "'");
    const YAML::Node weight = types["weight"];
    std::vector<YAML::Node> names;
    if (weight.IsSequence()) {
      for (const YAML::Node& n : weight) names.push_back(n);
      if (names.empty()) throw Error(at(weight), "types.weight must name at least one type");
    } else {
      names.push_back(weight);
    }
    p.weight_bits.clear();
    for (const YAML::Node& n : names) {
      const std::string name = str(n, "types.weight");
      const int bits = weightTypeBits(name);
      if (bits == 0) throw Error(at(n), "types.weight must be int8 or int4 (or a list of them), got '" + name + "'");
      if (std::find(p.weight_bits.begin(), p.weight_bits.end(), bits) != p.weight_bits.end())
        throw Error(at(n), "types.weight lists '" + name + "' twice");
      p.weight_bits.push_back(bits);
    }
    typesAt_ = at(weight);
  }

  void readMemories(const YAML::Node& mem, Params& p) {
    checkKeys(mem, "memories", {"dram", "scratchpad", "accumulator"}, {"dram", "scratchpad", "accumulator"});
    const YAML::Node dram = mem["dram"];
    checkKeys(dram, "memories.dram", {"size", "bytes_per_cycle", "latency"}, {"size", "bytes_per_cycle", "latency"});
    // At most 4 GiB: the simulator backs every byte a program's tensors cover (issue 16 D9: a
    // 1 TiB DRAM let one program's tensor table make `sim` allocate 256 GiB).
    p.dram_size = integer(dram["size"], "memories.dram.size", 1, kMaxDramSize, true);
    p.dram_bytes_per_cycle = integer(dram["bytes_per_cycle"], "memories.dram.bytes_per_cycle", 1, 4096);
    p.dram_latency = integer(dram["latency"], "memories.dram.latency", 0, 100000);
    const YAML::Node spad = mem["scratchpad"];
    checkKeys(spad, "memories.scratchpad", {"size", "banks", "conflict_cycles"}, {"size", "banks", "conflict_cycles"});
    p.spad_size = integer(spad["size"], "memories.scratchpad.size", 1, int64_t{1} << 30, true);
    p.spad_banks = integer(spad["banks"], "memories.scratchpad.banks", 1, 64);
    p.spad_conflict_cycles = integer(spad["conflict_cycles"], "memories.scratchpad.conflict_cycles", 0, 1000);
    const YAML::Node acc = mem["accumulator"];
    checkKeys(acc, "memories.accumulator", {"size", "banks", "conflict_cycles"}, {"size", "banks", "conflict_cycles"});
    p.acc_size = integer(acc["size"], "memories.accumulator.size", 1, int64_t{1} << 30, true);
    p.acc_banks = integer(acc["banks"], "memories.accumulator.banks", 1, 64);
    p.acc_conflict_cycles = integer(acc["conflict_cycles"], "memories.accumulator.conflict_cycles", 0, 1000);
  }

  /// dma, vector, queues, host and encoding.
  void readUnits(const YAML::Node& root, Params& p) {
    const YAML::Node dma = root["dma"];
    checkKeys(dma, "dma", {"burst_bytes", "outstanding", "broadcast"}, {"burst_bytes"});
    p.dma_burst_bytes = integer(dma["burst_bytes"], "dma.burst_bytes", 1, 1 << 20);
    if (dma["outstanding"]) p.dma_outstanding = integer(dma["outstanding"], "dma.outstanding", 1, 256);
    if (dma["broadcast"]) p.dma_broadcast = boolean(dma["broadcast"], "dma.broadcast") ? 1 : 0;
    const YAML::Node vec = root["vector"];
    checkKeys(vec, "vector", {"latency", "parallel"}, {"latency"});
    p.vector_latency = integer(vec["latency"], "vector.latency", 0, 1000);
    if (vec["parallel"]) p.vector_parallel = boolean(vec["parallel"], "vector.parallel") ? 1 : 0;
    const YAML::Node q = root["queues"];
    checkKeys(q, "queues", {"load", "compute", "store"}, {"load", "compute", "store"});
    for (Unit u : {Unit::Load, Unit::Compute, Unit::Store}) {
      const std::string key(unitName(u));
      p.queue_depth[static_cast<int>(u)] = integer(q[key], "queues." + key, 1, 4096);
    }

    const YAML::Node host = root["host"];
    checkKeys(host, "host", {"elements_per_cycle", "macs_per_cycle", "op_cycles"},
              {"elements_per_cycle", "macs_per_cycle", "op_cycles"});
    p.host_elements_per_cycle = integer(host["elements_per_cycle"], "host.elements_per_cycle", 1, 1 << 20);
    p.host_macs_per_cycle = integer(host["macs_per_cycle"], "host.macs_per_cycle", 1, 1 << 20);
    p.host_op_cycles = integer(host["op_cycles"], "host.op_cycles", 0, 100000000);

    const YAML::Node enc = root["encoding"];
    checkKeys(enc, "encoding", {"width", "opcode_bits"}, {"width", "opcode_bits"});
    p.instr_bits = integer(enc["width"], "encoding.width", 32, 512);
    if (p.instr_bits % 32 != 0) throw Error(at(enc["width"]), "encoding.width must be a multiple of 32 bits");
    p.opcode_bits = integer(enc["opcode_bits"], "encoding.opcode_bits", 1, 16);
  }

  std::optional<NameBinding> param(const Params& p, std::string_view name) const {
    for (const auto& e : parameterTable(p))
      if (e.name == name) return NameBinding{NameBinding::Kind::Constant, e.value, 0};
    return std::nullopt;
  }

  /// Location of the first character of a scalar's text (past an opening quote).
  SourceLocation textStart(const YAML::Node& n) const {
    SourceLocation loc = at(n);
    return n.Tag() == "!" ? loc.shifted(1) : loc;
  }

  void readInstructions(const YAML::Node& root, IsaConfig& config) {
    const Params& p = config.params_;
    const YAML::Node list = root["instructions"];
    if (!list.IsSequence() || list.size() == 0) throw Error(at(list), "'instructions' must be a non-empty list");
    config.opcode_table_.assign(size_t{1} << p.opcode_bits, -1);
    for (const YAML::Node& n : list) {
      InstrDesc d = readInstruction(n, p);
      if (config.byName(d.name) >= 0) throw Error(at(n["name"]), "duplicate instruction name '" + d.name + "'");
      int& slot = config.opcode_table_[d.opcode];
      if (slot >= 0)
        throw Error(at(n["opcode"]), "opcode " + std::to_string(d.opcode) + " of '" + d.name +
                                         "' is already used by '" + config.instrs_[static_cast<size_t>(slot)].name +
                                         "'");
      slot = static_cast<int>(config.instrs_.size());
      config.instrs_.push_back(std::move(d));
    }
    if (config.bySemantics(Semantics::Finish) < 0)
      throw Error(at(list), "the instruction set needs an instruction with semantics 'finish'");
    if (p.offersWeightBits(4) && config.bySemantics(Semantics::DmaLoadInt4) < 0)
      throw Error(typesAt_, "types.weight offers int4, which needs an instruction with semantics 'dma_load_int4'");
    config.params_.vector_mac_lanes = config.bySemantics(Semantics::VectorMac) >= 0 ? p.vector_lanes : 0;
    if (const int dw = config.bySemantics(Semantics::DepthwiseTile); dw >= 0) {
      const InstrDesc& d = config.instrs_[static_cast<size_t>(dw)];
      if (p.dataflow != Dataflow::WeightStationary)
        throw Error(d.where, "'" + d.name + "' (depthwise_tile) needs a weight_stationary array");
      if (p.array_line_buffer_rows < 1)
        throw Error(d.where, "'" + d.name + "' (depthwise_tile) needs array.line_buffer_rows, the rows of the " +
                                 "line buffer that feeds the array its windows");
    }
  }

  InstrDesc readInstruction(const YAML::Node& n, const Params& p) {
    checkKeys(n, "instruction", {"name", "opcode", "unit", "semantics", "fields", "timing"},
              {"name", "opcode", "unit", "semantics", "fields", "timing"});
    InstrDesc d;
    d.where = at(n);
    d.name = str(n["name"], "name");
    if (d.name.empty() || !std::all_of(d.name.begin(), d.name.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
        }))
      throw Error(at(n["name"]), "instruction name '" + d.name + "' must use only letters, digits, '_' and '.'");
    d.opcode = static_cast<uint32_t>(integer(n["opcode"], "opcode", 0, (int64_t{1} << p.opcode_bits) - 1));
    const std::string unit = str(n["unit"], "unit");
    auto u = unitByName(unit);
    if (!u) throw Error(at(n["unit"]), "unknown unit '" + unit + "' (expected load, compute or store)");
    d.unit = *u;
    const std::string sem = str(n["semantics"], "semantics");
    auto s = semanticsByName(sem);
    if (!s) {
      std::string known;
      for (const auto& info : allSemantics()) known += std::string(known.empty() ? "" : ", ") + std::string(info.name);
      throw Error(at(n["semantics"]), "unknown semantics class '" + sem + "' (known: " + known + ")");
    }
    d.semantics = *s;
    const SemanticsInfo& info = semanticsInfo(d.semantics);
    if (d.semantics != Semantics::Nop && info.unit != d.unit)
      throw Error(at(n["unit"]), "semantics '" + sem + "' runs on the " + std::string(unitName(info.unit)) +
                                     " unit, not '" + unit + "'");
    readFields(n["fields"], p, d);
    for (int k = 0; k < info.operandCount(); ++k) {
      int idx = d.fieldIndex(info.operands[static_cast<size_t>(k)]);
      if (idx < 0)
        throw Error(at(n["fields"]), "instruction '" + d.name + "' (semantics " + sem + ") needs a field named '" +
                                         std::string(info.operands[static_cast<size_t>(k)]) + "'");
      d.operand_field[static_cast<size_t>(k)] = idx;
    }
    const YAML::Node timing = n["timing"];
    checkKeys(timing, "timing", {"cycles", "issue"}, {"cycles"});
    const auto names = [&](std::string_view name) -> std::optional<NameBinding> {
      int idx = d.fieldIndex(name);
      if (idx >= 0) return NameBinding{NameBinding::Kind::Field, 0, idx};
      return param(p, name);
    };
    d.cycles = Expr::compile(str(timing["cycles"], "timing.cycles"), names, textStart(timing["cycles"]));
    checkTiming(d, d.cycles, timing["cycles"], "timing.cycles");
    if (timing["issue"]) {
      if (d.semantics == Semantics::Finish)
        throw Error(at(timing["issue"]),
                    "'timing.issue' does not apply to 'finish' (it waits for every instruction to complete)");
      d.issue = Expr::compile(str(timing["issue"], "timing.issue"), names, textStart(timing["issue"]));
      checkTiming(d, d.issue, timing["issue"], "timing.issue");
      d.has_issue = true;
    }
    return d;
  }

  /// A timing must be a cycle count for every legal operand: evaluated with every field at 0, at
  /// its limit, each field alone at its limit (and at its minimum, if signed), it may neither
  /// fail (division by zero, overflow) nor go negative.
  void checkTiming(const InstrDesc& d, const Expr& e, const YAML::Node& where, const std::string& key) {
    const size_t n = d.fields.size();
    std::vector<std::vector<int64_t>> points(2, std::vector<int64_t>(n, 0));
    for (size_t i = 0; i < n; ++i) {
      points[1][i] = d.fields[i].limit();
      for (int64_t v : {d.fields[i].limit(), d.fields[i].minValue()}) {
        points.emplace_back(n, 0);
        points.back()[i] = v;
      }
    }
    for (const auto& fields : points) {
      std::string values;
      for (size_t i = 0; i < n; ++i) values += (i ? ", " : "") + d.fields[i].name + "=" + std::to_string(fields[i]);
      int64_t cycles = 0;
      try {
        cycles = e.eval(fields);
      } catch (const Error& err) {
        throw Error(at(where), "instruction '" + d.name + "': " + key + " fails for legal operands (" + values +
                                   "): " + err.message());
      }
      if (cycles < 0)
        throw Error(at(where), "instruction '" + d.name + "': " + key + " is negative (" + std::to_string(cycles) +
                                   ") for legal operands (" + values + ")");
    }
  }

  /// `bits:` is an integer or an expression of the parameters (`bits_for(scratchpad.rows - 1)`),
  /// so a width follows the array and the memories it addresses.
  int fieldWidth(const YAML::Node& n, const Params& p, FieldDesc& fd) {
    if (!n.IsScalar()) throw Error(at(n), "'bits' must be an integer or an expression of parameters");
    const Expr width = Expr::compile(
        n.Scalar(), [&](std::string_view name) { return param(p, name); }, textStart(n));
    const int64_t bits = width.eval();
    const bool literal = std::all_of(n.Scalar().begin(), n.Scalar().end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!literal) fd.bits_expr = width.text();
    if (bits < 1 || bits > 63)
      throw Error(at(n), "'bits' must be between 1 and 63, got " + std::to_string(bits) +
                             (literal ? "" : " (= " + width.text() + ")"));
    return static_cast<int>(bits);
  }

  void readFields(const YAML::Node& list, const Params& p, InstrDesc& d) {
    if (!list.IsSequence()) throw Error(at(list), "'fields' must be a list");
    if (list.size() > kMaxFields)
      throw Error(at(list), "an instruction has at most " + std::to_string(kMaxFields) + " fields");
    const SemanticsInfo& info = semanticsInfo(d.semantics);
    int next = static_cast<int>(p.fields_lsb);
    for (const YAML::Node& f : list) {
      checkKeys(f, "field", {"name", "bits", "lsb", "signed", "max"}, {"name", "bits"});
      FieldDesc fd;
      fd.where = at(f);
      fd.name = str(f["name"], "field name");
      if (d.fieldIndex(fd.name) >= 0)
        throw Error(at(f["name"]), "duplicate field '" + fd.name + "' in '" + d.name + "'");
      bool isOperand = false;
      for (int k = 0; k < info.operandCount(); ++k) isOperand |= info.operands[static_cast<size_t>(k)] == fd.name;
      if (!isOperand) {
        std::string list;
        for (int k = 0; k < info.operandCount(); ++k)
          list += std::string(k ? ", " : "") + std::string(info.operands[static_cast<size_t>(k)]);
        throw Error(at(f["name"]), "field '" + fd.name + "' is not an operand of semantics '" + std::string(info.name) +
                                       "' (operands: " + (list.empty() ? "none" : list) + ")");
      }
      fd.bits = fieldWidth(f["bits"], p, fd);
      fd.lsb = f["lsb"] ? static_cast<int>(integer(f["lsb"], "lsb", 0, 511)) : next;
      if (f["signed"]) fd.is_signed = boolean(f["signed"], "signed");
      const SourceLocation fieldAt = f["lsb"] ? at(f["lsb"]) : at(f["bits"]);
      if (fd.lsb + fd.bits > p.instr_bits)
        throw Error(fieldAt, "field '" + fd.name + "' (bits " + std::to_string(fd.lsb) + ".." +
                                 std::to_string(fd.lsb + fd.bits - 1) +
                                 (fd.bits_expr.empty() ? "" : ", width " + fd.bits_expr) + ") does not fit in the " +
                                 std::to_string(p.instr_bits) + "-bit instruction" +
                                 (fd.bits_expr.empty() ? "" : "; raise encoding.width"));
      if (fd.lsb < p.fields_lsb)
        throw Error(fieldAt, "field '" + fd.name + "' overlaps the opcode and token header (bits 0.." +
                                 std::to_string(p.fields_lsb - 1) + ")");
      for (const FieldDesc& other : d.fields)
        if (fd.lsb < other.lsb + other.bits && other.lsb < fd.lsb + fd.bits)
          throw Error(fieldAt, "field '" + fd.name + "' overlaps field '" + other.name + "'");
      if (f["max"]) {
        fd.max = Expr::compile(
            str(f["max"], "max"), [&](std::string_view name) { return param(p, name); }, textStart(f["max"]));
        if (fd.max->eval() < fd.minValue()) throw Error(at(f["max"]), "'max' is below the field's smallest value");
      }
      fd.limit_value = fd.max ? std::min(fd.maxValue(), fd.max->eval()) : fd.maxValue();
      next = fd.lsb + fd.bits;
      d.fields.push_back(std::move(fd));
    }
    const auto use = [&d](int lsb, int bits) {
      for (int b = lsb; b < lsb + bits; ++b) d.used_bits[static_cast<size_t>(b / 64)] |= uint64_t{1} << (b % 64);
    };
    use(0, static_cast<int>(p.fields_lsb));
    for (const FieldDesc& f : d.fields) use(f.lsb, f.bits);
  }

  std::string file_;
  std::vector<std::pair<YAML::Node, std::string>> overridden_;
  SourceLocation typesAt_;  // types.weight, for the check that needs the instruction list
};

IsaConfig IsaConfig::parse(const std::string& text, const std::string& filename,
                           const std::vector<ConfigOverride>& overrides) {
  return ConfigLoader(filename).load(text, overrides);
}

IsaConfig IsaConfig::load(const std::string& path, const std::vector<ConfigOverride>& overrides) {
  return parse(readTextFile(path), path, overrides);
}

ConfigOverride ConfigOverride::parse(const std::string& arg) {
  const size_t eq = arg.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == arg.size())
    throw Error("--set expects KEY=VALUE (e.g. array.rows=32), got '" + arg + "'");
  return {arg.substr(0, eq), arg.substr(eq + 1)};
}

}  // namespace systole::isa
