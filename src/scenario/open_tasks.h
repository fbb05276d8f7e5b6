// The open model's tasks (-R: tasks per second): an arriving task goes to a
// free user (the most recently freed), else waits in the backlog, its clock
// running, and a new user is created for each waiting task no user starting up
// will take (up to --max-users); a task that finds the backlog full, or waits
// longer than the engine's limit, is given up (Port::give_up_task). A user at a
// task boundary takes the oldest waiting task, or is free. One worker thread.
#pragma once

#include <cstddef>
#include <vector>

#include "core/clock.h"
#include "scenario/agenda.h"
#include "scenario/population.h"
#include "scenario/task_backlog.h"
#include "scenario/user.h"

namespace pacer::scenario {

class OpenTasks {
 public:
  // backlog: room for tasks waiting for a user (at least one).
  OpenTasks(std::size_t backlog, std::vector<User>& users, Agenda& agenda, Population& population);

  void prepare(Port& port) { port_ = &port; }
  // A task arrives, scheduled at t_sched.
  void start_task(TimeNs t_sched);
  // Tasks that waited in the backlog limit_ns or longer at now_ns are given up.
  void expire_backlog(TimeNs now_ns, TimeNs limit_ns);
  std::size_t backlog_size() const { return backlog_.size(); }
  // u is at a task boundary and goes on (through_start: it was through on_start
  // before this one): it takes the oldest waiting task, or is free (kIdle).
  void user_free(User& u, bool through_start);

 private:
  std::vector<User>& users_;
  Agenda& agenda_;
  Population& population_;
  Port* port_ = nullptr;
  TaskBacklog backlog_;
  std::vector<int> free_;  // idle users (a stack), room for all
  int starting_ = 0;       // created users not yet through on_start
};

}  // namespace pacer::scenario
