// Verilator check of rtl/systolic_array.sv against matmul_tile / weight_preload (weight_preload_t
// on a config that has it: row n of the tile is column n of W; and, on a config
// that has one, matmul_stream and depthwise_tile): the model is the ISA's arithmetic, arith::mac per
// product in k (or tap) order
// of the activation lane (int8 or int16, types.activation) and the weight register's value
// (arith::weightRegister: any lane, kept to the array's types.weight width)
// from the initial accumulator (the sum wraps modulo 2^32, so the order is irrelevant, as
// isa-semantics.md says), with W zero before the first preload and untouched by streams and
// depthwise tiles. depthwise_tile's model is sim::depthwiseRows' loop (docs/isa-semantics.md),
// written out here with arith::mac and the weight register's value. Every
// operation's occupancy must equal the instruction's YAML timing expression evaluated on the
// config file named by --config.
#include <algorithm>
#include <array>
#include <climits>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "Vtb_systolic_array.h"
#include "rtl_check.h"
#include "systole/isa/arith.h"

namespace {

using namespace systole;
using namespace systole::rtlcheck;
using Tb = Vtb_systolic_array;

using Row = std::vector<int16_t>;  // scratchpad lanes (int8 or int16 values)
using Row32 = std::vector<int32_t>;
using Operands = std::vector<std::pair<const char*, int64_t>>;

struct OpResult {
  bool ok = true;           // protocol-level problems are reported through the Report
  int64_t cycles = 0;       // accept cycle .. the cycle before idle_o is high again
  std::vector<Row32> rows;  // output rows in the order they left
  std::vector<int> index;   // their out_row_o
  std::vector<bool> last;
  int64_t lastOutputCycle = -1;  // relative to the accept cycle
};

enum class Pattern { Uniform, Edges, AllMin, AllMax, Sparse };

/// A lane of `bits` bits (types.activation) drawn by pattern p.
int16_t pickLane(std::mt19937_64& rng, Pattern p, int bits) {
  const int32_t lo = isa::arith::activationMin(bits), hi = isa::arith::activationMax(bits);
  const std::array<int32_t, 7> edges = {lo, hi, lo + 1, 0, 1, -1, (hi + 1) / 2};
  switch (p) {
    case Pattern::Uniform: return static_cast<int16_t>(uniform(rng, lo, hi));
    case Pattern::Edges: return static_cast<int16_t>(edges[rng() % edges.size()]);
    case Pattern::AllMin: return static_cast<int16_t>(lo);
    case Pattern::AllMax: return static_cast<int16_t>(hi);
    case Pattern::Sparse: return (rng() % 4 == 0) ? static_cast<int16_t>(uniform(rng, lo, hi)) : int16_t{0};
  }
  return 0;
}

Pattern pickPattern(std::mt19937_64& rng) {
  const uint64_t r = rng() % 10;
  if (r < 4) return Pattern::Uniform;
  if (r < 7) return Pattern::Edges;
  if (r == 7) return Pattern::AllMin;
  if (r == 8) return Pattern::AllMax;
  return Pattern::Sparse;
}

int32_t pickAcc(std::mt19937_64& rng) {
  // Values next to the int32 limits make the 32-bit accumulation wrap.
  static constexpr std::array<int32_t, 8> kEdges = {INT32_MIN, INT32_MAX, INT32_MAX - 100000, INT32_MIN + 100000, 0,
                                                    -1,        1,         INT32_MAX - 16383};
  if (rng() & 1) return kEdges[rng() % kEdges.size()];
  return static_cast<int32_t>(static_cast<uint32_t>(rng()));
}

class ArrayCheck : Bench<Tb> {
 public:
  ArrayCheck(const isa::IsaConfig& isa, Clocked<Tb>& sim, Report& report, std::mt19937_64& rng)
      : Bench(isa, sim, report, rng),
        preload_(isa, isa::Semantics::WeightPreload),
        preloadT_(isa, isa::Semantics::WeightPreloadT),
        matmul_(isa, isa::Semantics::MatmulTile),
        stream_(isa, isa::Semantics::MatmulStream),
        depthwise_(isa, isa::Semantics::DepthwiseTile),
        R_(static_cast<int>(p_.array_rows)),
        N_(static_cast<int>(p_.array_cols)),
        E_(static_cast<int>(p_.spad_row_elems)),
        W_(static_cast<size_t>(R_), Row(static_cast<size_t>(N_), 0)) {}

  bool packageMatches() {
    sim_.settle();
    bool ok = samePackage(r_, "ARRAY_ROWS", t_.pkg_array_rows_o, p_.array_rows);
    ok &= samePackage(r_, "ARRAY_COLS", t_.pkg_array_cols_o, p_.array_cols);
    ok &= samePackage(r_, "DATAFLOW_OUTPUT_STATIONARY", t_.pkg_output_stationary_o,
                      p_.dataflow == isa::Dataflow::OutputStationary);
    ok &= samePackage(r_, "SCRATCHPAD_ROW_BYTES", t_.pkg_row_bytes_o, p_.spad_row_bytes);
    ok &= samePackage(r_, "k_slices width", t_.pkg_k_slices_bits_o, bitsFor(p_.spad_rows / p_.array_rows));
    ok &= samePackage(r_, "ARRAY_WEIGHT_BITS", t_.pkg_weight_bits_o, p_.widestWeightBits());
    ok &= samePackage(r_, "ACCUMULATOR_BITS", t_.pkg_acc_bits_o, p_.acc_bits);
    ok &= samePackage(r_, "ACTIVATION_BITS", t_.pkg_act_bits_o, p_.act_bits);
    ok &= samePackage(r_, "ARRAY_LINE_BUFFER_ROWS", t_.pkg_line_buffer_rows_o, p_.array_line_buffer_rows);
    ok &= samePackage(r_, "kh/kw width", t_.pkg_kh_bits_o, bitsFor(p_.array_rows));
    if (!preload_.present() || !matmul_.present()) {
      r_.fail("the config has no weight_preload or matmul_tile instruction");
      ok = false;
    }
    return ok;
  }

