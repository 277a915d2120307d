#include "tile_context.h"

#include <algorithm>
#include <cstring>

#include "systole/compiler/host_tensor.h"
#include "operator_registry.h"
#include "systole/isa/diagnostic.h"

namespace systole::compiler {

using isa::Semantics;

TileContext::TileContext(const Graph& graph, const isa::IsaConfig& config, TilePlan& tilePlan)
    : g(graph),
      isa(config),
      p(config.params()),
      plan(tilePlan),
      lane(p.act_bits / 8),
      actMin(isa::arith::activationMin(p.act_bits)),
      actMax(isa::arith::activationMax(p.act_bits)) {}

const ActBuffer& TileContext::buffer(int value) const { return plan.buffers.at(value); }

ActBuffer TileContext::source(int value) {
  const Value& v = g.values[static_cast<size_t>(value)];
  if (!v.is_constant) return buffer(value);
  ActBuffer b = bufferShape(v);
  // Quantized lanes, row-major: NCHW for a 4-D tensor, whose buffer is NHWC.
  const auto size = static_cast<size_t>(elemTypeBytes(v.type));
  // The registry already sends an operator whose inputs are not the config's lanes to the host
  // (e2e ConfigChange.AnInt8GraphRunsOnTheHostOfAnInt16Config); this guards the plan itself.
  if (static_cast<int64_t>(size) != lane)
    throw Error("code generation: constant '" + v.name + "' is " + std::string(elemTypeName(v.type)) +
                ", not the config's " + std::to_string(p.act_bits) + "-bit activations");
  std::vector<uint8_t> bytes = v.data;
  if (v.shape.size() == 4) moveNhwc(v.data.data(), bytes.data(), b.N, b.C, b.H * b.W, size, true);
  const Operand at = addConstant(std::move(bytes), v.name);
  b.space = Space::Constant, b.id = at.id;
  return b;
}

int32_t TileContext::zeroPoint(int value) const { return g.values[static_cast<size_t>(value)].quant->zero_point.at(0); }

int64_t operandLimit(const isa::IsaConfig& isa, Semantics s, int operand) {
  const int index = isa.bySemantics(s);
  if (index < 0)
    throw Error("code generation: ISA '" + isa.params().name + "' has no '" + std::string(isa::semanticsInfo(s).name) +
                "' instruction");
  const auto& d = isa.instr(index);
  return d.fields[static_cast<size_t>(d.operand_field[static_cast<size_t>(operand)])].limit();
}

int64_t TileContext::limit(Semantics s, int operand) const { return operandLimit(isa, s, operand); }

namespace {

/// A scratchpad DMA's operands in lanes made bytes: the DRAM offset, the row length and the DRAM
/// strides (dram_addr, bytes, dram_stride and dma_load_2d's run_stride); dma_load_int4's DRAM side
/// is packed nibbles, in bytes already, so only its row length is.
void lanesToBytes(Semantics s, std::vector<Operand>& ops, int64_t lane) {
  if (lane == 1 || s == Semantics::DmaLoadAcc || s == Semantics::DmaStoreAcc) return;
  auto scale = [&](size_t i) {
    if (i < ops.size()) ops[i].offset *= lane;
  };
  scale(3);
  if (s == Semantics::DmaLoadInt4) return;
  scale(0), scale(4), scale(6);
}

}  // namespace

void TileContext::transfer(std::vector<PlanInstr>& to, Semantics s, std::initializer_list<Operand> operands) const {
  std::vector<Operand> ops(operands);
  lanesToBytes(s, ops, lane);
  // dma_load, dma_store and their accumulator forms: dram_addr, row, rows, bytes, dram_stride.
  if (s == Semantics::DmaLoad2d || ops.size() != 5) {
    to.push_back({s, std::move(ops)});
    return;
  }
  const int64_t rows = ops[2].value(), stride = ops[4].value();
  const bool strideFits = stride <= limit(s, 4);
  const int64_t most = strideFits ? limit(s, 2) : 1;  // rows one DMA moves
  if (strideFits && rows <= most) {
    to.push_back({s, std::move(ops)});
    return;
  }
  for (int64_t i = 0; i < rows; i += most)
    to.push_back({s, {ops[0] + i * stride, ops[1] + i, std::min(most, rows - i), ops[3], strideFits ? stride : 0}});
}

void TileContext::endStep(std::string loop) {
  if (step_.computes.empty()) throw Error("code generation: a step without compute instructions");
  if (step_.writes_output == step_.stores.empty())
    throw Error("code generation: a step's output slot and its stores disagree");
  step_.loop = std::move(loop);
  layer().steps.push_back(std::move(step_));
  step_ = PlanStep{};
}

void TileContext::barrier() {
  PlanStep b;
  b.barrier = true;
  layer().steps.push_back(std::move(b));
}

Operand TileContext::addConstant(std::vector<uint8_t> bytes, const std::string& what) {
  if (replaying_) {
    const Operand made = made_.at(replayed_++);
    if (plan.constants.at(static_cast<size_t>(made.id)) != bytes)
      throw Error("code generation: images of one layer need different constants");
    return made;
  }
  plan.constants.push_back(std::move(bytes));
  plan.constant_names.push_back(layer().name + " " + what);
  made_.push_back({Space::Constant, static_cast<int>(plan.constants.size() - 1), 0});
  return made_.back();
}

void TileContext::forEachImage(const std::vector<int>& values, const std::function<void()>& tile) {
  int64_t images = 1;
  for (int v : values) images = std::max(images, plan.buffers.at(v).N);
  made_.clear();
  int64_t minDramBytes = 0;
  for (int64_t n = 0; n < images; ++n) {
    for (int v : values) plan.buffers.at(v).base = plan.buffers.at(v).N > 1 ? n * plan.buffers.at(v).imageLanes() : 0;
    replaying_ = n > 0;
    replayed_ = 0;
    image_ = n;
    tile();
    minDramBytes += layer().min_dram_bytes;  // every image moves its operands once
  }
  for (int v : values) plan.buffers.at(v).base = 0;
  replaying_ = false;
  image_ = 0;
  layer().min_dram_bytes = minDramBytes;
}

Operand TileContext::addLanes(const std::vector<uint8_t>& int8Values, const std::string& what) {
  if (lane == 1) return addConstant(int8Values, what);
  std::vector<uint8_t> lanes;
  lanes.reserve(int8Values.size() * static_cast<size_t>(lane));
  for (uint8_t v : int8Values) appendLane(lanes, static_cast<int8_t>(v), static_cast<size_t>(lane));
  return addConstant(std::move(lanes), what);
}

std::vector<int32_t> int32s(const Node& n, const char* attr) {
  std::vector<int32_t> v;
  for (int64_t x : n.getInts(attr)) v.push_back(static_cast<int32_t>(x));
  if (v.empty()) throw Error("node '" + n.name + "' (" + n.op + "): missing attribute '" + attr + "'");
  return v;
}

std::vector<uint8_t> int32Bytes(const std::vector<int32_t>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(int32_t));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

void loadScales(TileContext& T, std::vector<int32_t> multipliers, std::vector<int32_t> shifts, Operand row) {
  // One (multiplier row, shift row) pair per tile of `vector.lanes` channels; a per-tensor scale
  // is the same in every lane.
  const int64_t lanes = T.p.acc_row_elems;
  if (multipliers.size() == 1) {
    multipliers.assign(static_cast<size_t>(lanes), multipliers[0]);
    shifts.assign(static_cast<size_t>(lanes), shifts[0]);
  }
  const int64_t tiles = (static_cast<int64_t>(multipliers.size()) + lanes - 1) / lanes;
  std::vector<int32_t> rows(static_cast<size_t>(2 * tiles * lanes), 0);
  for (size_t c = 0; c < multipliers.size(); ++c) {
    const int64_t tile = static_cast<int64_t>(c) / lanes, lane = static_cast<int64_t>(c) % lanes;
    rows[static_cast<size_t>((2 * tile) * lanes + lane)] = multipliers[c];
    rows[static_cast<size_t>((2 * tile + 1) * lanes + lane)] = shifts[c];
  }
  const Operand at = T.addConstant(int32Bytes(rows), "scales");
  T.load(Semantics::DmaLoadAcc, {at, row, 2 * tiles, T.p.acc_row_bytes, T.p.acc_row_bytes});
}

namespace {

/// The chunk's pixel runs as DMA transfers: in a buffer without a halo, a run that ends its image
/// row continues in the next row's first pixel, so consecutive runs merge into one transfer (up
/// to the instruction's row limit); runs placed with a pixel stride do not merge.
std::vector<PixelRun> transfers(const TileContext& T, Semantics s, const std::vector<PixelRun>& chunk,
                                const ActBuffer& b, const PixelPlacement& at = {}) {
  const int64_t maxRows = T.limit(s, 2);
  std::vector<PixelRun> out;
  for (const PixelRun& run : chunk) {
    if (!out.empty() && b.halo == 0 && at.identity()) {
      PixelRun& last = out.back();
      const bool adjacent =
          (last.y * b.W + last.x0 + last.count == run.y * b.W + run.x0) && last.offset + last.count == run.offset;
      if (adjacent && last.count + run.count <= maxRows) {
        last.count += run.count;
        continue;
      }
    }
    out.push_back(run);
  }
  return out;
}

}  // namespace

void loadRuns(TileContext& T, const std::vector<PixelRun>& chunk, const ActBuffer& in, int64_t c0, int64_t nc,
              Operand toRow) {
  for (const PixelRun& run : transfers(T, Semantics::DmaLoad, chunk, in))
    T.load(Semantics::DmaLoad, {in.interior(run.y, run.x0) + c0, toRow + run.offset, run.count, nc, in.pixelLanes()});
}

void loadWindowRuns(TileContext& T, const std::vector<PixelRun>& chunk, const ActBuffer& in, int64_t sh, int64_t sw,
                    int64_t dy, int64_t dx, int64_t c0, int64_t nc, Operand toRow) {
  const int64_t stride = sw * in.pixelLanes(), runStride = sh * in.paddedW() * in.pixelLanes();
  const bool twoD = T.isa.bySemantics(Semantics::DmaLoad2d) >= 0;
  const int64_t maxRuns = twoD ? T.limit(Semantics::DmaLoad2d, 5) : 1;
  // Runs that fit dma_load_2d's fields: up to maxRuns of them, and the same reach as dma_load;
  // the rest take one dma_load per run.
  const auto fits = [&](const PixelRun& r) {
    return twoD && r.count <= T.limit(Semantics::DmaLoad2d, 2) && nc <= T.limit(Semantics::DmaLoad2d, 3) &&
           stride <= T.limit(Semantics::DmaLoad2d, 4) && runStride <= T.limit(Semantics::DmaLoad2d, 6) &&
           toRow.offset + r.offset <= T.limit(Semantics::DmaLoad2d, 1);
  };
  for (size_t i = 0; i < chunk.size();) {
    const PixelRun& first = chunk[i];
    size_t e = i + 1;
    while (e < chunk.size() && static_cast<int64_t>(e - i) < maxRuns && fits(first) && chunk[e].count == first.count &&
           chunk[e].x0 == first.x0 && chunk[e].y == chunk[e - 1].y + 1 &&
           chunk[e].offset == chunk[e - 1].offset + first.count)
      ++e;
    const Operand from = in.padded(first.y * sh + dy, first.x0 * sw + dx) + c0;
    if (e - i > 1)
      T.load(Semantics::DmaLoad2d,
             {from, toRow + first.offset, first.count, nc, stride, static_cast<int64_t>(e - i), runStride});
    else
      T.load(Semantics::DmaLoad, {from, toRow + first.offset, first.count, nc, stride});
    i = e;
  }
}

void gatherRuns(TileContext& T, const std::vector<PixelRun>& chunk, const ActBuffer& in, const PixelGather& from,
                int64_t c0, int64_t nc, Operand toRow) {
  const int64_t maxRows = T.limit(Semantics::DmaLoad, 2), maxStride = T.limit(Semantics::DmaLoad, 4);
  for (const PixelRun& run : chunk) {
    const int64_t y = from.rows.at(static_cast<size_t>(run.y));
    const auto col = [&](int64_t i) { return from.cols.at(static_cast<size_t>(run.x0 + i)); };
    for (int64_t i = 0; i < run.count;) {
      const int64_t x = col(i);
      int64_t step = i + 1 < run.count ? col(i + 1) - x : 1;
      if (step < 0 || step * in.pixelLanes() > maxStride) step = 1;  // such sources move one pixel per DMA
      int64_t n = 1;
      while (i + n < run.count && n < maxRows && col(i + n) == x + n * step) ++n;
      T.load(Semantics::DmaLoad, {in.interior(y, x) + c0, toRow + run.offset + i, n, nc, step * in.pixelLanes()});
      i += n;
    }
  }
}

void storeRuns(TileContext& T, const std::vector<PixelRun>& chunk, const ActBuffer& out, int64_t c0, int64_t nc,
               Operand fromRow, const PixelPlacement& at) {
  for (const PixelRun& run : transfers(T, Semantics::DmaStore, chunk, out, at))
    T.store(Semantics::DmaStore, {out.interior(at.sy * run.y + at.oy, at.sx * run.x0 + at.ox) + c0,
                                  fromRow + run.offset, run.count, nc, at.sx * out.pixelLanes()});
}

std::vector<ChannelRun> channelRuns(const std::vector<int64_t>& from, const PixelPlacement& at) {
  std::vector<ChannelRun> runs;
  for (int64_t o = 0; o < static_cast<int64_t>(from.size()); ++o) {
    const int64_t c = from[static_cast<size_t>(o)];
    if (!runs.empty() && runs.back().from + runs.back().count == c && runs.back().to + runs.back().count == o)
      ++runs.back().count;
    else
      runs.push_back({c, o, 1, {at}});
  }
  return runs;
}

void emitRescale(TileContext& T, const ActBuffer& in, const ActBuffer& out, const std::vector<ChannelRun>& runs,
                 int32_t zIn, const std::vector<int32_t>& M, const std::vector<int32_t>& S, int32_t zOut, int32_t lo,
                 int32_t hi, const PixelGather* from) {
  const OnChipLayout& l = T.layout();
  const ActBuffer& chunked = from ? out : in;
  const int64_t lanes = T.p.acc_row_elems;
  const int64_t n = std::min({l.chunk, l.acc_half, l.slot_rows});
  const bool perChannel = M.size() > 1;
  // Scale rows alternate between two pairs with every load of them (per channel tile, or once per
  // image), continuing from image to image: a load never overwrites the pair that the step before
  // may still be reading (the scheduler orders it after the step two before).
  int64_t tilesPerImage = 0;
  for (const ChannelRun& run : runs) tilesPerImage += (run.count + lanes - 1) / lanes;
  int64_t tile = 0;  // channel tiles so far
  for (const ChannelRun& run : runs)
    for (int64_t c0 = 0; c0 < run.count; c0 += lanes, ++tile) {
      const int64_t nc = std::min(lanes, run.count - c0);
      const int64_t loads = perChannel ? T.image() * tilesPerImage + tile : T.image();
      const int64_t scaleRow = l.scale_base + 2 * (loads % 2);
      bool tileStart = true;
      for (const auto& chunk : pixelChunks(chunked.H, chunked.W, n)) {
        const int64_t rows = chunkPixels(chunk);
        const Operand acc = T.newAccTile();
        if (tileStart && (perChannel || tile == 0)) {
          const auto at = [&](const std::vector<int32_t>& v) {
            if (!perChannel) return v;
            const auto b = v.begin() + run.to + c0;
            return std::vector<int32_t>(b, b + nc);
          };
          loadScales(T, at(M), at(S), scaleRow);
        }
        tileStart = false;
        if (from)
          gatherRuns(T, chunk, in, *from, run.from + c0, nc, T.loadSlot());
        else
          loadRuns(T, chunk, in, run.from + c0, nc, T.loadSlot());
        T.compute(Semantics::VectorWiden, {T.loadSlot(), acc, rows, zIn, 1});
        T.compute(Semantics::Requantize, {acc, T.outSlot(), rows, scaleRow, zOut, lo, hi});
        T.writesOutput();
        for (const PixelPlacement& at : run.at) storeRuns(T, chunk, out, run.to + c0, nc, T.outSlot(), at);
        T.endStep(chunkLabel(run.from + c0, nc, chunk));
      }
    }
}

std::string chunkLabel(int64_t c0, int64_t nc, const std::vector<PixelRun>& chunk) {
  return "c [" + std::to_string(c0) + ", " + std::to_string(c0 + nc) + "), px " + std::to_string(chunk.front().y) +
         ":" + std::to_string(chunk.front().x0) + " +" + std::to_string(chunkPixels(chunk));
}

RowBlocks rowBlocks(const TileContext& T, const Node& n, int64_t tiles, int64_t spadBlocks, int64_t spadExtra,
                    int64_t accBlocks, int64_t accExtra) {
  const OnChipLayout& l = T.layout();
  for (int64_t rows = std::min({l.chunk / tiles, l.slot_rows, l.acc_half}); rows > 0; --rows) {
    const RowBlocks b{rows, conflictFreeStride(rows, T.p.spad_banks), conflictFreeStride(rows, T.p.acc_banks)};
    if (spadBlocks * b.spad_gap + spadExtra <= l.slot_rows && accBlocks * b.acc_gap + accExtra <= l.acc_half) return b;
  }
  throw Error("node '" + n.name + "' (" + n.op.name() + "): a row of " + std::to_string(tiles) +
              " vector tiles does not fit the scratchpad and accumulator tiles");
}

std::vector<std::vector<PixelRun>> pixelChunks(int64_t H, int64_t W, int64_t maxPixels) {
  if (maxPixels < 1)
    throw Error("code generation: chunks of " + std::to_string(maxPixels) + " pixels");  // would never end
  std::vector<std::vector<PixelRun>> chunks(1);
  int64_t used = 0;
  for (int64_t y = 0; y < H; ++y)
    for (int64_t x = 0; x < W;) {
      if (used == maxPixels) {
        chunks.emplace_back();
        used = 0;
      }
      const int64_t n = std::min(W - x, maxPixels - used);
      chunks.back().push_back({y, x, n, used});
      used += n;
      x += n;
    }
  return chunks;
}

int64_t chunkPixels(const std::vector<PixelRun>& chunk) {
  int64_t n = 0;
  for (const auto& r : chunk) n += r.count;
  return n;
}

}  // namespace systole::compiler
