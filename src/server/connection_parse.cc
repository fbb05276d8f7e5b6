// Connection: request parsing with llhttp and what happens when a request is
// complete (counting, arrival log, freeze anchor, reply planning). The parser is
// paused at the end of every message, so pipelined requests are taken one at a
// time and answered in order. See connection.h.
#include "server/connection.h"

#include <algorithm>
#include <optional>
#include <string_view>

namespace pacer::server {
namespace {

// Room a request may need in the output buffer: a head and an inline body.
constexpr std::size_t kOutputReserveBytes = kMaxHeadBytes + 2048;

Connection& self(llhttp_t* parser) { return *static_cast<Connection*>(parser->data); }

}  // namespace

const llhttp_settings_t& Connection::parser_settings() {
  static const llhttp_settings_t settings = [] {
    llhttp_settings_t s;
    llhttp_settings_init(&s);
    s.on_message_begin = &Connection::on_message_begin;
    s.on_url = &Connection::on_url;
    s.on_headers_complete = &Connection::on_headers_complete;
    s.on_message_complete = &Connection::on_message_complete;
    return s;
  }();
  return settings;
}

int Connection::on_message_begin(llhttp_t* parser) {
  Connection& c = self(parser);
  c.url_seen_ = false;
  c.headers_done_ = false;
  c.echo_.clear();
  return 0;
}

// The URL may arrive in pieces (one per read); the bytes stay in the input buffer
// until the headers are complete, so offsets from the request's start suffice.
int Connection::on_url(llhttp_t* parser, const char* at, std::size_t length) {
  Connection& c = self(parser);
  const auto offset = static_cast<std::size_t>(at - (c.in_.get() + c.request_start_));
  if (!c.url_seen_) c.url_begin_ = offset;
  c.url_seen_ = true;
  c.url_end_ = offset + length;
  return 0;
}

int Connection::on_headers_complete(llhttp_t* parser) {
  Connection& c = self(parser);
  c.headers_done_ = true;
  const char* request = c.in_.get() + c.request_start_;
  const std::string_view target =
      c.url_seen_ ? std::string_view(request + c.url_begin_, c.url_end_ - c.url_begin_) : std::string_view{};
  c.route_ = match_route(target);
  c.method_ = llhttp_method_name(static_cast<llhttp_method_t>(llhttp_get_method(parser)));
  const std::string_view path = target.substr(0, target.find_first_of("?#"));
  c.path_bytes_ = std::min(path.size(), c.path_.size());
  std::copy_n(path.begin(), c.path_bytes_, c.path_.begin());
  if (c.route_.kind == RouteKind::kAuth || c.route_.kind == RouteKind::kShopOrder) {
    // The whole head is still in the input buffer (released only after this).
    c.route_.value = has_login_token(std::string_view(request, c.in_end_ - c.request_start_)) ? 1 : 0;
  } else if (c.route_.kind == RouteKind::kSessionPage) {
    c.route_.value = has_session_cookie(std::string_view(request, c.in_end_ - c.request_start_)) ? 1 : 0;
  } else if (c.route_.kind == RouteKind::kJson) {
    c.route_.value = has_json_content_type(std::string_view(request, c.in_end_ - c.request_start_)) ? 1 : 0;
  }
  c.is_head_ = llhttp_get_method(parser) == HTTP_HEAD;
  return 0;
}

int Connection::on_message_complete(llhttp_t* parser) {
  Connection& c = self(parser);
  // Read here: resuming the parser resets the flags these depend on.
  c.keep_alive_ = llhttp_should_keep_alive(parser) != 0 && parser->upgrade == 0;
  c.is_http10_ = parser->http_major == 1 && parser->http_minor == 0;
  return HPE_PAUSED;
}

void Connection::process_input(LoopContext& ctx) {
  while (state_ == State::kReady && !close_after_write_ && parse_pos_ < in_end_ && stream_.empty() &&
         pending_count_ < kMaxPendingReplies && output_free_bytes() >= kOutputReserveBytes) {
    const char* data = in_.get() + parse_pos_;
    const llhttp_errno_t error = llhttp_execute(&parser_, data, in_end_ - parse_pos_);
    if (error == HPE_OK) {  // all input taken; the request is not complete yet
      parse_pos_ = in_end_;
      release_parsed_input();
      return;
    }
    if (error != HPE_PAUSED) {  // malformed
      queue_error(400);
      return;
    }
    parse_pos_ += static_cast<std::size_t>(llhttp_get_error_pos(&parser_) - data);
    llhttp_resume(&parser_);
    release_parsed_input();
    complete_request(ctx);
  }
}

// Drops parsed bytes the current request no longer needs (all of them once its
// headers are complete), copying them first for /echo.
void Connection::release_parsed_input() {
  if (!headers_done_) return;
  if (route_.kind == RouteKind::kEcho) echo_.append(in_.get() + request_start_, parse_pos_ - request_start_);
  request_start_ = parse_pos_;
}

void Connection::count_request(LoopContext& ctx) {
  ++requests_seen_;
  if (route_.kind == RouteKind::kStats) {
    // A connection used only for /stats is left out of connections_accepted.
    if (requests_seen_ == 1) {
      WorkerCounters::subtract(ctx.counters.connections_accepted);
      counted_connection_ = false;
    }
    return;
  }
  if (!counted_connection_) {
    WorkerCounters::add(ctx.counters.connections_accepted);
    counted_connection_ = true;
  }
  WorkerCounters::add(ctx.counters.requests_received);
  ctx.path_counts.add(method_, std::string_view(path_.data(), path_bytes_));
  if (ctx.arrivals != nullptr) ctx.arrivals->push_back(input_arrival_ns_);
  // With --freeze-at 0 the window opens at this very request.
  if (ctx.shared.note_first_request(ctx.now_ns)) ctx.now_ns = ctx.shared.wait_out_freeze(ctx.now_ns, ctx.wake_fd);
}

void Connection::complete_request(LoopContext& ctx) {
  headers_done_ = false;
  count_request(ctx);
  if (ctx.shared.stop_requested.load(std::memory_order_acquire)) {
    close(ctx);  // stopped while frozen: nothing more is answered
    return;
  }
  StatsSnapshot stats;
  if (route_.kind == RouteKind::kStats) {
    stats.requests_answered = ctx.shared.sum(&WorkerCounters::requests_answered);
    stats.connections_accepted = ctx.shared.sum(&WorkerCounters::connections_accepted);
  }
  Reply reply = plan_reply(route_, ctx.shared.fail_route_requests, stats, text_scratch_);
  if (route_.kind == RouteKind::kStats) {
    // plan_reply's {"requests_answered":N,"connections_accepted":M} plus the counts per name.
    stats_text_.assign(reply.text.substr(0, reply.text.size() - 1));
    stats_text_ += ",\"requests_by_name\":" + requests_by_name_json(ctx.shared.path_counts) + "}";
    reply.text = stats_text_;
    reply.body_bytes = stats_text_.size();
  }
  if (reply.body == BodyKind::kEcho) reply.body_bytes = echo_.size();
  switch (reply.action) {
    case ReplyAction::kAnswer:
    case ReplyAction::kTruncate:
      queue_reply(reply);
      break;
    case ReplyAction::kDelay:
      delayed_reply_ = reply;
      state_ = State::kDelayed;
      ctx.timers.push(TimerEntry{ctx.now_ns + reply.delay_ns, ref()});
      break;
    case ReplyAction::kQueue: {
      // The pool's place is taken now, for good: a client that leaves before its
      // reply does not give it back.
      const std::optional<TimeNs> finish_ns = ctx.shared.pools.finish_ns(route_.value, reply.delay_ns, ctx.now_ns);
      if (!finish_ns) {
        queue_reply(too_many_pools_reply());
        break;
      }
      delayed_reply_ = reply;
      state_ = State::kDelayed;
      ctx.timers.push(TimerEntry{*finish_ns, ref()});
      break;
    }
    case ReplyAction::kNever:
      state_ = State::kNever;
      in_end_ = parse_pos_ = request_start_ = 0;
      break;
  }
}

}  // namespace pacer::server
