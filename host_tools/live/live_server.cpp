#include "host_tools/live/live_server.hpp"

#include <algorithm>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <deque>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string_view>
#include <thread>

#include "couplet/errors.hpp"

namespace couplet::tools {

// Generated at build time from host_tools/live/live_assets/ (CMakeLists.txt,
// cmake/EmbedText.cmake); dygraphs is the report's copy of Debian's libjs-dygraphs.
namespace live_assets {
extern const std::string_view page;
extern const std::string_view page_script;
}  // namespace live_assets
namespace report_assets {
extern const std::string_view dygraphs_script;
extern const std::string_view dygraphs_style;
}  // namespace report_assets

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;

namespace {

constexpr auto kDrainInterval = std::chrono::milliseconds(100);
/// A status message at least this often, even when no sample came.
constexpr int kStatusEveryTicks = 10;
/// At most this many rows in one WebSocket message: the page decimates to its
/// width anyway, and a message's size stays bounded whatever the step.
constexpr std::size_t kRowsPerMessage = 500;

std::string html_escaped(std::string_view text) {
  std::string escaped;
  for (const char c : text) {
    switch (c) {
      case '&':
        escaped += "&amp;";
        break;
      case '<':
        escaped += "&lt;";
        break;
      case '>':
        escaped += "&gt;";
        break;
      case '"':
        escaped += "&quot;";
        break;
      default:
        escaped += c;
    }
  }
  return escaped;
}

std::string replaced(std::string text, std::string_view placeholder, std::string_view value) {
  for (std::size_t at = text.find(placeholder); at != std::string::npos;
       at = text.find(placeholder, at + value.size()))
    text.replace(at, placeholder.size(), value);
  return text;
}

/// A row as the page reads it: [simulation time, wall time, lateness, values...].
std::vector<double> row_of(const LiveSample& sample, std::span<const double> values) {
  std::vector<double> row{sample.simulation_time, sample.wall_time, sample.lateness};
  row.insert(row.end(), values.begin(), values.end());
  return row;
}

/// The run's samples at a resolution that halves whenever the history is full:
/// at most `capacity` rows, spread over the whole run, whatever its length.
class DecimatedHistory {
 public:
  explicit DecimatedHistory(std::size_t capacity) : capacity_(std::max<std::size_t>(capacity, 2)) {}

  void add(std::vector<double> row) {
    if (seen_++ % stride_ != 0) return;
    if (rows_.size() == capacity_) {
      std::size_t kept = 0;
      for (std::size_t k = 0; k < rows_.size(); k += 2) rows_[kept++] = std::move(rows_[k]);
      rows_.resize(kept);
      stride_ *= 2;
    }
    rows_.push_back(std::move(row));
  }
  const std::vector<std::vector<double>>& rows() const { return rows_; }

 private:
  std::size_t capacity_;
  std::size_t stride_ = 1;
  std::uint64_t seen_ = 0;
  std::vector<std::vector<double>> rows_;
};

}  // namespace

const char* live_state_name(LiveState state) {
  switch (state) {
    case LiveState::running:
      return "running";
    case LiveState::completed:
      return "completed";
    case LiveState::failed:
      return "failed";
    case LiveState::stopped:
      return "stopped";
  }
  return "running";
}

class WebSocketSession;

class LiveServer::Impl {
 public:
  Impl(LiveSampleRing& ring, LiveRunInfo info, LiveServerOptions options)
      : ring_(ring),
        info_(std::move(info)),
        options_(std::move(options)),
        history_(options_.history_points),
        acceptor_(io_),
        timer_(io_) {
    page_ = replaced(std::string(live_assets::page), "{{SCENARIO}}", html_escaped(info_.scenario));
    bind();
  }

  void start() {
    arm_timer();
    accept();
    thread_ = std::thread([this] { io_.run(); });
  }

  void shut_down() {
    io_.stop();
    if (thread_.joinable()) thread_.join();
  }

  unsigned short port() const { return port_; }
  std::string url() const {
    return "http://" + live_host(options_.address) + ":" + std::to_string(port_) + "/";
  }

  std::atomic<LiveState> state{LiveState::running};
  std::atomic<std::uint64_t> messages_dropped{0};
  std::atomic<std::size_t> websocket_clients{0};
  std::atomic<std::size_t> connections{0};

  void set_verdicts(nlohmann::json verdicts) {
    const std::lock_guard lock(verdicts_mutex_);
    verdicts_ = std::move(verdicts);
  }

  const LiveServerOptions& options() const { return options_; }
  http::response<http::string_body> respond(const http::request<http::string_body>& request);
  void joined(const std::shared_ptr<WebSocketSession>& session);
  std::string history_text() const;

