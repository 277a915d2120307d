// Top-level model for the vector_alu_lane check: one row per cycle through VECTOR_LANES lanes, as
// the vector unit runs vector_widen, vector_add, vector_mul, vector_max and vector_lut (the table
// shared by every lane), plus the package values it was built with.
module tb_vector_alu_lane
  import systole_pkg::*;
(
  input  logic                                         clk_i,
  input  logic                                         rst_ni,
  input  logic                                         in_valid_i,
  input  logic [4:0]                                   in_semantics_i,
  input  logic [VECTOR_LANES-1:0][31:0]                in_a_i,
  input  logic [VECTOR_LANES-1:0][31:0]                in_b_i,
  input  logic [VECTOR_LANES-1:0][ACTIVATION_BITS-1:0] in_x_i,
  input  logic [VECTOR_LANES-1:0][ACTIVATION_BITS-1:0] in_y_i,
  input  logic [31:0]                                  in_zero_point_i,
  input  logic [31:0]                                  in_multiplier_i,
  input  logic [255:0][ACTIVATION_BITS-1:0]            in_table_i,
  output logic                                         out_valid_o,
  output logic [VECTOR_LANES-1:0][31:0]                out_acc_o,
  output logic [VECTOR_LANES-1:0][ACTIVATION_BITS-1:0] out_spad_o,

  output logic [31:0]                                  pkg_vector_lanes_o,
  output logic [31:0]                                  pkg_act_bits_o,
  output logic [31:0]                                  pkg_acc_bits_o,
  output logic [31:0]                                  pkg_vector_latency_o
);
  logic [VECTOR_LANES-1:0] lane_valid;

  for (genvar j = 0; j < VECTOR_LANES; j++) begin : g_lane
    vector_alu_lane u_lane (
      .clk_i,
      .rst_ni,
      .in_valid_i,
      .in_semantics_i,
      .in_a_i      (in_a_i[j]),
      .in_b_i      (in_b_i[j]),
      .in_x_i      (in_x_i[j]),
      .in_y_i      (in_y_i[j]),
      .in_zero_point_i,
      .in_multiplier_i,
      .in_table_i,
      .out_valid_o (lane_valid[j]),
      .out_acc_o   (out_acc_o[j]),
      .out_spad_o  (out_spad_o[j])
    );
  end

  // All lanes run in lockstep.
  assign out_valid_o = lane_valid[0];
  assert property (@(posedge clk_i) lane_valid == '0 || lane_valid == '1)
    else $error("vector ALU lanes out of step");

  assign pkg_vector_lanes_o   = 32'(VECTOR_LANES);
  assign pkg_act_bits_o       = 32'(ACTIVATION_BITS);
  assign pkg_acc_bits_o       = 32'(ACCUMULATOR_BITS);
  assign pkg_vector_latency_o = 32'(VECTOR_LATENCY);
endmodule
