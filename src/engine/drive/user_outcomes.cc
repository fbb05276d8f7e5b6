// See user_outcomes.h.
#include "engine/drive/user_outcomes.h"

namespace pacer::engine {

UserOutcomes::UserOutcomes(Recorder& recorder, WireTap& tap, int users)
    : recorder_(recorder), tap_(tap), last_(static_cast<std::size_t>(users)) {}

void UserOutcomes::completed(int user, const RequestSlot& slot, int status, int connection) {
  last_[static_cast<std::size_t>(user)] = LastResponse{slot.name, slot.t_sched, status, connection};
}

void UserOutcomes::failed(int user, int connection) {
  LastResponse& last = last_[static_cast<std::size_t>(user)];
  last.status = 0;  // no response to call a success
  last.connection = connection;
}

void UserOutcomes::unsent(int user) {
  LastResponse& last = last_[static_cast<std::size_t>(user)];
  last.status = 0;
  last.connection = kNoRow;
}

void UserOutcomes::clear(int user) { last_[static_cast<std::size_t>(user)] = LastResponse{}; }

int UserOutcomes::log_index(int user) const {
  const int connection = last_[static_cast<std::size_t>(user)].connection;
  return connection == -1 ? user : connection;
}

bool UserOutcomes::mark_success(int user) {
  LastResponse& last = last_[static_cast<std::size_t>(user)];
  if (last.status < 400 || !recorder_.recorded(last.t_sched)) return false;
  tap_.accepted(log_index(user));  // its log row too
  recorder_.succeeded(last.name, last.status, last.t_sched);
  last.status = 0;  // once
  return true;
}

void UserOutcomes::checked(int user, std::string_view message) {
  if (const int row = log_index(user); row != kNoRow) tap_.checked(row, message);
}

}  // namespace pacer::engine
