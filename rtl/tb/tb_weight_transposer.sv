// Top-level model for the weight_transposer check: the transposer alone, plus the package values
// it was built with.
module tb_weight_transposer
  import systole_pkg::*;
(
  input  logic                                                 clk_i,
  input  logic                                                 rst_ni,
  input  logic                                                 in_valid_i,
  input  logic [SCRATCHPAD_ROW_BYTES-1:0][7:0]                 in_row_i,
  output logic                                                 out_valid_o,
  output logic [ARRAY_ROWS-1:0][SCRATCHPAD_ROW_BYTES-1:0][7:0] out_rows_o,

  output logic [31:0]                                          pkg_array_rows_o,
  output logic [31:0]                                          pkg_array_cols_o,
  output logic [31:0]                                          pkg_row_bytes_o
);
  weight_transposer u_dut (
    .clk_i,
    .rst_ni,
    .in_valid_i,
    .in_row_i,
    .out_valid_o,
    .out_rows_o
  );

  assign pkg_array_rows_o = 32'(ARRAY_ROWS);
  assign pkg_array_cols_o = 32'(ARRAY_COLS);
  assign pkg_row_bytes_o  = 32'(SCRATCHPAD_ROW_BYTES);
endmodule
