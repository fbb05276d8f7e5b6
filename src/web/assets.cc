// The live page's files: web/live.html, live.js, search.js, live.css, and the HTML
// report's chart module, page scripts (report.js, capacity.js) and style with
// uPlot, all embedded by the build (web/assets.cmake, html::embedded_asset).
// Served by name at the root.
#include "web/assets.h"

#include <array>

#include "html/assets.h"

namespace pacer::web {

namespace {

struct Served {
  std::string_view path;
  std::string_view file;  // in web/ or uPlot's dist/
  std::string_view content_type;
};

constexpr std::array<Served, 10> kServed{{
    {"/", "live.html", "text/html; charset=utf-8"},
    {"/live.js", "live.js", "text/javascript; charset=utf-8"},
    {"/search.js", "search.js", "text/javascript; charset=utf-8"},
    {"/capacity.js", "capacity.js", "text/javascript; charset=utf-8"},
    {"/live.css", "live.css", "text/css; charset=utf-8"},
    {"/charts.js", "charts.js", "text/javascript; charset=utf-8"},
    {"/report.js", "report.js", "text/javascript; charset=utf-8"},
    {"/report.css", "report.css", "text/css; charset=utf-8"},
    {"/uPlot.iife.min.js", "uPlot.iife.min.js", "text/javascript; charset=utf-8"},
    {"/uPlot.min.css", "uPlot.min.css", "text/css; charset=utf-8"},
}};

// Looked up once: the embedded bytes do not change.
std::array<Asset, kServed.size()> make_assets() {
  std::array<Asset, kServed.size()> out{};
  for (std::size_t i = 0; i < kServed.size(); ++i) out[i] = {kServed[i].content_type, html::embedded_asset(kServed[i].file)};
  return out;
}

}  // namespace

const Asset* find_asset(std::string_view path) {
  static const std::array<Asset, kServed.size()> assets = make_assets();
  for (std::size_t i = 0; i < kServed.size(); ++i) {
    if (kServed[i].path == path) return &assets[i];
  }
  return nullptr;
}

}  // namespace pacer::web
