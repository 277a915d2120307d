// The compute unit's array data path: weight_preload, weight_preload_t, matmul_tile and (output-
// stationary) matmul_stream on the systolic array
// (systolic_array.sv), reading the scratchpad and the accumulator and writing the accumulator.
//
// Timing: the control (npu_compute_unit) starts an instruction in cycle t0 and gives it the YAML's
// cycles C. This path reads the instruction's input rows in t0, t0 + 1, ... (the memories' read
// takes a cycle) and presents them to the array from t0 + 1 with its command, so the whole
// operation runs one cycle behind the control: its last output row is written in t0 + C, the
// cycle the control completes it. The memories are write-first, so an instruction or a store
// that starts in that cycle reads the row being written.
//
// What it computes: an instruction started while the array is still busy with an earlier one (a
// config whose array instructions overlap: `timing.issue`, the shadow weight set of
// `array.weight_buffers: 2`) is not computed (nor given to the array), and neither is any other
// array class (depthwise_tile; matmul_stream with k_slices = 0): npu_top counts every start no
// path handles, and the NPU's outputs are then not compared. matmul_tile with m = 0 does nothing,
// as in the simulator.
//
// Rows: weight_preload reads ARRAY_ROWS scratchpad rows from spad_row, weight_preload_t ARRAY_COLS
// (the array shifts them in as columns); matmul_stream reads, in cycle s * ARRAY_ROWS + j of
// slice s, weight row w_row + s * ARRAY_ROWS + j (on a read port of its own: weight_rd_o) and, for
// j < m, activation row a_row + s * a_stride + j and (slice 0, accumulate) accumulator row
// acc_row + j; matmul_tile reads m
// scratchpad rows from a_row and, with accumulate, m accumulator rows from acc_row (sign-extended
// to the array's int32 lanes), and writes output row i to acc_row + i (the array's values, already
// what the accumulator keeps, in its ACCUMULATOR_BITS lanes).
module npu_array_path
  import systole_pkg::*;
