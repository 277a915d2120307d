// The compute unit's array data path: weight_preload, weight_preload_t and matmul_tile on the systolic array
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
// array class (matmul_stream, depthwise_tile): npu_top counts every start no
// path handles, and the NPU's outputs are then not compared. matmul_tile with m = 0 does nothing,
// as in the simulator.
//
// Rows: weight_preload reads ARRAY_ROWS scratchpad rows from spad_row, weight_preload_t ARRAY_COLS
// (the array shifts them in as columns); matmul_tile reads m
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

  wire [4:0] s = head_instr_i.semantics;
  wire transposed = int'(s) == SEM_WEIGHT_PRELOAD_T;
  wire preload = int'(s) == SEM_WEIGHT_PRELOAD || transposed;
  wire matmul = int'(s) == SEM_MATMUL_TILE;
  wire [63:0] m = head_instr_i.operands[2];

  // The operation whose rows are being read, and its read cycle j.
  logic active_q, accumulate_q;
  logic [63:0] src_q, acc_q, count_q, j_q;
  logic array_ready;
  // The path takes a start once the array will accept its command in the next cycle: the array
  // keeps an operation C cycles (the YAML's, as its check proves), counted down in array_left_q.
  logic [63:0] array_left_q;
  wire operates = preload || (matmul && m != 0);  // matmul_tile with m = 0 does nothing
  wire takes = BUILT && start_i && array_left_q == 0 && operates;
  assign handles_o = takes || (start_i && matmul && m == 0);
  wire reading = takes || active_q;
  wire [63:0] j = takes ? 64'd0 : j_q;
  wire [63:0] src = takes ? head_instr_i.operands[0] : src_q;
  wire [63:0] acc = takes ? head_instr_i.operands[1] : acc_q;
  wire accumulate = takes ? matmul && head_instr_i.operands[3] != 0 : accumulate_q;
  wire [63:0] count = takes ? (transposed ? 64'(ARRAY_COLS) : preload ? 64'(ARRAY_ROWS) : m) : count_q;

  assign spad_rd_o = reading;
  assign spad_row_o = 32'(src + j);
  assign acc_rd_o = reading && accumulate;
  assign acc_row_o = 32'(acc + j);

  // The rows read last cycle reach the array now; the first with its command.
  logic present_q, first_q, cmd_preload_q, cmd_transpose_q, cmd_accumulate_q;
  logic [M_W-1:0] cmd_m_q;
  logic [63:0] out_acc_q, next_out_acc_q;
  logic overrun_q;
  logic [31:0] cmd_index_q;  // the instruction whose command is presented
  assign overrun_o = overrun_q;
  assign overrun_index_o = cmd_index_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      {active_q, accumulate_q, present_q, first_q, cmd_preload_q, cmd_transpose_q, cmd_accumulate_q} <= '0;
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
        cmd_m_q <= M_W'(count);
        if (matmul) next_out_acc_q <= acc;
      end
      if (reading) begin
        j_q <= j + 1;
        active_q <= j + 1 < count;
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
      .cmd_m_i(cmd_m_q), .cmd_accumulate_i(cmd_accumulate_q), .cmd_stream_i(1'b0), .cmd_k_slices_i('0),
      .cmd_depthwise_i(1'b0), .cmd_kh_i('0), .cmd_kw_i('0), .cmd_pitch_i('0), .cmd_stride_i('0),
      .in_valid_i(present_q), .in_row_i(spad_data_i), .in_wrow_i(spad_data_i[N * AB - 1:0]), .in_acc_i(in_acc),
      .out_valid_o(out_valid), .out_last_o(out_last), .out_row_o(out_row), .out_data_o(out_data));
  end else begin : g_no_array
    assign {array_ready, out_valid, out_last, out_row, out_data} = '0;
    /* verilator lint_off UNUSEDSIGNAL */  // what the array would take
    wire unused = ^{spad_data_i, cmd_accumulate_q, cmd_transpose_q, cmd_m_q, in_acc};
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
