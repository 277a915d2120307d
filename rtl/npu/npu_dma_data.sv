// A DMA unit's data path: the bytes of its transfers, beat by beat, between the DRAM (the harness's
// model behind DPI, npu_dram_read / npu_dram_write) and the scratchpad or accumulator
// (banked_memory). The unit's issue logic (npu_dma_unit) decides when a transfer starts and which
// cycles its beats get on the DRAM channel; this module moves, in each granted beat, the next
// DRAM_BYTES_PER_CYCLE bytes of the transfer (docs/isa-semantics.md, sim::DmaTransfer):
//
// - Row k of a transfer is DRAM bytes [base + (k / run_rows) * run_stride + (k % run_rows) * stride,
//   + dram row bytes) and on-chip row `row + k` (dma_load_2d: run_rows = rows; one run otherwise).
// - Data cross the channel a cycle after the beat's grant, in both directions (the DPI calls
//   happen at clock edges only). Every write lands before the transfer completes, since its
//   completion is `dram.latency` after its last beat.
// - A load writes the on-chip row a cycle after the row's last beat: the bytes, then zeros to the
//   row's end. dma_load_int4 rows go through int4_unpack; accumulator rows are int32 lanes,
//   saturated to ACCUMULATOR_BITS as the accumulator commits them.
// - A broadcast load (npu_dma_unit's `broadcast`: one DRAM row for several on-chip rows) writes
//   the other rows one per cycle after the row it read, within the YAML's occupancy
//   (`ceil_div(bytes, dram.bytes_per_cycle) + rows - 1`). A load of 0-byte rows (no beats) writes
//   its zero rows one per cycle from the cycle after its start, which the YAML does not charge.
// - A store reads the on-chip row in the cycle of the row's first beat; SRAM data come a cycle
//   later, so each beat's bytes are written to the DRAM one cycle after the beat (accumulator
//   lanes sign-extended to int32).
//
// One write port per memory serves the load unit alone and one read port the store unit alone (the
// compute datapath has none yet). A row write that meets a pending fill (a load that starts while
// a 0-byte load still writes zeros) is a fault (write_conflict_o), never a lost row.
module npu_dma_data
  import systole_pkg::*;
  import npu_dpi_pkg::*;
