// The capacity search's pages (src/html/report_files.h): the document embedded as
// given (or, for two, the comparison built around them), the title, and the
// refusal of what is not a capacity search's document.
#include "html/report_files.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

namespace pacer::html {
namespace {

// A temporary file's path, removed with the object.
class TempFile {
 public:
  TempFile() {
    char name[] = "/tmp/pacer_page_XXXXXX.html";
    const int fd = ::mkstemps(name, 5);
    if (fd >= 0) ::close(fd);
    path_ = name;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }
  std::string text() const {
    std::stringstream s;
    s << std::ifstream(path_).rdbuf();
    return s.str();
  }

 private:
  std::string path_;
};

// The JSON the page embeds (between the pacer-data element's tags).
nlohmann::json embedded(const std::string& page) {
  const std::string open = R"(<script type="application/json" id="pacer-data">)";
  const std::size_t from = page.find(open) + open.size();
  return nlohmann::json::parse(page.substr(from, page.find("</script>", from) - from));
}

const char* kSearch = R"({"schema":"pacer-capacity","version":1,"mode":"search","url":"http://h:8/a<b",)"
                      R"("answer":{"sentence":"holds at 1,000/s"},"steps":[]})";

TEST(CapacityPage, EmbedsTheDocumentAsGivenUnderTheURLsTitle) {
  TempFile page;
  ASSERT_TRUE(write_capacity_page(kSearch, page.path()));
  const std::string text = page.text();
  EXPECT_NE(text.find("<title>pacer: capacity of http://h:8/a&lt;b</title>"), std::string::npos);
  EXPECT_EQ(embedded(text), nlohmann::json::parse(kSearch));
}

TEST(CapacityPage, RefusesTextThatIsNotACapacitySearchsDocument) {
  TempFile page;
  const auto not_json = write_capacity_page("{\"schema\":", page.path());
  ASSERT_FALSE(not_json);
  EXPECT_EQ(not_json.error().kind, ErrorKind::kBadInput);
  const auto a_run = write_capacity_page(R"({"schema":"pacer-report"})", page.path());
  ASSERT_FALSE(a_run);
  EXPECT_NE(a_run.error().message.find("pacer-capacity"), std::string::npos);
}

TEST(CapacityComparePage, HoldsBothDocumentsNamedByTheirFiles) {
  TempFile page;
  const std::string candidate = R"({"schema":"pacer-capacity","version":1,"url":"http://h:8/","steps":[1]})";
  ASSERT_TRUE(write_capacity_compare_page(kSearch, candidate, "a.json", "b.json", page.path()));
  const std::string text = page.text();
  EXPECT_NE(text.find("<title>pacer: a.json vs b.json</title>"), std::string::npos);
  const nlohmann::json doc = embedded(text);
  EXPECT_EQ(doc["schema"], "pacer-capacity-compare");
  EXPECT_EQ(doc["version"], 1);
  EXPECT_EQ(doc["baseline"]["file"], "a.json");
  EXPECT_EQ(doc["baseline"]["doc"], nlohmann::json::parse(kSearch));
  EXPECT_EQ(doc["candidate"]["file"], "b.json");
  EXPECT_EQ(doc["candidate"]["doc"], nlohmann::json::parse(candidate));
}

TEST(CapacityComparePage, NamesTheSideThatIsNotACapacitySearch) {
  TempFile page;
  const auto written = write_capacity_compare_page(kSearch, R"({"schema":"pacer-report"})", "a.json", "run.json", page.path());
  ASSERT_FALSE(written);
  EXPECT_EQ(written.error().message.rfind("run.json: ", 0), 0u);
}

}  // namespace
}  // namespace pacer::html
