// Algorithm: first loads that fill a window of scratchpad and accumulator rows (so every row a store
// reads was written), then phases: up to four loads of a random DMA class (a broadcast's stride 0
// and 0-byte rows included), the last pushing a token to a compute nop, which pushes one to the
// stores (its last load may have 0-byte rows); up to four stores into the output region, the last pushing a token back
// through a nop to the next phase's first load. Operands stay inside their fields' limits.
#include "dma_program.h"

#include <algorithm>
#include <random>
#include <vector>

#include "systole/isa/arith.h"
#include "systole/isa/builder.h"

namespace systole::testing {

namespace {

using isa::Semantics;

constexpr uint64_t kSourceBytes = 64 * 1024;  // random bytes at DRAM address 0
constexpr uint64_t kOutput = 1024 * 1024;     // the output region's address
constexpr int64_t kOutputBytes = 64 * 1024;   // and size
constexpr int64_t kMaxAddress = 32 * 1024;    // a transfer's first byte, from its region's start
constexpr int64_t kMaxStride = 256, kMaxRunStride = 1024, kMaxRows = 8;

struct Generator {
  const isa::IsaConfig& isa;
  std::mt19937 rng;
  isa::ProgramBuilder builder;
  int64_t spadRows, accRows;  // the window of rows the program uses

  int64_t uniform(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); }

  /// The largest value operand k of class s takes in this config.
  int64_t limit(Semantics s, int k) {
    const isa::InstrDesc& d = isa.instr(isa.bySemantics(s));
    return d.fields[static_cast<size_t>(d.fieldIndex(isa::semanticsInfo(s).operands[static_cast<size_t>(k)]))].limit();
  }
  bool accumulator(Semantics s) { return s == Semantics::DmaLoadAcc || s == Semantics::DmaStoreAcc; }
  int64_t laneBytes(Semantics s) { return accumulator(s) ? 4 : isa.params().act_bits / 8; }
  int64_t rowBytes(Semantics s) {
    return accumulator(s) ? isa.params().acc_row_elems * 4 : isa.params().spad_row_bytes;
  }
  /// Whole lanes, at most a row and the field's limit.
  int64_t bytes(Semantics s, int64_t lanes) {
    const int64_t lane = laneBytes(s);
    return std::min(lanes * lane, limit(s, 3) / lane * lane);
  }

  size_t emit(Semantics s, std::vector<int64_t> operands, uint8_t tokens) {
    for (size_t k = 0; k < operands.size(); ++k) operands[k] = std::min(operands[k], limit(s, static_cast<int>(k)));
    builder.emit(s, operands, tokens);
    return builder.instructions().size() - 1;
  }

  /// Loads that write every row of both windows.
  void fillWindows() {
    for (Semantics s : {Semantics::DmaLoad, Semantics::DmaLoadAcc}) {
      const int64_t window = s == Semantics::DmaLoadAcc ? accRows : spadRows;
      const int64_t chunk = std::min(window, limit(s, 2));
      for (int64_t row = 0; row < window; row += chunk)
        emit(s,
             {uniform(0, kMaxAddress), row, std::min(chunk, window - row), bytes(s, rowBytes(s) / laneBytes(s)),
              rowBytes(s)},
             0);
    }
  }

  /// `empty`: rows of 0 bytes, which write zeros for cycles the YAML does not charge; the load is
  /// then the last before a token wait, so no load starts while it writes (npu_dma_data.sv).
  void randomLoad(bool empty) {
    std::vector<Semantics> classes;
    for (Semantics s : {Semantics::DmaLoad, Semantics::DmaLoadAcc, Semantics::DmaLoad2d, Semantics::DmaLoadInt4})
      if (builder.has(s)) classes.push_back(s);
    const Semantics s = classes[static_cast<size_t>(uniform(0, static_cast<int64_t>(classes.size()) - 1))];
    const int64_t window = accumulator(s) ? accRows : spadRows;
    const int64_t runs = s == Semantics::DmaLoad2d ? uniform(1, 3) : 1;
    const int64_t rows = uniform(1, std::min(kMaxRows, window / runs));
    const int64_t lanes = empty ? 0 : uniform(1, rowBytes(s) / laneBytes(s));
    std::vector<int64_t> operands = {uniform(0, kMaxAddress), uniform(0, window - rows * runs), rows, bytes(s, lanes),
                                     uniform(0, 3) == 0 ? 0 : uniform(1, kMaxStride)};
    if (s == Semantics::DmaLoad2d) operands.insert(operands.end(), {runs, uniform(0, kMaxRunStride)});
    emit(s, operands, 0);
  }

