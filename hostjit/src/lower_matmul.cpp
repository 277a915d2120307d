// Algorithm: the interpreter's two matrix products, loop for loop.
//   float MatMul (kernels_float.cpp): y = 0, then for each batch (numpy-broadcast offsets into a
//     and b, a constant table), m, k: skip a[m][k] == 0, else y[m][n] += a[m][k] * b[k][n] in
//     float, n innermost. No bias input and no fused activation (those stay interpreted).
//   int8 MatMul/Gemm (kernels_quant.cpp): per row m, acc = bias (or 0); for each k, av = a - z_a
//     (skipped when 0) and acc[j] += av * w[k][j], wrapping at 32 bits; then requantize each acc
//     as isa/arith.h does: roundingShiftRight(acc * M, S & 63) + z_y, clamped to [act_min,
//     act_max] and saturated to int8, with M and S per output channel or one for all.
#include "systole/compiler/float_ops.h"
#include "systole/compiler/quant_math.h"
#include "lower.h"
#include "systole/isa/arith.h"

namespace systole::hostjit {

namespace {

using compiler::ElemType;
using compiler::Graph;
using compiler::Node;
namespace ops = compiler::ops;

/// Offset (in matrices) of batch o in an operand with batch shape `from`, broadcast to `to`.
int64_t broadcastOffset(int64_t o, const std::vector<int64_t>& to, const std::vector<int64_t>& from) {
  int64_t off = 0, stride = 1;
  for (size_t d = to.size(); d-- > 0;) {
    const int64_t i = o % to[d];
    o /= to[d];
    const size_t back = to.size() - 1 - d;
    if (back < from.size()) {
      const int64_t dim = from[from.size() - 1 - back];
      if (dim != 1) off += i * stride;
      stride *= dim;
    }
  }
  return off;
}

Emitter floatMatMul(const Graph& g, const Node& n) {
  if (n.inputs.size() != 2 || n.inputs[1] < 0 || n.has("activation") || n.getInt("transB", 0) != 0) return {};
  const auto& A = valueOf(g, n.inputs[0]);
  const auto& B = valueOf(g, n.inputs[1]);
  const auto& Y = valueOf(g, n.outputs[0]);
  if (B.type != ElemType::Float32 || Y.type != ElemType::Float32 || A.shape.empty() || B.shape.empty()) return {};
  std::vector<int64_t> a = A.shape, b = B.shape;
  if (a.size() == 1) a.insert(a.begin(), 1);
  if (b.size() == 1) b.push_back(1);
  const int64_t M = a[a.size() - 2], K = a.back(), N = b.back();
  if (b[b.size() - 2] != K) return {};
  const std::vector<int64_t> batchA(a.begin(), a.end() - 2), batchB(b.begin(), b.end() - 2);
  const std::vector<int64_t> batch = ops::broadcast(batchA, batchB);
  const int64_t nb = ops::product(batch);
  if (Y.elements() != nb * M * N) return {};
  std::vector<int64_t> offA, offB;
  for (int64_t o = 0; o < nb; ++o) {
    offA.push_back(broadcastOffset(o, batch, batchA) * M * K);
    offB.push_back(broadcastOffset(o, batch, batchB) * K * N);
  }
  return [=](Ir& ir) {
    auto& bl = ir.b;
    llvm::Value *pa = ir.input(0), *pb = ir.input(1), *y = ir.output(0);
    llvm::Value *tableA = ir.table(offA), *tableB = ir.table(offB);
    bl.CreateMemSet(y, bl.getInt8(0), static_cast<uint64_t>(Y.elements() * 4), {});
    ir.loop(nb, [&](llvm::Value* o) {
      llvm::Value* a0 = ir.load(ir.i64(), tableA, o);
      llvm::Value* b0 = ir.load(ir.i64(), tableB, o);
      llvm::Value* y0 = bl.CreateMul(o, ir.c64(M * N));
      ir.loopNest({M, K}, [&](const std::vector<llvm::Value*>& mk) {
        llvm::Value* av = ir.load(ir.f32(), pa, bl.CreateAdd(a0, bl.CreateAdd(bl.CreateMul(mk[0], ir.c64(K)), mk[1])));
        ir.when(bl.CreateFCmpUNE(av, ir.cf32(0.f)), [&] {
          llvm::Value* row = bl.CreateAdd(y0, bl.CreateMul(mk[0], ir.c64(N)));
          llvm::Value* brow = bl.CreateAdd(b0, bl.CreateMul(mk[1], ir.c64(N)));
          ir.loop(
              N,
              [&](llvm::Value* j) {
                llvm::Value* at = bl.CreateAdd(row, j);
                llvm::Value* product = bl.CreateFMul(av, ir.load(ir.f32(), pb, bl.CreateAdd(brow, j)));
                ir.store(bl.CreateFAdd(ir.load(ir.f32(), y, at), product), y, at);
              },
              true);
        });
      });
    });
  };
}

/// The single zero point of a per-tensor quantized value.
std::optional<int32_t> zeroPoint(const compiler::Value& v) {
  if (!v.quant || v.quant->scale.size() != 1 || v.quant->zero_point.size() != 1) return std::nullopt;
  return v.quant->zero_point[0];
}

Emitter int8MatMul(const Graph& g, const Node& n) {
  if (n.inputs.size() < 2 || n.inputs[1] < 0 || n.getInt("transA", 0) != 0 || n.getInt("transB", 0) != 0) return {};
  const auto& A = valueOf(g, n.inputs[0]);
  const auto& W = valueOf(g, n.inputs[1]);
  const auto& Y = valueOf(g, n.outputs[0]);
  const bool hasBias = n.inputs.size() > 2 && n.inputs[2] >= 0;
  if (W.type != ElemType::Int8 || Y.type != ElemType::Int8 || W.shape.size() != 2 || A.shape.empty()) return {};
  if (compiler::isActivationProduct(g, n)) return {};  // the interpreter's kernel
  const int64_t K = W.shape[0], N = W.shape[1];
  if (A.shape.back() != K || K == 0) return {};
  const int64_t M = A.elements() / K;
  if (Y.elements() != M * N) return {};
  if (hasBias && (valueOf(g, n.inputs[2]).type != ElemType::Int32 || valueOf(g, n.inputs[2]).elements() != N))
    return {};
  const auto za = zeroPoint(A), zy = zeroPoint(Y);
  if (!za || !zy) return {};
  const std::vector<int64_t> mult = n.getInts("multiplier"), shift = n.getInts("shift");
  if (mult.size() != shift.size() || (mult.size() != 1 && static_cast<int64_t>(mult.size()) != N)) return {};
  if (!n.has("act_min") || !n.has("act_max")) return {};
  const int64_t actMin = static_cast<int32_t>(n.getInt("act_min", 0)),
                actMax = static_cast<int32_t>(n.getInt("act_max", 0));
  std::vector<int64_t> m64, s64;  // as the kernel reads them: int32, the shift's low 6 bits
  for (size_t i = 0; i < mult.size(); ++i) {
    m64.push_back(static_cast<int32_t>(mult[i]));
    s64.push_back(static_cast<int32_t>(shift[i]) & 63);
  }
  return [=, za = *za, zy = *zy](Ir& ir) {
    auto& b = ir.b;
    llvm::Value *pa = ir.input(0), *pw = ir.input(1), *pb = hasBias ? ir.input(2) : nullptr, *y = ir.output(0);
    llvm::Value *multipliers = ir.table(m64), *shifts = ir.table(s64);
    llvm::Value* acc = ir.local(ir.i32(), nullptr, N);
    ir.loop(M, [&](llvm::Value* m) {
      ir.loop(
          N, [&](llvm::Value* j) { ir.store(pb ? ir.load(ir.i32(), pb, j) : ir.c32(0), acc, j); }, true);
      ir.loop(K, [&](llvm::Value* k) {
        llvm::Value* av = b.CreateSub(
            b.CreateSExt(ir.load(ir.i8(), pa, b.CreateAdd(b.CreateMul(m, ir.c64(K)), k)), ir.i32()), ir.c32(za));
        ir.when(b.CreateICmpNE(av, ir.c32(0)), [&] {
          llvm::Value* wRow = b.CreateMul(k, ir.c64(N));
          ir.loop(
              N,
              [&](llvm::Value* j) {
                llvm::Value* w = b.CreateSExt(ir.load(ir.i8(), pw, b.CreateAdd(wRow, j)), ir.i32());
                ir.store(b.CreateAdd(ir.load(ir.i32(), acc, j), b.CreateMul(av, w)), acc, j);
              },
              true);
        });
      });
      ir.loop(N, [&](llvm::Value* j) {
        llvm::Value* ch = mult.size() == 1 ? ir.c64(0) : j;
        llvm::Value* s = ir.load(ir.i64(), shifts, ch);
        llvm::Value* v =
            b.CreateMul(b.CreateSExt(ir.load(ir.i32(), acc, j), ir.i64()), ir.load(ir.i64(), multipliers, ch));
        // roundingShiftRight(v, s): v for s == 0, else (v >> s) + ((v >> (s - 1)) & 1).
        llvm::Value* sm1 = b.CreateAnd(b.CreateSub(s, ir.c64(1)), ir.c64(63));
        llvm::Value* rounded = b.CreateAdd(b.CreateAShr(v, s), b.CreateAnd(b.CreateAShr(v, sm1), ir.c64(1)));
        llvm::Value* scaled = b.CreateSelect(b.CreateICmpEQ(s, ir.c64(0)), v, rounded);
        llvm::Value* q = b.CreateAdd(scaled, ir.c64(zy));
        q = b.CreateSelect(b.CreateICmpSLT(q, ir.c64(actMin)), ir.c64(actMin), q);  // std::max(q, act_min)
        q = b.CreateSelect(b.CreateICmpSLT(ir.c64(actMax), q), ir.c64(actMax), q);  // std::min(q, act_max)
        q = b.CreateSelect(
            b.CreateICmpSLT(q, ir.c64(isa::arith::kActMin)), ir.c64(isa::arith::kActMin),
            b.CreateSelect(b.CreateICmpSLT(ir.c64(isa::arith::kActMax), q), ir.c64(isa::arith::kActMax), q));
        ir.store(b.CreateTrunc(q, ir.i8()), y, b.CreateAdd(b.CreateMul(m, ir.c64(N)), j));
      });
    });
  };
}

}  // namespace

Emitter planMatMul(const Graph& g, const Node& n) {
  if (n.inputs.empty() || n.inputs[0] < 0 || n.outputs.size() != 1) return {};
  const ElemType a = valueOf(g, n.inputs[0]).type;
  if (n.op == compiler::Op::MatMul && a == ElemType::Float32) return floatMatMul(g, n);
  if ((n.op == compiler::Op::MatMul || n.op == compiler::Op::Gemm) && a == ElemType::Int8) return int8MatMul(g, n);
  return {};
}

}  // namespace systole::hostjit
