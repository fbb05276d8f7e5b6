// Remote-write pushes on their own thread; see the header.
#include "prom/pusher.h"

#include <pthread.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <chrono>
#include <memory>
#include <string_view>

#include "prom/curl_api.h"
#include <fmt/format.h>

namespace pacer::prom {

namespace {

constexpr TimeNs kFirstBackoffNs = 100 * kNsPerMs;
constexpr TimeNs kMaxBackoffNs = 5 * kNsPerS;

enum class Outcome { kSent, kRetry, kRefused };

struct Attempt {
  Outcome outcome = Outcome::kRetry;
  TimeNs retry_after_ns = 0;  // a 429's or 503's Retry-After (seconds), 0 when none
  std::string error;
};

std::size_t discard_body(char*, std::size_t size, std::size_t count, void*) { return size * count; }

std::size_t read_retry_after(char* line, std::size_t size, std::size_t count, void* user) {
  const std::size_t n = size * count;
  constexpr std::string_view kName = "retry-after:";
  std::string_view field(line, n);
  if (field.size() > kName.size()) {
    std::string lower(field.substr(0, kName.size()));
    std::transform(lower.begin(), lower.end(), lower.begin(), [](char c) { return static_cast<char>(std::tolower(c)); });
    if (lower == kName) {
      const long seconds = std::strtol(std::string(field.substr(kName.size())).c_str(), nullptr, 10);
      if (seconds > 0) *static_cast<TimeNs*>(user) = std::min<TimeNs>(seconds, 60) * kNsPerS;
    }
  }
  return n;
}

// curl's progress callback: a non-zero return aborts the transfer.
int abort_if_asked(void* abort, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<const std::atomic<bool>*>(abort)->load() ? 1 : 0;
}

using CurlList = std::unique_ptr<curl_slist, void (*)(curl_slist*)>;

Attempt post_once(const CurlApi& api, CURL* curl, const PushTarget& target, const std::string& body, TimeNs timeout_ns,
                  const std::atomic<bool>& abort) {
  Attempt out;
  CurlList headers(nullptr, api.slist_free_all);
  const auto add = [&](const std::string& line) { headers.reset(api.slist_append(headers.release(), line.c_str())); };
  add("Content-Encoding: snappy");
  add("Content-Type: application/x-protobuf");
  add("X-Prometheus-Remote-Write-Version: 0.1.0");
  add("Expect:");  // no 100-continue round trip
  if (!target.bearer_token.empty()) add("Authorization: Bearer " + target.bearer_token);
  api.easy_setopt(curl, CURLOPT_URL, target.url.c_str());
  api.easy_setopt(curl, CURLOPT_HTTPHEADER, headers.get());
  api.easy_setopt(curl, CURLOPT_POST, 1L);
  api.easy_setopt(curl, CURLOPT_POSTFIELDS, body.data());
  api.easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  api.easy_setopt(curl, CURLOPT_USERAGENT, "pacer/" PACER_VERSION);
  api.easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  api.easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(std::max<TimeNs>(timeout_ns / kNsPerMs, 1)));
  api.easy_setopt(curl, CURLOPT_WRITEFUNCTION, &discard_body);
  api.easy_setopt(curl, CURLOPT_HEADERFUNCTION, &read_retry_after);
  api.easy_setopt(curl, CURLOPT_HEADERDATA, &out.retry_after_ns);
  api.easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  api.easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, &abort_if_asked);
  api.easy_setopt(curl, CURLOPT_XFERINFODATA, const_cast<std::atomic<bool>*>(&abort));
  if (!target.basic_auth.empty()) {
    api.easy_setopt(curl, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
    api.easy_setopt(curl, CURLOPT_USERPWD, target.basic_auth.c_str());
  }
  const CURLcode code = api.easy_perform(curl);
  api.easy_setopt(curl, CURLOPT_HTTPHEADER, nullptr);
  if (code != CURLE_OK) {
    out.error = api.easy_strerror(code);
    return out;
  }
  long status = 0;
  api.easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  if (status >= 200 && status < 300) {
    out.outcome = Outcome::kSent;
  } else {
    out.error = fmt::format("HTTP {}", status);
    // The spec: retry 5xx and 429, never another 4xx (the same body would fail again).
    out.outcome = status >= 500 || status == 429 ? Outcome::kRetry : Outcome::kRefused;
  }
  return out;
}

}  // namespace