  /// Random fields for the parts of an instruction the array does not see (rows in memories).
  int64_t fieldValue(const Timing& t, const char* field, int64_t cap) {
    const int64_t lim = std::min<int64_t>(t.fieldLimit(field), cap);
    return uniform(rng_, 0, std::max<int64_t>(lim, 0));
  }

  bool transposes() const { return preloadT_.present(); }

  /// weight_preload: ARRAY_ROWS scratchpad rows, row k giving row k of W; `transposed`
  /// (weight_preload_t): ARRAY_COLS rows, row n giving column n of W.
  void preload(const std::vector<Row>& spadRows, bool transposed = false) {
    const Timing& timing = transposed ? preloadT_ : preload_;
    OpResult res = run({.preload = true, .transpose = transposed}, transposed ? N_ : R_,
                       [&](int c) { putRow(t_.in_row_i, spadRows[static_cast<size_t>(c)]); });
    if (!res.ok) return;
    r_.expect(res.rows.empty(), "a weight preload produced output rows");
    const int64_t rows = transposed ? p_.array_cols : p_.array_rows;
    const Operands ops = {{"spad_row", fieldValue(timing, "spad_row", p_.spad_rows - rows)}};
    timing.check(r_, ops, res.cycles);
    for (size_t k = 0; k < static_cast<size_t>(R_); ++k)
      for (size_t n = 0; n < static_cast<size_t>(N_); ++n) W_[k][n] = transposed ? spadRows[n][k] : spadRows[k][n];
    ++preloads_;
  }

  void matmul(const std::vector<Row>& act, const std::vector<Row32>& acc, bool accumulate) {
    const int m = static_cast<int>(act.size());
    OpResult res = run({.m = m, .accumulate = accumulate}, m, [&](int c) {
      putRow(t_.in_row_i, act[static_cast<size_t>(c)]);
      if (accumulate) putAcc(acc[static_cast<size_t>(c)]);
    });
    if (!res.ok) return;
    ++matmuls_;
    const bool complete = checkOutputs(
        res, model({&act, 1}, {&W_, 1}, acc, accumulate),
        "matmul_tile m=" + std::to_string(m) + " accumulate=" + std::to_string(accumulate), [&](int i, int n) {
          std::string a;
          for (int k = 0; k < R_; ++k)
            a += (k ? "," : "") + std::to_string(act[static_cast<size_t>(i)][static_cast<size_t>(k)]);
          return " (a row = [" + a + "], initial = " +
                 std::to_string(accumulate ? acc[static_cast<size_t>(i)][static_cast<size_t>(n)] : 0) + ")";
        });
    if (!complete) return;
    const Operands ops = {{"a_row", fieldValue(matmul_, "a_row", p_.spad_rows - m)},
                          {"acc_row", fieldValue(matmul_, "acc_row", p_.acc_rows - m)},
                          {"m", m},
                          {"accumulate", accumulate ? 1 : 0}};
    matmul_.check(r_, ops, res.cycles);
  }

  /// Checks an operation's output rows against the model's `want`: rows 0..m-1 in order, the last
  /// one flagged and leaving in the operation's last cycle, every value equal (`detail(i, n)` is
  /// appended to a mismatch). False if the row count is wrong.
  bool checkOutputs(const OpResult& res, const std::vector<Row32>& want, const std::string& what,
                    const std::function<std::string(int, int)>& detail) {
    const int m = static_cast<int>(want.size());
    if (!r_.expect(static_cast<int>(res.rows.size()) == m,
                   what + " produced " + std::to_string(res.rows.size()) + " output rows"))
      return false;
    for (int i = 0; i < m; ++i) {
      r_.expect(res.index[static_cast<size_t>(i)] == i && res.last[static_cast<size_t>(i)] == (i == m - 1),
                "output row " + std::to_string(i) + " of " + std::to_string(m) + " came as row " +
                    std::to_string(res.index[static_cast<size_t>(i)]) +
                    (res.last[static_cast<size_t>(i)] ? " (last)" : ""));
      for (int n = 0; n < N_; ++n) {
        const int32_t model = want[static_cast<size_t>(i)][static_cast<size_t>(n)],
                      got = res.rows[static_cast<size_t>(i)][static_cast<size_t>(n)];
        if (got != model)
          r_.fail("DATA MISMATCH " + what + " out[" + std::to_string(i) + "][" + std::to_string(n) + "]: model " +
                  std::to_string(model) + ", RTL " + std::to_string(got) + detail(i, n));
        else
          r_.pass();
      }
    }
    valuesCompared_ += static_cast<int64_t>(m) * N_;
    r_.expect(res.lastOutputCycle == res.cycles - 1,
              "the last output row left in cycle " + std::to_string(res.lastOutputCycle) +
                  " of the operation, not its last cycle " + std::to_string(res.cycles - 1));
    return true;
  }

  /// depthwise_tile is checked where the config has the instruction and the RTL the mode.
  bool depthwiseMode() const { return depthwise_.present() && p_.array_line_buffer_rows > 0; }
  /// The largest value of depthwise_tile's k-th operand: the field's limit and the port's width.
  int64_t depthwiseLimit(int k) const {
    const int64_t port =
        k == 4 || k == 5 ? (int64_t{1} << t_.pkg_kh_bits_o) - 1 : (int64_t{1} << t_.pkg_pitch_bits_o) - 1;
    return std::min(depthwise_.operandLimit(k), port);
  }

