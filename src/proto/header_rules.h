// The one rule for every header that enters a request, whatever its source:
// -H, a --targets entry, a scenario's header table (u:get, u:post, u:request)
// and wrk.format in a -s script. pacer frames every request itself, so a
// header may not change the framing, break the request apart, or say twice what
// a server must refuse to see twice. Pure functions; any thread.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/config.h"

namespace pacer::proto {

// What the rule needs to know about the request the headers go with.
struct HeaderContext {
  std::optional<std::size_t> body_bytes;  // nullopt: no body
  bool http2 = false;                     // HTTP/2 or HTTP/3: no connection-specific fields
  std::string_view body_flag;             // the option giving the body ("-b"), for the message; may be empty
};

// RFC 9110 tchar+ (a header name).
bool is_header_token(std::string_view text);
// RFC 9110 field-value bytes: no control character but HTAB (no CR, LF, NUL, DEL).
bool is_header_value(std::string_view text);

// Why one header may not be sent ("" when it may): a name that is no token, a
// control character in the value, any Transfer-Encoding, a Content-Length that
// is not the body's size (0 without a body), and under HTTP/2 the connection-
// specific fields (RFC 9113 8.2.2). The reason quotes the header but never a
// control character (they are shown as '?').
std::string header_problem(std::string_view name, std::string_view value, const HeaderContext& context);

// header_problem for each header of a request's whole list, then a second Host
// (RFC 9112 section 3.2: a server must answer 400 to two).
std::string header_list_problem(const std::vector<Header>& headers, const HeaderContext& context);

}  // namespace pacer::proto
