// Algorithm: walk the parameter table and the instruction table in config order and print
// Markdown; the bit diagram sorts an instruction's bit ranges (opcode, tokens, fields and the
// reserved gaps between them) from the most significant bit down and draws one box per range.
#include <algorithm>
#include <sstream>

#include "systole/isa/generate.h"

namespace systole::isa {

namespace {

struct BitRange {
  int lsb, bits;
  std::string label;
};

std::vector<BitRange> layout(const IsaConfig& isa, const InstrDesc& d) {
  const Params& p = isa.params();
  std::vector<BitRange> used = {{0, static_cast<int>(p.opcode_bits), "opcode"}};
  for (int k = 0; k < kNumTokenFlags; ++k)
    used.push_back({static_cast<int>(p.token_lsb) + k, 1, std::string(kTokenFlagNames[static_cast<size_t>(k)])});
  for (const auto& f : d.fields) used.push_back({f.lsb, f.bits, f.name});
  std::sort(used.begin(), used.end(), [](const BitRange& a, const BitRange& b) { return a.lsb < b.lsb; });
  std::vector<BitRange> all;
  int next = 0;
  for (const auto& r : used) {
    if (r.lsb > next) all.push_back({next, r.lsb - next, "0"});
    all.push_back(r);
    next = r.lsb + r.bits;
  }
  if (next < p.instr_bits) all.push_back({next, static_cast<int>(p.instr_bits) - next, "0"});
  std::reverse(all.begin(), all.end());
  return all;
}

std::string hex(uint64_t v) {
  std::ostringstream s;
  s << "0x" << std::hex << v;
  return s.str();
}

}  // namespace

std::string bitDiagram(const IsaConfig& isa, const InstrDesc& d) {
  std::string top, mid, rule;
  for (const auto& r : layout(isa, d)) {
    const int msb = r.lsb + r.bits - 1;
    std::string range = r.bits == 1 ? std::to_string(msb) : std::to_string(msb) + ".." + std::to_string(r.lsb);
    size_t w = std::max(range.size(), r.label.size()) + 2;
    auto centre = [w](const std::string& s) {
      size_t left = (w - s.size()) / 2;
      return std::string(left, ' ') + s + std::string(w - s.size() - left, ' ');
    };
    top += "|" + centre(range);
    mid += "|" + centre(r.label);
    rule += "+" + std::string(w, '-');
  }
  return rule + "+\n" + top + "|\n" + rule + "+\n" + mid + "|\n" + rule + "+\n";
}

std::string generateIsaDoc(const IsaConfig& isa, const std::string& sourceName) {
  const Params& p = isa.params();
  std::ostringstream out;
  out << "# ISA reference: `" << p.name << "`\n\n";
  out << "<!-- Generated from " << sourceName << " by `systole isa doc`. Do not edit; regenerate. -->\n\n";
  if (!p.description.empty()) out << p.description << ".\n\n";
  out << "- Array: " << p.array_rows << " x " << p.array_cols << ", " << dataflowName(p.dataflow) << "\n";
  out << "- Types: int" << p.act_bits << " activations, int" << p.acc_bits << " accumulators"
      << (p.acc_bits < 32 ? " (saturating)" : "") << ", weights";
  for (size_t i = 0; i < p.weight_bits.size(); ++i)
    out << (i == 0 ? " int" : " or int") << p.weight_bits[i]
        << (i == 0 && p.weight_bits.size() > 1 ? " (default)" : "");
  out << "\n";
  out << "- Clock: " << p.clock_mhz << " MHz\n";
  out << "- Instructions: " << p.instr_bits << " bits, little-endian; opcode in bits " << p.opcode_bits - 1
      << "..0, dependency tokens in bits " << p.fields_lsb - 1 << ".." << p.token_lsb << "\n\n";
  out << "The arithmetic of each semantics class (rounding, saturation, overflow) is specified in "
         "[isa-semantics.md](../isa-semantics.md).\n\n";
  out << "## Parameters\n\n| name | value | | description |\n| --- | ---: | --- | --- |\n";
  for (const auto& e : parameterTable(p))
    out << "| `" << e.name << "` | " << e.value << " | " << (e.derived ? "derived" : "") << " | " << e.description
        << " |\n";
  out << "\n## Energy and area\n\nThe config's `energy:` and `area:` sections (defaults and their sources: "
         "[isa-schema.md](../isa-schema.md#energy-and-area)); `run --stats` reports the energy per layer.\n\n"
      << "| name | value | unit | meaning | default (source) |\n| --- | ---: | --- | --- | --- |\n";
  for (const auto& c : costParameters())
    out << "| `" << c.section << "." << c.key << "` | " << formatCost(p.cost.*c.member) << " | " << c.unit << " | "
        << c.meaning << " | " << formatCost(c.default_value) << " (" << c.source << ") |\n";
  out << "\n" << areaSummary(p) << ".\n";
  out << "\n## Dependency tokens\n\nEvery instruction carries four flags after its opcode. The queues are "
         "ordered load -> compute -> store; `prev`/`next` name the neighbouring queue. `pop_*` waits for and "
         "consumes a token from that neighbour before the instruction starts; `push_*` sends one when it "
         "finishes. A flag naming a missing neighbour (the load queue has no `prev`) is an error.\n\n";
  out << "## Instructions\n\n| mnemonic | opcode | unit | semantics | cycles |\n| --- | --- | --- | --- | --- |\n";
  for (const auto& d : isa.instructions())
    out << "| [`" << d.name << "`](#" << d.name << ") | " << hex(d.opcode) << " | " << unitName(d.unit) << " | `"
        << semanticsInfo(d.semantics).name << "` | `" << d.cycles.text() << "` |\n";
  for (const auto& d : isa.instructions()) {
    const SemanticsInfo& info = semanticsInfo(d.semantics);
    out << "\n### <a id=\"" << d.name << "\"></a>`" << d.name << "`\n\n";
    out << "Opcode " << hex(d.opcode) << ", " << unitName(d.unit) << " queue, semantics [`" << info.name
        << "`](../isa-semantics.md#" << info.name << "): " << info.summary << ".\n\n";
    out << "```text\n" << bitDiagram(isa, d) << "```\n\n";
    if (!d.fields.empty()) {
      out << "| field | bits | width | range |\n| --- | --- | ---: | --- |\n";
      for (const auto& f : d.fields)
        out << "| `" << f.name << "` | " << f.lsb + f.bits - 1 << ".." << f.lsb << " | " << f.bits
            << (f.bits_expr.empty() ? "" : " (`" + f.bits_expr + "`)") << " | " << (f.is_signed ? "signed " : "")
            << f.minValue() << " .. " << f.limit() << (f.max ? " (`max: " + f.max->text() + "`)" : "") << " |\n";
      out << "\n";
    }
    out << "Timing: `cycles = " << d.cycles.text() << "`";
    if (d.cycles.isConstant()) out << " = " << d.cycles.eval();
    if (d.has_issue)
      out << "; `issue = " << d.issue.text() << "`"
          << (d.unit == Unit::Compute ? " (the compute unit takes its next instruction then)"
                                      : " (with dma.outstanding > 1)");
    out << "\n";
  }
  return out.str();
}

}  // namespace systole::isa