  /// depthwise_tile of the window rows x (depthwiseWindowRows(m, kh, kw, pitch, stride) rows of
  /// E_ lanes, channels 0..N-1 used) with the preloaded weights; acc row i is presented with
  /// output i's last window row.
  void depthwise(const std::vector<Row>& x, int m, int kh, int kw, int pitch, int stride, const std::vector<Row32>& acc,
                 bool accumulate) {
    const int last0 = (kh - 1) * pitch + kw - 1;  // output 0's last window row
    const int rows = static_cast<int>(x.size());
    OpResult res =
        run({.depthwise = true, .m = m, .accumulate = accumulate, .kh = kh, .kw = kw, .pitch = pitch, .stride = stride},
            rows, [&](int c) {
              putRow(t_.in_row_i, x[static_cast<size_t>(c)]);
              if (accumulate && c >= last0 && (c - last0) % stride == 0)
                putAcc(acc[static_cast<size_t>((c - last0) / stride)]);
            });
    if (!res.ok) return;
    ++depthwises_;
    std::vector<Row32> want(static_cast<size_t>(m), Row32(static_cast<size_t>(N_)));
    for (int i = 0; i < m; ++i)
      for (int n = 0; n < N_; ++n) {
        int32_t v = accumulate ? acc[static_cast<size_t>(i)][static_cast<size_t>(n)] : 0;
        for (int t = 0; t < kh * kw; ++t) {
          const int j = stride * i + (t / kw) * pitch + t % kw;
          v = isa::arith::mac(
              v, x[static_cast<size_t>(j)][static_cast<size_t>(n)],
              isa::arith::weightRegister(W_[static_cast<size_t>(t)][static_cast<size_t>(n)], p_.widestWeightBits()));
        }
        want[static_cast<size_t>(i)][static_cast<size_t>(n)] = isa::arith::storeAccumulator(v, p_.acc_bits);
      }
    const std::string what = "depthwise_tile m=" + std::to_string(m) + " kh=" + std::to_string(kh) +
                             " kw=" + std::to_string(kw) + " pitch=" + std::to_string(pitch) +
                             " stride=" + std::to_string(stride) + " accumulate=" + std::to_string(accumulate);
    if (!checkOutputs(res, want, what, [](int, int) { return std::string(); })) return;
    const auto& d = depthwise_;
    const Operands ops = {{d.operandName(0), fieldValue(d, d.operandName(0), p_.spad_rows - rows)},
                          {d.operandName(1), fieldValue(d, d.operandName(1), p_.acc_rows - m)},
                          {d.operandName(2), m},
                          {d.operandName(3), accumulate ? 1 : 0},
                          {d.operandName(4), kh},
                          {d.operandName(5), kw},
                          {d.operandName(6), pitch},
                          {d.operandName(7), stride}};
    depthwise_.check(r_, ops, res.cycles);
  }

  /// A random depthwise_tile within the limits of the ISA (docs/isa-semantics.md) and the ports:
  /// kh * kw <= R, (kh-1)*pitch + kw <= line buffer, stride 1..3 (now and then the field's
  /// largest), m up to `mCap` (`largest`: exactly that, within the limits), a window that fills
  /// the line buffer now and then (so the buffer wraps within one output's window).
  void randomDepthwise(int64_t mCap, bool largest = false) {
    const int64_t LB = p_.array_line_buffer_rows;
    const int kh = static_cast<int>(uniform(rng_, 1, std::min<int64_t>(R_, depthwiseLimit(4))));
    const int kw = static_cast<int>(uniform(rng_, 1, std::min<int64_t>({R_ / kh, depthwiseLimit(5), LB})));
    int64_t pitchMax = depthwiseLimit(6);
    if (kh > 1) pitchMax = std::min<int64_t>(pitchMax, (LB - kw) / (kh - 1));
    int64_t pitch;
    switch (rng_() % 5) {
      case 0: pitch = 0; break;                                                     // rows overlap
      case 1: pitch = pitchMax; break;                                              // the whole line buffer
      case 2: pitch = std::min<int64_t>(kw, pitchMax); break;                       // a dense image
      default: pitch = uniform(rng_, 0, std::min<int64_t>(pitchMax, kw + 2 * R_));  // a padded row
    }
    const int64_t strideMax = depthwiseLimit(7);
    const int stride =
        static_cast<int>(rng_() % 8 == 0 ? strideMax : uniform(rng_, 1, std::min<int64_t>(3, strideMax)));
    const int64_t window = (kh - 1) * pitch + kw;
    const int64_t mMax = std::min({mCap, depthwiseLimit(2), p_.acc_rows, (p_.spad_rows - window) / stride + 1});
    const int m = static_cast<int>(largest || rng_() % 4 == 0 ? mMax : uniform(rng_, 1, mMax));
    const int rows = static_cast<int>(stride * (m - 1) + window);
    depthwise(randomRows(rows, E_), m, kh, kw, static_cast<int>(pitch), stride, randomAcc(m), rng_() & 1);
  }

  bool streams() const { return stream_.present(); }
  /// The largest k_slices to try: the field's limit, every weight row in the scratchpad, and `cap`.
  int64_t largestSlices(int64_t cap) const {
    return std::min({stream_.fieldLimit("k_slices"), p_.spad_rows / p_.array_rows, cap});
  }

