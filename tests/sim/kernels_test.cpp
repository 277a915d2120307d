// Kernels beyond GEMM on every shipped config, built with ProgramBuilder by semantics class and
// compared exactly with plain C++ references written out long-hand here (not with isa/arith.h, so
// a mistake there cannot hide in both): a 3x3 convolution through strided DMA (implicit im2col),
// requantize with per-lane scales and activations, max and average pooling, a residual add of two
// differently quantized tensors, and the LUT, reduce, mul and add vector operations.
//
// Every kernel runs with poison checking on (each row read was written first) and once more in
// timing-only mode, which must give the same statistics.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <iterator>
#include <random>
#include <string>

#include "sim_test_util.h"
#include "systole/isa/arith.h"
#include "systole/isa/builder.h"

namespace systole::testing {
namespace {

using isa::Semantics;

// ---------------------------------------------------------------------------------------------
// Long-hand reference arithmetic (docs/isa-semantics.md).

int32_t wrap32(int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v))); }

/// requantize of one lane, in 128-bit arithmetic with an explicit floor division:
/// r = floor((x*M + 2^(S-1)) / 2^S) for S > 0, r = x*M for S = 0; then zero point, clamp, saturate.
int8_t refRequantize(int32_t x, int32_t multiplier, int32_t shiftWord, int32_t zeroPoint, int32_t clampMin,
                     int32_t clampMax) {
  const int S = shiftWord & 63;
  const __int128 p = static_cast<__int128>(x) * multiplier;
  __int128 r = p;
  if (S > 0) {
    const __int128 num = p + (static_cast<__int128>(1) << (S - 1));
    const __int128 den = static_cast<__int128>(1) << S;
    r = num / den;                          // truncates toward zero ...
    if (num % den != 0 && num < 0) r -= 1;  // ... so step down for negative non-multiples
  }
  __int128 y = r + zeroPoint;
  if (y < clampMin) y = clampMin;  // min(max(y, clamp_min), clamp_max)
  if (y > clampMax) y = clampMax;
  if (y < -128) y = -128;  // sat8
  if (y > 127) y = 127;
  return static_cast<int8_t>(y);
}

std::vector<uint8_t> le32Bytes(const std::vector<int32_t>& v) {
  std::vector<uint8_t> out(v.size() * 4);
  for (size_t i = 0; i < v.size(); ++i) {
    const auto u = static_cast<uint32_t>(v[i]);
    for (size_t b = 0; b < 4; ++b) out[i * 4 + b] = static_cast<uint8_t>(u >> (8 * b));
  }
  return out;
}

std::vector<int32_t> int32Of(const std::vector<uint8_t>& bytes) {
  std::vector<int32_t> out(bytes.size() / 4);
  for (size_t i = 0; i < out.size(); ++i) {
    uint32_t u = 0;
    for (size_t b = 0; b < 4; ++b) u |= static_cast<uint32_t>(bytes[i * 4 + b]) << (8 * b);
    out[i] = static_cast<int32_t>(u);
  }
  return out;
}

std::vector<int8_t> randomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<int8_t> v(n);
  for (auto& x : v) x = static_cast<int8_t>(rng() & 0xFF);
  return v;
}

/// Two accumulator rows for requantize: per-lane multipliers, then per-lane shifts.
std::vector<int32_t> scaleRows(const std::vector<int32_t>& mult, const std::vector<int32_t>& shift) {
  std::vector<int32_t> rows(mult);
  rows.insert(rows.end(), shift.begin(), shift.end());
  return rows;
}

// ---------------------------------------------------------------------------------------------
// A small program under construction. Instructions added with load/compute/store are synchronised
// in three phases: the last load pushes a token the first compute instruction pops, and the last
// compute instruction pushes one the first store pops. Kernels with their own token pattern use
// builder() directly.

class Kernel {
 public:
  explicit Kernel(const isa::IsaConfig& isa) : isa_(isa), b_(isa) {}

  const isa::Params& p() const { return isa_.params(); }
  isa::ProgramBuilder& builder() { return b_; }

  /// Places `bytes` in DRAM (a data segment) and returns the address.
  uint64_t data(const std::vector<uint8_t>& bytes) {
    const uint64_t addr = alloc(bytes.size());
    b_.addData(addr, bytes);
    return addr;
  }
  uint64_t data(const std::vector<int8_t>& v) { return data(bytesOf(v)); }
  uint64_t data(const std::vector<int32_t>& v) { return data(le32Bytes(v)); }

  /// Reserves `bytes` of DRAM as an output tensor the simulator reads back after the run.
  uint64_t output(const std::string& name, size_t bytes) {
    const uint64_t addr = alloc(bytes);
    b_.addTensor({name, isa::TensorKind::Output, isa::DType::Int8, {static_cast<int64_t>(bytes)}, addr, 1.0f, 0});
    return addr;
  }

  void load(Semantics s, std::initializer_list<int64_t> ops) { loads_.push_back(emit(s, ops)); }
  void compute(Semantics s, std::initializer_list<int64_t> ops) { computes_.push_back(emit(s, ops)); }
  void store(Semantics s, std::initializer_list<int64_t> ops) { stores_.push_back(emit(s, ops)); }

  /// Adds the phase tokens and the finish instruction, runs with poison checking, checks that a
  /// timing-only run gives the same statistics, and returns the full run's result.
  sim::SimResult run() {
    auto& code = b_.instructions();
    if (!loads_.empty() && !computes_.empty()) {
      code[loads_.back()].tokens |= isa::kPushNext;
      code[computes_.front()].tokens |= isa::kPopPrev;
    }
    if (!computes_.empty() && !stores_.empty()) {
      code[computes_.back()].tokens |= isa::kPushNext;
      code[stores_.front()].tokens |= isa::kPopPrev;
    }
    b_.emit(Semantics::Finish, {});
    const isa::Program program = b_.build();
    sim::Simulator simulator(isa_);
    sim::SimOptions options;
    options.poison = true;
    sim::SimResult full = simulator.run(program, {}, options);
    sim::SimOptions timingOnly;
    timingOnly.timing_only = true;
    const sim::SimResult fast = simulator.run(program, {}, timingOnly);
    EXPECT_EQ(fast.stats.toJson(), full.stats.toJson()) << "timing-only mode must give the same statistics";
    return full;
  }

