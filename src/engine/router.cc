// See router.h.
#include "engine/router.h"

namespace pacer::engine {

void Router::opened(Connection& c) {
  exchange_.opened(c);
  ready(c);
  // What the server sent while the start gate held c (HTTP/2's SETTINGS, a server
  // that speaks first), read after the session's start as it would have been.
  if (c.state == Connection::State::kOpen && ReadBudget::kept(c) && transport_.read(c, 0)) ready(c);
}

void Router::closing(Connection& c) {
  exchange_.abandon(c);
  driver_->forget(c);
  budget_.forget(c);
}

}  // namespace pacer::engine
