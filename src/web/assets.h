// The live page's files (HTML, JavaScript, CSS), embedded in the binary at
// build time: nothing is read from disk or fetched from another host at run
// time. Any thread.
#pragma once

#include <string_view>

namespace pacer::web {

struct Asset {
  std::string_view content_type;
  std::string_view bytes;
};

// The file served at `path` ("/" is the page), or null.
const Asset* find_asset(std::string_view path);

}  // namespace pacer::web