  static std::vector<uint8_t> outputBytes(const sim::SimResult& r, const std::string& name) {
    for (const auto& t : r.outputs)
      if (t.info.name == name) return t.bytes;
    ADD_FAILURE() << "no output tensor " << name;
    return {};
  }

 private:
  size_t emit(Semantics s, std::initializer_list<int64_t> ops) {
    b_.emit(s, ops);
    return b_.instructions().size() - 1;
  }
  uint64_t alloc(size_t bytes) {
    const uint64_t addr = next_;
    next_ = (next_ + bytes + 255) & ~uint64_t{255};
    return addr;
  }

  const isa::IsaConfig& isa_;
  isa::ProgramBuilder b_;
  std::vector<size_t> loads_, computes_, stores_;
  uint64_t next_ = 0x1000;
};

class KernelsOnConfig : public ::testing::TestWithParam<std::string> {};

// ---------------------------------------------------------------------------------------------
// 3x3 convolution, stride 1 and 2, padding 1 (the input is stored pre-padded in DRAM, HWC int8).
// For each kernel offset (kh, kw) and output row oh, one dma_load with dram_stride = stride*C
// gathers the input pixels (oh*stride + kh, ow*stride + kw) for every ow as the rows of an
// activation tile: the im2col matrix is never built in DRAM. The tile times that offset's C x OC
// weights accumulates into the output row's accumulator rows (accumulate = 0 for the first
// offset); a final requantize with per-lane scales produces the int8 output, HWC.
// Window tiles are double-buffered: a load into a buffer waits (pop_next) for the gemm that read
// the buffer two steps earlier (push_prev).
TEST_P(KernelsOnConfig, Conv3x3ThroughStridedDmaMatchesReference) {
  const auto& isa = shippedConfig(GetParam());
  const auto& p = isa.params();
  const int64_t R = p.array_rows, L = p.acc_row_elems;
  for (int64_t stride : {1, 2}) {
    SCOPED_TRACE("stride " + std::to_string(stride));
    const int64_t H = 6, W = 7, C = R - 1, OC = p.array_cols - 1;  // C <= array.rows, OC <= array.cols
    const int64_t Hp = H + 2, Wp = W + 2;
    const int64_t OH = (Hp - 3) / stride + 1, OW = (Wp - 3) / stride + 1;
    const int32_t zeroPoint = -4;

    // Pre-padded input: a zero border of one pixel.
    std::vector<int8_t> input(static_cast<size_t>(Hp * Wp * C), 0);
    const auto interior = randomBytes(static_cast<size_t>(H * W * C), 100 + static_cast<uint32_t>(stride));
    for (int64_t y = 0; y < H; ++y)
      for (int64_t x = 0; x < W; ++x)
        for (int64_t c = 0; c < C; ++c)
          input[static_cast<size_t>(((y + 1) * Wp + x + 1) * C + c)] =
              interior[static_cast<size_t>((y * W + x) * C + c)];
    // Weights w[kh][kw][c][n]; in DRAM as 9 tiles of array.rows rows of OC bytes. Rows c >= C hold
    // garbage: the window rows' zero-filled tails (bytes = C) must cancel them.
    const auto weights = randomBytes(static_cast<size_t>(9 * C * OC), 200);
    const auto garbage = randomBytes(static_cast<size_t>(9 * R * OC), 201);
    std::vector<int8_t> weightTiles(static_cast<size_t>(9 * R * OC));
    for (int64_t o = 0; o < 9; ++o)
      for (int64_t k = 0; k < R; ++k)
        for (int64_t n = 0; n < OC; ++n) {
          const auto at = static_cast<size_t>((o * R + k) * OC + n);
          weightTiles[at] = k < C ? weights[static_cast<size_t>((o * C + k) * OC + n)] : garbage[at];
        }
    // Per-lane requantize scales that map the accumulator's spread onto int8: a product of two
    // uniform int8 values has a standard deviation of about 128^2 / 3, a sum of 9*C of them
    // sqrt(9*C) times that; aim for a standard deviation of about 40 at the output.
    const double spread = 128.0 * 128.0 / 3.0 * std::sqrt(9.0 * static_cast<double>(C));
    std::vector<int32_t> mult(static_cast<size_t>(L)), shift(static_cast<size_t>(L));
    for (int64_t j = 0; j < L; ++j) {
      const int S = 20 + static_cast<int>(j % 4);
      shift[static_cast<size_t>(j)] = S;
      mult[static_cast<size_t>(j)] = static_cast<int32_t>(
          std::llround(40.0 / spread * (0.75 + 0.125 * static_cast<double>(j % 5)) * std::ldexp(1.0, S)));
    }

    // Full-width garbage that fills the window buffers before the convolution, as an earlier layer
    // would leave them: every window load must zero its rows' tails (bytes = C < row width).
    const auto stale = randomBytes(static_cast<size_t>(2 * OW * p.spad_row_elems), 202);

    Kernel k(isa);
    const uint64_t inAddr = k.data(input), wAddr = k.data(weightTiles), sAddr = k.data(scaleRows(mult, shift));
    const uint64_t staleAddr = k.data(stale);
    const uint64_t outAddr = k.output("y", static_cast<size_t>(OH * OW * OC));
    // Scratchpad: [9 weight tiles][2 window buffers][output]; accumulator: [OH*OW outputs][scales].
    const int64_t wRow = 0, outRow = 9 * R + 2 * OW, scaleRow = OH * OW;
    auto winRow = [&](int64_t buf) { return 9 * R + buf * OW; };
    auto& b = k.builder();
    b.emit(Semantics::DmaLoad,
           {static_cast<int64_t>(staleAddr), winRow(0), 2 * OW, p.spad_row_elems, p.spad_row_elems});
    b.emit(Semantics::DmaLoadAcc, {static_cast<int64_t>(sAddr), scaleRow, 2, p.acc_row_bytes, p.acc_row_bytes});
    b.emit(Semantics::DmaLoad, {static_cast<int64_t>(wAddr), wRow, 9 * R, OC, OC}, isa::kPushNext);
    int64_t step = 0;
    for (int64_t o = 0; o < 9; ++o) {
      const int64_t kh = o / 3, kw = o % 3;
      for (int64_t oh = 0; oh < OH; ++oh, ++step) {
        const int64_t buf = step % 2;
        const int64_t src = static_cast<int64_t>(inAddr) + ((oh * stride + kh) * Wp + kw) * C;
        b.emit(Semantics::DmaLoad, {src, winRow(buf), OW, C, stride * C},
               static_cast<uint8_t>(isa::kPushNext | (step >= 2 ? isa::kPopNext : 0)));
        if (oh == 0) b.emit(Semantics::WeightPreload, {wRow + o * R}, o == 0 ? isa::kPopPrev : 0);
        // Release the window buffer only for a load that will reuse it (a token never popped is a fault).
        b.emit(Semantics::MatmulTile, {winRow(buf), oh * OW, OW, o > 0 ? 1 : 0},
               static_cast<uint8_t>(isa::kPopPrev | (step + 2 < 9 * OH ? isa::kPushPrev : 0)));
      }
    }
    b.emit(Semantics::Requantize, {0, outRow, OH * OW, scaleRow, zeroPoint, -128, 127}, isa::kPushNext);
    b.emit(Semantics::DmaStore, {static_cast<int64_t>(outAddr), outRow, OH * OW, OC, OC}, isa::kPopPrev);
    const auto result = k.run();

    const auto got = int8Of(Kernel::outputBytes(result, "y"));
    ASSERT_EQ(got.size(), static_cast<size_t>(OH * OW * OC));
    int differentOutputs = 0;
    for (int64_t oh = 0; oh < OH; ++oh)
      for (int64_t ow = 0; ow < OW; ++ow)
        for (int64_t n = 0; n < OC; ++n) {
          int64_t acc = 0;
          for (int64_t kh = 0; kh < 3; ++kh)
            for (int64_t kw = 0; kw < 3; ++kw)
              for (int64_t c = 0; c < C; ++c)
                acc += int64_t{input[static_cast<size_t>(((oh * stride + kh) * Wp + ow * stride + kw) * C + c)]} *
                       int64_t{weights[static_cast<size_t>(((kh * 3 + kw) * C + c) * OC + n)]};
          const int8_t want = refRequantize(wrap32(acc), mult[static_cast<size_t>(n)], shift[static_cast<size_t>(n)],
                                            zeroPoint, -128, 127);
          const auto at = static_cast<size_t>((oh * OW + ow) * OC + n);
          ASSERT_EQ(int{got[at]}, int{want}) << "y[" << oh << "][" << ow << "][" << n << "]";
          differentOutputs += want != zeroPoint;
        }
    EXPECT_GT(differentOutputs, OH * OW * OC / 2) << "the scales should keep most outputs informative";
    EXPECT_EQ(result.stats.macs, static_cast<uint64_t>(9 * OH * OW * R * p.array_cols));
    EXPECT_EQ(result.stats.dram_bytes_read,
              static_cast<uint64_t>(2 * OW * p.spad_row_elems + 2 * p.acc_row_bytes + 9 * R * OC + 9 * OH * OW * C));
  }
}

