// The live view of a capacity search (src/web/live_view.h): one page for every step,
// which only the search's end ends. Against its real server on a loopback port.
#include "web/live_view.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <cerrno>
#include <string>

#include <gtest/gtest.h>

#include "core/unique_fd.h"

namespace pacer::web {
namespace {

// GET path from the view on 127.0.0.1:port: the whole reply (the view closes after it).
std::string get(std::uint16_t port, const std::string& path) {
  UniqueFd fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval five{5, 0};
  setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &five, sizeof five);
  if (connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return "<connect failed>";
  const std::string request = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  if (send(fd.get(), request.data(), request.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(request.size())) {
    return "<send failed>";
  }
  std::string out;
  char buffer[4096];
  ssize_t n = 0;
  while ((n = recv(fd.get(), buffer, sizeof buffer, 0)) > 0 || (n < 0 && errno == EINTR)) {
    if (n > 0) out.append(buffer, static_cast<std::size_t>(n));
  }
  return out;
}

std::string body_of(const std::string& reply) { return reply.substr(reply.find("\r\n\r\n") + 4); }

std::uint16_t port_of(const LiveView& view) {
  const std::string url = view.url();  // http://127.0.0.1:PORT/
  return static_cast<std::uint16_t>(std::stoi(url.substr(url.rfind(':') + 1)));
}

class FixedRate final : public LoadSteering {
 public:
  Status set_users(const scenario::MixRequest&, std::optional<double>) override { return Ok{}; }
  Status set_rate(double) override { return Ok{}; }
  std::string_view load_kind() const override { return "rate"; }
  Result<double> reset_stats() override { return 0.0; }
  std::string state_json() const override { return "{}"; }
};

Config web_config() {
  Config config;
  config.web.enabled = true;
  config.web.port = 0;
  return config;
}

TEST(LiveView, AStepsEndIsNotTheSearchsEnd) {
  const Config config = web_config();
  auto view = LiveView::start(config, [] {});
  ASSERT_TRUE(view.ok());
  LiveView& page = **view;
  const std::uint16_t port = port_of(page);
  EXPECT_EQ(get(port, "/search.json").rfind("HTTP/1.1 404", 0), 0u);

  page.begin_search("{\"state\":\"running\",\"steps\":[]}");
  page.begin_run(config);
  page.finish("{\"step\":1}");
  EXPECT_FALSE(page.finished());
  const std::string report = get(port, "/report.json");
  EXPECT_EQ(body_of(report), "{\"step\":1}");  // the step's final report, as the report so far
  EXPECT_NE(report.find("X-Pacer-Run: running"), std::string::npos) << report;

  page.begin_run(config);  // the next step's report so far starts again
  EXPECT_NE(body_of(get(port, "/report.json")), "{\"step\":1}");

  page.finish_search("{\"state\":\"finished\"}", "{\"schema\":\"pacer-capacity\"}");
  EXPECT_TRUE(page.finished());
  EXPECT_EQ(body_of(get(port, "/report.json")), "{\"schema\":\"pacer-capacity\"}");
  const std::string search = get(port, "/search.json");
  EXPECT_EQ(body_of(search), "{\"state\":\"finished\"}");
  EXPECT_NE(search.find("X-Pacer-Run: finished"), std::string::npos) << search;
}

TEST(LiveView, ASearchsStepsLendNoRateToChange) {
  const Config config = web_config();
  auto view = LiveView::start(config, [] {});
  ASSERT_TRUE(view.ok());
  FixedRate steering;
  (*view)->begin_search("{}");
  (*view)->lend_steering(&steering);  // as a step's run does
  EXPECT_EQ(get(port_of(**view), "/rate").rfind("HTTP/1.1 404", 0), 0u);
  (*view)->lend_steering(nullptr);
}

TEST(LiveView, ARunsFinishEndsThePage) {
  const Config config = web_config();
  auto view = LiveView::start(config, [] {});
  ASSERT_TRUE(view.ok());
  (*view)->finish("{\"run\":1}");
  EXPECT_TRUE((*view)->finished());
}

}  // namespace
}  // namespace pacer::web
