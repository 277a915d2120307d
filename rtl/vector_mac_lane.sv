// One lane of the vector unit's vector_mac (docs/isa-semantics.md, systole::isa::arith::mac and
// storeAccumulator), with x = spad[src_row + stride * i][n], w = spad[w_row][n] and
// a = acc[dst_row + i][n]:
//   s   = (accumulate ? a : 0) + x * w        32-bit, wrapping
//   out = sat(s)
// x and w are signed scratchpad lanes of AB = ACTIVATION_BITS bits (types.activation, 8 or 16), so
// |x * w| <= 2^(2 AB - 2) <= 2^30 is exact in 32 bits; only the addition wraps. sat keeps s as it
// is when ACCUMULATOR_BITS is 32 (int32 wraps, as the array's partial sums do) and saturates it to
// [-2^(ACCUMULATOR_BITS-1), 2^(ACCUMULATOR_BITS-1) - 1], sign-extended to 32 bits, when narrower:
// the array's acc_store (systolic_array.sv). The weight lane is an input like x: the controller
// holds the w_row for the instruction and presents it with every row.
//
// Pipeline: one element per cycle, latency exactly VECTOR_LATENCY (the `vector.latency` term of
// vector_mac's timing `vector.latency + rows`): an element presented with in_valid_i in cycle t
// appears with out_valid_o in cycle t + VECTOR_LATENCY. Two logic stages:
//   M  the product x * w and the addend (accumulate ? a : 0)
//   S  the 32-bit sum and the saturation
// A register follows S always, M if VECTOR_LATENCY >= 2; latencies above 2 add plain delay
// registers after S. accumulate travels with each element, so consecutive rows (and
// instructions) may differ.
module vector_mac_lane
  import systole_pkg::*;
#(
  localparam int AB = ACTIVATION_BITS  // not a parameter: a scratchpad lane's bits
) (
  input  logic          clk_i,
  input  logic          rst_ni,

  input  logic          in_valid_i,
  input  logic [AB-1:0] in_x_i,           // x, a signed scratchpad lane
  input  logic [AB-1:0] in_w_i,           // w, a signed scratchpad lane of the weight row
  input  logic [31:0]   in_acc_i,         // a, the accumulator's old value
  input  logic          in_accumulate_i,  // 0: the product alone

  output logic          out_valid_o,
  output logic [31:0]   out_data_o
);

  localparam int L     = VECTOR_LATENCY;
  localparam bit REG_M = L >= 2;
  localparam int EXTRA = (L > 2) ? L - 2 : 0;

  if (L < 1) begin : g_bad_latency
    $error("vector_mac_lane needs VECTOR_LATENCY >= 1");
  end

  // ---- valid: in_valid_i delayed by exactly L cycles.
  logic [L-1:0] valid_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) valid_q <= '0;
    else valid_q <= L'({valid_q, in_valid_i});
  end
  assign out_valid_o = valid_q[L-1];

  // ---- stage M: the product (exact in 32 bits) and the addend.
  logic signed [31:0] m_prod_d, m_prod_q;
  logic        [31:0] m_addend_d, m_addend_q;

  assign m_prod_d   = 32'($signed(in_x_i) * $signed(in_w_i));
  assign m_addend_d = in_accumulate_i ? in_acc_i : '0;

  if (REG_M) begin : g_reg_m
    always_ff @(posedge clk_i) begin
      m_prod_q   <= m_prod_d;
      m_addend_q <= m_addend_d;
    end
  end else begin : g_comb_m
    assign m_prod_q   = m_prod_d;
    assign m_addend_q = m_addend_d;
  end

  // ---- stage S: the wrapping sum, saturated to ACCUMULATOR_BITS (always registered).
  localparam logic signed [31:0] ACC_HI = 32'((64'(1) << (ACCUMULATOR_BITS - 1)) - 64'(1));
  localparam logic signed [31:0] ACC_LO = ~ACC_HI;
  logic signed [31:0] s_sum;
  logic        [31:0] s_out_d, s_out_q;

  assign s_sum = m_prod_q + $signed(m_addend_q);
  always_comb begin
    if (s_sum > ACC_HI) s_out_d = ACC_HI;
    else if (s_sum < ACC_LO) s_out_d = ACC_LO;
    else s_out_d = s_sum;
  end
  always_ff @(posedge clk_i) s_out_q <= s_out_d;

  // ---- latencies above 2: delay registers after stage S.
  if (EXTRA > 0) begin : g_extra
    logic [31:0] data_q [EXTRA];
    always_ff @(posedge clk_i) begin
      data_q[0] <= s_out_q;
      for (int j = 1; j < EXTRA; j++) data_q[j] <= data_q[j - 1];
    end
    assign out_data_o = data_q[EXTRA - 1];
  end else begin : g_no_extra
    assign out_data_o = s_out_q;
  end

endmodule
