// One of the NPU's on-chip memories, the scratchpad or (ACCUMULATOR = 1) the accumulator, as
// the YAML's banks: row r lives in bank r % BANKS at index r / BANKS (isa::bankConflictCycles'
// interleaving). Each bank is an SRAM with one read port and one write port, one cycle per access.
//
// Reads come in pairs, the two sources of a vector instruction (or a stream's activation and weight
// row): rd_valid_i says which of the two rows are wanted, and the pair is accepted in a cycle with
// rd_ready_o. Two rows in different banks are read in the accept cycle. Two rows in the same bank
// (the rows' difference a multiple of BANKS, whatever the rows) conflict: the first is read in the
// accept cycle, the second CONFLICT cycles later (the YAML's conflict_cycles), and rd_ready_o is
// low in between. So a stream of pairs (a + i, b + i) takes one cycle per pair, plus CONFLICT per
// pair when a and b share a bank: the instruction's bank-conflict cycles. A pair's data leave
// together, one cycle after the read of its last row (rd_data_valid_o per row).
//
// PLAIN_READS more readers (rd2_*: the DMA store, the vector unit) read one row per cycle each on
// read ports of their own in every bank, the data a cycle later, whatever the pair does. A table
// port (tbl_*, TABLE_ROWS > 0: vector_lut's table) reads TABLE_ROWS consecutive rows in one cycle
// and holds them until its next read. 1 + MORE_WRITES writers (wr_*, wr2_*[p]), one row per cycle
// each, always accepted, on write ports of their own in every bank (two writing one row in one
// cycle, which a program whose tokens order its accesses never does, leave the lowest wr2 port's).
// Every read sees the writes of its own cycle (write-first), so a reader that starts in the cycle
// its producer's last row is written reads that row.
//
// Sizes come from the package: rows, row width (the accumulator's SRAM row,
// ACCUMULATOR_SRAM_ROW_BYTES, which holds its types.accumulator values), banks and conflict cycles.
// The contents have no reset (an SRAM's).
module banked_memory
  import systole_pkg::*;
