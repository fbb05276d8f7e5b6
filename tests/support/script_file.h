// Test support: a Lua script written to a temporary file (removed with the
// object), and a Config that runs it against a loopback target.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "core/config.h"

namespace pacer::testing {

class ScriptFile {
 public:
  explicit ScriptFile(const std::string& text) {
    char name[] = "/tmp/pacer_script_XXXXXX.lua";
    const int fd = ::mkstemps(name, 4);
    if (fd >= 0) ::close(fd);
    path_ = name;
    std::ofstream(path_) << text;
  }
  ~ScriptFile() { std::remove(path_.c_str()); }
  ScriptFile(const ScriptFile&) = delete;
  ScriptFile& operator=(const ScriptFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A config for the script at path against http://127.0.0.1:port/path.
inline Config script_config(const std::string& script_path, std::uint16_t port, const std::string& path = "/") {
  Config c;
  c.target.scheme = "http";
  c.target.host = "127.0.0.1";
  c.target.port = port;
  c.target.has_explicit_port = true;
  c.target.path = path;
  c.target.url = "http://127.0.0.1:" + std::to_string(port) + path;
  c.threads = 1;
  c.connections = 2;
  c.script_path = script_path;
  return c;
}

}  // namespace pacer::testing
