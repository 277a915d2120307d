// What a compute instruction touches, for the compute unit's scoreboard: the scratchpad and
// accumulator rows it reads (up to three ranges) and writes (one), whether it loads or reads the
// array's weights, which issue path it takes, and the cycles it loses to bank conflicts. The rules
// are isa::rowFootprint, isa::computeAccesses and isa::bankConflictCycles (isa/src/), one case
// per semantics class; a range is [lo, hi) of one memory, a strided one as its span.
module npu_compute_accesses
  import systole_pkg::*;
(
  /* verilator lint_off UNUSEDSIGNAL */  // the decoded word's other parts
  input  instr_t       instr_i,
  /* verilator lint_on UNUSEDSIGNAL */
  output logic [2:0]   read_valid_o,
  output logic [2:0]   read_acc_o,     // the range is in the accumulator (else the scratchpad)
  output logic [31:0]  read_lo_o[3],
  output logic [31:0]  read_hi_o[3],
  output logic         write_valid_o,
  output logic         write_acc_o,
  output logic [31:0]  write_lo_o,
  output logic [31:0]  write_hi_o,
  output logic         array_product_o,  // matmul_tile, matmul_stream, depthwise_tile
  output logic         reads_weights_o,  // matmul_tile, depthwise_tile
  output logic         writes_weights_o, // weight_preload, weight_preload_t
  output logic         vector_class_o,   // a class the vector unit runs
  output logic [63:0]  conflict_cycles_o
);
  localparam longint ROWS = 64'(ARRAY_ROWS), COLS = 64'(ARRAY_COLS), TABLE_ROWS = 64'(LUT_ROWS);
  localparam longint SPAD_BANKS = 64'(SCRATCHPAD_BANKS), ACC_BANKS = 64'(ACCUMULATOR_BANKS);
  localparam longint SPAD_CONFLICT = 64'(SCRATCHPAD_CONFLICT_CYCLES), ACC_CONFLICT = 64'(ACCUMULATOR_CONFLICT_CYCLES);
  function automatic longint op(int k);
    return longint'(instr_i.operands[k]);
  endfunction
  // The span of `runs` runs of `rows` rows, `stride` apart, from `row` (RowAccess::span).
  function automatic longint span_hi(longint row, longint rows, longint runs, longint stride);
    return runs > 0 ? row + (runs - 1) * stride + rows : row;
  endfunction

  int reads;
  always_comb begin
    read_valid_o = '0;
    read_acc_o = '0;
    for (int k = 0; k < 3; k++) begin
      read_lo_o[k] = '0;
      read_hi_o[k] = '0;
    end
    write_valid_o = 1'b0;
    write_acc_o = 1'b0;
    write_lo_o = '0;
    write_hi_o = '0;
    reads = 0;
    unique case (int'(instr_i.semantics))
      SEM_WEIGHT_PRELOAD, SEM_WEIGHT_PRELOAD_T:
        add_read(1'b0, op(0), op(0) + (int'(instr_i.semantics) == SEM_WEIGHT_PRELOAD ? ROWS : COLS));
      SEM_MATMUL_TILE, SEM_DEPTHWISE_TILE: begin  // a_row, acc_row, m, accumulate (kh, kw, pitch, stride)
        add_read(1'b0, op(0), op(0) + (int'(instr_i.semantics) == SEM_DEPTHWISE_TILE
                                       ? (op(2) <= 0 ? 0 : op(7) * (op(2) - 1) + (op(4) - 1) * op(6) + op(5)) : op(2)));
        accumulate_into(op(1), op(2), op(3) != 0);
      end
      SEM_MATMUL_STREAM: begin  // a_row, a_stride, w_row, acc_row, m, k_slices, accumulate
        accumulate_into(op(3), op(4), op(6) != 0);
        add_read(1'b0, op(0), span_hi(op(0), op(4), op(5), op(1)));
        add_read(1'b0, op(2), span_hi(op(2), ROWS, op(5), ROWS));
      end
      SEM_REQUANTIZE: begin  // acc_row, spad_row, rows, scale_row (two rows of scales)
        add_read(1'b1, op(0), op(0) + op(2));
        add_read(1'b1, op(3), op(3) + 2);
        set_write(1'b0, op(1), op(1) + op(2));
      end
      SEM_VECTOR_ADD, SEM_VECTOR_MUL, SEM_VECTOR_MAX: begin  // dst_row, a_row, b_row, rows
        add_read(int'(instr_i.semantics) != SEM_VECTOR_MAX, op(1), op(1) + op(3));
        add_read(int'(instr_i.semantics) != SEM_VECTOR_MAX, op(2), op(2) + op(3));
        set_write(int'(instr_i.semantics) != SEM_VECTOR_MAX, op(0), op(0) + op(3));
      end
      SEM_VECTOR_LUT: begin  // dst_row, src_row, rows, table_row
        add_read(1'b0, op(1), op(1) + op(2));
        add_read(1'b0, op(3), op(3) + TABLE_ROWS);
        set_write(1'b0, op(0), op(0) + op(2));
      end
      SEM_VECTOR_WIDEN: begin  // spad_row, acc_row, rows
        add_read(1'b0, op(0), op(0) + op(2));
        set_write(1'b1, op(1), op(1) + op(2));
      end
      SEM_VECTOR_REDUCE, SEM_VECTOR_RECIP: begin  // dst_row, src_row, rows
        add_read(1'b1, op(1), op(1) + op(2));
        set_write(1'b1, op(0), op(0) + op(2));
      end
      SEM_VECTOR_MAC: begin  // dst_row, src_row, w_row, rows, stride, accumulate
        accumulate_into(op(0), op(3), op(5) != 0);
        add_read(1'b0, op(1), span_hi(op(1), 1, op(3), op(4)));
        add_read(1'b0, op(2), op(2) + 1);
      end
      default: ;  // DMA classes (ordered by tokens), nop, finish
    endcase
  end

  /* verilator lint_off UNUSEDSIGNAL */  // rows fit 32 bits (the operand limits)
  task automatic add_read(logic acc, longint lo, longint hi);
    read_valid_o[reads] = 1'b1;
    read_acc_o[reads] = acc;
    read_lo_o[reads] = 32'(lo);
    read_hi_o[reads] = 32'(hi);
    reads++;
  endtask
  task automatic set_write(logic acc, longint lo, longint hi);
    write_valid_o = 1'b1;
    write_acc_o = acc;
    write_lo_o = 32'(lo);
    write_hi_o = 32'(hi);
  endtask
  // An array product's or vector MAC's accumulator rows: written, and read when it accumulates.
  task automatic accumulate_into(longint row, longint rows, logic accumulate);
    set_write(1'b1, row, row + rows);
    if (accumulate) add_read(1'b1, row, row + rows);
  endtask
  /* verilator lint_on UNUSEDSIGNAL */

  wire [4:0] s = instr_i.semantics;
  assign array_product_o = int'(s) == SEM_MATMUL_TILE || int'(s) == SEM_MATMUL_STREAM || int'(s) == SEM_DEPTHWISE_TILE;
  assign reads_weights_o = int'(s) == SEM_MATMUL_TILE || int'(s) == SEM_DEPTHWISE_TILE;
  assign writes_weights_o = int'(s) == SEM_WEIGHT_PRELOAD || int'(s) == SEM_WEIGHT_PRELOAD_T;
  assign vector_class_o = int'(s) == SEM_REQUANTIZE || int'(s) == SEM_VECTOR_WIDEN || int'(s) == SEM_VECTOR_ADD ||
                          int'(s) == SEM_VECTOR_MUL || int'(s) == SEM_VECTOR_MAX || int'(s) == SEM_VECTOR_LUT ||
                          int'(s) == SEM_VECTOR_REDUCE || int'(s) == SEM_VECTOR_RECIP || int'(s) == SEM_VECTOR_MAC;

  // Bank conflicts (rows interleave across banks): two sources congruent modulo the bank count
  // collide on every row; matmul_stream's slices each have their own offset.
  function automatic longint modulo(longint a, longint b);
    return ((a % b) + b) % b;
  endfunction
  always_comb begin
    conflict_cycles_o = '0;
    if (int'(s) == SEM_MATMUL_STREAM && SPAD_BANKS > 1 && op(4) != 0) begin
      for (int k = 0; k < SCRATCHPAD_BANKS; k++)
        if (longint'(k) < op(5) && modulo(op(0) - op(2) + longint'(k) * (op(1) - ROWS), SPAD_BANKS) == 0)
          conflict_cycles_o += 64'((op(5) - longint'(k) + SPAD_BANKS - 1) / SPAD_BANKS * op(4) * SPAD_CONFLICT);
    end else if (int'(s) == SEM_VECTOR_MAX) begin
      if ((op(1) - op(2)) % SPAD_BANKS == 0) conflict_cycles_o = 64'(op(3) * SPAD_CONFLICT);
    end else if (int'(s) == SEM_VECTOR_ADD || int'(s) == SEM_VECTOR_MUL) begin
      if ((op(1) - op(2)) % ACC_BANKS == 0) conflict_cycles_o = 64'(op(3) * ACC_CONFLICT);
    end
  end
endmodule