  /// One or two weight groups, each a weight_preload (or weight_preload_t) and up to three
  /// products: matmul_tiles, matmul_streams or depthwise_tiles (m >= 1, at most array.rows on an
  /// output-stationary array), each accumulating (or not) into the previous product's rows half
  /// the time (back-to-back tiles of one output, which overlap on a pipelined array); then maybe
  /// a requantize.
  void arrayPhase() {
    const auto& p = isa.params();
    for (int64_t group = uniform(1, 2); group > 0; --group) {
      if (builder.has(Semantics::WeightPreloadT) && uniform(0, 1))
        emit(Semantics::WeightPreloadT, {uniform(0, spadRows - p.array_cols)}, 0);
      else
        emit(Semantics::WeightPreload, {uniform(0, spadRows - p.array_rows)}, 0);
      int64_t lastAcc = -1;
      for (int64_t n = uniform(1, 3); n > 0; --n) lastAcc = product(lastAcc);
    }
    if (uniform(0, 1)) vectorInstruction(Semantics::Requantize);
  }

  /// A random product writing from accumulator row `sameAcc` half the time (if >= 0); returns the
  /// first row it writes.
  int64_t product(int64_t sameAcc) {
    const auto& p = isa.params();
    const int64_t maxM = p.dataflow == isa::Dataflow::OutputStationary ? p.array_rows : kMaxRows;
    const int64_t m = uniform(1, std::min(maxM, std::min(spadRows, accRows)));
    const int64_t acc = sameAcc >= 0 && sameAcc + m <= accRows && uniform(0, 1) ? sameAcc : uniform(0, accRows - m);
    const int64_t kind = uniform(0, 2);
    if (kind == 1 && builder.has(Semantics::MatmulStream)) {  // k slices of weight and activation rows
      const int64_t k = uniform(1, std::min<int64_t>(3, spadRows / p.array_rows));
      const int64_t stride = k > 1 ? uniform(0, (spadRows - m) / (k - 1)) : uniform(0, 4);
      emit(Semantics::MatmulStream,
           {uniform(0, spadRows - m - (k - 1) * stride), stride, uniform(0, spadRows - k * p.array_rows), acc, m, k,
            uniform(0, 1)},
           0);
    } else if (kind == 2 && builder.has(Semantics::DepthwiseTile)) {  // a window of kh x kw taps
      const int64_t kh = uniform(1, std::min<int64_t>(3, p.array_rows));
      const int64_t kw = uniform(1, std::min<int64_t>(3, p.array_rows / kh));
      const int64_t pitch = uniform(kw, kw + 6), stride = uniform(1, 2);
      const int64_t window = stride * (m - 1) + (kh - 1) * pitch + kw;
      emit(Semantics::DepthwiseTile, {uniform(0, spadRows - window), acc, m, uniform(0, 1), kh, kw, pitch, stride}, 0);
    } else {
      emit(Semantics::MatmulTile, {uniform(0, spadRows - m), acc, m, uniform(0, 1)}, 0);
    }
    return acc;
  }

  /// Rows of a vector instruction's source (`lo`) and destination in one memory's window: in the
  /// lower and upper half, or (`inPlace`) the same rows. A destination that overlapped a source at
  /// another offset would read rows the instruction already wrote in a pipelined vector unit.
  std::pair<int64_t, int64_t> sourceAndDestination(int64_t window, int64_t rows, bool inPlace) {
    const int64_t half = window / 2;
    const int64_t src = uniform(0, half - rows);
    return {src, inPlace ? src : uniform(half, window - rows)};
  }

