// One lane of the vector unit's requantize (docs/isa-semantics.md, systole::isa::arith::requantize):
//   p = int64(acc) * int64(multiplier)                      exact
//   r = s == 0 ? p : (p >>> s) + p[s - 1]                    s = shift & 63; ties toward +infinity
//   y = r + zero_point
//   out = sat(min(max(y, clamp_min), clamp_max))
// sat saturates to a scratchpad lane of AB = ACTIVATION_BITS bits (types.activation, 8 or 16;
// arith::requantizeLane). p[s-1] is the bit ((p >> (s-1)) & 1) of arith.h. Because clamp_min and
// clamp_max are AB-bit, the hardware saturates y to AB bits first and then clamps with AB-bit
// compares; for any y this equals the specification (y above the lane's range gives clamp_max
// either way, y below it min(clamp_min, clamp_max)), which the Verilator check confirms bit for
// bit. If clamp_min > clamp_max the result is clamp_max, as specified.
//
// Pipeline: one row element per cycle, latency exactly VECTOR_LATENCY (the `vector.latency` term of
// requantize's timing `vector.latency + rows`): an element presented with in_valid_i in cycle t
// appears with out_valid_o in cycle t + VECTOR_LATENCY. The datapath has four logic stages:
//   A  two 32 x 16 partial products        B  their sum, the 64-bit product
//   C  rounding shift and zero point       D  saturate and clamp
// A register follows D always, B if VECTOR_LATENCY >= 2, C if >= 3, A if >= 4; latencies above 4
// add plain delay registers after D. The per-instruction operands (shift, zero point, clamps)
// travel with each element, so consecutive elements (and instructions) may use different values.
module requant_lane
  import systole_pkg::*;
