// The DMA's 2-D address generator: one descriptor of a dma_load / dma_load_2d / dma_store /
// dma_load_acc / dma_store_acc instruction (docs/isa-semantics.md) becomes the sequence of DRAM
// bursts and data beats that moves it, plus the on-chip location of every beat.
//
// Descriptor: DRAM base address, runs, run stride, rows per run, bytes per row, DRAM row stride,
// first on-chip row, whether the on-chip side is the accumulator (int32 rows) or the scratchpad,
// and whether the instruction has a broadcast form (dma_load, dma_load_acc). The one-run
// instructions present runs = 1 (the run stride is then unused); dma_load_2d presents its runs and
// run_stride. Row i of run r (k = r*rows + i) occupies DRAM bytes
// [base + r*run_stride + i*stride, + bytes) and on-chip row row + k, which lives in bank
// (row + k) mod BANKS at index (row + k) / BANKS of that bank (the bank counter wraps as rows
// advance; the runs fill consecutive on-chip rows). The runs follow each other without a gap.
//
// Bursts: a burst never spans two rows. A row is split from its first byte into bursts of
// DMA_BURST_BYTES (the last one shorter); bursts are not aligned to DMA_BURST_BYTES boundaries of
// the address space (the modelled DRAM channel has no alignment rule). With the shipped configs a
// row always fits one burst (row bytes <= DMA_BURST_BYTES), so bursts = runs * rows.
//
// Beats and timing: a burst of len bytes occupies the shared DRAM data channel for
// ceil(len / DRAM_BYTES_PER_CYCLE) cycles, one beat per cycle; the generator issues one beat per
// cycle (beat_valid_o / beat_ready_i), the burst's address and length accompany every beat of it,
// beat_first_o marks its first beat (the request) and beat_last_o its last. Because
// DMA_BURST_BYTES is a multiple of DRAM_BYTES_PER_CYCLE (checked at elaboration) a row of b bytes
// takes exactly ceil(b / DRAM_BYTES_PER_CYCLE) beats however it is split.
// Completion: every beat comes back once on rsp_valid_i (read data, or write acknowledge) after
// the DRAM's latency; done_o is high in the cycle the last one returns. A descriptor accepted in
// cycle t0 whose first beat goes out in t0 (the first beat is presented in the accept cycle) and
// meets no back-pressure therefore ends in cycle t0 + DRAM_LATENCY + runs * rows * ceil(bytes / BPC) - 1
// with a DRAM that answers each beat DRAM_LATENCY cycles after it was issued: the YAML's
// `dram.latency + rows * ceil_div(bytes, dram.bytes_per_cycle)` (runs = 1), and dma_load_2d's
// `dram.latency + runs * rows * ceil_div(bytes, dram.bytes_per_cycle)`. An empty descriptor
// (runs = 0, rows = 0 or bytes = 0) issues nothing and is done in its accept cycle (the YAML still
// charges dram.latency).
// Broadcast (DMA_BROADCAST, `dma.broadcast`): a descriptor with a broadcast form (desc_bcast_i:
// dma_load or dma_load_acc, one run; dma_load_2d has none) of more than one row with
// stride 0 reads row 0 only; once its last beat has returned, the generator writes that row to the
// other rows, one per cycle (copy_valid_o with the row's bank and in-bank row), and is done in the
// last copy's cycle: t0 + DRAM_LATENCY + ceil(bytes / BPC) + rows - 2, the YAML's
// `dram.latency + ceil_div(bytes, dram.bytes_per_cycle) + rows - 1` for dram_stride 0.
module dma_addr_gen
  import systole_pkg::*;