  /// One vector instruction of class s with random rows of the windows and random operands.
  void vectorInstruction(Semantics s) {
    const int64_t rows = uniform(1, kMaxRows);
    const int64_t lo = isa::arith::activationMin(isa.params().act_bits);
    const int64_t hi = isa::arith::activationMax(isa.params().act_bits);
    const bool inPlace = uniform(0, 2) == 0;
    const auto [accSrc, accDst] = sourceAndDestination(accRows, rows, inPlace);
    const auto [spadSrc, spadDst] = sourceAndDestination(spadRows, rows, inPlace);
    // A second source: in the half the destination is not in.
    const int64_t accOther = inPlace ? uniform(accRows / 2, accRows - rows) : uniform(0, accRows / 2 - rows);
    const int64_t spadOther = inPlace ? uniform(spadRows / 2, spadRows - rows) : uniform(0, spadRows / 2 - rows);
    switch (s) {
      case Semantics::Requantize:  // any scale rows of the window, to a half of its own
        emit(s, {accSrc, spadDst, rows, uniform(0, accRows - 2), uniform(lo, hi), uniform(lo, hi), uniform(lo, hi)}, 0);
        break;
      case Semantics::VectorWiden: {
        const int64_t m = limit(s, 4);
        emit(s, {spadSrc, accDst, rows, uniform(lo, hi), uniform(-m - 1, m)}, 0);
        break;
      }
      case Semantics::VectorAdd:
      case Semantics::VectorMul: emit(s, {accDst, accSrc, accOther, rows}, 0); break;
      case Semantics::VectorMax: emit(s, {spadDst, spadSrc, spadOther, rows}, 0); break;
      case Semantics::VectorLut:
        emit(s, {spadDst, spadSrc, rows, uniform(0, spadRows - isa.params().lut_rows)}, 0);
        break;
      case Semantics::VectorReduce: emit(s, {accDst, accSrc, rows, uniform(0, 1)}, 0); break;
      case Semantics::VectorRecip: emit(s, {accDst, accSrc, rows, uniform(0, 63), uniform(0, 1)}, 0); break;
      case Semantics::VectorMac: {  // source rows `stride` apart in the scratchpad's lower half
        const int64_t stride = uniform(1, std::min(limit(s, 4), (spadRows / 2 - 1) / std::max<int64_t>(1, rows - 1)));
        emit(s, {accDst, uniform(0, spadRows / 2 - (rows - 1) * stride - 1), spadOther, rows, stride, uniform(0, 1)},
             0);
        break;
      }
      default: break;
    }
  }

  /// One to three vector instructions of the classes the config has.
  void vectorPhase() {
    std::vector<Semantics> classes;
    for (Semantics s : {Semantics::Requantize, Semantics::VectorWiden, Semantics::VectorAdd, Semantics::VectorMul,
                        Semantics::VectorMax, Semantics::VectorLut, Semantics::VectorReduce, Semantics::VectorRecip,
                        Semantics::VectorMac})
      if (builder.has(s)) classes.push_back(s);
    for (int64_t n = uniform(1, 3); n > 0; --n)
      vectorInstruction(classes[static_cast<size_t>(uniform(0, static_cast<int64_t>(classes.size()) - 1))]);
  }

  void randomStore() {
    const Semantics s = uniform(0, 1) ? Semantics::DmaStore : Semantics::DmaStoreAcc;
    const int64_t window = accumulator(s) ? accRows : spadRows;
    const int64_t rows = uniform(1, std::min(kMaxRows, window));
    emit(s,
         {static_cast<int64_t>(kOutput) + uniform(0, kMaxAddress), uniform(0, window - rows), rows,
          bytes(s, uniform(0, rowBytes(s) / laneBytes(s))), uniform(0, kMaxStride)},
         0);
  }
};

}  // namespace

isa::Program randomDmaProgram(const isa::IsaConfig& isa, int phases, uint32_t seed, ComputePhase compute) {
  Generator g{isa, std::mt19937(seed), isa::ProgramBuilder(isa), std::min<int64_t>(64, isa.params().spad_rows),
              std::min<int64_t>(32, isa.params().acc_rows)};
  std::vector<uint8_t> source(kSourceBytes);
  for (auto& b : source) b = static_cast<uint8_t>(g.uniform(0, 255));
  g.builder.addData(0, std::move(source));
  g.builder.addTensor(
      {.name = "dram_out", .kind = isa::TensorKind::Output, .shape = {kOutputBytes}, .dram_addr = kOutput});
  auto& code = g.builder.instructions();
  for (int p = 0; p < phases; ++p) {
    const size_t first = code.size();
    if (p == 0) g.fillWindows();
    for (int64_t n = g.uniform(1, 4); n > 0; --n) g.randomLoad(n == 1 && g.uniform(0, 3) == 0);
    if (p > 0) code[first].tokens |= isa::kPopNext;  // the previous phase's stores are done
    code.back().tokens |= isa::kPushNext;
    const size_t computes = code.size();
    if (compute == ComputePhase::Array)
      g.arrayPhase();
    else if (compute == ComputePhase::Vector)
      g.vectorPhase();
    else
      g.emit(Semantics::Nop, {}, 0);
    code[computes].tokens |= isa::kPopPrev;
    code.back().tokens |= isa::kPushNext;
    const size_t stores = code.size();
    for (int64_t n = g.uniform(1, 4); n > 0; --n) g.randomStore();
    code[stores].tokens |= isa::kPopPrev;
    if (p + 1 == phases) continue;
    code.back().tokens |= isa::kPushPrev;
    g.emit(Semantics::Nop, {}, isa::kPopNext | isa::kPushPrev);
  }
  g.emit(Semantics::Finish, {}, 0);
  return g.builder.build();
}

}  // namespace systole::testing
