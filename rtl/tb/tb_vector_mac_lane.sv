// Top-level model for the vector_mac_lane check: one row per cycle through VECTOR_LANES lanes, as
// the vector unit runs vector_mac, plus the package values it was built with.
module tb_vector_mac_lane
  import systole_pkg::*;
(
  input  logic                                         clk_i,
  input  logic                                         rst_ni,
  input  logic                                         in_valid_i,
  input  logic [VECTOR_LANES-1:0][ACTIVATION_BITS-1:0] in_x_i,    // spad[src_row + stride * i]
  input  logic [VECTOR_LANES-1:0][ACTIVATION_BITS-1:0] in_w_i,    // spad[w_row], with every row
  input  logic [VECTOR_LANES-1:0][31:0]                in_acc_i,  // acc[dst_row + i]
  input  logic                                         in_accumulate_i,
  output logic                                         out_valid_o,
  output logic [VECTOR_LANES-1:0][31:0]                out_data_o,

  output logic [31:0]                                  pkg_vector_lanes_o,
  output logic [31:0]                                  pkg_act_bits_o,
  output logic [31:0]                                  pkg_acc_bits_o,
  output logic [31:0]                                  pkg_vector_latency_o
);
  logic [VECTOR_LANES-1:0] lane_valid;

  for (genvar j = 0; j < VECTOR_LANES; j++) begin : g_lane
    vector_mac_lane u_lane (
      .clk_i,
      .rst_ni,
      .in_valid_i,
      .in_x_i      (in_x_i[j]),
      .in_w_i      (in_w_i[j]),
      .in_acc_i    (in_acc_i[j]),
      .in_accumulate_i,
      .out_valid_o (lane_valid[j]),
      .out_data_o  (out_data_o[j])
    );
  end

  // All lanes run in lockstep.
  assign out_valid_o = lane_valid[0];
  assert property (@(posedge clk_i) lane_valid == '0 || lane_valid == '1)
    else $error("vector_mac lanes out of step");

  assign pkg_vector_lanes_o   = 32'(VECTOR_LANES);
  assign pkg_act_bits_o       = 32'(ACTIVATION_BITS);
  assign pkg_acc_bits_o       = 32'(ACCUMULATOR_BITS);
  assign pkg_vector_latency_o = 32'(VECTOR_LATENCY);
endmodule
