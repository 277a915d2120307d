// Runs a Verilated npu_top (rtl/npu/npu_top.sv) of one config: the DPI functions it imports
// (npu_dpi_pkg) read the program's words, record each instruction's cycles and move the DMA's
// beats to and from the DRAM of the run that is under way (one at a time per process).
#pragma once

#include <chrono>
#include <cstring>
#include <memory>

#include "systole/isa/diagnostic.h"
#include "systole/rtl/npu.h"
#include "verilated.h"

namespace systole::rtl {

/// The run under way: the program's encoded words, its DRAM and the cycles recorded so far.
struct NpuDpiRun {
  const uint8_t* code = nullptr;
  size_t instr_bytes = 0;
  size_t length = 0;
  NpuRun* result = nullptr;
  sim::PagedDram* dram = nullptr;
};
NpuDpiRun& currentNpuRun();

template <class Top>
NpuRun runVerilatedNpu(const std::vector<uint8_t>& code, size_t instrBytes, std::shared_ptr<sim::PagedDram> dram,
                       uint64_t maxCycles) {
  NpuRun run;
  const size_t length = code.size() / instrBytes;
  run.instructions.resize(length);
  run.dram = dram;
  currentNpuRun() = {code.data(), instrBytes, length, &run, dram.get()};
  struct Detach {  // the DPI functions never see this run again, however the function exits
    ~Detach() { currentNpuRun() = {}; }
  } detach;
  const auto began = std::chrono::steady_clock::now();
  auto ctx = std::make_unique<VerilatedContext>();
  ctx->randReset(2);  // registers without reset start random, as in the checks
  ctx->randSeed(1);
  auto top = std::make_unique<Top>(ctx.get());
  top->program_length_i = static_cast<uint32_t>(length);
  top->clk_i = 0;
  top->rst_ni = 1;
  top->eval();
  top->rst_ni = 0;  // a real falling edge: the asynchronous resets act before the first clock edge
  top->eval();
  top->rst_ni = 1;
  top->eval();
  // One cycle fetches the first word, then cycle 0 of the program begins.
  for (uint64_t tick = 0; !top->done_o; ++tick) {
    if (tick > maxCycles) {
      run.timed_out = true;
      break;
    }
    top->clk_i = 1;
    top->eval();
    top->clk_i = 0;
    top->eval();
  }
  run.cycles = top->cycles_o;
  run.busy_cycles = {top->load_busy_o, top->array_busy_o, top->vector_busy_o, top->store_busy_o};
  for (size_t u = 0; u < run.stall_cycles.size(); ++u)
    for (size_t c = 0; c < run.stall_cycles[u].size(); ++c) {
      const size_t word = 2 * (u * run.stall_cycles[u].size() + c);  // 64 bits each, [unit][cause]
      run.stall_cycles[u][c] = top->stall_cycles_o[word] | uint64_t{top->stall_cycles_o[word + 1]} << 32;
    }
  run.scoreboard_full_cycles = top->scoreboard_full_o;
  run.fault = top->fault_o;
  run.beats_exceed_occupancy = top->beats_exceed_occupancy_o;
  run.write_conflict = top->write_conflict_o;
  run.uncomputed = top->uncomputed_o;
  top->final();
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  return run;
}

}  // namespace systole::rtl
