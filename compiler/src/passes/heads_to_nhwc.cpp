// Algorithm: detection heads (SSD, UltraFace, RetinaFace, YOLOX) turn each scale's [N, C, H, W] map
// into rows of values per anchor with a layout Transpose, then join the scales:
//   (a) Transpose(perm 0,2,3,1) -> Reshape to [N, ..., K] (or Flatten)       SSD and its descendants
//   (b) Reshape to [N, C, H*W] -> Concat(axis 2) -> Transpose(perm 0,2,1)     YOLOX
//       (or without the Concat: a vision transformer's patch embedding; or a Squeeze of H = 1 for
//       the Reshape: PaddleOCR's SVTR back to its sequence)
// Both compute the map's elements in (h, w, c) order, which is how the NPU already holds a 4-D
// tensor (NHWC): (a) becomes FlattenNhwc (one copy of the NHWC bytes) and the same Reshape of its
// row; (b) becomes, per scale, FlattenNhwc and a Reshape to [N, H*W, C], concatenated along axis 1.
//   (c) A Concat along axis 1 of [1, L, K] row blocks whose inputs are Reshapes (what (a) and (b)
// leave, the scales joined) appends whole rows: it becomes a Concat of the [1, L*K] rows along
// their columns (the NPU's channel concatenation) and one Reshape back to [1, sum L, K].
//   (d) The way back, rows to a map: Transpose(perm 0,3,1,2) of a Reshape of rows [N, H*W, C] to
//       [N, H, W, C] (PaddleOCR's SVTR returning to its convolutions) is UnflattenNhwc: the rows
//       are the map's NHWC bytes already.
// Each rewrite is an identity of the float model; nodes left without readers go to dce.
#include "passes/pass_util.h"