// ---------------------------------------------------------------------------------------------
// requantize with per-lane multipliers and shifts (several scale-row pairs, so even the 4-lane
// config sees every kind of lane), under four activations: ReLU (clamp_min = zero_point), none,
// a ReLU6-like upper clamp, and clamp_min > clamp_max (the result is clamp_max).
TEST_P(KernelsOnConfig, RequantizePerLaneScalesReluAndSaturation) {
  const auto& isa = shippedConfig(GetParam());
  const auto& p = isa.params();
  const int64_t L = p.acc_row_elems, E = p.spad_row_elems, N = 8, K = 4;
  // (multiplier, shift word): rounding ties, S = 0, the largest shifts, a shift word whose high
  // bits must be ignored, negative and extreme multipliers.
  const std::pair<int32_t, int32_t> kScales[] = {{1, 0},          {1, 1},           {3, 2},        {1 << 30, 31},
                                                 {INT32_MAX, 31}, {1518500250, 36}, {12345, 20},   {-(1 << 29), 30},
                                                 {1, 63},         {INT32_MAX, 63},  {1, 64 + 1},   {5, 128 + 3},
                                                 {INT32_MIN, 40}, {7, 5},           {1 << 20, 20}, {100, 10}};
  struct Activation {
    int32_t zp, lo, hi;
  };
  const Activation kActs[] = {{-20, -20, 127}, {5, -128, 127}, {-10, -10, 50}, {0, 10, -10}};
  const int64_t V = 4;

  std::mt19937 rng(7);
  const int32_t kSpecial[] = {INT32_MAX, INT32_MIN,  0,         1,          -1, 3,  -3, 5,       -5,
                              1 << 20,   -(1 << 20), 123456789, -987654321, 2,  -2, 7,  1 << 30, -(1 << 30)};
  std::vector<int32_t> X(static_cast<size_t>(N * L));
  for (int64_t i = 0; i < N; ++i)
    for (int64_t j = 0; j < L; ++j) {
      int32_t v;
      if (i == 0)
        v = kSpecial[static_cast<size_t>(j) % std::size(kSpecial)];
      else if (i == 1)
        v = kSpecial[static_cast<size_t>(j + 5) % std::size(kSpecial)];
      else if (i == 2)
        v = static_cast<int32_t>(2 * j - 7);  // small odd values: rounding ties
      else if (i == 3)
        v = static_cast<int32_t>(2 * j - 6);  // small even values
      else
        v = static_cast<int32_t>(rng()) >> (rng() % 31);  // every magnitude
      X[static_cast<size_t>(i * L + j)] = v;
    }
  std::vector<std::vector<int32_t>> mult(K), shift(K);
  for (int64_t s = 0; s < K; ++s)
    for (int64_t j = 0; j < L; ++j) {
      const auto& [m, sh] = kScales[static_cast<size_t>(s * 5 + j) % std::size(kScales)];
      mult[static_cast<size_t>(s)].push_back(m);
      shift[static_cast<size_t>(s)].push_back(sh);
    }

  Kernel k(isa);
  const uint64_t xAddr = k.data(X);
  std::vector<uint64_t> sAddr;
  for (int64_t s = 0; s < K; ++s)
    sAddr.push_back(k.data(scaleRows(mult[static_cast<size_t>(s)], shift[static_cast<size_t>(s)])));
  const uint64_t outAddr = k.output("y", static_cast<size_t>(K * V * N * E));
  // Accumulator: [X][scale pair 0][scale pair 1]...; scratchpad: one block of N rows per (pair, activation).
  k.load(Semantics::DmaLoadAcc, {static_cast<int64_t>(xAddr), 0, N, p.acc_row_bytes, p.acc_row_bytes});
  for (int64_t s = 0; s < K; ++s)
    k.load(Semantics::DmaLoadAcc,
           {static_cast<int64_t>(sAddr[static_cast<size_t>(s)]), N + 2 * s, 2, p.acc_row_bytes, p.acc_row_bytes});
  for (int64_t s = 0; s < K; ++s)
    for (int64_t v = 0; v < V; ++v) {
      const Activation& a = kActs[static_cast<size_t>(v)];
      k.compute(Semantics::Requantize, {0, (s * V + v) * N, N, N + 2 * s, a.zp, a.lo, a.hi});
    }
  k.store(Semantics::DmaStore, {static_cast<int64_t>(outAddr), 0, K * V * N, E, E});
  const auto result = k.run();

  const auto got = int8Of(Kernel::outputBytes(result, "y"));
  ASSERT_EQ(got.size(), static_cast<size_t>(K * V * N * E));
  int saturatedLow = 0, saturatedHigh = 0, reluClamped = 0;
  for (int64_t s = 0; s < K; ++s)
    for (int64_t v = 0; v < V; ++v)
      for (int64_t i = 0; i < N; ++i)
        for (int64_t j = 0; j < E; ++j) {
          const Activation& a = kActs[static_cast<size_t>(v)];
          const int8_t want =
              j < L ? refRequantize(X[static_cast<size_t>(i * L + j)],
                                    mult[static_cast<size_t>(s)][static_cast<size_t>(j)],
                                    shift[static_cast<size_t>(s)][static_cast<size_t>(j)], a.zp, a.lo, a.hi)
                    : int8_t{0};  // elements j >= L are zeroed
          const int8_t have = got[static_cast<size_t>(((s * V + v) * N + i) * E + j)];
          ASSERT_EQ(int{have}, int{want}) << "scale pair " << s << ", activation " << v << ", row " << i << ", lane "
                                          << j << ": x=" << X[static_cast<size_t>(i * L + j)];
          if (v == 1) {
            saturatedLow += want == -128;
            saturatedHigh += want == 127;
          }
          if (v == 0 && j < L) reluClamped += want == a.zp;
        }
  EXPECT_GT(saturatedLow, 0) << "some values should saturate at -128";
  EXPECT_GT(saturatedHigh, 0) << "some values should saturate at 127";
  EXPECT_GT(reluClamped, 0) << "ReLU should clamp some values to the zero point";
  // Ties round toward +infinity: with M = 1, S = 1, x = 3 gives 2 and x = -3 gives -1.
  EXPECT_EQ(refRequantize(3, 1, 1, 0, -128, 127), 2);
  EXPECT_EQ(refRequantize(-3, 1, 1, 0, -128, 127), -1);
}

