#pragma once
// The composite slave (docs/iterative.md): a group of
// rollback-capable slaves, strongly coupled among themselves, solved by IFOSMONDI or
// IFOSMONDI-JFM inside and seen by the outer master as one slave. Strongly coupled
// host models are thus solved implicitly while the outer coupling — e.g. to a device
// behind a link — stays explicit (Jacobi, defect control, F3ORNITS).
//
// Ports: the members' inputs not driven inside the group become the composite's
// inputs, named "member.input"; every member output is a composite output, named
// "member.output" (an output may feed inputs inside and outside the group, and stays
// available as an evaluation signal). Outer names are thus "group.member.port".
//
// Inside, the composite runs its own Executor over a System of the members
// plus one stand-in slave for the outside, whose outputs the group's own inputs are
// connected to. The algorithm hands the outer input polynomials to their targets
// unchanged (GivenInputs) and never steps the stand-in. A step request [t, t+H]:
// the algorithm's horizon becomes t+H and the executor runs plans until the members
// stand there (several inner steps if the iteration needs smaller ones).
//
// Capabilities: inputs up to the lowest degree its externally fed members accept;
// output derivatives up to the lowest order its members report; rollback iff every
// member can (always, as the iterative algorithm inside needs it); variable steps;
// intermediate samples iff every member reports them (taken from the converged
// evaluation of the inner step that contains each sample time).
// An output is direct feedthrough when a chain of feedthrough outputs inside leads to
// it from a composite input.
//
// Rollback (when an outer iterative master asks): save_state anchors the inner
// algorithm at the current time and saves every member; restore_state takes the
// algorithm back there and restores the members. Between the two, retries of inner
// steps replay from the anchor (ifosmondi_algorithm.hpp), so the single save slot of
// each member is enough and the rollback is bit-exact.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/algorithms/ifosmondi_algorithm.hpp"
#include "runtime/executor.hpp"
#include "couplet/slave.hpp"
#include "runtime/system.hpp"

namespace couplet {

struct CompositeMember {
  std::string name;
  std::unique_ptr<Slave> slave;
};

/// "member.output" → "member.input", both inside the group.
struct CompositeConnection {
  std::string from;
  std::string to;
};

class CompositeSlave final : public Slave, private IfosmondiStepListener {
 public:
  /// Builds and validates the inner system for `algorithm` (a member that cannot roll
  /// back, a bad connection...: ConfigurationError naming the group and the element).
  CompositeSlave(std::string name, std::vector<CompositeMember> members,
                 const std::vector<CompositeConnection>& connections, std::unique_ptr<IfosmondiAlgorithm> algorithm);
  ~CompositeSlave() override;

  const SlaveDescription& description() const override { return description_; }
  void setup(Time start) override;
  void evaluate_outputs(std::span<const Polynomial> inputs, std::span<double> end_outputs) override;
  void step(const StepRequest& request, const OutputBuffers& result) override;
  void save_state() override;
  void restore_state() override;

  const std::string& name() const { return name_; }
  const IfosmondiAlgorithm& algorithm() const { return *algorithm_; }
  const System& members() const { return system_; }
  /// The inner executor's counters and decision hash (after setup).
  const RunCounters& inner_counters() const { return executor_->counters(); }
  std::uint64_t inner_decision_hash() const { return executor_->decision_hash(); }

 private:
  void describe();
  void step_converged(std::span<const StepSlot> slots, Time start, Time end) override;
  void run_plans();
  void write_outputs(std::span<double> end_outputs) const;
  void take_inputs(std::span<const Polynomial> inputs);
  [[noreturn]] void violation(const std::string& why) const;

  std::string name_;
  System system_;
  std::size_t outside_ = 0;                      ///< the stand-in slave's index in system_
  std::vector<Polynomial> outside_polynomials_;  ///< the composite's inputs, one per outside output
  std::unique_ptr<IfosmondiAlgorithm> algorithm_;
  std::unique_ptr<Executor> executor_;
  SlaveDescription description_;
  std::vector<PortReference> outputs_;  ///< composite output → member output
  std::vector<Time> sample_times_;  ///< of the step being run
  std::span<double> samples_;       ///< where its samples go
  Time time_ = 0;
  Time saved_time_ = 0;
  bool saved_ = false;
};

}  // namespace couplet
