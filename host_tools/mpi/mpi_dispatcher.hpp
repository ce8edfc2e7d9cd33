#pragma once
// The MPI executor (docs/mpi.md): `mpirun -np N couplet run scenario.yaml`.
//
// Every rank runs the same deterministic master — the algorithm and the
// executor's bookkeeping (decision hash, requests, evaluation grid, observer
// calls) — on the same slave results, so the decisions and the decision hash
// equal the sequential run's by construction. Only the slave calls are
// distributed, through the executor's ActionDispatcher seam
// (runtime/action_dispatcher.hpp): each slave belongs to one rank (contiguous
// blocks in scenario order, so a chain's neighbours share a rank or sit on
// adjacent ranks). For each wave, every rank makes the calls of the slaves it
// owns — at the same time as the other ranks — and one MPI_Allgatherv gives
// every rank all results (a wave whose slaves are all on one rank: one
// MPI_Bcast from it): each rank's replicated master reads every slot, so every
// rank needs every result (docs/mpi.md discusses the alternatives).
//
// Errors. A failing call is reported in the header every rank sends in each
// exchange, so every rank fails the same action with the same error (naming
// the slave and its rank) at the same point; a failed setup is kept until the
// first exchange. No rank waits for one that has stopped.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "runtime/action_dispatcher.hpp"
#include "runtime/system.hpp"

namespace couplet::tools {

class MpiSession;

/// The rank that owns slave `slave` of `count` on `ranks` ranks: contiguous
/// blocks in scenario order, sizes differing by at most one.
int owner_rank(std::size_t slave, std::size_t count, int ranks);

class MpiDispatcher final : public ActionDispatcher {
 public:
  /// Takes over `system`'s slaves: each rank keeps the slaves it owns and puts a
  /// stand-in (the description only) in the place of the others, whose objects
  /// it frees before they are set up.
  MpiDispatcher(const MpiSession& session, System& system);
  ~MpiDispatcher() override;
  MpiDispatcher(const MpiDispatcher&) = delete;
  MpiDispatcher& operator=(const MpiDispatcher&) = delete;

  std::string_view name() const override { return "mpi"; }
  bool calls_slave(std::size_t slave) const override { return owns(slave); }
  void carry_out(std::span<const PlannedAction> wave, ActionCalls& calls) override;
  void share_discrete_start_values(std::size_t slave,
                                   std::span<std::int64_t> discrete_outputs) override;

  int rank() const { return rank_; }
  int ranks() const { return ranks_; }
  int owner(std::size_t slave) const { return owners_[slave]; }
  bool owns(std::size_t slave) const { return owners_[slave] == rank_; }

  /// A collective check that every rank is fine so far: a failure kept from a
  /// setup, or `local_error` (this rank's, e.g. preparing its part of the run),
  /// makes every rank throw the same error. Called once the ranks have
  /// prepared the run and after its last wave.
  void settle(const std::string& local_error = "");

  /// A slave's setup failed on this rank: reported at the next exchange.
  void keep_failure(std::size_t slave, const std::exception& error);
  /// A call on one of this rank's slaves threw `error` (its text for the others).
  void note_call_failure(std::size_t slave, const std::exception& error);

  /// What each rank sends at the head of its part of every exchange.
  struct Header {
    std::int32_t kind = 0;       ///< 0: fine; else the error's type
    std::uint32_t position = 0;  ///< the failed action's place in the wave (kNotInWave: outside)
    std::uint64_t slave = 0;     ///< the slave that failed (slave count: none)
  };
  static constexpr std::uint32_t kNotInWave = 0xffffffffu;

  struct Counters {
    std::uint64_t exchanges = 0;       ///< one per wave: MPI_Allgatherv, or MPI_Bcast ...
    std::uint64_t broadcasts = 0;      ///< ... when the wave's slaves are all on one rank
    std::uint64_t actions = 0;         ///< actions carried out through them
    std::uint64_t bytes_received = 0;  ///< by this rank, headers included
    double exchange_seconds = 0;       ///< in the exchanges (waiting for the slowest rank included)
  };
  const Counters& counters() const { return counters_; }

 private:
  struct Failure;
  void exchange(std::span<const PlannedAction> wave, ActionCalls* calls, const Header& header);
  Header header_of(int rank) const;
  std::string failure_text(int failed_rank, std::uint64_t slave, const std::string& message) const;
  std::string broadcast_message(int root, const std::string& message) const;
  /// What `header` reports from rank `root`, the same on every rank: its
  /// message (and a stop request's time) broadcast from there.
  std::exception_ptr reported_error(int root, const Header& header, const std::string& message,
                                    double stop_time) const;

  int rank_ = 0;
  int ranks_ = 1;
  std::vector<int> owners_;
  std::vector<std::string> names_;
  std::unique_ptr<Failure> kept_;  ///< this rank's first failure, until an exchange reports it
  std::vector<std::int32_t> noted_kind_;    ///< per slave: its last failed call's error type
  std::vector<std::string> noted_message_;  ///< and text
  std::vector<double> noted_stop_time_;     ///< and, for a stop request, its time
  std::vector<std::uint8_t> send_;
  std::vector<std::uint8_t> receive_;
  std::vector<int> counts_;
  std::vector<int> displacements_;
  std::vector<std::size_t> cursor_;
  Counters counters_;
};

}  // namespace couplet::tools
