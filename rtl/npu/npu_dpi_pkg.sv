// The NPU's links to the harness (DPI): the program's words (the NPU fetches them as it dispatches)
// and the trace of each instruction's start and completion, which the harness compares with the
// simulator's timeline.
package npu_dpi_pkg;
  import systole_pkg::INSTR_BITS;
  // Writes instruction `index`'s word (isa::encode's little-endian bytes).
  import "DPI-C" function void npu_fetch(input int unsigned index, output bit [INSTR_BITS-1:0] word);
  // Instruction `index` started on `unit` in `cycle`.
  import "DPI-C" function void npu_started(input int unsigned index, input int unit, input longint cycle);
  // Instruction `index` completed in `cycle` (its results written; a DMA's tokens pushed).
  import "DPI-C" function void npu_completed(input int unsigned index, input int unit, input longint cycle);
endpackage