 private:
  void bind() {
    beast::error_code error;
    const auto address = asio::ip::make_address(options_.address, error);
    if (error) throw ConfigurationError("--live: '" + options_.address + "' is not an IP address");
    const tcp::endpoint endpoint(address, options_.port);
    acceptor_.open(endpoint.protocol(), error);
    if (!error) acceptor_.set_option(asio::socket_base::reuse_address(true), error);
    if (!error) acceptor_.bind(endpoint, error);
    if (!error) acceptor_.listen(asio::socket_base::max_listen_connections, error);
    if (error) {
      throw ConfigurationError("--live: cannot listen on " + options_.address + ":" +
                               std::to_string(options_.port) + ": " + error.message());
    }
    port_ = acceptor_.local_endpoint().port();
  }

  void accept();
  void arm_timer() {
    timer_.expires_after(kDrainInterval);
    timer_.async_wait([this](beast::error_code error) {
      if (error) return;
      tick();
      arm_timer();
    });
  }
  void tick();
  nlohmann::json status() const;
  nlohmann::json checks() const;
  void broadcast(const std::shared_ptr<const std::string>& message);

  LiveSampleRing& ring_;
  const LiveRunInfo info_;
  const LiveServerOptions options_;
  std::string page_;
  DecimatedHistory history_;
  std::vector<double> latest_;  ///< the latest row
  double max_lateness_ = 0;
  std::uint64_t overruns_ = 0;  ///< cycles later than the clock's tolerance
  std::uint64_t samples_ = 0;
  int ticks_since_status_ = 0;
  LiveState announced_ = LiveState::running;
  std::vector<std::weak_ptr<WebSocketSession>> sessions_;
  mutable std::mutex verdicts_mutex_;  ///< the run's thread sets, the server's reads
  nlohmann::json verdicts_;            ///< the final verdicts; null while running
  // Declared after what the sessions use: destroying the io_context destroys
  // the sessions its pending handlers hold.
  asio::io_context io_;
  tcp::acceptor acceptor_;
  asio::steady_timer timer_;
  std::thread thread_;
  unsigned short port_ = 0;
};

/// One WebSocket client: messages go out in order through a bounded queue; when
/// it is full the message is dropped and counted, so that a client that stops
/// reading costs neither memory nor anybody's time.
class WebSocketSession : public std::enable_shared_from_this<WebSocketSession> {
 public:
  WebSocketSession(tcp::socket socket, LiveServer::Impl& server)
      : stream_(std::move(socket)), server_(server) {
    ++server_.connections;
  }
  ~WebSocketSession() {
    if (open_) --server_.websocket_clients;
    --server_.connections;
  }

  void accept(http::request<http::string_body> request) {
    stream_.set_option(websocket::stream_base::timeout::suggested(beast::role_type::server));
    stream_.read_message_max(4096);
    // Kept until the handshake's end: the operation reads it.
    upgrade_ = std::move(request);
    stream_.async_accept(upgrade_, [self = shared_from_this()](beast::error_code error) {
      if (error) return;
      self->open_ = true;
      ++self->server_.websocket_clients;
      self->server_.joined(self);
      self->read();
    });
  }

  void send(const std::shared_ptr<const std::string>& message) {
    if (!open_) return;
    if (queue_.size() >= server_.options().client_queue_messages) {
      ++server_.messages_dropped;
      return;
    }
    queue_.push_back(message);
    if (queue_.size() == 1) write();
  }

 private:
  void write() {
    stream_.text(true);
    stream_.async_write(asio::buffer(*queue_.front()),
                        [self = shared_from_this()](beast::error_code error, std::size_t) {
                          if (error) {
                            self->close();
                            return;
                          }
                          self->queue_.pop_front();
                          if (!self->queue_.empty()) self->write();
                        });
  }

  /// The page sends nothing; reading notices the close.
  void read() {
    stream_.async_read(incoming_,
                       [self = shared_from_this()](beast::error_code error, std::size_t) {
                         if (error) {
                           self->close();
                           return;
                         }
                         self->incoming_.clear();
                         self->read();
                       });
  }

  void close() {
    if (open_) --server_.websocket_clients;
    open_ = false;
    queue_.clear();
  }

  websocket::stream<beast::tcp_stream> stream_;
  LiveServer::Impl& server_;
  beast::flat_buffer incoming_;
  http::request<http::string_body> upgrade_;
  std::deque<std::shared_ptr<const std::string>> queue_;
  bool open_ = false;
};

/// One HTTP connection: requests answered in turn; an upgrade to /ws hands the
/// socket to a WebSocketSession.
class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(tcp::socket socket, LiveServer::Impl& server)
      : stream_(std::move(socket)), server_(server) {
    ++server_.connections;
  }
  ~HttpSession() { --server_.connections; }

