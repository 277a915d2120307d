// The Verilated systolic array (tb_systolic_array: the block plus its package values) driven as
// an ArrayBackend, with the protocol of tests/rtl/systolic_array_check.cpp: the command and the
// first input row in the accept cycle, one input row per cycle, output rows captured as they
// leave, the operation's cycles counted until idle_o is high again (depthwise_tile: the window
// rows one per cycle, accumulator row i with output i's last window row). Included by the
// generated per-config file that names the Verilated top class (Vcosim_array_<config>).
#pragma once

#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "systole/isa/config.h"
#include "systole/isa/diagnostic.h"
#include "systole/isa/row_footprint.h"
#include "systole/rtl/cosim.h"
#include "systole/sim/fault.h"
#include "verilated.h"
#include "verilated_vcd_c.h"

namespace systole::rtl {

namespace detail {

/// Writes n 32-bit words to a port of whatever type Verilator gave it (integral up to 64 bits,
/// VlWide above).
template <typename P>
void putWords(P& port, const uint32_t* words, int n) {
  if constexpr (std::is_integral_v<P>) {
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= uint64_t{words[i]} << (32 * i);
    port = static_cast<P>(v);
  } else {
    for (int i = 0; i < n; ++i) port[i] = words[i];
  }
}

template <typename P>
uint32_t getWord(const P& port, int i) {
  if constexpr (std::is_integral_v<P>) {
    using U = std::make_unsigned_t<P>;
    return static_cast<uint32_t>(static_cast<uint64_t>(static_cast<U>(port)) >> (32 * i));
  } else {
    return port[i];
  }
}

}  // namespace detail

template <typename Top>
class VerilatedArray final : public sim::ArrayBackend {
 public:
  VerilatedArray(const isa::IsaConfig& isa, const RtlArrayOptions& options)
      : name_(isa.params().name),
        R_(static_cast<int>(isa.params().array_rows)),
        N_(static_cast<int>(isa.params().array_cols)),
        E_(static_cast<int>(isa.params().spad_row_elems)),
        laneBytes_(isa.params().act_bits / 8),
        ctx_(std::make_unique<VerilatedContext>()) {
    ctx_->fatalOnError(false);  // an assertion failure becomes a simulation fault
    ctx_->randReset(2);         // registers without reset start random, as in the checks
    ctx_->randSeed(1);
    if (!options.vcd.empty()) ctx_->traceEverOn(true);
    top_ = std::make_unique<Top>(ctx_.get());
    if (!options.vcd.empty()) {
      vcd_ = std::make_unique<VerilatedVcdC>();
      top_->trace(vcd_.get(), 99);
      vcd_->open(options.vcd.c_str());
      if (!vcd_->isOpen()) throw Error("cannot open the waveform file '" + options.vcd + "'");
    }
    settle();
    const auto& p = isa.params();
    auto same = [&](const char* what, int64_t pkg, int64_t config) {
      if (pkg != config)
        throw Error("the RTL array for '" + name_ + "' was Verilated with " + what + " = " + std::to_string(pkg) +
                    " but the config says " + std::to_string(config));
    };
    same("ARRAY_ROWS", top_->pkg_array_rows_o, p.array_rows);
    same("ARRAY_COLS", top_->pkg_array_cols_o, p.array_cols);
    same("DATAFLOW_OUTPUT_STATIONARY", top_->pkg_output_stationary_o, p.dataflow == isa::Dataflow::OutputStationary);
    same("SCRATCHPAD_ROW_BYTES", top_->pkg_row_bytes_o, p.spad_row_bytes);
    same("ACTIVATION_BITS", top_->pkg_act_bits_o, p.act_bits);
    same("ARRAY_LINE_BUFFER_ROWS", top_->pkg_line_buffer_rows_o, p.array_line_buffer_rows);
    lineBufferRows_ = p.array_line_buffer_rows;
    khMax_ = (int64_t{1} << top_->pkg_kh_bits_o) - 1;
    pitchMax_ = (int64_t{1} << top_->pkg_pitch_bits_o) - 1;
    rowWords_.resize(static_cast<size_t>((E_ * laneBytes_ + 3) / 4));
    accWords_.resize(static_cast<size_t>(N_));
  }

  ~VerilatedArray() override {
    top_->final();
    if (vcd_) vcd_->close();
  }

