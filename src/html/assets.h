// The browser assets built into pacer (web/assets.cmake embeds them at build time):
// uPlot (uPlot.iife.min.js, uPlot.min.css, from npm), and the project's own
// charts.js, report.js, capacity.js and report.css. Read-only static data; any thread.
#pragma once

#include <string_view>

namespace pacer::html {

// The bytes of the embedded file with this name (its file name in web/ or in uPlot's
// dist/), or an empty view when there is none.
std::string_view embedded_asset(std::string_view name);

}  // namespace pacer::html
