// The page's skeleton around the embedded assets and data; see html_page.h.
#include "html/html_page.h"

#include "html/assets.h"

namespace pacer::html {

namespace {

std::string escape_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace

std::string json_for_script(std::string_view json) {
  std::string out;
  out.reserve(json.size() + 64);
  for (char c : json) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out += c;
    }
  }
  return out;
}

std::string render_page(std::string_view title, std::string_view data_json) {
  std::string page;
  page.reserve(data_json.size() + 80 * 1024);
  page += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  page += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  // No request leaves the page: scripts and styles are inline, images only data: URLs.
  page += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n";
  page += "<title>" + escape_text(title) + "</title>\n<style>\n";
  page += embedded_asset("uPlot.min.css");
  page += "\n";
  page += embedded_asset("report.css");
  page += "</style>\n</head>\n<body>\n<main id=\"pacer-report\"></main>\n";
  page += "<script type=\"application/json\" id=\"pacer-data\">";
  page += json_for_script(data_json);
  page += "</script>\n<script>\n";
  page += embedded_asset("uPlot.iife.min.js");
  page += "\n</script>\n<script>\n";
  page += embedded_asset("charts.js");
  page += "\n</script>\n<script>\n";
  page += embedded_asset("capacity.js");  // before report.js, whose boot() hands it capacity documents
  page += "\n</script>\n<script>\n";
  page += embedded_asset("report.js");
  page += "\n</script>\n</body>\n</html>\n";
  return page;
}

}  // namespace pacer::html