#(
  localparam int AB = ACTIVATION_BITS  // not a parameter: a scratchpad lane's bits
) (
  input  logic        clk_i,
  // rst_ni also disables the assertion (disable iff), which Verilator counts as a synchronous use.
  /* verilator lint_off SYNCASYNCNET */
  input  logic        rst_ni,
  /* verilator lint_on SYNCASYNCNET */

  input  logic        in_valid_i,
  input  logic [31:0] in_acc_i,         // x = acc[acc_row + i][j]
  input  logic [31:0] in_multiplier_i,  // M = acc[scale_row][j]
  input  logic [5:0]  in_shift_i,       // S = acc[scale_row + 1][j] & 63 (the low 6 bits)
  input  logic [AB-1:0] in_zero_point_i,
  input  logic [AB-1:0] in_clamp_min_i,
  input  logic [AB-1:0] in_clamp_max_i,

  output logic          out_valid_o,
  output logic [AB-1:0] out_data_o
);

  localparam int L = VECTOR_LATENCY;
  localparam bit REG_A = L >= 4;
  localparam bit REG_B = L >= 2;
  localparam bit REG_C = L >= 3;
  localparam int EXTRA = (L > 4) ? L - 4 : 0;

  if (L < 1) begin : g_bad_latency
    $error("requant_lane needs VECTOR_LATENCY >= 1");
  end

  // Sideband that travels with an element: what the later stages still need.
  typedef struct packed {
    logic [5:0] shift;
    logic [AB-1:0] zero_point;
    logic [AB-1:0] clamp_min;
    logic [AB-1:0] clamp_max;
  } side_t;

  // ---- stage A: partial products. acc * M = acc * M[31:16] * 2^16 + acc * M[15:0] (unsigned low half)
  side_t              a_side_d, a_side_q;
  logic               a_valid_q;
  logic signed [47:0] a_hi_d, a_hi_q;
  logic signed [48:0] a_lo_d, a_lo_q;

  assign a_side_d.shift      = in_shift_i;
  assign a_side_d.zero_point = in_zero_point_i;
  assign a_side_d.clamp_min  = in_clamp_min_i;
  assign a_side_d.clamp_max  = in_clamp_max_i;
  assign a_hi_d = 48'($signed(in_acc_i) * $signed(in_multiplier_i[31:16]));
  assign a_lo_d = 49'($signed(in_acc_i) * $signed({1'b0, in_multiplier_i[15:0]}));

  if (REG_A) begin : g_reg_a
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) a_valid_q <= 1'b0;
      else a_valid_q <= in_valid_i;
    end
    always_ff @(posedge clk_i) begin
      a_side_q <= a_side_d;
      a_hi_q   <= a_hi_d;
      a_lo_q   <= a_lo_d;
    end
  end else begin : g_comb_a
    assign a_valid_q = in_valid_i;
    assign a_side_q  = a_side_d;
    assign a_hi_q    = a_hi_d;
    assign a_lo_q    = a_lo_d;
  end

  // ---- stage B: the exact 64-bit product (|p| <= 2^62).
  side_t              b_side_q;
  logic               b_valid_q;
  logic signed [63:0] b_prod_d, b_prod_q;

  assign b_prod_d = (64'(a_hi_q) <<< 16) + 64'(a_lo_q);

  if (REG_B) begin : g_reg_b
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) b_valid_q <= 1'b0;
      else b_valid_q <= a_valid_q;
    end
    always_ff @(posedge clk_i) begin
      b_side_q <= a_side_q;
      b_prod_q <= b_prod_d;
    end
  end else begin : g_comb_b
    assign b_valid_q = a_valid_q;
    assign b_side_q  = a_side_q;
    assign b_prod_q  = b_prod_d;
  end

  // ---- stage C: rounding shift, ties toward +infinity, then the zero point. For s >= 1,
  // |p >>> s| <= 2^61, so neither addition can overflow 64 bits.
  logic               c_valid_q;
  logic [AB-1:0]      c_clamp_min_q, c_clamp_max_q;
  logic signed [63:0] c_y_d, c_y_q;
  logic signed [63:0] c_shifted;
  logic               c_round_bit;

  assign c_shifted   = b_prod_q >>> b_side_q.shift;
  assign c_round_bit = (b_side_q.shift == 6'd0) ? 1'b0 : b_prod_q[b_side_q.shift - 6'd1];
  assign c_y_d       = c_shifted + 64'(c_round_bit) + 64'($signed(b_side_q.zero_point));

  if (REG_C) begin : g_reg_c
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) c_valid_q <= 1'b0;
      else c_valid_q <= b_valid_q;
    end
    always_ff @(posedge clk_i) begin
      c_clamp_min_q <= b_side_q.clamp_min;
      c_clamp_max_q <= b_side_q.clamp_max;
      c_y_q         <= c_y_d;
    end
  end else begin : g_comb_c
    assign c_valid_q     = b_valid_q;
    assign c_clamp_min_q = b_side_q.clamp_min;
    assign c_clamp_max_q = b_side_q.clamp_max;
    assign c_y_q         = c_y_d;
  end

  // ---- stage D: saturate to the lane, then clamp (always registered).
  localparam logic signed [63:0] LANE_MAX = (64'sd1 <<< (AB - 1)) - 64'sd1;
  localparam logic signed [63:0] LANE_MIN = -(64'sd1 <<< (AB - 1));
  logic                 d_valid_q;
  logic signed [AB-1:0] d_sat, d_lo, d_out_d, d_out_q;

  always_comb begin
    if (c_y_q > LANE_MAX) d_sat = LANE_MAX[AB-1:0];
    else if (c_y_q < LANE_MIN) d_sat = LANE_MIN[AB-1:0];
    else d_sat = c_y_q[AB-1:0];
    d_lo    = (d_sat < $signed(c_clamp_min_q)) ? $signed(c_clamp_min_q) : d_sat;
    d_out_d = (d_lo > $signed(c_clamp_max_q)) ? $signed(c_clamp_max_q) : d_lo;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) d_valid_q <= 1'b0;
    else d_valid_q <= c_valid_q;
  end
  always_ff @(posedge clk_i) d_out_q <= d_out_d;

  // ---- latencies above 4: delay registers after stage D.
  if (EXTRA > 0) begin : g_extra
    logic       valid_q [EXTRA];
    logic [AB-1:0] data_q [EXTRA];
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        for (int j = 0; j < EXTRA; j++) valid_q[j] <= 1'b0;
      end else begin
        valid_q[0] <= d_valid_q;
        for (int j = 1; j < EXTRA; j++) valid_q[j] <= valid_q[j - 1];
      end
    end
    always_ff @(posedge clk_i) begin
      data_q[0] <= d_out_q;
      for (int j = 1; j < EXTRA; j++) data_q[j] <= data_q[j - 1];
    end
    assign out_valid_o = valid_q[EXTRA - 1];
    assign out_data_o  = data_q[EXTRA - 1];
  end else begin : g_no_extra
    assign out_valid_o = d_valid_q;
    assign out_data_o  = d_out_q;
  end

  // ---- protocol assertion: out_valid_o is in_valid_i delayed by exactly VECTOR_LATENCY cycles.
`ifndef SYNTHESIS
  logic [L-1:0] shadow_valid_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) shadow_valid_q <= '0;
    else shadow_valid_q <= L'({shadow_valid_q, in_valid_i});
  end
  assert property (@(posedge clk_i) disable iff (!rst_ni) out_valid_o == shadow_valid_q[L-1])
    else $error("requant_lane: output valid is not the input valid delayed by VECTOR_LATENCY");
`endif

endmodule
