#include "host_tools/mpi_executor.hpp"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>

#include "couplet/errors.hpp"
#include "host_tools/mpi_session.hpp"

namespace couplet::tools {

namespace {

// What a rank reports at the head of its part of every exchange.
struct Header {
  std::int32_t kind = 0;  ///< 0: fine; else a FailureKind
  std::int32_t unused = 0;
  std::uint64_t slave = 0;  ///< the slave that failed
};
static_assert(sizeof(Header) == 16);

// The error type travels with the message, so that every rank throws what the
// failing rank caught (and `couplet` exits with the same status everywhere).
enum FailureKind : std::int32_t { kSlave = 1, kProtocol = 2, kConfiguration = 3, kOther = 4 };

FailureKind kind_of(const std::exception& error) {
  if (dynamic_cast<const SlaveError*>(&error) != nullptr) return kSlave;
  if (dynamic_cast<const ProtocolViolation*>(&error) != nullptr) return kProtocol;
  if (dynamic_cast<const ConfigurationError*>(&error) != nullptr) return kConfiguration;
  return kOther;
}

void check(int status, const char* call) {
  if (status == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(status, text, &length);
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

bool same_bits(const Polynomial& a, const Polynomial& b) {
  return std::memcmp(&a, &b, sizeof(Polynomial)) == 0;
}

/// Stands for one slave on every rank; the real slave lives only in the
/// exchange of the rank that owns it.
class MpiSlave final : public Slave {
 public:
  MpiSlave(MpiExchange& exchange, std::size_t index, SlaveDescription description)
      : exchange_(exchange), index_(index), description_(std::move(description)) {}
  const SlaveDescription& description() const override { return description_; }
  void setup(Time start) override { exchange_.setup(index_, start); }
  void evaluate_outputs(std::span<const Polynomial> inputs,
                        std::span<double> end_outputs) override {
    exchange_.evaluate_outputs(index_, inputs, end_outputs);
  }
  void step(const StepRequest& request, const OutputBuffers& result) override {
    exchange_.step(index_, request, result);
  }
  void announce_step(const StepRequest& request) override {
    exchange_.announce_step(index_, request);
  }
  void announce_outputs(std::span<const Polynomial> inputs) override {
    exchange_.announce_outputs(index_, inputs);
  }
  void save_state() override { exchange_.save_state(index_); }
  void restore_state() override { exchange_.restore_state(index_); }
  void linearize(std::span<const Polynomial> inputs, std::span<double> linearization) override {
    exchange_.linearize(index_, inputs, linearization);
  }

 private:
  MpiExchange& exchange_;
  std::size_t index_;
  SlaveDescription description_;
};

}  // namespace

struct MpiExchange::Member {
  std::string name;
  SlaveDescription description;
  std::unique_ptr<Slave> local;       ///< on the owning rank only
  std::size_t end_output_values = 0;  ///< (derivative order + 1) × outputs
  std::size_t linearization_values = 0;

  // The call being shared: announced (in a wave) or made now.
  Call call = Call::none;
  bool announced = false;  ///< waits in the wave for the executor to make it
  bool ready = false;      ///< `result` holds its result
  Time start = 0;
  Time end = 0;
  std::vector<Polynomial> inputs;
  std::vector<Time> sample_times;
  std::vector<double> result;  ///< step: end outputs, then the samples; evaluate: end outputs

  void take(Call kind, std::span<const Polynomial> call_inputs) {
    call = kind;
    inputs.assign(call_inputs.begin(), call_inputs.end());
  }
  void take(const StepRequest& request) {
    take(Call::step, request.inputs);
    start = request.start;
    end = request.end;
    sample_times.assign(request.sample_times.begin(), request.sample_times.end());
  }
  bool same_request(const StepRequest& request) const {
    return call == Call::step && request.start == start && request.end == end &&
           std::equal(request.inputs.begin(), request.inputs.end(), inputs.begin(), inputs.end(),
                      same_bits) &&
           std::equal(request.sample_times.begin(), request.sample_times.end(),
                      sample_times.begin(), sample_times.end());
  }
  bool same_inputs(std::span<const Polynomial> call_inputs) const {
    return std::equal(call_inputs.begin(), call_inputs.end(), inputs.begin(), inputs.end(),
                      same_bits);
  }
};

struct MpiExchange::Failure {
  FailureKind kind = kOther;
  std::size_t slave = 0;
  std::string message;
};

int owner_rank(std::size_t slave, std::size_t count, int ranks) {
  // Block b holds slaves [b·count/ranks, (b+1)·count/ranks).
  const auto r = static_cast<std::size_t>(ranks);
  return static_cast<int>(((slave + 1) * r - 1) / count);
}

MpiExchange::MpiExchange(const MpiSession& session, std::size_t slave_count)
    : rank_(session.rank()), ranks_(session.size()) {
  owners_.resize(slave_count);
  members_.resize(slave_count);
  for (std::size_t s = 0; s < slave_count; ++s) {
    owners_[s] = owner_rank(s, slave_count, ranks_);
    members_[s] = std::make_unique<Member>();
  }
  first_action_.assign(slave_count, SlaveAction::step);
  has_action_.assign(slave_count, false);
  wave_.reserve(slave_count);
  single_.reserve(1);
  counts_.resize(static_cast<std::size_t>(ranks_));
  displacements_.resize(static_cast<std::size_t>(ranks_));
}

MpiExchange::~MpiExchange() = default;

void MpiExchange::adopt(std::size_t slave, std::string name, const SlaveDescription& description,
                        std::unique_ptr<Slave> local) {
  Member& member = *members_[slave];
  member.name = std::move(name);
  member.description = description;
  member.local = owns(slave) ? std::move(local) : nullptr;
  member.end_output_values =
      static_cast<std::size_t>(description.capabilities.output_derivative_order + 1) *
      description.outputs.size();
  member.linearization_values =
      description.capabilities.can_linearize ? LinearizationLayout::of(description).size() : 0;
  member.inputs.reserve(description.inputs.size());
  member.result.reserve(member.end_output_values);
}

void distribute(System& system, MpiExchange& exchange) {
  for (std::size_t s = 0; s < system.slave_count(); ++s) {
    const SlaveDescription description = system.description(s);
    std::unique_ptr<Slave> proxy = std::make_unique<MpiSlave>(exchange, s, description);
    std::unique_ptr<Slave> real = system.replace_slave(s, std::move(proxy));
    // Another rank's slave goes now, before its setup allocates its solver.
    exchange.adopt(s, system.slave_name(s), description, std::move(real));
  }
}

void MpiExchange::plan_started(std::span<const PlannedAction> actions) {
  std::fill(has_action_.begin(), has_action_.end(), false);
  for (const PlannedAction& action : actions) {
    if (has_action_[action.slave]) continue;
    has_action_[action.slave] = true;
    first_action_[action.slave] = action.action;
  }
}

// ---- calls without a result: carried out by the owner at once; a failure waits for the next
// exchange ----

void MpiExchange::keep_failure(std::size_t slave, const std::exception& error) {
  if (kept_) return;  // the first one is the one to report
  kept_ = std::make_unique<Failure>(Failure{kind_of(error), slave, error.what()});
}

void MpiExchange::setup(std::size_t slave, Time start) {
  Member& member = *members_[slave];
  if (!member.local || kept_) return;
  try {
    member.local->setup(start);
  } catch (const std::exception& error) {
    keep_failure(slave, error);
  }
}

void MpiExchange::save_state(std::size_t slave) {
  Member& member = *members_[slave];
  if (!member.local || kept_) return;
  try {
    member.local->save_state();
  } catch (const std::exception& error) {
    keep_failure(slave, error);
  }
}

void MpiExchange::restore_state(std::size_t slave) {
  Member& member = *members_[slave];
  if (!member.local || kept_) return;
  try {
    member.local->restore_state();
  } catch (const std::exception& error) {
    keep_failure(slave, error);
  }
}

// ---- announcements: an announced call joins the wave when it is its slave's first action in the
// plan ----

void MpiExchange::announce_step(std::size_t slave, const StepRequest& request) {
  if (!has_action_[slave] || first_action_[slave] != SlaveAction::step) return;
  has_action_[slave] = false;  // a second step of the slave in this plan is made on its own
  Member& member = *members_[slave];
  member.take(request);
  member.announced = true;
  member.ready = false;
  wave_.push_back(slave);
}

void MpiExchange::announce_outputs(std::size_t slave, std::span<const Polynomial> inputs) {
  if (!has_action_[slave] || first_action_[slave] != SlaveAction::evaluate_outputs) return;
  has_action_[slave] = false;
  Member& member = *members_[slave];
  member.take(Call::evaluate, inputs);
  member.announced = true;
  member.ready = false;
  wave_.push_back(slave);
}

// ---- calls with a result ----

void MpiExchange::step(std::size_t slave, const StepRequest& request, const OutputBuffers& result) {
  Member& member = *members_[slave];
  if (member.announced) {
    if (!member.ready) run_wave();
    if (!member.same_request(request)) {
      throw ProtocolViolation("slave '" + member.name + "': step differs from the announced one");
    }
    member.announced = false;
  } else {
    member.take(request);
    single_.assign(1, slave);
    exchange(single_);
    ++counters_.single_calls;
  }
  deliver(member, result.end_outputs, result.samples);
}

void MpiExchange::evaluate_outputs(std::size_t slave, std::span<const Polynomial> inputs,
                                   std::span<double> outputs) {
  Member& member = *members_[slave];
  if (member.announced) {
    if (!member.ready) run_wave();
    if (member.call != Call::evaluate || !member.same_inputs(inputs)) {
      throw ProtocolViolation("slave '" + member.name +
                              "': evaluate_outputs differs from the announced one");
    }
    member.announced = false;
  } else {
    member.take(Call::evaluate, inputs);
    single_.assign(1, slave);
    exchange(single_);
    ++counters_.single_calls;
  }
  deliver(member, outputs, {});
}

void MpiExchange::linearize(std::size_t slave, std::span<const Polynomial> inputs,
                            std::span<double> linearization) {
  Member& member = *members_[slave];
  member.take(Call::linearize, inputs);
  single_.assign(1, slave);
  exchange(single_);
  ++counters_.single_calls;
  deliver(member, linearization, {});
}

void MpiExchange::deliver(Member& member, std::span<double> end_outputs,
                          std::span<double> samples) {
  const std::size_t head = std::min(end_outputs.size(), member.result.size());
  std::copy_n(member.result.begin(), head, end_outputs.begin());
  if (member.call == Call::step) {
    std::copy_n(member.result.begin() + static_cast<std::ptrdiff_t>(head),
                std::min(samples.size(), member.result.size() - head), samples.begin());
  }
  member.ready = false;
}

void MpiExchange::run_wave() {
  counters_.wave_calls += wave_.size();
  exchange(wave_);
  wave_.clear();
}

void MpiExchange::settle(const std::string& local_error) {
  if (!local_error.empty() && !kept_) {
    kept_ = std::make_unique<Failure>(Failure{kConfiguration, owners_.size(), local_error});
  }
  exchange({});
}

std::size_t MpiExchange::result_doubles(const Member& member) const {
  switch (member.call) {
    case Call::step:
      return member.end_output_values +
             member.sample_times.size() * member.description.outputs.size();
    case Call::evaluate:
      return member.end_output_values;
    case Call::linearize:
      return member.linearization_values;
    case Call::none:
      break;
  }
  return 0;
}

void MpiExchange::carry_out(Member& member) {
  std::span<double> result(member.result);
  switch (member.call) {
    case Call::step: {
      const StepRequest request{member.start, member.end, member.inputs, member.sample_times};
      member.local->step(request, OutputBuffers{result.first(member.end_output_values),
                                                result.subspan(member.end_output_values)});
      break;
    }
    case Call::evaluate:
      member.local->evaluate_outputs(member.inputs, result);
      break;
    case Call::linearize:
      member.local->linearize(member.inputs, result);
      break;
    case Call::none:
      break;
  }
}

// One collective: each rank carries out the calls of `calls` it owns (in
// order), then MPI_Allgatherv gives every rank every result. The sizes of all
// parts follow from the calls, which every rank knows alike, so no sizes travel.
void MpiExchange::exchange(std::span<const std::size_t> calls) {
  for (const std::size_t slave : calls) {
    Member& member = *members_[slave];
    member.result.resize(result_doubles(member));
    if (!member.local || kept_) continue;
    try {
      carry_out(member);
    } catch (const std::exception& error) {
      keep_failure(slave, error);
    }
  }
  std::size_t total = 0;
  std::fill(counts_.begin(), counts_.end(), static_cast<int>(sizeof(Header)));
  for (const std::size_t slave : calls) {
    counts_[static_cast<std::size_t>(owners_[slave])] +=
        as_count(members_[slave]->result.size() * sizeof(double));
  }
  for (std::size_t r = 0; r < counts_.size(); ++r) {
    displacements_[r] = as_count(total);
    total += static_cast<std::size_t>(counts_[r]);
  }
  send_.resize(static_cast<std::size_t>(counts_[static_cast<std::size_t>(rank_)]));
  Header header;
  if (kept_) header = {kept_->kind, 0, kept_->slave};
  std::memcpy(send_.data(), &header, sizeof header);
  std::size_t at = sizeof header;
  for (const std::size_t slave : calls) {
    if (!owns(slave)) continue;
    const std::vector<double>& result = members_[slave]->result;
    if (!result.empty())
      std::memcpy(send_.data() + at, result.data(), result.size() * sizeof(double));
    at += result.size() * sizeof(double);
  }
  receive_.resize(total);
  const auto began = std::chrono::steady_clock::now();
  check(MPI_Allgatherv(send_.data(), counts_[static_cast<std::size_t>(rank_)], MPI_BYTE,
                       receive_.data(), counts_.data(), displacements_.data(), MPI_BYTE,
                       MPI_COMM_WORLD),
        "MPI_Allgatherv");
  counters_.exchange_seconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  ++counters_.exchanges;
  counters_.bytes_received += total;
  // The first failing rank's error, thrown on every rank.
  for (int r = 0; r < ranks_; ++r) {
    Header reported;
    std::memcpy(&reported, receive_.data() + displacements_[static_cast<std::size_t>(r)],
                sizeof reported);
    if (reported.kind != 0) throw_failure(r, reported.kind, reported.slave);
  }
  std::vector<std::size_t>& cursor = cursor_;
  cursor.assign(static_cast<std::size_t>(ranks_), sizeof(Header));
  for (std::size_t r = 0; r < cursor.size(); ++r)
    cursor[r] += static_cast<std::size_t>(displacements_[r]);
  for (const std::size_t slave : calls) {
    Member& member = *members_[slave];
    std::size_t& from = cursor[static_cast<std::size_t>(owners_[slave])];
    const std::size_t bytes = member.result.size() * sizeof(double);
    if (!owns(slave) && bytes > 0) std::memcpy(member.result.data(), receive_.data() + from, bytes);
    from += bytes;
    member.ready = true;
  }
}

void MpiExchange::throw_failure(int failed_rank, int kind, std::uint64_t slave) {
  // The message exists on the failing rank only: it follows in a broadcast that
  // every rank, having seen the same headers, makes alike.
  std::uint64_t length = rank_ == failed_rank && kept_ ? kept_->message.size() : 0;
  check(MPI_Bcast(&length, 1, MPI_UINT64_T, failed_rank, MPI_COMM_WORLD), "MPI_Bcast");
  std::string message(length, '\0');
  if (rank_ == failed_rank && kept_) message = kept_->message;
  if (length > 0) {
    check(MPI_Bcast(message.data(), as_count(length), MPI_CHAR, failed_rank, MPI_COMM_WORLD),
          "MPI_Bcast");
  }
  kept_.reset();
  std::string text = slave < members_.size()
                         ? "slave '" + members_[slave]->name + "' (MPI rank " +
                               std::to_string(failed_rank) + "): " + message
                         : "MPI rank " + std::to_string(failed_rank) + ": " + message;
  switch (kind) {
    case kSlave:
      throw SlaveError(text);
    case kProtocol:
      throw ProtocolViolation(text);
    case kConfiguration:
      throw ConfigurationError(text);
    default:
      throw std::runtime_error(text);
  }
}

}  // namespace couplet::tools
