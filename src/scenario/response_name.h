// A request named by its response (issue 42, Locust's
// `resp.request_meta["name"] = resp.json()["name"]`): the call gives
// `pacer.name_from{json = "/pointer"}` or `{header = "Name"}` as its name, and
// the response's value there names the request in every output (its Endpoints
// row, the time series, the per-request log, the Locust CSV). The scenario
// driver reads it when the response is complete, before anything counts it;
// a response without the value keeps the call's default name ("METHOD path").
// One worker thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "proto/http1_parser.h"

namespace pacer::scenario {

enum class NameFrom : std::uint8_t { kCall, kJson, kHeader };

// Longer names are cut here (a server cannot make the name table hold its bodies).
inline constexpr std::size_t kMaxResponseNameBytes = 256;

// Whether text is a JSON pointer (RFC 6901: empty, or "/" segments with ~0, ~1 escapes).
bool valid_json_pointer(std::string_view text);

// The name the captured response gives (kJson: a string or a number at the
// pointer in its JSON body; kHeader: the header's value, its name matched
// without regard to case); empty when it has none. scratch holds the text.
std::string_view response_name(const proto::ResponseCapture& capture, NameFrom from, std::string_view where,
                               std::string& scratch);

}  // namespace pacer::scenario
