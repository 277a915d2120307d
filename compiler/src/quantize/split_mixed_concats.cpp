// Algorithm: an int8 Concat has one scale, so an input whose calibrated range is far below the
// others' loses that many bits (U-Net's decoders join an upsampled map with a skip connection:
// in U2-Netp one ranges over [0, 228] and the other over [0, 18.6], and the convolution reading
// them fell to -14 dB). A convolution is linear in its input channels, so
//   Conv(Concat(x_1, ..., x_m), W, b) = Conv(x_1, W_1, b) + ... + Conv(x_m, W_m)
// with W_i the input channels of x_i: each partial product reads its input at that input's own
// scale, and the Adds (int8 Adds requantize both operands) join them; the Conv's activation moves
// to the last Add. Only where the ranges differ by more than kMixedRangeRatio: elsewhere the
// Concat is the cheaper form.
#include <limits>

#include "passes/pass_util.h"
#include "systole/compiler/quantize.h"

namespace systole::compiler {

namespace {

constexpr double kMixedRangeRatio = 8;  // three bits lost by the smallest input

double magnitude(const TensorRange& r) { return std::max(std::abs(r.lo), std::abs(r.hi)); }

/// Whether `n` is a 2-D group-1 Conv with constant float weights reading a channel Concat whose
/// inputs' ranges differ by more than kMixedRangeRatio.
bool readsMixedConcat(const Graph& g, const Node& n, const std::map<std::string, TensorRange>& ranges) {
  if (n.dead || n.op != Op::Conv || n.inputs.size() < 2 || n.getInt("group", 1) != 1) return false;
  if (!passes::isFloatConst(g, n.inputs[1]) || passes::val(g, n.inputs[1]).shape.size() != 4) return false;
  const int c = passes::producerOp(g, n.inputs[0], Op::Concat);
  if (c < 0) return false;
  const Node& concat = g.nodes[static_cast<size_t>(c)];
  if (concat.getInt("axis", 1) != 1 || passes::val(g, concat.outputs[0]).shape.size() != 4) return false;
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (int v : concat.inputs) {
    const auto it = ranges.find(passes::val(g, v).name);
    if (v < 0 || passes::val(g, v).is_constant || it == ranges.end()) return false;
    lo = std::min(lo, magnitude(it->second));
    hi = std::max(hi, magnitude(it->second));
  }
  return lo > 0 && hi > kMixedRangeRatio * lo;
}

/// Replaces Conv `id` by one Conv per Concat input and a chain of Adds writing its output.
void splitConv(Graph& g, int id) {
  const Node conv = g.nodes[static_cast<size_t>(id)];
  const Node concat = g.nodes[static_cast<size_t>(passes::val(g, conv.inputs[0]).producer)];
  const std::string weightsName = passes::val(g, conv.inputs[1]).name;  // (values grow: no reference kept)
  const std::vector<int64_t> w = passes::val(g, conv.inputs[1]).shape;  // [OC, IC, KH, KW]
  const std::vector<float> all = passes::floats(g, conv.inputs[1]);
  const int64_t taps = w[2] * w[3];
  std::map<std::string, AttrValue> attrs = conv.attrs, activation;
  for (const char* key : {"activation", "clip_min", "clip_max"}) {
    if (!attrs.count(key)) continue;
    activation[key] = attrs.at(key);
    attrs.erase(key);
  }
  const std::vector<int64_t> y = passes::val(g, conv.outputs[0]).shape;
  int64_t first = 0;
  int sum = -1;
  g.nodes[static_cast<size_t>(id)].dead = true;
  for (size_t i = 0; i < concat.inputs.size(); ++i) {
    const int x = concat.inputs[i];
    const int64_t channels = passes::val(g, x).shape[1];
    std::vector<float> part(static_cast<size_t>(w[0] * channels * taps));
    for (int64_t o = 0; o < w[0]; ++o)
      std::copy_n(all.begin() + (o * w[1] + first) * taps, channels * taps, part.begin() + o * channels * taps);
    first += channels;
    std::vector<int> inputs = {x,
                               passes::addFloatConstant(g, weightsName + ".part", {w[0], channels, w[2], w[3]}, part)};
    if (i == 0 && conv.inputs.size() > 2 && conv.inputs[2] >= 0) inputs.push_back(conv.inputs[2]);  // the bias, once
    const int partial = passes::addNode(g, passes::nameLike(conv.name, "Conv_part"), Op::Conv, inputs, y, attrs);
    if (sum < 0) {
      sum = partial;
      continue;
    }
    const bool last = i + 1 == concat.inputs.size();
    sum = passes::addNode(g, passes::nameLike(conv.name, "Add_part"), Op::Add, {sum, partial}, y,
                          last ? activation : std::map<std::string, AttrValue>{}, last ? conv.outputs[0] : -1);
  }
}

}  // namespace

int splitMixedRangeConcats(Graph& g, const std::map<std::string, TensorRange>& ranges) {
  std::vector<int> split;
  for (size_t id = 0; id < g.nodes.size(); ++id)
    if (readsMixedConcat(g, g.nodes[id], ranges)) split.push_back(static_cast<int>(id));
  for (int id : split) splitConv(g, id);
  if (!split.empty()) eliminateDeadCode(g);  // a Concat no one reads any more
  return static_cast<int>(split.size());
}

}  // namespace systole::compiler
