// See user_tally.h.
#include "scenario/user_tally.h"

#include <algorithm>

namespace pacer::scenario {

UserTally::UserTally(stats::NameTable* names) : names_(names) {}

void UserTally::prepare(Port& port, const std::vector<std::string>& task_names, bool open_model,
                        std::size_t user_limit) {
  port_ = &port;
  stats_.active = true;
  stats_.open_model = open_model;
  stats_.user_limit = user_limit;
  for (const std::string& name : task_names) stats_.tasks.push_back(TaskRow{name});
  name_scratch_.reserve(256);
}

std::uint32_t UserTally::default_name(std::string_view method, std::string_view path, bool keep_query,
                                      std::string_view origin_prefix) {
  // pacer's grouping leaves the query string out ("GET /item?id=1" -> "GET /item");
  // Locust's (its request's path_url) keeps it, and so does pacer where Locust's files are asked for.
  name_scratch_.assign(method).append(" ").append(origin_prefix).append(keep_query ? path : path.substr(0, path.find('?')));
  return name_index(name_scratch_);
}

void UserTally::name_rows() {
  if (names_ == nullptr) return;
  for (std::size_t i = 0; i < stats_.names.size(); ++i) {
    stats_.names[i].name = stats::printable_name(names_->name(static_cast<stats::NameId>(i)));
  }
}

void UserTally::task_is(User& u, int task) {
  if (task >= 0 && static_cast<std::size_t>(task) < stats_.tasks.size()) u.task = task;
}

void UserTally::end_task(User& u) {
  u.in_task = false;
  // A slot whose task set was left before any of its tasks began has no row.
  if (u.task < 0 || !port_->recorded(u.task_start_ns)) return;
  TaskRow& row = stats_.tasks[static_cast<std::size_t>(u.task)];
  ++row.count;
  if (u.task_errors > 0) ++row.failures;
  row.duration.record(std::max<TimeNs>(0, u.mark_ns - u.task_start_ns));
}

void UserTally::count_request(User& u) {
  if (u.last_failed && u.in_task) ++u.task_errors;
  if (!u.last_recorded) return;
  NameRow& row = stats_.row(u.name);
  ++row.requests;
  if (u.last_failed) ++row.failed;
}

void UserTally::fail_last(User& u, std::string_view message) {
  if (u.in_task) ++u.task_errors;
  if (u.has_request && u.checked) return;  // one check failure per request
  u.checked = true;
  u.check_message.assign(message);  // the request's event says it (request_events.h)
  const std::uint32_t name = u.has_request ? u.name : name_index("(no request)");
  if (!port_->recorded(u.in_task ? u.task_start_ns : u.mark_ns)) return;
  ++stats_.check;
  if (u.has_request && u.last_failed) ++stats_.check_on_errors;
  NameRow& row = stats_.row(name);
  ++row.checks;
  if (u.has_request && u.last_failed) ++row.check_on_errors;
  stats_.note("check", names_ != nullptr ? names_->name(name) : std::string_view(row.name), message);
  if (u.has_request) port_->checked(u.index, message);
}

bool UserTally::succeed_last(User& u) {
  if (!u.has_request || !u.last_failed || u.status < 400) return false;  // no response, or not a failure
  u.last_failed = false;
  if (u.in_task && u.task_errors > 0) --u.task_errors;
  // The request's own counts move only with the run's (the recorder's), so that
  // every output says the same.
  if (u.last_recorded && port_->mark_success(u.index)) {
    NameRow& row = stats_.row(u.name);
    if (row.failed > 0) --row.failed;
  }
  return true;
}

void UserTally::script_error(User& u, std::string_view message, std::string_view hook) {
  const bool in_task = u.in_task && hook == "task" && u.task >= 0;
  if (u.in_task) ++u.task_errors;
  if (!port_->recorded(u.in_task ? u.task_start_ns : port_->now())) return;
  ++stats_.script;
  stats_.note("script", in_task ? std::string_view(stats_.tasks[static_cast<std::size_t>(u.task)].name) : hook, message);
}

}  // namespace pacer::scenario