#(
  // Not parameters: widths derived from the package.
  localparam int MAX_ROWS      = (SCRATCHPAD_ROWS > ACCUMULATOR_ROWS) ? SCRATCHPAD_ROWS : ACCUMULATOR_ROWS,
  localparam int MAX_ROW_BYTES = (SCRATCHPAD_ROW_BYTES > ACCUMULATOR_ROW_BYTES) ? SCRATCHPAD_ROW_BYTES
                                                                               : ACCUMULATOR_ROW_BYTES,
  localparam int MAX_BANKS     = (SCRATCHPAD_BANKS > ACCUMULATOR_BANKS) ? SCRATCHPAD_BANKS : ACCUMULATOR_BANKS,
  localparam int AW            = $clog2(DRAM_SIZE),            // DRAM byte address
  localparam int ROWS_W        = $clog2(MAX_ROWS + 1),         // a row count
  localparam int ROW_W         = (MAX_ROWS > 1) ? $clog2(MAX_ROWS) : 1,  // an on-chip row index
  localparam int BYTES_W       = $clog2(MAX_ROW_BYTES + 1),    // bytes of a row, offset in a row
  localparam int LEN_W         = $clog2(DMA_BURST_BYTES + 1),  // burst length
  localparam int BEAT_W        = $clog2(DRAM_BYTES_PER_CYCLE + 1),
  localparam int BANK_W        = (MAX_BANKS > 1) ? $clog2(MAX_BANKS) : 1
) (
  input  logic               clk_i,
  // rst_ni also disables the assertions (disable iff), which Verilator counts as a synchronous use.
  /* verilator lint_off SYNCASYNCNET */
  input  logic               rst_ni,
  /* verilator lint_on SYNCASYNCNET */

  input  logic               desc_valid_i,
  output logic               desc_ready_o,
  input  logic               desc_acc_i,       // on-chip side: 1 accumulator, 0 scratchpad
  input  logic               desc_bcast_i,     // the instruction has a broadcast form (a one-run load)
  input  logic [AW-1:0]      desc_addr_i,
  input  logic [AW-1:0]      desc_stride_i,
  input  logic [ROWS_W-1:0]  desc_rows_i,       // rows per run
  input  logic [ROWS_W-1:0]  desc_runs_i,       // runs (1 but for dma_load_2d); runs * rows <= on-chip rows
  input  logic [AW-1:0]      desc_run_stride_i, // DRAM distance from a run's first row to the next run's
  input  logic [BYTES_W-1:0] desc_bytes_i,
  input  logic [ROW_W-1:0]   desc_row_i,

  output logic               beat_valid_o,
  input  logic               beat_ready_i,
  output logic               beat_first_o,     // first beat of a burst
  output logic               beat_last_o,      // last beat of a burst
  output logic               beat_desc_last_o, // last beat of the descriptor
  output logic [AW-1:0]      burst_addr_o,
  output logic [LEN_W-1:0]   burst_len_o,
  output logic [AW-1:0]      beat_addr_o,
  output logic [BEAT_W-1:0]  beat_bytes_o,
  output logic [BANK_W-1:0]  beat_bank_o,      // on-chip bank of the beat's row
  output logic [ROW_W-1:0]   beat_bank_row_o,  // row index inside that bank
  output logic [BYTES_W-1:0] beat_offset_o,    // byte offset of the beat inside the on-chip row

  output logic               copy_valid_o,     // a broadcast writes row 0's data to this row
  output logic [BANK_W-1:0]  copy_bank_o,
  output logic [ROW_W-1:0]   copy_bank_row_o,

  input  logic               rsp_valid_i,      // one beat completed at the DRAM
  output logic               done_o
);

  localparam int BPC   = DRAM_BYTES_PER_CYCLE;
  localparam int BURST = DMA_BURST_BYTES;
  localparam int MAX_BEATS = MAX_ROWS * ((MAX_ROW_BYTES + BPC - 1) / BPC);
  localparam int OUT_W = $clog2(MAX_BEATS + 1);

  if (BURST % BPC != 0) begin : g_bad_burst
    $error("dma_addr_gen needs DMA_BURST_BYTES to be a multiple of DRAM_BYTES_PER_CYCLE");
  end

  // ---- state of the descriptor in progress
  logic               active_q;          // a descriptor was accepted and is not done
  logic               issuing_q;         // beats remain to be issued
  logic               acc_q;
  logic [AW-1:0]      row_addr_q, stride_q;
  logic [AW-1:0]      run_addr_q, run_stride_q;  // DRAM address of the current run's first row
  logic [ROWS_W-1:0]  run_rows_q;        // rows per run
  logic [ROWS_W-1:0]  rows_left_q;       // of the current run, including the current row
  logic [ROWS_W-1:0]  runs_left_q;       // including the current run
  logic [BYTES_W-1:0] bytes_q;
  logic [BYTES_W-1:0] off_q;             // offset of the next beat in its row
  logic [LEN_W-1:0]   burst_off_q;       // offset of the next beat in its burst
  logic [BANK_W-1:0]  bank_q;
  logic [ROW_W-1:0]   bank_row_q;
  logic [OUT_W-1:0]   outstanding_q;     // beats issued whose response has not come back
  logic               bcast_q;           // a broadcast descriptor
  logic               copying_q;         // writing row 0's data to the other rows
  logic               moves_q;           // the descriptor moves bytes
  logic [ROWS_W-1:0]  copy_left_q;       // rows still to write

  // ---- the current beat (the accept cycle takes the descriptor directly)
  logic               accept, fire;
  logic               cur_issuing, cur_acc;
  logic [AW-1:0]      cur_row_addr, cur_stride, cur_run_addr, cur_run_stride;
  logic [ROWS_W-1:0]  cur_rows_left, cur_runs_left, cur_run_rows;
  logic [BYTES_W-1:0] cur_bytes, cur_off;
  logic [LEN_W-1:0]   cur_burst_off;
  logic [BANK_W-1:0]  cur_bank;
  logic [ROW_W-1:0]   cur_bank_row;
  logic [31:0]        row_rest, burst_rest;  // bytes left in the row / in the burst from this beat
  logic               row_last, run_last;  // the beat ends its row / the row ends its run
  logic [BANK_W-1:0]  desc_bank;
  logic [ROW_W-1:0]   desc_bank_row;

  assign desc_ready_o = ~active_q;
  assign accept       = desc_valid_i & desc_ready_o;

  // Bank and in-bank row of the first row: divisions by constants.
  always_comb begin
    if (desc_acc_i) begin
      desc_bank     = BANK_W'(32'(desc_row_i) % ACCUMULATOR_BANKS);
      desc_bank_row = ROW_W'(32'(desc_row_i) / ACCUMULATOR_BANKS);
    end else begin
      desc_bank     = BANK_W'(32'(desc_row_i) % SCRATCHPAD_BANKS);
      desc_bank_row = ROW_W'(32'(desc_row_i) / SCRATCHPAD_BANKS);
    end
  end

  assign cur_issuing   = accept ? (desc_runs_i != '0 && desc_rows_i != '0 && desc_bytes_i != '0) : issuing_q;
  logic cur_issuing_any;  // the descriptor moves bytes at all (an empty broadcast copies nothing)
  assign cur_issuing_any = accept ? (desc_bytes_i != '0) : moves_q;
  assign cur_acc       = accept ? desc_acc_i : acc_q;
  assign cur_row_addr  = accept ? desc_addr_i : row_addr_q;
  assign cur_stride    = accept ? desc_stride_i : stride_q;
  logic cur_bcast;
  assign cur_bcast     = accept ? (DMA_BROADCAST != 0 && desc_bcast_i && desc_stride_i == '0 && desc_rows_i > ROWS_W'(1))
                                : bcast_q;
  assign cur_rows_left = accept ? (cur_bcast ? ROWS_W'(1) : desc_rows_i) : rows_left_q;  // rows read from DRAM
  assign cur_runs_left = accept ? desc_runs_i : runs_left_q;
  assign cur_run_rows  = accept ? desc_rows_i : run_rows_q;
  assign cur_run_addr  = accept ? desc_addr_i : run_addr_q;
  assign cur_run_stride = accept ? desc_run_stride_i : run_stride_q;
  assign cur_bytes     = accept ? desc_bytes_i : bytes_q;
  assign cur_off       = accept ? '0 : off_q;
  assign cur_burst_off = accept ? '0 : burst_off_q;
  assign cur_bank      = accept ? desc_bank : bank_q;
  assign cur_bank_row  = accept ? desc_bank_row : bank_row_q;

  assign row_rest   = 32'(cur_bytes) - 32'(cur_off);
  assign burst_rest = row_rest + 32'(cur_burst_off);  // bytes of the row from the burst's start
  assign row_last   = row_rest <= 32'(BPC);
  assign run_last   = cur_rows_left == ROWS_W'(1);

  assign beat_valid_o     = cur_issuing;
  assign beat_first_o     = cur_burst_off == '0;
  assign beat_last_o      = row_last | (32'(cur_burst_off) + 32'(BPC) == 32'(BURST));
  assign beat_desc_last_o = row_last & run_last & (cur_runs_left == ROWS_W'(1));
  assign burst_addr_o     = cur_row_addr + AW'(cur_off) - AW'(cur_burst_off);
  assign burst_len_o      = LEN_W'((burst_rest < 32'(BURST)) ? burst_rest : 32'(BURST));
  assign beat_addr_o      = cur_row_addr + AW'(cur_off);
  assign beat_bytes_o     = BEAT_W'(row_last ? row_rest : 32'(BPC));
  assign beat_bank_o      = cur_bank;
  assign beat_bank_row_o  = cur_bank_row;
  assign beat_offset_o    = cur_off;
  assign fire             = beat_valid_o & beat_ready_i;

  // ---- completion
  logic             active, issuing_after, data_back;
  logic [OUT_W-1:0] outstanding_d;
  assign active        = accept | active_q;
  assign issuing_after = cur_issuing & ~(fire & beat_desc_last_o);
  assign outstanding_d = outstanding_q + OUT_W'(fire) - OUT_W'(rsp_valid_i);
  assign data_back     = active & ~issuing_after & (outstanding_d == '0);
  assign copy_valid_o    = copying_q;
  assign copy_bank_o     = bank_q;
  assign copy_bank_row_o = bank_row_q;
  assign done_o        = copying_q ? copy_left_q == ROWS_W'(1) : data_back & ~(cur_bcast & cur_issuing_any);

  // ---- next state
  logic             bank_wrap;
  assign bank_wrap = 32'(cur_bank) + 1 == (cur_acc ? 32'(ACCUMULATOR_BANKS) : 32'(SCRATCHPAD_BANKS));

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      active_q      <= 1'b0;
      issuing_q     <= 1'b0;
      outstanding_q <= '0;
      copying_q     <= 1'b0;
    end else begin
      active_q      <= active & ~done_o;
      issuing_q     <= issuing_after;
      outstanding_q <= outstanding_d;
      copying_q     <= copying_q ? ~done_o : active & data_back & cur_bcast & cur_issuing_any;
    end
  end

  always_ff @(posedge clk_i) begin
    if (accept) begin
      acc_q       <= desc_acc_i;
      stride_q    <= desc_stride_i;
      run_stride_q <= desc_run_stride_i;
      run_rows_q  <= desc_rows_i;
      bytes_q     <= desc_bytes_i;
      bcast_q     <= cur_bcast;
      moves_q     <= desc_bytes_i != '0;
      copy_left_q <= desc_rows_i - ROWS_W'(1);
    end
    if (copying_q) begin  // the next row to write
      copy_left_q <= copy_left_q - ROWS_W'(1);
      bank_q      <= bank_wrap ? '0 : bank_q + BANK_W'(1);
      bank_row_q  <= bank_wrap ? bank_row_q + ROW_W'(1) : bank_row_q;
    end
    if (accept | fire) begin
      row_addr_q  <= cur_row_addr;
      run_addr_q  <= cur_run_addr;
      rows_left_q <= cur_rows_left;
      runs_left_q <= cur_runs_left;
      off_q       <= cur_off;
      burst_off_q <= cur_burst_off;
      bank_q      <= cur_bank;
      bank_row_q  <= cur_bank_row;
      if (fire) begin
        if (row_last) begin
          if (run_last) begin  // on to the next run's first row
            row_addr_q  <= cur_run_addr + cur_run_stride;
            run_addr_q  <= cur_run_addr + cur_run_stride;
            rows_left_q <= cur_run_rows;
            runs_left_q <= cur_runs_left - ROWS_W'(1);
          end else begin
            row_addr_q  <= cur_row_addr + cur_stride;
            rows_left_q <= cur_rows_left - ROWS_W'(1);
          end
          off_q       <= '0;
          burst_off_q <= '0;
          bank_q      <= bank_wrap ? '0 : cur_bank + BANK_W'(1);
          bank_row_q  <= bank_wrap ? cur_bank_row + ROW_W'(1) : cur_bank_row;
        end else begin
          off_q       <= cur_off + BYTES_W'(BPC);
          burst_off_q <= beat_last_o ? '0 : cur_burst_off + LEN_W'(BPC);
        end
      end
    end
  end

  // ---- protocol assertions
`ifndef SYNTHESIS
  logic [63:0] desc_last_end;
  logic [63:0] desc_chip_end;
  assign desc_last_end = 64'(desc_addr_i) + (64'(desc_runs_i) - 64'd1) * 64'(desc_run_stride_i) +
                         (64'(desc_rows_i) - 64'd1) * 64'(desc_stride_i) + 64'(desc_bytes_i);
  assign desc_chip_end = 64'(desc_row_i) + 64'(desc_runs_i) * 64'(desc_rows_i);

  // A descriptor must describe a legal transfer (the DMA unit faults on anything else).
  assert property (@(posedge clk_i) disable iff (!rst_ni)
                   accept |-> (desc_acc_i ? (int'(desc_bytes_i) <= ACCUMULATOR_ROW_BYTES && desc_bytes_i[1:0] == 2'b00)
                                          : int'(desc_bytes_i) <= SCRATCHPAD_ROW_BYTES))
    else $error("descriptor bytes %0d exceed the on-chip row or are not whole int32 values", desc_bytes_i);
  assert property (@(posedge clk_i) disable iff (!rst_ni)
                   accept |-> desc_chip_end <= (desc_acc_i ? 64'(ACCUMULATOR_ROWS) : 64'(SCRATCHPAD_ROWS)))
    else $error("descriptor rows [%0d, %0d) exceed the on-chip memory", desc_row_i, desc_chip_end);
  assert property (@(posedge clk_i) disable iff (!rst_ni)
                   (accept && desc_runs_i != '0 && desc_rows_i != '0 && desc_bytes_i != '0) |-> desc_last_end <= 64'(DRAM_SIZE))
    else $error("descriptor reaches DRAM byte %0d beyond the DRAM", desc_last_end);
  // Only one-run instructions have a broadcast form.
  assert property (@(posedge clk_i) disable iff (!rst_ni)
                   (accept && desc_bcast_i) |-> desc_runs_i == ROWS_W'(1))
    else $error("a descriptor with a broadcast form has %0d runs, not 1", desc_runs_i);
  // Every beat and burst is non-empty, within its limits and inside the DRAM.
  assert property (@(posedge clk_i) disable iff (!rst_ni)
                   beat_valid_o |-> (beat_bytes_o != '0 && int'(beat_bytes_o) <= BPC &&
                                     burst_len_o != '0 && int'(burst_len_o) <= BURST &&
                                     64'(beat_addr_o) + 64'(beat_bytes_o) <= 64'(DRAM_SIZE)))
    else $error("illegal beat: %0d bytes at %0d (burst of %0d)", beat_bytes_o, beat_addr_o, burst_len_o);
  // A stalled beat holds still.
  assert property (@(posedge clk_i) disable iff (!rst_ni)
                   (beat_valid_o && !beat_ready_i) |=> (beat_valid_o && $stable(beat_addr_o) &&
                                                       $stable(beat_bytes_o) && $stable(beat_first_o)))
    else $error("beat changed while stalled");
  // Responses never outnumber the beats issued.
  assert property (@(posedge clk_i) disable iff (!rst_ni)
                   rsp_valid_i |-> (outstanding_q != '0 || fire))
    else $error("response without an outstanding beat");
`endif

endmodule
