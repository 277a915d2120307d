// The NPU's control and timing: instruction fetch and decode (the encodings and timing expressions
// of the YAML, from systole_pkg::decode), dispatch into the load, compute and store queues, the
// units' issue logic with their dependency tokens, the compute scoreboard and the DRAM data
// channel shared by the two DMA units. It runs a program's instructions with the YAML's timing and
// reports each one's start and completion (npu_dpi_pkg) and the total cycles: the cycle in which
// everything dispatched has completed.
//
// Dispatch: one instruction per cycle in program order, into its unit's queue, waiting while that
// queue is full; nothing after `finish`. The DRAM channel moves one beat per cycle, for the older
// of the two DMA units' transfers (lower program index) when both ask.
module npu_top
  import systole_pkg::*;
  import npu_dpi_pkg::*;
(
  input  logic         clk_i,
  input  logic         rst_ni,
  input  logic [31:0]  program_length_i,
  output logic         done_o,
  output logic [63:0]  cycles_o,
  output logic         fault_o,           // an unknown opcode or a token FIFO overflow
  output logic [63:0]  load_busy_o,
  output logic [63:0]  store_busy_o,
  output logic [63:0]  array_busy_o,
  output logic [63:0]  vector_busy_o,
  output logic [63:0]  scoreboard_full_o,
  // Stall cycles by unit (load, compute, store) and cause (sim::StallCause: token, queue_full,
  // dram_bandwidth, bank_conflict, hazard).
  output logic [2:0][4:0][63:0] stall_cycles_o,
  output logic         beats_exceed_occupancy_o,
  output logic         write_conflict_o,   // two rows for one write port in one cycle (a load's row and a
                                           // pending fill)
  output logic [63:0]  uncomputed_o        // compute instructions started but not computed (no data path)
);
  logic [63:0] now_q;

  // Fetch and dispatch.
  logic [31:0] pc_q;
  logic [INSTR_BITS-1:0] word_q;
  logic closed_q;
  instr_t fetched;
  assign fetched = decode(word_q);
  logic [2:0] queue_ready, queue_pop, head_valid;
  logic [31:0] head_index[3];
  instr_t head_instr[3];
  wire [1:0] fetched_unit = fetched.unit;
  logic started_q;  // the first word is fetched: cycle 0 of the program
  wire open_ = started_q && !closed_q && pc_q < program_length_i;
  // Not a loop in fact: a queue's readiness depends on its pop only when it is full, and then its
  // head is a stored entry, not the one being dispatched.
  /* verilator lint_off UNOPTFLAT */
  wire dispatch = open_ && fetched.known && queue_ready[fetched_unit];
  /* verilator lint_on UNOPTFLAT */
  wire unknown = open_ && !fetched.known;

  always_ff @(posedge clk_i or negedge rst_ni) begin : fetch
    logic [INSTR_BITS-1:0] word;
    if (!rst_ni) begin
      pc_q <= '0;
      closed_q <= 1'b0;
      word_q <= '0;
      started_q <= 1'b0;
    end else if (!started_q) begin
      if (program_length_i != '0) begin
        npu_fetch(0, word);
        word_q <= word;
      end
      started_q <= 1'b1;
    end else if (dispatch) begin
      pc_q <= pc_q + 1;
      if (int'(fetched.semantics) == SEM_FINISH) closed_q <= 1'b1;
      if (pc_q + 1 < program_length_i) begin
        npu_fetch(pc_q + 1, word);
        word_q <= word;
      end
    end
  end

  for (genvar u = 0; u < 3; u++) begin : g_queue
    npu_queue #(.UNIT(u)) u_queue (
      .clk_i, .rst_ni, .push_i(dispatch && int'(fetched_unit) == u), .push_index_i(pc_q), .push_instr_i(fetched),
      .ready_o(queue_ready[u]), .head_valid_o(head_valid[u]), .head_index_o(head_index[u]),
      .head_instr_o(head_instr[u]), .pop_i(queue_pop[u]));
  end

  // Tokens: channel 0 load->compute, 1 compute->load, 2 compute->store, 3 store->compute.
  logic [3:0] token_push, token_pop, token_available, token_overflow;
  logic [63:0] token_cycle[4];
  for (genvar c = 0; c < 4; c++) begin : g_tokens
    npu_token_fifo u_fifo (
      .clk_i, .rst_ni, .now_i(now_q), .push_i(token_push[c]), .push_cycle_i(token_cycle[c]),
      .available_o(token_available[c]), .pop_i(token_pop[c]), .overflow_o(token_overflow[c]));
  end

  // The DRAM data channel.
  logic load_request, store_request;
  logic [31:0] load_age, store_age;
  wire load_grant = load_request && (!store_request || load_age < store_age);
  wire store_grant = store_request && !load_grant;

  logic [63:0] load_push_cycle, compute_push_cycle, store_push_cycle;
  logic load_broadcast, unused_store_broadcast;
  logic [63:0] load_row_beats, store_row_beats;
  logic load_quiet, compute_quiet, store_quiet, load_exceeds, store_exceeds;
  logic unused_load_prev, unused_store_next, unused_load_push, unused_store_push;  // no neighbour there
  npu_dma_unit #(.UNIT(UNIT_LOAD)) u_load (
    .clk_i, .rst_ni, .now_i(now_q), .head_valid_i(head_valid[0]), .head_index_i(head_index[0]),
    .head_instr_i(head_instr[0]), .pop_o(queue_pop[0]), .token_prev_i(1'b0), .token_next_i(token_available[1]),
    .pop_prev_o(unused_load_prev), .pop_next_o(token_pop[1]), .push_prev_o(unused_load_push), .push_next_o(token_push[0]),
    .push_cycle_o(load_push_cycle), .beat_request_o(load_request), .beat_index_o(load_age),
    .beat_grant_i(load_grant), .quiet_o(load_quiet),
    .broadcast_o(load_broadcast), .row_beats_o(load_row_beats), .busy_o(load_busy_o), .token_stall_o(stall_cycles_o[0][0]),
    .dram_stall_o(stall_cycles_o[0][2]), .beats_exceed_occupancy_o(load_exceeds));
  npu_compute_unit u_compute (
    .clk_i, .rst_ni, .now_i(now_q), .head_valid_i(head_valid[1]), .head_index_i(head_index[1]),
    .head_instr_i(head_instr[1]), .pop_o(queue_pop[1]), .token_prev_i(token_available[0]),
    .token_next_i(token_available[3]), .pop_prev_o(token_pop[0]), .pop_next_o(token_pop[3]),
    .push_prev_o(token_push[1]), .push_next_o(token_push[2]), .push_cycle_o(compute_push_cycle),
    .quiet_o(compute_quiet), .array_busy_o, .vector_busy_o, .scoreboard_full_o, .token_stall_o(stall_cycles_o[1][0]),
    .hazard_stall_o(stall_cycles_o[1][4]), .bank_stall_o(stall_cycles_o[1][3]));
  npu_dma_unit #(.UNIT(UNIT_STORE)) u_store (
    .clk_i, .rst_ni, .now_i(now_q), .head_valid_i(head_valid[2]), .head_index_i(head_index[2]),
    .head_instr_i(head_instr[2]), .pop_o(queue_pop[2]), .token_prev_i(token_available[2]), .token_next_i(1'b0),
    .pop_prev_o(token_pop[2]), .pop_next_o(unused_store_next), .push_prev_o(token_push[3]), .push_next_o(unused_store_push),
    .push_cycle_o(store_push_cycle), .beat_request_o(store_request), .beat_index_o(store_age),
    .beat_grant_i(store_grant), .quiet_o(store_quiet),
    .broadcast_o(unused_store_broadcast), .row_beats_o(store_row_beats), .busy_o(store_busy_o), .token_stall_o(stall_cycles_o[2][0]),
    .dram_stall_o(stall_cycles_o[2][2]), .beats_exceed_occupancy_o(store_exceeds));
  assign token_cycle[0] = load_push_cycle;
  assign token_cycle[1] = compute_push_cycle;
  assign token_cycle[2] = compute_push_cycle;
  assign token_cycle[3] = store_push_cycle;
  assign beats_exceed_occupancy_o = load_exceeds || store_exceeds;

  // The on-chip memories and their users: the load unit writes them (first write port), the store
  // unit reads them (plain read port 0), the compute unit's array path reads them (the read pair's
  // first row, the weight rows of a stream or a weight-channel preload on the scratchpad's plain
  // port 3) and writes the accumulator;
  // the vector path reads them on plain ports of its own (and the scratchpad's table port) and
  // writes both (the ports at the banked_memory instances below).
  localparam int SPAD_BITS = 8 * SCRATCHPAD_ROW_BYTES;
  localparam int ACC_BITS = 8 * ACCUMULATOR_SRAM_ROW_BYTES;
  localparam int SPAD_ROW_W = SCRATCHPAD_ROWS > 1 ? $clog2(SCRATCHPAD_ROWS) : 1;
  localparam int ACC_ROW_W = ACCUMULATOR_ROWS > 1 ? $clog2(ACCUMULATOR_ROWS) : 1;
  logic spad_wr, acc_wr, spad_rd, acc_rd, spad_rd_valid_q, acc_rd_valid_q;
  logic array_spad_rd, array_acc_rd, array_acc_wr, load_conflict, array_weight_rd;
  /* verilator lint_off UNUSEDSIGNAL */  // row numbers past the scratchpad's rows
  logic [31:0] array_weight_row;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [8 * SCRATCHPAD_ROW_BYTES-1:0] array_weight_data;
  /* verilator lint_off UNUSEDSIGNAL */  // row numbers past the memories' rows
  logic [31:0] wr_row, rd_row, array_spad_row, array_acc_row, array_acc_wr_row;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [SPAD_BITS-1:0] spad_wr_data, spad_rd_data, array_spad_data;
  logic [ACC_BITS-1:0] acc_wr_data, acc_rd_data, array_acc_data, array_acc_wr_data;
  /* verilator lint_off UNUSEDSIGNAL */  // the ports each direction leaves unused
  logic [31:0] unused_rd_row, unused_wr_row;
  logic unused_spad_rd, unused_acc_rd, unused_spad_wr, unused_acc_wr, unused_conflict;
  logic [SPAD_BITS-1:0] unused_spad_data;
  logic [ACC_BITS-1:0] unused_acc_data;
  logic [1:0] unused_spad_valid, unused_acc_valid;
  logic [SPAD_BITS-1:0] unused_spad_rd1;
  logic [ACC_BITS-1:0] unused_acc_rd1;
  logic unused_spad_ready, unused_acc_ready;
  /* verilator lint_on UNUSEDSIGNAL */
  npu_dma_data #(.STORE(1'b0)) u_load_data (
    .clk_i, .rst_ni, .start_i(queue_pop[0]), .head_instr_i(head_instr[0]), .broadcast_i(load_broadcast),
    .row_beats_i(load_row_beats), .beat_i(load_grant), .spad_wr_o(spad_wr), .acc_wr_o(acc_wr), .wr_row_o(wr_row),
    .spad_wr_data_o(spad_wr_data), .acc_wr_data_o(acc_wr_data), .spad_rd_o(unused_spad_rd), .acc_rd_o(unused_acc_rd),
    .rd_row_o(unused_rd_row), .spad_rd_valid_i(1'b0), .spad_rd_data_i('0), .acc_rd_valid_i(1'b0), .acc_rd_data_i('0),
    .write_conflict_o(load_conflict));
  npu_dma_data #(.STORE(1'b1)) u_store_data (
    .clk_i, .rst_ni, .start_i(queue_pop[2]), .head_instr_i(head_instr[2]), .broadcast_i(1'b0),
    .row_beats_i(store_row_beats), .beat_i(store_grant), .spad_wr_o(unused_spad_wr), .acc_wr_o(unused_acc_wr),
    .wr_row_o(unused_wr_row), .spad_wr_data_o(unused_spad_data), .acc_wr_data_o(unused_acc_data), .spad_rd_o(spad_rd),
    .acc_rd_o(acc_rd), .rd_row_o(rd_row), .spad_rd_valid_i(spad_rd_valid_q), .spad_rd_data_i(spad_rd_data),
    .acc_rd_valid_i(acc_rd_valid_q), .acc_rd_data_i(acc_rd_data), .write_conflict_o(unused_conflict));
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) {spad_rd_valid_q, acc_rd_valid_q} <= '0;
    else {spad_rd_valid_q, acc_rd_valid_q} <= {spad_rd, acc_rd};
  end
  logic array_handles, array_overrun, vector_handles;
  logic [31:0] array_overrun_index;
  npu_array_path u_array_path (
    .clk_i, .rst_ni, .start_i(queue_pop[1]), .head_index_i(head_index[1]), .head_instr_i(head_instr[1]),
    .handles_o(array_handles), .spad_rd_o(array_spad_rd), .spad_row_o(array_spad_row), .spad_data_i(array_spad_data),
    .weight_rd_o(array_weight_rd), .weight_row_o(array_weight_row), .weight_data_i(array_weight_data),
    .acc_rd_o(array_acc_rd), .acc_row_o(array_acc_row), .acc_data_i(array_acc_data), .acc_wr_o(array_acc_wr),
    .acc_wr_row_o(array_acc_wr_row), .acc_wr_data_o(array_acc_wr_data), .overrun_o(array_overrun),
    .overrun_index_o(array_overrun_index));
  logic [2:0] vector_acc_rd;
  logic [2:0][31:0] vector_acc_row;
  logic [2:0][ACC_BITS-1:0] vector_acc_data;
  logic [1:0] vector_spad_rd;
  logic [1:0][31:0] vector_spad_row;
  logic [1:0][SPAD_BITS-1:0] vector_spad_data;
  logic vector_table_rd, vector_spad_wr;
  logic [2:0] vector_acc_wr;
  /* verilator lint_off UNUSEDSIGNAL */  // row numbers past the memories' rows
  logic [31:0] vector_table_row, vector_spad_wr_row;
  logic [2:0][31:0] vector_acc_wr_row;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [LUT_ROWS-1:0][SPAD_BITS-1:0] vector_table_data;
  logic [SPAD_BITS-1:0] vector_spad_wr_data;
  logic [2:0][ACC_BITS-1:0] vector_acc_wr_data;
  npu_vector_path u_vector_path (
    .clk_i, .rst_ni, .start_i(queue_pop[1]), .head_instr_i(head_instr[1]), .handles_o(vector_handles),
    .acc_rd_o(vector_acc_rd), .acc_row_o(vector_acc_row), .acc_data_i(vector_acc_data), .spad_rd_o(vector_spad_rd),
    .spad_row_o(vector_spad_row), .spad_data_i(vector_spad_data), .table_rd_o(vector_table_rd),
    .table_row_o(vector_table_row), .table_data_i(vector_table_data), .spad_wr_o(vector_spad_wr),
    .spad_wr_row_o(vector_spad_wr_row), .spad_wr_data_o(vector_spad_wr_data), .acc_wr_o(vector_acc_wr),
    .acc_wr_row_o(vector_acc_wr_row), .acc_wr_data_o(vector_acc_wr_data));
  // The array path and the vector path's element-wise, reduced and reciprocal rows each write the
  // accumulator on a port of their own: a vector instruction may start while a matmul's rows
  // still drain (`issue: m`), and each vector latency differs.
  assign write_conflict_o = load_conflict;

  // Compute instructions started that no data path computed (nop and finish need none).
  wire [4:0] compute_semantics = head_instr[1].semantics;
  wire needs_datapath = int'(compute_semantics) != SEM_NOP && int'(compute_semantics) != SEM_FINISH;
  wire not_computed = queue_pop[1] && needs_datapath && !array_handles && !vector_handles;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) uncomputed_o <= '0;
    else begin
      uncomputed_o <= uncomputed_o + 64'(not_computed) + 64'(array_overrun);
      if (not_computed) npu_not_computed(head_index[1]);
      if (array_overrun) npu_not_computed(array_overrun_index);
    end
  end
  // The scratchpad's plain read ports: 0 the DMA store, 1 and 2 the vector path, 3 the array
  // path's weight rows.
  logic [3:0][SPAD_BITS-1:0] spad_plain_data;
  banked_memory #(.ACCUMULATOR(1'b0), .PLAIN_READS(4), .TABLE_ROWS(LUT_ROWS)) u_scratchpad (
    .clk_i, .rst_ni, .rd_valid_i({1'b0, array_spad_rd}), .rd_row0_i(SPAD_ROW_W'(array_spad_row)), .rd_row1_i('0),
    .rd_ready_o(unused_spad_ready), .rd_data_valid_o(unused_spad_valid), .rd_data0_o(array_spad_data),
    .rd_data1_o(unused_spad_rd1), .rd2_valid_i({array_weight_rd, vector_spad_rd, spad_rd}),
    .rd2_row_i({SPAD_ROW_W'(array_weight_row), SPAD_ROW_W'(vector_spad_row[1]), SPAD_ROW_W'(vector_spad_row[0]),
                SPAD_ROW_W'(rd_row)}),
    .rd2_data_o(spad_plain_data), .tbl_valid_i(vector_table_rd), .tbl_row_i(SPAD_ROW_W'(vector_table_row)),
    .tbl_data_o(vector_table_data), .wr_valid_i(spad_wr), .wr_row_i(SPAD_ROW_W'(wr_row)), .wr_data_i(spad_wr_data),
    .wr2_valid_i(vector_spad_wr), .wr2_row_i(SPAD_ROW_W'(vector_spad_wr_row)), .wr2_data_i(vector_spad_wr_data));
  assign spad_rd_data = spad_plain_data[0];
  assign vector_spad_data = spad_plain_data[2:1];
  assign array_weight_data = spad_plain_data[3];
  // The accumulator's plain read ports: 0 the DMA store, 1 to 3 the vector path.
  logic [3:0][ACC_BITS-1:0] acc_plain_data;
  /* verilator lint_off UNUSEDSIGNAL */  // no table in the accumulator
  logic [ACC_BITS-1:0] unused_acc_table;
  /* verilator lint_on UNUSEDSIGNAL */
  banked_memory #(.ACCUMULATOR(1'b1), .PLAIN_READS(4), .MORE_WRITES(4)) u_accumulator (
    .clk_i, .rst_ni, .rd_valid_i({1'b0, array_acc_rd}), .rd_row0_i(ACC_ROW_W'(array_acc_row)), .rd_row1_i('0),
    .rd_ready_o(unused_acc_ready), .rd_data_valid_o(unused_acc_valid), .rd_data0_o(array_acc_data),
    .rd_data1_o(unused_acc_rd1), .rd2_valid_i({vector_acc_rd, acc_rd}),
    .rd2_row_i({ACC_ROW_W'(vector_acc_row[2]), ACC_ROW_W'(vector_acc_row[1]), ACC_ROW_W'(vector_acc_row[0]),
                ACC_ROW_W'(rd_row)}),
    .rd2_data_o(acc_plain_data), .tbl_valid_i(1'b0), .tbl_row_i('0), .tbl_data_o(unused_acc_table),
    .wr_valid_i(acc_wr), .wr_row_i(ACC_ROW_W'(wr_row)), .wr_data_i(acc_wr_data),
    .wr2_valid_i({vector_acc_wr, array_acc_wr}),
    .wr2_row_i({ACC_ROW_W'(vector_acc_wr_row[2]), ACC_ROW_W'(vector_acc_wr_row[1]), ACC_ROW_W'(vector_acc_wr_row[0]),
                ACC_ROW_W'(array_acc_wr_row)}),
    .wr2_data_i({vector_acc_wr_data, array_acc_wr_data}));
  assign acc_rd_data = acc_plain_data[0];
  assign vector_acc_data = acc_plain_data[3:1];

  // Dispatch held by a full queue: a queue_full stall of that queue's unit. The causes a unit
  // cannot have are zero: bank conflicts and hazards on the DMA units, DRAM waits on compute.
  logic [2:0][63:0] queue_full_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) queue_full_q <= '0;
    else if (open_ && fetched.known && !queue_ready[fetched_unit]) queue_full_q[fetched_unit] <= queue_full_q[fetched_unit] + 1;
  end
  for (genvar u = 0; u < 3; u++) begin : g_queue_full
    assign stall_cycles_o[u][1] = queue_full_q[u];
  end
  assign stall_cycles_o[0][3] = '0;
  assign stall_cycles_o[0][4] = '0;
  assign stall_cycles_o[1][2] = '0;
  assign stall_cycles_o[2][3] = '0;
  assign stall_cycles_o[2][4] = '0;

  // Done: nothing left to dispatch, every queue empty, every unit quiet.
  wire drained = started_q && (closed_q || pc_q >= program_length_i) && head_valid == '0 && load_quiet && compute_quiet &&
                 store_quiet;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      now_q <= '0;
      done_o <= 1'b0;
      cycles_o <= '0;
      fault_o <= 1'b0;
    end else if (started_q && !done_o) begin
      now_q <= now_q + 1;
      if (drained || fault_o) begin
        done_o <= 1'b1;
        cycles_o <= now_q;
      end
      if (unknown || token_overflow != '0) fault_o <= 1'b1;
    end
  end
endmodule
