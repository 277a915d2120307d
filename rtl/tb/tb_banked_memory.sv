// Top-level model for the banked_memory check: the scratchpad and the accumulator, one at a time
// on shared ports (acc_i picks; the other one's inputs are idle), plus the package values they
// were built with.
module tb_banked_memory
  import systole_pkg::*;
#(
  localparam int SPAD_ROW_W = SCRATCHPAD_ROWS > 1 ? $clog2(SCRATCHPAD_ROWS) : 1,
  localparam int ACC_ROW_W = ACCUMULATOR_ROWS > 1 ? $clog2(ACCUMULATOR_ROWS) : 1,
  localparam int SPAD_BITS = 8 * SCRATCHPAD_ROW_BYTES,
  localparam int ACC_BITS = 8 * ACCUMULATOR_SRAM_ROW_BYTES,
  localparam int ROW_W = SPAD_ROW_W > ACC_ROW_W ? SPAD_ROW_W : ACC_ROW_W,
  localparam int BITS = SPAD_BITS > ACC_BITS ? SPAD_BITS : ACC_BITS
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             acc_i,
  input  logic [1:0]       rd_valid_i,
  input  logic [ROW_W-1:0] rd_row0_i,
  input  logic [ROW_W-1:0] rd_row1_i,
  output logic             rd_ready_o,
  output logic [1:0]       rd_data_valid_o,
  output logic [BITS-1:0]  rd_data0_o,
  output logic [BITS-1:0]  rd_data1_o,
  input  logic             wr_valid_i,
  input  logic [ROW_W-1:0] wr_row_i,
  input  logic [BITS-1:0]  wr_data_i,

  output logic [31:0]      pkg_spad_rows_o,
  output logic [31:0]      pkg_spad_row_bytes_o,
  output logic [31:0]      pkg_spad_banks_o,
  output logic [31:0]      pkg_spad_conflict_o,
  output logic [31:0]      pkg_acc_rows_o,
  output logic [31:0]      pkg_acc_row_bytes_o,
  output logic [31:0]      pkg_acc_banks_o,
  output logic [31:0]      pkg_acc_conflict_o
);
  logic spad_ready, acc_ready;
  logic [1:0] spad_valid, acc_valid;
  logic [SPAD_BITS-1:0] spad_data0, spad_data1;
  logic [ACC_BITS-1:0] acc_data0, acc_data1;
  // The plain read, table and second write ports (the NPU's DMA store, vector and array paths) are idle here; the NPU's
  // programs exercise them (tests/rtl/npu_test.cpp).
  /* verilator lint_off UNUSEDSIGNAL */
  logic [SPAD_BITS-1:0] unused_spad_rd2;
  logic [ACC_BITS-1:0] unused_acc_rd2;
  logic [SPAD_BITS-1:0] unused_spad_table;
  logic [ACC_BITS-1:0] unused_acc_table;
  /* verilator lint_on UNUSEDSIGNAL */
  banked_memory #(.ACCUMULATOR(1'b0)) u_spad (
    .clk_i, .rst_ni, .rd_valid_i(acc_i ? 2'b00 : rd_valid_i), .rd_row0_i(SPAD_ROW_W'(rd_row0_i)),
    .rd_row1_i(SPAD_ROW_W'(rd_row1_i)), .rd_ready_o(spad_ready), .rd_data_valid_o(spad_valid),
    .rd_data0_o(spad_data0), .rd_data1_o(spad_data1), .wr_valid_i(wr_valid_i && !acc_i),
    .wr_row_i(SPAD_ROW_W'(wr_row_i)), .wr_data_i(SPAD_BITS'(wr_data_i)), .rd2_valid_i(1'b0), .rd2_row_i('0),
    .rd2_data_o(unused_spad_rd2), .tbl_valid_i(1'b0), .tbl_row_i('0), .tbl_data_o(unused_spad_table), .wr2_valid_i('0), .wr2_row_i('0), .wr2_data_i('0));
  banked_memory #(.ACCUMULATOR(1'b1)) u_acc (
    .clk_i, .rst_ni, .rd_valid_i(acc_i ? rd_valid_i : 2'b00), .rd_row0_i(ACC_ROW_W'(rd_row0_i)),
    .rd_row1_i(ACC_ROW_W'(rd_row1_i)), .rd_ready_o(acc_ready), .rd_data_valid_o(acc_valid),
    .rd_data0_o(acc_data0), .rd_data1_o(acc_data1), .wr_valid_i(wr_valid_i && acc_i),
    .wr_row_i(ACC_ROW_W'(wr_row_i)), .wr_data_i(ACC_BITS'(wr_data_i)), .rd2_valid_i(1'b0), .rd2_row_i('0),
    .rd2_data_o(unused_acc_rd2), .tbl_valid_i(1'b0), .tbl_row_i('0), .tbl_data_o(unused_acc_table), .wr2_valid_i('0), .wr2_row_i('0), .wr2_data_i('0));
  assign rd_ready_o = acc_i ? acc_ready : spad_ready;
  assign rd_data_valid_o = acc_i ? acc_valid : spad_valid;
  assign rd_data0_o = acc_i ? BITS'(acc_data0) : BITS'(spad_data0);
  assign rd_data1_o = acc_i ? BITS'(acc_data1) : BITS'(spad_data1);

  assign pkg_spad_rows_o      = 32'(SCRATCHPAD_ROWS);
  assign pkg_spad_row_bytes_o = 32'(SCRATCHPAD_ROW_BYTES);
  assign pkg_spad_banks_o     = 32'(SCRATCHPAD_BANKS);
  assign pkg_spad_conflict_o  = 32'(SCRATCHPAD_CONFLICT_CYCLES);
  assign pkg_acc_rows_o       = 32'(ACCUMULATOR_ROWS);
  assign pkg_acc_row_bytes_o  = 32'(ACCUMULATOR_SRAM_ROW_BYTES);
  assign pkg_acc_banks_o      = 32'(ACCUMULATOR_BANKS);
  assign pkg_acc_conflict_o   = 32'(ACCUMULATOR_CONFLICT_CYCLES);
endmodule
