// Builds each connection's protocol session (proto::Session) for the run's
// protocol: HTTP/3 (the loaded module), HTTP/2, or HTTP/1.1 with the command
// line's request, a static script's, or bytes given per request. Owns what the
// sessions share and must outlive them (HTTP/2's memory, HTTP/1.1's known head
// and idle llhttp parsers).
// Main thread before the run, then the worker's thread.
#pragma once

#include <memory>
#include <string_view>

#include "engine/conn/connection.h"
#include "engine/run_plan.h"
#include "proto/h2_memory.h"
#include "proto/http1_parser.h"

namespace pacer::engine {

// A static script's request (-s, built once by wrk.format): it replaces the
// command line's on every HTTP/1.1 connection.
struct StaticRequest {
  std::string_view bytes;  // empty: none (no script, or one that makes each request)
  bool is_head = false;
};

class SessionFactory {
 public:
  SessionFactory(const SharedRun& shared, StaticRequest script_request);
  SessionFactory(const SessionFactory&) = delete;
  SessionFactory& operator=(const SessionFactory&) = delete;

  // Gives c its session (and sets c.http1 or c.http3 to it). wire_target: where
  // its redirects resolve and stay (another origin's connection); null: the run's URL.
  void make(Connection& c, const Target* wire_target = nullptr);

 private:
  const SharedRun& shared_;
  const StaticRequest script_request_;
  std::unique_ptr<proto::H2Memory> h2_memory_;  // outlives the connections' HTTP/2 and HTTP/3 sessions
  proto::KnownHead known_head_;                 // HTTP/1.1: the response head its parsers match without llhttp
  proto::LlhttpPool llhttp_pool_;               // HTTP/1.1: lent to a parser for a response llhttp reads
};

}  // namespace pacer::engine
