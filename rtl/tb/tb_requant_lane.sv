// Top-level model for the requant_lane check: one accumulator row per cycle through VECTOR_LANES
// lanes, as the vector unit runs requantize, plus the package values it was built with.
module tb_requant_lane
  import systole_pkg::*;
(
  input  logic                         clk_i,
  input  logic                         rst_ni,
  input  logic                         in_valid_i,
  input  logic [VECTOR_LANES-1:0][31:0] in_acc_i,
  input  logic [VECTOR_LANES-1:0][31:0] in_multiplier_i,
  input  logic [VECTOR_LANES-1:0][31:0] in_shift_i,       // the whole shift row; lanes use bits 5:0
  input  logic [ACTIVATION_BITS-1:0]   in_zero_point_i,
  input  logic [ACTIVATION_BITS-1:0]   in_clamp_min_i,
  input  logic [ACTIVATION_BITS-1:0]   in_clamp_max_i,
  output logic                         out_valid_o,
  output logic [VECTOR_LANES-1:0][ACTIVATION_BITS-1:0] out_data_o,

  output logic [31:0]                  pkg_vector_lanes_o,
  output logic [31:0]                  pkg_act_bits_o,
  output logic [31:0]                  pkg_vector_latency_o
);
  logic [VECTOR_LANES-1:0] lane_valid;

  for (genvar j = 0; j < VECTOR_LANES; j++) begin : g_lane
    /* verilator lint_off UNUSEDSIGNAL */
    logic [31:0] shift_word;  // bits 31:6 are ignored by the ISA (S = shift & 63)
    /* verilator lint_on UNUSEDSIGNAL */
    assign shift_word = in_shift_i[j];
    requant_lane u_lane (
      .clk_i,
      .rst_ni,
      .in_valid_i,
      .in_acc_i        (in_acc_i[j]),
      .in_multiplier_i (in_multiplier_i[j]),
      .in_shift_i      (shift_word[5:0]),
      .in_zero_point_i,
      .in_clamp_min_i,
      .in_clamp_max_i,
      .out_valid_o     (lane_valid[j]),
      .out_data_o      (out_data_o[j])
    );
  end

  // All lanes run in lockstep.
  assign out_valid_o = lane_valid[0];
  assert property (@(posedge clk_i) lane_valid == '0 || lane_valid == '1)
    else $error("requant lanes out of step");

  assign pkg_vector_lanes_o   = 32'(VECTOR_LANES);
  assign pkg_act_bits_o       = 32'(ACTIVATION_BITS);
  assign pkg_vector_latency_o = 32'(VECTOR_LATENCY);
endmodule
