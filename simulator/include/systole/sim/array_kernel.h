// The functional model's array product, the simulator's hottest loop: activation rows (int8 or
// int16 lanes) times the array's weight tile into int32 accumulator rows, wrapping modulo 2^32 as
// docs/isa-semantics.md specifies. The weights are kept re-laid for the SIMD kernel, which picks
// the widest instruction set of the host at run time (Google Highway's dynamic dispatch).
#pragma once

#include <cstdint>
#include <vector>

namespace systole::sim {

/// A scratchpad lane as the simulator holds it: wide enough for the widest types.activation
/// (int16); an int8 configuration's lanes hold values in [-128, 127].
using Lane = int16_t;

/// The array's weight tile W[k][n] (k < rows, n < cols), kept twice: as written (for the scalar
/// reference and readers) and with pairs of reduction rows interleaved as int16, the layout of a
/// widening pairwise multiply-add: pair j, column n holds W[2j][n], W[2j + 1][n] (0 past the last
/// row), columns padded with zeros to a multiple of kColumnAlign.
class ArrayWeights {
 public:
  /// Enough for the widest vector Highway targets on x86 (AVX-512: 16 int32 lanes).
  static constexpr int64_t kColumnAlign = 16;

  /// `bits`: the width of the array's weight registers (isa::Params::widestWeightBits).
  ArrayWeights(int64_t rows, int64_t cols, int bits = 8);
  /// Loads row k of the tile from `src` (cols lanes), each lane as a weight register holds it
  /// (isa::arith::weightRegister).
  void setRow(int64_t k, const Lane* src);
  void clear();

  int64_t rows() const { return rows_; }
  int64_t cols() const { return cols_; }
  int64_t paddedCols() const { return padded_; }
  const int8_t* plain() const { return plain_.data(); }   // W[k][n] at k * cols + n
  const int16_t* pairs() const { return pairs_.data(); }  // pair j at j * 2 * paddedCols
  int64_t pairCount() const { return (rows_ + 1) / 2; }

 private:
  int64_t rows_, cols_, padded_;
  int bits_;
  std::vector<int8_t> plain_;
  std::vector<int16_t> pairs_;
};

/// out[i][n] (+)= sum over k of a[i][k] * W[k][n] for i < count, n < W.cols(), modulo 2^32. Row i
/// of the activations starts at a + i * aStride (W.rows() lanes), of the results at
/// out + i * outStride. Dispatches to the best SIMD target of the host.
void matmulRows(const ArrayWeights& w, const Lane* a, int64_t aStride, int64_t count, uint32_t* out, int64_t outStride,
                bool accumulate);

/// The same product by the plain scalar loop: the reference the SIMD kernel is tested against.
void matmulRowsScalar(const ArrayWeights& w, const Lane* a, int64_t aStride, int64_t count, uint32_t* out,
                      int64_t outStride, bool accumulate);

/// depthwise_tile's product (docs/isa-semantics.md): out[i][n] (+)= sum over t < kh * kw of
/// a[stride * i + (t / kw) * pitch + t % kw][n] * W[t][n] for i < count, n < W.cols(), modulo 2^32;
/// window row j at a + j * aStride, results as matmulRows. The lane loop is plain C++ that the
/// compiler vectorizes (a tap is one weight row times one input row, lane by lane).
void depthwiseRows(const ArrayWeights& w, const Lane* a, int64_t aStride, int64_t count, int64_t kh, int64_t kw,
                   int64_t pitch, int64_t stride, uint32_t* out, int64_t outStride, bool accumulate);

}  // namespace systole::sim
