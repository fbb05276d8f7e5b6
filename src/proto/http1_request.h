// Builds the bytes of the HTTP/1.1 request a run sends. Built once before the
// clock starts and shared read-only by every connection.
#pragma once

#include <string>

#include "core/config.h"

namespace pacer::proto {

// "METHOD path HTTP/1.1", a Host header (with the port when it is not the
// scheme's default), the user's -H headers in order (a user Host or
// Content-Length replaces pacer's own), Content-Length when there is a body, and
// "Connection: close" when keep-alive is disabled. Header names compare
// case-insensitively.
std::string build_request(const Config& config);

}  // namespace pacer::proto
