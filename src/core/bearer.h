// The token of an "Authorization: Bearer TOKEN" value, read as RFC 9110 section
// 11.1 says: the scheme is case-insensitive ("bearer", "BEARER"), one or more
// spaces follow it. Used by `pacer serve`'s /auth and the web view. Pure.
#pragma once

#include <strings.h>

#include <algorithm>
#include <optional>
#include <string_view>

namespace pacer {

inline std::optional<std::string_view> bearer_token(std::string_view authorization) {
  constexpr std::string_view kScheme = "bearer";
  if (authorization.size() <= kScheme.size() || strncasecmp(authorization.data(), kScheme.data(), kScheme.size()) != 0 ||
      authorization[kScheme.size()] != ' ') {
    return std::nullopt;
  }
  std::string_view token = authorization.substr(kScheme.size());
  token.remove_prefix(std::min(token.size(), token.find_first_not_of(' ')));
  if (token.empty()) return std::nullopt;
  return token;
}

}  // namespace pacer
