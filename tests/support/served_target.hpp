#pragma once
// A couplet target serving `translational.mass`, or any model source (a
// device), on its own thread until destroyed (or halted), for tests of the
// remote slave over a link.
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

  void halt() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  const targets::TargetCounters& counters() const { return server_.counters(); }

 private:
  static targets::TargetOptions options() {
    targets::TargetOptions target_options;
    target_options.model = "translational.mass";  // outputs x, v
    return target_options;
  }
  targets::TargetServer server_;
  std::unique_ptr<drivers::Transport> transport_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace couplet::testing
