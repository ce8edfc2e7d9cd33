#include "host_tools/mpi/mpi_dispatcher.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <limits>

#include "couplet/errors.hpp"
#include "host_tools/mpi/mpi_library.hpp"
#include "host_tools/mpi/mpi_session.hpp"

namespace couplet::tools {

namespace {

using Header = MpiDispatcher::Header;
static_assert(sizeof(Header) == 16);

// The error's type travels with its message, so that every rank throws what the
// failing rank caught (and `couplet` exits with the same status everywhere).
// A stop request (kStop) is no failure, but travels the same way: every rank
// ends the run where the sequential one would, as stopped.
enum FailureKind : std::int32_t {
  kSlave = 1,
  kProtocol = 2,
  kConfiguration = 3,
  kOther = 4,
  kStop = 5
};

FailureKind kind_of(const std::exception& error) {
  if (dynamic_cast<const StopRequest*>(&error) != nullptr) return kStop;
  if (dynamic_cast<const SlaveError*>(&error) != nullptr) return kSlave;
  if (dynamic_cast<const ProtocolViolation*>(&error) != nullptr) return kProtocol;
  if (dynamic_cast<const ConfigurationError*>(&error) != nullptr) return kConfiguration;
  return kOther;
}

double stop_time_of(const std::exception& error) {
  const auto* request = dynamic_cast<const StopRequest*>(&error);
  return request != nullptr ? request->time() : 0.0;
}

std::exception_ptr make_error(int kind, const std::string& text) {
  switch (kind) {
    case kSlave:
      return std::make_exception_ptr(SlaveError(text));
    case kProtocol:
      return std::make_exception_ptr(ProtocolViolation(text));
    case kConfiguration:
      return std::make_exception_ptr(ConfigurationError(text));
    default:
      return std::make_exception_ptr(std::runtime_error(text));
  }
}

void check(int status, const char* call) {
  if (status == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  mpi_library().error_string(status, text, &length);
  throw SlaveError(std::string("MPI executor: ") + call +
                   " failed: " + std::string(text, static_cast<std::size_t>(length)));
}

int as_count(std::size_t bytes) {
  if (bytes > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    throw SlaveError("MPI executor: one exchange would carry " + std::to_string(bytes) +
                     " bytes, more than an MPI count holds");
  }
  return static_cast<int>(bytes);
}

std::size_t result_bytes(const ActionResults& results) {
  return (results.outputs.size() + results.samples.size() + results.linearization.size()) *
             sizeof(double) +
         results.discrete_outputs.size_bytes();
}

/// The result buffers as bytes, in the order they travel.
std::array<std::span<std::byte>, 4> parts_of(const ActionResults& results) {
  return {std::as_writable_bytes(results.outputs), std::as_writable_bytes(results.samples),
          std::as_writable_bytes(results.linearization),
          std::as_writable_bytes(results.discrete_outputs)};
}

/// Copies `results`' buffers to `to` (pack) or fills them from `from` (unpack).
void pack(const ActionResults& results, std::uint8_t* to) {
  for (const std::span<std::byte> part : parts_of(results)) {
    if (part.empty()) continue;
    std::memcpy(to, part.data(), part.size());
    to += part.size();
  }
}
void unpack(const std::uint8_t* from, const ActionResults& results) {
  for (const std::span<std::byte> part : parts_of(results)) {
    if (part.empty()) continue;
    std::memcpy(part.data(), from, part.size());
    from += part.size();
  }
}

/// In the place of another rank's slave: its description, for the replicated
/// master. The executor never calls it (MpiDispatcher::calls_slave); a call
/// that reached it anyway would be a wrong result, so it is refused.
class ElsewhereSlave final : public Slave {
 public:
  ElsewhereSlave(std::string name, int rank, SlaveDescription description)
      : name_(std::move(name)), rank_(rank), description_(std::move(description)) {}
  const SlaveDescription& description() const override { return description_; }
  void setup(Time) override { refuse("setup"); }
  void evaluate_outputs(std::span<const Polynomial>, std::span<double>) override {
    refuse("evaluate_outputs");
  }
  void step(const StepRequest&, const OutputBuffers&) override { refuse("step"); }
  void evaluate_discrete_outputs(std::span<std::int64_t>) override {
    refuse("evaluate_discrete_outputs");
  }
  void save_state() override { refuse("save_state"); }
  void restore_state() override { refuse("restore_state"); }
  void linearize(std::span<const Polynomial>, std::span<double>) override { refuse("linearize"); }

 private:
  [[noreturn]] void refuse(const char* call) const {
    throw ProtocolViolation("slave '" + name_ + "' runs on MPI rank " + std::to_string(rank_) +
                            ": " + call + " cannot be called here");
  }
  std::string name_;
  int rank_;
  SlaveDescription description_;
};

/// This rank's slave: a failed setup is kept for the next exchange instead of
/// stopping this rank alone before the others.
class OwnedSlave final : public Slave {
 public:
  OwnedSlave(MpiDispatcher& dispatcher, std::size_t index, std::unique_ptr<Slave> slave)
      : dispatcher_(dispatcher), index_(index), slave_(std::move(slave)) {}
  const SlaveDescription& description() const override { return slave_->description(); }
  void setup(Time start) override {
    try {
      slave_->setup(start);
    } catch (const std::exception& error) {
      dispatcher_.keep_failure(index_, error);
    }
  }
  void evaluate_outputs(std::span<const Polynomial> inputs, std::span<double> outputs) override {
    noting([&] { slave_->evaluate_outputs(inputs, outputs); });
  }
  // Part of the setup: a failure is kept like the setup's.
  void evaluate_discrete_outputs(std::span<std::int64_t> discrete_outputs) override {
    try {
      slave_->evaluate_discrete_outputs(discrete_outputs);
    } catch (const std::exception& error) {
      dispatcher_.keep_failure(index_, error);
    }
  }
  void step(const StepRequest& request, const OutputBuffers& result) override {
    noting([&] { slave_->step(request, result); });
  }
  void announce_step(const StepRequest& request) override { slave_->announce_step(request); }
  void announce_outputs(std::span<const Polynomial> inputs) override {
    slave_->announce_outputs(inputs);
  }
  LinkStepReport last_link_report() const override { return slave_->last_link_report(); }
  void save_state() override {
    noting([&] { slave_->save_state(); });
  }
  void restore_state() override {
    noting([&] { slave_->restore_state(); });
  }
  void linearize(std::span<const Polynomial> inputs, std::span<double> linearization) override {
    noting([&] { slave_->linearize(inputs, linearization); });
  }

 private:
  // The dispatcher learns what a call threw (ActionCalls keeps the exception
  // but does not show it), to send it to the other ranks.
  template <typename Call>
  void noting(Call&& call) {
    try {
      call();
    } catch (const std::exception& error) {
      dispatcher_.note_call_failure(index_, error);
      throw;
    }
  }

  MpiDispatcher& dispatcher_;
  std::size_t index_;
  std::unique_ptr<Slave> slave_;
};

}  // namespace

struct MpiDispatcher::Failure {
  std::int32_t kind = kOther;
  std::size_t slave = 0;
  std::string message;
  double stop_time = 0.0;  ///< kStop: the time the slave asked at
};

int owner_rank(std::size_t slave, std::size_t count, int ranks) {
  // Rank r owns slaves [⌈r·count/ranks⌉, ⌈(r+1)·count/ranks⌉).
  const auto r = static_cast<std::size_t>(ranks);
  return static_cast<int>(((slave + 1) * r - 1) / count);
}

MpiDispatcher::MpiDispatcher(const MpiSession& session, System& system)
    : rank_(session.rank()), ranks_(session.size()) {
  const std::size_t count = system.slave_count();
  owners_.resize(count);
  names_.resize(count);
  for (std::size_t s = 0; s < count; ++s) {
    owners_[s] = owner_rank(s, count, ranks_);
    names_[s] = system.slave_name(s);
    const SlaveDescription description = system.description(s);
    // Another rank's slave is freed here, before its setup allocates its solver.
    std::unique_ptr<Slave> real = system.replace_slave(
        s, std::make_unique<ElsewhereSlave>(names_[s], owners_[s], description));
    if (owns(s)) system.replace_slave(s, std::make_unique<OwnedSlave>(*this, s, std::move(real)));
  }
  noted_kind_.assign(count, 0);
  noted_message_.assign(count, {});
  noted_stop_time_.assign(count, 0.0);
  counts_.resize(static_cast<std::size_t>(ranks_));
  displacements_.resize(static_cast<std::size_t>(ranks_));
  cursor_.resize(static_cast<std::size_t>(ranks_));
}

MpiDispatcher::~MpiDispatcher() = default;

void MpiDispatcher::keep_failure(std::size_t slave, const std::exception& error) {
  if (kept_) return;  // the first one is the one to report
  kept_ =
      std::make_unique<Failure>(Failure{kind_of(error), slave, error.what(), stop_time_of(error)});
}

void MpiDispatcher::note_call_failure(std::size_t slave, const std::exception& error) {
  noted_kind_[slave] = kind_of(error);
  noted_message_[slave] = error.what();
  noted_stop_time_[slave] = stop_time_of(error);
}

void MpiDispatcher::carry_out(std::span<const PlannedAction> wave, ActionCalls& calls) {
  // This rank's calls, in plan order, up to its first failure: the executor
  // stops at the first failed action, so the sequential dispatcher would not
  // have made the calls after it either.
  Header header;
  if (kept_) {
    header = {kept_->kind, kNotInWave, kept_->slave};
  } else {
    for (std::size_t k = 0; k < wave.size(); ++k) {
      const PlannedAction& action = wave[k];
      if (!owns(action.slave)) continue;
      calls.call(action);
      if (calls.failed(action)) {
        const std::int32_t kind =
            noted_kind_[action.slave] != 0 ? noted_kind_[action.slave] : kOther;
        header = {kind, static_cast<std::uint32_t>(k), action.slave};
        break;
      }
    }
  }
  exchange(wave, &calls, header);
  counters_.actions += wave.size();
  // The failure first in plan order, of whichever rank: every rank fails that
  // action with the same error (a failure outside the wave has thrown already).
  int failed_rank = -1;
  Header first;
  first.position = kNotInWave;
  for (int r = 0; r < ranks_; ++r) {
    const Header reported = header_of(r);
    if (reported.kind != 0 && reported.position < first.position) {
      first = reported;
      failed_rank = r;
    }
  }
  if (failed_rank < 0) return;
  calls.fail(wave[first.position], reported_error(failed_rank, first, noted_message_[first.slave],
                                                  noted_stop_time_[first.slave]));
}

std::exception_ptr MpiDispatcher::reported_error(int root, const Header& header,
                                                 const std::string& message,
                                                 double stop_time) const {
  const MpiLibrary& mpi = mpi_library();
  const std::string text = broadcast_message(root, message);
  if (header.kind != kStop) return make_error(header.kind, failure_text(root, header.slave, text));
  // The slave's own words, as in a run on one rank: a stop is no error.
  check(mpi.bcast(&stop_time, 1, mpi.float64, root, mpi.comm_world), "MPI_Bcast");
  const std::string slave = header.slave < names_.size() ? names_[header.slave] : std::string();
  return std::make_exception_ptr(StopRequest(slave, stop_time, text));
}

// Every rank runs the set-up loop in slave order: one broadcast per slave with
// discrete outputs, from its owner (zeros when its setup failed: that failure
// is reported at the next exchange).
void MpiDispatcher::share_discrete_start_values(std::size_t slave,
                                                std::span<std::int64_t> discrete_outputs) {
  const MpiLibrary& mpi = mpi_library();
  check(mpi.bcast(discrete_outputs.data(), as_count(discrete_outputs.size()), mpi.int64,
                  owners_[slave], mpi.comm_world),
        "MPI_Bcast");
}

void MpiDispatcher::settle(const std::string& local_error) {
  if (!local_error.empty() && !kept_) {
    keep_failure(owners_.size(), ConfigurationError(local_error));
  }
  Header header;
  if (kept_) header = {kept_->kind, kNotInWave, kept_->slave};
  exchange({}, nullptr, header);
}

// A rank that sent nothing (a broadcast from another) reports nothing.
Header MpiDispatcher::header_of(int rank) const {
  Header header;
  if (counts_[static_cast<std::size_t>(rank)] == 0) return header;
  std::memcpy(&header, receive_.data() + displacements_[static_cast<std::size_t>(rank)],
              sizeof header);
  return header;
}

std::string MpiDispatcher::failure_text(int failed_rank, std::uint64_t slave,
                                        const std::string& message) const {
  const std::string rank = "MPI rank " + std::to_string(failed_rank);
  if (slave >= names_.size()) return rank + ": " + message;
  // "slave 'x': why" (how slaves word their errors) becomes "slave 'x' (MPI rank r): why".
  const std::string named = "slave '" + names_[slave] + "'";
  const bool names_itself = message.rfind(named, 0) == 0;
  return named + " (" + rank + ")" + (names_itself ? message.substr(named.size()) : ": " + message);
}

// The message exists on the failing rank only; every rank, having seen the
// same headers, takes part in the same broadcast.
std::string MpiDispatcher::broadcast_message(int root, const std::string& message) const {
  const MpiLibrary& mpi = mpi_library();
  std::uint64_t length = rank_ == root ? message.size() : 0;
  check(mpi.bcast(&length, 1, mpi.uint64, root, mpi.comm_world), "MPI_Bcast");
  std::string text = rank_ == root ? message : std::string(length, '\0');
  if (length > 0) {
    check(mpi.bcast(text.data(), as_count(length), mpi.character, root, mpi.comm_world),
          "MPI_Bcast");
  }
  return text;
}

// One collective: a header from each rank and the results of the wave's calls
// it made, in plan order. The size of every part follows from the wave and the
// result buffers, which every rank's executor has sized alike, so no sizes
// travel. A wave whose slaves all belong to one rank (an evaluation of the
// initial-output passes, a refresh of one feedthrough slave) is broadcast from
// that rank instead: it sends and goes on without waiting for the others, and
// a failure another rank keeps waits for the next exchange that rank takes part
// in. A failure outside any wave (a setup, a rank's own preparation) is thrown
// on every rank from here.
void MpiDispatcher::exchange(std::span<const PlannedAction> wave, ActionCalls* calls,
                             const Header& header) {
  const MpiLibrary& mpi = mpi_library();
  int root = wave.empty() || calls == nullptr ? -1 : owners_[wave.front().slave];
  for (const PlannedAction& action : wave) {
    if (owners_[action.slave] != root) root = -1;
  }
  std::fill(counts_.begin(), counts_.end(), static_cast<int>(root < 0 ? sizeof(Header) : 0));
  if (root >= 0) counts_[static_cast<std::size_t>(root)] = static_cast<int>(sizeof(Header));
  if (calls != nullptr) {
    for (const PlannedAction& action : wave) {
      counts_[static_cast<std::size_t>(owners_[action.slave])] +=
          as_count(result_bytes(calls->results(action)));
    }
  }
  std::size_t total = 0;
  for (std::size_t r = 0; r < counts_.size(); ++r) {
    displacements_[r] = as_count(total);
    total += static_cast<std::size_t>(counts_[r]);
  }
  const int own_count = counts_[static_cast<std::size_t>(rank_)];
  send_.resize(static_cast<std::size_t>(own_count));
  if (own_count > 0) {
    std::memcpy(send_.data(), &header, sizeof header);
    std::size_t at = sizeof header;
    for (const PlannedAction& action : wave) {
      if (!owns(action.slave)) continue;
      const ActionResults results = calls->results(action);
      pack(results, send_.data() + at);
      at += result_bytes(results);
    }
  }
  receive_.resize(total);
  const auto began = std::chrono::steady_clock::now();
  if (root >= 0) {
    if (rank_ == root) std::copy(send_.begin(), send_.end(), receive_.begin());
    check(mpi.bcast(receive_.data(), as_count(total), mpi.byte, root, mpi.comm_world), "MPI_Bcast");
  } else {
    check(mpi.allgatherv(send_.data(), own_count, mpi.byte, receive_.data(), counts_.data(),
                         displacements_.data(), mpi.byte, mpi.comm_world),
          "MPI_Allgatherv");
  }
  counters_.exchange_seconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  ++counters_.exchanges;
  if (root >= 0) ++counters_.broadcasts;
  counters_.bytes_received += total;

  for (int r = 0; r < ranks_; ++r) {
    const Header reported = header_of(r);
    if (reported.kind == 0 || reported.position != kNotInWave) continue;
    const std::exception_ptr error = reported_error(
        r, reported, kept_ ? kept_->message : std::string(), kept_ ? kept_->stop_time : 0.0);
    kept_.reset();
    std::rethrow_exception(error);
  }
  if (calls == nullptr) return;
  for (std::size_t r = 0; r < cursor_.size(); ++r) {
    cursor_[r] = static_cast<std::size_t>(displacements_[r]) + sizeof(Header);
  }
  for (const PlannedAction& action : wave) {
    const ActionResults results = calls->results(action);
    std::size_t& from = cursor_[static_cast<std::size_t>(owners_[action.slave])];
    if (!owns(action.slave)) unpack(receive_.data() + from, results);
    from += result_bytes(results);
  }
}

}  // namespace couplet::tools
