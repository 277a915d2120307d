// The compute unit's vector data path, for requantize (the other vector classes have none yet):
// accumulator rows through requant_lane.sv into scratchpad rows.
//
// Timing, as on the array path (npu_array_path.sv): the control starts the instruction in t0 with
// the YAML's C = vector.latency + rows; this path reads row i and the two scale rows (the
// multipliers, the shifts) in t0 + i on three read ports of the accumulator, presents them to the
// lanes in t0 + 1 + i, and writes the scratchpad row dst + i when the lanes deliver it,
// VECTOR_LATENCY cycles later: the last row in t0 + C, the cycle the control completes it.
//
// Output row: lane j is requant_lane's result for accumulator lane j (j < the accumulator's lanes),
// the scratchpad row's other lanes 0. The path takes a requantize once the previous one's last row
// is written (its C counted down); a requantize that starts earlier (overlapping vector work) is not
// taken, and counts as not computed. One with rows = 0 does nothing.
module npu_vector_path
  import systole_pkg::*;
#(
  localparam int SPAD_BITS = 8 * SCRATCHPAD_ROW_BYTES,
  localparam int ACC_BITS = 8 * ACCUMULATOR_SRAM_ROW_BYTES
) (
  input  logic                        clk_i,
  input  logic                        rst_ni,
  input  logic                        start_i,  // the compute unit starts its head (head_instr_i)
  /* verilator lint_off UNUSEDSIGNAL */  // the decoded word's other parts
  input  instr_t                      head_instr_i,
  /* verilator lint_on UNUSEDSIGNAL */
  output logic                        handles_o,  // this start is computed here (or does nothing)
  // The accumulator: three read ports (the row, the multipliers, the shifts).
  output logic [2:0]                  acc_rd_o,
  output logic [2:0][31:0]            acc_row_o,
  input  logic [2:0][ACC_BITS-1:0]    acc_data_i,
  output logic                        spad_wr_o,
  output logic [31:0]                 spad_wr_row_o,
  output logic [SPAD_BITS-1:0]        spad_wr_data_o
);
  localparam int AB = ACTIVATION_BITS;
  localparam int LANES = ACCUMULATOR_ROW_BYTES / 4;  // the accumulator's lanes
  localparam int ACC_LANE = ACCUMULATOR_BITS;

  wire requantize = int'(head_instr_i.semantics) == SEM_REQUANTIZE;
  wire [63:0] rows = head_instr_i.operands[2];

  logic [63:0] left_q;  // cycles until the last row of the operation under way is written
  wire takes = start_i && requantize && rows != 0 && left_q == 0;
  assign handles_o = takes || (start_i && requantize && rows == 0);

  // The rows being read.
  logic reading_q;
  logic [63:0] src_q, scale_q, count_q, i_q, dst_q, out_q;
  logic [AB-1:0] zero_point_q, clamp_min_q, clamp_max_q;
  wire reading = takes || reading_q;
  wire [63:0] i = takes ? 64'd0 : i_q;
  wire [63:0] src = takes ? head_instr_i.operands[0] : src_q;
  wire [63:0] scale = takes ? head_instr_i.operands[3] : scale_q;
  wire [63:0] count = takes ? rows : count_q;
  assign acc_rd_o = {3{reading}};
  assign acc_row_o = {32'(scale + 1), 32'(scale), 32'(src + i)};

  logic present_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      {reading_q, present_q} <= '0;
      {src_q, scale_q, count_q, i_q, dst_q, out_q, left_q} <= '0;
      {zero_point_q, clamp_min_q, clamp_max_q} <= '0;
    end else begin
      present_q <= reading;
      if (takes) begin
        left_q <= head_instr_i.cycles - 1;  // 0 again in t0 + C
        src_q <= src;
        scale_q <= scale;
        count_q <= count;
        dst_q <= head_instr_i.operands[1];
        zero_point_q <= AB'(head_instr_i.operands[4]);
        clamp_min_q <= AB'(head_instr_i.operands[5]);
        clamp_max_q <= AB'(head_instr_i.operands[6]);
      end else if (left_q != 0) begin
        left_q <= left_q - 1;
      end
      if (reading) begin
        i_q <= i + 1;
        reading_q <= i + 1 < count;
      end
      if (takes) out_q <= '0;
      else if (spad_wr_o) out_q <= out_q + 1;
    end
  end

  logic [LANES-1:0] out_valid;
  logic [LANES-1:0][AB-1:0] out_data;
  for (genvar j = 0; j < LANES; j++) begin : g_lane
    requant_lane u_lane (
      .clk_i, .rst_ni, .in_valid_i(present_q),
      .in_acc_i(32'($signed(acc_data_i[0][j * ACC_LANE +: ACC_LANE]))),
      .in_multiplier_i(32'($signed(acc_data_i[1][j * ACC_LANE +: ACC_LANE]))),
      .in_shift_i(acc_data_i[2][j * ACC_LANE +: 6]), .in_zero_point_i(zero_point_q), .in_clamp_min_i(clamp_min_q),
      .in_clamp_max_i(clamp_max_q), .out_valid_o(out_valid[j]), .out_data_o(out_data[j]));
  end

  // The row written: the operation's dst + the rows written so far (its zero point and clamps are
  // held until its next start, which comes only after its last row).
  assign spad_wr_o = out_valid[0];
  assign spad_wr_row_o = 32'(dst_q + out_q);
  assign spad_wr_data_o = SPAD_BITS'(out_data);
  /* verilator lint_off UNUSEDSIGNAL */
  wire unused = ^out_valid;
  /* verilator lint_on UNUSEDSIGNAL */
endmodule
