// --cookie's arguments (README.md, docs/scenarios.md "Cookies"): `name=value; name2=value2` as curl -b
// takes them, or `@FILE`, a Netscape cookies.txt file as curl and wget write it
// (seven tab-separated fields: domain, include subdomains, path, secure,
// expiry, name, value; `#HttpOnly_` before a domain; other `#` lines and blank
// lines are comments). Pure; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "cookie/cookie_jar.h"
#include "core/expected.h"

namespace pacer::cookie {

// `a=1; b=2`: checked (each pair has a name and '=', nothing that cannot go in a
// header) and returned as it goes on the wire, whitespace around pairs trimmed.
Result<std::string> parse_cookie_pairs(std::string_view text, std::string_view flag);

// A cookies.txt file's text into jar (now_s: expired lines are skipped, as curl
// does); `source` names the file in messages. An unreadable line is an error naming it.
Status load_cookie_file(std::string_view text, std::string_view source, std::int64_t now_s, CookieJar& jar);

}  // namespace pacer::cookie
