// The per-request log's rows of a scenario: held until the user's outcome for
// the request is final (a check failed on it, its status accepted), then written
// with the report's error class and the check's message.
#include "engine/record/request_log.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace pacer::engine {
namespace {

class RequestLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/pacer-request-log-XXXXXX";
    ASSERT_NE(::mkdtemp(dir), nullptr);
    dir_ = dir;
    config_.request_log.path = dir_ + "/log.csv";
  }
  void TearDown() override {
    ::unlink(config_.request_log.path.c_str());
    ::rmdir(dir_.c_str());
  }
  // The file's lines after the header, once finished.
  std::vector<std::string> rows(RequestLogFile& file) {
    EXPECT_TRUE(file.finish().ok());
    std::ifstream in(config_.request_log.path);
    std::vector<std::string> out;
    std::string line;
    std::getline(in, line);
    EXPECT_EQ(line.substr(line.rfind(',') + 1), "check") << line;
    while (std::getline(in, line)) out.push_back(line);
    return out;
  }
  static RequestRow row(int connection, int status, const char* error, std::string_view name) {
    RequestRow r;
    r.t_sched = r.t_send = 1'000;
    r.t_done = 2'000;
    r.status = status;
    r.error = error;
    r.name = name;
    r.connection = connection;
    return r;
  }
  // The error and check cells of a CSV row (after the name; the check is last).
  static std::string outcome(const std::string& line) {
    const std::size_t name_end = line.find("\",") + 2;
    const std::string error = line.substr(name_end, line.find(',', name_end) - name_end);
    return error + "|" + line.substr(line.rfind(',') + 1);
  }

  std::string dir_;
  Config config_;
};

TEST_F(RequestLogTest, AHeldRowTakesItsUsersCheckAndAcceptedStatusBeforeItIsWritten) {
  auto file = RequestLogFile::open(config_);
  ASSERT_TRUE(file.ok()) << file.error().message;
  RequestLog log(**file, 0);
  log.hold(row(0, 200, "", "checked"), 0);
  log.check(0, "always wrong");                  // a check on a response < 400: class `check`
  log.hold(row(1, 401, "status", "accepted"), 0);
  log.accept(1);                                  // u:success(): no error
  log.hold(row(2, 500, "status", "mixed"), 0);
  log.check(2, "on error");                       // the status stays its class, the check is beside it
  log.hold(row(0, 503, "status", "bad"), 0);      // connection 0's next request: the first is final
  log.check(3, "no row held here");               // nothing to change
  const std::vector<std::string> lines = rows(**file);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(outcome(lines[0]), "check|\"always wrong\"") << lines[0];
  // The rest are written at the end, by connection.
  EXPECT_EQ(outcome(lines[1]), "status|") << lines[1];
  EXPECT_EQ(outcome(lines[2]), "|") << lines[2];
  EXPECT_EQ(outcome(lines[3]), "status|\"on error\"") << lines[3];
}

TEST_F(RequestLogTest, AnAcceptedStatusThatACheckFailedIsACheck) {
  auto file = RequestLogFile::open(config_);
  ASSERT_TRUE(file.ok()) << file.error().message;
  RequestLog log(**file, 0);
  log.hold(row(0, 404, "status", "n"), 0);
  log.accept(0);
  log.check(0, "but the body was wrong");
  log.settle(0);
  log.settle(0);  // once
  const std::vector<std::string> lines = rows(**file);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(outcome(lines[0]), "check|\"but the body was wrong\"") << lines[0];
}

}  // namespace
}  // namespace pacer::engine