  void reset() override {
    // A real falling edge on rst_ni, so the asynchronous resets act before the first clock edge.
    top_->clk_i = 0;
    top_->rst_ni = 1;
    top_->cmd_valid_i = 0;
    top_->in_valid_i = 0;
    top_->cmd_acc_at_out_i = 0;  // one operation at a time: the initial accumulator comes with the rows
    top_->wcmd_valid_i = 0;      // preloads on the command channel
    top_->wcmd_transpose_i = 0;
    top_->win_valid_i = 0;
    top_->eval();
    top_->rst_ni = 0;
    top_->eval();
    for (int i = 0; i < 3; ++i) tick();
    top_->rst_ni = 1;
    settle();
  }

  uint64_t preload(const sim::Lane* rows, int64_t stride) override {
    return run(
        {.preload = true}, R_, [&](int64_t c) { putRow(top_->in_row_i, rows + c * stride, E_); }, nullptr, 0);
  }

  uint64_t matmul(const sim::Lane* act, int64_t actStride, int64_t m, bool accumulate, int32_t* acc,
                  int64_t accStride) override {
    if (m == 0) fail("matmul_tile with m = 0 is rejected by the RTL (see rtl/README.md)");
    return run(
        {.m = m, .accumulate = accumulate}, m,
        [&](int64_t c) {
          putRow(top_->in_row_i, act + c * actStride, E_);
          if (accumulate) putAcc(acc + c * accStride);
        },
        acc, accStride);
  }

  uint64_t stream(const sim::Lane* act, int64_t actStride, int64_t sliceStride, const sim::Lane* w, int64_t wStride,
                  int64_t slices, int64_t m, bool accumulate, int32_t* acc, int64_t accStride) override {
    if (m == 0 || slices == 0)
      fail("matmul_stream with m = 0 or k_slices = 0 is rejected by the RTL (see rtl/README.md)");
    return run(
        {.stream = true, .m = m, .slices = slices, .accumulate = accumulate}, slices * R_,
        [&](int64_t c) {
          const int64_t s = c / R_, j = c % R_;
          putRow(top_->in_wrow_i, w + (s * R_ + j) * wStride, N_);
          if (j < m) putRow(top_->in_row_i, act + s * sliceStride + j * actStride, E_);
          if (s == 0 && j < m && accumulate) putAcc(acc + j * accStride);
        },
        acc, accStride);
  }

  uint64_t depthwise(const sim::Lane* act, int64_t actStride, int64_t m, int64_t kh, int64_t kw, int64_t pitch,
                     int64_t stride, bool accumulate, int32_t* acc, int64_t accStride) override {
    if (lineBufferRows_ == 0)
      throw Error("the RTL array for '" + name_ +
                  "' was built without the depthwise mode (array.line_buffer_rows is 0): depthwise_tile cannot be "
                  "co-simulated");
    if (m == 0) fail("depthwise_tile with m = 0 is rejected by the RTL (see rtl/README.md)");
    // pitch is free when kh = 1 (no second kernel row): the RTL gets 0, which its port always holds.
    if (kh == 1) pitch = 0;
    if (kh < 1 || kw < 1 || stride < 1 || kh > khMax_ || kw > khMax_ || pitch > pitchMax_ || stride > pitchMax_)
      fail("depthwise_tile kh=" + std::to_string(kh) + " kw=" + std::to_string(kw) + " pitch=" + std::to_string(pitch) +
           " stride=" + std::to_string(stride) + " does not fit the RTL's command ports (kh, kw <= " +
           std::to_string(khMax_) + ", 1 <= stride and pitch <= " + std::to_string(pitchMax_) + ")");
    // Output i completes with window row last0 + stride * i: its accumulator row is presented then.
    const int64_t last0 = (kh - 1) * pitch + kw - 1;
    return run(
        {.depthwise = true, .m = m, .accumulate = accumulate, .kh = kh, .kw = kw, .pitch = pitch, .stride = stride},
        isa::depthwiseWindowRows(m, kh, kw, pitch, stride),
        [&](int64_t c) {
          putRow(top_->in_row_i, act + c * actStride, E_);
          if (accumulate && c >= last0 && (c - last0) % stride == 0) putAcc(acc + (c - last0) / stride * accStride);
        },
        acc, accStride);
  }

 private:
  void settle() {
    top_->clk_i = 0;
    top_->eval();
  }
  void tick() {
    top_->clk_i = 0;
    top_->eval();
    if (vcd_) vcd_->dump(ctx_->time());
    ctx_->timeInc(1);
    top_->clk_i = 1;
    top_->eval();
    if (vcd_) vcd_->dump(ctx_->time());
    ctx_->timeInc(1);
  }

  [[noreturn]] void fail(const std::string& what) const { throw sim::FaultCause{"RTL array (" + name_ + "): " + what}; }

