// Top-level model for the recip_lane check: one accumulator row per cycle through VECTOR_LANES
// lanes, as the vector unit runs vector_recip, plus the package values it was built with.
module tb_recip_lane
  import systole_pkg::*;
(
  input  logic                          clk_i,
  input  logic                          rst_ni,
  input  logic                          in_valid_i,
  input  logic [VECTOR_LANES-1:0][31:0] in_x_i,
  input  logic [5:0]                    in_shift_i,  // the instruction's fields, shared by the lanes
  input  logic                          in_op_i,
  output logic                          out_valid_o,
  output logic [VECTOR_LANES-1:0][31:0] out_data_o,

  output logic [31:0]                   pkg_vector_lanes_o,
  output logic [31:0]                   pkg_vector_latency_o
);
  logic [VECTOR_LANES-1:0] lane_valid;

  for (genvar j = 0; j < VECTOR_LANES; j++) begin : g_lane
    recip_lane u_lane (
      .clk_i,
      .rst_ni,
      .in_valid_i,
      .in_x_i      (in_x_i[j]),
      .in_shift_i,
      .in_op_i,
      .out_valid_o (lane_valid[j]),
      .out_data_o  (out_data_o[j])
    );
  end

  // All lanes run in lockstep.
  assign out_valid_o = lane_valid[0];
  assert property (@(posedge clk_i) lane_valid == '0 || lane_valid == '1)
    else $error("recip lanes out of step");

  assign pkg_vector_lanes_o   = 32'(VECTOR_LANES);
  assign pkg_vector_latency_o = 32'(VECTOR_LATENCY);
endmodule
