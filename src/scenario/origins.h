// The origins a worker's users send to (issue 42): the run's own (origin 0, the
// URL's scheme, host and port) and up to kMaxOthers others that a user named by
// an absolute URL (u:get("http://other:8097/x")), each given a small id the
// first time a user names it. Each origin has its Host header (host:port unless
// the scheme's default), the host its cookies are kept for (lower case) and,
// for the others, a Target (where the engine connects, what redirects may
// follow). Pure: no sockets and no resolving (the engine does that per origin,
// engine/drive/origin_links.h). One worker thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/config.h"

namespace pacer::scenario {

struct Origin {
  Target target;            // scheme, host (IPv6 without brackets), port; path "/"
  std::string host_header;  // "host" or "host:port"
  std::string cookie_host;  // the host, lower case (the cookie jars' origin)
  std::string prefix;       // "scheme://host_header": what a request's default name starts with
};

// Where an absolute URL goes.
struct UrlPlace {
  std::uint8_t origin = 0;     // 0: the run's own origin
  std::string_view path;       // the path and query to send (a view of the URL, or of the scratch)
  std::string_view error;      // not empty: the URL is refused, and why (no origin, no path)
};

class Origins {
 public:
  // How many origins besides the run's one worker's users may name: past it a
  // request is a script error naming the cap, so memory holds whatever a file does.
  static constexpr std::size_t kMaxOthers = 16;

  explicit Origins(const Config& config);

  // The origin and path of an absolute http(s) URL (one with an authority). A
  // new other origin gets the next id; refused: not http or https, user info, a
  // bad port, past kMaxOthers, or any other origin through a proxy (-x or the
  // environment's: its tunnel and absolute form are the run's host's).
  UrlPlace place(std::string_view url);
  // Origin `id` (0: the run's, whose target is the command line's URL).
  const Origin& at(std::uint8_t id) const { return origins_[id]; }
  std::size_t size() const { return origins_.size(); }

 private:
  const Config& config_;
  std::vector<Origin> origins_;  // [0]: the run's; grows to 1 + kMaxOthers at most
  std::string path_scratch_;     // place()'s path when the URL has none ("/" and its query)
  std::string error_scratch_;    // place()'s error naming where the proxy came from
};

}  // namespace pacer::scenario
