// The PE grid of the systolic array, in the dataflow the config chooses
// (systole_pkg::DATAFLOW_OUTPUT_STATIONARY). Every size comes from the generated package; there are
// no module parameters. The arithmetic is that of matmul_tile (docs/isa-semantics.md):
//   out[i][n] = store((accumulate ? acc_init[i][n] : 0) + sum_k a[i][k] * W[k][n]),
// and, output-stationary only, that of matmul_stream: the same over k_slices slices of ARRAY_ROWS
// reduction indices, each slice bringing its own activation rows and weight rows; and,
// weight-stationary with a line buffer (ARRAY_LINE_BUFFER_ROWS > 0) only, that of depthwise_tile:
//   out[i][n] = store((accumulate ? acc_init[i][n] : 0)
//                     + sum_{t < kh*kw} x[stride*i + (t / kw)*pitch + t % kw][n] * W[t][n]),
// x[j] being the j-th window row presented (a tap per PE row, a channel per column).
// An activation a or x is a scratchpad lane of ACTIVATION_BITS bits (the YAML's types.activation,
// 8 or 16), two's complement; the input rows are lanes of that width.
// W[k][n] is a weight register of ARRAY_WEIGHT_BITS bits (the widest of the YAML's types.weight):
// the low bits of the scratchpad lane, two's complement (isa::arith::weightRegister); 8 on a config
// offering int8 weights, 4 on an int4-only one. Each PE adds one a x W product to an int32 with
// a plain 32-bit adder, which wraps exactly as systole::isa::arith::mac does. store() is what the
// accumulator keeps of the 32-bit sum (ACCUMULATOR_BITS, the YAML's types.accumulator): int32 the
// sum itself, a narrower accumulator the sum saturated to its range (isa::arith::storeAccumulator).
//
// Interface (both dataflows)
//   Command: cmd_valid_i / cmd_ready_o. cmd_preload_i = 1 starts a weight_preload (with
//   cmd_transpose_i = 1 a weight_preload_t), 0 a matmul_tile
//   of cmd_m_i rows (1 <= m; m <= ARRAY_ROWS for output-stationary) with cmd_accumulate_i; with
//   cmd_stream_i = 1 (output-stationary only, cmd_preload_i = 0) a matmul_stream of cmd_m_i rows
//   over cmd_k_slices_i >= 1 slices; with cmd_depthwise_i = 1 (weight-stationary with
//   ARRAY_LINE_BUFFER_ROWS > 0 only, cmd_preload_i = cmd_stream_i = 0) a depthwise_tile of cmd_m_i
//   outputs with cmd_kh_i, cmd_kw_i >= 1, cmd_kh_i * cmd_kw_i <= ARRAY_ROWS, cmd_stride_i >= 1 and
//   (cmd_kh_i - 1) * cmd_pitch_i + cmd_kw_i <= ARRAY_LINE_BUFFER_ROWS (cmd_pitch_i is free when
//   cmd_kh_i = 1). The depthwise command inputs are ignored otherwise (and on configs without the
//   mode, where issuing a depthwise command is an assertion failure).
//   Input rows: the controller presents the operation's first row in the cycle the command is
//   accepted and the remaining rows on the following consecutive cycles, each with in_valid_i:
//     weight_preload  ARRAY_ROWS rows: scratchpad row spad_row + k -> W[k][0..ARRAY_COLS)
//     weight_preload_t ARRAY_COLS rows: scratchpad row spad_row + n -> W[0..ARRAY_ROWS)[n]
//     matmul_tile     m rows: activation row a_row + i (elements 0..ARRAY_ROWS) in in_row_i, and
//                     the accumulator row acc_row + i in in_acc_i.
//     matmul_stream   k_slices * ARRAY_ROWS cycles; in cycle s * ARRAY_ROWS + j of slice s, weight
//                     row w_row + s * ARRAY_ROWS + j in in_wrow_i, and for j < m activation row
//                     a_row + s * a_stride + j in in_row_i (and, in slice 0, accumulator row
//                     acc_row + j in in_acc_i). Two scratchpad rows per cycle.
//     depthwise_tile  Wn = stride*(m-1) + (kh-1)*pitch + kw window rows (isa::depthwiseWindowRows):
//                     window row j = scratchpad row a_row + j (channels 0..ARRAY_COLS-1) in
//                     in_row_i; and the accumulator row acc_row + i in in_acc_i in the cycle of
//                     output i's LAST window row, j = L_i = stride*i + (kh-1)*pitch + kw - 1 (the
//                     cycle output i starts down the array; in_acc_i is ignored in other cycles).
//   Accumulate choice: the initial accumulator values are PROVIDED to the array (in_acc_i, read by
//   the controller together with the activation row) and added inside it, so out_data_o is the
//   final value to write back; for accumulate = 0, in_acc_i is ignored. The write-back is a plain
//   write.
//   Output rows: out_valid_o with out_row_o = i (0..m-1, in order), out_last_o on row m-1. The
//   row is to be captured by the accumulator write port at the end of that cycle. A matmul_tile's
//   rows leave on consecutive cycles; a depthwise_tile's output i leaves in cycle
//   L_i + ARRAY_ROWS + ARRAY_COLS - 2 (stride cycles apart).
//   Occupancy: an operation accepted in cycle t0 alone keeps idle_o low until t0 + C, where C is
//   the YAML timing of the instruction (the first output, if any, appears before that). The
//   output-stationary array keeps cmd_ready_o low as long; the weight-stationary one raises it
//   once the operation's input rows are in, and the next operation's rows follow while the
//   earlier outputs drain (in order; out_row_o counts each operation's rows from 0). A
//   command-channel preload needs the array idle (asserted).
//     weight_preload                 C = ARRAY_ROWS
//     weight_preload_t               C = ARRAY_COLS
//     matmul_tile, weight-stationary C = m + ARRAY_ROWS + ARRAY_COLS - 2
//     matmul_tile, output-stationary C = ARRAY_ROWS + ARRAY_COLS + 2 * m - 2
//     matmul_stream                  C = k_slices * ARRAY_ROWS + m + ARRAY_COLS - 2
//     depthwise_tile                 C = Wn + ARRAY_ROWS + ARRAY_COLS - 2
//                                      (Wn = stride*(m-1) + (kh-1)*pitch + kw window rows)
//   Weight sets (ARRAY_WEIGHT_BUFFERS = 2, weight-stationary): the n-th preload fills set n mod 2;
//   an operation multiplies by the set of the latest preload accepted before it (before any, set
//   1, zero). The weight channel (wcmd_valid_i / wcmd_ready_o, wcmd_transpose_i; weight-stationary
//   only) takes a preload whose rows come on win_row_i with win_valid_i from its accept cycle (as
//   on the command channel), while matmuls run: the controller must not fill a set that rows in
//   flight read. With one set the weight channel fills it; the array must then be idle.
//   Late accumulate (weight-stationary): with cmd_acc_at_out_i (and cmd_accumulate_i = 0) an
//   output row takes its initial accumulator row from out_acc_i in the cycle it leaves; out_soon_o
//   (and out_soon_last_o) say an output row (the last of its operation) leaves in the next cycle,
//   so the controller can read that row, which an earlier operation in flight may just write.
//
// Weight-stationary micro-architecture (R = ARRAY_ROWS, N = ARRAY_COLS)
//   PE(k, n) holds W[k][n] of each weight set. Preload shifts weight rows into the bottom PE row
//   and up one row per cycle, so after R cycles the row presented first sits in PE row 0 (R
//   cycles, no more). A transposed preload shifts them in as columns, at the right and left one
//   column per cycle: after N cycles the row presented first is column 0 (no transposing buffer,
//   no extra cycles).
//   Activation element k of row i passes a k-deep skew register and enters PE(k, 0) in cycle i + k;
//   it moves one PE right per cycle, reaching PE(k, n) in cycle i + k + n. The partial sum of
//   (i, n) starts at the top of column n in cycle i + n (the initial value, skewed by n
//   registers), moves down one PE per cycle and leaves the adder of PE(R-1, n) in cycle
//   i + R - 1 + n. The weight set (and, depthwise, whether the PE multiplies a tap) of the row
//   entering in cycle e is a tag that PE(k, n) reads k + n cycles later, from one shift register
//   of R + N - 1 stages. Column n is delayed by N - 1 - n de-skew registers, so row i leaves the
//   array complete in cycle i + R + N - 2; the last row leaves in cycle m - 1 + R + N - 2, which
//   is the last cycle of the operation: m + R + N - 2 cycles of fill, stream and drain.
//
// Weight-stationary depthwise mode (only if ARRAY_LINE_BUFFER_ROWS = LB > 0)
//   PE(t, n) holds tap t of channel n (W[t][n], from an ordinary weight_preload). A line buffer of
//   LB rows x N bytes (circular, no reset) is written with every arriving window row. Output i
//   "starts" in the cycle L_i its last window row arrives (an event counter tracks
//   L_0 = (kh-1)*pitch + kw - 1 and adds stride per output): in that cycle all R taps are read at
//   once, tap t = window row L_i - back_t, back_t = (kh-1 - t/kw)*pitch + (kw-1 - t%kw) <= LB - 1
//   (back_t = 0 is the row arriving in this very cycle, taken from in_row_i; the offsets come from
//   a walk over the taps, no divider), taps t >= kh*kw read as zero (their PE rows add nothing).
//   Channel n of tap t then waits t + n registers and enters PE(t, n) in cycle L_i + t + n as the
//   PE's multiplicand (in place of the activation passed along its row), exactly when the partial
//   sum of (i, n), seeded from in_acc_i at the top of column n in cycle L_i + n, passes PE(t, n).
//   The seed skew, the partial-sum chain, the de-skew and the valid/last tags are matmul_tile's,
//   with output i's tags entering in cycle L_i instead of its activation row's cycle: output i
//   leaves in cycle L_i + R + N - 2 and the last one, L_{m-1} = Wn - 1, in the operation's last
//   cycle: Wn + R + N - 2 cycles. The mode adds LB*N bytes of buffer, R read ports of N bytes and
//   sum_{t,n} (t + n) = N R (R-1)/2 + R N (N-1)/2 bytes of tap skew registers.
//
// Output-stationary micro-architecture
//   PE(i, n) accumulates out[i][n] in place. Preload shifts the weight rows into a weight buffer at
//   the top edge (R cycles). Activation row i is presented in cycle i: element 0 enters PE(i, 0)
//   at once, the rest wait in that row's left buffer and follow one per cycle, so a[i][k] reaches
//   PE(i, n) in cycle i + k + n; that is also the cycle the PE's accumulator is set to its initial
//   value (n = 0: set and added together; n > 0: set before the first product arrives). The
//   weight buffer rotates once per cycle for R cycles; column n is skewed by n registers and
//   weights move down one PE per cycle, so W[k][n] meets a[i][k] in PE(i, n) in cycle i + k + n.
//   The last product, a[m-1][R-1] * W[R-1][N-1], is added in cycle m + R + N - 3 (R + m + N - 2
//   cycles of fill and compute). The accumulators then shift up one PE row per cycle and leave at
//   the top edge, row 0 first: m drain cycles. Total R + N + 2m - 2.
//
// Output-stationary streaming (matmul_stream)
//   The same grid, with the weights taken from in_wrow_i instead of the weight buffer (which keeps
//   W): weight row j of slice s enters the column skew in cycle s * R + j, so W_s[k][n] meets
//   a_s[i][k] in PE(i, n) in cycle s * R + i + k + n, exactly as the activations of slice s arrive
//   (row i of slice s is loaded into its left buffer in cycle s * R + i, just as the previous
//   slice's last element leaves it). Only slice 0 sets the accumulators; later slices add on.
//   PE(i, n) adds its last product in cycle K - 1 + i + n (K = k_slices * R), so row i is complete
//   in cycle K + i + N - 2: it leaves then, at once from the PE row (the last column straight from
//   its adder), without a shift drain. The last row leaves in cycle K + m + N - 3: K + m + N - 2
//   cycles.
module systolic_array
  import systole_pkg::*;
