// Algorithm: a Relu, or a Clip with constant bounds, whose input comes from a Conv, Gemm, MatMul
// or Add (float, read by nothing else, not fused yet) folds into that node as the attribute
// activation = "relu", or "clip" with clip_min/clip_max (a Clip with min 0 and no max is a relu).
// The producer then writes the activation's output. Run after fuse-bias, so the chain
// Conv -> Add(bias) -> Relu becomes one node.
#include <limits>

#include "passes/pass_util.h"

namespace systole::compiler {

void fuseActivations(Graph& g) {
  passes::Uses uses(g);
  for (int id : g.topoOrder()) {
    const Node& act = g.nodes[static_cast<size_t>(id)];
    if ((act.op != Op::Relu && act.op != Op::Clip) || act.dead || act.inputs.empty()) continue;
    const int x = act.inputs[0];
    const int p = passes::producerOp(g, x);
    if (p < 0 || uses.single(x) != id || passes::val(g, x).type != ElemType::Float32) continue;
    Node& prod = g.nodes[static_cast<size_t>(p)];
    if (prod.op != Op::Conv && prod.op != Op::Gemm && prod.op != Op::MatMul && prod.op != Op::Add) continue;
    if (prod.has("activation") || prod.outputs.size() != 1) continue;
    if (act.op == Op::Relu) {
      prod.attrs["activation"] = std::string("relu");
    } else {
      const auto bounds = passes::constantClipBounds(g, act);
      if (!bounds) continue;
      const auto [lo, hi] = *bounds;
      if (lo == 0.f && hi == std::numeric_limits<float>::max()) {
        prod.attrs["activation"] = std::string("relu");
      } else {
        prod.attrs["activation"] = std::string("clip");
        prod.attrs["clip_min"] = static_cast<double>(lo);
        prod.attrs["clip_max"] = static_cast<double>(hi);
      }
    }
    passes::absorb(g, p, id);
    uses.refresh();
  }
}

}  // namespace systole::compiler
