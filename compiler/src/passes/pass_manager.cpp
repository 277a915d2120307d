// Algorithm: a fixed registry of named passes; runPasses looks each requested name up, runs it,
// times it, optionally verifies the graph (structure after every pass; static shapes once the
// pipeline is done) and reports to the caller's hook; finally it compacts the graph so ids are
// dense again. Verification is on by default in debug builds (PassOptions) and always in tests.
#include <chrono>

#include "systole/compiler/passes.h"
#include "systole/isa/diagnostic.h"

namespace systole::compiler {

const std::vector<PassInfo>& passRegistry() {
  static const std::vector<PassInfo> passes = {
      {"infer-shapes", "fill in the shapes ONNX could not infer; check the ones it did", inferShapes},
      {"remove-identity", "remove Identity and Dropout nodes", removeIdentities},
      {"fold-constants", "evaluate nodes whose inputs are all constant (and Shape of static shapes)", foldConstants},
      {"cse", "merge identical constants and identical nodes", eliminateCommonSubexpressions},
      {"decompose-prelu",
       "turn PRelu into LeakyRelu (one slope) or Relu(x) -/+ Relu(-x) * |s| (per-channel slopes of one sign)",
       decomposePRelu},
      {"split-to-slice", "replace a Split by one Slice per output", splitToSlice},
      {"convtranspose-to-conv",
       "split a ConvTranspose into a Conv of its s*s output phases and a DepthToSpace (sub-pixel)",
       convTransposeToConv},
      {"resize-linear-to-conv",
       "split a bilinear Resize by an integer factor into an edge Pad, a depthwise Conv per output phase, a Concat and "
       "a DepthToSpace",
       resizeLinearToConv},
      {"fold-batchnorm", "fold BatchNormalization, or a Mul by a per-channel constant, into the Conv or Gemm before it",
       foldBatchNorm},
      {"batchnorm-to-conv", "turn a BatchNormalization that could not be folded into a depthwise 1x1 Conv",
       batchNormToConv},
      {"reducemean-to-pool",
       "turn a ReduceMean (ReduceSum) over the spatial axes into GlobalAveragePool (times H*W) (+ Flatten)",
       reduceMeanToPool},
      {"fold-pad", "remove zero Pads; fold a zero-fill spatial Pad into the Conv or AveragePool reading it", foldPads},
      {"strided-pointwise-to-slice",
       "turn a strided 1x1 Conv without padding into a spatial Slice (steps = strides) and the Conv at stride 1",
       stridedPointwiseToSlice},
      {"flatten-to-nhwc",
       "flatten a 4-D tensor before matrix products in NHWC order, their weights' rows permuted to match",
       flattenToNhwc},
      {"heads-to-nhwc",
       "turn detection heads' layout Transposes (to rows per anchor) into copies of the NHWC bytes, and their "
       "Concat of row blocks into one of rows",
       headsToNhwc},
      {"recognize-channel-shuffle", "replace Reshape-Transpose-Reshape channel shuffles by a Gather of channels",
       recognizeChannelShuffle},
      {"recognize-layernorm", "replace decomposed layer normalization by LayerNormalization", recognizeLayerNorm},
      {"recognize-gelu", "replace x*0.5*(1+erf(x/sqrt(2))) by Gelu", recognizeGelu},
      {"recognize-hard-activations", "replace relu6(x+3)/6 by HardSigmoid and x*relu6(x+3)/6 by HardSwish",
       recognizeHardActivations},
      {"fuse-bias", "fold an Add of a constant bias into the Conv, Gemm or MatMul before it", fuseBias},
      {"fuse-activation", "fold Relu or Clip into the Conv, Gemm, MatMul or Add before it", fuseActivations},
      {"attention-layout",
       "turn Transposes that keep every byte in place into Reshapes, a MatMul of a transposed operand into one with "
       "transB (the array's transposed weight preload), and a packed projection read by channel Slices into one "
       "MatMul per Slice",
       attentionLayout},
      {"dce", "remove nodes no graph output depends on", eliminateDeadCode},
  };
  return passes;
}

const PassInfo* findPass(std::string_view name) {
  for (const auto& p : passRegistry())
    if (p.name == name) return &p;
  return nullptr;
}

std::vector<std::string> defaultPipeline() {
  std::vector<std::string> names;
  for (const auto& p : passRegistry()) names.emplace_back(p.name);
  return names;
}

void runPasses(Graph& g, const std::vector<std::string>& pipeline, const PassOptions& options) {
  std::vector<const PassInfo*> passes;
  for (const auto& name : pipeline) {
    const PassInfo* p = findPass(name);
    if (!p) throw Error("unknown pass '" + name + "'");
    passes.push_back(p);
  }
  if (options.verify) g.verify();
  for (const PassInfo* p : passes) {
    const auto start = std::chrono::steady_clock::now();
    p->run(g);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (options.verify) {
      try {
        g.verify();
      } catch (const Error& e) {
        throw Error("after pass " + std::string(p->name) + ": " + e.message());
      }
    }
    if (options.afterPass) options.afterPass(*p, g, seconds);
  }
  g.compact();
  if (options.verify) g.verify();
  verifyShapes(g);
}

void optimize(Graph& g, const PassOptions& options) { runPasses(g, defaultPipeline(), options); }

}  // namespace systole::compiler