  /// matmul_stream of act[s] (m rows of R) times w[s] (R rows of N) over the slices s.
  void stream(const std::vector<std::vector<Row>>& act, const std::vector<std::vector<Row>>& w,
              const std::vector<Row32>& acc, bool accumulate) {
    const int k = static_cast<int>(act.size()), m = static_cast<int>(act[0].size());
    OpResult res = run({.stream = true, .m = m, .k = k, .accumulate = accumulate}, k * R_, [&](int c) {
      const auto s = static_cast<size_t>(c / R_), j = static_cast<size_t>(c % R_);
      putRow(t_.in_wrow_i, w[s][j]);
      if (static_cast<int>(j) < m) putRow(t_.in_row_i, act[s][j]);
      if (s == 0 && static_cast<int>(j) < m && accumulate) putAcc(acc[j]);
    });
    if (!res.ok) return;
    ++streams_;
    if (!checkOutputs(res, model(act, w, acc, accumulate),
                      "matmul_stream m=" + std::to_string(m) + " k_slices=" + std::to_string(k) +
                          " accumulate=" + std::to_string(accumulate),
                      [](int, int) { return std::string(); }))
      return;
    const Operands ops = {{"a_row", fieldValue(stream_, "a_row", p_.spad_rows - m)},
                          {"a_stride", fieldValue(stream_, "a_stride", R_)},
                          {"w_row", fieldValue(stream_, "w_row", p_.spad_rows - int64_t{k} * R_)},
                          {"acc_row", fieldValue(stream_, "acc_row", p_.acc_rows - m)},
                          {"m", m},
                          {"k_slices", k},
                          {"accumulate", accumulate ? 1 : 0}};
    stream_.check(r_, ops, res.cycles);
  }

  /// Idle cycles with random garbage on the data inputs.
  void idle(int cycles) {
    for (int c = 0; c < cycles; ++c) {
      t_.cmd_valid_i = 0;
      t_.in_valid_i = 0;
      garbageInputs();
      sim_.settle();
      r_.expect(!t_.out_valid_o, "output row while idle");
      sim_.tick();
    }
  }

  int64_t largestM() const { return std::min<int64_t>(matmul_.fieldLimit("m"), p_.acc_rows); }

  std::vector<Row> randomRows(int count, int width) {
    const Pattern pat = pickPattern(rng_);
    std::vector<Row> rows(static_cast<size_t>(count), Row(static_cast<size_t>(width)));
    for (auto& row : rows)
      for (auto& v : row) v = pickLane(rng_, pat, p_.act_bits);
    return rows;
  }
  std::vector<Row32> randomAcc(int count) {
    std::vector<Row32> rows(static_cast<size_t>(count), Row32(static_cast<size_t>(N_)));
    for (auto& row : rows)
      for (auto& v : row) v = pickAcc(rng_);
    return rows;
  }

  /// Presents one extra input row after an operation's last one (an assertion must fire).
  void injectExtraRow() {
    t_.cmd_valid_i = 1;
    t_.cmd_preload_i = 1;
    t_.cmd_transpose_i = 0;
    t_.cmd_stream_i = 0;
    t_.cmd_depthwise_i = 0;
    t_.in_valid_i = 1;
    for (int c = 0; c <= R_; ++c) {
      sim_.settle();
      sim_.tick();
      t_.cmd_valid_i = 0;
    }
    t_.in_valid_i = 0;
    sim_.settle();
  }

  /// An operation of a burst: a matmul_tile (rows: its activation rows) or a depthwise_tile
  /// (rows: its window), starting from zero, from seed rows presented with its rows (in_acc_i), or
  /// late from the model accumulator's rows at `accRow` (out_acc_i as each output leaves).
  struct BurstOp {
    bool depthwise = false;
    std::vector<Row> rows;
    int m = 0, kh = 0, kw = 0, pitch = 0, stride = 0;
    enum Init { Zero, Seeded, Late } init = Zero;
    std::vector<Row32> seed;
    int accRow = 0;
    const std::vector<Row>* w = nullptr;  // the weights it multiplies by
    int64_t accept = -1, lastOut = -1;
    int outputs = 0;
    int inputs() const { return static_cast<int>(rows.size()); }
  };

  /// A random burst operation writing the model accumulator's rows from `sameRow` half the time.
  BurstOp burstOp(int sameRow, int accRows) {
    BurstOp op;
    op.depthwise = depthwiseMode() && rng_() % 3 == 0;
    op.m = static_cast<int>(uniform(rng_, 1, std::min<int64_t>(op.depthwise ? 6 : 2 * R_, largestM())));
    int rows = op.m;
    if (op.depthwise) {
      op.kh = static_cast<int>(uniform(rng_, 1, std::min(3, R_)));
      op.kw = static_cast<int>(uniform(rng_, 1, std::min(3, R_ / op.kh)));
      op.pitch = static_cast<int>(uniform(rng_, op.kw, op.kw + 4));
      op.stride = static_cast<int>(uniform(rng_, 1, 2));
      rows = op.stride * (op.m - 1) + (op.kh - 1) * op.pitch + op.kw;
    }
    op.rows = randomRows(rows, E_);
    op.init = static_cast<BurstOp::Init>(rng_() % 3);
    op.seed = randomAcc(op.m);
    op.accRow = sameRow >= 0 && sameRow + op.m <= accRows && (rng_() & 1)
                    ? sameRow
                    : static_cast<int>(uniform(rng_, 0, accRows - op.m));
    return op;
  }

  /// Output row i of a burst operation from the initial row `init`: arith::mac in k (tap) order
  /// with the operation's weights, what the accumulator keeps of it.
  Row32 burstRow(const BurstOp& op, int i, const Row32& init) const {
    Row32 out(static_cast<size_t>(N_));
    const auto wreg = [&](int k, int n) {
      return isa::arith::weightRegister((*op.w)[static_cast<size_t>(k)][static_cast<size_t>(n)], p_.widestWeightBits());
    };
    for (int n = 0; n < N_; ++n) {
      int32_t v = init[static_cast<size_t>(n)];
      const int taps = op.depthwise ? op.kh * op.kw : R_;
      for (int t = 0; t < taps; ++t) {
        const int j = op.depthwise ? op.stride * i + (t / op.kw) * op.pitch + t % op.kw : i;
        const int lane = op.depthwise ? n : t;
        v = isa::arith::mac(v, op.rows[static_cast<size_t>(j)][static_cast<size_t>(lane)], wreg(t, n));
      }
      out[static_cast<size_t>(n)] = isa::arith::storeAccumulator(v, p_.acc_bits);
    }
    return out;
  }

