#include "proto/http2_request.h"

#include <strings.h>

#include <algorithm>
#include <array>
#include <cctype>

#include "proto/http1_request.h"

namespace pacer::proto {

namespace {

bool is_connection_specific(const std::string& name) {
  constexpr std::array<const char*, 5> kForbidden{"connection", "keep-alive", "proxy-connection",
                                                   "transfer-encoding", "upgrade"};
  return std::any_of(kForbidden.begin(), kForbidden.end(),
                     [&name](const char* f) { return strcasecmp(name.c_str(), f) == 0; });
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

}  // namespace

Http2Request::Http2Request(const Config& config) : Http2Request(config, command_line_request(config)) {}

Http2Request::Http2Request(const Config& config, const RequestTarget& request) {
  std::string authority = config.target.host_header();
  bool has_length = false;
  for (const Header& h : request.headers) {
    if (strcasecmp(h.name.c_str(), "host") == 0) authority = h.value;
    if (strcasecmp(h.name.c_str(), "content-length") == 0) has_length = true;
  }
  names_ = {":method", ":scheme", ":authority", ":path"};
  values_ = {request.method, config.target.is_tls() ? "https" : "http", authority, request.path};
  for (const Header& h : request.headers) {
    if (is_connection_specific(h.name) || strcasecmp(h.name.c_str(), "host") == 0) continue;
    names_.push_back(lower(h.name));
    values_.push_back(h.value);
  }
  if (request.body) {
    has_body_ = true;
    body_ = *request.body;
    if (!has_length) {
      names_.emplace_back("content-length");
      values_.push_back(std::to_string(body_.size()));
    }
  }
  // The strings are final now: their buffers no longer move.
  nv_.reserve(names_.size());
  for (std::size_t i = 0; i < names_.size(); ++i) {
    nghttp2_nv nv{};
    nv.name = reinterpret_cast<std::uint8_t*>(names_[i].data());
    nv.namelen = names_[i].size();
    nv.value = reinterpret_cast<std::uint8_t*>(values_[i].data());
    nv.valuelen = values_[i].size();
    nv.flags = NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE;
    nv_.push_back(nv);
  }
}

}  // namespace pacer::proto
