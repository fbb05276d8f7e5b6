// See user_port.h.
#include "engine/drive/user_port.h"

namespace pacer::engine {

UserPort::UserPort(const Parts& parts, scenario::Users& users)
    : p_(parts), users_(users) {}

void UserPort::send(int user) {
  Connection* c = connection_for(user);
  if (c == nullptr || !p_.connections.usable(*c)) return;  // sent once it opens (fill)
  send_request(*c);  // the worker writes it
}

void UserPort::send_request(Connection& c) {
  const int user = p_.connections.user_of(c);
  scenario::User& u = users_.user(user);
  if (u.state != scenario::User::State::kWantsSend || u.origin != p_.connections.origin_of(c) ||
      p_.exchange.free_capacity(c) == 0) {
    return;
  }
  if (p_.clock.draining && !p_.load.still_finishing(user)) return;
  Connection& own = p_.connections.own(user);  // the user's -n reservation is on its own connection, whichever origin it asks
  const bool open_model = p_.arrivals.has_value();
  if (!open_model && !p_.quota.claim(own, p_.clock.now, p_.shared.record_from_ns)) return;
  TimeNs t_sched = u.mark_ns;
  if (!send_from(p_.source, p_.exchange, c, t_sched)) return;
  if (!open_model) p_.quota.spend(own, p_.recorder.recorded(t_sched));
  p_.drought.request(p_.clock.now, users_.tasks_ended());
  users_.sent(user);
}

Connection* UserPort::connection_for(int user) {
  const scenario::User& u = users_.user(user);
  const scenario::Origin* origin = u.origin == 0 ? nullptr : &users_.requests().origins().at(u.origin);
  Connection* c = origin == nullptr ? &p_.connections.own(user) : p_.connections.for_request(user, u.origin, *origin);
  if (c == nullptr) {  // its host does not resolve (the reason is the run's first error if it came first)
    p_.recorder.connections().note_error(0, p_.connections.reason(u.origin).c_str());
    fail_unsent(user, &stats::ErrorCounts::connect, false);
  }
  return c;
}

void UserPort::fail_unsent(int user, ErrorField error, bool counted) {
  scenario::User& u = users_.user(user);
  if (!p_.arrivals) {  // a request all the same: it counts against -n
    Connection& own = p_.connections.own(user);
    if (!p_.quota.claim(own, p_.clock.now, p_.shared.record_from_ns)) return;  // -n reached: it waits, as any would
    p_.quota.spend(own, p_.recorder.recorded(u.mark_ns));
  }
  const bool recorded = p_.recorder.recorded(u.mark_ns);
  if (counted) {
    p_.recorder.failed_unsent(u.name, u.mark_ns, error);
  } else {
    p_.recorder.failed(u.name, u.mark_ns, error);
  }
  p_.outcomes.unsent(user);
  p_.drought.request(p_.clock.now, users_.tasks_ended());
  users_.sent(user);
  users_.on_failed(user, error_class_name(error), p_.clock.now, recorded);
}

void UserPort::give_up_task(TimeNs t_sched) {
  if (p_.arrivals && p_.recorder.recorded(t_sched)) p_.arrivals->give_up(t_sched);
}

void UserPort::release(int user) {
  // A request in flight is dropped: it was written (sent), and is neither a
  // response nor an error; its answer cannot reach the next user of the index.
  // Each connection's last request's outcome is final.
  p_.connections.release(user, [this](int index) { p_.exchange.tap().settle(index); });
  p_.outcomes.clear(user);
}

}  // namespace pacer::engine
