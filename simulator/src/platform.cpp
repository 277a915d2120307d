// Algorithm (the timing model): every instruction gets
//   dispatch = controller cycle, delayed while its queue is full (a slot frees when the
//              instruction queue-depth places earlier in the same queue starts);
//   start    = max(unit free, dispatch, stamps of the tokens it pops);
//   end      = start + YAML timing + modelled contention (DRAM channel waits, bank conflicts);
//   a compute instruction also waits for the results and weights it needs from instructions still
//   in flight (isa/pipeline.h), and the unit is free again after its `issue` cycles.
// Tokens carry the cycle they were pushed, so units can run ahead of one another and still compute
// exact start times. One SystemC thread steps the units (temporal decoupling without a context
// switch per wait): the controller and the compute unit run as far as they can, then of the two
// DMA units the one whose next instruction is older (earlier in the program) and ready reserves the
// DRAM channel. The channel serves the oldest instruction first: a younger one takes the cycles
// the older ones leave free, before or between their transfers (DramChannel's calendar). So the
// grant depends on the program, not on the simulation order or quantum. (An older instruction
// still waiting for a token when only a younger one can go waits on that one through the token
// chain; the younger one reserves first.)
#include "platform.h"

#include <cstring>

#include "systole/isa/assembler.h"
#include "systole/sim/functional.h"
#include "systole/sim/sram_traffic.h"

