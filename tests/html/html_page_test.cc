// The HTML page (src/html/html_page.h) and its embedded assets (web/, built in by
// web/assets.cmake): everything inline, nothing fetched, the data unbreakable.
#include "html/html_page.h"

#include <gtest/gtest.h>

#include <string>

#include "html/assets.h"

namespace pacer::html {
namespace {

TEST(HtmlAssets, EveryAssetIsEmbeddedWhole) {
  EXPECT_NE(embedded_asset("uPlot.iife.min.js").find("uPlot"), std::string_view::npos);
  EXPECT_NE(embedded_asset("uPlot.min.css").find(".uplot"), std::string_view::npos);
  EXPECT_NE(embedded_asset("charts.js").find("PacerCharts"), std::string_view::npos);
  EXPECT_NE(embedded_asset("report.js").find("PacerReport"), std::string_view::npos);
  EXPECT_NE(embedded_asset("capacity.js").find("PacerCapacity"), std::string_view::npos);
  EXPECT_NE(embedded_asset("report.css").find("@media print"), std::string_view::npos);
  EXPECT_TRUE(embedded_asset("no-such-file.js").empty());
  // A whole file: the last byte of charts.js (its closing line) is there.
  EXPECT_EQ(embedded_asset("charts.js").back(), '\n');
}

TEST(HtmlPage, HoldsTheDataAndEveryAssetInline) {
  const std::string page = render_page("pacer: http://x/", R"({"schema":"pacer-report"})");
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(page.find(R"(<script type="application/json" id="pacer-data">{"schema":"pacer-report"}</script>)"),
            std::string::npos);
  EXPECT_NE(page.find(std::string(embedded_asset("charts.js"))), std::string::npos);
  EXPECT_NE(page.find(std::string(embedded_asset("uPlot.iife.min.js"))), std::string::npos);
  // capacity.js before report.js, whose boot() hands it the capacity documents.
  EXPECT_LT(page.find(std::string(embedded_asset("capacity.js"))), page.find(std::string(embedded_asset("report.js"))));
  // Nothing that would make the browser ask another host.
  EXPECT_EQ(page.find("<script src"), std::string::npos);
  EXPECT_EQ(page.find("<link"), std::string::npos);
  EXPECT_EQ(page.find("@import"), std::string::npos);
  EXPECT_NE(page.find("default-src 'none'"), std::string::npos);
}

TEST(HtmlPage, ATextThatWouldCloseTheScriptStaysInsideTheData) {
  const std::string page = render_page("a </title><script>x", R"({"url":"http://h/</script><script>alert(1)</script>"})");
  EXPECT_EQ(page.find("</script><script>alert"), std::string::npos);
  EXPECT_NE(page.find(R"(http://h/\u003c/script>\u003cscript>alert(1)\u003c/script>)"), std::string::npos);
  EXPECT_NE(page.find("<title>a &lt;/title&gt;&lt;script&gt;x</title>"), std::string::npos);
}

TEST(HtmlPage, JsonForScriptChangesOnlyTheLessThanSign) {
  EXPECT_EQ(json_for_script(R"({"a":"<!--x-->","b":1})"), R"({"a":"\u003c!--x-->","b":1})");
}

}  // namespace
}  // namespace pacer::html
