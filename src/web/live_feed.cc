// The main thread -> web thread hand-off; see the header.
#include "web/live_feed.h"

#include <sys/eventfd.h>
#include <unistd.h>

namespace pacer::web {

LiveFeed::LiveFeed()
    : report_(std::make_shared<const std::string>("{}")), wake_(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {}

void LiveFeed::publish_interval(std::string json) { push_event(FeedEvent{{}, std::move(json)}); }

void LiveFeed::push_event(FeedEvent event) {
  auto shared = std::make_shared<const FeedEvent>(std::move(event));
  {
    std::lock_guard lock(mutex_);
    history_bytes_ += shared->json.size();
    history_.push_back(std::move(shared));
    while (history_bytes_ > kHistoryMaxBytes && history_.size() > 1) {
      history_bytes_ -= history_.front()->json.size();
      history_.pop_front();
      ++begin_seq_;
    }
  }
  wake();
}

void LiveFeed::publish_search(std::string json) {
  replace_search(json);
  push_event(FeedEvent{"search", std::move(json)});
}

void LiveFeed::replace_search(std::string json) {
  auto doc = std::make_shared<const std::string>(std::move(json));
  std::lock_guard lock(mutex_);
  search_ = std::move(doc);
}

std::shared_ptr<const std::string> LiveFeed::search() const {
  std::lock_guard lock(mutex_);
  return search_;
}

void LiveFeed::publish_report(std::string json) {
  auto report = std::make_shared<const std::string>(std::move(json));
  {
    std::lock_guard lock(mutex_);
    report_ = std::move(report);
  }
  wake();
}

void LiveFeed::publish_final(std::string json) {
  auto report = std::make_shared<const std::string>(std::move(json));
  {
    std::lock_guard lock(mutex_);
    report_ = std::move(report);
    finished_ = true;
  }
  wake();
}

void LiveFeed::publish_metrics(std::string text, std::string openmetrics) {
  auto pages = std::make_shared<const MetricsPages>(MetricsPages{std::move(text), std::move(openmetrics)});
  std::lock_guard lock(mutex_);
  metrics_ = std::move(pages);
}

std::shared_ptr<const LiveFeed::MetricsPages> LiveFeed::metrics() const {
  std::lock_guard lock(mutex_);
  return metrics_;
}

std::uint64_t LiveFeed::begin_seq() const {
  std::lock_guard lock(mutex_);
  return begin_seq_;
}

std::uint64_t LiveFeed::end_seq() const {
  std::lock_guard lock(mutex_);
  return begin_seq_ + history_.size();
}

std::shared_ptr<const FeedEvent> LiveFeed::event(std::uint64_t seq) const {
  std::lock_guard lock(mutex_);
  if (seq < begin_seq_ || seq >= begin_seq_ + history_.size()) return nullptr;
  return history_[static_cast<std::size_t>(seq - begin_seq_)];
}

LiveFeed::ReportState LiveFeed::report_state() const {
  std::lock_guard lock(mutex_);
  return {report_, finished_};
}

bool LiveFeed::finished() const {
  std::lock_guard lock(mutex_);
  return finished_;
}

void LiveFeed::wake() const {
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = ::write(wake_.get(), &one, sizeof one);
}

void LiveFeed::drain_wake() const {
  std::uint64_t count = 0;
  [[maybe_unused]] const ssize_t n = ::read(wake_.get(), &count, sizeof count);
}

void LiveFeed::lend_steering(LoadSteering* steering) {
  std::lock_guard lock(steering_mutex_);
  steering_ = steering;
}

std::optional<Status> LiveFeed::steer(const std::function<Status(LoadSteering&)>& change) const {
  std::lock_guard lock(steering_mutex_);
  if (steering_ == nullptr) return std::nullopt;
  return change(*steering_);
}

std::optional<std::string> LiveFeed::steering_state() const {
  std::lock_guard lock(steering_mutex_);
  if (steering_ == nullptr) return std::nullopt;
  return steering_->state_json();
}

}  // namespace pacer::web
