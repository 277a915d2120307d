// Algorithm: ShuffleNet's channel shuffle exports as three data-movement nodes,
//   Reshape [N, C, H, W] -> [N, g, C/g, H, W], Transpose perm [0, 2, 1, 3, 4], Reshape -> [N, C, H, W],
// whose rank-5 middle has no place in the NPU's NHWC layout. The three are one permutation of
// the channels: output channel j*g + i is input channel i*(C/g) + j. They become one
// Gather(axis = 1) with those constant indices, which keeps the last Reshape's name and output;
// the first two nodes are left to dead-code elimination. A Reshape/Transpose chain whose middle
// values have other readers, or any other permutation, is left alone.
#include "passes/pass_util.h"

namespace systole::compiler {

namespace {

struct Shuffle {
  int input = -1;      // the [N, C, H, W] value shuffled
  int64_t groups = 0;  // g; 0 when `last` does not end a channel shuffle
};

Shuffle channelShuffle(const Graph& g, const passes::Uses& uses, const Node& last) {
  const int t = passes::producerOp(g, last.inputs.at(0), Op::Transpose);
  if (t < 0 || uses.single(last.inputs[0]) < 0) return {};
  const Node& transpose = g.nodes[static_cast<size_t>(t)];
  if (transpose.getInts("perm") != std::vector<int64_t>{0, 2, 1, 3, 4}) return {};
  const int r = passes::producerOp(g, transpose.inputs.at(0), Op::Reshape);
  if (r < 0 || uses.single(transpose.inputs[0]) < 0) return {};
  const int input = g.nodes[static_cast<size_t>(r)].inputs.at(0);
  const auto& x = passes::val(g, input).shape;
  const auto& split = passes::val(g, transpose.inputs[0]).shape;
  const auto& y = passes::val(g, last.outputs.at(0)).shape;
  if (x.size() != 4 || x != y || split.size() != 5) return {};
  if (split[0] != x[0] || split[1] * split[2] != x[1] || split[3] != x[2] || split[4] != x[3] || split[1] < 2)
    return {};
  return {input, split[1]};
}

}  // namespace

void recognizeChannelShuffle(Graph& g) {
  passes::Uses uses(g);
  for (int id : g.topoOrder()) {
    Node& last = g.nodes[static_cast<size_t>(id)];
    if (last.dead || last.op != Op::Reshape || last.inputs.empty() || last.outputs.size() != 1) continue;
    const auto [x, groups] = channelShuffle(g, uses, last);
    if (groups == 0) continue;
    const int64_t channels = passes::val(g, x).shape[1], per = channels / groups;
    std::vector<int64_t> indices;
    for (int64_t j = 0; j < per; ++j)
      for (int64_t i = 0; i < groups; ++i) indices.push_back(i * per + j);
    Value idx;
    idx.name = passes::uniqueName(g, last.name + "_channels");
    idx.type = ElemType::Int64;
    idx.shape = {channels};
    idx.is_constant = true;
    idx.data.resize(indices.size() * sizeof(int64_t));
    std::memcpy(idx.data.data(), indices.data(), idx.data.size());
    const int idxId = g.addValue(std::move(idx));
    Node& gather = g.nodes[static_cast<size_t>(id)];
    gather.op = Op::Gather;
    gather.inputs = {x, idxId};
    gather.attrs = {{"axis", int64_t{1}}};
    uses.refresh();
  }
}

}  // namespace systole::compiler
