#pragma once
// The MPI executor (docs/mpi.md): `mpirun -np N couplet run scenario.yaml`.
//
// Every rank runs the same deterministic master — the algorithm and the
// sequential executor's bookkeeping (decision hash, evaluation grid, recorder
// calls) — on the same slave results, so the decisions and the decision hash
// equal the sequential run's by construction. Only the slave calls are
// distributed: each slave belongs to one rank (contiguous blocks in scenario
// order, so a chain's neighbours share a rank or sit on adjacent ranks), and
// every rank holds an MpiSlave proxy for each slave. A proxy of a slave this
// rank owns calls the real slave; the results reach the other ranks through
// MpiExchange.
//
// Waves. The executor announces every step of a batch before carrying out any
// (Slave::announce_step, the split phase that remote slaves use), and likewise
// the evaluations that are their slave's only action. An announced call whose
// slave has no earlier action in the plan (MpiPlanTap tells which) joins the
// batch's wave: at the first result the executor asks for, every rank carries out
// the wave's calls on the slaves it owns — concurrently with the other ranks —
// and one MPI_Allgatherv gives every rank all results. Any other call (a single
// step, an evaluation of an initial-output pass, a linearization, a step after a
// restore in the same plan) is carried out by its owner when the executor makes
// it and shared the same way, on its own.
//
// Errors. A failing slave call, or a failed setup/save/restore (kept until the
// next exchange), is reported in the exchange's header: every rank then throws
// the same error, naming the slave and the rank, from the same point of the run,
// so no rank waits for another that has stopped.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "runtime/algorithm.hpp"
#include "runtime/system.hpp"

namespace couplet::tools {

class MpiSession;

/// The rank that owns slave `slave` of `count` on `ranks` ranks: contiguous
/// blocks in scenario order, sizes differing by at most one.
int owner_rank(std::size_t slave, std::size_t count, int ranks);

class MpiExchange {
 public:
  MpiExchange(const MpiSession& session, std::size_t slave_count);
  ~MpiExchange();
  MpiExchange(const MpiExchange&) = delete;
  MpiExchange& operator=(const MpiExchange&) = delete;

  int rank() const { return rank_; }
  int ranks() const { return ranks_; }
  int owner(std::size_t slave) const { return owners_[slave]; }
  bool owns(std::size_t slave) const { return owners_[slave] == rank_; }

  /// Slave `slave`'s name, description and, on its owner, the real slave.
  void adopt(std::size_t slave, std::string name, const SlaveDescription& description,
             std::unique_ptr<Slave> local);

  /// A new plan (MpiPlanTap): which slaves' first action is which.
  void plan_started(std::span<const PlannedAction> actions);

  // The proxies' calls (MpiSlave).
  void setup(std::size_t slave, Time start);
  void announce_step(std::size_t slave, const StepRequest& request);
  void announce_outputs(std::size_t slave, std::span<const Polynomial> inputs);
  void step(std::size_t slave, const StepRequest& request, const OutputBuffers& result);
  void evaluate_outputs(std::size_t slave, std::span<const Polynomial> inputs,
                        std::span<double> outputs);
  void linearize(std::size_t slave, std::span<const Polynomial> inputs,
                 std::span<double> linearization);
  void save_state(std::size_t slave);
  void restore_state(std::size_t slave);

  /// A collective check that every rank is fine so far: a failure kept from a
  /// setup, save or restore, or `local_error` (this rank's, e.g. preparing its
  /// part of the run) makes every rank throw the same error. Called once the
  /// ranks have prepared the run and after its last step.
  void settle(const std::string& local_error = "");

  struct Counters {
    std::uint64_t exchanges = 0;       ///< MPI_Allgatherv calls
    std::uint64_t wave_calls = 0;      ///< slave calls carried out in a wave of several
    std::uint64_t single_calls = 0;    ///< slave calls shared on their own
    std::uint64_t bytes_received = 0;  ///< by this rank, headers included
    double exchange_seconds = 0;  ///< in MPI_Allgatherv (waiting for the slowest rank included)
  };
  const Counters& counters() const { return counters_; }

 private:
  enum class Call : std::uint8_t { none, step, evaluate, linearize };
  struct Member;
  struct Failure;

  void run_wave();
  void exchange(std::span<const std::size_t> calls);
  void carry_out(Member& member);
  std::size_t result_doubles(const Member& member) const;
  void keep_failure(std::size_t slave, const std::exception& error);
  [[noreturn]] void throw_failure(int failed_rank, int kind, std::uint64_t slave);
  void deliver(Member& member, std::span<double> end_outputs, std::span<double> samples);

  int rank_ = 0;
  int ranks_ = 1;
  std::vector<int> owners_;
  std::vector<std::unique_ptr<Member>> members_;
  std::vector<SlaveAction> first_action_;  ///< per slave in the current plan
  std::vector<bool> has_action_;
  std::vector<std::size_t> wave_;  ///< announced calls not yet exchanged, in plan order
  std::vector<std::size_t> single_;
  std::vector<std::size_t> cursor_;  ///< per rank: where its next result starts
  std::unique_ptr<Failure> kept_;    ///< a failure outside a result call, until the next exchange
  std::vector<std::uint8_t> send_;
  std::vector<std::uint8_t> receive_;
  std::vector<int> counts_;
  std::vector<int> displacements_;
  Counters counters_;
};

/// Builds the distributed form of `system` in place: every slave replaced by an
/// MpiSlave proxy; the real slave kept only on the rank that owns it.
void distribute(System& system, MpiExchange& exchange);

/// The algorithm, unchanged, telling `exchange` each plan it makes (which calls
/// may join a wave).
class MpiPlanTap final : public Algorithm {
 public:
  MpiPlanTap(Algorithm& inner, MpiExchange& exchange) : inner_(inner), exchange_(exchange) {}
  std::string_view name() const override { return inner_.name(); }
  AlgorithmRequirements requirements() const override { return inner_.requirements(); }
  void start(const RunSetup& setup, std::span<StepSlot> slots) override {
    inner_.start(setup, slots);
  }
  bool plan_next(std::span<StepSlot> slots, Plan& plan) override {
    const bool more = inner_.plan_next(slots, plan);
    if (more) exchange_.plan_started(plan.actions());
    return more;
  }
  void accept(std::span<const StepSlot> slots, const Plan& plan) override {
    inner_.accept(slots, plan);
  }
  void report(AlgorithmReport& report) const override { inner_.report(report); }
  std::vector<std::string> internal_quantities() const override {
    return inner_.internal_quantities();
  }
  void internal_values(std::span<double> values) const override { inner_.internal_values(values); }

 private:
  Algorithm& inner_;
  MpiExchange& exchange_;
};

}  // namespace couplet::tools
