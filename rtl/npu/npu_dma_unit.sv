// A DMA unit's issue logic (load or store): it starts its queue's head in the first cycle in which
// the unit is free, the tokens it pops have arrived and fewer than DMA_OUTSTANDING of its transfers
// are in flight. A started transfer asks the DRAM data channel for its beats (isa::dramChannelCycles:
// one per cycle, shared with the other DMA unit, the older instruction first); it completes
// `cycles - beats` after its last beat (the YAML's latency) and frees the unit `occupancy - beats`
// after it. Transfers complete in order: a token is stamped no earlier than every earlier one.
// The unit holds the channel for one transfer at a time, which needs occupancy >= beats
// (an instruction with fewer sets beats_exceed_occupancy_o and is timed as if equal).
module npu_dma_unit
  import systole_pkg::*;
  import npu_dpi_pkg::*;
#(
  parameter int UNIT = UNIT_LOAD
) (
  input  logic         clk_i,
  input  logic         rst_ni,
  input  logic [63:0]  now_i,
  input  logic         head_valid_i,
  input  logic [31:0]  head_index_i,
  /* verilator lint_off UNUSEDSIGNAL */  // the decoded word's other parts
  input  instr_t       head_instr_i,
  /* verilator lint_on UNUSEDSIGNAL */
  output logic         pop_o,
  input  logic         token_prev_i,
  input  logic         token_next_i,
  output logic         pop_prev_o,
  output logic         pop_next_o,
  output logic         push_prev_o,
  output logic         push_next_o,
  output logic [63:0]  push_cycle_o,
  // The DRAM data channel: a request for one beat this cycle, by instruction age.
  output logic         beat_request_o,
  output logic [31:0]  beat_index_o,
  input  logic         beat_grant_i,
  output logic         quiet_o,
  // The starting transfer's geometry, for its data path (npu_dma_data).
  output logic         broadcast_o,
  output logic [63:0]  row_beats_o,
  output logic [63:0]  busy_o,          // cycles from each start until the unit is free again
  output logic [63:0]  token_stall_o,   // cycles the head waited only for a token
  output logic [63:0]  dram_stall_o,    // cycles a transfer waited for the DRAM channel
  output logic         beats_exceed_occupancy_o
);
  localparam int OUTSTANDING = DMA_OUTSTANDING > 1 ? DMA_OUTSTANDING : 1;
  localparam int SLOT_BITS = OUTSTANDING > 1 ? $clog2(OUTSTANDING) : 1;
  localparam int SLOTS = 1 << SLOT_BITS;  // a ring of at least OUTSTANDING transfers
  localparam longint ACT_BITS = 64'(ACTIVATION_BITS);

  // The head's beats on the channel.
  function automatic longint op(int k);
    return longint'(head_instr_i.operands[k]);
  endfunction
  wire [4:0] s = head_instr_i.semantics;
  wire broadcast = DMA_BROADCAST != 0 && (int'(s) == SEM_DMA_LOAD || int'(s) == SEM_DMA_LOAD_ACC) && op(4) == 0 &&
                   op(2) > 1;
  wire [63:0] dram_rows = 64'(int'(s) == SEM_DMA_LOAD_2D ? op(2) * op(5) : broadcast ? 1 : op(2));
  wire [63:0] row_bytes = 64'(int'(s) == SEM_DMA_LOAD_INT4 ? (op(3) * 8 / ACT_BITS + 1) / 2 : op(3));
  wire [63:0] row_beats = (row_bytes + 64'(DRAM_BYTES_PER_CYCLE) - 1) / 64'(DRAM_BYTES_PER_CYCLE);
  wire [63:0] beats = dram_rows * row_beats;
  assign broadcast_o = broadcast;
  assign row_beats_o = row_beats;

  // Transfers in flight, oldest first: each completes at end_q (once its beats are done).
  logic [63:0] end_q[SLOTS];
  logic known_q[SLOTS];
  logic [SLOT_BITS:0] inflight;
  always_comb begin
    inflight = '0;
    for (int k = 0; k < SLOTS; k++)
      if (!known_q[k] || end_q[k] > now_i) inflight = inflight + 1'b1;
  end

  // The transfer on the channel.
  logic active_q;
  logic [63:0] remaining_q, tail_q, free_tail_q;
  logic [31:0] index_q;
  logic [3:2] tokens_q;
  logic [SLOT_BITS-1:0] slot_q, next_slot_q;
  logic [63:0] free_q, last_end_q;

  wire tokens_ok = (!head_instr_i.tokens[0] || token_prev_i) && (!head_instr_i.tokens[1] || token_next_i);
  wire issuable = head_valid_i && !active_q && now_i >= free_q && 32'(inflight) < OUTSTANDING;
  wire start = issuable && tokens_ok;
  wire [63:0] occupancy = head_instr_i.occupancy < beats ? beats : head_instr_i.occupancy;
  wire starts_on_channel = start && beats != 0;

  assign beat_request_o = active_q || starts_on_channel;
  assign beat_index_o = active_q ? index_q : head_index_i;
  // The transfer's last beat is granted this cycle (or it has none and starts): it completes.
  wire last_beat = beat_grant_i && (active_q ? remaining_q == 1 : beats == 1);
  wire finishing = last_beat || (start && beats == 0);
  wire [63:0] reserve_end = now_i + (start && beats == 0 ? 64'd0 : 64'd1);
  wire [63:0] done = reserve_end + (active_q ? tail_q : head_instr_i.cycles - beats);
  wire [63:0] end_cycle = done > last_end_q ? done : last_end_q;
  wire [3:2] finishing_tokens = active_q ? tokens_q[3:2] : head_instr_i.tokens[3:2];
  wire [31:0] finishing_index = active_q ? index_q : head_index_i;

  assign pop_o = start;
  assign pop_prev_o = start && head_instr_i.tokens[0];
  assign pop_next_o = start && head_instr_i.tokens[1];
  assign push_prev_o = finishing && finishing_tokens[2];
  assign push_next_o = finishing && finishing_tokens[3];
  assign push_cycle_o = end_cycle;
  assign quiet_o = !active_q && now_i >= free_q && now_i >= last_end_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int k = 0; k < SLOTS; k++) begin
        end_q[k] <= '0;
        known_q[k] <= 1'b1;
      end
      active_q <= 1'b0;
      {remaining_q, tail_q, free_tail_q, free_q, last_end_q, busy_o, token_stall_o, dram_stall_o} <= '0;
      index_q <= '0;
      tokens_q <= '0;
      slot_q <= '0;
      next_slot_q <= '0;
      beats_exceed_occupancy_o <= 1'b0;
    end else begin
      if ((start && (beats != 0 || head_instr_i.occupancy != 0)) || active_q || now_i < free_q) busy_o <= busy_o + 1'b1;
      // Stall causes, as the simulator counts them (sim::StallCause).
      if (issuable && !tokens_ok) token_stall_o <= token_stall_o + 1'b1;
      if (beat_request_o && !beat_grant_i) dram_stall_o <= dram_stall_o + 1'b1;
      if (start) begin
        known_q[next_slot_q] <= 1'b0;
        slot_q <= next_slot_q;
        next_slot_q <= next_slot_q + 1'b1;
        npu_started(head_index_i, UNIT, longint'(now_i));
        if (head_instr_i.occupancy < beats) beats_exceed_occupancy_o <= 1'b1;
        if (!finishing) begin
          active_q <= 1'b1;
          remaining_q <= beat_grant_i ? beats - 1 : beats;
          tail_q <= head_instr_i.cycles - beats;
          free_tail_q <= occupancy - beats;
          index_q <= head_index_i;
          tokens_q <= head_instr_i.tokens[3:2];
          free_q <= '1;  // known when the beats are
        end
      end else if (active_q && beat_grant_i) begin
        remaining_q <= remaining_q - 1;
      end
      if (finishing) begin
        active_q <= 1'b0;
        free_q <= reserve_end + (active_q ? free_tail_q : occupancy - beats);
        end_q[active_q ? slot_q : next_slot_q] <= end_cycle;
        known_q[active_q ? slot_q : next_slot_q] <= 1'b1;
        last_end_q <= end_cycle;
        npu_completed(finishing_index, UNIT, longint'(end_cycle));
      end
    end
  end
endmodule
