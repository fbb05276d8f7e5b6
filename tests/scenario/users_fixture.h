// The fixture of the scenario's unit tests: Users driven through a fake worker
// (Port) that records what the users asked of it, with the file written to a
// temporary file of its own.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../support/script_file.h"
#include "scenario/users.h"

namespace pacer::scenario {

class FakePort final : public Port {
 public:
  void connect(int user) override { connected.push_back(user); }
  void send(int user) override { sends.push_back(user); }
  TimeNs now() const override { return now_ns; }
  bool recorded(TimeNs) const override { return true; }
  void give_up_task(TimeNs) override { ++given_up; }
  bool mark_success(int user) override {
    successes.push_back(user);
    return takes_success;
  }
  void checked(int user, std::string_view message) override { checks.emplace_back(user, std::string(message)); }
  void release(int user) override { released.push_back(user); }
  std::vector<std::pair<int, std::string>> checks;
  std::vector<int> released;
  std::vector<int> successes;
  bool takes_success = false;
  std::vector<int> connected;
  std::vector<int> sends;
  TimeNs now_ns = 1'000'000'000;
  int given_up = 0;
};

class UsersTest : public ::testing::Test {
 protected:
  void load(const std::string& code, int users = 1, bool open = false) {
    // A file of its own (mkstemps): a name made from `this` was the same in two test
    // processes under ASan (its allocator's addresses are fixed), which ctest -j2
    // runs side by side, and one test then loaded the other's scenario.
    script_ = std::make_unique<pacer::testing::ScriptFile>(code);
    config_.scenario_path = script_->path();
    config_.target.host = "127.0.0.1";
    config_.target.port = 8080;
    config_.target.has_explicit_port = true;
    config_.target.url = "http://127.0.0.1:8080/";
    if (open) {
      config_.load_model = LoadModel::kConstant;
      config_.rate_per_s = 10;
    }
    users_ = std::make_unique<Users>(config_, 0, 1, users, 16);
    Status s = users_->prepare(port_);
    ASSERT_TRUE(s) << s.error().message;
  }

  // The request line of user i's pending request.
  std::string request_line(int i = 0) {
    const std::string_view bytes = users_->request_bytes(i);
    return std::string(bytes.substr(0, bytes.find("\r\n")));
  }
  // The worker sent user i's request; it answers with status at done_ns.
  void answer(int i, int status, TimeNs done_ns) {
    ASSERT_EQ(users_->user(i).state, User::State::kWantsSend);
    users_->sent(i);
    users_->on_response(i, status, done_ns, true);
    port_.now_ns = done_ns;
    users_->run_due(done_ns);
  }

  Config config_;
  std::unique_ptr<pacer::testing::ScriptFile> script_;
  FakePort port_;
  std::unique_ptr<Users> users_;
};

}  // namespace pacer::scenario