  /// Drives the command channel in cycle c: accepts the next operation when cmd_ready_o allows and
  /// `mayAccept`, presents the rows of the one in progress; checks that cmd_ready_o rises exactly
  /// when the rows are in. Returns the index of the operation accepted now, or -1.
  int burstCommand(std::vector<BurstOp>& ops, size_t& next, int& current, int& row, int64_t c, bool mayAccept) {
    int accepted = -1;
    if (current >= 0 && row == ops[static_cast<size_t>(current)].inputs()) current = -1;
    r_.expect(t_.cmd_ready_o == (current < 0), "cmd_ready_o " + std::to_string(t_.cmd_ready_o) + " in cycle " +
                                                   std::to_string(c) + " of a burst, rows of the operation " +
                                                   (current < 0 ? "all in" : "still coming"));
    if (current < 0 && t_.cmd_ready_o && next < ops.size() && mayAccept) {
      current = accepted = static_cast<int>(next++);
      row = 0;
      BurstOp& op = ops[static_cast<size_t>(current)];
      op.accept = c;
      t_.cmd_valid_i = 1;
      t_.cmd_preload_i = 0;
      t_.cmd_stream_i = 0;
      t_.cmd_depthwise_i = op.depthwise;
      rtlcheck::set(t_.cmd_m_i, op.m);
      t_.cmd_accumulate_i = op.init == BurstOp::Seeded;
      t_.cmd_acc_at_out_i = op.init == BurstOp::Late;
      rtlcheck::set(t_.cmd_kh_i, op.kh);
      rtlcheck::set(t_.cmd_kw_i, op.kw);
      rtlcheck::set(t_.cmd_pitch_i, op.pitch);
      rtlcheck::set(t_.cmd_stride_i, op.stride);
    }
    if (current < 0) return accepted;
    const BurstOp& op = ops[static_cast<size_t>(current)];
    t_.in_valid_i = 1;
    putRow(t_.in_row_i, op.rows[static_cast<size_t>(row)]);
    const int last0 = (op.kh - 1) * op.pitch + op.kw - 1;  // a depthwise output's seed: its last window row
    if (op.init == BurstOp::Seeded && !op.depthwise) putAcc(op.seed[static_cast<size_t>(row)]);
    if (op.init == BurstOp::Seeded && op.depthwise && row >= last0 && (row - last0) % op.stride == 0)
      putAcc(op.seed[static_cast<size_t>((row - last0) / op.stride)]);
    ++row;
    return accepted;
  }

  /// Preloads `rows` on the weight channel from cycle `start` (one row per cycle).
  void burstWeights(const std::vector<Row>& rows, bool transposed, int64_t start, int64_t c) {
    if (c < start || c >= start + static_cast<int64_t>(rows.size())) return;
    if (c == start) {
      r_.expect(t_.wcmd_ready_o, "wcmd_ready_o low for a preload on an idle weight channel");
      t_.wcmd_valid_i = 1;
      t_.wcmd_transpose_i = transposed;
    }
    t_.win_valid_i = 1;
    putRow(t_.win_row_i, rows[static_cast<size_t>(c - start)]);
  }

  /// The weights a preload of `spadRows` leaves (transposed: row n is column n).
  std::vector<Row> preloaded(const std::vector<Row>& spadRows, bool transposed) const {
    std::vector<Row> w(static_cast<size_t>(R_), Row(static_cast<size_t>(N_)));
    for (size_t k = 0; k < static_cast<size_t>(R_); ++k)
      for (size_t n = 0; n < static_cast<size_t>(N_); ++n) w[k][n] = transposed ? spadRows[n][k] : spadRows[k][n];
    return w;
  }

