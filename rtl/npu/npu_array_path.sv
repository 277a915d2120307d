// The compute unit's array data path: weight_preload, weight_preload_t, matmul_tile,
// depthwise_tile (weight-stationary with a line buffer) and matmul_stream (output-stationary) on
// the systolic array (systolic_array.sv), reading the scratchpad and the accumulator and writing
// the accumulator.
//
// Timing: the control (npu_compute_unit) starts an instruction in cycle t0 and gives it the YAML's
// cycles C. This path reads the instruction's input rows in t0, t0 + 1, ... (the memories' read
// takes a cycle) and presents them to the array from t0 + 1 with its command, so the whole
// operation runs one cycle behind the control: its last output row is written in t0 + C, the
// cycle the control completes it. The memories are write-first, so an instruction or a store
// that starts in that cycle reads the row being written.
//
// Overlap (a config whose array instructions overlap: `timing.issue`, `array.weight_buffers: 2`):
// a weight-stationary array takes the next matmul or depthwise_tile once the rows of the last are
// in, and a preload on its weight channel while matmuls run (this path reads its rows on the
// scratchpad's weight port). An output then takes its initial accumulator row when it leaves the
// array (cmd_acc_at_out_i: read the cycle before, when out_soon_o says it comes), not when its
// rows enter: a matmul accumulating into the rows of the one before it, which has not written
// them yet, adds to what that one wrote. Each operation's accumulator row and accumulate flag wait
// in a queue until its outputs leave. The output-stationary array runs one operation at a time and
// takes its initial rows with its input rows.
//
// What it computes: every array class but matmul_stream with k_slices = 0; matmul_tile,
// matmul_stream and depthwise_tile with m = 0 do nothing, as in the simulator. A start this path
// cannot take (its reader still busy: a timing the YAML gives that the array cannot keep) or a
// command the array refuses (overrun_o) is not computed: npu_top counts it and the NPU's outputs
// are then not compared.
//
// Rows: weight_preload reads ARRAY_ROWS scratchpad rows from spad_row, weight_preload_t ARRAY_COLS
// (the array shifts them in as columns); matmul_tile reads m scratchpad rows from a_row;
// depthwise_tile its stride*(m-1) + (kh-1)*pitch + kw window rows from a_row; matmul_stream reads,
// in cycle s * ARRAY_ROWS + j of slice s, weight row w_row + s * ARRAY_ROWS + j (on the weight
// port) and, for j < m, activation row a_row + s * a_stride + j and (slice 0, accumulate)
// accumulator row acc_row + j. Output row i goes to acc_row + i (the array's values, already what
// the accumulator keeps, in its ACCUMULATOR_BITS lanes).
module npu_array_path
  import systole_pkg::*;
