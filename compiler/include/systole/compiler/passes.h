// Graph passes between import and quantization, one per file in compiler/src/passes/, and the
// pipeline that runs them. Every pass keeps the graph valid (Graph::verify) and every value's shape
// static; none of them changes what the graph computes beyond float rounding (BatchNorm folding
// reorders a few multiplications).
//
// The layout stays as the model gives it (NCHW for torch exports): the back end chooses NHWC when
// it lowers, so no pass rewrites operators to another layout (see docs/architecture.md).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "systole/compiler/graph.h"

namespace systole::compiler {

struct PassInfo {
  std::string_view name;         // as --passes= names it, e.g. "fold-constants"
  std::string_view description;  // one line
  void (*run)(Graph&);
};

/// Every pass, in the order of the default pipeline.
const std::vector<PassInfo>& passRegistry();
/// nullptr if no pass has that name.
const PassInfo* findPass(std::string_view name);
/// The pass names of the default pipeline (`systole compile --emit=opt`).
std::vector<std::string> defaultPipeline();

struct PassOptions {
#ifdef NDEBUG
  bool verify = false;  // release builds trust the passes...
#else
  bool verify = true;  // ...debug builds run Graph::verify() and the shape check after each pass
#endif
  /// Called after each pass with its wall-clock time (for --time-passes and --print-after-all).
  std::function<void(const PassInfo& pass, const Graph& g, double seconds)> afterPass;
};

/// Runs the named passes in order (throws Error for an unknown name), then compacts the graph.
/// With options.verify, Graph::verify() and verifyShapes() run after every pass.
void runPasses(Graph& g, const std::vector<std::string>& pipeline, const PassOptions& options = {});
/// The default pipeline.
void optimize(Graph& g, const PassOptions& options = {});

// ---- The passes --------------------------------------------------------------------------------

void inferShapes(Graph& g);                    // infer-shapes
void removeIdentities(Graph& g);               // remove-identity (Identity, Dropout)
void foldConstants(Graph& g);                  // fold-constants (incl. Shape/Gather/Concat chains)
void eliminateCommonSubexpressions(Graph& g);  // cse
void eliminateDeadCode(Graph& g);              // dce
void foldBatchNorm(Graph& g);                  // fold-batchnorm (into Conv / Gemm)
void batchNormToConv(Graph& g);                // batchnorm-to-conv (the ones not folded: depthwise 1x1 Conv)
void decomposePRelu(Graph& g);                 // decompose-prelu (LeakyRelu, or Relu/Neg/Mul/Sub per channel)
void splitToSlice(Graph& g);                   // split-to-slice (one Slice per output)
void convTransposeToConv(Graph& g);            // convtranspose-to-conv (sub-pixel: Conv + DepthToSpace)
void resizeLinearToConv(
    Graph& g);  // resize-linear-to-conv (bilinear by s: edge Pad + s*s depthwise Convs + DepthToSpace)
void reduceMeanToPool(Graph& g);         // reducemean-to-pool (spatial ReduceMean -> GlobalAveragePool)
void stridedPointwiseToSlice(Graph& g);  // strided-pointwise-to-slice (1x1 stride s -> Slice steps s + Conv stride 1)
void foldPads(Graph& g);                 // fold-pad (zero Pads into Conv / AveragePool)
void flattenToNhwc(Graph& g);    // flatten-to-nhwc (Flatten -> FlattenNhwc before Gemm/MatMul, weights permuted)
void headsToNhwc(Graph& g);      // heads-to-nhwc (detection heads' Transpose/Reshape/Concat -> FlattenNhwc rows)
void attentionLayout(Graph& g);  // attention-layout (byte-keeping Transposes -> Reshape; MatMul(A, B^T) -> transB)
void recognizeChannelShuffle(Graph& g);   // recognize-channel-shuffle (-> Gather of channels)
void recognizeLayerNorm(Graph& g);        // recognize-layernorm
void recognizeGelu(Graph& g);             // recognize-gelu
void recognizeHardActivations(Graph& g);  // recognize-hard-activations
void fuseBias(Graph& g);                  // fuse-bias (Add of a constant into Conv/Gemm/MatMul)
void fuseActivations(Graph& g);           // fuse-activation (Relu/Clip into Conv/Gemm/MatMul/Add)

// ---- Shapes ------------------------------------------------------------------------------------

struct OutputInfo {
  ElemType type = ElemType::Float32;
  std::vector<int64_t> shape;
};

/// The output types and shapes of `n` from its inputs' (and, where the shape depends on them,
/// constant inputs' contents). nullopt when an input shape is not known yet or a needed input is
/// not constant; throws Error (without the node's name) on inconsistent shapes.
std::optional<std::vector<OutputInfo>> computeOutputs(const Graph& g, const Node& n);

/// True when every dimension is known (a shape ONNX could not infer holds -1).
bool hasStaticShape(const Value& v);

/// Throws Error naming the node whose output has no static shape.
void verifyShapes(const Graph& g);

}  // namespace systole::compiler