RemoteWriter::RemoteWriter(PushTarget target, std::size_t capacity)
    : target_(std::move(target)), capacity_(std::max<std::size_t>(capacity, 1)) {
  api_ = curl_api(&load_error_);
  if (api_ != nullptr) api_->global_init(CURL_GLOBAL_DEFAULT);  // here, on the main thread: not thread-safe everywhere
  thread_ = std::thread([this] { loop(); });
}

RemoteWriter::~RemoteWriter() {
  finish(0);
  if (api_ != nullptr) api_->global_cleanup();
}

void RemoteWriter::push(std::string body) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    ++stats_.pushes;
    if (queue_.size() >= capacity_) {
      queue_.pop_front();  // the oldest waiting: the newer body carries its totals on
      ++stats_.dropped;
    }
    queue_.push_back(std::move(body));
  }
  wake_.notify_one();
}

PushStats RemoteWriter::finish(TimeNs flush_ns, const std::atomic<bool>* interrupt) {
  const bool already_interrupted = interrupt != nullptr && interrupt->load();
  {
    std::lock_guard lock(mutex_);
    if (!stopping_) {
      stopping_ = true;
      deadline_ns_ = monotonic_now_ns() + std::max<TimeNs>(flush_ns, 0);
    }
  }
  wake_.notify_one();
  // Only a stop that comes during the flush ends it (the run's own Ctrl-C does not).
  while (interrupt != nullptr && !already_interrupted && !done_.load()) {
    if (interrupt->load()) {
      abort_ = true;
      {
        std::lock_guard lock(mutex_);
        deadline_ns_ = monotonic_now_ns();
      }
      wake_.notify_one();
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (thread_.joinable()) thread_.join();
  return stats();
}

PushStats RemoteWriter::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

bool RemoteWriter::past_deadline() const { return stopping_ && monotonic_now_ns() >= deadline_ns_; }

void RemoteWriter::loop() {
  pthread_setname_np(pthread_self(), "pacer-push");
  std::unique_ptr<CURL, void (*)(CURL*)> curl(api_ != nullptr ? api_->easy_init() : nullptr,
                                               api_ != nullptr ? api_->easy_cleanup : [](CURL*) {});
  for (;;) {
    std::string body;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return !queue_.empty() || stopping_; });
      if (queue_.empty() || past_deadline()) {
        stats_.failed += queue_.size();  // unsent when the flush ran out of time
        if (!queue_.empty() && stats_.last_error.empty()) {
          stats_.last_error = "the final flush ran out of time (--prometheus-timeout)";
        }
        queue_.clear();
        done_ = true;
        return;
      }
      body = std::move(queue_.front());
      queue_.pop_front();
    }
    if (!curl) {
      std::lock_guard lock(mutex_);
      ++stats_.failed;
      stats_.last_error = api_ != nullptr ? "libcurl could not start" : load_error_;
      continue;
    }
    send_until_done(curl.get(), body);
  }
}

void RemoteWriter::send_until_done(void* http, const std::string& body) {
  TimeNs delay_ns = kFirstBackoffNs;
  for (;;) {
    TimeNs timeout_ns = target_.timeout_ns;
    {
      std::lock_guard lock(mutex_);
      if (stopping_) timeout_ns = std::min(timeout_ns, deadline_ns_ - monotonic_now_ns());
    }
    const Attempt attempt = timeout_ns > 0 ? post_once(*api_, static_cast<CURL*>(http), target_, body, timeout_ns, abort_)
                                           : Attempt{Outcome::kRetry, 0, "the final flush ran out of time"};
    std::unique_lock lock(mutex_);
    if (attempt.outcome == Outcome::kSent) {
      ++stats_.sent;
      return;
    }
    stats_.last_error = attempt.error;
    if (attempt.outcome == Outcome::kRefused || past_deadline()) {
      ++stats_.failed;
      return;
    }
    ++stats_.retries;
    const TimeNs resume_ns = monotonic_now_ns() + (attempt.retry_after_ns > 0 ? attempt.retry_after_ns : delay_ns);
    delay_ns = std::min(delay_ns * 2, kMaxBackoffNs);
    // Sleep until the backoff ends, or the flush deadline (finish() wakes us to see it).
    for (;;) {
      if (past_deadline()) {
        ++stats_.failed;
        return;
      }
      const TimeNs now = monotonic_now_ns();
      const TimeNs until = stopping_ ? std::min(resume_ns, deadline_ns_) : resume_ns;
      if (now >= until) break;
      wake_.wait_for(lock, std::chrono::nanoseconds(until - now));
    }
  }
}

}  // namespace pacer::prom
