// One of the three instruction queues (load, compute, store): QUEUES_<UNIT> entries, in order.
// The unit sees the entry being pushed in the cycle it is pushed (an instruction may start in its
// dispatch cycle), and a full queue takes a new entry in the cycle its oldest one starts (the
// slot frees then): the simulator's controller rules (simulator/src/platform.cpp).
module npu_queue
  import systole_pkg::*;
#(
  parameter int UNIT = UNIT_LOAD
) (
  input  logic          clk_i,
  input  logic          rst_ni,
  input  logic          push_i,
  input  logic [31:0]   push_index_i,
  input  instr_t        push_instr_i,
  output logic          ready_o,
  output logic          head_valid_o,
  output logic [31:0]   head_index_o,
  output instr_t        head_instr_o,
  input  logic          pop_i
);
  localparam int DEPTH = UNIT == UNIT_LOAD ? QUEUES_LOAD : UNIT == UNIT_COMPUTE ? QUEUES_COMPUTE : QUEUES_STORE;
  localparam int PTR_BITS = DEPTH > 1 ? $clog2(DEPTH) : 1;

  logic [31:0] index_q[DEPTH];
  instr_t instr_q[DEPTH];
  logic [PTR_BITS-1:0] rd_q, wr_q;
  logic [PTR_BITS:0] count_q;

  wire empty = count_q == '0;
  assign ready_o = count_q < (PTR_BITS + 1)'(DEPTH) || pop_i;
  assign head_valid_o = !empty || push_i;
  assign head_index_o = empty ? push_index_i : index_q[rd_q];
  assign head_instr_o = empty ? push_instr_i : instr_q[rd_q];

  function automatic logic [PTR_BITS-1:0] next(logic [PTR_BITS-1:0] p);
    return p == PTR_BITS'(DEPTH - 1) ? '0 : p + 1'b1;
  endfunction

  wire stored = push_i && !(empty && pop_i);  // a push the unit does not take in the same cycle
  wire taken = pop_i && !empty;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rd_q <= '0;
      wr_q <= '0;
      count_q <= '0;
    end else begin
      if (stored) wr_q <= next(wr_q);
      if (taken) rd_q <= next(rd_q);
      count_q <= count_q + (PTR_BITS + 1)'(stored) - (PTR_BITS + 1)'(taken);
    end
  end
  always_ff @(posedge clk_i) begin
    if (stored) begin
      index_q[wr_q] <= push_index_i;
      instr_q[wr_q] <= push_instr_i;
    end
  end
endmodule