// ---------------------------------------------------------------------------------------------
// Pooling over an HWC int8 tensor whose pixels are C = scratchpad.row_bytes channels wide. For each
// window offset (dy, dx) and output row, a strided dma_load (dram_stride = stride*C) gathers the
// window's pixel for every output column into its own block of rows.

struct PoolShape {
  int64_t H, W, C, k, s, OH, OW;
  int64_t windows() const { return k * k; }
  int64_t outputs() const { return OH * OW; }
};

PoolShape poolShape(const isa::Params& p, int64_t k, int64_t s) {
  const int64_t H = 7, W = 9;
  return {H, W, p.spad_row_elems, k, s, (H - k) / s + 1, (W - k) / s + 1};
}

/// Loads window offset t of every output pixel into scratchpad rows [t*outputs, (t+1)*outputs).
void loadPoolWindows(Kernel& kern, const PoolShape& ps, uint64_t inAddr) {
  for (int64_t t = 0; t < ps.windows(); ++t) {
    const int64_t dy = t / ps.k, dx = t % ps.k;
    for (int64_t oh = 0; oh < ps.OH; ++oh)
      kern.load(Semantics::DmaLoad, {static_cast<int64_t>(inAddr) + ((oh * ps.s + dy) * ps.W + dx) * ps.C,
                                     t * ps.outputs() + oh * ps.OW, ps.OW, ps.C, ps.s * ps.C});
  }
}

