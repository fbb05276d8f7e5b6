// See worker_script.h.
#include "engine/drive/worker_script.h"

#include <llhttp.h>

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "core/byte_size.h"
#include "proto/http1_parser.h"

namespace pacer::engine {

namespace {

struct RequestCount {
  RequestBatch batch{0, 0};
  bool in_message = false;
  bool too_many = false;
};

RequestCount& count_of(llhttp_t* parser) { return *static_cast<RequestCount*>(parser->data); }

int on_request_begin(llhttp_t* parser) {
  count_of(parser).in_message = true;
  return 0;
}

int on_request_complete(llhttp_t* parser) {
  RequestCount& count = count_of(parser);
  count.in_message = false;
  if (count.batch.count >= proto::ResponseParser::kMaxOutstanding) {
    count.too_many = true;
    return -1;
  }
  if (llhttp_get_method(parser) == HTTP_HEAD) count.batch.head_bits |= std::uint64_t{1} << count.batch.count;
  ++count.batch.count;
  return 0;
}

const llhttp_settings_t& request_counting_settings() {
  static const llhttp_settings_t kSettings = [] {
    llhttp_settings_t s{};
    llhttp_settings_init(&s);
    s.on_message_begin = &on_request_begin;
    s.on_message_complete = &on_request_complete;
    return s;
  }();
  return kSettings;
}

}  // namespace

Result<RequestBatch> count_requests(std::string_view bytes) {
  RequestCount count;
  llhttp_t parser;
  llhttp_init(&parser, HTTP_REQUEST, &request_counting_settings());
  parser.data = &count;
  const llhttp_errno_t err = llhttp_execute(&parser, bytes.data(), bytes.size());
  if (count.too_many) {
    return runtime_error(fmt::format("more than {} pipelined requests", proto::ResponseParser::kMaxOutstanding));
  }
  if (err != HPE_OK) {
    const char* reason = llhttp_get_error_reason(&parser);
    return runtime_error(fmt::format("not a valid HTTP/1.1 request: {}", reason != nullptr ? reason : "parse error"));
  }
  if (count.in_message) return runtime_error("the last request is incomplete");
  if (count.batch.count == 0) return runtime_error("no request in the bytes (empty string?)");
  return count.batch;
}

namespace {

proto::CaptureCap capture_cap(std::uint64_t max, const std::string& reason) {
  return proto::CaptureCap{static_cast<std::size_t>(std::min<std::uint64_t>(max, SIZE_MAX)), reason};
}

}  // namespace

void name_from_request_bytes(std::string_view bytes, std::string& out) {
  const std::size_t method_end = bytes.find(' ');
  const std::size_t line_end = bytes.find("\r\n");
  out.clear();
  if (method_end == std::string_view::npos || method_end == 0 || method_end > line_end) {
    out = "(unnamed)";
    return;
  }
  const std::string_view rest = bytes.substr(method_end + 1, line_end - method_end - 1);
  const std::size_t target_end = std::min(rest.find(' '), rest.find_first_of("?#"));
  out.append(bytes.substr(0, method_end));
  out += ' ';
  out.append(rest.substr(0, target_end));
}

WorkerScript::WorkerScript(script::ScriptHost& host, script::ThreadScript& script, const Config& config,
                           stats::NameTable& names)
    : host_(host),
      script_(script),
      max_headers_(capture_cap(config.max_capture_headers,
                               fmt::format("more than {} response headers to capture for the script's response() "
                                           "(--max-capture-headers)",
                                           config.max_capture_headers))),
      max_header_bytes_(capture_cap(config.max_capture_header_bytes,
                                    fmt::format("response headers over {} to capture for the script's response() "
                                                "(--max-capture-header-bytes)",
                                                format_byte_size(config.max_capture_header_bytes)))),
      max_body_bytes_(capture_cap(config.max_capture_body_bytes,
                                  fmt::format("response body over {} to capture for the script's response() "
                                              "(--max-capture-body)",
                                              format_byte_size(config.max_capture_body_bytes)))),
      names_(names) {
  name_.reserve(stats::NameTable::kMaxNameBytes);
}

Status WorkerScript::prepare_request() {
  if (!script_.has_request()) {
    auto batch = count_requests(script_.static_request());
    if (!batch) return bad_input("script: the request wrk.format() built is " + batch.error().message);
    static_batch_ = *batch;
    name_from_request_bytes(script_.static_request(), name_);
    static_name_ = names_.intern(name_);
  }
  return Ok{};
}

void WorkerScript::prepare_connections(std::span<const std::unique_ptr<Connection>> connections) {
  slots_.resize(connections.size());
  due_.reserve(connections.size() * 2);
  for (std::size_t i = 0; i < connections.size(); ++i) {
    Connection& c = *connections[i];
    Slot& slot = slots_[i];
    if (script_.has_request() || script_.has_response()) slot.connection_ref = script_.new_connection_table();
    slot.capture.max_headers = max_headers_;
    slot.capture.max_header_bytes = max_header_bytes_;
    slot.capture.max_body_bytes = max_body_bytes_;
    if (script_.has_response() && c.http1 != nullptr) c.http1->set_capture(&slot.capture);
  }
}

bool WorkerScript::next_request(Connection& c, std::string_view& bytes, RequestBatch& batch, stats::NameId& name) {
  if (!script_.has_request()) {
    bytes = script_.static_request();
    batch = static_batch_;
    name = static_name_;
    return true;
  }
  Slot& slot = slot_of(c);
  if (Status called = script_.request(slot.connection_ref, slot.request, &name_); !called) {
    fail("request()", called.error().message);
    return false;
  }
  auto counted = count_requests(slot.request);
  if (!counted) {
    fail("request()", "returned " + counted.error().message);
    return false;
  }
  bytes = slot.request;
  batch = *counted;
  if (name_.empty()) name_from_request_bytes(slot.request, name_);
  name = names_.intern(name_);
  return true;
}

void WorkerScript::call_response(Connection& c, int status) {
  Slot& slot = slot_of(c);
  if (Status called = script_.response(status, slot.capture.fields, slot.capture.body, slot.connection_ref); !called) {
    fail("response()", called.error().message);
  }
}

void WorkerScript::defer(Connection& c, TimeNs now_ns) {
  auto delay = script_.delay();
  if (!delay) {
    fail("delay()", delay.error().message);
    return;
  }
  Slot& slot = slot_of(c);
  slot.due_ns = std::max<TimeNs>(now_ns + *delay, 1);
  due_.push_back(Due{slot.due_ns, &c});
  std::push_heap(due_.begin(), due_.end(), &WorkerScript::due_later);
}

Connection* WorkerScript::pop_due(TimeNs now_ns) {
  while (!due_.empty() && due_.front().at_ns <= now_ns) {
    std::pop_heap(due_.begin(), due_.end(), &WorkerScript::due_later);
    const Due due = due_.back();
    due_.pop_back();
    Slot& slot = slot_of(*due.connection);
    // A connection reopened meanwhile was deferred again (a later entry), or is
    // not connected: this entry is stale.
    if (slot.due_ns != due.at_ns) continue;
    slot.due_ns = 0;
    if (due.connection->state != Connection::State::kOpen) continue;
    return due.connection;
  }
  return nullptr;
}

TimeNs WorkerScript::next_due_ns() const {
  return due_.empty() ? std::numeric_limits<TimeNs>::max() : due_.front().at_ns;
}

void WorkerScript::fail(const char* hook, const std::string& message) {
  host_.fail(fmt::format("script error in {} (thread {}): {}", hook, script_.index(), message));
}

}  // namespace pacer::engine