  void read() {
    request_ = {};
    stream_.expires_after(std::chrono::seconds(30));
    http::async_read(stream_, buffer_, request_,
                     [self = shared_from_this()](beast::error_code error, std::size_t) {
                       if (error) return self->shut_down();
                       self->answer();
                     });
  }

 private:
  void answer() {
    if (websocket::is_upgrade(request_)) {
      if (request_.target() != "/ws") return shut_down();
      stream_.expires_never();
      std::make_shared<WebSocketSession>(stream_.release_socket(), server_)
          ->accept(std::move(request_));
      return;
    }
    auto response = std::make_shared<http::response<http::string_body>>(server_.respond(request_));
    response->keep_alive(request_.keep_alive());
    response->prepare_payload();
    http::async_write(stream_, *response,
                      [self = shared_from_this(), response](beast::error_code error, std::size_t) {
                        if (error || !response->keep_alive()) return self->shut_down();
                        self->read();
                      });
  }

  void shut_down() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
  }

  beast::tcp_stream stream_;
  LiveServer::Impl& server_;
  beast::flat_buffer buffer_;
  http::request<http::string_body> request_;
};

void LiveServer::Impl::accept() {
  acceptor_.async_accept([this](beast::error_code error, tcp::socket socket) {
    if (error) return;
    // Bounded whatever the clients do: beyond max_clients a connection is closed at once.
    if (connections.load() < options_.max_clients)
      std::make_shared<HttpSession>(std::move(socket), *this)->read();
    accept();
  });
}

void LiveServer::Impl::joined(const std::shared_ptr<WebSocketSession>& session) {
  std::erase_if(sessions_, [](const std::weak_ptr<WebSocketSession>& s) { return s.expired(); });
  sessions_.push_back(session);
  nlohmann::json hello{{"type", "status"}, {"status", status()}};
  session->send(std::make_shared<const std::string>(hello.dump()));
}

void LiveServer::Impl::broadcast(const std::shared_ptr<const std::string>& message) {
  std::erase_if(sessions_, [](const std::weak_ptr<WebSocketSession>& s) { return s.expired(); });
  for (const auto& weak : sessions_)
    if (const auto session = weak.lock()) session->send(message);
}

void LiveServer::Impl::tick() {
  std::vector<std::vector<double>> fresh;
  ring_.drain_from_server_thread([&](const LiveSample& sample, std::span<const double> values) {
    std::vector<double> row = row_of(sample, values);
    max_lateness_ = std::max(max_lateness_, sample.lateness);
    if (info_.wall_clock && sample.lateness > info_.tolerance) ++overruns_;
    ++samples_;
    history_.add(row);
    fresh.push_back(std::move(row));
  });
  if (!fresh.empty()) latest_ = fresh.back();
  const LiveState now = state.load();
  const bool status_due = ++ticks_since_status_ >= kStatusEveryTicks || now != announced_;
  if (fresh.empty() && !status_due) return;
  ticks_since_status_ = 0;
  announced_ = now;
  nlohmann::json message{{"type", "samples"}, {"status", status()}};
  nlohmann::json rows = nlohmann::json::array();
  const std::size_t stride = fresh.size() / kRowsPerMessage + 1;
  for (std::size_t k = 0; k < fresh.size(); k += stride) rows.push_back(fresh[k]);
  if (!fresh.empty() && (fresh.size() - 1) % stride != 0) rows.push_back(fresh.back());
  message["rows"] = std::move(rows);
  broadcast(std::make_shared<const std::string>(message.dump()));
}

nlohmann::json LiveServer::Impl::status() const {
  const double time = latest_.empty() ? info_.start_time : latest_[0];
  const double wall = latest_.empty() ? 0.0 : latest_[1];
  const double elapsed = time - info_.start_time;
  const double factor = wall > 0 ? elapsed / wall : 0.0;
  nlohmann::json status{
      {"scenario", info_.scenario},
      {"state", live_state_name(state.load())},
      {"time", time},
      {"start_time", info_.start_time},
      {"end_time", info_.end_time},
      {"wall_time", wall},
      {"realtime_factor", factor},
      {"progress",
       info_.end_time > info_.start_time ? elapsed / (info_.end_time - info_.start_time) : 1.0},
      {"samples", samples_},
      {"dropped_samples", ring_.dropped()},
      {"client_messages_dropped", messages_dropped.load()},
      {"clients", websocket_clients.load()},
      {"wall_clock", info_.wall_clock},
      {"control", static_cast<bool>(options_.stop)},
      {"signals", info_.signals},
      {"checks", checks()}};
  status["eta_s"] =
      factor > 0 ? nlohmann::json((info_.end_time - time) / factor) : nlohmann::json(nullptr);
  if (info_.wall_clock) {
    status["lateness_s"] = latest_.empty() ? 0.0 : latest_[2];
    status["max_lateness_s"] = max_lateness_;
    status["overruns"] = overruns_;
    status["tolerance_s"] = info_.tolerance;
  }
  return status;
}