#(
  localparam int SPAD_BITS = 8 * SCRATCHPAD_ROW_BYTES,
  localparam int ACC_BITS = 8 * ACCUMULATOR_SRAM_ROW_BYTES,
  localparam int AB = ACTIVATION_BITS
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic                  start_i,  // the compute unit starts its head (head_instr_i)
  input  logic [31:0]           head_index_i,
  output logic                  handles_o,  // this start is computed here (or does nothing)
  /* verilator lint_off UNUSEDSIGNAL */  // the decoded word's other parts
  input  instr_t                head_instr_i,
  /* verilator lint_on UNUSEDSIGNAL */
  output logic                  spad_rd_o,
  output logic [31:0]           spad_row_o,
  input  logic [SPAD_BITS-1:0]  spad_data_i,
  output logic                  weight_rd_o,  // matmul_stream's weight rows, weight-channel preloads
  output logic [31:0]           weight_row_o,
  input  logic [SPAD_BITS-1:0]  weight_data_i,
  output logic                  acc_rd_o,
  output logic [31:0]           acc_row_o,
  input  logic [ACC_BITS-1:0]   acc_data_i,
  output logic                  acc_wr_o,
  output logic [31:0]           acc_wr_row_o,
  output logic [ACC_BITS-1:0]   acc_wr_data_o,
  output logic                  overrun_o,  // a command the array could not take: not computed after all
  output logic [31:0]           overrun_index_o
);
  localparam int R = ARRAY_ROWS;
  localparam int N = ARRAY_COLS;
  localparam int SL = SPAD_BITS / AB;
  localparam int ACC_LANE = ACCUMULATOR_BITS;
  localparam bit OS = DATAFLOW_OUTPUT_STATIONARY != 0;
  localparam int LB = ARRAY_LINE_BUFFER_ROWS;
  localparam int M_W = $clog2((OS ? R : ACCUMULATOR_ROWS) + 1);
  localparam int KS_W = $clog2(SCRATCHPAD_ROWS / R + 1);
  localparam int KH_W = $clog2(R + 1);
  localparam int PS_W = LB > 0 ? $clog2(LB + 1) : 1;
  localparam longint RL = 64'(R);
  // Operations whose outputs have not all left (see systolic_array's OPS_W), rounded up.
  localparam int QD = 2 ** $clog2(R + N + 4);

  wire [4:0] s = head_instr_i.semantics;
  wire [7:0][63:0] op = head_instr_i.operands;
  wire transposed = int'(s) == SEM_WEIGHT_PRELOAD_T;
  wire preload = int'(s) == SEM_WEIGHT_PRELOAD || transposed;
  wire matmul = int'(s) == SEM_MATMUL_TILE;
  wire stream = int'(s) == SEM_MATMUL_STREAM && OS;
  wire depthwise = int'(s) == SEM_DEPTHWISE_TILE && !OS && LB > 0;
  wire [63:0] m = stream ? op[4] : op[2];
  // depthwise_tile: a_row, acc_row, m, accumulate, kh, kw, pitch, stride; the window it reads.
  wire [63:0] window = op[7] * (m - 1) + (op[4] - 1) * op[6] + op[5];
  wire dw_legal = op[4] != 0 && op[5] != 0 && op[7] != 0 && op[4] * op[5] <= RL && op[7] < 64'(2 ** PS_W) &&
                  (op[4] - 1) * op[6] + op[5] <= 64'(LB);
  wire product = (matmul || depthwise || stream) && m != 0;
  wire operates_main = (preload && OS) || (matmul && m != 0) || (stream && m != 0 && op[5] != 0) ||
                       (depthwise && m != 0 && dw_legal);
  wire operates_weight = preload && !OS;  // the weight channel

  // ---------------------------------------------------------------------------------------------
  // The command channel's reader: the operation whose rows are being read, and its read cycle j.
  // ---------------------------------------------------------------------------------------------
  logic active_q, accumulate_q, stream_q;
  logic [63:0] src_q, acc_q, count_q, j_q;
  // A stream's: the slice's first activation row, the row stride between slices, the row in the
  // slice, the slice, the weight row, m.
  logic [63:0] a_base_q, a_stride_q, jj_q, slice_q, w_q, m_q;
  wire takes = start_i && operates_main && !active_q;
  wire reading = takes || active_q;
  wire [63:0] j = takes ? 64'd0 : j_q;
  wire [63:0] src = takes ? op[0] : src_q;
  wire [63:0] acc = takes ? (stream ? op[3] : op[1]) : acc_q;
  wire accumulate = takes ? ((matmul || depthwise) && op[3] != 0) || (stream && op[6] != 0) : accumulate_q;
  wire [63:0] count = takes ? (stream ? op[5] * RL : depthwise ? window : transposed ? 64'(N) : preload ? RL : m)
                            : count_q;
  wire streaming = takes ? stream : stream_q;
  wire [63:0] jj = takes ? 64'd0 : jj_q;
  wire [63:0] slice = takes ? 64'd0 : slice_q;
  wire [63:0] a_base = takes ? op[0] : a_base_q;
  wire [63:0] w_row = takes ? op[2] : w_q;
  wire [63:0] stream_m = takes ? m : m_q;

  assign spad_rd_o = reading && (!streaming || jj < stream_m);
  assign spad_row_o = streaming ? 32'(a_base + jj) : 32'(src + j);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      {active_q, accumulate_q, stream_q, src_q, acc_q, count_q, j_q} <= '0;
      {a_base_q, a_stride_q, jj_q, slice_q, w_q, m_q} <= '0;
    end else begin
      if (takes) begin
        {src_q, acc_q, accumulate_q, count_q, stream_q} <= {src, acc, accumulate, count, stream};
        a_stride_q <= op[1];
        m_q <= m;
      end
      if (reading) begin
        j_q <= j + 1;
        active_q <= j + 1 < count;
        // A stream's next row: the next in the slice, or the first of the next slice.
        jj_q <= jj + 1 == RL ? 64'd0 : jj + 1;
        slice_q <= jj + 1 == RL ? slice + 1 : slice;
        a_base_q <= jj + 1 == RL ? a_base + (takes ? op[1] : a_stride_q) : a_base;
        w_q <= w_row;
      end
    end
  end

  // ---------------------------------------------------------------------------------------------
  // The weight channel's reader (weight-stationary): a preload's rows on the weight port.
  // ---------------------------------------------------------------------------------------------
  logic w_active_q, w_transpose_q;
  logic [63:0] w_src_q, w_j_q, w_count_q;
  wire w_takes = start_i && operates_weight && !w_active_q;
  wire w_reading = w_takes || w_active_q;
  wire [63:0] w_j = w_takes ? 64'd0 : w_j_q;
  wire [63:0] w_src = w_takes ? op[0] : w_src_q;
  wire [63:0] w_count = w_takes ? (transposed ? 64'(N) : RL) : w_count_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) {w_active_q, w_transpose_q, w_src_q, w_j_q, w_count_q} <= '0;
    else begin
      if (w_takes) {w_src_q, w_count_q, w_transpose_q} <= {w_src, w_count, transposed};
      if (w_reading) begin
        w_j_q <= w_j + 1;
        w_active_q <= w_j + 1 < w_count;
      end
    end
  end
  assign weight_rd_o = w_reading || (reading && streaming);
  assign weight_row_o = w_reading ? 32'(w_src + w_j) : 32'(w_row + j);

  assign handles_o = takes || w_takes || (start_i && (matmul || stream || depthwise) && m == 0);

  // ---------------------------------------------------------------------------------------------
  // The rows read last cycle reach the array now; the first with its command.
  // ---------------------------------------------------------------------------------------------
  logic present_q, first_q, cmd_preload_q, cmd_transpose_q, cmd_accumulate_q, cmd_stream_q, cmd_dw_q;
  logic w_present_q, w_first_q;
  logic [KS_W-1:0] cmd_k_slices_q;
  logic [M_W-1:0] cmd_m_q;
  logic [KH_W-1:0] cmd_kh_q, cmd_kw_q;
  logic [PS_W-1:0] cmd_pitch_q, cmd_stride_q;
  logic [31:0] cmd_index_q, w_index_q;  // the instructions whose commands are presented
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      {present_q, first_q, cmd_preload_q, cmd_transpose_q, cmd_accumulate_q, cmd_stream_q, cmd_dw_q} <= '0;
      {w_present_q, w_first_q, cmd_k_slices_q, cmd_m_q, cmd_kh_q, cmd_kw_q, cmd_pitch_q, cmd_stride_q} <= '0;
      {cmd_index_q, w_index_q} <= '0;
    end else begin
      present_q <= reading;
      first_q <= takes;
      w_present_q <= w_reading;
      w_first_q <= w_takes;
      if (w_takes) w_index_q <= head_index_i;
      if (takes) begin
        cmd_index_q <= head_index_i;
        cmd_preload_q <= preload;
        cmd_transpose_q <= transposed;
        cmd_accumulate_q <= accumulate;
        cmd_m_q <= M_W'(m);
        cmd_stream_q <= stream;
        cmd_dw_q <= depthwise;
        cmd_k_slices_q <= KS_W'(op[5]);
        cmd_kh_q <= KH_W'(op[4]);
        cmd_kw_q <= KH_W'(op[5]);
        cmd_pitch_q <= PS_W'(op[6]);
        cmd_stride_q <= PS_W'(op[7]);
      end
    end
  end

  // Each operation's first output accumulator row and accumulate flag, until its outputs leave.
  logic [QD-1:0][31:0] q_row;
  logic [QD-1:0] q_accumulate;
  logic [$clog2(QD)-1:0] q_head, q_tail;
  always_ff @(posedge clk_i) begin
    if (takes && product) begin
      q_row[q_tail] <= 32'(acc);
      q_accumulate[q_tail] <= accumulate;
    end
  end

  logic array_ready, w_ready, out_valid, out_last, out_soon, out_soon_last;
  logic [M_W-1:0] out_row;
  logic [N-1:0][31:0] out_data, acc_lanes;
  always_comb
    for (int n = 0; n < N; n++) acc_lanes[n] = 32'($signed(acc_data_i[n * ACC_LANE +: ACC_LANE]));
  /* verilator lint_off UNUSEDSIGNAL */  // the remaining lanes of a weight port row; idle
  logic [SL-1:0][AB-1:0] weight_lanes;
  logic idle;
  /* verilator lint_on UNUSEDSIGNAL */
  assign weight_lanes = weight_data_i;
  systolic_array u_array (
    .clk_i, .rst_ni, .cmd_valid_i(present_q && first_q), .cmd_ready_o(array_ready), .cmd_preload_i(cmd_preload_q),
    .cmd_transpose_i(cmd_transpose_q), .cmd_m_i(cmd_m_q), .cmd_accumulate_i(OS && cmd_accumulate_q),
    .cmd_stream_i(cmd_stream_q), .cmd_k_slices_i(cmd_k_slices_q), .cmd_depthwise_i(cmd_dw_q), .cmd_kh_i(cmd_kh_q),
    .cmd_kw_i(cmd_kw_q), .cmd_pitch_i(cmd_pitch_q), .cmd_stride_i(cmd_stride_q), .in_valid_i(present_q),
    .in_row_i(spad_data_i), .in_wrow_i(weight_lanes[N-1:0]), .in_acc_i(acc_lanes),
    .cmd_acc_at_out_i(!OS && cmd_accumulate_q), .wcmd_valid_i(w_present_q && w_first_q), .wcmd_ready_o(w_ready),
    .wcmd_transpose_i(w_transpose_q), .win_valid_i(w_present_q), .win_row_i(weight_lanes), .idle_o(idle),
    .out_soon_o(out_soon), .out_soon_last_o(out_soon_last), .out_acc_i(acc_lanes), .out_valid_o(out_valid),
    .out_last_o(out_last), .out_row_o(out_row), .out_data_o(out_data));

  // The accumulator rows: output-stationary, with the input rows (acc_row + j, slice 0 of a
  // stream); weight-stationary, the cycle before the output leaves (the queue's head, counted in
  // soon_row_q), kept for its write in out_row_q.
  logic [31:0] soon_row_q, out_row_q;
  wire [31:0] soon_row = q_row[q_head] + soon_row_q;
  assign acc_rd_o = OS ? reading && accumulate && (!streaming || (slice == 0 && jj < stream_m))
                       : out_soon && q_accumulate[q_head];
  assign acc_row_o = OS ? 32'(acc + j) : soon_row;
  wire leaves = OS ? out_valid && out_last : out_soon && out_soon_last;  // the head's last output
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) {q_head, q_tail, soon_row_q, out_row_q} <= '0;
    else begin
      if (takes && product) q_tail <= q_tail + 1'b1;
      if (leaves) q_head <= q_head + 1'b1;
      if (out_soon) begin
        out_row_q <= soon_row;
        soon_row_q <= out_soon_last ? '0 : soon_row_q + 1;
      end
    end
  end

  // A command the array cannot take (it is still busy): that operation is not computed.
  logic overrun_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) {overrun_q, overrun_index_o} <= '0;
    else begin
      overrun_q <= (present_q && first_q && !array_ready) || (w_present_q && w_first_q && !w_ready);
      overrun_index_o <= present_q && first_q && !array_ready ? cmd_index_q : w_index_q;
    end
  end
  assign overrun_o = overrun_q;
`ifndef SYNTHESIS
  // The queue holds every operation whose outputs have not all left (QD of them at most).
  assert property (@(posedge clk_i) disable iff (!rst_ni) (takes && product) |-> (q_tail + 1'b1 != q_head))
    else $error("npu_array_path: more operations in flight than the output queue holds");
`endif

  assign acc_wr_o = out_valid;
  assign acc_wr_row_o = OS ? q_row[q_head] + 32'(out_row) : out_row_q;
  always_comb
    for (int n = 0; n < N; n++) acc_wr_data_o[n * ACC_LANE +: ACC_LANE] = ACC_LANE'(out_data[n]);
endmodule