namespace systole::sim {

using isa::Semantics;
using isa::Unit;

void RunContext::raise(uint32_t index, const std::string& cause) {
  if (!fault) fault.emplace(index, isa::formatInstruction(*isa, (*program)[index]), cause);
}

// ---------------------------------------------------------------------------------------------
DramTarget::DramTarget(sc_core::sc_module_name name, RunContext& ctx) : sc_module(name), ctx_(ctx) {
  for (auto* port : {&load_port, &store_port}) {
    port->register_b_transport(this, &DramTarget::b_transport);
    port->register_get_direct_mem_ptr(this, &DramTarget::get_direct_mem_ptr);
  }
}

void DramTarget::b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  const uint64_t len = payload.get_data_length();
  if (payload.get_command() != tlm::TLM_IGNORE_COMMAND) {
    try {
      if (payload.is_read())
        ctx_.dram->read(payload.get_address(), payload.get_data_ptr(), len);
      else
        ctx_.dram->write(payload.get_address(), payload.get_data_ptr(), len);
    } catch (const FaultCause&) {
      payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
  }
  // The channel is busy for each row's bytes at the DRAM's bandwidth.
  const auto bandwidth = static_cast<uint64_t>(ctx_.params().dram_bytes_per_cycle);
  const DmaTiming* dma = payload.get_extension<DmaTiming>();
  const uint64_t request = dma ? dma->cycle : timeToCycles(sc_core::sc_time_stamp() + delay);
  const uint64_t occupancy =
      dma ? dma->rows * ((dma->row_bytes + bandwidth - 1) / bandwidth) : (len + bandwidth - 1) / bandwidth;
  const uint64_t done = ctx_.channel.reserve(request, occupancy);
  delay += cyclesToTime(done - request - occupancy);
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

bool DramTarget::get_direct_mem_ptr(tlm::tlm_generic_payload& payload, tlm::tlm_dmi& dmi) {
  const uint64_t addr = payload.get_address();
  if (addr >= ctx_.dram->size()) return false;
  const uint64_t base = addr & ~(PagedDram::kPageSize - 1);
  dmi.set_dmi_ptr(ctx_.dram->page(addr));
  dmi.set_start_address(base);
  dmi.set_end_address(std::min(base + PagedDram::kPageSize, ctx_.dram->size()) - 1);
  dmi.allow_read_write();
  dmi.set_read_latency(sc_core::SC_ZERO_TIME);
  dmi.set_write_latency(sc_core::SC_ZERO_TIME);
  return true;
}

// ---------------------------------------------------------------------------------------------
Controller::Controller(sc_core::sc_module_name name, RunContext& ctx) : sc_module(name), ctx_(ctx) {}

void Controller::reset() {
  next_ = 0;
  cycle_ = ctx_.base_cycle;
  closed_ = false;
  full_ = nullptr;
  region_ = {};
}

bool Controller::dispatch() {
  // Still waiting for the same queue's oldest instruction to start: nothing to do (the scheduler
  // asks after every instruction any unit commits).
  if (full_ && full_->dispatched - full_->start_cycles.size() >= fullDepth_) return false;
  full_ = nullptr;
  const auto& program = *ctx_.program;
  const isa::Params& p = ctx_.params();
  bool moved = false;
  while (next_ < program.size() && !ctx_.fault) {
    const isa::InstrDesc& d = ctx_.isa->instr(program[next_].desc);
    const int u = static_cast<int>(d.unit);
    InstructionQueue& q = ctx_.queues[u];
    const auto depth = static_cast<uint64_t>(p.queue_depth[u]);
    if (q.dispatched - q.start_cycles.size() >= depth) {  // full until its oldest starts
      full_ = &q;
      fullDepth_ = depth;
      return moved;
    }
    uint64_t ready = next_ == 0 ? cycle_ : cycle_ + 1;  // one dispatch per cycle
    if (q.dispatched >= depth) {
      const uint64_t slotFree = q.start_cycles[q.dispatched - depth];
      if (slotFree > ready) {
        region_.at(ctx_, next_)
            .counters.stall_cycles[static_cast<size_t>(u)][static_cast<size_t>(StallCause::QueueFull)] +=
            slotFree - ready;
        ready = slotFree;
      }
    }
    cycle_ = ready;
    q.pending.push_back({next_, cycle_});
    ++q.dispatched;
    moved = true;
    next_ = d.semantics == Semantics::Finish ? static_cast<uint32_t>(program.size()) : next_ + 1;
  }
  if (!closed_) {
    for (auto& q : ctx_.queues) q.closed = true;
    closed_ = moved = true;
  }
  return moved;
}

// ---------------------------------------------------------------------------------------------
QueueUnit::QueueUnit(sc_core::sc_module_name name, RunContext& ctx, Unit unit)
    : sc_module(name), ctx_(ctx), unit_(unit), me_(static_cast<int>(unit)) {
  if (unit != Unit::Compute) dram = std::make_unique<tlm_utils::simple_initiator_socket<QueueUnit>>("dram");
  timing_ = new DmaTiming;
  payload_.set_extension(timing_);
}

void QueueUnit::reset() {
  next_ = {};
  local_ = ctx_.base_cycle;
  paths_ = {ctx_.base_cycle, ctx_.base_cycle, ctx_.base_cycle};
  inflight_.clear();
  board_ = isa::ComputeScoreboard(ctx_.params());
  ctx_.status[me_] = UnitStatus{.local_cycle = local_};
  dmiValid_ = false;  // the DRAM's pages were reset for this run
  cursor_ = {};
}

bool QueueUnit::takeToken(int from) {
  TokenFifo& fifo = ctx_.tokens[from][me_];
  UnitStatus& st = ctx_.status[me_];
  if (fifo.cycles.empty()) {
    st.waiting_instruction = next_.entry.index;
    st.waiting_for = from;
    return false;
  }
  st.waiting_instruction = -1;
  const uint64_t stamp = fifo.cycles.front();
  fifo.cycles.pop_front();
  if (stamp > next_.start) {
    region_->counters.stall_cycles[static_cast<size_t>(me_)][static_cast<size_t>(StallCause::Token)] +=
        stamp - next_.start;
    next_.start = stamp;
  }
  return true;
}

bool QueueUnit::prepare() {
  if (!next_.valid) {
    InstructionQueue& q = ctx_.queues[me_];
    if (q.pending.empty()) return false;
    const QueueEntry e = q.pending.front();
    q.pending.pop_front();
    const isa::Instruction& in = (*ctx_.program)[e.index];
    const isa::InstrDesc& d = ctx_.isa->instr(in.desc);
    region_ = &cursor_.at(ctx_, e.index);
    // With two weight sets a preload runs on the array's weight path beside the instruction
    // stream: in order (a cycle after the instruction before it starts), without waiting for that
    // one's issue to end; with vector.parallel a vector instruction waits for the vector unit
    // only (isa::IssuePaths). Everything else waits until the unit is free.
    const isa::IssuePath path = unit_ == Unit::Compute ? isa::issuePath(ctx_.params(), d) : isa::IssuePath::Main;
    uint64_t start = std::max(unit_ == Unit::Compute ? paths_.earliest(path) : local_, e.dispatch);
    // At most `limit` instructions in flight: wait for the oldest to complete. The compute unit has
    // no such limit: its scoreboard orders what depends on an instruction still in flight, and
    // without `timing.issue` an instruction occupies the unit until it completes.
    const size_t limit = unit_ == Unit::Compute ? SIZE_MAX : static_cast<size_t>(ctx_.params().dma_outstanding);
    while (!inflight_.empty() && (inflight_.front() <= start || inflight_.size() >= limit)) {
      start = std::max(start, inflight_.front());
      inflight_.pop_front();
    }
    // Field by field: an aggregate assignment here is built on the stack and copied whole, which
    // stalls on store forwarding (a fifth of timing-only simulation).
    next_.valid = true;
    next_.entry = e;
    next_.start = start;
    next_.pop_prev = (in.tokens & isa::kPopPrev) != 0;
    next_.pop_next = (in.tokens & isa::kPopNext) != 0;
    next_.path = path;
  }
  if (next_.pop_prev) {
    if (!takeToken(me_ - 1)) return false;
    next_.pop_prev = false;
  }
  if (next_.pop_next) {
    if (!takeToken(me_ + 1)) return false;
    next_.pop_next = false;
  }
  return true;
}

void QueueUnit::commit() {
  InstructionQueue& q = ctx_.queues[me_];
  UnitStatus& st = ctx_.status[me_];
  const QueueEntry e = next_.entry;
  const isa::IssuePath path = next_.path;
  uint64_t start = next_.start;
  next_.valid = false;
  const isa::Instruction& in = (*ctx_.program)[e.index];
  const isa::InstrDesc& d = ctx_.isa->instr(in.desc);
  if (unit_ == Unit::Compute) {  // wait for the results and weights it needs (pipelined compute)
    accesses_ = isa::computeAccesses(ctx_.params(), d, in);
    const uint64_t ready = board_.earliestStart(d, accesses_, start);
    region_->counters.stall_cycles[static_cast<size_t>(me_)][static_cast<size_t>(StallCause::Hazard)] += ready - start;
    start = ready;
  }
  q.start_cycles.push_back(start);
  Timing time;
  try {
    time = execute(d, in, (*ctx_.timing)[e.index], start);
  } catch (const FaultCause& c) {
    ctx_.raise(e.index, c.message);
    return;
  } catch (const Error& err) {  // e.g. division by zero in a timing expression
    ctx_.raise(e.index, err.message());
    return;
  }
  // A unit's instructions complete in order as seen by the other queues: a token is stamped no
  // earlier than the completion of every instruction before it, so it never overtakes their data.
  // (A DMA completes then; a compute instruction's own results are ready at `done`, which is
  // what its scoreboard and the trace record: a preload into the shadow weight set may finish
  // before the matmul ahead of it drains.)
  const uint64_t done = start + time.cycles;
  const uint64_t end = std::max(done, inflight_.empty() ? 0 : inflight_.back());
  inflight_.push_back(end);
  if (unit_ == Unit::Compute) board_.record(d, accesses_, start, done);
  if (in.tokens & isa::kPushPrev) ctx_.tokens[me_][me_ - 1].cycles.push_back(end);
  if (in.tokens & isa::kPushNext) ctx_.tokens[me_][me_ + 1].cycles.push_back(end);
  const uint64_t shown = unit_ == Unit::Compute ? done : end;
  if (ctx_.record_trace)
    ctx_.trace.add({e.index, static_cast<uint8_t>(me_), start - ctx_.base_cycle, shown - ctx_.base_cycle,
                    e.dispatch - ctx_.base_cycle});
  region_->first_start = std::min(region_->first_start, start - ctx_.base_cycle);
  region_->last_end = std::max(region_->last_end, shown - ctx_.base_cycle);
  ++region_->counters.instructions;
  ++ctx_.stats.by_opcode[static_cast<size_t>(in.desc)].second;
  if (unit_ == Unit::Compute) {
    paths_.started(path, start, start + time.occupancy);
    local_ = paths_.free();
  } else {
    local_ = start + std::max<uint64_t>(time.occupancy, 1);  // a unit starts at most one instruction per cycle
  }
  st.local_cycle = local_;
}

void QueueUnit::finish() {
  for (uint64_t c : inflight_) local_ = std::max(local_, c);  // the unit is done when its last one completes
  inflight_.clear();
  UnitStatus& st = ctx_.status[me_];
  st.local_cycle = local_;
  const InstructionQueue& q = ctx_.queues[me_];
  st.done = !ctx_.fault && !next_.valid && q.pending.empty() && q.closed;
}

void QueueUnit::countSram(const isa::Params& p, const isa::InstrDesc& d, const isa::Instruction& in) {
  const SramTraffic t = sramTraffic(p, d, in);
  Counters& c = region_->counters;
  c.spad_bytes_read += static_cast<uint64_t>(t.spad_read);
  c.spad_bytes_written += static_cast<uint64_t>(t.spad_written);
  c.acc_bytes_read += static_cast<uint64_t>(t.acc_read);
  c.acc_bytes_written += static_cast<uint64_t>(t.acc_written);
  c.vector_elements += static_cast<uint64_t>(t.vector_elements);
  c.vector_macs += static_cast<uint64_t>(t.vector_macs);
}

QueueUnit::Timing QueueUnit::execute(const isa::InstrDesc& d, const isa::Instruction& in, const InstrTiming& yaml,
                                     uint64_t start) {
  // Evaluated when the program was prepared, unless that failed: then again here, to raise the fault.
  const auto base = yaml.known ? yaml.cycles : static_cast<uint64_t>(d.cycles.eval(in.fields));
  const auto occupied = yaml.known ? yaml.occupancy : static_cast<uint64_t>(isa::occupancyCycles(*ctx_.isa, in));
  if (isDma(d.semantics)) {
    const uint64_t stall = executeDma(d, in, start);
    countSram(ctx_.params(), d, in);
    const auto occupancy = occupied + stall;
    region_->counters.stall_cycles[static_cast<size_t>(me_)][static_cast<size_t>(StallCause::DramBandwidth)] += stall;
    region_->counters.busy_cycles[static_cast<size_t>(unit_ == Unit::Load ? Resource::LoadDma : Resource::StoreDma)] +=
        occupancy;
    return {base + stall, occupancy};
  }
  const isa::Params& p = ctx_.params();
  if (!ctx_.timing_only) {
    const int64_t measured = executeCompute(p, d, in, *ctx_.state, ctx_.poison, ctx_.array);
    if (measured >= 0 && static_cast<uint64_t>(measured) != base)  // co-simulation: the RTL must keep the YAML timing
      throw FaultCause{"the array backend took " + std::to_string(measured) + " cycles for " + d.name +
                       " but its YAML timing `" + d.cycles.text() + "` gives " + std::to_string(base)};
  }
  const auto penalty = static_cast<uint64_t>(isa::bankConflictCycles(p, d, in));
  region_->counters.stall_cycles[static_cast<size_t>(me_)][static_cast<size_t>(StallCause::BankConflict)] += penalty;
  region_->counters.macs += static_cast<uint64_t>(macCount(p, d, in));
  countSram(p, d, in);
  // With `timing.issue` the unit takes its next instruction after `issue` cycles while this one
  // completes after `cycles`; a resource is busy for the cycles it is occupied.
  const auto occupancy = occupied + penalty;
  // A preload on the weight path (two weight sets) keeps no activation row out of the array: it
  // is not counted as array busy time.
  if (isa::isArrayProduct(d.semantics) || isa::isWeightPreload(d.semantics)) {
    if (!isa::onWeightPath(p, d)) region_->counters.busy_cycles[static_cast<size_t>(Resource::Array)] += occupancy;
  } else if (isa::isVectorClass(d.semantics))
    region_->counters.busy_cycles[static_cast<size_t>(Resource::Vector)] += occupancy;
  return {base + penalty, occupancy};
}

uint64_t QueueUnit::moveData(uint64_t addr, uint8_t* buffer, uint64_t len, bool toDram) {
  uint64_t delayed = 0;
  while (len > 0) {
    if (!dmiValid_ || addr < dmi_.get_start_address() || addr > dmi_.get_end_address()) {
      payload_.set_address(addr);
      payload_.set_command(toDram ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
      dmi_.init();
      dmiValid_ =
          (*dram)->get_direct_mem_ptr(payload_, dmi_) && (toDram ? dmi_.is_write_allowed() : dmi_.is_read_allowed());
    }
    if (!dmiValid_) {  // a memory model without DMI: move the bytes with a transaction
      sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
      payload_.set_command(toDram ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
      payload_.set_address(addr);
      payload_.set_data_ptr(buffer);
      payload_.set_data_length(static_cast<unsigned>(len));
      payload_.set_streaming_width(static_cast<unsigned>(len));
      payload_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
      timing_->rows = 0;
      (*dram)->b_transport(payload_, delay);
      if (payload_.is_response_error()) throw FaultCause{"DRAM rejected the access at address " + std::to_string(addr)};
      return delayed + timeToCycles(delay);
    }
    const uint64_t chunk = std::min<uint64_t>(len, dmi_.get_end_address() - addr + 1);
    uint8_t* mem = dmi_.get_dmi_ptr() + (addr - dmi_.get_start_address());
    if (toDram)
      std::memcpy(mem, buffer, chunk);
    else
      std::memcpy(buffer, mem, chunk);
    addr += chunk;
    buffer += chunk;
    len -= chunk;
  }
  return delayed;
}

uint64_t QueueUnit::executeDma(const isa::InstrDesc& d, const isa::Instruction& in, uint64_t start) {
  const DmaTransfer t = dmaTransfer(ctx_.params(), d, in);
  uint64_t stall = 0;
  if (!ctx_.timing_only) {
    checkDma(t, *ctx_.state, ctx_.dram->size(), ctx_.poison);
    rowBuffer_.resize(static_cast<size_t>(t.dramRowBytes()));
    for (int64_t i = 0; i < t.rows; ++i) {
      if (t.to_dram) dmaRowOut(t, i, rowBuffer_.data(), *ctx_.state);
      stall += moveData(t.rowAddress(i), rowBuffer_.data(), static_cast<uint64_t>(t.dramRowBytes()), t.to_dram);
      if (!t.to_dram) dmaRowIn(t, i, rowBuffer_.data(), *ctx_.state);
    }
  }
  // The instruction's use of the shared channel, as one timed transaction, annotated with its
  // start cycle (the scheduler commits DMA instructions in start order; see the top of the file).
  const uint64_t nowCycles = timeToCycles(sc_core::sc_time_stamp());
  sc_core::sc_time delay = cyclesToTime(start > nowCycles ? start - nowCycles : 0);
  const sc_core::sc_time issued = delay;
  // A broadcast load (dma.broadcast, dram_stride 0) reads its one row from DRAM once.
  const auto dramRows = static_cast<uint64_t>(isa::dramRows(ctx_.params(), d, in));
  timing_->cycle = start;
  timing_->rows = dramRows;
  timing_->row_bytes = static_cast<uint64_t>(t.dramRowBytes());
  payload_.set_command(tlm::TLM_IGNORE_COMMAND);
  payload_.set_address(t.dram_addr);
  payload_.set_data_ptr(nullptr);
  payload_.set_data_length(static_cast<unsigned>(t.totalBytes()));
  payload_.set_streaming_width(static_cast<unsigned>(t.totalBytes()));
  payload_.set_byte_enable_ptr(nullptr);
  payload_.set_dmi_allowed(false);
  payload_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  (*dram)->b_transport(payload_, delay);
  stall += timeToCycles(delay - issued);
  (t.to_dram ? region_->counters.dram_bytes_written : region_->counters.dram_bytes_read) +=
      dramRows * static_cast<uint64_t>(t.dramRowBytes());
  return stall;
}

// ---------------------------------------------------------------------------------------------
Platform::Platform(sc_core::sc_module_name name) : sc_module(name) {
  load_.dram->bind(dram_.load_port);
  store_.dram->bind(dram_.store_port);
  SC_THREAD(thread);
}

void Platform::thread() {
  for (;;) {
    wait(ctx.start_run);
    runProgram();
  }
}

void Platform::runProgram() {
  controller_.reset();
  for (QueueUnit* u : {&load_, &compute_, &store_}) u->reset();
  while (!ctx.fault) {
    // The controller and the compute unit share no resource that depends on the order they run
    // in (queue slots and tokens carry cycles): run them as far as they can go.
    for (bool moved = true; moved && !ctx.fault;) {
      moved = controller_.dispatch();
      for (; !ctx.fault && compute_.prepare(); moved = true) compute_.commit();
    }
    if (ctx.fault) break;
    // Then the oldest DMA instruction that is ready takes the channel.
    const bool loadReady = load_.prepare(), storeReady = store_.prepare();
    if (!loadReady && !storeReady) break;  // finished, or waiting for what nobody will provide
    QueueUnit& next = loadReady && (!storeReady || load_.nextIndex() < store_.nextIndex()) ? load_ : store_;
    next.commit();
    // Neither DMA unit will ask for the channel before its earliest start.
    const uint64_t behind = std::min(load_.earliestStart(), store_.earliestStart());
    ctx.channel.retire(behind);
    // Let SystemC time follow, a quantum at a time (other SystemC processes see it; results do not depend on it).
    if (const uint64_t now = timeToCycles(sc_core::sc_time_stamp()); behind > now + ctx.quantum_cycles)
      wait(cyclesToTime(behind - now));
  }
  for (QueueUnit* u : {&load_, &compute_, &store_}) u->finish();
}

}  // namespace systole::sim
