// See sent_writer.h.
#include "engine/sent_writer.h"

namespace pacer::engine {

void SentWriter::write(const Connection* written) {
  writing_ = true;
  while (exchange_.has_sent()) {
    if (!exchange_.take_sent(sent_)) {
      for (const auto& c : pool_.all()) {
        if (c->state == Connection::State::kOpen && !pool_.held(*c)) (void)transport_.flush(*c);
      }
      continue;
    }
    // The common case after a fill: only `written`, which its caller wrote.
    if (sent_.size() != 1 || sent_.front() != written) {
      for (Connection* c : sent_) {
        // One that failed since it was given its request is reconnecting: nothing to write.
        if (c != written && c->state == Connection::State::kOpen) (void)transport_.flush(*c);
      }
    }
    written = nullptr;  // a second pass: c may have been given another request
  }
  writing_ = false;
}

}  // namespace pacer::engine
