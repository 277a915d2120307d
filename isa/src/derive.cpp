// Algorithm: every parameter that follows from others is computed here, once; the parameter table
// that timing expressions and the generated docs read is built from the same struct.
#include <algorithm>

#include "systole/isa/config.h"

namespace systole::isa {

int weightTypeBits(std::string_view name) { return name == "int8" ? 8 : name == "int4" ? 4 : 0; }

int accumulatorTypeBits(std::string_view name) {
  return name == "int32" ? 32 : name == "int24" ? 24 : name == "int16" ? 16 : 0;
}

int activationTypeBits(std::string_view name) { return name == "int8" ? 8 : name == "int16" ? 16 : 0; }

std::string_view dataflowName(Dataflow d) {
  return d == Dataflow::WeightStationary ? "weight_stationary" : "output_stationary";
}

void deriveParameters(Params& p, const SourceLocation& where) {
  constexpr int64_t kAccumulatorDmaBytes = 4;  // DMA moves accumulator lanes as int32, whatever types.accumulator
  constexpr int64_t kLutEntries = 256;         // one lane per int8 input (vector_lut)
  p.spad_row_elems = std::max(p.array_rows, p.array_cols);
  p.spad_row_bytes = p.spad_row_elems * p.act_bits / 8;
  p.acc_row_elems = p.array_cols;
  p.acc_row_bytes = p.acc_row_elems * kAccumulatorDmaBytes;
  p.acc_sram_row_bytes = p.acc_row_elems * p.acc_bits / 8;
  p.vector_lanes = p.acc_row_elems;
  p.instr_bytes = p.instr_bits / 8;
  p.token_lsb = p.opcode_bits;
  p.fields_lsb = p.token_lsb + kNumTokenFlags;
  p.lut_rows = (kLutEntries + p.spad_row_elems - 1) / p.spad_row_elems;
  if (p.spad_size % p.spad_row_bytes != 0)
    throw Error(where, "scratchpad size " + std::to_string(p.spad_size) + " is not a multiple of its row (" +
                           std::to_string(p.spad_row_bytes) + " bytes)");
  if (const int64_t row = p.acc_sram_row_bytes; p.acc_size % row != 0)
    throw Error(where, "accumulator size " + std::to_string(p.acc_size) + " is not a multiple of its row (" +
                           std::to_string(row) + " bytes: " + std::to_string(p.acc_row_elems) + " lanes of int" +
                           std::to_string(p.acc_bits) + "); the nearest are " + std::to_string(p.acc_size / row * row) +
                           " and " + std::to_string((p.acc_size / row + 1) * row));
  p.spad_rows = p.spad_size / p.spad_row_bytes;
  p.acc_rows = p.acc_size / p.acc_sram_row_bytes;
  if (p.spad_rows < p.array_rows || p.spad_rows < p.lut_rows)
    throw Error(where, "scratchpad holds " + std::to_string(p.spad_rows) +
                           " rows, fewer than one weight tile or one lookup table needs");
  if (p.acc_rows < 2) throw Error(where, "accumulator must hold at least 2 rows (a requantize scale pair)");
  if (p.spad_rows % p.spad_banks != 0 || p.acc_rows % p.acc_banks != 0)
    throw Error(where, "memory rows must divide evenly into banks");
}

std::vector<ParamEntry> parameterTable(const Params& p) {
  return {
      {"array.rows", p.array_rows, false, "PE rows (the reduction dimension K of one weight tile)"},
      {"array.cols", p.array_cols, false, "PE columns (output channels N of one weight tile)"},
      {"array.weight_buffers", p.array_weight_buffers, false,
       "weight sets the array holds (2: a preload fills the shadow set while matmuls use the other)"},
      {"array.weight_bits", p.widestWeightBits(), true,
       "bits of a PE's weight register = the widest of types.weight (weight_preload keeps a byte's low bits)"},
      {"array.line_buffer_rows", p.array_line_buffer_rows, false,
       "scratchpad rows the depthwise mode's line buffer holds (0: no depthwise_tile)"},
      {"dram.size", p.dram_size, false, "DRAM capacity, bytes"},
      {"dram.bytes_per_cycle", p.dram_bytes_per_cycle, false, "DRAM bandwidth, bytes per cycle"},
      {"dram.latency", p.dram_latency, false, "DRAM access latency, cycles"},
      {"scratchpad.size", p.spad_size, false, "scratchpad capacity, bytes"},
      {"scratchpad.banks", p.spad_banks, false, "scratchpad banks (rows interleaved across banks)"},
      {"scratchpad.conflict_cycles", p.spad_conflict_cycles, false,
       "extra cycles per row when two sources of one instruction read the same bank"},
      {"scratchpad.row_bytes", p.spad_row_bytes, true,
       "bytes per scratchpad row = max(array.rows, array.cols) lanes of activation.bits"},
      {"scratchpad.rows", p.spad_rows, true, "scratchpad rows = size / row_bytes"},
      {"accumulator.size", p.acc_size, false, "accumulator capacity, bytes"},
      {"accumulator.banks", p.acc_banks, false, "accumulator banks"},
      {"accumulator.conflict_cycles", p.acc_conflict_cycles, false,
       "extra cycles per row when two sources of one instruction read the same bank"},
      {"activation.bits", p.act_bits, true, "bits of a scratchpad lane = types.activation (8 or 16)"},
      {"accumulator.bits", p.acc_bits, true, "bits of an accumulator lane = types.accumulator (narrower saturates)"},
      {"accumulator.row_bytes", p.acc_row_bytes, true,
       "bytes of an accumulator row as DMA moves it = array.cols int32"},
      {"accumulator.sram_row_bytes", p.acc_sram_row_bytes, true,
       "bytes of an accumulator row in the SRAM = array.cols x accumulator.bits / 8"},
      {"accumulator.rows", p.acc_rows, true, "accumulator rows = size / sram_row_bytes"},
      {"dma.burst_bytes", p.dma_burst_bytes, false, "largest DMA burst, bytes"},
      {"dma.outstanding", p.dma_outstanding, false, "DMA instructions in flight per DMA unit"},
      {"dma.broadcast", p.dma_broadcast, false,
       "1: a load with dram_stride 0 reads its row from DRAM once (bias broadcast)"},
      {"vector.latency", p.vector_latency, false, "vector unit pipeline latency, cycles"},
      {"vector.parallel", p.vector_parallel, false,
       "1: a vector instruction waits for the vector unit, not for the array's instruction before it"},
      {"vector.lanes", p.vector_lanes, true, "vector unit lanes = array.cols"},
      {"queues.load", p.queue_depth[0], false, "load queue depth, instructions"},
      {"queues.compute", p.queue_depth[1], false, "compute queue depth, instructions"},
      {"queues.store", p.queue_depth[2], false, "store queue depth, instructions"},
      {"host.elements_per_cycle", p.host_elements_per_cycle, false, "host operators: output elements per NPU cycle"},
      {"host.macs_per_cycle", p.host_macs_per_cycle, false,
       "host Conv/Gemm/MatMul: multiply-accumulates per NPU cycle"},
      {"host.op_cycles", p.host_op_cycles, false, "fixed cost of one host operator, NPU cycles"},
      {"encoding.width", p.instr_bits, false, "instruction width, bits"},
      {"encoding.opcode_bits", p.opcode_bits, false, "opcode width, bits (the opcode sits at bit 0)"},
      {"lut.rows", p.lut_rows, true, "scratchpad rows a 256-entry lookup table occupies"},
  };
}

}  // namespace systole::isa
