// A scenario's users' last outcomes (issue 45): per user, its last request's
// name, due time, status and the connection it ended on, so that u:success()
// can count a status >= 400 a success (Recorder::succeeded) and u:fail() or
// u:success() reach the request's row in the per-request log (the wire tap holds
// each user's row until its outcome is final). Kept per user: user i's row is
// i's, cleared when the user stops. One worker thread.
#pragma once

#include <string_view>
#include <vector>

#include "engine/conn/connection.h"
#include "engine/record/recorder.h"
#include "engine/record/wire_tap.h"

namespace pacer::engine {

class UserOutcomes {
 public:
  // users: the worker's users (its own connections' count).
  UserOutcomes(Recorder& recorder, WireTap& tap, int users);

  // The user's request on connection `connection` ended with a response, or failed.
  void completed(int user, const RequestSlot& slot, int status, int connection);
  void failed(int user, int connection);
  // The user's request ended before it was sent: nothing to call a success, no log row.
  void unsent(int user);
  // The user stopped: a new user on its index starts with no last response.
  void clear(int user);
  // u:success() (scenario::Port::mark_success): its status >= 400, recorded,
  // counted a success once; true when it was.
  bool mark_success(int user);
  // u:fail(message): its request's log row learns it.
  void checked(int user, std::string_view message);

 private:
  // A user's last response.
  struct LastResponse {
    stats::NameId name = 0;
    TimeNs t_sched = 0;
    int status = 0;
    int connection = -1;  // the connection it ended on (its request-log row's); -1: the user's own; kNoRow: none
  };
  // The request-log row of the user's last request: its connection's held row;
  // kNoRow when it ended before it was sent (--log-requests logs what was sent).
  static constexpr int kNoRow = -2;
  int log_index(int user) const;

  Recorder& recorder_;
  WireTap& tap_;
  std::vector<LastResponse> last_;  // by user
};

}  // namespace pacer::engine
