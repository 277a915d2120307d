// Top-level model for the systolic_array check: the block, plus the package values it was built
// with, so the C++ harness can refuse a config file that does not match the Verilated package.
module tb_systolic_array
  import systole_pkg::*;
#(
  localparam int M_W = $clog2(((DATAFLOW_OUTPUT_STATIONARY != 0) ? ARRAY_ROWS : ACCUMULATOR_ROWS) + 1),
  localparam int KS_W = $clog2(SCRATCHPAD_ROWS / ARRAY_ROWS + 1),
  localparam int KH_W = $clog2(ARRAY_ROWS + 1),
  localparam int PS_W = (ARRAY_LINE_BUFFER_ROWS > 0) ? $clog2(ARRAY_LINE_BUFFER_ROWS + 1) : 1
) (
  input  logic                                 clk_i,
  input  logic                                 rst_ni,
  input  logic                                 cmd_valid_i,
  output logic                                 cmd_ready_o,
  input  logic                                 cmd_preload_i,
  input  logic                                 cmd_transpose_i,
  input  logic [M_W-1:0]                       cmd_m_i,
  input  logic                                 cmd_accumulate_i,
  input  logic                                 cmd_stream_i,
  input  logic [KS_W-1:0]                      cmd_k_slices_i,
  input  logic                                 cmd_depthwise_i,
  input  logic [KH_W-1:0]                      cmd_kh_i,
  input  logic [KH_W-1:0]                      cmd_kw_i,
  input  logic [PS_W-1:0]                      cmd_pitch_i,
  input  logic [PS_W-1:0]                      cmd_stride_i,
  input  logic                                 in_valid_i,
  input  logic [SCRATCHPAD_ROW_BYTES*8/ACTIVATION_BITS-1:0][ACTIVATION_BITS-1:0] in_row_i,
  input  logic [ARRAY_COLS-1:0][ACTIVATION_BITS-1:0] in_wrow_i,
  input  logic [ARRAY_COLS-1:0][31:0]          in_acc_i,
  input  logic                                 cmd_acc_at_out_i,
  input  logic                                 wcmd_valid_i,
  output logic                                 wcmd_ready_o,
  input  logic                                 wcmd_transpose_i,
  input  logic                                 win_valid_i,
  input  logic [SCRATCHPAD_ROW_BYTES*8/ACTIVATION_BITS-1:0][ACTIVATION_BITS-1:0] win_row_i,
  output logic                                 idle_o,
  output logic                                 out_soon_o,
  output logic                                 out_soon_last_o,
  input  logic [ARRAY_COLS-1:0][31:0]          out_acc_i,
  output logic                                 out_valid_o,
  output logic                                 out_last_o,
  output logic [M_W-1:0]                       out_row_o,
  output logic [ARRAY_COLS-1:0][31:0]          out_data_o,

  output logic [31:0]                          pkg_array_rows_o,
  output logic [31:0]                          pkg_array_cols_o,
  output logic [31:0]                          pkg_output_stationary_o,
  output logic [31:0]                          pkg_row_bytes_o,
  output logic [31:0]                          pkg_m_bits_o,
  output logic [31:0]                          pkg_k_slices_bits_o,
  output logic [31:0]                          pkg_weight_bits_o,
  output logic [31:0]                          pkg_acc_bits_o,
  output logic [31:0]                          pkg_act_bits_o,
  // The depthwise mode: ARRAY_LINE_BUFFER_ROWS (0: no mode) and the widths of kh/kw and pitch/stride.
  output logic [31:0]                          pkg_line_buffer_rows_o,
  output logic [31:0]                          pkg_kh_bits_o,
  output logic [31:0]                          pkg_pitch_bits_o
);
  systolic_array u_dut (.*);

  assign pkg_array_rows_o        = 32'(ARRAY_ROWS);
  assign pkg_array_cols_o        = 32'(ARRAY_COLS);
  assign pkg_output_stationary_o = 32'(DATAFLOW_OUTPUT_STATIONARY);
  assign pkg_row_bytes_o         = 32'(SCRATCHPAD_ROW_BYTES);
  assign pkg_m_bits_o            = 32'(M_W);
  assign pkg_k_slices_bits_o     = 32'(KS_W);
  assign pkg_weight_bits_o       = 32'(ARRAY_WEIGHT_BITS);
  assign pkg_acc_bits_o          = 32'(ACCUMULATOR_BITS);
  assign pkg_act_bits_o          = 32'(ACTIVATION_BITS);
  assign pkg_line_buffer_rows_o  = 32'(ARRAY_LINE_BUFFER_ROWS);
  assign pkg_kh_bits_o           = 32'(KH_W);
  assign pkg_pitch_bits_o        = 32'(PS_W);
endmodule
