// The dependency tokens one unit sends a neighbour: a token carries the cycle its instruction (and
// every earlier one of its unit) completes, and the neighbour may pop it from that cycle on. A
// unit pushes at most one per cycle; TOKEN_FIFO_DEPTH more than are outstanding is a fault
// (overflow_o), never a lost token.
module npu_token_fifo (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic [63:0] now_i,
  input  logic        push_i,
  input  logic [63:0] push_cycle_i,
  output logic        available_o,
  input  logic        pop_i,
  output logic        overflow_o
);
  localparam int DEPTH = 256;
  logic [63:0] cycle_q[DEPTH];
  logic [7:0] rd_q, wr_q;
  logic [8:0] count_q;

  assign available_o = count_q != '0 && cycle_q[rd_q] <= now_i;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rd_q <= '0;
      wr_q <= '0;
      count_q <= '0;
      overflow_o <= 1'b0;
    end else begin
      if (push_i) wr_q <= wr_q + 1'b1;
      if (pop_i) rd_q <= rd_q + 1'b1;
      count_q <= count_q + 9'(push_i) - 9'(pop_i);
      if (push_i && !pop_i && count_q == 9'(DEPTH)) overflow_o <= 1'b1;
    end
  end
  always_ff @(posedge clk_i) if (push_i) cycle_q[wr_q] <= push_cycle_i;
endmodule
