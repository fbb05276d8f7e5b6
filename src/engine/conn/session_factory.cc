// See session_factory.h.
#include "engine/conn/session_factory.h"

#include "proto/http1_session.h"
#include "proto/http2_session.h"

namespace pacer::engine {

SessionFactory::SessionFactory(const SharedRun& shared, StaticRequest script_request)
    : shared_(shared), script_request_(script_request) {
  if (shared_.http2_request != nullptr || shared_.http3 != nullptr) h2_memory_ = std::make_unique<proto::H2Memory>();
}

void SessionFactory::make(Connection& c, const Target* wire_target) {
  if (shared_.http3 != nullptr) {
    auto session = shared_.http3->session(*shared_.http3_requests, shared_.slots_per_connection, *h2_memory_);
    c.http3 = session.get();
    c.session = std::move(session);
    return;
  }
  const targets::RequestSet& requests = *shared_.requests;
  const WireOptions& wire = shared_.options.wire;
  if (shared_.http2_request != nullptr) {
    auto h2 = std::make_unique<proto::Http2Session>(requests.http2(), shared_.slots_per_connection, *h2_memory_);
    if (wire.follow_redirects > 0 || wire.compressed) {
      h2->enable_wire(wire.target, wire.follow_redirects, wire.compressed);
    }
    c.session = std::move(h2);
    return;
  }
  std::unique_ptr<proto::Http1Session> session;
  if (!script_request_.bytes.empty()) {
    const std::string_view request = script_request_.bytes;
    session = std::make_unique<proto::Http1Session>(request, request, shared_.slots_per_connection,
                                                    script_request_.is_head, &known_head_, &llhttp_pool_);
  } else {
    session = std::make_unique<proto::Http1Session>(requests.http1(), shared_.slots_per_connection, &known_head_,
                                                    &llhttp_pool_);
  }
  if (wire.follow_redirects > 0 || wire.compressed) {
    session->enable_wire(wire_target != nullptr ? *wire_target : wire.target, wire.follow_redirects, wire.compressed);
  }
  c.http1 = session.get();
  c.session = std::move(session);
}

}  // namespace pacer::engine
