#include "chain_program.h"

namespace systole::testing {

void emitSerialChain(isa::ProgramBuilder& b, int64_t m) {
  using isa::Semantics;
  const isa::Params& p = b.isa().params();
  const int64_t R = p.array_rows, E = p.spad_row_elems;
  b.emit(Semantics::DmaLoad, {0, 0, R + m, E, E}, isa::kPushNext);
  b.emit(Semantics::WeightPreload, {0}, isa::kPopPrev);
  b.emit(Semantics::MatmulTile, {R, 0, m, 0});
  b.emit(Semantics::Requantize, {0, R + m, m, m, 0, -128, 127}, isa::kPushNext);
  b.emit(Semantics::DmaStore, {0x10000, R + m, m, E, E}, isa::kPopPrev);
  b.emit(Semantics::Finish, {});
}

}  // namespace systole::testing