TEST_P(KernelsOnConfig, MaxPoolingWithVectorMax) {
  const auto& isa = shippedConfig(GetParam());
  for (auto [kk, ss] : {std::pair<int64_t, int64_t>{2, 2}, {3, 2}}) {
    SCOPED_TRACE("pool " + std::to_string(kk) + "x" + std::to_string(kk) + " stride " + std::to_string(ss));
    const PoolShape ps = poolShape(isa.params(), kk, ss);
    auto input = randomBytes(static_cast<size_t>(ps.H * ps.W * ps.C), 300 + static_cast<uint32_t>(kk));
    input[0] = -128;
    input[1] = 127;
    Kernel k(isa);
    const uint64_t inAddr = k.data(input);
    const uint64_t outAddr = k.output("y", static_cast<size_t>(ps.outputs() * ps.C));
    loadPoolWindows(k, ps, inAddr);
    const int64_t out = ps.windows() * ps.outputs(), n = ps.outputs();
    k.compute(Semantics::VectorMax, {out, 0, n, n});
    for (int64_t t = 2; t < ps.windows(); ++t) k.compute(Semantics::VectorMax, {out, out, t * n, n});
    k.store(Semantics::DmaStore, {static_cast<int64_t>(outAddr), out, n, ps.C, ps.C});
    const auto result = k.run();

    const auto got = int8Of(Kernel::outputBytes(result, "y"));
    ASSERT_EQ(got.size(), static_cast<size_t>(n * ps.C));
    for (int64_t oh = 0; oh < ps.OH; ++oh)
      for (int64_t ow = 0; ow < ps.OW; ++ow)
        for (int64_t c = 0; c < ps.C; ++c) {
          int want = -129;
          for (int64_t dy = 0; dy < kk; ++dy)
            for (int64_t dx = 0; dx < kk; ++dx)
              want = std::max(want, int{input[static_cast<size_t>(((oh * ss + dy) * ps.W + ow * ss + dx) * ps.C + c)]});
          ASSERT_EQ(int{got[static_cast<size_t>((oh * ps.OW + ow) * ps.C + c)]}, want) << oh << "," << ow << "," << c;
        }
  }
}

// Average pooling: vector_widen subtracts the input zero point from each window pixel, vector_add
// sums the windows in the accumulator, and requantize multiplies by M / 2^S ~ 1/N and adds the
// zero point back.
TEST_P(KernelsOnConfig, AveragePoolingWithWidenAddRequantize) {
  const auto& isa = shippedConfig(GetParam());
  const auto& p = isa.params();
  const int64_t L = p.acc_row_elems;
  for (auto [kk, ss] : {std::pair<int64_t, int64_t>{2, 2}, {3, 2}}) {
    SCOPED_TRACE("pool " + std::to_string(kk) + "x" + std::to_string(kk) + " stride " + std::to_string(ss));
    const PoolShape ps = poolShape(p, kk, ss);
    const int64_t N = ps.windows(), n = ps.outputs();
    const int32_t zp = -9, S = 24;
    const auto M = static_cast<int32_t>(std::llround(std::ldexp(1.0, S) / static_cast<double>(N)));
    auto input = randomBytes(static_cast<size_t>(ps.H * ps.W * ps.C), 400 + static_cast<uint32_t>(kk));
    Kernel k(isa);
    const uint64_t inAddr = k.data(input);
    const uint64_t sAddr = k.data(
        scaleRows(std::vector<int32_t>(static_cast<size_t>(L), M), std::vector<int32_t>(static_cast<size_t>(L), S)));
    const uint64_t outAddr = k.output("y", static_cast<size_t>(n * ps.C));
    // Accumulator: [sum][term][scales]; scratchpad: [window blocks][output].
    const int64_t sum = 0, term = n, scale = 2 * n, out = N * n;
    loadPoolWindows(k, ps, inAddr);
    k.load(Semantics::DmaLoadAcc, {static_cast<int64_t>(sAddr), scale, 2, p.acc_row_bytes, p.acc_row_bytes});
    k.compute(Semantics::VectorWiden, {0, sum, n, zp, 1});
    for (int64_t t = 1; t < N; ++t) {
      k.compute(Semantics::VectorWiden, {t * n, term, n, zp, 1});
      k.compute(Semantics::VectorAdd, {sum, sum, term, n});
    }
    k.compute(Semantics::Requantize, {sum, out, n, scale, zp, -128, 127});
    k.store(Semantics::DmaStore, {static_cast<int64_t>(outAddr), out, n, ps.C, ps.C});
    const auto result = k.run();

    const auto got = int8Of(Kernel::outputBytes(result, "y"));
    ASSERT_EQ(got.size(), static_cast<size_t>(n * ps.C));
    for (int64_t oh = 0; oh < ps.OH; ++oh)
      for (int64_t ow = 0; ow < ps.OW; ++ow)
        for (int64_t c = 0; c < ps.C; ++c) {
          int64_t total = 0;
          for (int64_t dy = 0; dy < kk; ++dy)
            for (int64_t dx = 0; dx < kk; ++dx)
              total += input[static_cast<size_t>(((oh * ss + dy) * ps.W + ow * ss + dx) * ps.C + c)] - zp;
          const int8_t want = c < L ? refRequantize(static_cast<int32_t>(total), M, S, zp, -128, 127) : int8_t{0};
          const int8_t have = got[static_cast<size_t>((oh * ps.OW + ow) * ps.C + c)];
          ASSERT_EQ(int{have}, int{want}) << oh << "," << ow << "," << c;
          // And it is the real average, to within one step of rounding.
          EXPECT_NEAR(static_cast<double>(have), static_cast<double>(total) / static_cast<double>(N) + zp, 1.0);
        }
  }
}