  /// A burst (weight-stationary): `count` >= 2 operations overlapped as the NPU runs them with
  /// `issue: m` and two weight sets. A preload on the weight channel from idle; then matmul_tiles
  /// and depthwise_tiles, each accepted in the first cycle cmd_ready_o is high, each writing the
  /// rows of the one before half the time. With two weight sets a second preload goes on the
  /// weight channel in the accept cycle of the last operation on the first set, and the
  /// operations after it wait for it to be in and multiply by the new set while the earlier ones
  /// drain. A late operation's rows take out_acc_i, presented only in the cycle after out_soon_o,
  /// from a model accumulator that every output row updates (so tiles into one output add up).
  /// Checks every value, the rows' order and flags, out_soon_o a cycle ahead of each output,
  /// cmd_ready_o exactly when an operation's rows are in (which the YAML's `issue`, where it
  /// gives one, must equal) and each last row in the operation's YAML `cycles`.
  void burst(int count) {
    const bool two = p_.array_weight_buffers > 1;
    const bool tA = transposes() && (rng_() & 1), tB = transposes() && (rng_() & 1);
    const auto rowsA = randomRows(tA ? N_ : R_, E_), rowsB = randomRows(tB ? N_ : R_, E_);
    const auto wA = preloaded(rowsA, tA), wB = preloaded(rowsB, tB);
    constexpr int kAccRows = 64;
    std::vector<Row32> acc = randomAcc(kAccRows);
    const size_t onA = two ? static_cast<size_t>(uniform(rng_, 1, count - 1)) : static_cast<size_t>(count);
    std::vector<BurstOp> ops;
    for (size_t j = 0; j < static_cast<size_t>(count); ++j) {
      ops.push_back(burstOp(j ? ops.back().accRow : -1, kAccRows));
      ops.back().w = j < onA ? &wA : &wB;
    }
    const auto aRows = static_cast<int64_t>(rowsA.size());
    int64_t bStart = INT64_MAX, bEnd = INT64_MAX;  // the second preload's rows
    size_t next = 0, outOp = 0, soonOp = 0;
    int current = -1, row = 0, outRow = 0, soonRow = 0, lateIdx = -1;
    bool soonBefore = false;
    for (int64_t c = 0;; ++c) {
      garbageInputs();
      t_.cmd_valid_i = 0;
      t_.in_valid_i = 0;
      sim_.settle();
      if (lateIdx >= 0) putAcc(acc[static_cast<size_t>(lateIdx)], t_.out_acc_i);
      lateIdx = -1;
      const bool mayAccept = c >= aRows && (next < onA || c >= bEnd);
      if (burstCommand(ops, next, current, row, c, mayAccept) == static_cast<int>(onA) - 1 && two) {
        bStart = c;
        bEnd = c + static_cast<int64_t>(rowsB.size());
      }
      burstWeights(rowsA, tA, 0, c);
      if (two) burstWeights(rowsB, tB, bStart, c);
      const bool soon = t_.out_soon_o, soonLast = t_.out_soon_last_o;
      sim_.settle();
      r_.expect(t_.out_valid_o == soonBefore,
                "out_soon_o did not announce the output row of cycle " + std::to_string(c) + " (or announced none)");
      if (t_.out_valid_o && outOp < ops.size()) burstOutput(ops[outOp], outRow, outOp, acc, c);
      if (soon && soonOp < ops.size()) {
        const BurstOp& op = ops[soonOp];
        if (op.init == BurstOp::Late) lateIdx = op.accRow + soonRow;
        soonRow = soonLast ? 0 : soonRow + 1;
        if (soonLast) ++soonOp;
      }
      soonBefore = soon;
      sim_.tick();
      if (sim_.assertionFailed()) return r_.fail("ASSERTION failed in the RTL (see above) during a burst");
      const bool weightsIn = !two || (bEnd != INT64_MAX && c >= bEnd - 1);
      if (outOp == ops.size() && weightsIn && !soonBefore) break;
      if (c > 100000) return r_.fail("TIMEOUT: a burst did not finish in 100000 cycles");
    }
    sim_.settle();
    r_.expect(t_.idle_o, "idle_o low after a burst's last output");
    ++bursts_;
  }

  /// Checks output row `i` of a burst operation (the initial row: zero, its seed, or the model
  /// accumulator's, which it then updates) and, at its last row, the operation's cycles.
  void burstOutput(BurstOp& op, int& i, size_t& outOp, std::vector<Row32>& acc, int64_t c) {
    const Row32 zero(static_cast<size_t>(N_), 0);
    Row32& accRow = acc[static_cast<size_t>(op.accRow + i)];
    const Row32& init = op.init == BurstOp::Zero     ? zero
                        : op.init == BurstOp::Seeded ? op.seed[static_cast<size_t>(i)]
                                                     : accRow;
    const Row32 want = burstRow(op, i, init);
    r_.expect(static_cast<int>(t_.out_row_o) == i && t_.out_last_o == (i == op.m - 1),
              "burst output row " + std::to_string(i) + " of " + std::to_string(op.m) + " came as row " +
                  std::to_string(t_.out_row_o) + (t_.out_last_o ? " (last)" : ""));
    for (int n = 0; n < N_; ++n) {
      const auto got = static_cast<int32_t>(getBits(t_.out_data_o, 32 * n, 32));
      if (got != want[static_cast<size_t>(n)])
        r_.fail(std::string("DATA MISMATCH burst ") + (op.depthwise ? "depthwise_tile" : "matmul_tile") +
                " m=" + std::to_string(op.m) + " init=" + std::to_string(op.init) + " out[" + std::to_string(i) + "][" +
                std::to_string(n) + "]: model " + std::to_string(want[static_cast<size_t>(n)]) + ", RTL " +
                std::to_string(got));
      else
        r_.pass();
      accRow[static_cast<size_t>(n)] = got;
    }
    valuesCompared_ += N_;
    if (++i < op.m) return;
    i = 0;
    ++outOp;
    const Timing& timing = op.depthwise ? depthwise_ : matmul_;
    const Operands ops = op.depthwise ? Operands{{timing.operandName(2), op.m},
                                                 {timing.operandName(4), op.kh},
                                                 {timing.operandName(5), op.kw},
                                                 {timing.operandName(6), op.pitch},
                                                 {timing.operandName(7), op.stride}}
                                      : Operands{{"m", op.m}};
    timing.check(r_, ops, c - op.accept + 1);
    if (timing.desc().has_issue) {
      const int64_t issue = timing.desc().issue.eval(timing.fields(ops));
      r_.expect(issue == op.inputs(), "TIMING MISMATCH " + timing.desc().name + ": `issue` " + std::to_string(issue) +
                                          " cycles, the array takes the next after " + std::to_string(op.inputs()));
    }
  }

  int64_t preloads() const { return preloads_; }
  int64_t bursts() const { return bursts_; }
  /// The weight-stationary array overlaps operations (and has the weight channel).
  bool overlaps() const { return p_.dataflow != isa::Dataflow::OutputStationary; }
  int64_t matmuls() const { return matmuls_; }
  int64_t streamsRun() const { return streams_; }
  int64_t depthwisesRun() const { return depthwises_; }
  int64_t valuesCompared() const { return valuesCompared_; }

 private:
  static int64_t bitsFor(int64_t max) {
    int64_t b = 0;
    while ((int64_t{1} << b) <= max) ++b;
    return b;
  }

