// The live web view's options (issue 17): --web [ADDR], --web-token TOKEN and
// --web-linger T. Syntax only: the address is resolved and bound by src/web
// before the run (a port in use is exit 2 there). Errors are kBadArgument
// (exit 2) naming the flag. Pure; main thread.
#pragma once

#include <string_view>

#include "core/config.h"
#include "core/expected.h"

namespace pacer::cli {

// Whether the argument after a bare --web is its address: HOST:PORT, [IPv6]:PORT
// or :PORT (never a URL, an option or a file name).
bool looks_like_web_address(std::string_view next);

// ADDR: "" (the default 127.0.0.1:8089), HOST:PORT, [IPv6]:PORT, :PORT or PORT;
// HOST is an IPv4 or IPv6 literal or "localhost" (127.0.0.1). Port 0 takes any
// free port.
Status parse_web_address(std::string_view text, std::string_view flag, WebViewOptions& web);

// A bearer token: 8 to 256 characters from A-Z a-z 0-9 - . _ ~ (they go into
// URLs unescaped).
Result<std::string> parse_web_token(std::string_view text, std::string_view flag);

// Checks between the web options: --web-token and --web-linger need --web.
Status finish_web_options(const WebViewOptions& web, bool token_given, bool linger_given);

}  // namespace pacer::cli