#(
  parameter bit ACCUMULATOR = 1'b0,
  parameter int PLAIN_READS = 1,
  parameter int TABLE_ROWS = 0,
  parameter int MORE_WRITES = 1,
  localparam int TABLE_PORT = TABLE_ROWS > 0 ? TABLE_ROWS : 1,
  localparam int ROWS = ACCUMULATOR ? ACCUMULATOR_ROWS : SCRATCHPAD_ROWS,
  localparam int ROW_BITS = 8 * (ACCUMULATOR ? ACCUMULATOR_SRAM_ROW_BYTES : SCRATCHPAD_ROW_BYTES),
  localparam int ROW_W = ROWS > 1 ? $clog2(ROWS) : 1
) (
  input  logic                     clk_i,
  /* verilator lint_off SYNCASYNCNET */
  input  logic                     rst_ni,
  /* verilator lint_on SYNCASYNCNET */
  input  logic [1:0]               rd_valid_i,
  input  logic [ROW_W-1:0]         rd_row0_i,
  input  logic [ROW_W-1:0]         rd_row1_i,
  output logic                     rd_ready_o,
  output logic [1:0]               rd_data_valid_o,
  output logic [ROW_BITS-1:0]      rd_data0_o,
  output logic [ROW_BITS-1:0]      rd_data1_o,
  input  logic [PLAIN_READS-1:0]                rd2_valid_i,
  input  logic [PLAIN_READS-1:0][ROW_W-1:0]     rd2_row_i,
  output logic [PLAIN_READS-1:0][ROW_BITS-1:0]  rd2_data_o,
  input  logic                                  tbl_valid_i,
  input  logic [ROW_W-1:0]                      tbl_row_i,
  output logic [TABLE_PORT-1:0][ROW_BITS-1:0]   tbl_data_o,
  input  logic                     wr_valid_i,
  input  logic [ROW_W-1:0]         wr_row_i,
  input  logic [ROW_BITS-1:0]      wr_data_i,
  input  logic [MORE_WRITES-1:0]                wr2_valid_i,
  input  logic [MORE_WRITES-1:0][ROW_W-1:0]     wr2_row_i,
  input  logic [MORE_WRITES-1:0][ROW_BITS-1:0]  wr2_data_i
);
  localparam int BANKS = ACCUMULATOR ? ACCUMULATOR_BANKS : SCRATCHPAD_BANKS;
  localparam int CONFLICT = ACCUMULATOR ? ACCUMULATOR_CONFLICT_CYCLES : SCRATCHPAD_CONFLICT_CYCLES;
  localparam int BANK_ROWS = (ROWS + BANKS - 1) / BANKS;
  localparam int BANK_W = BANKS > 1 ? $clog2(BANKS) : 1;
  localparam int INDEX_W = BANK_ROWS > 1 ? $clog2(BANK_ROWS) : 1;
  localparam int COUNT_W = $clog2(CONFLICT + 1) + 1;

  function automatic logic [BANK_W-1:0] bank_of(logic [ROW_W-1:0] row);
    bank_of = BANK_W'(32'(row) % BANKS);
  endfunction
  function automatic logic [INDEX_W-1:0] index_of(logic [ROW_W-1:0] row);
    index_of = INDEX_W'(32'(row) / BANKS);
  endfunction

  // The second row of a conflicting pair, waiting for its bank.
  logic                 pending_q;
  logic [COUNT_W-1:0]   wait_q;        // cycles until it is read (1: in this cycle)
  logic [ROW_W-1:0]     pending_row_q;

  assign rd_ready_o = !pending_q;
  wire accept = rd_ready_o && rd_valid_i != 2'b00;
  wire conflict = accept && rd_valid_i == 2'b11 && bank_of(rd_row0_i) == bank_of(rd_row1_i) && CONFLICT > 0;
  wire pending_read = pending_q && wait_q == COUNT_W'(1);

  // Each bank's one read this cycle: row 0 of an accepted pair, its row 1 without a conflict, or
  // the pending row.
  logic [BANKS-1:0] bank_read;
  logic [INDEX_W-1:0] bank_index [BANKS];
  always_comb begin
    for (int b = 0; b < BANKS; b++) begin
      bank_read[b] = 1'b0;
      bank_index[b] = '0;
    end
    if (accept && rd_valid_i[0]) begin
      bank_read[bank_of(rd_row0_i)] = 1'b1;
      bank_index[bank_of(rd_row0_i)] = index_of(rd_row0_i);
    end
    if (accept && rd_valid_i[1] && !conflict) begin
      bank_read[bank_of(rd_row1_i)] = 1'b1;
      bank_index[bank_of(rd_row1_i)] = index_of(rd_row1_i);
    end
    if (pending_read) begin
      bank_read[bank_of(pending_row_q)] = 1'b1;
      bank_index[bank_of(pending_row_q)] = index_of(pending_row_q);
    end
  end

  // A row as a read of this cycle sees it: written this cycle, or the bank's.
  function automatic logic [ROW_BITS-1:0] fresh(logic [ROW_W-1:0] row, logic [ROW_BITS-1:0] stored);
    fresh = stored;
    if (wr_valid_i && wr_row_i == row) fresh = wr_data_i;
    for (int p = MORE_WRITES - 1; p >= 0; p--) if (wr2_valid_i[p] && wr2_row_i[p] == row) fresh = wr2_data_i[p];
  endfunction
  logic [ROW_W-1:0] bank_row [BANKS];  // each bank's row read this cycle (by the pair)
  always_comb
    for (int b = 0; b < BANKS; b++) bank_row[b] = ROW_W'(32'(bank_index[b]) * BANKS + b);

  logic [ROW_BITS-1:0] bank_q [BANKS];                     // each bank's last read
  logic [PLAIN_READS-1:0][ROW_BITS-1:0] bank2_q [BANKS];  // and its plain ports'
  logic [PLAIN_READS-1:0][BANK_W-1:0] rd2_bank_q;
  logic [TABLE_PORT-1:0][ROW_BITS-1:0] bank_table_q [BANKS];  // and its rows of the table
  for (genvar b = 0; b < BANKS; b++) begin : g_bank
    logic [ROW_BITS-1:0] mem [BANK_ROWS];
    logic [ROW_BITS-1:0] read_q;
    logic [PLAIN_READS-1:0][ROW_BITS-1:0] read2_q;
    logic [TABLE_PORT-1:0][ROW_BITS-1:0] table_q;
    always_ff @(posedge clk_i) begin
      if (bank_read[b]) read_q <= fresh(bank_row[b], mem[bank_index[b]]);
      for (int p = 0; p < PLAIN_READS; p++)
        if (rd2_valid_i[p] && bank_of(rd2_row_i[p]) == BANK_W'(b))
          read2_q[p] <= fresh(rd2_row_i[p], mem[index_of(rd2_row_i[p])]);
      if (TABLE_ROWS > 0 && tbl_valid_i)
        for (int k = 0; k < TABLE_ROWS; k++)
          if (bank_of(ROW_W'(32'(tbl_row_i) + k)) == BANK_W'(b))
            table_q[k] <= fresh(ROW_W'(32'(tbl_row_i) + k), mem[index_of(ROW_W'(32'(tbl_row_i) + k))]);
      if (wr_valid_i && bank_of(wr_row_i) == BANK_W'(b)) mem[index_of(wr_row_i)] <= wr_data_i;
      for (int p = MORE_WRITES - 1; p >= 0; p--)
        if (wr2_valid_i[p] && bank_of(wr2_row_i[p]) == BANK_W'(b)) mem[index_of(wr2_row_i[p])] <= wr2_data_i[p];
    end
    assign bank_q[b] = read_q;
    assign bank2_q[b] = read2_q;
    assign bank_table_q[b] = table_q;
  end
  always_ff @(posedge clk_i)
    for (int p = 0; p < PLAIN_READS; p++) if (rd2_valid_i[p]) rd2_bank_q[p] <= bank_of(rd2_row_i[p]);
  always_comb
    for (int p = 0; p < PLAIN_READS; p++) rd2_data_o[p] = bank2_q[rd2_bank_q[p]][p];
  logic [ROW_W-1:0] tbl_row_q;
  always_ff @(posedge clk_i)
    if (tbl_valid_i) tbl_row_q <= tbl_row_i;
  always_comb
    for (int k = 0; k < TABLE_PORT; k++) tbl_data_o[k] = bank_table_q[bank_of(ROW_W'(32'(tbl_row_q) + k))][k];

  // Where each row's data is when the pair leaves: a bank's read register, or (the first row of a
  // conflicting pair, whose bank has been read again since) a held copy.
  logic [1:0]          out_valid_q;
  logic [BANK_W-1:0]   out_bank0_q, out_bank1_q;
  logic                hold_first_q, held_q;
  logic [ROW_BITS-1:0] hold_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pending_q <= 1'b0;
      wait_q <= '0;
      pending_row_q <= '0;
      out_valid_q <= '0;
      out_bank0_q <= '0;
      out_bank1_q <= '0;
      hold_first_q <= 1'b0;
      held_q <= 1'b0;
    end else begin
      out_valid_q <= '0;
      hold_first_q <= conflict;
      if (accept && !conflict) begin
        out_valid_q <= rd_valid_i;
        out_bank0_q <= bank_of(rd_row0_i);
        out_bank1_q <= bank_of(rd_row1_i);
        held_q <= 1'b0;
      end
      if (conflict) begin
        pending_q <= 1'b1;
        wait_q <= COUNT_W'(CONFLICT);
        pending_row_q <= rd_row1_i;
        out_bank0_q <= bank_of(rd_row0_i);
      end
      if (pending_q) wait_q <= wait_q - COUNT_W'(1);
      if (pending_read) begin
        pending_q <= 1'b0;
        out_valid_q <= 2'b11;
        out_bank1_q <= bank_of(pending_row_q);
        held_q <= 1'b1;
      end
    end
  end
  always_ff @(posedge clk_i) begin
    if (hold_first_q) hold_q <= bank_q[out_bank0_q];
  end

  assign rd_data_valid_o = out_valid_q;
  assign rd_data0_o = held_q ? hold_q : bank_q[out_bank0_q];
  assign rd_data1_o = bank_q[out_bank1_q];

`ifndef SYNTHESIS
  assert property (@(posedge clk_i) disable iff (!rst_ni) accept && rd_valid_i[0] |-> 32'(rd_row0_i) < ROWS)
    else $error("banked_memory: read row %0d beyond the %0d rows", rd_row0_i, ROWS);
  assert property (@(posedge clk_i) disable iff (!rst_ni) accept && rd_valid_i[1] |-> 32'(rd_row1_i) < ROWS)
    else $error("banked_memory: read row %0d beyond the %0d rows", rd_row1_i, ROWS);
  assert property (@(posedge clk_i) disable iff (!rst_ni) wr_valid_i |-> 32'(wr_row_i) < ROWS)
    else $error("banked_memory: write row %0d beyond the %0d rows", wr_row_i, ROWS);
  for (genvar p = 0; p < MORE_WRITES; p++) begin : g_write_assert
    assert property (@(posedge clk_i) disable iff (!rst_ni) wr2_valid_i[p] |-> 32'(wr2_row_i[p]) < ROWS)
      else $error("banked_memory: write row %0d beyond the %0d rows", wr2_row_i[p], ROWS);
  end
  for (genvar p = 0; p < PLAIN_READS; p++) begin : g_plain_assert
    assert property (@(posedge clk_i) disable iff (!rst_ni) rd2_valid_i[p] |-> 32'(rd2_row_i[p]) < ROWS)
      else $error("banked_memory: read row %0d beyond the %0d rows", rd2_row_i[p], ROWS);
  end
`endif
endmodule