// ---------------------------------------------------------------------------------------------
// Residual add: y = requant((a - zp_a) * m_a + (b - zp_b) * m_b) with the two inputs' own zero
// points and multipliers, per-lane output scales and an output zero point.
TEST_P(KernelsOnConfig, ResidualAddOfDifferentlyQuantizedTensors) {
  const auto& isa = shippedConfig(GetParam());
  const auto& p = isa.params();
  const int64_t L = p.acc_row_elems, N = 10;
  const int32_t zpA = -7, mA = 567, zpB = 12, mB = -1234, zpOut = 3;
  auto A = randomBytes(static_cast<size_t>(N * L), 500), B = randomBytes(static_cast<size_t>(N * L), 501);
  A[0] = 127;  // the largest magnitudes of the two terms
  B[0] = -128;
  std::vector<int32_t> mult, shift;
  for (int64_t j = 0; j < L; ++j) {
    mult.push_back((1 << 20) + static_cast<int32_t>(j) * 4099);
    shift.push_back(29 + static_cast<int32_t>(j % 3));
  }
  Kernel k(isa);
  const uint64_t aAddr = k.data(A), bAddr = k.data(B), sAddr = k.data(scaleRows(mult, shift));
  const uint64_t outAddr = k.output("y", static_cast<size_t>(N * L));
  // Scratchpad: [a][b][y]; accumulator: [a terms][b terms][scales].
  k.load(Semantics::DmaLoad, {static_cast<int64_t>(aAddr), 0, N, L, L});
  k.load(Semantics::DmaLoad, {static_cast<int64_t>(bAddr), N, N, L, L});
  k.load(Semantics::DmaLoadAcc, {static_cast<int64_t>(sAddr), 2 * N, 2, p.acc_row_bytes, p.acc_row_bytes});
  k.compute(Semantics::VectorWiden, {0, 0, N, zpA, mA});
  k.compute(Semantics::VectorWiden, {N, N, N, zpB, mB});
  k.compute(Semantics::VectorAdd, {0, 0, N, N});
  k.compute(Semantics::Requantize, {0, 2 * N, N, 2 * N, zpOut, -128, 127});
  k.store(Semantics::DmaStore, {static_cast<int64_t>(outAddr), 2 * N, N, L, L});
  const auto result = k.run();

  const auto got = int8Of(Kernel::outputBytes(result, "y"));
  ASSERT_EQ(got.size(), static_cast<size_t>(N * L));
  int saturated = 0;
  for (int64_t i = 0; i < N; ++i)
    for (int64_t j = 0; j < L; ++j) {
      const auto at = static_cast<size_t>(i * L + j);
      const int64_t sum = (int64_t{A[at]} - zpA) * mA + (int64_t{B[at]} - zpB) * mB;
      const int8_t want = refRequantize(static_cast<int32_t>(sum), mult[static_cast<size_t>(j)],
                                        shift[static_cast<size_t>(j)], zpOut, -128, 127);
      ASSERT_EQ(int{got[at]}, int{want}) << "y[" << i << "][" << j << "], a=" << int{A[at]} << ", b=" << int{B[at]};
      saturated += want == -128 || want == 127;
    }
  EXPECT_GT(saturated, 0);
  EXPECT_LT(saturated, N * L);
}

// ---------------------------------------------------------------------------------------------
// vector_lut: a table that is a permutation of int8 (not symmetric about 0, so indexing by
// x + 128 is distinguishable from indexing by the byte x), stored from an unaligned row; the
// input rows hold all 256 values. Applied out of place, then twice in place.
TEST_P(KernelsOnConfig, VectorLutOverAllInt8Values) {
  const auto& isa = shippedConfig(GetParam());
  const auto& p = isa.params();
  const int64_t E = p.spad_row_elems, T = p.lut_rows, N = (256 + E - 1) / E;
  ASSERT_EQ(T, (256 + E - 1) / E);
  std::vector<int8_t> table(static_cast<size_t>(T * E), 0), x(static_cast<size_t>(N * E));
  for (int i = 0; i < 256; ++i) table[static_cast<size_t>(i)] = static_cast<int8_t>((i * 167 + 13) & 0xFF);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<int8_t>((i * 97 + 5) & 0xFF);
  Kernel k(isa);
  const uint64_t tAddr = k.data(table), xAddr = k.data(x);
  const uint64_t yAddr = k.output("y", x.size()), zAddr = k.output("z", x.size());
  const int64_t tableRow = 1, xRow = tableRow + T, yRow = xRow + N;
  k.load(Semantics::DmaLoad, {static_cast<int64_t>(tAddr), tableRow, T, E, E});
  k.load(Semantics::DmaLoad, {static_cast<int64_t>(xAddr), xRow, N, E, E});
  k.compute(Semantics::VectorLut, {yRow, xRow, N, tableRow});
  k.compute(Semantics::VectorLut, {xRow, xRow, N, tableRow});
  k.compute(Semantics::VectorLut, {xRow, xRow, N, tableRow});
  k.store(Semantics::DmaStore, {static_cast<int64_t>(yAddr), yRow, N, E, E});
  k.store(Semantics::DmaStore, {static_cast<int64_t>(zAddr), xRow, N, E, E});
  const auto result = k.run();

  const auto y = int8Of(Kernel::outputBytes(result, "y")), z = int8Of(Kernel::outputBytes(result, "z"));
  ASSERT_EQ(y.size(), x.size());
  ASSERT_EQ(z.size(), x.size());
  auto lookup = [&](int8_t v) { return table[static_cast<size_t>(int{v} + 128)]; };
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(int{y[i]}, int{lookup(x[i])}) << "element " << i << ", x=" << int{x[i]};
    ASSERT_EQ(int{z[i]}, int{lookup(lookup(x[i]))}) << "element " << i << ", x=" << int{x[i]};
  }
}