#(
  // Not a parameter: the width of m and of the output row index, derived from the package.
  localparam int M_W = $clog2(((DATAFLOW_OUTPUT_STATIONARY != 0) ? ARRAY_ROWS : ACCUMULATOR_ROWS) + 1),
  // The width of k_slices: every weight row of a stream must exist in the scratchpad.
  localparam int KS_W = $clog2(SCRATCHPAD_ROWS / ARRAY_ROWS + 1),
  // The widths of a depthwise_tile's kh and kw (each at most ARRAY_ROWS) and of its pitch and
  // stride (bits for ARRAY_LINE_BUFFER_ROWS; 1 without the mode).
  localparam int KH_W = $clog2(ARRAY_ROWS + 1),
  localparam int PS_W = (ARRAY_LINE_BUFFER_ROWS > 0) ? $clog2(ARRAY_LINE_BUFFER_ROWS + 1) : 1,
  // An activation lane (types.activation) and the lanes of a scratchpad row.
  localparam int AB = ACTIVATION_BITS,
  localparam int SL = SCRATCHPAD_ROW_BYTES * 8 / ACTIVATION_BITS
) (
  input  logic                                  clk_i,
  // rst_ni also disables the assertions (disable iff), which Verilator counts as a synchronous use.
  /* verilator lint_off SYNCASYNCNET */
  input  logic                                  rst_ni,
  /* verilator lint_on SYNCASYNCNET */

  input  logic                                  cmd_valid_i,
  output logic                                  cmd_ready_o,
  input  logic                                  cmd_preload_i,
  input  logic                                  cmd_transpose_i,
  input  logic [M_W-1:0] cmd_m_i,
  input  logic                                  cmd_accumulate_i,
  input  logic                                  cmd_stream_i,
  input  logic [KS_W-1:0]                       cmd_k_slices_i,
  input  logic                                  cmd_depthwise_i,
  input  logic [KH_W-1:0]                       cmd_kh_i,
  input  logic [KH_W-1:0]                       cmd_kw_i,
  input  logic [PS_W-1:0]                       cmd_pitch_i,
  input  logic [PS_W-1:0]                       cmd_stride_i,

  input  logic                                  in_valid_i,
  input  logic [SL-1:0][AB-1:0]                in_row_i,
  input  logic [ARRAY_COLS-1:0][AB-1:0]         in_wrow_i,
  input  logic [ARRAY_COLS-1:0][31:0]           in_acc_i,
  input  logic                                  cmd_acc_at_out_i,

  // The weight channel (weight-stationary only): a preload beside the matmuls.
  input  logic                                  wcmd_valid_i,
  output logic                                  wcmd_ready_o,
  input  logic                                  wcmd_transpose_i,
  input  logic                                  win_valid_i,
  input  logic [SL-1:0][AB-1:0]                win_row_i,

  output logic                                  idle_o,
  output logic                                  out_soon_o,
  output logic                                  out_soon_last_o,
  input  logic [ARRAY_COLS-1:0][31:0]           out_acc_i,
  output logic                                  out_valid_o,
  output logic                                  out_last_o,
  output logic [M_W-1:0] out_row_o,
  output logic [ARRAY_COLS-1:0][31:0]           out_data_o
);

  localparam int R = ARRAY_ROWS;
  localparam int N = ARRAY_COLS;
  // A PE's weight register: the widest of the YAML's types.weight. weight_preload keeps a
  // scratchpad lane's low WB bits (isa::arith::weightRegister); the multiplier is AB x WB bits.
  localparam int WB = ARRAY_WEIGHT_BITS;
  localparam bit OS = DATAFLOW_OUTPUT_STATIONARY != 0;
  localparam int M_MAX = OS ? R : ACCUMULATOR_ROWS;
  // The depthwise mode: weight-stationary with a line buffer of LB rows.
  localparam int LB = ARRAY_LINE_BUFFER_ROWS;
  localparam bit DW = !OS && LB > 0;
  // The most input rows of one operation: a depthwise_tile's window with the largest stride.
  localparam longint WIN_MAX_L = DW ? ((64'(1) << PS_W) - 64'(1)) * (64'(M_MAX) - 64'(1)) + 64'(LB) : 64'(0);
  localparam int WIN_MAX = int'(WIN_MAX_L);
  localparam int CNT_MAX_MM = (M_MAX > R ? M_MAX : R) > N ? (M_MAX > R ? M_MAX : R) : N;
  localparam int CNT_MAX = (WIN_MAX > CNT_MAX_MM) ? WIN_MAX : CNT_MAX_MM;
  localparam int CNT_W = $clog2(CNT_MAX + 1);
  // The weight sets (ARRAY_WEIGHT_BUFFERS: 2 lets a preload fill one while matmuls read the other).
  localparam int SETS = ARRAY_WEIGHT_BUFFERS > 1 ? 2 : 1;
  // Operations in flight: a weight-stationary array takes the next once the rows of the last are
  // in, and at most R + N - 1 rows (each an operation, at worst) are on their way out.
  localparam int OPS_W = $clog2(R + N + 2);

  // Elaboration-time checks of the configuration this block supports.
  if (R < 2 || N < 2) begin : g_bad_size
    $error("systolic_array needs ARRAY_ROWS >= 2 and ARRAY_COLS >= 2");
  end
  if (WB < 2 || WB > 8) begin : g_bad_weight_bits
    $error("systolic_array holds weights of 2 to 8 bits");
  end
  if (AB != 8 && AB != 16) begin : g_bad_activation_bits
    $error("systolic_array takes activations of 8 or 16 bits");
  end
  if (SL < R || SL < N) begin : g_bad_row
    $error("a scratchpad row must hold an activation row and a weight row");
  end
  if (OS && SETS > 1) begin : g_bad_sets
    $error("the output-stationary array holds one weight set");
  end
  if (WIN_MAX_L >= 64'(2 ** 30)) begin : g_bad_window
    $error("the depthwise window row counter would need 31 or more bits");
  end

  // ---------------------------------------------------------------------------------------------
  // Control shared by both dataflows: command acceptance, input row sequencing, occupancy.
  // ---------------------------------------------------------------------------------------------
  logic             accept;
  logic [OPS_W-1:0] ops_q, ops_d;             // operations accepted and not yet done
  logic             busy;                      // an operation in flight
  logic             in_phase_q, in_phase_d;   // more input rows are expected after this cycle
  logic             preload_q;
  logic             transpose_q;
  logic             accumulate_q;
  logic             acc_at_out_q;
  logic             stream_q;
  logic [M_W-1:0]   m_q;
  logic [KS_W-1:0]  k_slices_q;
  logic [CNT_W-1:0] in_cnt_q, in_cnt_d;       // index of the input row expected next (in its slice)
  logic [KS_W-1:0]  slice_q, slice_d;         // a stream's slice of that row

  // The operation as seen in the current cycle (the accept cycle reads the command directly).
  logic             op_preload, op_transpose, op_accumulate, op_acc_at_out, op_stream;
  logic [M_W-1:0]   op_m;
  logic [KS_W-1:0]  op_k_slices, in_slice;
  logic [CNT_W-1:0] in_idx, in_rows;
  logic             in_expected, in_fire, in_last, slice_end, last_slice, act_fire, act_last, wgt_fire;
  logic             op_done;
  // The depthwise mode (driven by g_ws.g_dw; constant 0 without it): the operation is a
  // depthwise_tile, and this input row is the last window row of its last output.
  logic             op_dw, dw_last;
  // Driven by the dataflow: a weight-channel preload is in progress; the output row leaving now
  // takes its initial accumulator from out_acc_i.
  logic             w_busy, out_acc_at_out;

  // Output-stationary: one operation at a time. Weight-stationary: the next once this one's rows
  // are in (its outputs and an earlier one's keep draining in order); a preload on this channel
  // must find the array idle (the controller's duty; asserted).
  assign busy          = ops_q != '0;
  assign cmd_ready_o   = OS ? ~busy : ~in_phase_q;
  assign idle_o        = ~busy & ~w_busy;
  assign accept        = cmd_valid_i & cmd_ready_o;
  assign op_preload    = accept ? cmd_preload_i : preload_q;
  assign op_transpose  = accept ? cmd_transpose_i : transpose_q;
  assign op_accumulate = accept ? cmd_accumulate_i : accumulate_q;
  assign op_acc_at_out = accept ? cmd_acc_at_out_i : acc_at_out_q;
  assign op_m          = accept ? cmd_m_i : m_q;
  assign op_stream     = accept ? cmd_stream_i : stream_q;
  assign op_k_slices   = accept ? cmd_k_slices_i : k_slices_q;
  assign in_idx        = accept ? '0 : in_cnt_q;
  assign in_slice      = accept ? '0 : slice_q;
  // A stream's slice is R rows of weights (its activation rows are the first m of them).
  assign in_rows       = (op_preload & op_transpose) ? CNT_W'(N) : (op_preload | op_stream) ? CNT_W'(R) : CNT_W'(op_m);
  assign in_expected   = accept | in_phase_q;
  assign in_fire       = in_valid_i & in_expected;
  assign last_slice    = ~op_stream | (in_slice == op_k_slices - KS_W'(1));
  // A depthwise_tile's rows are counted by its window (g_ws.g_dw), not by m or slices.
  assign slice_end     = in_expected & ~op_dw & (in_idx == in_rows - CNT_W'(1));
  assign in_last       = op_dw ? dw_last : (slice_end & last_slice);
  assign act_fire      = in_fire & ~op_preload & (~op_stream | (in_idx < CNT_W'(op_m)));
  // The activation row whose products end the operation (a stream: every row of the last slice).
  assign act_last      = op_stream ? last_slice : in_last;
  assign wgt_fire      = in_fire & op_preload;

  // A preload ends with its last row; a matmul with its last output row.
  assign op_done = (wgt_fire & in_last) | (out_valid_o & out_last_o);

  always_comb begin
    ops_d      = ops_q + OPS_W'(accept) - OPS_W'(op_done);
    in_phase_d = in_phase_q;
    in_cnt_d   = in_cnt_q;
    slice_d    = slice_q;
    if (accept) begin
      in_phase_d = 1'b1;
      in_cnt_d   = '0;
      slice_d    = '0;
    end
    if (in_fire) begin
      in_cnt_d = in_idx + CNT_W'(1);
      if (in_last) in_phase_d = 1'b0;
      else if (slice_end) begin  // the next slice of a stream
        in_cnt_d = '0;
        slice_d  = in_slice + KS_W'(1);
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ops_q        <= '0;
      in_phase_q   <= 1'b0;
      in_cnt_q     <= '0;
      slice_q      <= '0;
      preload_q    <= 1'b0;
      transpose_q  <= 1'b0;
      accumulate_q <= 1'b0;
      acc_at_out_q <= 1'b0;
      stream_q     <= 1'b0;
      m_q          <= '0;
      k_slices_q   <= '0;
    end else begin
      ops_q      <= ops_d;
      in_phase_q <= in_phase_d;
      in_cnt_q   <= in_cnt_d;
      slice_q    <= slice_d;
      if (accept) begin
        preload_q    <= cmd_preload_i;
        transpose_q  <= cmd_transpose_i;
        accumulate_q <= cmd_accumulate_i;
        acc_at_out_q <= cmd_acc_at_out_i;
        stream_q     <= cmd_stream_i;
        m_q          <= cmd_m_i;
        k_slices_q   <= cmd_k_slices_i;
      end
    end
  end

  // The output row before the accumulator keeps it: the 32-bit sums of either dataflow.
  logic [N-1:0][31:0] out_sum;

  // One PE's product, sign-extended to the accumulator width.
  function automatic logic [31:0] pe_product(logic [AB-1:0] a, logic [WB-1:0] w);
    logic signed [AB+WB-1:0] p;
    p = $signed(a) * $signed(w);
    pe_product = 32'($signed(p));
  endfunction

  if (!OS) begin : g_ws
    // -------------------------------------------------------------------------------------------
    // Weight-stationary datapath (no streaming: in_wrow_i is unused).
    // -------------------------------------------------------------------------------------------
    logic unused_wrow;  // the stream inputs and tags
    assign unused_wrow = ^{in_wrow_i, act_last};
    logic [AB-1:0]  mul_a    [R][N];   // PE(k, n)'s multiplicand: a_in, or its tap (depthwise)
    logic        row_fire;          // an output row starts down the array: its tags enter
    // W[k][n] of each weight set (set st in bits [st*WB +: WB]), stationary. Flat, as pre_row: Yosys
    // cannot size a packed array declared in a generate block.
    logic [SETS*WB-1:0] w_q [R][N];
    logic [WB-1:0] w_pe   [R][N];   // the weight PE(k, n) multiplies by this cycle
    logic [AB-1:0]  act_left [R];      // activation entering PE(k, 0) this cycle
    logic [31:0] seed_top [N];      // partial-sum seed entering PE(0, n) this cycle
    logic [AB-1:0]  a_in     [R][N];   // activation at PE(k, n) this cycle
    logic [AB-1:0]  a_q      [R][N-1]; // activation forwarded to PE(k, n + 1)
    logic [31:0] psum_d   [R][N];   // partial sum leaving PE(k, n)'s adder
    logic [31:0] psum_q   [R-1][N]; // partial sum forwarded to PE(k + 1, n)

    // Weight sets: the n-th preload (either channel) fills set n mod SETS, and an operation reads
    // the set of the latest preload accepted before it. Which set a PE multiplies by travels with
    // the operation's rows (ent_set): the wavefront of the row entering in cycle e passes PE(k, n)
    // in cycle e + k + n, so a preload may fill one set while rows of the other are in the array.
    logic fill_set_q, set_q, op_set, pre_set_q, op_pre_set;
    // [d]: the tags of the row that entered d cycles ago (only some configs read every one).
    /* verilator lint_off UNUSEDSIGNAL */
    logic [R+N-2:0] ent_set, ent_dw;
    /* verilator lint_on UNUSEDSIGNAL */
    logic [R+N-3:0] ent_set_q, ent_dw_q;
    assign op_set     = accept ? (SETS > 1 ? ~fill_set_q : 1'b0) : set_q;
    assign op_pre_set = accept ? fill_set_q : pre_set_q;
    assign ent_set    = {ent_set_q, op_set};
    assign ent_dw     = {ent_dw_q, op_dw};
    always_ff @(posedge clk_i) begin
      ent_set_q <= ent_set[R+N-3:0];
      ent_dw_q  <= ent_dw[R+N-3:0];
    end

    // The weight channel: ARRAY_ROWS rows (wcmd_transpose_i: ARRAY_COLS) from the accept cycle.
    logic w_busy_q, w_tr_q, w_set_q, w_accept, w_expected, w_fire, w_last, w_tr, w_set;
    logic [CNT_W-1:0] w_cnt_q, w_idx;
    assign wcmd_ready_o = ~w_busy_q;
    assign w_busy       = w_busy_q;
    assign w_accept     = wcmd_valid_i & wcmd_ready_o;
    assign w_expected   = w_accept | w_busy_q;
    assign w_fire       = win_valid_i & w_expected;
    assign w_tr         = w_accept ? wcmd_transpose_i : w_tr_q;
    assign w_set        = w_accept ? fill_set_q : w_set_q;
    assign w_idx        = w_accept ? '0 : w_cnt_q;
    assign w_last       = w_idx == (w_tr ? CNT_W'(N - 1) : CNT_W'(R - 1));
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        {fill_set_q, set_q, pre_set_q, w_busy_q, w_tr_q, w_set_q} <= '0;
        w_cnt_q <= '0;
      end else begin
        if (SETS > 1 && ((accept & cmd_preload_i) | w_accept)) fill_set_q <= ~fill_set_q;
        if (accept) begin
          set_q     <= op_set;
          pre_set_q <= op_pre_set;
        end
        w_busy_q <= w_expected & ~(w_fire & w_last);
        if (w_accept) begin
          w_tr_q  <= wcmd_transpose_i;
          w_set_q <= fill_set_q;
        end
        if (w_fire) w_cnt_q <= w_idx + CNT_W'(1);
      end
    end

    // Weight preload (either channel, one at a time): rows enter the bottom PE row of their set
    // and shift up; transposed, they enter the right column and shift left. W is zero until the
    // first preload (isa-semantics.md), hence the reset.
    logic pre_fire, pre_tr, pre_set;
    /* verilator lint_off UNUSEDSIGNAL */  // a lane's bits above the weight register's
    logic [SL*AB-1:0] pre_row;
    /* verilator lint_on UNUSEDSIGNAL */
    assign pre_fire = wgt_fire | w_fire;
    assign pre_tr   = wgt_fire ? op_transpose : w_tr;
    assign pre_set  = wgt_fire ? op_pre_set : w_set;
    assign pre_row  = wgt_fire ? in_row_i : win_row_i;
    for (genvar k = 0; k < R; k++) begin : g_w_row
      for (genvar n = 0; n < N; n++) begin : g_w_col
        logic [WB-1:0] from_right, from_below;  // this PE's next weight in the preload's set
        logic [SETS*WB-1:0] next;
        if (n == N - 1) begin : g_right_edge
          assign from_right = pre_row[k*AB +: WB];
        end else begin : g_right
          assign from_right = w_q[k][n + 1][int'(pre_set)*WB +: WB];
        end
        if (k == R - 1) begin : g_bottom_edge
          assign from_below = pre_row[n*AB +: WB];
        end else begin : g_below
          assign from_below = w_q[k + 1][n][int'(pre_set)*WB +: WB];
        end
        always_comb begin
          next = w_q[k][n];
          next[int'(pre_set)*WB +: WB] = pre_tr ? from_right : from_below;
        end
        always_ff @(posedge clk_i or negedge rst_ni) begin
          if (!rst_ni) w_q[k][n] <= '0;
          else if (pre_fire) w_q[k][n] <= next;
        end
      end
    end
    for (genvar k = 0; k < R; k++) begin : g_w_pe_row
      for (genvar n = 0; n < N; n++) begin : g_w_pe_col
        if (SETS > 1) begin : g_two
          assign w_pe[k][n] = w_q[k][n][int'(ent_set[k + n])*WB +: WB];
        end else begin : g_one
          assign w_pe[k][n] = w_q[k][n];
        end
      end
    end

    // Input skew: activation element k waits k cycles, the seed of column n waits n cycles.
    for (genvar k = 0; k < R; k++) begin : g_act_skew
      if (k == 0) begin : g_direct
        assign act_left[0] = in_row_i[0];
      end else begin : g_delay
        logic [AB-1:0] skew_q [k];
        always_ff @(posedge clk_i) begin
          skew_q[0] <= in_row_i[k];
          for (int j = 1; j < k; j++) skew_q[j] <= skew_q[j - 1];
        end
        assign act_left[k] = skew_q[k - 1];
      end
    end
    for (genvar n = 0; n < N; n++) begin : g_seed_skew
      logic [31:0] seed_in;
      assign seed_in = op_accumulate ? in_acc_i[n] : '0;
      if (n == 0) begin : g_direct
        assign seed_top[0] = seed_in;
      end else begin : g_delay
        logic [31:0] skew_q [n];
        always_ff @(posedge clk_i) begin
          skew_q[0] <= seed_in;
          for (int j = 1; j < n; j++) skew_q[j] <= skew_q[j - 1];
        end
        assign seed_top[n] = skew_q[n - 1];
      end
    end

    // The PE grid.
    for (genvar k = 0; k < R; k++) begin : g_row
      for (genvar n = 0; n < N; n++) begin : g_col
        logic [31:0] psum_in;
        if (n == 0) begin : g_a_edge
          assign a_in[k][0] = act_left[k];
        end else begin : g_a_inner
          assign a_in[k][n] = a_q[k][n - 1];
        end
        if (k == 0) begin : g_p_edge
          assign psum_in = seed_top[n];
        end else begin : g_p_inner
          assign psum_in = psum_q[k - 1][n];
        end
        assign psum_d[k][n] = psum_in + pe_product(mul_a[k][n], w_pe[k][n]);
        if (n < N - 1) begin : g_a_fwd
          always_ff @(posedge clk_i) a_q[k][n] <= a_in[k][n];
        end
        if (k < R - 1) begin : g_p_fwd
          always_ff @(posedge clk_i) psum_q[k][n] <= psum_d[k][n];
        end
      end
    end

    // De-skew: column n waits N - 1 - n cycles so a whole output row leaves together.
    for (genvar n = 0; n < N; n++) begin : g_deskew
      if (n == N - 1) begin : g_direct
        assign out_sum[n] = psum_d[R - 1][n];
      end else begin : g_delay
        logic [31:0] skew_q [N - 1 - n];
        always_ff @(posedge clk_i) begin
          skew_q[0] <= psum_d[R - 1][n];
          for (int j = 1; j < N - 1 - n; j++) skew_q[j] <= skew_q[j - 1];
        end
        assign out_sum[n] = skew_q[N - 2 - n];
      end
    end

    // The depthwise mode (see the header): line buffer, tap read, tap skew, multiplicand select.
    if (DW) begin : g_dw
      localparam int LBA_W = (LB > 1) ? $clog2(LB) : 1;
      logic              dw_q;
      logic [KH_W-1:0]   kh_q, kw_q, op_kh, op_kw;
      logic [PS_W-1:0]   pitch_q, stride_q, op_pitch, op_stride;
      logic [CNT_W-1:0]  next_last_q, next_last;  // the window row that completes the next output
      logic [M_W-1:0]    out_idx_q, out_idx;      // that output's index
      logic              event_fire;              // output out_idx starts down the array now
      logic [LBA_W-1:0]  wp_q, wp;                // line-buffer entry of the row arriving now
      logic [N*AB-1:0]      lb_q   [LB];             // the last LB window rows (no reset)
      // Unpacked and flat where Yosys cannot size a packed array declared in a generate block.
      logic [AB-1:0]        tap_rd [R][N];           // the taps of the output starting now
      logic [AB-1:0]        tap_pe [R][N];           // tap t, channel n, t + n cycles later

      assign op_dw     = accept ? cmd_depthwise_i : dw_q;
      assign op_kh     = accept ? cmd_kh_i : kh_q;
      assign op_kw     = accept ? cmd_kw_i : kw_q;
      assign op_pitch  = accept ? cmd_pitch_i : pitch_q;
      assign op_stride = accept ? cmd_stride_i : stride_q;
      // Output 0 completes with window row L_0 = (kh-1)*pitch + kw - 1, each further one stride later.
      assign next_last = accept ? CNT_W'((int'(cmd_kh_i) - 1) * int'(cmd_pitch_i) + int'(cmd_kw_i) - 1)
                                : next_last_q;
      assign out_idx    = accept ? '0 : out_idx_q;
      assign event_fire = in_fire & op_dw & (in_idx == next_last);
      assign dw_last    = event_fire & (out_idx == op_m - M_W'(1));
      assign row_fire   = op_dw ? event_fire : act_fire;
      assign wp         = accept ? '0 : wp_q;

      always_ff @(posedge clk_i or negedge rst_ni) begin
        if (!rst_ni) begin
          dw_q        <= 1'b0;
          kh_q        <= '0;
          kw_q        <= '0;
          pitch_q     <= '0;
          stride_q    <= '0;
          next_last_q <= '0;
          out_idx_q   <= '0;
          wp_q        <= '0;
        end else begin
          if (accept) begin
            dw_q     <= cmd_depthwise_i;
            kh_q     <= cmd_kh_i;
            kw_q     <= cmd_kw_i;
            pitch_q  <= cmd_pitch_i;
            stride_q <= cmd_stride_i;
          end
          next_last_q <= event_fire ? next_last + CNT_W'(op_stride) : next_last;
          out_idx_q   <= event_fire ? out_idx + M_W'(1) : out_idx;
          if (in_fire & op_dw) wp_q <= (wp == LBA_W'(LB - 1)) ? '0 : wp + LBA_W'(1);
          else                 wp_q <= wp;
        end
      end

      // The circular line buffer takes every window row (its first N lanes).
      always_ff @(posedge clk_i) begin
        if (in_fire & op_dw) lb_q[wp] <= (N * AB)'(in_row_i);
      end

      // The taps of the output starting now: tap t = (r, c) = (t / kw, t % kw) is window row
      // L_i - back_t, back_t = (kh-1-r)*pitch + (kw-1-c) rows before the one arriving now (r and c
      // are counted along the taps, no divider); taps t >= kh*kw (r >= kh) are zero.
      always_comb begin
        int r, c, back, addr;
        r = 0;
        c = 0;
        for (int t = 0; t < R; t++) begin
          back = (int'(op_kh) - 1 - r) * int'(op_pitch) + (int'(op_kw) - 1 - c);
          addr = int'(wp) - back;
          if (addr < 0) addr = addr + LB;
          // Zeroed lane by lane: a whole-row zero over 128 bits would become a Verilator
          // constant-pool file, which only some configs' packages produce (the file list must not
          // depend on the package; rtl/check_file_list.cmake).
          if (r >= int'(op_kh)) for (int n = 0; n < N; n++) tap_rd[t][n] = '0;
          else if (back == 0)   for (int n = 0; n < N; n++) tap_rd[t][n] = in_row_i[n];  // bypass: the row arriving now
          else                  for (int n = 0; n < N; n++) tap_rd[t][n] = lb_q[LBA_W'(addr)][n*AB+:AB];
          c = c + 1;
          if (c == int'(op_kw)) begin
            c = 0;
            r = r + 1;
          end
        end
      end

      // Tap skew: channel n of tap t waits t + n cycles, to meet the partial sum of column n in
      // PE(t, n); there it replaces the activation passed along the row.
      for (genvar t = 0; t < R; t++) begin : g_tap_row
        for (genvar n = 0; n < N; n++) begin : g_tap_col
          if (t + n == 0) begin : g_direct
            assign tap_pe[t][n] = tap_rd[t][n];
          end else begin : g_delay
            logic [AB-1:0] skew_q [t + n];
            always_ff @(posedge clk_i) begin
              skew_q[0] <= tap_rd[t][n];
              for (int j = 1; j < t + n; j++) skew_q[j] <= skew_q[j - 1];
            end
            assign tap_pe[t][n] = skew_q[t + n - 1];
          end
          assign mul_a[t][n] = ent_dw[t + n] ? tap_pe[t][n] : a_in[t][n];
        end
      end
    end else begin : g_no_dw
      logic unused_dw;  // the depthwise command inputs
      assign unused_dw = ^{cmd_depthwise_i, cmd_kh_i, cmd_kw_i, cmd_pitch_i, cmd_stride_i};
      assign op_dw     = 1'b0;
      assign dw_last   = 1'b0;
      assign row_fire  = act_fire;
      for (genvar k = 0; k < R; k++) begin : g_mul_row
        for (genvar n = 0; n < N; n++) begin : g_mul_col
          assign mul_a[k][n] = a_in[k][n];
        end
      end
    end

    // Row valid/last tags travel with the data: R + N - 2 stages, the path of activation element
    // R - 1 through the skew registers and along the bottom PE row (a depthwise output's tags
    // enter in the cycle of its last window row).
    localparam int D = R + N - 2;
    // The operation's accumulate-at-output choice travels with them too.
    logic [D-1:0] tag_valid_q, tag_last_q, tag_aao_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        tag_valid_q <= '0;
        tag_last_q  <= '0;
        tag_aao_q   <= '0;
      end else begin
        tag_valid_q <= {tag_valid_q[D-2:0], row_fire};
        tag_last_q  <= {tag_last_q[D-2:0], row_fire & in_last};
        tag_aao_q   <= {tag_aao_q[D-2:0], op_acc_at_out};
      end
    end

    // Output rows are numbered per operation (outputs leave in order, each operation's last marked).
    logic [M_W-1:0] out_cnt_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) out_cnt_q <= '0;
      else if (out_valid_o) out_cnt_q <= out_last_o ? '0 : out_cnt_q + M_W'(1);
    end

    assign out_valid_o     = tag_valid_q[D-1];
    assign out_last_o      = tag_last_q[D-1];
    assign out_row_o       = out_cnt_q;
    assign out_soon_o      = tag_valid_q[D-2];
    assign out_soon_last_o = tag_last_q[D-2];
    assign out_acc_at_out  = tag_aao_q[D-1];

  end else begin : g_os
    // -------------------------------------------------------------------------------------------
    // Output-stationary datapath (no depthwise mode).
    // -------------------------------------------------------------------------------------------
    logic unused_dw;  // the depthwise command inputs
    assign unused_dw = ^{cmd_depthwise_i, cmd_kh_i, cmd_kw_i, cmd_pitch_i, cmd_stride_i};
    assign op_dw     = 1'b0;
    assign dw_last   = 1'b0;
    // One weight set, preloaded on the command channel: no weight channel, no late accumulate.
    assign {wcmd_ready_o, w_busy, out_soon_o, out_soon_last_o, out_acc_at_out} = '0;
    logic unused_os;
    assign unused_os = ^{wcmd_valid_i, wcmd_transpose_i, win_valid_i, win_row_i, out_acc_i, op_acc_at_out};
    logic [WB-1:0] wbuf_q [R][N];   // weight buffer at the top edge: W[k][n]
    logic [WB-1:0] w_top  [N];      // weight entering PE(0, n) this cycle
    logic [WB-1:0] w_in   [R][N];   // weight at PE(i, n) this cycle
    logic [WB-1:0] w_q    [R-1][N]; // weight forwarded to PE(i + 1, n)
    logic [AB-1:0]  a_in    [R][N];    // activation at PE(i, n) this cycle, with valid and last tags
    logic        av_in   [R][N];
    logic        al_in   [R][N];
    logic [AB-1:0]  a_q     [R][N-1];  // forwarded to PE(i, n + 1)
    logic        av_q    [R][N-1];
    logic        al_q    [R][N-1];
    logic [31:0] acc_q   [R][N];    // the stationary outputs
    logic [31:0] acc_d   [R][N];    // their next values
    logic [R-1:0] done_row;         // PE(i, N-1) adds row i's last product of the operation this cycle
    logic [31:0] stream_out [N];    // a stream: the row completing this cycle
    logic        compute_done;
    logic        rot_q;             // the weight buffer is rotating (matmul cycles 1 .. R-1)
    logic [CNT_W-1:0] rot_cnt_q;
    logic        rot_en;
    logic        drain_q;
    logic [M_W-1:0] drain_cnt_q;

    // Weight buffer: preload shifts rows in at the bottom; a matmul rotates it once per cycle for R
    // cycles (head = W[k] in cycle k), which leaves it as it was.
    // W is zero until the first preload (isa-semantics.md), hence the reset.
    assign rot_en = (accept & ~cmd_preload_i & ~cmd_stream_i) | rot_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        for (int k = 0; k < R; k++) for (int n = 0; n < N; n++) wbuf_q[k][n] <= '0;
      end else if (wgt_fire && op_transpose) begin
        for (int k = 0; k < R; k++) for (int n = 0; n < N - 1; n++) wbuf_q[k][n] <= wbuf_q[k][n + 1];
        for (int k = 0; k < R; k++) wbuf_q[k][N - 1] <= in_row_i[k][WB-1:0];
      end else if (wgt_fire) begin
        for (int k = 0; k < R - 1; k++) for (int n = 0; n < N; n++) wbuf_q[k][n] <= wbuf_q[k + 1][n];
        for (int n = 0; n < N; n++) wbuf_q[R - 1][n] <= in_row_i[n][WB-1:0];
      end else if (rot_en) begin
        for (int k = 0; k < R - 1; k++) for (int n = 0; n < N; n++) wbuf_q[k][n] <= wbuf_q[k + 1][n];
        for (int n = 0; n < N; n++) wbuf_q[R - 1][n] <= wbuf_q[0][n];
      end
    end
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        rot_q     <= 1'b0;
        rot_cnt_q <= '0;
      end else if (rot_en) begin
        // rotation steps 0 .. R-1; step 0 is the accept cycle
        rot_cnt_q <= rot_q ? rot_cnt_q + CNT_W'(1) : CNT_W'(1);
        rot_q     <= rot_q ? (rot_cnt_q != CNT_W'(R - 1)) : 1'b1;
      end
    end

    // Column skew of the weights: column n waits n cycles.
    for (genvar n = 0; n < N; n++) begin : g_w_skew
      logic [WB-1:0] w_src;  // a stream's weights come straight from the scratchpad
      assign w_src = op_stream ? in_wrow_i[n][WB-1:0] : wbuf_q[0][n];
      if (n == 0) begin : g_direct
        assign w_top[0] = w_src;
      end else begin : g_delay
        logic [WB-1:0] skew_q [n];
        always_ff @(posedge clk_i) begin
          skew_q[0] <= w_src;
          for (int j = 1; j < n; j++) skew_q[j] <= skew_q[j - 1];
        end
        assign w_top[n] = skew_q[n - 1];
      end
    end

    // Left buffers: row i is loaded in the cycle it is presented (element 0 goes straight into
    // PE(i, 0)) and shifts one element per cycle into the array.
    for (genvar i = 0; i < R; i++) begin : g_left
      logic       load;
      logic [AB-1:0] lbuf_q [R-1];
      logic       lv_q   [R-1];
      logic       ll_q   [R-1];
      assign load = act_fire & (in_idx == CNT_W'(i));
      always_ff @(posedge clk_i) begin
        for (int j = 0; j < R - 2; j++) lbuf_q[j] <= load ? in_row_i[j + 1] : lbuf_q[j + 1];
        lbuf_q[R - 2] <= in_row_i[R - 1];  // don't-care unless loaded: lv_q tags validity
      end
      always_ff @(posedge clk_i or negedge rst_ni) begin
        if (!rst_ni) begin
          for (int j = 0; j < R - 1; j++) begin
            lv_q[j] <= 1'b0;
            ll_q[j] <= 1'b0;
          end
        end else begin
          for (int j = 0; j < R - 2; j++) begin
            lv_q[j] <= load | lv_q[j + 1];
            ll_q[j] <= load ? 1'b0 : ll_q[j + 1];
          end
          lv_q[R - 2] <= load;
          ll_q[R - 2] <= load & act_last;
        end
      end
      assign a_in[i][0]  = load ? in_row_i[0] : lbuf_q[0];
      assign av_in[i][0] = load | lv_q[0];
      assign al_in[i][0] = ~load & ll_q[0];
    end

    // The PE grid.
    for (genvar i = 0; i < R; i++) begin : g_row
      for (genvar n = 0; n < N; n++) begin : g_col
        logic        init;
        logic [31:0] base, below;
        if (n > 0) begin : g_a_inner
          assign a_in[i][n]  = a_q[i][n - 1];
          assign av_in[i][n] = av_q[i][n - 1];
          assign al_in[i][n] = al_q[i][n - 1];
        end
        if (i == 0) begin : g_w_edge
          assign w_in[0][n] = w_top[n];
        end else begin : g_w_inner
          assign w_in[i][n] = w_q[i - 1][n];
        end
        if (n < N - 1) begin : g_a_fwd
          always_ff @(posedge clk_i) a_q[i][n] <= a_in[i][n];
          always_ff @(posedge clk_i or negedge rst_ni) begin
            if (!rst_ni) begin
              av_q[i][n] <= 1'b0;
              al_q[i][n] <= 1'b0;
            end else begin
              av_q[i][n] <= av_in[i][n];
              al_q[i][n] <= al_in[i][n];
            end
          end
        end
        if (i < R - 1) begin : g_w_fwd
          always_ff @(posedge clk_i) w_q[i][n] <= w_in[i][n];
        end
        // The accumulator starts from the initial value in the cycle row i is presented (a
        // stream's first slice; later slices add on).
        assign init = act_fire & (in_idx == CNT_W'(i)) & (in_slice == '0);
        assign base = init ? (op_accumulate ? in_acc_i[n] : '0) : acc_q[i][n];
        assign acc_d[i][n] = base + (av_in[i][n] ? pe_product(a_in[i][n], w_in[i][n]) : '0);
        // During the drain the accumulators shift up one row per cycle.
        if (i < R - 1) begin : g_from_below
          assign below = acc_q[i + 1][n];
        end else begin : g_bottom
          assign below = '0;
        end
        always_ff @(posedge clk_i) begin
          if (drain_q) acc_q[i][n] <= below;
          else if (init || av_in[i][n]) acc_q[i][n] <= acc_d[i][n];
        end
      end
      assign done_row[i] = av_in[i][N - 1] & al_in[i][N - 1];
    end
    assign compute_done = (|done_row) & ~stream_q;

    // A stream's row i leaves in the cycle it completes: columns 0..N-2 are final in the PE
    // registers, column N-1 leaves its adder (rows complete one per cycle, so one is selected).
    always_comb begin
      for (int n = 0; n < N; n++) stream_out[n] = '0;
      for (int i = 0; i < R; i++)
        if (done_row[i])
          for (int n = 0; n < N; n++) stream_out[n] = (n == N - 1) ? acc_d[i][n] : acc_q[i][n];
    end
    logic [M_W-1:0] stream_row_q;  // the index of the next row to leave
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) stream_row_q <= '0;
      else if (accept) stream_row_q <= '0;
      else if (stream_q & |done_row) stream_row_q <= stream_row_q + M_W'(1);
    end

    // Drain: m rows leave at the top edge, one per cycle, after the last product.
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        drain_q     <= 1'b0;
        drain_cnt_q <= '0;
      end else if (compute_done) begin
        drain_q     <= 1'b1;
        drain_cnt_q <= '0;
      end else if (drain_q) begin
        drain_q     <= ~out_last_o;
        drain_cnt_q <= drain_cnt_q + M_W'(1);
      end
    end

    for (genvar n = 0; n < N; n++) begin : g_out
      assign out_sum[n] = stream_q ? stream_out[n] : acc_q[0][n];
    end
    assign out_valid_o = stream_q ? (busy & |done_row) : drain_q;
    assign out_last_o  = stream_q ? (busy & |done_row & (stream_row_q == m_q - M_W'(1)))
                                  : drain_q & (drain_cnt_q == m_q - M_W'(1));
    assign out_row_o   = stream_q ? stream_row_q : drain_cnt_q;
  end

  // ---------------------------------------------------------------------------------------------
  // Protocol assertions.
  // ---------------------------------------------------------------------------------------------
`ifndef SYNTHESIS
  // Rows arrive exactly in the cycles the operation expects them.
  assert property (@(posedge clk_i) disable iff (!rst_ni) in_valid_i == in_expected)
    else $error("in_valid_i must be high exactly from the accept cycle for the operation's rows");
  // matmul_tile needs 1 <= m (<= ARRAY_ROWS when output-stationary).
  assert property (@(posedge clk_i) disable iff (!rst_ni)
                   (accept & ~cmd_preload_i) |-> (cmd_m_i != '0 && int'(cmd_m_i) <= M_MAX))
    else $error("matmul_tile m = %0d out of range [1, %0d]", cmd_m_i, M_MAX);
  // matmul_stream: output-stationary only, never with a preload, over k_slices >= 1.
  assert property (@(posedge clk_i) disable iff (!rst_ni)
                   (accept & cmd_stream_i) |-> (OS && !cmd_preload_i && cmd_k_slices_i != '0))
    else $error("matmul_stream needs the output-stationary dataflow, no preload and k_slices >= 1 (got %0d)", cmd_k_slices_i);
  // depthwise_tile: only with the mode, never with a preload or a stream, and within its limits.
  assert property (@(posedge clk_i) disable iff (!rst_ni)
                   (accept & cmd_depthwise_i) |->
                   (DW && !cmd_preload_i && !cmd_stream_i && cmd_kh_i != '0 && cmd_kw_i != '0 &&
                    cmd_stride_i != '0 && int'(cmd_kh_i) * int'(cmd_kw_i) <= R &&
                    (int'(cmd_kh_i) - 1) * int'(cmd_pitch_i) + int'(cmd_kw_i) <= LB))
    else $error("depthwise_tile kh=%0d kw=%0d pitch=%0d stride=%0d: needs the weight-stationary line buffer (%0d rows), no preload or stream, kh, kw, stride >= 1, kh*kw <= %0d and (kh-1)*pitch + kw <= the line buffer",
                cmd_kh_i, cmd_kw_i, cmd_pitch_i, cmd_stride_i, LB, R);
  // Outputs only belong to a running matmul, in order, and the last one is row m - 1.
  assert property (@(posedge clk_i) disable iff (!rst_ni) out_valid_o |-> (busy & ~preload_q))
    else $error("output row outside a matmul_tile");
  // (m_q is the draining operation's while it is the only one in flight.)
  assert property (@(posedge clk_i) disable iff (!rst_ni)
                   (out_valid_o && ops_q == OPS_W'(1)) |-> (out_last_o == (out_row_o == m_q - M_W'(1))))
    else $error("out_last_o must mark exactly row m - 1");
  // A command-channel preload finds the array idle (no rows of a set in flight, no other preload).
  assert property (@(posedge clk_i) disable iff (!rst_ni) (accept & cmd_preload_i) |-> (idle_o & ~wcmd_valid_i))
    else $error("weight_preload on the command channel while the array is busy");
  // The weight channel and the late accumulate: weight-stationary only; its rows come exactly
  // from the accept cycle.
  assert property (@(posedge clk_i) disable iff (!rst_ni) (wcmd_valid_i | win_valid_i) |-> !OS)
    else $error("the output-stationary array has no weight channel");
  assert property (@(posedge clk_i) disable iff (!rst_ni) !OS |-> (win_valid_i == (wcmd_valid_i & wcmd_ready_o | w_busy)))
    else $error("win_valid_i must be high exactly for the weight channel's rows");
  assert property (@(posedge clk_i) disable iff (!rst_ni) (accept & cmd_acc_at_out_i) |-> (!OS && !cmd_preload_i))
    else $error("cmd_acc_at_out_i: weight-stationary matmul or depthwise only");
  // A matmul's outputs only start after all its input rows went in (no overlap of phases in OS).
  assert property (@(posedge clk_i) disable iff (!rst_ni) (OS && out_valid_o) |-> !in_phase_q)
    else $error("output-stationary drain overlaps the input phase");
`endif

  // The accumulator keeps ACCUMULATOR_BITS of each lane the array writes (the YAML's
  // types.accumulator): a narrower accumulator saturates the 32-bit sum, int32 keeps it as it is
  // (isa::arith::storeAccumulator). The partial sums inside the array stay 32-bit.
  localparam logic signed [31:0] ACC_HI = 32'((64'(1) << (ACCUMULATOR_BITS - 1)) - 64'(1));
  localparam logic signed [31:0] ACC_LO = ~ACC_HI;
  function automatic logic [31:0] acc_store(logic [31:0] v);
    acc_store = $signed(v) > ACC_HI ? ACC_HI : $signed(v) < ACC_LO ? ACC_LO : v;
  endfunction
  for (genvar n = 0; n < N; n++) begin : g_acc_store
    assign out_data_o[n] = acc_store(out_sum[n] + (out_acc_at_out ? out_acc_i[n] : 32'd0));
  end

endmodule