namespace systole::compiler {

namespace {

bool staticShape(const std::vector<int64_t>& s) {
  return std::all_of(s.begin(), s.end(), [](int64_t d) { return d >= 1; });
}

/// The 4-D map with static shape that `v` is a reshape (or a Squeeze) of, or -1.
int reshapedMap(const Graph& g, int v) {
  int p = passes::producerOp(g, v, Op::Reshape);
  if (p < 0) p = passes::producerOp(g, v, Op::Squeeze);
  if (p < 0) return -1;
  const int x = g.nodes[static_cast<size_t>(p)].inputs[0];
  const auto& s = passes::val(g, x).shape;
  return s.size() == 4 && staticShape(s) ? x : -1;
}

/// A Reshape whose target means the same for a [N, H*W*C] input as for [N, H, W, C]: a constant
/// shape with no 0 ("copy the input's dimension") after the batch.
bool keepsMeaning(const Graph& g, const Node& reshape) {
  if (reshape.inputs.size() < 2 || !passes::isConst(g, reshape.inputs[1])) return false;
  const Value& target = passes::val(g, reshape.inputs[1]);
  if (target.type != ElemType::Int64) return false;
  const auto* dims = target.as<int64_t>();
  for (int64_t i = 1; i < target.elements(); ++i)
    if (dims[i] == 0) return false;
  return true;
}

/// FlattenNhwc of map `x` ([N, C, H, W] -> [N, H*W*C]) reshaped to `shape` (into `out` unless -1);
/// returns the reshaped value.
int nhwcRows(Graph& g, int x, const std::vector<int64_t>& shape, const std::string& like, int out = -1) {
  const auto& s = passes::val(g, x).shape;
  const int rows =
      passes::addNode(g, passes::nameLike(like, "FlattenNhwc"), Op::FlattenNhwc, {x}, {s[0], s[1] * s[2] * s[3]});
  const int target = passes::addInt64Constant(g, passes::nameLike(like, "rows_shape"), shape);
  return passes::addNode(g, passes::nameLike(like, "Reshape"), Op::Reshape, {rows, target}, shape, {}, out);
}

/// (a): the Reshape and Flatten (axis 1) readers of Transpose(perm 0,2,3,1) read FlattenNhwc instead.
void transposeReshapeHeads(Graph& g) {
  passes::Uses uses(g);
  const size_t count = g.nodes.size();
  for (size_t id = 0; id < count; ++id) {
    const Node t = g.nodes[id];
    if (t.dead || t.op != Op::Transpose || t.getInts("perm", {}) != std::vector<int64_t>{0, 2, 3, 1}) continue;
    const auto& x = passes::val(g, t.inputs[0]).shape;
    if (x.size() != 4 || !staticShape(x)) continue;
    int flat = -1;
    for (int r : uses.of(t.outputs[0])) {
      const Node& reader = passes::node(g, r);
      const bool reshape = reader.op == Op::Reshape && reader.inputs[0] == t.outputs[0] && keepsMeaning(g, reader);
      const bool flatten = reader.op == Op::Flatten && reader.getInt("axis", 1) == 1;
      if (!reshape && !flatten) continue;
      if (flat < 0)
        flat = passes::addNode(g, passes::nameLike(t.name, "FlattenNhwc"), Op::FlattenNhwc, {t.inputs[0]},
                               {x[0], x[1] * x[2] * x[3]});
      passes::node(g, r).inputs[0] = flat;
      if (flatten) {  // Flatten(axis 1) of the transposed map is the FlattenNhwc itself
        passes::node(g, r).op = Op::Reshape;
        passes::node(g, r).inputs.push_back(
            passes::addInt64Constant(g, passes::nameLike(t.name, "flat_shape"), {x[0], x[1] * x[2] * x[3]}));
        passes::node(g, r).attrs.clear();
      }
    }
  }
}

/// The 4-D map with static shape that `v` is a [N, C, H*W] reshape of, or -1.
int mapRows(const Graph& g, int v) {
  const int x = reshapedMap(g, v);
  if (x < 0) return -1;
  const auto& s = passes::val(g, x).shape;
  return passes::val(g, v).shape == std::vector<int64_t>{s[0], s[1], s[2] * s[3]} ? x : -1;
}

/// (b): Transpose(perm 0,2,1) of a Concat (axis 2) of [N, C, H*W] reshapes of 4-D maps, or of one
/// such reshape (a vision transformer's patch embedding, `x.flatten(2).transpose(1, 2)`).
void concatTransposeHeads(Graph& g) {
  passes::Uses uses(g);
  const size_t count = g.nodes.size();
  for (size_t id = 0; id < count; ++id) {
    const Node t = g.nodes[id];
    if (t.dead || t.op != Op::Transpose || t.getInts("perm", {}) != std::vector<int64_t>{0, 2, 1}) continue;
    const int c = passes::producerOp(g, t.inputs[0], Op::Concat);
    std::vector<int> inputs = {t.inputs[0]};
    if (c >= 0) {
      const Node& concat = g.nodes[static_cast<size_t>(c)];
      const int64_t axis = concat.getInt("axis", 0);
      if (uses.single(t.inputs[0]) != static_cast<int>(id) || (axis != 2 && axis != -1)) continue;
      inputs = concat.inputs;
    }
    std::vector<int> maps;
    for (int v : inputs)
      if (const int x = mapRows(g, v); x >= 0) maps.push_back(x);
    if (maps.size() != inputs.size()) continue;
    g.nodes[id].dead = true;
    const int out = t.outputs[0];
    std::vector<int> parts;
    for (int x : maps) {
      const auto& s = passes::val(g, x).shape;
      parts.push_back(nhwcRows(g, x, {s[0], s[2] * s[3], s[1]}, t.name, c >= 0 ? -1 : out));
    }
    if (c >= 0)
      passes::addNode(g, passes::nameLike(t.name, "Concat"), Op::Concat, parts, passes::val(g, out).shape,
                      {{"axis", AttrValue{int64_t{1}}}}, out);
  }
}

/// (c): a Concat along axis 1 of [1, L, K] reshapes becomes a Concat of [1, L*K] rows.
void rowBlockConcats(Graph& g) {
  const size_t count = g.nodes.size();
  for (size_t id = 0; id < count; ++id) {
    const Node concat = g.nodes[id];
    if (concat.dead || concat.op != Op::Concat || concat.inputs.size() < 2) continue;
    const auto& y = passes::val(g, concat.outputs[0]).shape;
    const int64_t axis = concat.getInt("axis", 0);
    if (y.size() != 3 || y[0] != 1 || !staticShape(y) || (axis != 1 && axis != -2)) continue;
    const bool reshapes = std::all_of(concat.inputs.begin(), concat.inputs.end(),
                                      [&](int v) { return passes::producerOp(g, v, Op::Reshape) >= 0; });
    if (!reshapes) continue;
    std::vector<int> rows;
    for (int v : concat.inputs) {
      const auto& s = passes::val(g, v).shape;
      const int shape = passes::addInt64Constant(g, passes::nameLike(concat.name, "row_shape"), {1, s[1] * s[2]});
      rows.push_back(
          passes::addNode(g, passes::nameLike(concat.name, "Reshape"), Op::Reshape, {v, shape}, {1, s[1] * s[2]}));
    }
    g.nodes[id].dead = true;
    const int joined = passes::addNode(g, passes::nameLike(concat.name, "Concat"), Op::Concat, rows, {1, y[1] * y[2]},
                                       {{"axis", AttrValue{int64_t{1}}}});
    const int shape = passes::addInt64Constant(g, passes::nameLike(concat.name, "blocks_shape"), y);
    passes::addNode(g, passes::nameLike(concat.name, "Reshape"), Op::Reshape, {joined, shape}, y, {},
                    concat.outputs[0]);
  }
}

/// (d): Transpose(perm 0,3,1,2) of a Reshape of [N, H*W, C] rows to [N, H, W, C] is UnflattenNhwc.
void rowsToMaps(Graph& g) {
  const size_t count = g.nodes.size();
  for (size_t id = 0; id < count; ++id) {
    const Node t = g.nodes[id];
    if (t.dead || t.op != Op::Transpose || t.getInts("perm", {}) != std::vector<int64_t>{0, 3, 1, 2}) continue;
    const int r = passes::producerOp(g, t.inputs[0], Op::Reshape);
    if (r < 0) continue;
    const int rows = g.nodes[static_cast<size_t>(r)].inputs[0];
    const std::vector<int64_t> x = passes::val(g, rows).shape, m = passes::val(g, t.inputs[0]).shape;
    if (x.size() != 3 || m.size() != 4 || !staticShape(m) || x != std::vector<int64_t>{m[0], m[1] * m[2], m[3]})
      continue;
    g.nodes[id].dead = true;
    passes::addNode(g, passes::nameLike(t.name, "UnflattenNhwc"), Op::UnflattenNhwc, {rows},
                    passes::val(g, t.outputs[0]).shape, {{"height", AttrValue{m[1]}}}, t.outputs[0]);
  }
}

}  // namespace

void headsToNhwc(Graph& g) {
  rowsToMaps(g);
  transposeReshapeHeads(g);
  concatTransposeHeads(g);
  rowBlockConcats(g);
}

}  // namespace systole::compiler
