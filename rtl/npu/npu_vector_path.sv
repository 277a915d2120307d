// The compute unit's vector data path: every vector class (requantize, vector_widen, _add, _mul,
// _max, _lut, _reduce, _recip, _mac) through its lanes (requant_lane.sv, vector_alu_lane.sv,
// vector_reduce_row.sv, recip_lane.sv, vector_mac_lane.sv), from rows of the scratchpad and the
// accumulator to rows of one of them, as systole::sim's functional model computes them.
//
// Timing, as on the array path (npu_array_path.sv): the control starts the instruction in t0 with
// the YAML's C cycles; this path reads its row i, and the rows every row needs (requantize's two
// scale rows, vector_mac's weight row), in t0 + i on plain read ports of its own, presents them to
// the lanes in t0 + 1 + i and writes row dst + i when the lanes deliver it: VECTOR_LATENCY later
// (the element-wise classes), VECTOR_LATENCY + log2_ceil(lanes) (vector_reduce) or
// 2 VECTOR_LATENCY (vector_recip), so the last row in t0 + C, the cycle the control completes it.
// vector_lut's table (LUT_ROWS rows) is read in t0 on the scratchpad's table port and held there.
//
// Each row carries its destination through a delay line matched to its class's latency, and the
// lanes carry its operands, so an instruction may start while the previous one's rows are still in
// the lanes (pipelined issue, `issue: rows`) once that one has read its last row; one that starts
// earlier is not taken, and counts as not computed. The simulator lets rows of two instructions
// reach the accumulator in the same cycle (a short class right after a long one), so each latency
// (the element-wise rows, the reduced rows, the reciprocal rows) has a write port of its own. One
// with rows = 0 does nothing.
//
// Lanes: the accumulator's lanes (ACCUMULATOR_ROW_BYTES / 4) for the accumulator classes and
// requantize, the scratchpad's (its row's activations) for vector_max and vector_lut; a
// requantized row's other scratchpad lanes are 0.
module npu_vector_path
  import systole_pkg::*;
