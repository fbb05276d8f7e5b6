// Plain counters a worker keeps for its share of the run; merged at the end.
// Each worker owns one Counters; no atomics (merged after join). Every count field
// is listed once (ErrorCounts::kFields, Counters::kFields): merge, subtract, the
// totals and the checked merge of `pacer merge` walk those lists, so a new field
// is added in one place.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

namespace pacer::stats {

// One counter field and the name the JSON report gives it.
template <typename Owner>
struct CountField {
  const char* name;
  std::uint64_t Owner::*member;
};

// Errors by class (DESIGN.md section 1). `status` counts responses with a status
// >= 400: they are responses, so they are also counted in `responses`.
struct ErrorCounts {
  std::uint64_t connect = 0;
  std::uint64_t tls = 0;
  std::uint64_t read = 0;
  std::uint64_t write = 0;
  std::uint64_t timeout = 0;
  std::uint64_t parse = 0;
  std::uint64_t deadline = 0;   // open model: shed before sending (queued past --deadline)
  std::uint64_t backlog = 0;    // open model: an arrival found the backlog full
  std::uint64_t unsent = 0;     // open model: waited in the backlog past --timeout, never written
  std::uint64_t stream_reset = 0;  // HTTP/2: the server reset the request's stream (RST_STREAM)
  std::uint64_t goaway = 0;        // HTTP/2: the server's GOAWAY refused the request's stream
  std::uint64_t redirect = 0;      // --follow-redirects: another origin, a loop, too many hops, a bad Location
  std::uint64_t decode = 0;        // --compressed: a body that did not decode
  std::uint64_t quic = 0;          // HTTP/3: the QUIC connection closed (transport/application error, idle) under the request
  std::uint64_t proxy = 0;         // the proxy refused or failed the CONNECT tunnel (407, 403, 502, ...)
  std::uint64_t ports = 0;         // connect: no free local port (EADDRNOTAVAIL); see --bind
  std::uint64_t status = 0;

  // Every field, by its name in the JSON report's "errors" (status last).
  static constexpr std::array<CountField<ErrorCounts>, 17> kFields{{
      {"connect", &ErrorCounts::connect},
      {"tls", &ErrorCounts::tls},
      {"read", &ErrorCounts::read},
      {"write", &ErrorCounts::write},
      {"timeout", &ErrorCounts::timeout},
      {"parse", &ErrorCounts::parse},
      {"deadline", &ErrorCounts::deadline},
      {"backlog", &ErrorCounts::backlog},
      {"unsent", &ErrorCounts::unsent},
      {"stream_reset", &ErrorCounts::stream_reset},
      {"goaway", &ErrorCounts::goaway},
      {"redirect", &ErrorCounts::redirect},
      {"decode", &ErrorCounts::decode},
      {"quic", &ErrorCounts::quic},
      {"proxy", &ErrorCounts::proxy},
      {"ports", &ErrorCounts::ports},
      {"status", &ErrorCounts::status},
  }};

  // Failures that produced no response (everything but `status`).
  std::uint64_t socket_total() const {
    std::uint64_t total = 0;
    for (const auto& f : kFields) total += f.member == &ErrorCounts::status ? 0 : this->*f.member;
    return total;
  }
  void merge(const ErrorCounts& o) {
    for (const auto& f : kFields) this->*f.member += o.*f.member;
  }
  void subtract(const ErrorCounts& o) {  // o must be an earlier snapshot of this
    for (const auto& f : kFields) this->*f.member -= o.*f.member;
  }
};

// A scenario's own error classes (docs/scenarios.md): `check` (u:fail on a
// request) and `script` (an uncaught Lua error). Not transport failures, so not in
// ErrorCounts (a check may fail a request that has its response): the report's
// scenario object has the run's, each interval its own.
struct ScenarioErrorCounts {
  std::uint64_t check = 0;
  std::uint64_t script = 0;
  // Of check, those on requests that had failed already (a status >= 400 or an
  // error class): such a request is one failure, not two (failed() below).
  std::uint64_t check_on_errors = 0;