  /// The model's output rows for act[s] (m rows of R) times w[s] (R rows of N) over the slices s:
  /// from the initial accumulator (or 0), arith::mac per product, slice by slice in k order; what
  /// the accumulator keeps of the sum (types.accumulator: a narrower one saturates).
  std::vector<Row32> model(std::span<const std::vector<Row>> act, std::span<const std::vector<Row>> w,
                           const std::vector<Row32>& acc, bool accumulate) const {
    const size_t m = act[0].size();
    std::vector<Row32> want(m, Row32(static_cast<size_t>(N_)));
    for (size_t i = 0; i < m; ++i)
      for (size_t n = 0; n < static_cast<size_t>(N_); ++n) {
        int32_t v = accumulate ? acc[i][n] : 0;
        for (size_t s = 0; s < act.size(); ++s)
          for (size_t k = 0; k < static_cast<size_t>(R_); ++k)
            v = isa::arith::mac(v, act[s][i][k], isa::arith::weightRegister(w[s][k][n], p_.widestWeightBits()));
        want[i][n] = isa::arith::storeAccumulator(v, p_.acc_bits);
      }
    return want;
  }

  void garbageInputs() {
    const int A = p_.act_bits;
    for (int e = 0; e < E_; ++e) putBits(t_.in_row_i, A * e, A, rng_());
    for (int n = 0; n < N_; ++n) putBits(t_.in_wrow_i, A * n, A, rng_());
    for (int n = 0; n < N_; ++n) putBits(t_.in_acc_i, 32 * n, 32, rng_());
    // The weight channel and the late accumulate are idle: out_acc_i must be ignored.
    t_.cmd_acc_at_out_i = 0;
    t_.wcmd_valid_i = 0;
    t_.win_valid_i = 0;
    for (int n = 0; n < N_; ++n) putBits(t_.out_acc_i, 32 * n, 32, rng_());
  }
  template <typename Port>
  void putRow(Port& port, const Row& row) {
    const int A = p_.act_bits;
    for (size_t e = 0; e < row.size(); ++e)
      putBits(port, A * static_cast<int>(e), A, static_cast<uint16_t>(row[e]) & ((1u << A) - 1));
  }
  void putAcc(const Row32& row) { putAcc(row, t_.in_acc_i); }
  template <typename Port>
  void putAcc(const Row32& row, Port& port) {
    for (int n = 0; n < N_; ++n) putBits(port, 32 * n, 32, static_cast<uint32_t>(row[static_cast<size_t>(n)]));
  }

  struct Command {
    bool preload = false, transpose = false, stream = false, depthwise = false;
    int m = 0, k = 0;
    bool accumulate = false;
    int kh = 0, kw = 0, pitch = 0, stride = 0;  // depthwise_tile
  };

  /// Runs one operation: the command in cycle 0, `inputs` cycles of input rows (present(c) puts
  /// cycle c's rows on the ports, over random garbage), and collects the outputs until idle_o is
  /// high again (its occupancy; a weight-stationary array takes the next command earlier).
  OpResult run(const Command& cmd, int inputs, const std::function<void(int)>& present) {
    OpResult res;
    sim_.settle();
    if (!r_.expect(t_.cmd_ready_o && t_.idle_o, "cmd_ready_o or idle_o low while idle")) {
      res.ok = false;
      return res;
    }
    const bool isPreload = cmd.preload;
    const int m = cmd.m;
    constexpr int kTimeout = 100000;
    for (int c = 0;; ++c) {
      t_.cmd_valid_i = c == 0;
      t_.cmd_preload_i = isPreload;
      t_.cmd_transpose_i = c == 0 ? cmd.transpose : (rng_() & 1);  // garbage after the accept cycle
      // Inputs must fit their width; after the accept cycle the command inputs are garbage.
      rtlcheck::set(t_.cmd_m_i, c == 0 ? m : static_cast<int>(rng_() & ((1u << t_.pkg_m_bits_o) - 1)));
      t_.cmd_accumulate_i = c == 0 ? cmd.accumulate : (rng_() & 1);
      t_.cmd_stream_i = c == 0 ? cmd.stream : false;
      rtlcheck::set(t_.cmd_k_slices_i,
                    c == 0 ? cmd.k : static_cast<int>(rng_() & ((1u << t_.pkg_k_slices_bits_o) - 1)));
      // The depthwise fields: ignored unless cmd_depthwise_i is accepted (garbage otherwise).
      const auto khMask = (1u << t_.pkg_kh_bits_o) - 1, pitchMask = (1u << t_.pkg_pitch_bits_o) - 1;
      t_.cmd_depthwise_i = c == 0 ? cmd.depthwise : (rng_() & 1);
      rtlcheck::set(t_.cmd_kh_i, c == 0 && cmd.depthwise ? static_cast<unsigned>(cmd.kh) : rng_() & khMask);
      rtlcheck::set(t_.cmd_kw_i, c == 0 && cmd.depthwise ? static_cast<unsigned>(cmd.kw) : rng_() & khMask);
      rtlcheck::set(t_.cmd_pitch_i, c == 0 && cmd.depthwise ? static_cast<unsigned>(cmd.pitch) : rng_() & pitchMask);
      rtlcheck::set(t_.cmd_stride_i, c == 0 && cmd.depthwise ? static_cast<unsigned>(cmd.stride) : rng_() & pitchMask);
      t_.in_valid_i = c < inputs;
      garbageInputs();
      if (c < inputs) present(c);
      sim_.settle();
      if (c > 0 && t_.idle_o) {
        res.cycles = c;
        break;
      }
      if (t_.out_valid_o) {
        Row32 out(static_cast<size_t>(N_));
        for (int n = 0; n < N_; ++n)
          out[static_cast<size_t>(n)] = static_cast<int32_t>(getBits(t_.out_data_o, 32 * n, 32));
        res.rows.push_back(std::move(out));
        res.index.push_back(static_cast<int>(t_.out_row_o));
        res.last.push_back(t_.out_last_o);
        res.lastOutputCycle = c;
      }
      sim_.tick();
      if (sim_.assertionFailed()) {
        r_.fail("ASSERTION failed in the RTL (see above) during " +
                std::string(isPreload       ? "weight_preload"
                            : cmd.stream    ? "matmul_stream"
                            : cmd.depthwise ? "depthwise_tile"
                                            : "matmul_tile") +
                " m=" + std::to_string(m));
        res.ok = false;
        break;
      }
      if (c > kTimeout) {
        r_.fail("TIMEOUT: the operation did not finish in " + std::to_string(kTimeout) + " cycles");
        res.ok = false;
        break;
      }
    }
    t_.cmd_valid_i = 0;
    t_.in_valid_i = 0;
    return res;
  }

