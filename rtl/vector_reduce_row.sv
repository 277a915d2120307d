// The vector unit's vector_reduce (docs/isa-semantics.md): one accumulator row of VECTOR_LANES
// int32 lanes to its lane sum (op 0, wrapping at 32 bits, isa::arith::add) or its lane maximum
// (op 1), saturated to ACCUMULATOR_BITS (arith::storeAccumulator, as the accumulator commits it)
// and written to every lane of the destination row.
//
// Pipeline: one row per cycle through a tree of log2_ceil(VECTOR_LANES) levels, each a register
// of pairwise sums or maxima (an odd lane out passes on, and a sum pads with 0, a maximum with the
// lane itself), then VECTOR_LATENCY registers: a row presented with in_valid_i in cycle t
// appears with out_valid_o in cycle t + VECTOR_LATENCY + log2_ceil(VECTOR_LANES), the terms of
// vector_reduce's timing `vector.latency + rows + log2_ceil(vector.lanes)`. The op travels with
// each row.
module vector_reduce_row
  import systole_pkg::*;
(
  input  logic                          clk_i,
  input  logic                          rst_ni,

  input  logic                          in_valid_i,
  input  logic                          in_max_i,   // 1: the lane maximum, 0: the lane sum
  input  logic [VECTOR_LANES-1:0][31:0] in_row_i,

  output logic                          out_valid_o,
  output logic [VECTOR_LANES-1:0][31:0] out_row_o
);

  localparam int LEVELS = VECTOR_LANES > 1 ? $clog2(VECTOR_LANES) : 0;
  localparam int WIDTH = 1 << LEVELS;  // the lanes rounded up to a power of two
  localparam int L = VECTOR_LATENCY + LEVELS;
  if (VECTOR_LATENCY < 1) begin : g_bad_latency
    $error("vector_reduce_row needs VECTOR_LATENCY >= 1");
  end

  localparam logic signed [31:0] ACC_HI = 32'((64'(1) << (ACCUMULATOR_BITS - 1)) - 64'(1));
  localparam logic signed [31:0] ACC_LO = ~ACC_HI;

  // ---- the tree: level k holds WIDTH >> k values and the row's op.
  logic [31:0] level_q[LEVELS + 1][WIDTH];
  logic max_q[LEVELS + 1];
  always_comb begin
    max_q[0] = in_max_i;
    for (int j = 0; j < WIDTH; j++)  // padding: 0 for a sum, a copy of lane 0 for a maximum
      level_q[0][j] = j < VECTOR_LANES ? in_row_i[j] : (in_max_i ? in_row_i[0] : '0);
  end
  for (genvar k = 1; k <= LEVELS; k++) begin : g_level
    always_ff @(posedge clk_i) begin
      max_q[k] <= max_q[k - 1];
      for (int j = 0; j < (WIDTH >> k); j++) begin
        logic signed [31:0] a, b;
        a = level_q[k - 1][2 * j];
        b = level_q[k - 1][2 * j + 1];
        level_q[k][j] <= max_q[k - 1] ? (a > b ? a : b) : a + b;
      end
      for (int j = WIDTH >> k; j < WIDTH; j++) level_q[k][j] <= '0;
    end
  end

  // ---- saturation and VECTOR_LATENCY registers.
  wire signed [31:0] total = level_q[LEVELS][0];
  logic [31:0] result_q[VECTOR_LATENCY];
  always_ff @(posedge clk_i) begin
    result_q[0] <= total > ACC_HI ? ACC_HI : total < ACC_LO ? ACC_LO : total;
    for (int j = 1; j < VECTOR_LATENCY; j++) result_q[j] <= result_q[j - 1];
  end
  logic [L-1:0] valid_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) valid_q <= '0;
    else valid_q <= L'({valid_q, in_valid_i});
  end
  assign out_valid_o = valid_q[L-1];
  for (genvar j = 0; j < VECTOR_LANES; j++) begin : g_out
    assign out_row_o[j] = result_q[VECTOR_LATENCY - 1];
  end

endmodule
