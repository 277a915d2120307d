// Algorithm: for each guarded operator and each default-domain opset kMinOpset..kMaxOpset, find
// the schema in effect in ONNX's registry (several opsets share one), and replace its inference
// function by one that checks the precondition on the input types ONNX has inferred so far, then
// calls the original. The registry hands out const schemas that it owns and never declares const,
// so the const_cast writes to a mutable object; a std::call_once keeps it to one installation.
#include "frontend/onnx_shape_guards.h"

#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>

#include <mutex>
#include <string>
#include <unordered_set>

#include "systole/compiler/onnx_import.h"

namespace systole::compiler {

namespace {

/// The rank of input `index` if ONNX knows it, else -1.
int rankOf(onnx::InferenceContext& ctx, size_t index) {
  return onnx::hasInputShape(ctx, index) ? ctx.getInputType(index)->tensor_type().shape().dim_size() : -1;
}

/// Conv and ConvTranspose take their kernel's rank from the weight W and index the input X's
/// spatial dimensions and the stride, dilation and pad lists (sized by X) with it: X and W must
/// have the same rank (ONNX 1.12 reads past X's dimensions otherwise).
void requireSameRankXW(onnx::InferenceContext& ctx) {
  const int x = rankOf(ctx, 0), w = rankOf(ctx, 1);
  if (x >= 0 && w >= 0 && x != w)
    fail_shape_inference("the input X has rank ", x, " and the weight W rank ", w, "; they must be equal");
}

struct Guard {
  const char* op;
  void (*check)(onnx::InferenceContext& ctx);
};

constexpr Guard kGuards[] = {
    {"Conv", requireSameRankXW},
    {"ConvTranspose", requireSameRankXW},
};

}  // namespace

void installShapeInferenceGuards() {
  static std::once_flag once;
  std::call_once(once, [] {
    std::unordered_set<const onnx::OpSchema*> done;
    for (const auto& guard : kGuards)
      for (int64_t opset = kMinOpset; opset <= kMaxOpset; ++opset) {
        const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(guard.op, static_cast<int>(opset));
        if (!schema || !done.insert(schema).second) continue;
        auto original = schema->GetTypeAndShapeInferenceFunction();
        const_cast<onnx::OpSchema*>(schema)->TypeAndShapeInferenceFunction(
            [check = guard.check, original](onnx::InferenceContext& ctx) {
              check(ctx);
              if (original) original(ctx);
            });
      }
  });
}

}  // namespace systole::compiler
