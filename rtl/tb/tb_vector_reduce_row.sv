// Top-level model for the vector_reduce_row check: one accumulator row per cycle, as the vector
// unit runs vector_reduce, plus the package values it was built with.
module tb_vector_reduce_row
  import systole_pkg::*;
(
  input  logic                          clk_i,
  input  logic                          rst_ni,
  input  logic                          in_valid_i,
  input  logic                          in_max_i,
  input  logic [VECTOR_LANES-1:0][31:0] in_row_i,
  output logic                          out_valid_o,
  output logic [VECTOR_LANES-1:0][31:0] out_row_o,

  output logic [31:0]                   pkg_vector_lanes_o,
  output logic [31:0]                   pkg_act_bits_o,
  output logic [31:0]                   pkg_acc_bits_o,
  output logic [31:0]                   pkg_vector_latency_o
);
  vector_reduce_row u_reduce (.clk_i, .rst_ni, .in_valid_i, .in_max_i, .in_row_i, .out_valid_o, .out_row_o);

  assign pkg_vector_lanes_o   = 32'(VECTOR_LANES);
  assign pkg_act_bits_o       = 32'(ACTIVATION_BITS);
  assign pkg_acc_bits_o       = 32'(ACCUMULATOR_BITS);
  assign pkg_vector_latency_o = 32'(VECTOR_LATENCY);
endmodule
