// NO_PROXY / --noproxy matching, as curl does it: a list of entries separated by
// commas (and spaces); "*" matches every host; a name matches itself and every
// name under it ("example.com" and ".example.com" both match www.example.com,
// not notexample.com), case-insensitively, a trailing dot ignored; an IP address
// matches the same address, and ADDRESS/BITS a CIDR range (IPv4 or IPv6). Ports
// are not part of the match. Pure; any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace pacer::proxy {

// host: as in the URL, an IPv6 literal with or without brackets.
bool no_proxy_matches(std::string_view list, std::string_view host);

// Why the first entry of `list` that can match no host never will ("'example.com:8080'
// has a port: ..."; "'10.0.0.0/33': ..."), for the user; nullopt when every entry can.
std::optional<std::string> no_proxy_flaw(std::string_view list);

}  // namespace pacer::proxy
