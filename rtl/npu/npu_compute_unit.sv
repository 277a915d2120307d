// The compute unit's issue logic: it starts its queue's head in the first cycle in which
//   - its issue path is free (isa::IssuePaths: one start per cycle, in program order; the main
//     path is held for an instruction's occupancy, the weight path (two weight sets) only for its
//     start cycle, the vector path (vector.parallel) for a vector class's occupancy),
//   - the tokens it pops have arrived,
//   - no instruction still in flight writes rows it reads or touches rows it writes (a matmul
//     after a matmul excepted: one array pipeline), its weight set is free and the weights it
//     reads are loaded (isa::ComputeScoreboard), and, for finish, every earlier one completed;
// and the instruction completes `cycles + bank conflict cycles` later. The scoreboard holds
// SCOREBOARD_SLOTS instructions in flight; a start that finds none free waits (counted in
// scoreboard_full_o; the simulator has no such limit).
module npu_compute_unit
  import systole_pkg::*;
  import npu_dpi_pkg::*;
(
  input  logic         clk_i,
  input  logic         rst_ni,
  input  logic [63:0]  now_i,
  input  logic         head_valid_i,
  input  logic [31:0]  head_index_i,
  input  instr_t       head_instr_i,
  output logic         pop_o,
  input  logic         token_prev_i,   // a token from the load unit may be popped
  input  logic         token_next_i,   // ... from the store unit
  output logic         pop_prev_o,
  output logic         pop_next_o,
  output logic         push_prev_o,
  output logic         push_next_o,
  output logic [63:0]  push_cycle_o,   // the cycle the pushed token becomes available
  output logic         quiet_o,        // nothing in flight, the unit free
  output logic [63:0]  array_busy_o,   // cycles the array's input was occupied
  output logic [63:0]  vector_busy_o,  // cycles the vector unit was occupied
  output logic [63:0]  scoreboard_full_o,
  output logic [63:0]  token_stall_o,    // cycles the head waited only for a token
  output logic [63:0]  hazard_stall_o,   // ... for results, weights or (finish) completions in flight
  output logic [63:0]  bank_stall_o      // cycles lost to bank conflicts
);
  localparam int SLOTS = 32;
  localparam int WEIGHT_SETS = ARRAY_WEIGHT_BUFFERS > 1 ? 2 : 1;

  // The head's accesses.
  logic [2:0] rd_valid, rd_acc;
  logic [31:0] rd_lo[3], rd_hi[3];
  logic wr_valid, wr_acc, array_product, reads_weights, writes_weights, vector_class;
  logic [31:0] wr_lo, wr_hi;
  logic [63:0] conflict_cycles;
  npu_compute_accesses u_accesses (
    .instr_i(head_instr_i), .read_valid_o(rd_valid), .read_acc_o(rd_acc), .read_lo_o(rd_lo), .read_hi_o(rd_hi),
    .write_valid_o(wr_valid), .write_acc_o(wr_acc), .write_lo_o(wr_lo), .write_hi_o(wr_hi),
    .array_product_o(array_product), .reads_weights_o(reads_weights), .writes_weights_o(writes_weights),
    .vector_class_o(vector_class), .conflict_cycles_o(conflict_cycles));

  // The scoreboard: per slot, an instruction in flight (until its completion) and its rows.
  logic [63:0] until_q[SLOTS];
  logic slot_array_q[SLOTS];
  logic [2:0] slot_rd_valid_q[SLOTS], slot_rd_acc_q[SLOTS];
  logic [31:0] slot_rd_lo_q[SLOTS][3], slot_rd_hi_q[SLOTS][3];
  logic slot_wr_valid_q[SLOTS], slot_wr_acc_q[SLOTS];
  logic [31:0] slot_wr_lo_q[SLOTS], slot_wr_hi_q[SLOTS];

  function automatic logic overlaps(logic a_acc, logic [31:0] a_lo, logic [31:0] a_hi, logic b_acc,
                                    logic [31:0] b_lo, logic [31:0] b_hi);
    return a_acc == b_acc && a_lo < b_hi && b_lo < a_hi;
  endfunction

  logic hazard, have_slot;
  logic [$clog2(SLOTS)-1:0] free_slot;
  always_comb begin
    hazard = 1'b0;
    have_slot = 1'b0;
    free_slot = 0;
    for (int e = 0; e < SLOTS; e++) begin
      if (until_q[e] <= now_i) begin
        if (!have_slot) free_slot = $clog2(SLOTS)'(e);
        have_slot = 1'b1;
      end else if (!(array_product && slot_array_q[e])) begin
        if (slot_wr_valid_q[e])
          for (int k = 0; k < 3; k++)
            if (rd_valid[k] && overlaps(slot_wr_acc_q[e], slot_wr_lo_q[e], slot_wr_hi_q[e], rd_acc[k], rd_lo[k], rd_hi[k]))
              hazard = 1'b1;
        if (wr_valid) begin
          if (slot_wr_valid_q[e] && overlaps(slot_wr_acc_q[e], slot_wr_lo_q[e], slot_wr_hi_q[e], wr_acc, wr_lo, wr_hi))
            hazard = 1'b1;
          for (int k = 0; k < 3; k++)
            if (slot_rd_valid_q[e][k] &&
                overlaps(slot_rd_acc_q[e][k], slot_rd_lo_q[e][k], slot_rd_hi_q[e][k], wr_acc, wr_lo, wr_hi))
              hazard = 1'b1;
        end
      end
    end
  end

  // The array's weight sets: when the preload that filled each completes, and when the last
  // matmul reading it does.
  logic [63:0] set_ready_q[WEIGHT_SETS], set_freed_q[WEIGHT_SETS], last_preload_end_q;
  logic [0:0] fill_set_q;      // the set the next preload fills
  // The latest preload's set (before any, the last set, as isa::ComputeScoreboard).
  wire [0:0] read_set = WEIGHT_SETS > 1 ? ~fill_set_q : fill_set_q;
  wire weights_ok = (!writes_weights || (now_i >= set_ready_q[fill_set_q] && now_i >= set_freed_q[fill_set_q] &&
                                         now_i >= last_preload_end_q)) &&
                    (!reads_weights || now_i >= set_ready_q[read_set]);

  // Issue paths and completion.
  logic [63:0] main_q, vector_q, order_q, last_end_q, array_until_q, vector_until_q;
  wire weight_path = writes_weights && ARRAY_WEIGHT_BUFFERS > 1;
  wire vector_path = VECTOR_PARALLEL != 0 && vector_class;
  wire [63:0] path_free = weight_path ? order_q : vector_path ? (order_q > vector_q ? order_q : vector_q)
                                                              : (order_q > main_q ? order_q : main_q);
  wire on_array = array_product || (writes_weights && !weight_path);  // holds the array's input
  wire is_finish = int'(head_instr_i.semantics) == SEM_FINISH;
  wire records = rd_valid != '0 || wr_valid;
  wire tokens_ok = (!head_instr_i.tokens[0] || token_prev_i) && (!head_instr_i.tokens[1] || token_next_i);
  wire issuable = head_valid_i && now_i >= path_free;
  wire data_ready = !hazard && weights_ok && (!is_finish || now_i >= last_end_q);
  wire ready = issuable && tokens_ok && data_ready;
  wire start = ready && (!records || have_slot);
  wire [63:0] done = now_i + head_instr_i.cycles + conflict_cycles;
  wire [63:0] occupied_until = now_i + head_instr_i.occupancy + conflict_cycles;
  wire [63:0] end_cycle = done > last_end_q ? done : last_end_q;  // tokens never overtake earlier results

  assign pop_o = start;
  assign pop_prev_o = start && head_instr_i.tokens[0];
  assign pop_next_o = start && head_instr_i.tokens[1];
  assign push_prev_o = start && head_instr_i.tokens[2];
  assign push_next_o = start && head_instr_i.tokens[3];
  assign push_cycle_o = end_cycle;
  assign quiet_o = now_i >= main_q && now_i >= vector_q && now_i >= last_end_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int e = 0; e < SLOTS; e++) until_q[e] <= '0;
      for (int w = 0; w < WEIGHT_SETS; w++) begin
        set_ready_q[w] <= '0;
        set_freed_q[w] <= '0;
      end
      last_preload_end_q <= '0;
      fill_set_q <= '0;
      {main_q, vector_q, order_q, last_end_q, array_until_q, vector_until_q} <= '0;
      {array_busy_o, vector_busy_o, scoreboard_full_o, token_stall_o, hazard_stall_o, bank_stall_o} <= '0;
    end else begin
      // A resource is busy from an instruction's start for its occupancy.
      if (now_i < array_until_q || (start && on_array && occupied_until > now_i)) array_busy_o <= array_busy_o + 1'b1;
      if (now_i < vector_until_q || (start && vector_class && occupied_until > now_i))
        vector_busy_o <= vector_busy_o + 1'b1;
      if (ready && records && !have_slot) scoreboard_full_o <= scoreboard_full_o + 1'b1;
      // Stall causes, as the simulator counts them (sim::StallCause): tokens first, then data.
      if (issuable && !tokens_ok) token_stall_o <= token_stall_o + 1'b1;
      if (issuable && tokens_ok && !data_ready) hazard_stall_o <= hazard_stall_o + 1'b1;
      if (start) bank_stall_o <= bank_stall_o + conflict_cycles;
      if (start) begin
        if (records) until_q[free_slot] <= done;
        if (writes_weights) begin
          set_ready_q[fill_set_q] <= done;
          set_freed_q[fill_set_q] <= '0;
          last_preload_end_q <= done;
          if (WEIGHT_SETS > 1) fill_set_q <= ~fill_set_q;
        end
        if (reads_weights && done > set_freed_q[read_set]) set_freed_q[read_set] <= done;
        order_q <= now_i + 1;
        if (weight_path) begin
          if (now_i + 1 > main_q) main_q <= now_i + 1;
        end else if (vector_path) begin
          vector_q <= occupied_until;
        end else begin
          main_q <= occupied_until;
        end
        if (on_array) array_until_q <= occupied_until;
        if (vector_class) vector_until_q <= occupied_until;
        last_end_q <= end_cycle;
        npu_started(head_index_i, UNIT_COMPUTE, longint'(now_i));
        npu_completed(head_index_i, UNIT_COMPUTE, longint'(done));
      end
    end
  end
  // The slots' rows (no reset: a slot's rows matter only while its instruction is in flight).
  always_ff @(posedge clk_i) begin
    if (start && records) begin
      slot_array_q[free_slot] <= array_product;
      slot_rd_valid_q[free_slot] <= rd_valid;
      slot_rd_acc_q[free_slot] <= rd_acc;
      slot_rd_lo_q[free_slot] <= rd_lo;
      slot_rd_hi_q[free_slot] <= rd_hi;
      slot_wr_valid_q[free_slot] <= wr_valid;
      slot_wr_acc_q[free_slot] <= wr_acc;
      slot_wr_lo_q[free_slot] <= wr_lo;
      slot_wr_hi_q[free_slot] <= wr_hi;
    end
  end
endmodule
