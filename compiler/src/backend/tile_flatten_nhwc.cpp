// Algorithm: FlattenNhwc ([N, C, H, W] -> [N, H * W * C] in (h, w, c) order) is the input's NHWC
// bytes without the halo, image after image. The output matrix is viewed as an unpadded NHWC
// buffer of the input's shape (image n at n * H * W * C bytes) and the input copied into it with
// the identity scale, so a haloed input needs no special case. UnflattenNhwc (rows [N, H * W, C]
// -> [N, C, H, W]) is the same copy the other way: the input rows viewed as the unpadded NHWC map,
// copied into the output's buffer (which may have a halo for the convolution reading it).
#include "operator_registry.h"
#include "systole/isa/arith.h"

namespace systole::compiler {

namespace {

/// Copies image `map` to or from the matrix `rows` (the map's NHWC bytes, unpadded) with the
/// identity scale: `rows` is viewed as an NHWC buffer of the map's shape (image n at n * H * W * C).
void copyMapRows(TileContext& T, const Node& n, const ActBuffer& map, const ActBuffer& rows, bool toRows) {
  ActBuffer view = map;
  view.id = rows.id;
  view.halo = 0;
  view.pitch = 0;
  view.channel0 = 0;
  view.base = rows.base + (map.N > 1 ? map.base / map.imageLanes() : 0) * view.imageLanes();  // the image being tiled
  T.layer().loops = toRows ? "c / lanes x pixel chunks: copy the NHWC bytes into the matrix"
                           : "c / lanes x pixel chunks: copy the matrix's rows into the NHWC map";
  emitRescale(T, toRows ? map : view, 0, toRows ? view : map, 0, map.C, T.zeroPoint(n.inputs[0]), kIdentityMultiplier,
              kIdentityShift, T.zeroPoint(n.outputs[0]), T.actMin, T.actMax);
  T.layer().min_dram_bytes = 2 * map.H * map.W * map.C * T.lane;
}

}  // namespace

void tileFlattenNhwc(TileContext& T, const Node& n) {
  copyMapRows(T, n, T.buffer(n.inputs[0]), T.buffer(n.outputs[0]), true);
}

void tileUnflattenNhwc(TileContext& T, const Node& n) {
  copyMapRows(T, n, T.buffer(n.outputs[0]), T.buffer(n.inputs[0]), false);
}

}  // namespace systole::compiler
