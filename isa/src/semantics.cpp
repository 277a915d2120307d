#include "systole/isa/semantics.h"

#include <initializer_list>

namespace systole::isa {

namespace {

constexpr SemanticsInfo kTable[kNumSemantics] = {
    {Semantics::DmaLoad,
     "dma_load",
     Unit::Load,
     {"dram_addr", "spad_row", "rows", "bytes", "dram_stride"},
     "copy `rows` strided DRAM rows of `bytes` bytes into scratchpad rows, zero-filling each row's tail"},
    {Semantics::DmaLoadAcc,
     "dma_load_acc",
     Unit::Load,
     {"dram_addr", "acc_row", "rows", "bytes", "dram_stride"},
     "copy `rows` strided DRAM rows of `bytes` bytes (little-endian int32) into accumulator rows"},
    {Semantics::DmaStore,
     "dma_store",
     Unit::Store,
     {"dram_addr", "spad_row", "rows", "bytes", "dram_stride"},
     "copy the first `bytes` bytes of `rows` scratchpad rows to strided DRAM rows"},
    {Semantics::DmaStoreAcc,
     "dma_store_acc",
     Unit::Store,
     {"dram_addr", "acc_row", "rows", "bytes", "dram_stride"},
     "copy the first `bytes` bytes of `rows` accumulator rows (little-endian int32) to strided DRAM rows"},
    {Semantics::WeightPreload,
     "weight_preload",
     Unit::Compute,
     {"spad_row"},
     "load the array's weights W[k][n] from scratchpad rows spad_row + k, k < array.rows"},
    {Semantics::MatmulTile,
     "matmul_tile",
     Unit::Compute,
     {"a_row", "acc_row", "m", "accumulate"},
     "acc[acc_row+i][n] (+)= sum_k spad[a_row+i][k] * W[k][n] for i < m"},
    {Semantics::MatmulStream,
     "matmul_stream",
     Unit::Compute,
     {"a_row", "a_stride", "w_row", "acc_row", "m", "k_slices", "accumulate"},
     "acc[acc_row+i][n] (+)= sum_{s < k_slices, k} spad[a_row+s*a_stride+i][k] * spad[w_row+s*array.rows+k][n] for i < "
     "m"},
    {Semantics::Requantize,
     "requantize",
     Unit::Compute,
     {"acc_row", "spad_row", "rows", "scale_row", "zero_point", "clamp_min", "clamp_max"},
     "spad = clamp(zero_point + round_shift(acc * M, S)) with per-lane M, S from accumulator rows scale_row, "
     "scale_row+1"},
    {Semantics::VectorWiden,
     "vector_widen",
     Unit::Compute,
     {"spad_row", "acc_row", "rows", "zero_point", "multiplier"},
     "acc = (spad - zero_point) * multiplier"},
    {Semantics::VectorAdd,
     "vector_add",
     Unit::Compute,
     {"dst_row", "a_row", "b_row", "rows"},
     "acc[dst] = acc[a] + acc[b], wrapping int32"},
    {Semantics::VectorMul,
     "vector_mul",
     Unit::Compute,
     {"dst_row", "a_row", "b_row", "rows"},
     "acc[dst] = acc[a] * acc[b], wrapping int32"},
    {Semantics::VectorMax,
     "vector_max",
     Unit::Compute,
     {"dst_row", "a_row", "b_row", "rows"},
     "spad[dst] = max(spad[a], spad[b]), int8"},
    {Semantics::VectorLut,
     "vector_lut",
     Unit::Compute,
     {"dst_row", "src_row", "rows", "table_row"},
     "spad[dst] = T[spad[src] + 128], T the 256 int8 entries stored row-major from spad[table_row]"},
    {Semantics::VectorReduce,
     "vector_reduce",
     Unit::Compute,
     {"dst_row", "src_row", "rows", "op"},
     "acc[dst][*] = sum (op=0, wrapping) or max (op=1) over the lanes of acc[src]"},
    {Semantics::Nop, "nop", Unit::Compute, {}, "no effect; carries dependency tokens"},
    {Semantics::Finish, "finish", Unit::Compute, {}, "end the program once every queue has drained"},
    {Semantics::DmaLoad2d,
     "dma_load_2d",
     Unit::Load,
     {"dram_addr", "spad_row", "rows", "bytes", "dram_stride", "runs", "run_stride"},
     "copy `runs` runs of `rows` strided DRAM rows of `bytes` bytes, run r from dram_addr + r * run_stride, into "
     "consecutive scratchpad rows"},
    {Semantics::VectorRecip,
     "vector_recip",
     Unit::Compute,
     {"dst_row", "src_row", "rows", "shift", "op"},
     "acc[dst] = floor(2^shift / acc[src]) (op=0) or floor(2^shift / sqrt(acc[src])) (op=1), saturating"},
    {Semantics::WeightPreloadT,
     "weight_preload_t",
     Unit::Compute,
     {"spad_row"},
     "W[k][n] = spad[spad_row + n][k]: the array's weights from array.cols rows, each row a column"},
    {Semantics::DmaLoadInt4,
     "dma_load_int4",
     Unit::Load,
     {"dram_addr", "spad_row", "rows", "bytes", "dram_stride"},
     "copy `rows` strided DRAM rows of ceil(bytes / 2) bytes, two signed 4-bit values per byte (low nibble first), "
     "sign-extended to `bytes` int8 values per scratchpad row"},
    {Semantics::DepthwiseTile,
     "depthwise_tile",
     Unit::Compute,
     {"a_row", "acc_row", "m", "accumulate", "kh", "kw", "pitch", "stride"},
     "acc[acc_row+i][n] (+)= sum_{t < kh*kw} spad[a_row+stride*i+(t/kw)*pitch+t%kw][n] * W[t][n] for i < m"},
    {Semantics::VectorMac,
     "vector_mac",
     Unit::Compute,
     {"dst_row", "src_row", "w_row", "rows", "stride", "accumulate"},
     "acc[dst_row+i][n] (+)= spad[src_row+stride*i][n] * spad[w_row][n] for i < rows, n < vector.lanes"},
};

}  // namespace

const SemanticsInfo& semanticsInfo(Semantics s) { return kTable[static_cast<int>(s)]; }

std::span<const SemanticsInfo> allSemantics() { return kTable; }

RowSpace operandRowSpace(Semantics s, int k) {
  constexpr RowSpace N = RowSpace::None, S = RowSpace::Scratchpad, A = RowSpace::Accumulator;
  auto of = [k](std::initializer_list<RowSpace> spaces) {
    return k >= 0 && k < static_cast<int>(spaces.size()) ? spaces.begin()[k] : N;
  };
  // Operand order: kTable (the accesses themselves: pipeline.cpp's computeAccesses).
  switch (s) {
    case Semantics::DmaLoad:
    case Semantics::DmaStore:
    case Semantics::DmaLoad2d:
    case Semantics::DmaLoadInt4: return of({N, S});
    case Semantics::DmaLoadAcc:
    case Semantics::DmaStoreAcc: return of({N, A});
    case Semantics::WeightPreload:
    case Semantics::WeightPreloadT: return of({S});
    case Semantics::MatmulTile:
    case Semantics::DepthwiseTile: return of({S, A});
    case Semantics::MatmulStream: return of({S, N, S, A});
    case Semantics::Requantize: return of({A, S, N, A});
    case Semantics::VectorWiden: return of({S, A});
    case Semantics::VectorAdd:
    case Semantics::VectorMul: return of({A, A, A});
    case Semantics::VectorMax: return of({S, S, S});
    case Semantics::VectorLut: return of({S, S, N, S});
    case Semantics::VectorReduce:
    case Semantics::VectorRecip: return of({A, A});
    case Semantics::VectorMac: return of({A, S, S});
    case Semantics::Nop:
    case Semantics::Finish: return N;
  }
  return N;
}

std::optional<Semantics> semanticsByName(std::string_view name) {
  for (const auto& info : kTable)
    if (info.name == name) return info.semantics;
  return std::nullopt;
}

std::string_view unitName(Unit u) {
  switch (u) {
    case Unit::Load: return "load";
    case Unit::Compute: return "compute";
    case Unit::Store: return "store";
  }
  return "?";
}

std::optional<Unit> unitByName(std::string_view name) {
  for (Unit u : {Unit::Load, Unit::Compute, Unit::Store})
    if (unitName(u) == name) return u;
  return std::nullopt;
}

}  // namespace systole::isa
