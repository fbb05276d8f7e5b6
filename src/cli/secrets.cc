// See secrets.h.
#include "cli/secrets.h"

#include <strings.h>

#include <algorithm>

#include "proxy/proxy_url.h"

namespace pacer::cli {

namespace {

bool is_named(std::string_view name, std::string_view expected) {
  return name.size() == expected.size() && ::strncasecmp(name.data(), expected.data(), name.size()) == 0;
}

// "user:password" -> "user:***"; a value without ':' is all secret.
std::string hide_after_colon(std::string_view value) {
  const std::size_t colon = value.find(':');
  if (colon == std::string_view::npos) return std::string(kHiddenSecret);
  return std::string(value.substr(0, colon + 1)) + std::string(kHiddenSecret);
}

// "scheme://user:password@host/..." -> "scheme://user:***@host/...".
std::string hide_url_password(std::string_view url) {
  const std::size_t scheme = url.find("://");
  const std::size_t start = scheme == std::string_view::npos ? 0 : scheme + 3;
  const std::size_t end = url.find_first_of("/?#", start);
  const std::size_t at = url.substr(0, end).rfind('@');
  if (at == std::string_view::npos || at < start) return std::string(url);
  return std::string(url.substr(0, start)) + hide_after_colon(url.substr(start, at - start)) +
         std::string(url.substr(at));
}

// "Authorization: Basic ..." -> "Authorization: ***"; other headers unchanged.
std::string hide_credential_header(std::string_view header) {
  const std::size_t colon = header.find(':');
  std::string_view name = header.substr(0, colon);
  while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
  const bool secret = colon != std::string_view::npos &&
                      (is_named(name, "authorization") || is_named(name, "proxy-authorization") ||
                       is_named(name, "cookie"));
  return secret ? std::string(header.substr(0, colon + 1)) + " " + std::string(kHiddenSecret) : std::string(header);
}

// "a=1; b=2" -> "a=***; b=***"; "@FILE" names a file, not a secret.
std::string hide_cookie_values(std::string_view cookies) {
  if (cookies.starts_with('@')) return std::string(cookies);
  std::string out;
  for (std::size_t start = 0; start <= cookies.size();) {
    const std::size_t end = std::min(cookies.find(';', start), cookies.size());
    const std::string_view pair = cookies.substr(start, end - start);
    const std::size_t eq = pair.find('=');
    out += eq == std::string_view::npos ? std::string(pair) : std::string(pair.substr(0, eq + 1)) + std::string(kHiddenSecret);
    if (end < cookies.size()) out += ';';
    start = end + 1;
  }
  return out;
}

}  // namespace

std::string shown_value(std::string_view long_name, std::string_view value) {
  if (value.empty()) return {};
  const bool from_file = value.starts_with('@');  // @FILE: the secret stays in the file
  if (long_name == "proxy") {
    if (value.find('@') == std::string_view::npos) return std::string(value);
    auto url = proxy::parse_proxy_url(value);
    return url ? url->shown() : std::string(kHiddenSecret);
  }
  if (long_name == "user" || long_name == "proxy-user") return hide_after_colon(value);
  if (long_name == "prometheus-basic-auth") return from_file ? std::string(value) : hide_after_colon(value);
  if (long_name == "web-token" || long_name == "prometheus-bearer-token") {
    return from_file ? std::string(value) : std::string(kHiddenSecret);
  }
  if (long_name == "prometheus-remote-write") return hide_url_password(value);
  if (long_name == "header") return hide_credential_header(value);
  if (long_name == "cookie") return hide_cookie_values(value);
  return std::string(value);
}

std::vector<std::string> without_secrets(std::span<const std::string> args, std::span<const OptionSpec> specs) {
  std::vector<std::string> out(args.begin(), args.end());
  for (const ScannedOption& option : scan_options(args, specs, "").options) {
    const auto spec = std::find_if(specs.begin(), specs.end(), [&](const OptionSpec& s) { return s.id == option.id; });
    if (spec == specs.end() || option.arg_index >= out.size()) continue;
    const std::string shown = shown_value(spec->long_name, option.value);
    if (shown == option.value) continue;
    std::string& arg = out[option.arg_index];  // the value is the argument, or its end (-xURL, --user=a:b)
    arg = arg.substr(0, arg.size() - option.value.size()) + shown;
  }
  return out;
}

}  // namespace pacer::cli
