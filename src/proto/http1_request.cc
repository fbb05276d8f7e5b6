#include "proto/http1_request.h"

#include <strings.h>

#include <algorithm>

namespace pacer::proto {

namespace {

bool has_header(const std::vector<Header>& headers, const char* name) {
  return std::any_of(headers.begin(), headers.end(),
                     [name](const Header& h) { return strcasecmp(h.name.c_str(), name) == 0; });
}

void append_header(std::string& out, const std::string& name, const std::string& value) {
  out += name;
  out += ": ";
  out += value;
  out += "\r\n";
}

}  // namespace

std::string build_request(const Config& config) { return build_request(config, command_line_request(config)); }

std::string build_request(const Config& config, const RequestTarget& request) {
  const std::vector<Header>& headers = request.headers;
  std::string out;
  out.reserve(256 + (request.body ? request.body->size() : 0));
  out += request.method;
  out += ' ';
  // Through a forwarding proxy (--proxy on http://): the absolute form (RFC 9112 section 3.2.2).
  if (config.proxy && !config.proxy->tunnel) out += "http://" + config.target.host_header();
  out += request.path;
  out += " HTTP/1.1\r\n";
  if (!has_header(headers, "Host")) append_header(out, "Host", config.target.host_header());
  for (const Header& h : headers) append_header(out, h.name, h.value);
  if (request.body && !has_header(headers, "Content-Length")) {
    append_header(out, "Content-Length", std::to_string(request.body->size()));
  }
  if (!config.keep_alive && !has_header(headers, "Connection")) append_header(out, "Connection", "close");
  out += "\r\n";
  if (request.body) out += *request.body;
  return out;
}

RequestTarget command_line_request(const Config& config) {
  RequestTarget r;
  r.method = config.method;
  r.path = config.target.path;
  r.headers = config.headers;
  r.body = config.body;
  return r;
}

RequestTarget with_command_line(const Config& config, const RequestTarget& target) {
  RequestTarget r = target;
  r.headers.clear();
  for (const Header& h : config.headers) {
    if (!has_header(target.headers, h.name.c_str())) r.headers.push_back(h);
  }
  r.headers.insert(r.headers.end(), target.headers.begin(), target.headers.end());
  if (!r.body) r.body = config.body;
  return r;
}

}  // namespace pacer::proto