#(
  parameter bit STORE = 1'b0,
  localparam int SPAD_BITS = 8 * SCRATCHPAD_ROW_BYTES,
  localparam int ACC_BITS = 8 * ACCUMULATOR_SRAM_ROW_BYTES,
  localparam int UNPACK_BYTES_W = $clog2(SCRATCHPAD_ROW_BYTES + 1)
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic                  start_i,      // a transfer starts (its descriptor is head_instr_i)
  /* verilator lint_off UNUSEDSIGNAL */  // the decoded word's other parts
  input  instr_t                head_instr_i,
  /* verilator lint_on UNUSEDSIGNAL */
  input  logic                  broadcast_i,  // the starting transfer reads one DRAM row for all its rows
  input  logic [63:0]           row_beats_i,  // the starting transfer's beats per DRAM row
  input  logic                  beat_i,       // a beat of this unit's transfer on the channel
  // The scratchpad and the accumulator: a load's writes, a store's reads.
  output logic                  spad_wr_o,
  output logic                  acc_wr_o,
  output logic [31:0]           wr_row_o,
  output logic [SPAD_BITS-1:0]  spad_wr_data_o,
  output logic [ACC_BITS-1:0]   acc_wr_data_o,
  output logic                  spad_rd_o,
  output logic                  acc_rd_o,
  output logic [31:0]           rd_row_o,
  /* verilator lint_off UNUSEDSIGNAL */  // a load reads nothing
  input  logic                  spad_rd_valid_i,
  input  logic [SPAD_BITS-1:0]  spad_rd_data_i,
  input  logic                  acc_rd_valid_i,
  input  logic [ACC_BITS-1:0]   acc_rd_data_i,
  /* verilator lint_on UNUSEDSIGNAL */
  output logic                  write_conflict_o
);
  localparam int BPC = DRAM_BYTES_PER_CYCLE;
  localparam int LANES = ACCUMULATOR_ROW_BYTES / 4;  // int32 lanes of an accumulator row in DRAM
  localparam int ACC_LANE = ACCUMULATOR_BITS;        // bits of a lane in the accumulator's SRAM
  // The widest DRAM row, with room for a whole beat past it.
  localparam int ROW_BYTES = (SCRATCHPAD_ROW_BYTES > ACCUMULATOR_ROW_BYTES ? SCRATCHPAD_ROW_BYTES
                                                                          : ACCUMULATOR_ROW_BYTES) + BPC;

  // The transfer's descriptor: from the head in its start cycle, held after.
  typedef struct packed {
    logic        acc;
    logic        int4;
    logic [63:0] addr, row, rows, bytes, dram_bytes, stride, run_rows, run_stride, row_beats;
  } desc_t;
  /* verilator lint_off UNUSEDSIGNAL */  // the word's other parts
  function automatic desc_t describe(instr_t in, logic broadcast, logic [63:0] row_beats);
    desc_t d;
    int s;
    s = int'(in.semantics);
    d.acc = s == SEM_DMA_LOAD_ACC || s == SEM_DMA_STORE_ACC;
    d.int4 = s == SEM_DMA_LOAD_INT4;
    d.addr = in.operands[0];
    d.row = in.operands[1];
    d.rows = s == SEM_DMA_LOAD_2D ? in.operands[2] * in.operands[5] : in.operands[2];
    d.bytes = in.operands[3];
    d.dram_bytes = d.int4 ? (in.operands[3] * 8 / 64'(ACTIVATION_BITS) + 1) / 2 : in.operands[3];
    d.stride = broadcast ? 64'd0 : in.operands[4];
    d.run_rows = s == SEM_DMA_LOAD_2D ? in.operands[2] : d.rows;
    d.run_stride = s == SEM_DMA_LOAD_2D ? in.operands[6] : 64'd0;
    d.row_beats = row_beats;
    describe = d;
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  desc_t desc_q, desc;
  /* verilator lint_off UNUSEDSIGNAL */  // a store has no broadcast
  logic bcast_q;
  wire bcast = start_i ? broadcast_i : bcast_q;
  /* verilator lint_on UNUSEDSIGNAL */
  assign desc = start_i ? describe(head_instr_i, broadcast_i, row_beats_i) : desc_q;

  // Where the beats are: DRAM row k (its address), the beat within it, the row within its run.
  logic [63:0] k_q, beat_q, in_run_q, row_addr_q, run_addr_q;
  wire [63:0] k = start_i ? 64'd0 : k_q;
  wire [63:0] beat = start_i ? 64'd0 : beat_q;
  wire [63:0] in_run = start_i ? 64'd0 : in_run_q;
  wire [63:0] row_addr = start_i ? desc.addr : row_addr_q;
  wire [63:0] run_addr = start_i ? desc.addr : run_addr_q;
  wire last_beat = beat_i && beat == desc.row_beats - 1;
  wire [63:0] offset = beat * 64'(BPC);
  wire [63:0] left = desc.dram_bytes - offset;
  wire [31:0] beat_len = left < 64'(BPC) ? 32'(left) : 32'(BPC);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      {k_q, beat_q, in_run_q, row_addr_q, run_addr_q} <= '0;
      desc_q <= '0;
      bcast_q <= 1'b0;
    end else begin
      if (start_i) begin
        desc_q <= desc;
        bcast_q <= broadcast_i;
      end
      {k_q, beat_q, in_run_q, row_addr_q, run_addr_q} <= {k, beat, in_run, row_addr, run_addr};
      if (beat_i) beat_q <= beat + 1;
      if (last_beat) begin  // on to the next DRAM row
        k_q <= k + 1;
        beat_q <= '0;
        if (in_run + 1 == desc.run_rows) begin
          in_run_q <= '0;
          row_addr_q <= run_addr + desc.run_stride;
          run_addr_q <= run_addr + desc.run_stride;
        end else begin
          in_run_q <= in_run + 1;
          row_addr_q <= row_addr + desc.stride;
        end
      end
    end
  end

  // The work is done in clocked blocks under their enables, not in combinational logic that a
  // Verilated model evaluates every cycle: the NPU runs whole models.
  if (!STORE) begin : g_load
    // At each beat's clock edge its DRAM bytes join the row (bytes_q); at the row's last beat the
    // row, in each memory's form, is registered and written in the next cycle.
    typedef struct packed {
      logic        acc, int4, bcast;
      logic [63:0] row, first_row, rows;
    } row_t;
    logic [ROW_BYTES-1:0][7:0] bytes_q;
    logic [BPC-1:0][7:0] data_q;  // the beat's bytes, for int4_unpack
    logic beat_q_valid, beat_q_last, write_q;
    row_t row_q;
    logic [SPAD_BITS-1:0] spad_row_q;
    logic [ACC_BITS-1:0] acc_row_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) {beat_q_valid, beat_q_last, write_q} <= '0;
      else {beat_q_valid, beat_q_last, write_q} <= {beat_i && desc.int4, last_beat, last_beat};
    end
    always_ff @(posedge clk_i) begin
      logic [BPC-1:0][7:0] data;
      logic [ROW_BYTES-1:0][7:0] row;
      if (beat_i) begin
        npu_dram_read(longint'(row_addr + offset), int'(beat_len), data);
        data_q <= data;
        row = bytes_q;
        for (int b = 0; b < BPC; b++)
          if (offset + 64'(b) < desc.dram_bytes) row[32'(offset) + b] = data[b];
        bytes_q <= row;
        if (last_beat) begin
          for (int b = 0; b < ROW_BYTES; b++)
            if (64'(b) >= desc.dram_bytes) row[b] = 8'd0;
          spad_row_q <= SPAD_BITS'(row);
          for (int l = 0; l < LANES; l++) begin
            logic signed [31:0] v;
            v = row[4 * l +: 4];
            if (ACC_LANE < 32) begin
              if (v > (32'sd1 <<< (ACC_LANE - 1)) - 1) v = (32'sd1 <<< (ACC_LANE - 1)) - 1;
              if (v < -(32'sd1 <<< (ACC_LANE - 1))) v = -(32'sd1 <<< (ACC_LANE - 1));
            end
            acc_row_q[l * ACC_LANE +: ACC_LANE] <= ACC_LANE'(v);
          end
          row_q <= '{acc: desc.acc, int4: desc.int4, bcast: bcast, row: desc.row + k, first_row: desc.row,
                     rows: desc.rows};
        end
      end
    end

    // dma_load_int4's rows through the unpacker, a beat a cycle after the beat's grant.
    logic unpacked_valid;
    logic [SCRATCHPAD_ROW_BYTES-1:0][7:0] unpacked;
    logic [UNPACK_BYTES_W-1:0] int4_bytes_q;
    always_ff @(posedge clk_i) if (beat_i) int4_bytes_q <= UNPACK_BYTES_W'(desc.bytes);
    int4_unpack u_unpack (
      .clk_i, .rst_ni, .beat_valid_i(beat_q_valid), .beat_last_i(beat_q_last),
      .row_bytes_i(int4_bytes_q), .beat_i(data_q), .out_valid_o(unpacked_valid), .row_o(unpacked));
    wire [SPAD_BITS-1:0] spad_row = row_q.int4 ? unpacked : spad_row_q;

    // The rows a broadcast or a load of 0-byte rows writes one per cycle after the row it read.
    logic fill_q;
    logic [63:0] fill_row_q, fill_end_q;
    logic fill_acc_q;
    logic [SPAD_BITS-1:0] fill_spad_q;
    logic [ACC_BITS-1:0] fill_acc_data_q;
    wire empty_rows = start_i && desc.row_beats == 0 && desc.rows != 0;  // 0-byte rows: zeros
    wire row_write = write_q && !(row_q.int4 && !unpacked_valid);
    wire fill_after = row_write && row_q.bcast && row_q.rows > 1;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        fill_q <= 1'b0;
        {fill_row_q, fill_end_q} <= '0;
        fill_acc_q <= 1'b0;
        write_conflict_o <= 1'b0;
      end else begin
        if (fill_q) begin
          fill_row_q <= fill_row_q + 1;
          if (fill_row_q + 1 == fill_end_q) fill_q <= 1'b0;
          if (row_write) write_conflict_o <= 1'b1;
        end
        if (empty_rows) begin
          fill_q <= 1'b1;
          fill_row_q <= desc.row;
          fill_end_q <= desc.row + desc.rows;
          fill_acc_q <= desc.acc;
        end else if (fill_after) begin
          fill_q <= 1'b1;
          fill_row_q <= row_q.first_row + 1;
          fill_end_q <= row_q.first_row + row_q.rows;
          fill_acc_q <= row_q.acc;
        end
      end
    end
    always_ff @(posedge clk_i) begin
      if (empty_rows) begin
        fill_spad_q <= '0;
        fill_acc_data_q <= '0;
      end else if (fill_after) begin
        fill_spad_q <= spad_row;
        fill_acc_data_q <= acc_row_q;
      end
    end

    assign spad_wr_o = fill_q ? !fill_acc_q : row_write && !row_q.acc;
    assign acc_wr_o = fill_q ? fill_acc_q : row_write && row_q.acc;
    assign wr_row_o = fill_q ? 32'(fill_row_q) : 32'(row_q.row);
    assign spad_wr_data_o = fill_q ? fill_spad_q : spad_row;
    assign acc_wr_data_o = fill_q ? fill_acc_data_q : acc_row_q;
    assign {spad_rd_o, acc_rd_o, rd_row_o} = '0;
  end else begin : g_store
    // The read of each row at its first beat; each beat's DRAM write a cycle after the beat, from
    // the SRAM's data (the row's first beat) or the row held since.
    assign spad_rd_o = beat_i && beat == 0 && !desc.acc;
    assign acc_rd_o = beat_i && beat == 0 && desc.acc;
    assign rd_row_o = 32'(desc.row + k);
    logic write_q, acc_q;
    logic [63:0] write_addr_q, write_offset_q;
    logic [31:0] write_len_q;
    logic [ROW_BYTES-1:0][7:0] held_q;  // the row in DRAM's form
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) write_q <= 1'b0;
      else write_q <= beat_i;
    end
    always_ff @(posedge clk_i) begin
      if (beat_i) begin
        acc_q <= desc.acc;
        write_addr_q <= row_addr + offset;
        write_offset_q <= offset;
        write_len_q <= beat_len;
      end
    end
    always_ff @(posedge clk_i) begin
      logic [ROW_BYTES-1:0][7:0] row;
      logic [BPC-1:0][7:0] data;
      if (write_q) begin
        row = held_q;
        if (spad_rd_valid_i || acc_rd_valid_i) begin
          row = '0;
          if (acc_q)
            for (int l = 0; l < LANES; l++) row[4 * l +: 4] = 32'($signed(acc_rd_data_i[l * ACC_LANE +: ACC_LANE]));
          else
            row[SCRATCHPAD_ROW_BYTES-1:0] = spad_rd_data_i;
          held_q <= row;
        end
        data = '0;
        for (int b = 0; b < BPC; b++)
          if (write_offset_q + 64'(b) < 64'(ROW_BYTES)) data[b] = row[32'(write_offset_q) + b];
        npu_dram_write(longint'(write_addr_q), int'(write_len_q), data);
      end
    end
    assign {spad_wr_o, acc_wr_o, wr_row_o, spad_wr_data_o, acc_wr_data_o, write_conflict_o} = '0;
  end
endmodule
