// Builds the bytes of the HTTP/1.1 request a run sends. Built once before the
// clock starts and shared read-only by every connection.
#pragma once

#include <string>
#include <string_view>

#include "core/config.h"

namespace pacer::proto {

// "METHOD path HTTP/1.1", a Host header (with the port when it is not the
// scheme's default), the user's -H headers in order (a user Host or
// Content-Length replaces pacer's own), Content-Length when there is a body, and
// "Connection: close" when keep-alive is disabled. Header names compare
// case-insensitively.
std::string build_request(const Config& config);

// --targets: the same for one target on the run's origin (config.target), with
// `request` already completed by with_command_line().
std::string build_request(const Config& config, const RequestTarget& request);

// The request the command line describes (-m, the URL's path, -H, -b).
RequestTarget command_line_request(const Config& config);
// A target with the command line's -H headers and -b body added: a target header
// replaces a -H header of the same name; -b is the body of a target without one.
RequestTarget with_command_line(const Config& config, const RequestTarget& target);

// One prebuilt HTTP/1.1 request as a session sends it: its bytes, the same bytes
// `depth` times in a row (a pipelined batch of it is one write), whether it is a
// HEAD (its response has no body). Views into storage that outlives the sessions.
struct Http1Bytes {
  std::string_view bytes;
  std::string_view repeated;
  bool is_head = false;
};

}  // namespace pacer::proto
