// The worker event loop: accept, dispatch events, fire timers, freeze. See worker.h.
#include "server/worker.h"

#include <fmt/format.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

namespace pacer::server {
namespace {

constexpr int kMaxEvents = 256;
constexpr std::size_t kReservedTimers = 4096;
constexpr std::size_t kReservedAgain = 1024;
constexpr std::size_t kReservedArrivals = std::size_t{1} << 20;
// epoll tags: connections use their own address; the listening socket uses null.
constexpr void* kListenTag = nullptr;

}  // namespace

Connection* ConnectionPool::acquire() {
  if (free_.empty()) {
    all_.push_back(std::make_unique<Connection>());
    return all_.back().get();
  }
  Connection* connection = free_.back();
  free_.pop_back();
  return connection;
}

void ConnectionPool::release(Connection* connection) { free_.push_back(connection); }

Worker::Worker(int index, SharedState& shared, int listen_fd) : index_(index), shared_(shared), listen_fd_(listen_fd) {}

Status Worker::init() {
  epoll_fd_.reset(::epoll_create1(EPOLL_CLOEXEC));
  if (!epoll_fd_.valid()) return runtime_error(fmt::format("epoll_create1: {}", std::strerror(errno)));
  wake_fd_.reset(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
  if (!wake_fd_.valid()) return runtime_error(fmt::format("eventfd: {}", std::strerror(errno)));
  epoll_event listen_event{};
  listen_event.events = EPOLLIN | EPOLLEXCLUSIVE;
  listen_event.data.ptr = kListenTag;
  if (::epoll_ctl(epoll_fd_.get(), EPOLL_CTL_ADD, listen_fd_, &listen_event) != 0) {
    return runtime_error(fmt::format("epoll_ctl (listening socket): {}", std::strerror(errno)));
  }
  epoll_event wake_event{};
  wake_event.events = EPOLLIN;
  wake_event.data.ptr = this;
  if (::epoll_ctl(epoll_fd_.get(), EPOLL_CTL_ADD, wake_fd_.get(), &wake_event) != 0) {
    return runtime_error(fmt::format("epoll_ctl (eventfd): {}", std::strerror(errno)));
  }
  timers_.reserve(kReservedTimers);
  again_.reserve(kReservedAgain);
  again_running_.reserve(kReservedAgain);
  if (!shared_.config.log_arrivals_path.empty()) arrivals_.reserve(kReservedArrivals);
  return Ok{};
}

void Worker::wake() {
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t ignored = ::write(wake_fd_.get(), &one, sizeof one);
}

void Worker::run() {
  // A reply due at t goes out at t, not up to 50 us later (the default slack):
  // /delay/MS and /pool/W/MS are measured to the microsecond.
  ::prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  std::array<epoll_event, kMaxEvents> events{};
  LoopContext ctx{shared_,
                  shared_.counters[static_cast<std::size_t>(index_)],
                  *shared_.path_counts[static_cast<std::size_t>(index_)],
                  timers_,
                  again_,
                  shared_.config.log_arrivals_path.empty() ? nullptr : &arrivals_,
                  wake_fd_.get(),
                  monotonic_now_ns()};
  while (!shared_.stop_requested.load(std::memory_order_acquire)) {
    const int ready = event_wait_.wait(epoll_fd_.get(), events.data(), kMaxEvents, wait_timeout_ns());
    if (shared_.stop_requested.load(std::memory_order_acquire)) break;
    // Inside a freeze window nothing is processed until it ends; events queue up.
    ctx.now_ns = shared_.wait_out_freeze(monotonic_now_ns(), wake_fd_.get());
    if (shared_.stop_requested.load(std::memory_order_acquire)) break;
    for (int i = 0; i < ready; ++i) {
      void* tag = events[static_cast<std::size_t>(i)].data.ptr;
      if (tag == kListenTag) {
        accept_connection(ctx);
      } else if (tag != this) {  // `this` tags the eventfd: only stop writes it
        auto* connection = static_cast<Connection*>(tag);
        const bool was_open = !connection->is_closed();
        connection->on_event(events[static_cast<std::size_t>(i)].events, ctx);
        recycle_if_closed(connection, was_open);
      }
    }
    fire_timers(ctx);
    run_again_list(ctx);
  }
}

// One connection per wake-up, so the other workers woken by EPOLLEXCLUSIVE (or the
// next wake-up of this one) take the rest and connections spread across threads.
void Worker::accept_connection(LoopContext& ctx) {
  const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (fd < 0) return;  // EAGAIN: another worker took it; other errors retry on the next wake-up
  UniqueFd socket(fd);
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  Connection* connection = pool_.acquire();
  connection->open(std::move(socket), ctx);
  epoll_event event{};
  event.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
  event.data.ptr = connection;
  if (::epoll_ctl(epoll_fd_.get(), EPOLL_CTL_ADD, fd, &event) != 0) {
    connection->close(ctx);
    pool_.release(connection);
  }
}

void Worker::fire_timers(LoopContext& ctx) {
  while (!timers_.empty() && timers_.top().due_ns <= ctx.now_ns) {
    const ConnectionRef target = timers_.top().target;
    timers_.pop();
    const bool was_open = !target.connection->is_closed();
    target.connection->on_timer(target.generation, ctx);
    recycle_if_closed(target.connection, was_open);
  }
}

void Worker::run_again_list(LoopContext& ctx) {
  again_running_.swap(again_);  // turns run now may queue themselves again for the next round
  for (const ConnectionRef& target : again_running_) {
    const bool was_open = !target.connection->is_closed();
    target.connection->resume(target.generation, ctx);
    recycle_if_closed(target.connection, was_open);
  }
  again_running_.clear();
}

TimeNs Worker::wait_timeout_ns() const {
  if (!again_.empty()) return 0;
  if (timers_.empty()) return -1;
  // A fresh reading: the wake-up's clock is stale by however long its work took.
  // The kernel sleeps at least this long and fire_timers compares with the clock
  // read after the wake-up, so a timer never fires early.
  return std::max<TimeNs>(timers_.top().due_ns - monotonic_now_ns(), 0);
}

void Worker::recycle_if_closed(Connection* connection, bool was_open) {
  if (was_open && connection->is_closed()) pool_.release(connection);
}

}  // namespace pacer::server
