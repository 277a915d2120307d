// Top-level model for the int4_unpack check: the unpacker alone, plus the package values it was
// built with.
module tb_int4_unpack
  import systole_pkg::*;
(
  input  logic                                        clk_i,
  input  logic                                        rst_ni,
  input  logic                                        beat_valid_i,
  input  logic                                        beat_last_i,
  input  logic [$clog2(SCRATCHPAD_ROW_BYTES + 1)-1:0] row_bytes_i,
  input  logic [DRAM_BYTES_PER_CYCLE-1:0][7:0]        beat_i,
  output logic                                        out_valid_o,
  output logic [SCRATCHPAD_ROW_BYTES-1:0][7:0]        row_o,

  output logic [31:0]                                 pkg_row_bytes_o,
  output logic [31:0]                                 pkg_dram_bytes_per_cycle_o,
  output logic [31:0]                                 pkg_act_bits_o
);
  int4_unpack u_dut (
    .clk_i,
    .rst_ni,
    .beat_valid_i,
    .beat_last_i,
    .row_bytes_i,
    .beat_i,
    .out_valid_o,
    .row_o
  );

  assign pkg_row_bytes_o            = 32'(SCRATCHPAD_ROW_BYTES);
  assign pkg_dram_bytes_per_cycle_o = 32'(DRAM_BYTES_PER_CYCLE);
  assign pkg_act_bits_o             = 32'(ACTIVATION_BITS);
endmodule
