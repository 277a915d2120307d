// The unpacker of dma_load_int4 (docs/isa-semantics.md), in the DMA's scratchpad write path. A
// scratchpad row of `bytes` int4 weights arrives from DRAM as ceil(ceil(bytes / 2) / BW) beats of
// BW = DRAM_BYTES_PER_CYCLE bytes, two two's-complement nibbles per byte, the low nibble first. The
// unpacker delivers it as one scratchpad row of ACTIVATION_BITS lanes (little-endian bytes): lane k
// is nibble k sign-extended for k < bytes / lane bytes, and 0 beyond (bytes past the row's packed
// length in its last beat are ignored). At int16 lanes `bytes` still counts scratchpad bytes, so a
// row is half as many values and half as many packed bytes.
//
// Timing: the row is complete in the cycle of its last beat (out_valid_o, to be captured at the end
// of that cycle), so a descriptor of `rows` rows with no idle beats takes exactly its beats:
// `rows * ceil_div(ceil_div(bytes * 4, activation.bits), dram.bytes_per_cycle)` cycles after the
// DRAM's latency, the
// occupancy in dma.load.w4's YAML timing. Each idle cycle between beats adds one.
//
// Micro-architecture: a register of the row's packed bytes, written a beat at a time at the beat
// counter's offset; the output unpacks that register with the arriving beat merged in.
module int4_unpack
  import systole_pkg::*;
#(
  localparam int E       = SCRATCHPAD_ROW_BYTES,
  localparam int BW      = DRAM_BYTES_PER_CYCLE,
  localparam int BYTES_W = $clog2(E + 1)
) (
  input  logic                   clk_i,
  // rst_ni also disables the assertion (disable iff), which Verilator counts as a synchronous use.
  /* verilator lint_off SYNCASYNCNET */
  input  logic                   rst_ni,
  /* verilator lint_on SYNCASYNCNET */

  input  logic                   beat_valid_i,
  input  logic                   beat_last_i,   // the row's last beat
  input  logic [BYTES_W-1:0]     row_bytes_i,   // the descriptor's `bytes`, 1..E, held during the row
  input  logic [BW-1:0][7:0]     beat_i,

  output logic                   out_valid_o,
  output logic [E-1:0][7:0]      row_o
);

  localparam int LB     = ACTIVATION_BITS / 8;      // bytes per lane
  localparam int L      = E / LB;                   // lanes per row
  localparam int PACKED = (L + 1) / 2;              // bytes of a full row in DRAM
  localparam int BEATS  = (PACKED + BW - 1) / BW;   // the most beats a row takes
  localparam int BEAT_W = BEATS > 1 ? $clog2(BEATS) : 1;

  logic [BEAT_W-1:0]      beat_q;    // beats of this row received so far
  logic [PACKED-1:0][7:0] packed_q;  // the row's bytes from earlier beats
  logic [PACKED-1:0][7:0] packed_d;  // ... with the arriving beat merged

  always_comb begin
    packed_d = packed_q;
    for (int i = 0; i < BW; i++) begin
      if (beat_valid_i && int'(beat_q) * BW + i < PACKED) packed_d[int'(beat_q) * BW + i] = beat_i[i];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) beat_q <= '0;
    else if (beat_valid_i) beat_q <= beat_last_i ? '0 : beat_q + 1'b1;
  end

  always_ff @(posedge clk_i) begin
    if (beat_valid_i) packed_q <= packed_d;
  end

  // Lane k occupies bytes [k * LB, (k + 1) * LB) of the row, low byte first.
  logic [L-1:0][ACTIVATION_BITS-1:0] lanes;
  logic [3:0] nibble;
  always_comb begin
    nibble = '0;
    for (int k = 0; k < L; k++) begin
      nibble = k % 2 == 0 ? packed_d[k / 2][3:0] : packed_d[k / 2][7:4];
      lanes[k] = k < int'(row_bytes_i) / LB ? {{(ACTIVATION_BITS - 4){nibble[3]}}, nibble} : '0;
    end
  end
  assign row_o = lanes;

  assign out_valid_o = beat_valid_i & beat_last_i;

  // ---- protocol assertion: a row never has more beats than a full row's packed bytes need.
`ifndef SYNTHESIS
  assert property (@(posedge clk_i) disable iff (!rst_ni)
                   beat_valid_i && int'(beat_q) == BEATS - 1 |-> beat_last_i)
    else $error("int4_unpack: a row of more than %0d beats", BEATS);
`endif

endmodule
