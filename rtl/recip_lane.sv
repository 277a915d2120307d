// One lane of the vector unit's vector_recip (docs/isa-semantics.md,
// systole::isa::arith::reciprocal and reciprocalSqrt), with x = acc[src_row + i][j], s = shift & 63:
//   op 0: y = floor(2^s / x)        the largest y >= 0 with x * y   <= 2^s
//   op 1: y = floor(2^s / sqrt(x))  the largest y >= 0 with x * y^2 <= 2^(2s)
//   out = min(y, 2^31 - 1); x <= 0 gives 2^31 - 1.
//
// Algorithm: both are "the largest y with f(y) <= 2^(k s)" for an f that grows with y (f(y) = x y,
// k = 1; f(y) = x y^2, k = 2), so y is found exactly, bit by bit from 2^30 down to 2^0, by the
// restoring recurrence (no seed table, no rounding to get wrong):
//   P = 2^(k s) - f(y) >= 0 (the budget left), Z = x * y (op 1)
//   for i = 30 .. 0:  D = f(y + 2^i) - f(y) = op ? (Z << (i+1)) + (x << 2i) : x << i
//                     if D <= P: P -= D, y += 2^i, Z += x << i
// The greedy choice from the top bit down gives the largest y < 2^31 with f(y) <= 2^(k s). Whether
// the true y is >= 2^31 (the result saturates) is decided up front, exactly, with no division:
//   f(2^31) <= 2^(k s)  <=>  s >= 31 and x <= 2^e, e = k (s - 31)
// (x < 2^31, so e >= 31 always saturates). Without saturation 2^(k s) < f(2^31) = x 2^(31 k), so
// P <= 2^(k s) < 2^62 (op 0) or < 2^93 (op 1); every D is < 2^93 too (op 1: D = x (2y + 2^i) 2^i
// with 2y + 2^i < 2^32), so W = 93 bits hold them, and Z = x y < 2^62. When the result saturates
// the recurrence runs on a meaningless P and its y is ignored. (With a P wide enough for 2^126 the
// recurrence alone would give 2^31 - 1 whenever y >= 2^31; the test is what keeps P to W bits.)
//
// Pipeline: one element per cycle, latency exactly 2 * VECTOR_LATENCY: an element presented with
// in_valid_i in cycle t appears with out_valid_o in cycle t + 2 * VECTOR_LATENCY, so a row set of
// `rows` rows occupies 2 * vector.latency + rows cycles (vector_recip's YAML timing). The 31 steps
// are split as evenly as possible over 2 * VECTOR_LATENCY segments, each ending in a register (the
// saturation test sits in front of the first; beyond 31 segments the extra ones only delay). The
// operands (shift, op) travel with each element, so consecutive rows may belong to different
// instructions.
module recip_lane
  import systole_pkg::*;
(
  input  logic        clk_i,
  input  logic        rst_ni,

  input  logic        in_valid_i,
  input  logic [31:0] in_x_i,      // x, int32
  input  logic [5:0]  in_shift_i,  // s (the instruction's 6-bit shift field)
  input  logic        in_op_i,     // 0: reciprocal, 1: reciprocal square root

  output logic        out_valid_o,
  output logic [31:0] out_data_o
);

  localparam int S    = 2 * VECTOR_LATENCY;  // pipeline registers
  localparam int BITS = 31;                  // result bits 30..0 (the result is < 2^31)
  localparam int W    = 93;                  // width of the budget P (see the header)

  if (VECTOR_LATENCY < 1) begin : g_bad_latency
    $error("recip_lane needs VECTOR_LATENCY >= 1");
  end

  // What an element carries through the pipeline.
  typedef struct packed {
    logic         op;   // 1: reciprocal square root
    logic         sat;  // the result is 2^31 - 1 (x <= 0, or y >= 2^31)
    logic [30:0]  x;    // x (> 0 unless sat)
    logic [W-1:0] p;    // the budget 2^(k s) - f(y)
    logic [61:0]  z;    // x * y (op 1 only)
    logic [30:0]  y;    // the result bits decided so far
  } state_t;

  // ---- setup: saturation test and the initial budget 2^(k s).
  state_t     setup;
  logic       x_pos, big;
  logic [6:0] e;  // k (s - 31), when s >= 31

  assign x_pos = ~in_x_i[31] & (in_x_i[30:0] != '0);
  assign e     = in_op_i ? {in_shift_i - 6'd31, 1'b0} : 7'(in_shift_i - 6'd31);
  assign big   = (in_shift_i >= 6'd31) & ((e >= 7'd31) | (in_x_i[30:0] <= (31'd1 << e)));
  assign setup.op  = in_op_i;
  assign setup.sat = ~x_pos | big;
  assign setup.x   = in_x_i[30:0];
  assign setup.p   = W'(1) << (in_op_i ? {in_shift_i, 1'b0} : 7'(in_shift_i));
  assign setup.z   = '0;
  assign setup.y   = '0;

  // ---- the segments: steps [LO, HI) then a register.
  // Plain vectors, not structs: Yosys reads an array of structs as one bit (or one struct), and
  // not $bits of a type. STATE_BITS is state_t's width (a mismatch is a Verilator WIDTH error).
  localparam int STATE_BITS = 1 + 1 + 31 + W + 62 + 31;
  logic [STATE_BITS-1:0] seg_q [S];
  logic [S-1:0]   valid_q;

  for (genvar s = 0; s < S; s++) begin : g_seg
    localparam int LO = s * BITS / S;
    localparam int HI = (s + 1) * BITS / S;
    state_t seg_in, seg_d;
    logic   seg_valid;  // an element is in this segment

    if (s == 0) begin : g_first
      assign seg_in    = setup;
      assign seg_valid = in_valid_i;
    end else begin : g_next
      assign seg_in    = seg_q[s-1];
      assign seg_valid = valid_q[s-1];
    end

    // Steps LO .. HI-1, each deciding result bit i = BITS-1-j (written out here, not as a
    // function of the state: Yosys reads a struct-typed function argument as undefined). A
    // Verilated model computes them only for an element: evaluated every cycle, the 31 steps of
    // 93-bit arithmetic made the Verilated NPU 6x slower. Synthesis sees the plain steps (no
    // isolation muxes: 12% more cells); a segment's register holds while it has no element.
    always_comb begin
      logic [W-1:0] d;
      d     = '0;
      seg_d = seg_in;
`ifdef VERILATOR
      if (seg_valid)
`endif
      for (int j = LO; j < HI; j++) begin
        d = seg_d.op ? (W'(seg_d.z) << (BITS - j)) + (W'(seg_d.x) << (2 * (BITS - 1 - j)))
                     : W'(seg_d.x) << (BITS - 1 - j);
        if (d <= seg_d.p) begin
          seg_d.p               = seg_d.p - d;
          seg_d.y[BITS - 1 - j] = 1'b1;
          seg_d.z               = seg_d.z + (62'(seg_d.x) << (BITS - 1 - j));
        end
      end
    end

    always_ff @(posedge clk_i) if (seg_valid) seg_q[s] <= seg_d;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) valid_q <= '0;
    else valid_q <= S'({valid_q, in_valid_i});
  end

  // The last segment through a plain wire: Yosys cannot read a member of an array element.
  /* verilator lint_off UNUSEDSIGNAL */  // only sat and y leave the lane
  state_t last;
  /* verilator lint_on UNUSEDSIGNAL */
  assign last        = seg_q[S-1];
  assign out_valid_o = valid_q[S-1];
  assign out_data_o  = last.sat ? 32'h7fff_ffff : {1'b0, last.y};

endmodule