  template <typename Port>
  void putRow(Port& port, const sim::Lane* row, int lanes) {
    // The port packs lanes of activation.bits: each lane's low laneBytes_ bytes, little-endian.
    std::fill(rowWords_.begin(), rowWords_.end(), 0u);
    auto* bytes = reinterpret_cast<uint8_t*>(rowWords_.data());
    for (int k = 0; k < lanes; ++k)
      for (int b = 0; b < laneBytes_; ++b)
        bytes[k * laneBytes_ + b] = static_cast<uint8_t>(static_cast<uint16_t>(row[k]) >> (8 * b));
    detail::putWords(port, rowWords_.data(), (lanes * laneBytes_ + 3) / 4);
  }
  void putAcc(const int32_t* row) {
    std::memcpy(accWords_.data(), row, static_cast<size_t>(N_) * 4);
    detail::putWords(top_->in_acc_i, accWords_.data(), N_);
  }

  struct Command {
    bool preload = false, stream = false, depthwise = false;
    int64_t m = 0, slices = 0;
    bool accumulate = false;
    int64_t kh = 0, kw = 0, pitch = 0, stride = 0;  // depthwise_tile
  };

  template <typename P>
  static void setPort(P& port, int64_t value) {
    port = static_cast<P>(value);
  }

  /// One operation: the command in cycle 0, `inputs` cycles of input rows (present(c) puts cycle
  /// c's rows on the ports), output rows written to acc + row * accStride as they leave; returns
  /// the cycles until idle_o is high again.
  template <typename Present>
  uint64_t run(const Command& cmd, int64_t inputs, Present&& present, int32_t* acc, int64_t accStride) {
    const char* what = cmd.preload     ? "weight_preload"
                       : cmd.stream    ? "matmul_stream"
                       : cmd.depthwise ? "depthwise_tile"
                                       : "matmul_tile";
    settle();
    if (!top_->cmd_ready_o || !top_->idle_o) fail("cmd_ready_o or idle_o low while idle");
    constexpr int64_t kTimeout = 1000000;
    int64_t outputs = 0;
    for (int64_t c = 0;; ++c) {
      top_->cmd_valid_i = c == 0;
      top_->cmd_preload_i = cmd.preload;
      top_->cmd_m_i = static_cast<std::remove_reference_t<decltype(top_->cmd_m_i)>>(c == 0 ? cmd.m : 0);
      top_->cmd_accumulate_i = cmd.accumulate;
      top_->cmd_stream_i = cmd.stream;
      top_->cmd_k_slices_i =
          static_cast<std::remove_reference_t<decltype(top_->cmd_k_slices_i)>>(c == 0 ? cmd.slices : 0);
      top_->cmd_depthwise_i = c == 0 && cmd.depthwise;
      setPort(top_->cmd_kh_i, c == 0 ? cmd.kh : 0);
      setPort(top_->cmd_kw_i, c == 0 ? cmd.kw : 0);
      setPort(top_->cmd_pitch_i, c == 0 ? cmd.pitch : 0);
      setPort(top_->cmd_stride_i, c == 0 ? cmd.stride : 0);
      top_->in_valid_i = c < inputs;
      if (c < inputs) present(c);
      settle();
      if (c > 0 && top_->idle_o) {
        if (outputs != cmd.m)
          fail(std::string(what) + " m=" + std::to_string(cmd.m) + " produced " + std::to_string(outputs) + " rows");
        return static_cast<uint64_t>(c);
      }
      if (top_->out_valid_o) {
        const int64_t row = static_cast<int64_t>(top_->out_row_o);
        if (cmd.preload || row >= cmd.m) fail("unexpected output row " + std::to_string(row));
        int32_t* out = acc + row * accStride;
        for (int n = 0; n < N_; ++n) out[n] = static_cast<int32_t>(detail::getWord(top_->out_data_o, n));
        ++outputs;
      }
      tick();
      if (ctx_->gotError()) fail(std::string("an assertion failed during ") + what + " m=" + std::to_string(cmd.m));
      if (c > kTimeout) fail("the operation did not finish in " + std::to_string(kTimeout) + " cycles");
    }
  }

  std::string name_;
  int R_, N_, E_;  // E_: lanes of a scratchpad row
  int laneBytes_;
  int64_t lineBufferRows_ = 0, khMax_ = 0, pitchMax_ = 0;  // the depthwise mode (0 rows: none)
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Top> top_;
  std::unique_ptr<VerilatedVcdC> vcd_;
  std::vector<uint32_t> rowWords_, accWords_;
};

}  // namespace systole::rtl