  Timing preload_, preloadT_, matmul_, stream_, depthwise_;
  int R_, N_, E_;
  std::vector<Row> W_;  // the model's weights
  int64_t preloads_ = 0, matmuls_ = 0, streams_ = 0, depthwises_ = 0, valuesCompared_ = 0, bursts_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  const Injection<ArrayCheck> inject = {"extra-row", "extra row", &ArrayCheck::injectExtraRow};
  return checkMain<Tb, ArrayCheck>(argc, argv, "systolic_array", inject, [](Session<Tb>& s, ArrayCheck& check) {
    const int R = static_cast<int>(s.isa.params().array_rows);
    const int E = static_cast<int>(s.isa.params().spad_row_elems);
    const int64_t mMax = check.largestM();
    const int64_t mCap = std::min<int64_t>(mMax, 3 * R);  // keeps the run short; m = mMax is tried too
    const int rounds = s.cases(300);

    // Before any preload W is zero: the result is the initial accumulator (or zero).
    check.matmul(check.randomRows(2, R), check.randomAcc(2), true);
    check.matmul(check.randomRows(1, R), check.randomAcc(1), false);
    if (check.depthwiseMode()) check.randomDepthwise(4);

    for (int round = 0; round < rounds; ++round) {
      if (s.sim.assertionFailed()) break;  // reported once; the state is no longer meaningful
      check.idle(static_cast<int>(s.rng() % 3));
      if (check.transposes() && (s.rng() & 1))
        check.preload(check.randomRows(static_cast<int>(s.isa.params().array_cols), E), true);
      else
        check.preload(check.randomRows(R, E));
      const int matmuls = 1 + static_cast<int>(s.rng() % 6);
      for (int j = 0; j < matmuls; ++j) {
        int64_t m;
        switch (s.rng() % 6) {
          case 0: m = 1; break;
          case 1: m = mCap; break;
          case 2: m = std::min<int64_t>(R, mCap); break;
          default: m = uniform(s.rng, 1, mCap);
        }
        if (round == 0 && j == 0) m = mMax;  // the largest tile the instruction allows, once
        const bool accumulate = s.rng() & 1;
        check.idle(static_cast<int>(s.rng() % 2));
        check.matmul(check.randomRows(static_cast<int>(m), R), check.randomAcc(static_cast<int>(m)), accumulate);
      }
      // Streams between matmuls of one preload: the matmuls after them check that W is untouched.
      const int streams = check.streams() ? static_cast<int>(s.rng() % 3) : 0;
      for (int j = 0; j < streams; ++j) {
        const int64_t kMax = check.largestSlices(round == 0 ? 64 : 8);
        const int k = static_cast<int>(round == 0 && j == 0 ? kMax : uniform(s.rng, 1, kMax));
        const int m = static_cast<int>(s.rng() % 3 == 0 ? std::min<int64_t>(R, mMax)
                                                        : uniform(s.rng, 1, std::min<int64_t>(R, mMax)));
        std::vector<std::vector<Row>> act, w;
        for (int slice = 0; slice < k; ++slice) {
          act.push_back(check.randomRows(m, R));
          w.push_back(check.randomRows(R, static_cast<int>(s.isa.params().array_cols)));
        }
        check.idle(static_cast<int>(s.rng() % 2));
        check.stream(act, w, check.randomAcc(m), s.rng() & 1);
        check.matmul(check.randomRows(1, R), check.randomAcc(1), true);
      }
      // Depthwise tiles between matmuls of one preload: the matmul after them checks the mode
      // switches back and W is untouched. Once, the largest m the instruction allows.
      const int depthwises = check.depthwiseMode() ? 1 + static_cast<int>(s.rng() % 3) : 0;
      for (int j = 0; j < depthwises; ++j) {
        check.idle(static_cast<int>(s.rng() % 2));
        if (round == 0 && j == 0)
          check.randomDepthwise(mMax, true);
        else
          check.randomDepthwise(mCap);
      }
      if (depthwises > 0) check.matmul(check.randomRows(2, R), check.randomAcc(2), s.rng() & 1);
      // Overlapped operations (weight-stationary), as `issue: m` and two weight sets run them.
      if (check.overlaps() && (round < 3 || s.rng() % 3 == 0)) check.burst(static_cast<int>(uniform(s.rng, 2, 8)));
    }
    return s.finish(std::to_string(check.preloads()) + " weight_preload (or _t), " + std::to_string(check.matmuls()) +
                    " matmul_tile, " + std::to_string(check.streamsRun()) + " matmul_stream, " +
                    std::to_string(check.depthwisesRun()) + " depthwise_tile, " + std::to_string(check.bursts()) +
                    " overlapped bursts, " + std::to_string(check.valuesCompared()) + " int32 outputs compared");
  });
}
