// Top-level model for the dma_addr_gen check: the generator, a DRAM model that completes each beat
// exactly DRAM_LATENCY cycles after it was issued (a delay line: the channel adds no other
// contention here), and the package values it was built with. The harness sees every beat.
module tb_dma_addr_gen
  import systole_pkg::*;
#(
  localparam int MAX_ROWS      = (SCRATCHPAD_ROWS > ACCUMULATOR_ROWS) ? SCRATCHPAD_ROWS : ACCUMULATOR_ROWS,
  localparam int MAX_ROW_BYTES = (SCRATCHPAD_ROW_BYTES > ACCUMULATOR_ROW_BYTES) ? SCRATCHPAD_ROW_BYTES
                                                                               : ACCUMULATOR_ROW_BYTES,
  localparam int MAX_BANKS     = (SCRATCHPAD_BANKS > ACCUMULATOR_BANKS) ? SCRATCHPAD_BANKS : ACCUMULATOR_BANKS,
  localparam int AW            = $clog2(DRAM_SIZE),
  localparam int ROWS_W        = $clog2(MAX_ROWS + 1),
  localparam int ROW_W         = (MAX_ROWS > 1) ? $clog2(MAX_ROWS) : 1,
  localparam int BYTES_W       = $clog2(MAX_ROW_BYTES + 1),
  localparam int LEN_W         = $clog2(DMA_BURST_BYTES + 1),
  localparam int BEAT_W        = $clog2(DRAM_BYTES_PER_CYCLE + 1),
  localparam int BANK_W        = (MAX_BANKS > 1) ? $clog2(MAX_BANKS) : 1
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  input  logic               desc_valid_i,
  output logic               desc_ready_o,
  input  logic               desc_acc_i,
  input  logic               desc_bcast_i,
  input  logic [AW-1:0]      desc_addr_i,
  input  logic [AW-1:0]      desc_stride_i,
  input  logic [ROWS_W-1:0]  desc_rows_i,
  input  logic [ROWS_W-1:0]  desc_runs_i,
  input  logic [AW-1:0]      desc_run_stride_i,
  input  logic [BYTES_W-1:0] desc_bytes_i,
  input  logic [ROW_W-1:0]   desc_row_i,
  output logic               beat_valid_o,
  input  logic               beat_ready_i,
  output logic               beat_first_o,
  output logic               beat_last_o,
  output logic               beat_desc_last_o,
  output logic [AW-1:0]      burst_addr_o,
  output logic [LEN_W-1:0]   burst_len_o,
  output logic [AW-1:0]      beat_addr_o,
  output logic [BEAT_W-1:0]  beat_bytes_o,
  output logic [BANK_W-1:0]  beat_bank_o,
  output logic [ROW_W-1:0]   beat_bank_row_o,
  output logic [BYTES_W-1:0] beat_offset_o,
  output logic               copy_valid_o,
  output logic [BANK_W-1:0]  copy_bank_o,
  output logic [ROW_W-1:0]   copy_bank_row_o,
  output logic               done_o,

  output logic [31:0]        pkg_addr_bits_o,
  output logic [31:0]        pkg_burst_bytes_o,
  output logic [31:0]        pkg_bytes_per_cycle_o,
  output logic [31:0]        pkg_dram_latency_o,
  output logic [31:0]        pkg_spad_banks_o,
  output logic [31:0]        pkg_acc_banks_o,
  output logic [31:0]        pkg_broadcast_o
);
  logic rsp_valid;

  dma_addr_gen u_dut (
    .clk_i, .rst_ni,
    .desc_valid_i, .desc_ready_o, .desc_acc_i, .desc_bcast_i, .desc_addr_i, .desc_stride_i, .desc_rows_i,
    .desc_runs_i, .desc_run_stride_i, .desc_bytes_i, .desc_row_i,
    .beat_valid_o, .beat_ready_i, .beat_first_o, .beat_last_o, .beat_desc_last_o,
    .burst_addr_o, .burst_len_o, .beat_addr_o, .beat_bytes_o, .beat_bank_o, .beat_bank_row_o,
    .beat_offset_o, .copy_valid_o, .copy_bank_o, .copy_bank_row_o,
    .rsp_valid_i (rsp_valid),
    .done_o
  );

  // DRAM: a beat issued in cycle t completes in cycle t + DRAM_LATENCY.
  if (DRAM_LATENCY == 0) begin : g_no_latency
    assign rsp_valid = beat_valid_o & beat_ready_i;
  end else begin : g_latency
    logic [DRAM_LATENCY-1:0] pipe_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) pipe_q <= '0;
      else pipe_q <= DRAM_LATENCY'({pipe_q, beat_valid_o & beat_ready_i});
    end
    assign rsp_valid = pipe_q[DRAM_LATENCY-1];
  end

  assign pkg_addr_bits_o       = 32'(AW);
  assign pkg_burst_bytes_o     = 32'(DMA_BURST_BYTES);
  assign pkg_bytes_per_cycle_o = 32'(DRAM_BYTES_PER_CYCLE);
  assign pkg_dram_latency_o    = 32'(DRAM_LATENCY);
  assign pkg_spad_banks_o      = 32'(SCRATCHPAD_BANKS);
  assign pkg_acc_banks_o       = 32'(ACCUMULATOR_BANKS);
  assign pkg_broadcast_o       = 32'(DMA_BROADCAST);
endmodule