#(
  localparam int SPAD_BITS = 8 * SCRATCHPAD_ROW_BYTES,
  localparam int ACC_BITS = 8 * ACCUMULATOR_SRAM_ROW_BYTES,
  localparam int AB = ACTIVATION_BITS,
  // The array is built only where its instructions can run one at a time: with one weight set.
  // With two (`default`, `large`) a preload overlaps the matmuls (the shadow set the block does
  // not have), and a Verilated 16 x 16 array evaluated every cycle would slow the NPU 9x for nothing.
  localparam bit BUILT = ARRAY_WEIGHT_BUFFERS == 1
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
  output logic                  weight_rd_o,  // matmul_stream's weight rows
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
  localparam int N = ARRAY_COLS;
  localparam int ACC_LANE = ACCUMULATOR_BITS;
  localparam int M_W = $clog2(((DATAFLOW_OUTPUT_STATIONARY != 0) ? ARRAY_ROWS : ACCUMULATOR_ROWS) + 1);
  localparam int KS_W = $clog2(SCRATCHPAD_ROWS / ARRAY_ROWS + 1);
  localparam longint R = 64'(ARRAY_ROWS);

  wire [4:0] s = head_instr_i.semantics;
  wire transposed = int'(s) == SEM_WEIGHT_PRELOAD_T;
  wire preload = int'(s) == SEM_WEIGHT_PRELOAD || transposed;
  wire matmul = int'(s) == SEM_MATMUL_TILE;
  wire stream = int'(s) == SEM_MATMUL_STREAM && DATAFLOW_OUTPUT_STATIONARY != 0;
  wire [63:0] m = stream ? head_instr_i.operands[4] : head_instr_i.operands[2];
  wire [63:0] k_slices = head_instr_i.operands[5];

  // The operation whose rows are being read, and its read cycle j.
  logic active_q, accumulate_q;
  logic [63:0] src_q, acc_q, count_q, j_q;
  // A stream's: the slice's first activation row, the row stride between slices, the row in the
  // slice, the slice, the weight row.
  logic stream_q;
  logic [63:0] a_base_q, a_stride_q, jj_q, slice_q, w_q, m_q;
  logic array_ready;
  // The path takes a start once the array will accept its command in the next cycle: the array
  // keeps an operation C cycles (the YAML's, as its check proves), counted down in array_left_q.
  logic [63:0] array_left_q;
  wire operates = preload || (matmul && m != 0) || (stream && m != 0 && k_slices != 0);
  wire takes = BUILT && start_i && array_left_q == 0 && operates;
  assign handles_o = takes || (start_i && (matmul || stream) && m == 0);  // m = 0: nothing to do
  wire reading = takes || active_q;
  wire [63:0] j = takes ? 64'd0 : j_q;
  wire [63:0] src = takes ? head_instr_i.operands[0] : src_q;
  wire [63:0] acc = takes ? (stream ? head_instr_i.operands[3] : head_instr_i.operands[1]) : acc_q;
  wire accumulate = takes ? (matmul && head_instr_i.operands[3] != 0) || (stream && head_instr_i.operands[6] != 0)
                          : accumulate_q;
  wire [63:0] count = takes ? (stream ? k_slices * R : transposed ? 64'(ARRAY_COLS) : preload ? 64'(ARRAY_ROWS) : m)
                            : count_q;
  wire streaming = takes ? stream : stream_q;
  wire [63:0] jj = takes ? 64'd0 : jj_q;
  wire [63:0] slice = takes ? 64'd0 : slice_q;
  wire [63:0] a_base = takes ? head_instr_i.operands[0] : a_base_q;
  wire [63:0] w_row = takes ? head_instr_i.operands[2] : w_q;
  wire [63:0] stream_m = takes ? m : m_q;

  assign spad_rd_o = reading && (!streaming || jj < stream_m);
  assign spad_row_o = streaming ? 32'(a_base + jj) : 32'(src + j);
  assign weight_rd_o = reading && streaming;
  assign weight_row_o = 32'(w_row + j);
  assign acc_rd_o = reading && accumulate && (!streaming || (slice == 0 && jj < stream_m));
  assign acc_row_o = 32'(acc + j);

  // The rows read last cycle reach the array now; the first with its command.
  logic present_q, first_q, cmd_preload_q, cmd_transpose_q, cmd_accumulate_q, cmd_stream_q;
  logic [KS_W-1:0] cmd_k_slices_q;
  logic [M_W-1:0] cmd_m_q;
  logic [63:0] out_acc_q, next_out_acc_q;
  logic overrun_q;
  logic [31:0] cmd_index_q;  // the instruction whose command is presented
  assign overrun_o = overrun_q;
  assign overrun_index_o = cmd_index_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      {active_q, accumulate_q, present_q, first_q, cmd_preload_q, cmd_transpose_q, cmd_accumulate_q, cmd_stream_q} <= '0;
      {stream_q, a_base_q, a_stride_q, jj_q, slice_q, w_q, m_q, cmd_k_slices_q} <= '0;
      {src_q, acc_q, count_q, j_q, next_out_acc_q, array_left_q} <= '0;
      cmd_index_q <= '0;
      cmd_m_q <= '0;
    end else begin
      present_q <= reading;
      first_q <= takes;
      if (takes) cmd_index_q <= head_index_i;
      if (takes) array_left_q <= head_instr_i.cycles - 1;  // 0 again in t0 + C
      else if (array_left_q != 0) array_left_q <= array_left_q - 1;
      if (takes) begin
        src_q <= src;
        acc_q <= acc;
        accumulate_q <= accumulate;
        count_q <= count;
        cmd_preload_q <= preload;
        cmd_transpose_q <= transposed;
        cmd_accumulate_q <= accumulate;
        cmd_m_q <= M_W'(stream ? m : count);
        cmd_stream_q <= stream;
        cmd_k_slices_q <= KS_W'(k_slices);
        stream_q <= stream;
        a_stride_q <= head_instr_i.operands[1];
        m_q <= m;
        if (matmul || stream) next_out_acc_q <= acc;
      end
      if (reading) begin
        j_q <= j + 1;
        active_q <= j + 1 < count;
        // A stream's next row: the next in the slice, or the first of the next slice.
        jj_q <= jj + 1 == R ? 64'd0 : jj + 1;
        slice_q <= jj + 1 == R ? slice + 1 : slice;
        a_base_q <= jj + 1 == R ? a_base + (takes ? head_instr_i.operands[1] : a_stride_q) : a_base;
        w_q <= w_row;
      end
    end
  end

  logic out_valid, out_last;
  logic [M_W-1:0] out_row;
  logic [N-1:0][31:0] out_data, in_acc;
  always_comb
    for (int n = 0; n < N; n++) in_acc[n] = 32'($signed(acc_data_i[n * ACC_LANE +: ACC_LANE]));
  if (BUILT) begin : g_array
    systolic_array u_array (
      .clk_i, .rst_ni, .cmd_valid_i(present_q && first_q), .cmd_ready_o(array_ready), .cmd_preload_i(cmd_preload_q),
      .cmd_transpose_i(cmd_transpose_q),
      .cmd_m_i(cmd_m_q), .cmd_accumulate_i(cmd_accumulate_q), .cmd_stream_i(cmd_stream_q), .cmd_k_slices_i(cmd_k_slices_q),
      .cmd_depthwise_i(1'b0), .cmd_kh_i('0), .cmd_kw_i('0), .cmd_pitch_i('0), .cmd_stride_i('0),
      .in_valid_i(present_q), .in_row_i(spad_data_i), .in_wrow_i(weight_data_i[N * AB - 1:0]), .in_acc_i(in_acc),
      .out_valid_o(out_valid), .out_last_o(out_last), .out_row_o(out_row), .out_data_o(out_data));
  end else begin : g_no_array
    assign {array_ready, out_valid, out_last, out_row, out_data} = '0;
    /* verilator lint_off UNUSEDSIGNAL */  // what the array would take
    wire unused = ^{spad_data_i, weight_data_i, cmd_accumulate_q, cmd_transpose_q, cmd_stream_q, cmd_k_slices_q, cmd_m_q,
                    in_acc};
    /* verilator lint_on UNUSEDSIGNAL */
  end

  // A command the array cannot take (it is still busy): that operation is not computed.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) {overrun_q, out_acc_q} <= '0;
    else begin
      overrun_q <= present_q && first_q && !array_ready;
      if (present_q && first_q && !cmd_preload_q) out_acc_q <= next_out_acc_q;
    end
  end

  assign acc_wr_o = out_valid;
  assign acc_wr_row_o = 32'(out_acc_q + 64'(out_row));
  always_comb
    for (int n = 0; n < N; n++) acc_wr_data_o[n * ACC_LANE +: ACC_LANE] = ACC_LANE'(out_data[n]);
  /* verilator lint_off UNUSEDSIGNAL */
  wire unused_last = out_last;
  /* verilator lint_on UNUSEDSIGNAL */
endmodule