  // The error classes, as the reports' errors objects list them.
  static constexpr std::array<CountField<ScenarioErrorCounts>, 2> kFields{{
      {"check", &ScenarioErrorCounts::check},
      {"script", &ScenarioErrorCounts::script},
  }};
  void merge(const ScenarioErrorCounts& o) {
    for (const auto& f : kFields) this->*f.member += o.*f.member;
    check_on_errors += o.check_on_errors;
  }
};

// The requests that failed, each once: every error class (a status >= 400
// included) and a scenario's checks on requests that had not failed otherwise.
inline std::uint64_t failed_requests(const ErrorCounts& errors, const ScenarioErrorCounts* scenario) {
  const std::uint64_t checks = scenario != nullptr ? scenario->check - std::min(scenario->check_on_errors, scenario->check) : 0;
  return errors.socket_total() + errors.status + checks;
}

constexpr int kMaxStatusCode = 999;

struct Counters {
  std::uint64_t responses = 0;          // complete responses recorded (any status)
  std::uint64_t requests_sent = 0;      // recorded requests whose bytes were written
  std::uint64_t bytes_read = 0;         // every byte read after the warm-up, headers included
  std::uint64_t warmup_responses = 0;   // responses to requests scheduled during --warmup (not recorded)
  std::uint64_t connects = 0;           // successful connects (initial and reconnects)
  std::uint64_t tls_handshakes = 0;     // completed TLS handshakes (like connects, warm-up included)
  std::uint64_t tls_resumed = 0;        // ...of which resumed a session
  std::uint64_t redials = 0;            // closed loop: connects dialled again at the start, their SYN
                                        // unanswered (engine/conn/start_gate.h); warm-up included
  std::uint64_t scheduled = 0;          // open model: recorded arrivals the schedule produced
  std::uint64_t peak_backlog = 0;       // open model: most arrivals waiting for a connection at once
                                        // (merge: the sum of the workers' peaks, an upper bound)
  std::uint64_t redirects = 0;          // --follow-redirects: redirects followed (recorded requests)
  std::uint64_t bytes_decoded = 0;      // --compressed: what the recorded responses' bodies decoded to
  std::uint64_t bytes_written = 0;      // every byte written after the warm-up, headers and bodies (ab's "sent")
  std::uint64_t length_mismatches = 0;  // recorded 2xx responses whose body length differs from their
                                        // name's document length (engine/record/document.h)
  std::uint64_t keepalive_closed = 0;   // connections the peer closed after a response that kept them open
                                        // (no `Connection: close`), idle or under a request; warm-up included
  std::uint64_t resent = 0;             // recorded requests sent again on a new connection: their reused
                                        // connection closed before any byte of the response (issue 43)
  ErrorCounts errors;
  std::array<std::uint64_t, kMaxStatusCode + 1> status_counts{};  // index = status code

  // Every plain count, by its name in the JSON report's "counts".
  static constexpr std::array<CountField<Counters>, 16> kFields{{
      {"requests_sent", &Counters::requests_sent},
      {"responses", &Counters::responses},
      {"bytes_read", &Counters::bytes_read},
      {"warmup_responses", &Counters::warmup_responses},
      {"connects", &Counters::connects},
      {"tls_handshakes", &Counters::tls_handshakes},
      {"tls_resumed", &Counters::tls_resumed},
      {"redials", &Counters::redials},
      {"scheduled", &Counters::scheduled},
      {"peak_backlog", &Counters::peak_backlog},
      {"redirects", &Counters::redirects},
      {"bytes_decoded", &Counters::bytes_decoded},
      {"bytes_written", &Counters::bytes_written},
      {"length_mismatches", &Counters::length_mismatches},
      {"keepalive_closed", &Counters::keepalive_closed},
      {"resent", &Counters::resent},
  }};

  // Responses with a status below 400.
  std::uint64_t successes() const { return responses - errors.status; }
  // Unchecked sums: workers' counts of one run cannot come near 2^64.
  void merge(const Counters& o) {
    for (const auto& f : kFields) this->*f.member += o.*f.member;
    errors.merge(o.errors);
    for (std::size_t i = 0; i < status_counts.size(); ++i) status_counts[i] += o.status_counts[i];
  }
  // Checked sums, for counts read from files (`pacer merge`): if any sum would
  // pass 2^64 - 1, nothing changes and the result names the first such field as
  // the JSON report does ("counts.responses", "errors.timeout", "status_codes.200").
  // Also refused: sums whose derived totals (responses plus failures without a
  // response) would not fit. Empty when merged.
  std::string merge_checked(const Counters& o);
};

}  // namespace pacer::stats
