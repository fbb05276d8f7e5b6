// Every request a run sends, built once before the clock starts and shared
// read-only by every worker: per request its HTTP/1.1 bytes (the same bytes
// --pipeline times in a row) or, with --http2/--http3, its HTTP/2 header list;
// its name's id; and the order the workers take them in. Without --targets the
// set holds the command line's one request.
//
// The per-request path only indexes into it: choosing request i costs a
// TargetPicker::next() and nothing is built or copied.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/config.h"
#include "proto/http1_request.h"
#include "proto/http2_request.h"
#include "stats/name_table.h"
#include "targets/order.h"

namespace pacer::targets {

class RequestSet {
 public:
  // config.targets (or the command line's request when there are none), their
  // names interned into `names` in file order (a target's "name", else
  // "METHOD path" without the query). HTTP/1.1 bytes without --http2/--http3,
  // HTTP/2 header lists with them.
  RequestSet(const Config& config, stats::NameTable& names);
  RequestSet(const RequestSet&) = delete;
  RequestSet& operator=(const RequestSet&) = delete;

  std::uint32_t size() const { return static_cast<std::uint32_t>(names_.size()); }
  // Empty with --http2 or --http3 (they send http2()).
  std::span<const proto::Http1Bytes> http1() const { return http1_; }
  std::span<const proto::Http2Request> http2() const { return http2_; }
  stats::NameId name(std::uint32_t i) const { return names_[i]; }
  const TargetOrder& order() const { return order_; }
  // Whether request i may be sent again when its reused HTTP/1.1 connection
  // closed before any byte of its response: an idempotent method (GET, HEAD,
  // OPTIONS, TRACE, PUT, DELETE; RFC 9110 9.2.2) with no body. Never with
  // --http2/--http3.
  bool resendable(std::uint32_t i) const { return i < resendable_.size() && resendable_[i] != 0; }

 private:
  void add_http1(const Config& config, const RequestTarget& r);

  std::vector<std::string> bytes_;  // per request: its bytes --pipeline times in a row
  std::vector<proto::Http1Bytes> http1_;  // views into bytes_
  std::vector<proto::Http2Request> http2_;
  std::vector<stats::NameId> names_;
  std::vector<std::uint8_t> resendable_;  // HTTP/1.1: per request, see resendable()
  TargetOrder order_;
};

}  // namespace pacer::targets
