// The live web view's glue between the run and the server; see the header.
#include "web/live_view.h"

#include <sys/random.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/json.h"

namespace pacer::web {

namespace {

constexpr TimeNs kEndFlushNs = 1 * kNsPerS;  // how long open pages get to take the end event

}  // namespace

std::string generate_token() {
  unsigned char bytes[16] = {};
  std::size_t got = 0;
  while (got < sizeof bytes) {
    const ssize_t n = getrandom(bytes + got, sizeof bytes - got, 0);
    if (n > 0) got += static_cast<std::size_t>(n);
  }
  std::string out;
  for (unsigned char b : bytes) out += fmt::format("{:02x}", b);
  return out;
}

LiveView::LiveView(const Config& config, std::function<void()> on_stop)
    : config_(config), host_(config.web.host), token_(config.web.token), so_far_(config), on_stop_(std::move(on_stop)) {}

LiveView::~LiveView() { close(); }

Result<std::unique_ptr<LiveView>> LiveView::start(const Config& config, std::function<void()> on_stop) {
  auto view = std::make_unique<LiveView>(config, std::move(on_stop));
  AccessRules rules;
  rules.loopback = is_loopback_address(view->host_);
  const bool generated = !rules.loopback && view->token_.empty();
  if (generated) view->token_ = generate_token();
  rules.token = view->token_;
  view->feed_.publish_report(report::render_json(view->so_far_.report()));
  auto server = HttpServer::start(view->host_, config.web.port, rules, view->feed_, view->on_stop_);
  if (!server) return server.error();
  view->server_ = std::move(*server);
  std::fprintf(stderr, "pacer: web view at %s%s\n", view->url().c_str(),
               generated ? " (not a loopback address: a generated token; --web-token sets one)" : "");
  return view;
}

std::string LiveView::url() const {
  const std::string host = host_.find(':') != std::string::npos ? "[" + host_ + "]" : host_;
  const std::uint16_t port = server_ ? server_->port() : config_.web.port;
  return fmt::format("http://{}:{}/{}", host, port, token_.empty() ? "" : "?token=" + token_);
}

void LiveView::on_interval(const report::IntervalReport& interval, const std::string& ndjson_line) {
  so_far_.add(interval);
  // The report first: a page that has had interval N finds it in /report.json.
  feed_.publish_report(so_far_.render_json());
  std::string entry = ndjson_line;  // the line's object, without its newline
  while (!entry.empty() && (entry.back() == '\n' || entry.back() == '\r')) entry.pop_back();
  feed_.publish_interval(std::move(entry));
}

std::string failure_json(const Error& error) { return nlohmann::json{{"error", error.message}}.dump(); }

void LiveView::lend_steering(LoadSteering* steering) {
  if (!searching_) feed_.lend_steering(steering);
}

void LiveView::finish(const std::string& report_json) {
  if (searching_) {
    feed_.publish_report(report_json);
  } else {
    feed_.publish_final(report_json);
  }
}

void LiveView::begin_search(std::string progress_json) {
  searching_ = true;
  feed_.publish_search(std::move(progress_json));
}

void LiveView::begin_run(const Config& run) {
  so_far_ = PartialReport(run);
  feed_.publish_report(so_far_.render_json());
}

void LiveView::finish_search(std::string progress_json, const std::string& capacity_json) {
  feed_.replace_search(std::move(progress_json));
  feed_.publish_final(capacity_json);
}

void LiveView::linger(TimeNs linger_ns, const std::atomic<bool>& stop) {
  if (linger_ns <= 0 || !server_) return;
  std::fprintf(stderr, "pacer: web view: serving the final report at %s for %.3gs (Ctrl-C ends it)\n", url().c_str(),
               static_cast<double>(linger_ns) / 1e9);
  const TimeNs until = monotonic_now_ns() + linger_ns;
  while (!stop.load() && monotonic_now_ns() < until) std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

void LiveView::close() {
  if (server_) server_->stop(feed_.finished() ? kEndFlushNs : 0);
  server_.reset();
}

}  // namespace pacer::web