// dma_load_int4 (configs that offer int4 weights): nibbles of both signs, rows of an odd byte count
// at a stride, sign-extended long-hand; the row's tail is 0, and the DMA reads only the packed
// bytes from DRAM.
TEST_P(KernelsOnConfig, DmaLoadInt4SignExtendsPackedNibbles) {
  const auto& isa = shippedConfig(GetParam());
  const auto& p = isa.params();
  if (!p.offersWeightBits(4)) GTEST_SKIP() << "no int4 weights on " << GetParam();
  const int64_t E = p.spad_row_elems, rows = 5, n = E - 1, packedRow = (n + 1) / 2, stride = packedRow + 3;
  std::vector<uint8_t> packed(static_cast<size_t>(rows * stride));
  for (size_t i = 0; i < packed.size(); ++i) packed[i] = static_cast<uint8_t>((i * 37 + 11) & 0xFF);
  Kernel k(isa);
  const uint64_t src = k.data(packed), dst = k.output("w", static_cast<size_t>(rows * E));
  k.load(Semantics::DmaLoadInt4, {static_cast<int64_t>(src), 3, rows, n, stride});
  k.compute(Semantics::Nop, {});
  k.store(Semantics::DmaStore, {static_cast<int64_t>(dst), 3, rows, E, E});
  const auto result = k.run();
  const auto w = int8Of(Kernel::outputBytes(result, "w"));
  ASSERT_EQ(static_cast<int64_t>(w.size()), rows * E);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < E; ++j) {
      int want = 0;
      if (j < n) {
        const int byte = packed[static_cast<size_t>(r * stride + j / 2)];
        const int nibble = j % 2 == 0 ? byte & 15 : byte >> 4;
        want = nibble < 8 ? nibble : nibble - 16;
      }
      ASSERT_EQ(int{w[static_cast<size_t>(r * E + j)]}, want) << "row " << r << " element " << j;
    }
  EXPECT_EQ(result.stats.dram_bytes_read, static_cast<uint64_t>(rows * packedRow));
}

// vector_reduce (sum with wrap-around, max including all-negative rows), vector_mul and vector_add
// (both wrapping), accumulator rows in and out through dma_load_acc / dma_store_acc.
TEST_P(KernelsOnConfig, VectorReduceMulAndAddWrap) {
  const auto& isa = shippedConfig(GetParam());
  const auto& p = isa.params();
  const int64_t L = p.acc_row_elems, N = 6, bytes = p.acc_row_bytes;
  std::mt19937 rng(600);
  std::vector<int32_t> A(static_cast<size_t>(N * L)), B(static_cast<size_t>(N * L));
  for (int64_t i = 0; i < N; ++i)
    for (int64_t j = 0; j < L; ++j) {
      int32_t v;
      switch (i) {
        case 1: v = -1000 - static_cast<int32_t>(rng() % 100000); break;  // all negative: the max is negative
        case 2: v = INT32_MAX - static_cast<int32_t>(j); break;           // the sum wraps
        case 3: v = j % 2 ? INT32_MIN : -1; break;
        case 4: v = static_cast<int32_t>(j) - 3; break;
        default: v = static_cast<int32_t>(rng());
      }
      A[static_cast<size_t>(i * L + j)] = v;
      B[static_cast<size_t>(i * L + j)] = i == 4 ? static_cast<int32_t>(j) * 7 - 11 : static_cast<int32_t>(rng());
    }
  Kernel k(isa);
  const uint64_t aAddr = k.data(A), bAddr = k.data(B);
  const uint64_t outAddr = k.output("out", static_cast<size_t>(4 * N * bytes));
  // Accumulator: [A][B][sum][max][mul][add].
  k.load(Semantics::DmaLoadAcc, {static_cast<int64_t>(aAddr), 0, N, bytes, bytes});
  k.load(Semantics::DmaLoadAcc, {static_cast<int64_t>(bAddr), N, N, bytes, bytes});
  k.compute(Semantics::VectorReduce, {2 * N, 0, N, 0});
  k.compute(Semantics::VectorReduce, {3 * N, 0, N, 1});
  k.compute(Semantics::VectorMul, {4 * N, 0, N, N});
  k.compute(Semantics::VectorAdd, {5 * N, 0, N, N});
  k.store(Semantics::DmaStoreAcc, {static_cast<int64_t>(outAddr), 2 * N, 4 * N, bytes, bytes});
  const auto result = k.run();

  const auto got = int32Of(Kernel::outputBytes(result, "out"));
  ASSERT_EQ(got.size(), static_cast<size_t>(4 * N * L));
  auto at = [&](int64_t block, int64_t i, int64_t j) { return got[static_cast<size_t>((block * N + i) * L + j)]; };
  for (int64_t i = 0; i < N; ++i) {
    int64_t sum = 0;
    int64_t mx = INT64_MIN;
    for (int64_t j = 0; j < L; ++j) {
      sum += A[static_cast<size_t>(i * L + j)];
      mx = std::max<int64_t>(mx, A[static_cast<size_t>(i * L + j)]);
    }
    for (int64_t j = 0; j < L; ++j) {
      const int64_t a = A[static_cast<size_t>(i * L + j)], b = B[static_cast<size_t>(i * L + j)];
      ASSERT_EQ(at(0, i, j), wrap32(sum)) << "sum of row " << i << ", broadcast to lane " << j;
      ASSERT_EQ(at(1, i, j), mx) << "max of row " << i << ", broadcast to lane " << j;
      ASSERT_EQ(at(2, i, j), wrap32(a * b)) << "mul " << i << "," << j;
      ASSERT_EQ(at(3, i, j), wrap32(a + b)) << "add " << i << "," << j;
    }
  }
  EXPECT_LT(at(1, 1, 0), 0) << "the max of an all-negative row is negative";
  int64_t row2 = 0;
  for (int64_t j = 0; j < L; ++j) row2 += A[static_cast<size_t>(2 * L + j)];
  EXPECT_GT(row2, int64_t{INT32_MAX}) << "row 2's sum must overflow int32 (and wrap)";
}

