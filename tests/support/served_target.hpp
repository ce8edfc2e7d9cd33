#pragma once
// A couplet target serving `translational.mass`, or any model source (a
// device), on its own thread until destroyed (or halted), for tests of the
// remote slave over a link. Reading its counters halts it.
#include <atomic>
#include <memory>
#include <thread>

#include "drivers/transport.hpp"
#include "models/catalog.hpp"
#include "models/slave_source.hpp"
#include "targets/serve.hpp"

namespace couplet::testing {

class ServedTarget {
 public:
  explicit ServedTarget(std::unique_ptr<drivers::Transport> transport)
      : server_(models::ModelCatalog::builtin(), options()), transport_(std::move(transport)) {
    thread_ = std::thread([this] { targets::serve(server_, *transport_, {}, stop_); });
  }
  ServedTarget(std::shared_ptr<const models::SlaveSource> source,
               std::unique_ptr<drivers::Transport> transport)
      : server_(std::move(source), {}), transport_(std::move(transport)) {
    thread_ = std::thread([this] { targets::serve(server_, *transport_, {}, stop_); });
  }
  ~ServedTarget() { halt(); }
  ServedTarget(const ServedTarget&) = delete;
  ServedTarget& operator=(const ServedTarget&) = delete;

  void halt() const {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  /// The counters of the target, halted first: the serving thread writes them
  /// without synchronisation (they are plain counters on the real-time path),
  /// so they are read only once it has ended (ThreadSanitizer). A session still
  /// open then ends unanswered: the remote slave's Stop waits its patience.
  targets::TargetCounters counters() const {
    halt();
    return server_.counters();
  }

 private:
  static targets::TargetOptions options() {
    targets::TargetOptions target_options;
    target_options.model = "translational.mass";  // outputs x, v
    return target_options;
  }
  targets::TargetServer server_;
  std::unique_ptr<drivers::Transport> transport_;
  // Mutable: halting does not change what the target is, and counters() halts.
  mutable std::atomic<bool> stop_{false};
  mutable std::thread thread_;
};

}  // namespace couplet::testing
