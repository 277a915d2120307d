// Algorithm: FlattenNhwc ([N, C, H, W] -> [N, H * W * C] in (h, w, c) order) is the input's NHWC
// bytes without the halo, image after image. The output matrix is viewed as an unpadded NHWC
// buffer of the input's shape (image n at n * H * W * C bytes) and the input copied into it with
// the identity scale, so a haloed input needs no special case.
#include "operator_registry.h"

namespace systole::compiler {

void tileFlattenNhwc(TileContext& T, const Node& n) {
  const ActBuffer& in = T.buffer(n.inputs[0]);
  const ActBuffer& out = T.buffer(n.outputs[0]);
  ActBuffer view = in;
  view.id = out.id;
  view.halo = 0;
  view.base = out.base + (in.N > 1 ? in.base / in.imageBytes() : 0) * view.imageBytes();  // the image being tiled
  T.layer().loops = "c / lanes x pixel chunks: copy the NHWC bytes into the matrix";
  emitRescale(T, in, 0, view, 0, in.C, T.zeroPoint(n.inputs[0]), 1 << 30, 30, T.zeroPoint(n.outputs[0]), -128, 127);
  T.layer().min_dram_bytes = 2 * in.H * in.W * in.C;
}

}  // namespace systole::compiler
