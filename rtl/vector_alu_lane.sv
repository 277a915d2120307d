// One lane of the vector unit's element-wise classes (docs/isa-semantics.md, systole::isa::arith),
// chosen per element by its semantics class (in_semantics_i, systole_pkg's SEM_*):
//   vector_widen  acc = sat(wrap32((x - zero_point) * multiplier))
//   vector_add    acc = sat(wrap32(a + b))
//   vector_mul    acc = sat(wrap32(a * b))
//   vector_max    spad = max(x, y)
//   vector_lut    spad = table[sat8(x) + 128]        (arith::lutIndex)
// a and b are accumulator lanes (32 bits), x and y signed scratchpad lanes of AB = ACTIVATION_BITS
// bits; zero_point and multiplier are the instruction's signed fields, sign-extended to 32 bits.
// sat keeps a 32-bit value when ACCUMULATOR_BITS is 32 and saturates it to the accumulator's
// range when narrower (arith::storeAccumulator, as the accumulator commits it). The table is the
// 256 scratchpad lanes of the instruction's table rows, held by the controller for the whole
// instruction and presented with every element.
//
// Pipeline: one element per cycle, latency exactly VECTOR_LATENCY (the `vector.latency` term of
// these classes' timing `vector.latency + rows`): an element presented with in_valid_i in cycle t
// appears with out_valid_o in cycle t + VECTOR_LATENCY. One logic stage (the operation), then
// VECTOR_LATENCY registers. The class travels with each element, so consecutive rows may differ.
module vector_alu_lane
  import systole_pkg::*;
#(
  localparam int AB = ACTIVATION_BITS  // not a parameter: a scratchpad lane's bits
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,

  input  logic                 in_valid_i,
  input  logic [4:0]           in_semantics_i,   // SEM_VECTOR_WIDEN, _ADD, _MUL, _MAX or _LUT
  input  logic [31:0]          in_a_i,           // accumulator lanes (add, mul)
  input  logic [31:0]          in_b_i,
  input  logic [AB-1:0]        in_x_i,           // scratchpad lanes (widen, max, lut: x; max: y)
  input  logic [AB-1:0]        in_y_i,
  input  logic [31:0]          in_zero_point_i,  // widen
  input  logic [31:0]          in_multiplier_i,  // widen
  input  logic [255:0][AB-1:0] in_table_i,       // lut: entry e is table[e]

  output logic                 out_valid_o,
  output logic [31:0]          out_acc_o,        // widen, add, mul
  output logic [AB-1:0]        out_spad_o        // max, lut
);

  localparam int L = VECTOR_LATENCY;
  if (L < 1) begin : g_bad_latency
    $error("vector_alu_lane needs VECTOR_LATENCY >= 1");
  end

  // ---- the operation.
  localparam logic signed [31:0] ACC_HI = 32'((64'(1) << (ACCUMULATOR_BITS - 1)) - 64'(1));
  localparam logic signed [31:0] ACC_LO = ~ACC_HI;
  function automatic logic [31:0] sat(logic signed [31:0] v);
    sat = v > ACC_HI ? ACC_HI : v < ACC_LO ? ACC_LO : v;
  endfunction

  logic signed [31:0] widened, product, sum;  // the low 32 bits of each: wrap32
  logic [7:0] lut_index;
  logic signed [31:0] x_wide;
  logic [31:0] acc_d;
  logic [AB-1:0] spad_d;
  always_comb begin
    widened = 32'((64'($signed(in_x_i)) - 64'($signed(in_zero_point_i))) * 64'($signed(in_multiplier_i)));
    product = 32'(64'($signed(in_a_i)) * 64'($signed(in_b_i)));
    sum = $signed(in_a_i) + $signed(in_b_i);
    // sat8(x) + 128: the table entry of x saturated to int8.
    // (compared as 32-bit ints: Yosys misreads the 8-bit bound -AB'(128))
    x_wide = 32'($signed(in_x_i));
    if (x_wide > 127) lut_index = 8'd255;
    else if (x_wide < -128) lut_index = 8'd0;
    else lut_index = in_x_i[7:0] ^ 8'h80;
    unique case (32'(in_semantics_i))
      SEM_VECTOR_WIDEN: acc_d = sat(widened);
      SEM_VECTOR_MUL:   acc_d = sat(product);
      default:          acc_d = sat(sum);
    endcase
    spad_d = int'(in_semantics_i) == SEM_VECTOR_LUT ? in_table_i[lut_index]
             : ($signed(in_x_i) > $signed(in_y_i) ? in_x_i : in_y_i);
  end

  // ---- VECTOR_LATENCY registers.
  logic [L-1:0] valid_q;
  logic [31:0] acc_q[L];
  logic [AB-1:0] spad_q[L];
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) valid_q <= '0;
    else valid_q <= L'({valid_q, in_valid_i});
  end
  always_ff @(posedge clk_i) begin
    acc_q[0] <= acc_d;
    spad_q[0] <= spad_d;
    for (int j = 1; j < L; j++) begin
      acc_q[j] <= acc_q[j - 1];
      spad_q[j] <= spad_q[j - 1];
    end
  end
  assign out_valid_o = valid_q[L-1];
  assign out_acc_o = acc_q[L-1];
  assign out_spad_o = spad_q[L-1];

endmodule
