// --follow-redirects N: what to send after a 301, 302, 303, 307 or 308.
// The follow-up request is built from the bytes of the request that got the
// redirect (whatever built those: the command line, a target), with RFC 9110's
// rules: 303 becomes GET (HEAD stays HEAD); 301 and 302 turn POST into GET, as
// browsers and curl do (RFC 9110 15.4.2/15.4.3 allow it); 307 and 308 keep the
// method and body. A request turned into GET loses its body and its
// Content-Length, Content-Type, Content-Encoding and Transfer-Encoding headers.
//
// Only the run's origin (scheme, host, port) is followed; another origin, a
// Location seen before in the same chain (a loop), more than N hops, a missing,
// too long or unusable Location each stop the chain with a reason (a `redirect`
// error). HTTP/1.1: the follow-up's bytes go to one of two buffers (a hop reads
// the previous follow-up while writing the next); HTTP/2 takes method() and
// target() for its pseudo-headers. The resolved targets alternate between two
// strings too. Each is reserved at construction for a request with a typical
// target and keeps its capacity, growing only for a longer follow-up than any
// before, so following allocates nothing per request, and a Redirector per
// HTTP/2 stream slot costs about a kilobyte, not room for the longest Location.
// Thread: the owning connection's worker.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/config.h"

namespace pacer::proto {

// Whether `status` is one of the redirects followed.
inline bool is_followed_redirect(int status) {
  return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

// Whether header `name` describes the request's body (Content-Length, -Type,
// -Encoding, Transfer-Encoding; any case): dropped with the body when a hop turns
// the request into GET.
bool is_body_header(std::string_view name);

class Redirector {
 public:
  static constexpr int kMaxHops = 30;  // cli's cap on --follow-redirects

  // target: the run's URL (its origin is the one followed). max_hops: 1..kMaxHops.
  // request_bytes: the largest request the chain starts from (HTTP/1.1: the
  // follow-up buffers are reserved for it). builds_bytes: HTTP/1.1 (follow_up() is the next request's bytes);
  // false for HTTP/2, which sends method() and target() as pseudo-headers.
  Redirector(const Target& target, int max_hops, std::size_t request_bytes, bool builds_bytes = true);

  // HTTP/1.1: a new request (not a follow-up) was sent with these bytes (they
  // stay valid while it is in flight).
  void start(std::string_view request);
  // HTTP/2: a new request with this method and target (valid while it is in flight).
  void start_target(std::string_view method, std::string_view target);

  enum class Step : std::uint8_t { kFollow, kFail };
  // The current request got redirect `status` with `location` (empty: none;
  // too_long: longer than the inspection keeps). kFollow: send follow_up().
  Step redirect(int status, std::string_view location, bool location_too_long);

  std::string_view follow_up() const { return current_; }
  // The request in flight in this chain (after kFollow: the follow-up's).
  std::string_view method() const { return method_; }
  std::string_view target() const { return target_; }
  // After kFollow: the target of the request that got the redirect (valid until the next redirect()).
  std::string_view answered_target() const { return answered_target_; }
  // HTTP/1.1, after kFollow: the follow-up's Cookie header lines replaced by `cookie_line`
  // ("Cookie: ...\r\n", or empty for none): a scenario user's jar, with the redirect's
  // own Set-Cookie stored, for the follow-up's path (RFC 6265 section 5.4 per hop).
  void replace_cookie_line(std::string_view cookie_line);
  bool follow_up_is_head() const;
  // A hop turned the request into GET: its body and content headers are gone.
  bool body_dropped() const { return body_dropped_; }
  int hops() const { return hops_; }
  // Why the chain stopped (valid until the next redirect()). Formatted when asked
  // (a worker keeps only its first error), not each time a chain fails.
  const char* reason() const;

  // For tests: resolves `location` against `current_target` into the origin-form
  // target it names; false (with reason()) if it is not this origin's.
  bool resolve(std::string_view location, std::string_view current_target, std::string& out);

 private:
  Step fail(const char* what, std::string_view detail = {});
  bool reject(const char* what, std::string_view detail = {});  // fail(), as false
  bool same_origin(std::string_view scheme, std::string_view authority) const;
  void build(std::string_view method, std::string_view target, bool drop_body);

  std::string scheme_;
  std::string host_;        // lower case, without brackets
  std::uint16_t port_;
  int max_hops_;
  bool builds_bytes_;
  std::string_view current_;          // HTTP/1.1: the bytes of the request in flight in this chain
  std::array<std::string, 2> buffers_;  // HTTP/1.1: follow-ups are built into these, in turn
  int next_buffer_ = 0;
  std::string_view method_;           // of the request in flight
  std::string_view target_;
  std::string_view answered_target_;
  std::array<std::string, 2> targets_;  // resolved targets, in turn (one is target_)
  int next_target_ = 0;
  std::array<std::uint64_t, kMaxHops + 1> visited_{};  // hashes of the chain's targets
  int hops_ = 0;
  bool body_dropped_ = false;
  // Why the chain stopped, kept as its parts: what (a static string; nullptr:
  // more than max_hops_ hops) and the first kDetailBytes of the Location.
  static constexpr std::size_t kDetailBytes = 96;
  const char* what_ = "";
  std::array<char, kDetailBytes> detail_{};
  std::size_t detail_length_ = 0;
  bool detail_cut_ = false;
  mutable std::array<char, 192> reason_{};
};

}  // namespace pacer::proto