// vector_recip: the reciprocal and the reciprocal square root of accumulator rows, with the
// saturating cases (zero, negative, a quotient beyond int32) among them.
TEST_P(KernelsOnConfig, VectorRecip) {
  const auto& isa = shippedConfig(GetParam());
  const auto& p = isa.params();
  const int64_t L = p.acc_row_elems, N = 3, bytes = p.acc_row_bytes;
  std::mt19937 rng(601);
  std::vector<int32_t> A(static_cast<size_t>(N * L));
  for (size_t i = 0; i < A.size(); ++i) A[i] = static_cast<int32_t>(rng() % 100000) + 1;
  A[0] = 0, A[1] = -7, A[2] = 1;
  Kernel k(isa);
  const uint64_t aAddr = k.data(A);
  const uint64_t outAddr = k.output("out", static_cast<size_t>(2 * N * bytes));
  k.load(Semantics::DmaLoadAcc, {static_cast<int64_t>(aAddr), 0, N, bytes, bytes});
  k.compute(Semantics::VectorRecip, {N, 0, N, 30, 0});
  k.compute(Semantics::VectorRecip, {2 * N, 0, N, 31, 1});
  k.store(Semantics::DmaStoreAcc, {static_cast<int64_t>(outAddr), N, 2 * N, bytes, bytes});
  const auto got = int32Of(Kernel::outputBytes(k.run(), "out"));
  ASSERT_EQ(got.size(), static_cast<size_t>(2 * N * L));
  for (size_t i = 0; i < A.size(); ++i) {
    ASSERT_EQ(got[i], isa::arith::reciprocal(A[i], 30)) << "element " << i << ", x=" << A[i];
    ASSERT_EQ(got[A.size() + i], isa::arith::reciprocalSqrt(A[i], 31)) << "element " << i << ", x=" << A[i];
  }
  EXPECT_EQ(got[0], INT32_MAX);
  EXPECT_EQ(got[2], 1 << 30) << "2^30 / 1 fits";
  EXPECT_EQ(got[A.size() + 2], INT32_MAX) << "2^31 / sqrt(1) saturates";
}

// vector_mac: strided scratchpad rows times one weight row, lane by lane, accumulated onto
// accumulator rows near the int32 limit (the sum wraps) or overwriting them; the operand extremes
// give the largest products.
TEST_P(KernelsOnConfig, VectorMacStridedRowsTimesAWeightRow) {
  const auto& isa = shippedConfig(GetParam());
  if (isa.bySemantics(Semantics::VectorMac) < 0) GTEST_SKIP() << "the config has no vector_mac";
  const auto& p = isa.params();
  ASSERT_EQ(p.act_bits, 8) << "the test writes int8 scratchpad lanes";
  const int64_t L = p.acc_row_elems, N = 3, bytes = p.acc_row_bytes;
  auto x = randomBytes(static_cast<size_t>(2 * N * L), 701);
  auto w = randomBytes(static_cast<size_t>(L), 702);
  x[0] = -128, w[0] = -128, x[1] = 127, w[1] = -128, x[2] = -128, w[2] = 127;
  std::vector<int32_t> acc(static_cast<size_t>(N * L), INT32_MAX - 5);
  acc[1] = INT32_MIN;
  Kernel k(isa);
  const uint64_t xAddr = k.data(x), wAddr = k.data(w), accAddr = k.data(acc);
  const uint64_t outAddr = k.output("out", static_cast<size_t>(2 * N * bytes));
  k.load(Semantics::DmaLoad, {static_cast<int64_t>(xAddr), 0, 2 * N, L, L});
  k.load(Semantics::DmaLoad, {static_cast<int64_t>(wAddr), 2 * N, 1, L, L});
  k.load(Semantics::DmaLoadAcc, {static_cast<int64_t>(accAddr), 0, N, bytes, bytes});
  k.compute(Semantics::VectorMac, {0, 0, 2 * N, N, 2, 1});  // even rows, accumulated
  k.compute(Semantics::VectorMac, {N, 1, 2 * N, N, 2, 0});  // odd rows, overwritten
  k.store(Semantics::DmaStoreAcc, {static_cast<int64_t>(outAddr), 0, 2 * N, bytes, bytes});
  const auto got = int32Of(Kernel::outputBytes(k.run(), "out"));
  ASSERT_EQ(got.size(), static_cast<size_t>(2 * N * L));
  for (int64_t i = 0; i < N; ++i)
    for (int64_t j = 0; j < L; ++j) {
      const auto at = [&](int64_t row) { return static_cast<size_t>(row * L + j); };
      ASSERT_EQ(got[at(i)], isa::arith::mac(acc[at(i)], x[at(2 * i)], w[static_cast<size_t>(j)])) << i << "," << j;
      ASSERT_EQ(got[at(N + i)], int32_t{x[at(2 * i + 1)]} * w[static_cast<size_t>(j)]) << i << "," << j;
    }
  EXPECT_EQ(got[0], isa::arith::wrap32(int64_t{INT32_MAX} - 5 + 16384)) << "the accumulated sum wraps";
  EXPECT_LT(got[0], 0);
}

INSTANTIATE_TEST_SUITE_P(ShippedConfigs, KernelsOnConfig, ::testing::ValuesIn(shippedConfigs()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace systole::testing
