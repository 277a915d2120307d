// Algorithm: one walk in topological order. Each node's shapes are recomputed first (its inputs
// may have just become constants, which resolves a Reshape fed by a shape computation); then a node
// whose inputs are all constant is evaluated with the float kernels and its outputs become
// constants. Shape folds as soon as its input's shape is static, so torch's
// Shape -> Gather -> Unsqueeze -> Concat -> Reshape chains collapse in the same walk. Results much
// larger than their inputs (a broadcast blowing up) are left to run time.
#include <algorithm>

#include "passes/pass_util.h"
#include "systole/compiler/host_tensor.h"
#include "systole/compiler/interpreter.h"
#include "systole/isa/diagnostic.h"

namespace systole::compiler {

namespace {

constexpr size_t kMaxGrowthBytes = size_t{16} << 20;  // fold growth beyond this only if inputs are as large

bool foldable(const Graph& g, const Node& n) {
  if (n.op == Op::Shape) return n.inputs.size() == 1 && n.inputs[0] >= 0 && hasStaticShape(passes::val(g, n.inputs[0]));
  for (int in : n.inputs)
    if (in >= 0 && !passes::isConst(g, in)) return false;
  return true;
}

}  // namespace

void foldConstants(Graph& g) {
  for (int id : g.topoOrder()) {
    if (!passes::updateShapes(g, id)) continue;
    Node& n = g.nodes[static_cast<size_t>(id)];
    if (!foldable(g, n)) continue;
    bool outputUsedAsGraphInput = false;
    size_t inBytes = 0, outBytes = 0;
    for (int in : n.inputs)
      if (in >= 0 && n.op != Op::Shape) inBytes += passes::val(g, in).data.size();
    for (int o : n.outputs) {
      const Value& v = passes::val(g, o);
      outBytes += static_cast<size_t>(v.elements()) * static_cast<size_t>(elemTypeBytes(v.type));
      outputUsedAsGraphInput =
          outputUsedAsGraphInput || std::find(g.inputs.begin(), g.inputs.end(), o) != g.inputs.end();
    }
    if (outputUsedAsGraphInput || (outBytes > kMaxGrowthBytes && outBytes > 2 * inBytes)) continue;

    std::vector<HostTensor> inputs;
    inputs.reserve(n.inputs.size());
    std::vector<const HostTensor*> in;
    for (int v : n.inputs) {
      if (v < 0) {
        in.push_back(nullptr);
        continue;
      }
      const Value& val = passes::val(g, v);
      HostTensor t;
      t.type = val.type;
      t.shape = val.shape;
      if (val.is_constant) t.bytes = val.data;  // Shape reads only the shape
      inputs.push_back(std::move(t));
      in.push_back(&inputs.back());
    }
    std::vector<HostTensor> results;
    for (int o : n.outputs) results.emplace_back(passes::val(g, o).type, passes::val(g, o).shape);
    std::vector<HostTensor*> out;
    for (auto& r : results) out.push_back(&r);
    try {
      runFloatKernel(g, n, in, out);
    } catch (const Error& e) {
      throw Error("node '" + n.name + "' (" + n.op + "): " + e.message());
    }
    n.dead = true;
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      Value& v = passes::val(g, n.outputs[k]);
      v.is_constant = true;
      v.data = std::move(results[k].bytes);
      v.producer = -1;
    }
  }
}

}  // namespace systole::compiler
