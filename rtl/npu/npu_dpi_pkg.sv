// The NPU's links to the harness (DPI): the program's words (the NPU fetches them as it dispatches)
// and the trace of each instruction's start and completion, which the harness compares with the
// simulator's timeline.
package npu_dpi_pkg;
  import systole_pkg::INSTR_BITS;
  import systole_pkg::DRAM_BYTES_PER_CYCLE;
  // Writes instruction `index`'s word (isa::encode's little-endian bytes).
  import "DPI-C" function void npu_fetch(input int unsigned index, output bit [INSTR_BITS-1:0] word);
  // Instruction `index` started on `unit` in `cycle`.
  import "DPI-C" function void npu_started(input int unsigned index, input int unit, input longint cycle);
  // Instruction `index` completed in `cycle` (its results written; a DMA's tokens pushed).
  import "DPI-C" function void npu_completed(input int unsigned index, input int unit, input longint cycle);
  // Compute instruction `index` started but the RTL's datapath did not compute it.
  import "DPI-C" function void npu_not_computed(input int unsigned index);
  // A beat of the DRAM channel: `len` (at most DRAM_BYTES_PER_CYCLE) bytes at `addr`, little-endian
  // in `data` (the bytes past `len` are don't-care).
  import "DPI-C" function void npu_dram_read(input longint addr, input int len,
                                             output bit [8*DRAM_BYTES_PER_CYCLE-1:0] data);
  import "DPI-C" function void npu_dram_write(input longint addr, input int len,
                                              input bit [8*DRAM_BYTES_PER_CYCLE-1:0] data);
endpackage
