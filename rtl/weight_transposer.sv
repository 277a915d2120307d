// The transposer of weight_preload_t (docs/isa-semantics.md), in the scratchpad read path:
//   W[k][n] = spad[spad_row + n][k]   for k < ARRAY_ROWS, n < ARRAY_COLS
// It takes the ARRAY_COLS scratchpad rows spad_row + n one per cycle (n = 0 first; in_valid_i
// marks a row, idle cycles in between are allowed) and delivers the whole transposed tile as the
// ARRAY_ROWS rows a weight_preload gives the array (out_rows_o[k] = weight row k, in the layout of
// the array's in_row_i: element n < ARRAY_COLS is W[k][n], the elements beyond are zero).
//
// Timing: a tile whose first row arrives in cycle t0 with no idle cycles is complete, out_valid_o
// high, in cycle t0 + ARRAY_COLS - 1, to be captured at the end of that cycle: ARRAY_COLS cycles,
// weight_preload_t's YAML timing `array.cols` (each idle cycle adds one). Every weight row holds an
// element of the last scratchpad row, so no row can be complete before then: the tile is therefore
// delivered all at once, its last column straight from in_row_i, the others from registers.
//
// Micro-architecture: ARRAY_COLS - 1 column registers form a shift register of the last rows
// received (no write-address decode): each row shifts in at the top, so when row ARRAY_COLS - 1
// arrives, column register n holds row n. A counter of the rows received (modulo ARRAY_COLS) marks
// the tile's end; tiles may follow each other back to back.
module weight_transposer
  import systole_pkg::*;
(
  input  logic                                               clk_i,
  input  logic                                               rst_ni,

  input  logic                                               in_valid_i,
  // A scratchpad row; only elements k < ARRAY_ROWS are weights (SCRATCHPAD_ROW_BYTES >= ARRAY_ROWS).
  /* verilator lint_off UNUSEDSIGNAL */
  input  logic [SCRATCHPAD_ROW_BYTES-1:0][7:0]               in_row_i,
  /* verilator lint_on UNUSEDSIGNAL */

  output logic                                               out_valid_o,
  output logic [ARRAY_ROWS-1:0][SCRATCHPAD_ROW_BYTES-1:0][7:0] out_rows_o
);

  localparam int R     = ARRAY_ROWS;
  localparam int N     = ARRAY_COLS;
  localparam int CNT_W = $clog2(N);

  if (N < 2) begin : g_bad_cols
    $error("weight_transposer needs ARRAY_COLS >= 2");
  end
  if (SCRATCHPAD_ROW_BYTES < R || SCRATCHPAD_ROW_BYTES < N) begin : g_bad_row
    $error("a scratchpad row must hold a column and a row of the weights");
  end

  // ---- rows received so far in this tile.
  logic [CNT_W-1:0] cnt_q;
  logic             last;

  assign last = in_valid_i & (cnt_q == CNT_W'(N - 1));

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) cnt_q <= '0;
    else if (last) cnt_q <= '0;
    else if (in_valid_i) cnt_q <= cnt_q + 1'b1;
  end

  // ---- the last N - 1 rows' weight elements: col_q[N-2] is the newest.
  logic [R-1:0][7:0] col_q [N-1];

  always_ff @(posedge clk_i) begin
    if (in_valid_i) begin
      for (int n = 0; n < N - 2; n++) col_q[n] <= col_q[n+1];
      col_q[N-2] <= in_row_i[R-1:0];
    end
  end

  // ---- the tile: column n < N - 1 from col_q[n], column N - 1 from the row arriving now.
  always_comb begin
    out_rows_o = '0;
    for (int k = 0; k < R; k++) begin
      for (int n = 0; n < N - 1; n++) out_rows_o[k][n] = col_q[n][k];
      out_rows_o[k][N-1] = in_row_i[k];
    end
  end

  assign out_valid_o = last;

endmodule