// While the run goes: each check with its first violation so far (`passed`
// false from then on, null while undecided); at the end, the run's verdicts.
nlohmann::json LiveServer::Impl::checks() const {
  {
    const std::lock_guard lock(verdicts_mutex_);
    if (!verdicts_.is_null()) return verdicts_;
  }
  nlohmann::json checks = nlohmann::json::array();
  for (std::size_t c = 0; c < info_.checks.size(); ++c) {
    const std::optional<double> violated =
        info_.check_board ? info_.check_board->first_violation(c) : std::nullopt;
    checks.push_back({{"name", info_.checks[c]},
                      {"passed", violated ? nlohmann::json(false) : nlohmann::json(nullptr)},
                      {"first_violation_time", violated ? nlohmann::json(*violated) : nullptr}});
  }
  return checks;
}

std::string LiveServer::Impl::history_text() const {
  nlohmann::json history{{"status", status()}, {"rows", history_.rows()}};
  return history.dump();
}

http::response<http::string_body> LiveServer::Impl::respond(
    const http::request<http::string_body>& request) {
  http::response<http::string_body> response{http::status::ok, request.version()};
  response.set(http::field::cache_control, "no-store");
  const auto content = [&](std::string_view type, std::string body) {
    response.set(http::field::content_type, beast::string_view(type.data(), type.size()));
    response.body() = std::move(body);
    return response;
  };
  const std::string_view target(request.target().data(), request.target().size());
  const bool get = request.method() == http::verb::get;
  if (target == "/stop" && request.method() == http::verb::post) {
    if (!options_.stop) {
      response.result(http::status::forbidden);
      return content("text/plain",
                     "read-only: start the run with --live-control to stop it from here\n");
    }
    options_.stop();
    response.result(http::status::accepted);
    return content("application/json", R"({"stopping":true})");
  }
  if (get && (target == "/" || target == "/index.html"))
    return content("text/html; charset=utf-8", page_);
  if (get && target == "/status") return content("application/json", status().dump());
  if (get && target == "/history") return content("application/json", history_text());
  if (get && target == "/live.js")
    return content("text/javascript", std::string(live_assets::page_script));
  if (get && target == "/dygraph.js")
    return content("text/javascript", std::string(report_assets::dygraphs_script));
  if (get && target == "/dygraph.css")
    return content("text/css", std::string(report_assets::dygraphs_style));
  response.result(http::status::not_found);
  return content("text/plain", "not found: " + std::string(target) + "\n");
}

LiveServer::LiveServer(LiveSampleRing& ring, LiveRunInfo info, LiveServerOptions options)
    : impl_(std::make_shared<Impl>(ring, std::move(info), std::move(options))) {
  impl_->start();
}

LiveServer::~LiveServer() {
  impl_->shut_down();
}

std::string LiveServer::url() const {
  return impl_->url();
}
unsigned short LiveServer::port() const {
  return impl_->port();
}
void LiveServer::set_state(LiveState state, std::string checks_json) {
  if (!checks_json.empty()) impl_->set_verdicts(nlohmann::json::parse(checks_json));
  impl_->state.store(state);
}
std::uint64_t LiveServer::client_messages_dropped() const {
  return impl_->messages_dropped.load();
}
std::size_t LiveServer::clients() const {
  return impl_->websocket_clients.load();
}

LiveServerOptions parse_live_endpoint(const std::string& text) {
  LiveServerOptions options;
  std::string port = text;
  if (const std::size_t colon = text.rfind(':'); colon != std::string::npos) {
    std::string address = text.substr(0, colon);
    if (address.size() >= 2 && address.front() == '[' && address.back() == ']')
      address = address.substr(1, address.size() - 2);
    options.address = address == "localhost" ? "127.0.0.1" : address;
    port = text.substr(colon + 1);
  }
  const bool digits =
      !port.empty() && port.size() <= 5 &&
      std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!digits || std::stoul(port) > 65535 || options.address.empty()) {
    throw ConfigurationError(
        "--live: expected PORT or ADDRESS:PORT (port 0: any free port), got '" + text + "'");
  }
  options.port = static_cast<unsigned short>(std::stoul(port));
  return options;
}

std::string live_host(const std::string& address) {
  return address.find(':') != std::string::npos ? "[" + address + "]" : address;
}

bool is_loopback_address(const std::string& address) {
  if (address == "localhost") return true;
  beast::error_code error;
  const auto parsed = asio::ip::make_address(address, error);
  return !error && parsed.is_loopback();
}

}  // namespace couplet::tools