#(
  localparam int SPAD_BITS = 8 * SCRATCHPAD_ROW_BYTES,
  localparam int ACC_BITS = 8 * ACCUMULATOR_SRAM_ROW_BYTES
) (
  input  logic                                 clk_i,
  input  logic                                 rst_ni,
  input  logic                                 start_i,  // the compute unit starts head_instr_i
  /* verilator lint_off UNUSEDSIGNAL */  // the decoded word's other parts
  input  instr_t                               head_instr_i,
  /* verilator lint_on UNUSEDSIGNAL */
  output logic                                 handles_o,  // this start is computed here
  output logic [2:0]                           acc_rd_o,
  output logic [2:0][31:0]                     acc_row_o,
  input  logic [2:0][ACC_BITS-1:0]             acc_data_i,
  output logic [1:0]                           spad_rd_o,
  output logic [1:0][31:0]                     spad_row_o,
  input  logic [1:0][SPAD_BITS-1:0]            spad_data_i,
  output logic                                 table_rd_o,
  output logic [31:0]                          table_row_o,
  input  logic [LUT_ROWS-1:0][SPAD_BITS-1:0]   table_data_i,
  output logic                                 spad_wr_o,
  output logic [31:0]                          spad_wr_row_o,
  output logic [SPAD_BITS-1:0]                 spad_wr_data_o,
  // Three accumulator write ports: 0 the element-wise rows, 1 the reduced, 2 the reciprocal rows.
  output logic [2:0]                           acc_wr_o,
  output logic [2:0][31:0]                     acc_wr_row_o,
  output logic [2:0][ACC_BITS-1:0]             acc_wr_data_o
);
  localparam int AB = ACTIVATION_BITS;
  localparam int LANES = ACCUMULATOR_ROW_BYTES / 4;          // the accumulator's lanes
  localparam int SPAD_LANES = SPAD_BITS / AB;                 // the scratchpad's
  localparam int ALU_LANES = LANES > SPAD_LANES ? LANES : SPAD_LANES;
  localparam int ACC_LANE = ACCUMULATOR_BITS;
  localparam int LEVELS = VECTOR_LANES > 1 ? $clog2(VECTOR_LANES) : 0;
  localparam int LAT_ALU = VECTOR_LATENCY, LAT_REDUCE = VECTOR_LATENCY + LEVELS, LAT_RECIP = 2 * VECTOR_LATENCY;
  localparam int DEPTH = LAT_REDUCE > LAT_RECIP ? LAT_REDUCE : LAT_RECIP;
  if (VECTOR_LANES != LANES) begin : g_bad_lanes
    $error("npu_vector_path needs vector.lanes == the accumulator's lanes");
  end

  // ---- what the head reads and writes (the operand order of isa/src/semantics.cpp).
  wire [4:0] sem = head_instr_i.semantics;
  function automatic logic [63:0] op(int k);
    return head_instr_i.operands[k];
  endfunction
  logic vector, to_acc, table_en;
  logic [63:0] rows, dst;
  logic [31:0] table_row;
  logic [2:0] acc_en, acc_step;           // a port's row advances by 1 per row (or stays)
  logic [2:0][63:0] acc_base;
  logic [1:0] spad_en;
  logic [1:0][63:0] spad_base, spad_step;
  always_comb begin
    {vector, to_acc, table_en, acc_en, acc_step, spad_en} = '0;
    {rows, dst, table_row, acc_base, spad_base, spad_step} = '0;
    vector = 1'b1;
    unique case (int'(sem))
      SEM_REQUANTIZE: begin  // acc_row, spad_row, rows, scale_row, zero_point, clamp_min, clamp_max
        {rows, dst} = {op(2), op(1)};
        {acc_en, acc_step} = {3'b111, 3'b001};
        acc_base = {op(3) + 1, op(3), op(0)};
      end
      SEM_VECTOR_WIDEN: begin  // spad_row, acc_row, rows, zero_point, multiplier
        {rows, dst, to_acc} = {op(2), op(1), 1'b1};
        {spad_en[0], spad_base[0], spad_step[0]} = {1'b1, op(0), 64'd1};
      end
      SEM_VECTOR_ADD, SEM_VECTOR_MUL: begin  // dst_row, a_row, b_row, rows
        {rows, dst, to_acc} = {op(3), op(0), 1'b1};
        {acc_en, acc_step} = {3'b011, 3'b011};
        acc_base[1:0] = {op(2), op(1)};
      end
      SEM_VECTOR_MAX: begin  // dst_row, a_row, b_row, rows
        {rows, dst} = {op(3), op(0)};
        {spad_en, spad_base, spad_step} = {2'b11, op(2), op(1), 64'd1, 64'd1};
      end
      SEM_VECTOR_LUT: begin  // dst_row, src_row, rows, table_row
        {rows, dst, table_en, table_row} = {op(2), op(0), 1'b1, 32'(op(3))};
        {spad_en[0], spad_base[0], spad_step[0]} = {1'b1, op(1), 64'd1};
      end
      SEM_VECTOR_REDUCE, SEM_VECTOR_RECIP: begin  // dst_row, src_row, rows, (reduce) op | (recip) shift, op
        {rows, dst, to_acc} = {op(2), op(0), 1'b1};
        {acc_en[0], acc_base[0], acc_step[0]} = {1'b1, op(1), 1'b1};
      end
      SEM_VECTOR_MAC: begin  // dst_row, src_row, w_row, rows, stride, accumulate
        {rows, dst, to_acc} = {op(3), op(0), 1'b1};
        {spad_en, spad_base, spad_step} = {2'b11, op(2), op(1), 64'd0, op(4)};
        {acc_en[0], acc_base[0], acc_step[0]} = {op(5) != 0, op(0), 1'b1};
      end
      default: vector = 1'b0;
    endcase
  end

  // ---- reading: row i of the instruction taken in t0, in t0 + i.
  logic reading_q;
  logic [63:0] count_q, i_q;
  wire takes = start_i && vector && rows != 0 && !reading_q;
  assign handles_o = takes || (start_i && vector && rows == 0);
  wire reading = takes || reading_q;
  wire [63:0] i = takes ? 64'd0 : i_q;
  wire [63:0] count = takes ? rows : count_q;

  logic [2:0] acc_en_q, acc_step_q;
  logic [2:0][63:0] acc_next_q;
  logic [1:0] spad_en_q;
  logic [1:0][63:0] spad_next_q, spad_step_q;
  logic [2:0][63:0] acc_row;
  logic [1:0][63:0] spad_row;
  always_comb begin
    for (int p = 0; p < 3; p++) acc_row[p] = takes ? acc_base[p] : acc_next_q[p];
    for (int p = 0; p < 2; p++) spad_row[p] = takes ? spad_base[p] : spad_next_q[p];
  end
  assign acc_rd_o = reading ? (takes ? acc_en : acc_en_q) : 3'b000;
  assign spad_rd_o = reading ? (takes ? spad_en : spad_en_q) : 2'b00;
  for (genvar p = 0; p < 3; p++) begin : g_acc_row
    assign acc_row_o[p] = 32'(acc_row[p]);
  end
  for (genvar p = 0; p < 2; p++) begin : g_spad_row
    assign spad_row_o[p] = 32'(spad_row[p]);
  end
  assign table_rd_o = takes && table_en;
  assign table_row_o = table_row;

  // The operands of the instruction being read, and of the row presented to the lanes.
  typedef struct packed {
    logic [4:0] sem;
    logic to_acc;
    logic [63:0] dst;
    logic [31:0] zero_point, multiplier;  // widen (zero_point also requantize's)
    logic [AB-1:0] clamp_min, clamp_max;
    logic [5:0] shift;                    // recip
    logic op;                             // reduce (max), recip (sqrt)
    logic accumulate;                     // mac
  } operands_t;
  operands_t head_ops, ops_q;
  /* verilator lint_off UNUSEDSIGNAL */  // its dst: present_row_q has the row
  operands_t present_ops_q;
  /* verilator lint_on UNUSEDSIGNAL */
  always_comb begin
    head_ops = '0;
    head_ops.sem = sem;
    head_ops.to_acc = to_acc;
    head_ops.dst = dst;
    unique case (int'(sem))
      SEM_REQUANTIZE: {head_ops.zero_point, head_ops.clamp_min, head_ops.clamp_max} = {32'(op(4)), AB'(op(5)), AB'(op(6))};
      SEM_VECTOR_WIDEN: {head_ops.zero_point, head_ops.multiplier} = {32'(op(3)), 32'(op(4))};
      SEM_VECTOR_REDUCE: head_ops.op = op(3) != 0;
      SEM_VECTOR_RECIP: {head_ops.shift, head_ops.op} = {6'(op(3)), op(4) != 0};
      SEM_VECTOR_MAC: head_ops.accumulate = op(5) != 0;
      default: ;
    endcase
  end
  operands_t ops;
  assign ops = takes ? head_ops : ops_q;

  logic present_q;
  logic [31:0] present_row_q;  // the destination row of the row presented
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) {reading_q, present_q} <= '0;
    else begin
      present_q <= reading;
      if (reading) reading_q <= i + 1 < count;
    end
  end
  always_ff @(posedge clk_i) begin
    if (takes) begin
      count_q <= count;
      ops_q <= head_ops;
      {acc_en_q, acc_step_q, spad_en_q, spad_step_q} <= {acc_en, acc_step, spad_en, spad_step};
    end
    if (reading) begin
      i_q <= i + 1;
      for (int p = 0; p < 3; p++) acc_next_q[p] <= acc_row[p] + {63'd0, takes ? acc_step[p] : acc_step_q[p]};
      for (int p = 0; p < 2; p++) spad_next_q[p] <= spad_row[p] + (takes ? spad_step[p] : spad_step_q[p]);
      present_ops_q <= ops;
      present_row_q <= 32'(ops.dst + i);
    end
  end

  // ---- the lanes, fed in the present cycle.
  wire [4:0] present_sem = present_ops_q.sem;
  function automatic logic [31:0] acc_lane(int port, int j);
    return j < LANES ? 32'($signed(acc_data_i[port][j * ACC_LANE +: ACC_LANE])) : '0;
  endfunction
  function automatic logic [AB-1:0] spad_lane(int port, int j);
    return j < SPAD_LANES ? spad_data_i[port][j * AB +: AB] : '0;
  endfunction
  wire [255:0][AB-1:0] table_entries = (256 * AB)'(table_data_i);
  wire alu_class = int'(present_sem) inside {SEM_VECTOR_WIDEN, SEM_VECTOR_ADD, SEM_VECTOR_MUL, SEM_VECTOR_MAX,
                                             SEM_VECTOR_LUT};
  logic [LANES-1:0][AB-1:0] requant_out;
  logic [ALU_LANES-1:0][31:0] alu_acc_out;
  logic [ALU_LANES-1:0][AB-1:0] alu_spad_out;
  logic [LANES-1:0][31:0] recip_out, mac_out, reduce_in, reduce_out;
  /* verilator lint_off UNUSEDSIGNAL */  // the delay line says when a row leaves its lanes
  logic [LANES-1:0] requant_valid, recip_valid, mac_valid;
  logic [ALU_LANES-1:0] alu_valid;
  logic reduce_valid;
  /* verilator lint_on UNUSEDSIGNAL */
  for (genvar j = 0; j < ALU_LANES; j++) begin : g_alu
    vector_alu_lane u_alu (
      .clk_i, .rst_ni, .in_valid_i(present_q && alu_class), .in_semantics_i(present_sem), .in_a_i(acc_lane(0, j)),
      .in_b_i(acc_lane(1, j)), .in_x_i(spad_lane(0, j)), .in_y_i(spad_lane(1, j)),
      .in_zero_point_i(present_ops_q.zero_point), .in_multiplier_i(present_ops_q.multiplier),
      .in_table_i(table_entries), .out_valid_o(alu_valid[j]), .out_acc_o(alu_acc_out[j]),
      .out_spad_o(alu_spad_out[j]));
  end
  for (genvar j = 0; j < LANES; j++) begin : g_lane
    requant_lane u_requant (
      .clk_i, .rst_ni, .in_valid_i(present_q && int'(present_sem) == SEM_REQUANTIZE), .in_acc_i(acc_lane(0, j)),
      .in_multiplier_i(acc_lane(1, j)), .in_shift_i(acc_data_i[2][j * ACC_LANE +: 6]),
      .in_zero_point_i(AB'(present_ops_q.zero_point)), .in_clamp_min_i(present_ops_q.clamp_min),
      .in_clamp_max_i(present_ops_q.clamp_max), .out_valid_o(requant_valid[j]), .out_data_o(requant_out[j]));
    recip_lane u_recip (
      .clk_i, .rst_ni, .in_valid_i(present_q && int'(present_sem) == SEM_VECTOR_RECIP), .in_x_i(acc_lane(0, j)),
      .in_shift_i(present_ops_q.shift), .in_op_i(present_ops_q.op), .out_valid_o(recip_valid[j]),
      .out_data_o(recip_out[j]));
    vector_mac_lane u_mac (
      .clk_i, .rst_ni, .in_valid_i(present_q && int'(present_sem) == SEM_VECTOR_MAC), .in_x_i(spad_lane(0, j)),
      .in_w_i(spad_lane(1, j)), .in_acc_i(acc_lane(0, j)), .in_accumulate_i(present_ops_q.accumulate),
      .out_valid_o(mac_valid[j]), .out_data_o(mac_out[j]));
    assign reduce_in[j] = acc_lane(0, j);
  end
  vector_reduce_row u_reduce (
    .clk_i, .rst_ni, .in_valid_i(present_q && int'(present_sem) == SEM_VECTOR_REDUCE), .in_max_i(present_ops_q.op),
    .in_row_i(reduce_in), .out_valid_o(reduce_valid), .out_row_o(reduce_out));

  // ---- the delay line: row d's class and destination, DEPTH cycles.
  typedef struct packed {
    logic valid;
    logic [4:0] sem;
    logic to_acc;
    logic [31:0] row;
  } tag_t;
  tag_t tag_q[DEPTH];
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) for (int d = 0; d < DEPTH; d++) tag_q[d] <= '0;
    else begin
      tag_q[0] <= {present_q, present_sem, present_ops_q.to_acc, 32'(present_row_q)};
      for (int d = 1; d < DEPTH; d++) tag_q[d] <= tag_q[d - 1];
    end
  end
  // The rows that leave their lanes now: the element-wise classes', a reduced row, a reciprocal row.
  tag_t alu_tag;
  /* verilator lint_off UNUSEDSIGNAL */  // their memory: the accumulator
  tag_t reduce_tag, recip_tag;
  /* verilator lint_on UNUSEDSIGNAL */
  assign {alu_tag, reduce_tag, recip_tag} = {tag_q[LAT_ALU - 1], tag_q[LAT_REDUCE - 1], tag_q[LAT_RECIP - 1]};
  wire alu_out = alu_tag.valid && !(int'(alu_tag.sem) inside {SEM_VECTOR_REDUCE, SEM_VECTOR_RECIP});
  wire reduce_leaves = reduce_tag.valid && int'(reduce_tag.sem) == SEM_VECTOR_REDUCE;
  wire recip_leaves = recip_tag.valid && int'(recip_tag.sem) == SEM_VECTOR_RECIP;
  wire alu_spad = alu_out && !alu_tag.to_acc, alu_acc = alu_out && alu_tag.to_acc;

  function automatic logic [ACC_BITS-1:0] acc_row_of(logic [LANES-1:0][31:0] lanes);
    logic [ACC_BITS-1:0] r = '0;
    for (int j = 0; j < LANES; j++) begin  // saturated as the accumulator commits (arith::storeAccumulator)
      logic signed [31:0] v = lanes[j];
      if (ACC_LANE < 32) begin
        if (v > (32'sd1 <<< (ACC_LANE - 1)) - 1) v = (32'sd1 <<< (ACC_LANE - 1)) - 1;
        if (v < -(32'sd1 <<< (ACC_LANE - 1))) v = -(32'sd1 <<< (ACC_LANE - 1));
      end
      r[j * ACC_LANE +: ACC_LANE] = ACC_LANE'(v);
    end
    return r;
  endfunction
  logic [LANES-1:0][31:0] alu_acc_lanes;
  logic [SPAD_LANES-1:0][AB-1:0] alu_spad_lanes;
  always_comb begin
    for (int j = 0; j < LANES; j++) alu_acc_lanes[j] = int'(alu_tag.sem) == SEM_VECTOR_MAC ? mac_out[j] : alu_acc_out[j];
    for (int j = 0; j < SPAD_LANES; j++) alu_spad_lanes[j] = alu_spad_out[j];
  end

  assign spad_wr_o = alu_spad;
  assign spad_wr_row_o = alu_tag.row;
  assign spad_wr_data_o = int'(alu_tag.sem) == SEM_REQUANTIZE ? SPAD_BITS'(requant_out) : SPAD_BITS'(alu_spad_lanes);
  assign acc_wr_o = {recip_leaves, reduce_leaves, alu_acc};
  assign acc_wr_row_o = {recip_tag.row, reduce_tag.row, alu_tag.row};
  assign acc_wr_data_o = {acc_row_of(recip_out), acc_row_of(reduce_out), acc_row_of(alu_acc_lanes)};
endmodule
