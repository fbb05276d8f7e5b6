#include "proto/http1_request.h"

#include <strings.h>

#include <algorithm>

namespace pacer::proto {

namespace {

bool has_header(const Config& config, const char* name) {
  return std::any_of(config.headers.begin(), config.headers.end(),
                     [name](const Header& h) { return strcasecmp(h.name.c_str(), name) == 0; });
}

void append_header(std::string& out, const std::string& name, const std::string& value) {
  out += name;
  out += ": ";
  out += value;
  out += "\r\n";
}

}  // namespace

std::string build_request(const Config& config) {
  std::string out;
  out.reserve(256 + (config.body ? config.body->size() : 0));
  out += config.method;
  out += ' ';
  out += config.target.path;
  out += " HTTP/1.1\r\n";
  if (!has_header(config, "Host")) append_header(out, "Host", config.target.host_header());
  for (const Header& h : config.headers) append_header(out, h.name, h.value);
  if (config.body && !has_header(config, "Content-Length")) {
    append_header(out, "Content-Length", std::to_string(config.body->size()));
  }
  if (!config.keep_alive && !has_header(config, "Connection")) append_header(out, "Connection", "close");
  out += "\r\n";
  if (config.body) out += *config.body;
  return out;
}

}  // namespace pacer::proto
