// Proxy URLs as curl reads them (--proxy, http_proxy, HTTPS_PROXY, ALL_PROXY):
// [http://][user[:password]@]host[:port][/], the port 1080 when absent, user and
// password percent-decoded. Other schemes (https://, socks*://) are refused by
// name: pacer speaks plain HTTP to its proxy. Pure; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/expected.h"

namespace pacer::proxy {

inline constexpr std::uint16_t kDefaultProxyPort = 1080;  // curl's

struct ProxyUrl {
  std::string host;             // without brackets for IPv6 literals
  std::uint16_t port = kDefaultProxyPort;
  bool has_credentials = false; // a user (and maybe a password) was given
  std::string user;
  std::string password;
  // "http://host:port": what reports print (never the password).
  std::string shown() const;
};

// Errors: kBadInput naming what is wrong with `text` (the caller adds where it came from).
Result<ProxyUrl> parse_proxy_url(std::string_view text);

// "Basic " + base64(user ":" password): an Authorization or Proxy-Authorization value.
std::string basic_authorization(std::string_view user, std::string_view password);

}  // namespace pacer::proxy
