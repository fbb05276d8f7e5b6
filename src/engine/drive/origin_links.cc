// See origin_links.h.
#include "engine/drive/origin_links.h"

#include <algorithm>

#include <fmt/format.h>

#include "engine/start_up.h"
#include "proto/alpn.h"

namespace pacer::engine {

OriginLinks::Link& OriginLinks::link(std::uint8_t id, const scenario::Origin& origin) {
  if (links_.size() <= id) links_.resize(static_cast<std::size_t>(id) + 1);
  if (links_[id] != nullptr) return *links_[id];
  links_[id] = std::make_unique<Link>();
  Link& l = *links_[id];
  const Target& t = origin.target;
  auto addresses = net::resolve(t.host, t.port);
  if (!addresses) {
    l.reason = fmt::format("{}: {}", origin.prefix, addresses.error().message);
    return l;
  }
  l.addresses = std::move(*addresses);
  const ConnectRoute* route = shared_.route;
  if (route != nullptr && !route->bind.empty()) {  // --bind's addresses are of one family
    const int family = route->bind.front().family();
    std::erase_if(l.addresses, [family](const net::Address& a) { return a.family() != family; });
    if (l.addresses.empty()) {
      l.reason = fmt::format("{}: has no {} address, the family of --bind's", origin.prefix,
                             family == AF_INET ? "IPv4" : "IPv6");
      return l;
    }
  }
  l.route.address = l.addresses.front();
  if (t.is_tls()) {
    net::TlsClientOptions options = tls_options(*shared_.config);
    options.server_name = t.host;
    options.sni.clear();  // --sni names the run's host
    options.alpn = proto::alpn_protocols(false);  // scenarios speak HTTP/1.1
    auto context = net::TlsContext::client(options);
    if (!context) {
      l.reason = fmt::format("{}: {}", origin.prefix, context.error().message);
      return l;
    }
    l.tls = std::make_unique<net::TlsContext>(std::move(*context));
    l.route.tls = l.tls.get();
    l.route.tls_sessions = &l.sessions;
  }
  return l;
}

const OriginRoute* OriginLinks::route(std::uint8_t id, const scenario::Origin& origin) {
  const Link& l = link(id, origin);
  return l.reason.empty() ? &l.route : nullptr;
}

void OriginLinks::place(int user, std::uint8_t id, int index) {
  places_.push_back(Place{user, id});  // index is users_ + places_.size(): the pool adds in order
  by_user_.emplace(key(user, id), index);
}

void OriginLinks::connect_failed(const Connection& c) {
  const std::uint8_t id = origin_of(c);
  if (id == 0 || links_.size() <= id || links_[id] == nullptr) return;
  Link& l = *links_[id];
  if (l.addresses.size() < 2) return;
  l.next = (l.next + 1) % l.addresses.size();
  l.route.address = l.addresses[l.next];
}

}  // namespace pacer::engine
