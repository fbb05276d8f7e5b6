// The hot path allocates nothing: a run of 10x more requests must not make
// more allocations than a short one (beyond a small constant). Global operator
// new is replaced here to count every allocation in the process (client and
// in-process server alike). A histogram allocates a chunk of counts the first time
// it records a value of that chunk's range (stats/histogram.h): at most once per
// chunk in its lifetime, however many requests follow, so those are counted
// apart (Histogram::chunk_allocations_total) and left out of the comparison.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <cstdlib>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "../support/gtlsserver.h"
#include "../support/loopback.h"
#include "../support/script_file.h"
#include "app/prometheus_output.h"
#include "engine/run.h"
#include "script/script_host.h"
#include "stats/histogram.h"

namespace {
std::atomic<long> g_allocations{0};
// The Prometheus test counts apart the allocations of the threads that are neither
// the main thread nor the push thread ("pacer-push", and what it starts): the
// workers' (and the in-process server's).
std::atomic<bool> g_count_by_thread{false};
std::atomic<long> g_other_thread_allocations{0};
bool on_main_or_push_thread() {
  if (gettid() == getpid()) return true;
  char name[16] = {};
  prctl(PR_GET_NAME, name);
  return std::strncmp(name, "pacer-push", 10) == 0;
}
}  // namespace

void* operator new(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (g_count_by_thread.load(std::memory_order_relaxed) && !on_main_or_push_thread()) {
    g_other_thread_allocations.fetch_add(1, std::memory_order_relaxed);
  }
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return operator new(size); }
// The nothrow forms too (std::stable_sort's temporary buffer takes one): left
// to the runtime, they pair its allocator with the free() below.
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(size == 0 ? 1 : size);
}
void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept { return operator new(size, tag); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace pacer {
namespace {

// interval_ns > 0: the workers also close intervals (as for the live view and
// --timeseries), handed to a sink that allocates nothing itself. script_path:
// empty for no script; the script is loaded before counting starts (as the app
// does); its set-up is counted, like the engine's.
long allocations_for(Config c, std::uint64_t requests, TimeNs interval_ns = 0, const std::string& script_path = "") {
  c.script_path = script_path;
  std::unique_ptr<script::ScriptHost> host;
  if (!script_path.empty()) {
    auto loaded = script::ScriptHost::load(c);
    EXPECT_TRUE(loaded.ok());
    if (loaded.ok()) host = std::move(*loaded);
  }
  std::atomic<bool> stop{false};
  std::uint64_t intervals = 0;
  const engine::IntervalSink sink = [&intervals](const report::IntervalReport&) { ++intervals; };
  const long before = g_allocations.load();
  const long chunks_before = stats::Histogram::chunk_allocations_total();
  auto result = engine::run(c, stop, interval_ns, interval_ns > 0 ? sink : nullptr, nullptr, host.get());
  const long after = g_allocations.load();
  const long chunks = stats::Histogram::chunk_allocations_total() - chunks_before;
  EXPECT_TRUE(result.ok());
  if (result.ok()) EXPECT_EQ(result->counters.responses, requests);
  return after - before - chunks;
}

// The allocations of a run of 2,000 requests and of one of 20,000 (c's
// request_count is set here): set-up costs the same in both, so `large - small`
// is what 18,000 more requests allocated.
struct Runs {
  long small = 0;
  long large = 0;
};
Runs small_and_large(Config c, TimeNs interval_ns = 0, const std::string& script_path = "") {
  Runs r;
  c.request_count = 2'000;
  r.small = allocations_for(c, 2'000, interval_ns, script_path);
  c.request_count = 20'000;
  r.large = allocations_for(c, 20'000, interval_ns, script_path);
  return r;
}
std::ostream& operator<<(std::ostream& out, const Runs& r) {
  return out << r.small << " vs " << r.large << " allocations";
}

// -t2 -c8 against the loopback server's `path`.
Config run_config(server::Server& srv, const char* path, int pipeline = 1) {
  Config c = testing::config_for(srv, path);
  c.threads = 2;
  c.connections = 8;
  c.pipeline = pipeline;
  return c;
}

TEST(Allocations, RequestsAfterSetupAllocateNothing) {
  auto srv = testing::start_loopback_server(1);
  ASSERT_NE(srv, nullptr);
  for (const char* path : {"/", "/bytes/4096", "/chunked/9000"}) {
    const Runs runs = small_and_large(run_config(*srv, path));
    EXPECT_LT(runs.large - runs.small, 50) << path << ": " << runs;
  }
}

// Following pacer serve's /redirect (302 to /) builds each follow-up into
// the session's reserved buffers; --compressed inspects every head and body.
TEST(Allocations, FollowedRedirectsAndInspectedBodiesAllocateNothingPerRequest) {
  auto srv = testing::start_loopback_server(1);
  ASSERT_NE(srv, nullptr);
  for (const char* path : {"/redirect", "/bytes/4096"}) {
    Config c = run_config(*srv, path);
    c.follow_redirects = 2;
    c.compressed = true;
    c.headers.push_back({"Accept-Encoding", "gzip, deflate, br, zstd"});
    const Runs runs = small_and_large(c);
    EXPECT_LT(runs.large - runs.small, 50) << path << ": " << runs;
  }
}

TEST(Allocations, ClosingIntervalsAllocatesNothing) {
  auto srv = testing::start_loopback_server(1);
  ASSERT_NE(srv, nullptr);
  // 1 ms intervals: the longer run closes many more of them.
  const Runs runs = small_and_large(run_config(*srv, "/"), kNsPerMs);
  EXPECT_LT(runs.large - runs.small, 50) << runs;
}

TEST(Allocations, PipelinedRequestsAfterSetupAllocateNothing) {
  auto srv = testing::start_loopback_server(1);
  ASSERT_NE(srv, nullptr);
  const Runs runs = small_and_large(run_config(*srv, "/", 8));
  EXPECT_LT(runs.large - runs.small, 50) << runs;
}

// pacer serve's /pool/W/MS allocates its pool's ring at the pool's first request
// (in the short run) and nothing per request after it. 32 connections keep its 64
// workers of 1 ms half busy.
TEST(Allocations, PoolRouteRequestsAllocateNothingAfterThePoolsFirst) {
  auto srv = testing::start_loopback_server(1);
  ASSERT_NE(srv, nullptr);
  Config c = run_config(*srv, "/pool/64/1");
  c.connections = 32;
  const Runs runs = small_and_large(c);
  EXPECT_LT(runs.large - runs.small, 50) << runs;
}

// --targets: ten different requests (paths, a header, a body), each order,
// pipelined or not, with per-name intervals: choosing and recording a target
// per request allocates nothing.
std::vector<RequestTarget> ten_targets() {
  std::vector<RequestTarget> out;
  for (int i = 0; i < 10; ++i) {
    RequestTarget t;
    t.method = i % 3 == 0 ? "POST" : "GET";
    t.path = i % 2 == 0 ? "/bytes/" + std::to_string(100 * i) : "/?id=" + std::to_string(i);
    t.headers.push_back({"X-Target", std::to_string(i)});
    if (t.method == "POST") t.body = std::string(static_cast<std::size_t>(10 + i), 'b');
    if (i == 4) t.name = "four";
    t.weight = static_cast<std::uint32_t>(1 + i);
    out.push_back(std::move(t));
  }
  return out;
}

TEST(Allocations, TargetsAfterSetupAllocateNothing) {
  auto srv = testing::start_loopback_server(1);
  ASSERT_NE(srv, nullptr);
  for (const TargetsOrder order : {TargetsOrder::kRoundRobin, TargetsOrder::kRandom, TargetsOrder::kWeighted}) {
    for (const int pipeline : {1, 8}) {
      Config c = run_config(*srv, "/", pipeline);
      c.targets = ten_targets();
      c.targets_path = "ten.txt";
      c.targets_order = order;
      const Runs runs = small_and_large(c, kNsPerMs);
      EXPECT_LT(runs.large - runs.small, 50) << "order " << static_cast<int>(order) << ", pipeline " << pipeline
                                             << ": " << runs;
    }
  }
}

// A script naming its requests (request()'s second value): a name is looked up
// without allocating once it is in the table.
TEST(Allocations, NamedScriptRequestsAllocateNothingOnTheCppSidePerRequest) {
  auto srv = testing::start_loopback_server(1);
  ASSERT_NE(srv, nullptr);
  testing::ScriptFile file(
      "local reqs = {wrk.format(nil, '/a'), wrk.format(nil, '/b'), wrk.format(nil, '/c')}\n"
      "local names = {'alpha', 'beta', 'gamma'}\n"
      "local i = 0\n"
      "function request() i = i % 3 + 1; return reqs[i], names[i] end\n");
  const Runs runs = small_and_large(run_config(*srv, "/"), 0, file.path());
  EXPECT_LT(runs.large - runs.small, 50) << runs;
}

// nghttpd (Debian nghttp2-server) as a child process on a free port, for h2c.
class Nghttpd {
 public:
  Nghttpd() {
    port_ = testing::free_loopback_port(SOCK_STREAM);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGTERM);  // an aborted test leaves no server behind
      const std::string port = std::to_string(port_);
      ::execl("/usr/sbin/nghttpd", "nghttpd", "--no-tls", "-d", "/usr/share/doc", port.c_str(), nullptr);
      ::_exit(127);
    }
    for (int i = 0; i < 500 && !accepts(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ~Nghttpd() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  Nghttpd(const Nghttpd&) = delete;
  Nghttpd& operator=(const Nghttpd&) = delete;
  bool accepts() const {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port_);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    ::close(fd);
    return ok;
  }
  std::uint16_t port() const { return port_; }

 private:
  std::uint16_t port_ = 0;
  pid_t pid_ = -1;
};

// nghttp2's own allocations go through the worker's H2Memory pool (malloc, after
// a warm-up only from its free lists: tests/proto/http2_session_test.cc checks
// that); what is counted here is everything else the h2c path might allocate.
TEST(Allocations, Http2RequestsAfterSetupAllocateNothing) {
  if (::access("/usr/sbin/nghttpd", X_OK) != 0) GTEST_SKIP() << "nghttpd (nghttp2-server) is not installed";
  Nghttpd server;
  ASSERT_TRUE(server.accepts());
  Config c;
  c.target.scheme = "http";
  c.target.host = "127.0.0.1";
  c.target.port = server.port();
  c.target.path = "/nonexistent";  // a small 404 from nghttpd
  c.target.url = "http://127.0.0.1:" + std::to_string(server.port()) + c.target.path;
  c.threads = 1;
  c.connections = 2;
  c.http2 = true;
  c.streams = 8;
  const Runs runs = small_and_large(c);
  EXPECT_LT(runs.large - runs.small, 50) << runs;
  // --targets over HTTP/2: each stream takes its target's header list.
  c.targets = ten_targets();
  c.targets_path = "ten.txt";
  c.targets_order = TargetsOrder::kWeighted;
  const Runs targets = small_and_large(c);
  EXPECT_LT(targets.large - targets.small, 50) << targets;
}

// --http3 against gtlsserver: ngtcp2's and nghttp3's allocations go through the
// worker's pool (tests/quic/http3_session_test.cc checks that it stops growing);
// what is counted here is everything else of the QUIC path (GnuTLS's per-connection
// set-up happens in both runs alike).
TEST(Allocations, Http3RequestsAfterSetupAllocateNothing) {
  if (!testing::gtlsserver_installed()) GTEST_SKIP() << "gtlsserver (ngtcp2-server) is not installed";
  testing::TlsFiles files;
  ASSERT_TRUE(files.ok);
  testing::Gtlsserver server(files);
  ASSERT_TRUE(server.running());
  Config c;
  c.target.scheme = "https";
  c.target.host = "127.0.0.1";
  c.target.port = static_cast<std::uint16_t>(server.port());
  c.target.has_explicit_port = true;
  c.target.path = "/index.html";
  c.target.url = "https://127.0.0.1:" + std::to_string(server.port()) + c.target.path;
  c.tls_ca_file = files.cert;
  c.threads = 1;
  c.connections = 2;
  c.http3 = true;
  c.streams = 8;
  const Runs runs = small_and_large(c);
  EXPECT_LT(runs.large - runs.small, 50) << runs;
}

// A script that only sets wrk.method, wrk.body and wrk.headers is built once:
// per request it costs what no script costs.
TEST(Allocations, StaticScriptAllocatesNothingPerRequest) {
  auto srv = testing::start_loopback_server(1);
  ASSERT_NE(srv, nullptr);
  testing::ScriptFile file(
      "wrk.method = 'POST'\nwrk.body = '{\"a\":1}'\nwrk.headers['Content-Type'] = 'application/json'\n");
  const Runs runs = small_and_large(run_config(*srv, "/echo"), 0, file.path());
  EXPECT_LT(runs.large - runs.small, 50) << runs;
}

// With request() and response(), Lua allocates in its own heap; the C++ side
// (request and capture buffers) reuses its capacity.
TEST(Allocations, ScriptHooksAllocateNothingOnTheCppSidePerRequest) {
  auto srv = testing::start_loopback_server(1);
  ASSERT_NE(srv, nullptr);
  testing::ScriptFile file(
      "local req = wrk.format(nil, '/bytes/300')\n"
      "function request(conn) return req end\n"
      "function response(status, headers, body, conn) conn.last = status end\n");
  const Runs runs = small_and_large(run_config(*srv, "/"), 0, file.path());
  EXPECT_LT(runs.large - runs.small, 50) << runs;
}

// Scenarios (issue 16): a user's requests are built into its own buffer and
// named by index; Lua allocates its strings and response tables in its own heap.
Config scenario_config(server::Server& srv, const std::string& scenario_path) {
  Config c = run_config(srv, "/");
  c.users = 8;
  c.scenario_path = scenario_path;
  return c;
}

TEST(Allocations, ScenarioTasksAllocateNothingOnTheCppSidePerRequest) {
  auto srv = testing::start_loopback_server(1);
  ASSERT_NE(srv, nullptr);
  testing::ScriptFile file(
      "return { tasks = {\n"
      "  {3, function(u) u:get('/', {['X-A'] = 'b'}, 'home') end},\n"
      "  {1, function(u) local r = u:post('/echo', 'abc'); if r.status ~= 200 then u:fail('x') end end},\n"
      "} }\n");
  const Runs runs = small_and_large(scenario_config(*srv, file.path()));
  EXPECT_LT(runs.large - runs.small, 50) << runs;
}

// Reading headers and bodies: the parser copies them into the user's capture
// (capacity reused); the Lua strings and the decoded JSON are Lua's.
TEST(Allocations, ScenarioReadingBodiesAllocatesNothingOnTheCppSidePerRequest) {
  auto srv = testing::start_loopback_server(1);
  ASSERT_NE(srv, nullptr);
  testing::ScriptFile file(
      "return { tasks = { {1, function(u)\n"
      "  local r = u:post('/api/login', '{}', nil, 'login')\n"
      "  if r:json().token ~= 'pacer-token-1' or r.headers['content-type'] == nil then u:fail(r.body) end\n"
      "end} } }\n");
  const Runs runs = small_and_large(scenario_config(*srv, file.path()));
  EXPECT_LT(runs.large - runs.small, 50) << runs;
}

// --log-requests and --trace: rows are formatted into each worker's buffer,
// written whole when it fills; the traced exchanges (a few) copy their bytes.
TEST(Allocations, RequestLogAndTraceAllocateNothingPerRequest) {
  auto srv = testing::start_loopback_server(1);
  ASSERT_NE(srv, nullptr);
  char dir[] = "/tmp/pacer-alloc-log-XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  Config c = run_config(*srv, "/");
  c.request_log.path = std::string(dir) + "/requests.csv";
  c.trace_exchanges = 2;
  const int saved_stderr = ::dup(STDERR_FILENO);  // the trace's two exchanges go nowhere
  const int null_fd = ::open("/dev/null", O_WRONLY);
  ::dup2(null_fd, STDERR_FILENO);
  const Runs runs = small_and_large(c);
  ::dup2(saved_stderr, STDERR_FILENO);
  ::close(saved_stderr);
  ::close(null_fd);
  ::unlink(c.request_log.path.c_str());
  ::rmdir(dir);
  EXPECT_LT(runs.large - runs.small, 50) << runs;
}

// The cookie jar (docs/scenarios.md, "Cookies"): each user logs in once (a Set-Cookie stored),
// then every request carries the cookie and every /session/login answer sets it
// again to the same value: a steady state where no cookie changes allocates
// nothing (the jar's strings and the request buffer keep their capacity).
TEST(Allocations, ScenarioCookieJarAllocatesNothingPerRequestWhenNoCookieChanges) {
  auto srv = testing::start_loopback_server(1);
  ASSERT_NE(srv, nullptr);
  testing::ScriptFile file(
      "local user = {}\n"
      "function user.on_start(u) u:post('/session/login', '', nil, 'login') end\n"
      "user.tasks = {\n"
      "  {3, function(u) u:get('/session/page', nil, 'page') end},\n"
      "  {1, function(u) u:post('/session/login', '', nil, 'login') end},\n"
      "}\n"
      "return user\n");
  Config c = scenario_config(*srv, file.path());
  c.headers.push_back({"Cookie", "static=1"});  // --cookie's, joined with the jar's
  const Runs runs = small_and_large(c);
  EXPECT_LT(runs.large - runs.small, 50) << runs;
}

// --prometheus-remote-write to a receiver that is not there: the exporter builds
// its series and bodies on the main thread every interval and the push thread
// retries and drops them, while the workers (counted alone here) allocate
// nothing for it, however many requests they send.
struct WorkerCounts {
  long allocations = 0;        // on the workers' threads (and the in-process server's)
  long histogram_chunks = 0;   // first touches of a histogram range, on any thread
};
WorkerCounts worker_allocations_with_prometheus(Config c, std::uint64_t requests) {
  c.request_count = requests;
  c.prometheus.remote_write_url = "http://127.0.0.1:9/api/v1/write";  // discard port: nothing listens
  c.prometheus.timeout_ns = 100 * kNsPerMs;
  app::PrometheusOutput exporter(c, "alloc-test", nullptr);
  const engine::IntervalSink sink = [&exporter](const report::IntervalReport& interval) {
    exporter.on_interval(interval);
  };
  std::atomic<bool> stop{false};
  const long chunks_before = stats::Histogram::chunk_allocations_total();
  const long before = g_other_thread_allocations.load();
  g_count_by_thread = true;
  auto result = engine::run(c, stop, 10 * kNsPerMs, sink);
  g_count_by_thread = false;
  const long after = g_other_thread_allocations.load();
  const long chunks = stats::Histogram::chunk_allocations_total() - chunks_before;
  EXPECT_TRUE(result.ok());
  if (!result.ok()) return {};
  EXPECT_EQ(result->counters.responses, requests);
  const auto pushed = exporter.finish(*result);
  EXPECT_TRUE(pushed.has_value());
  if (pushed) EXPECT_GT(pushed->pushes, 0u);
  return {after - before, chunks};
}

TEST(Allocations, PrometheusRemoteWriteAllocatesNothingOnTheWorkersThreads) {
  auto srv = testing::start_loopback_server(1);
  ASSERT_NE(srv, nullptr);
  const WorkerCounts small = worker_allocations_with_prometheus(run_config(*srv, "/"), 2'000);
  const WorkerCounts large = worker_allocations_with_prometheus(run_config(*srv, "/"), 20'000);
  EXPECT_GT(small.allocations, 0) << "the workers' set-up allocates: the count must see their threads";
  // A histogram's first touch of a range allocates once (any thread): left out, as above.
  const long extra = (large.allocations - small.allocations) - std::max(0L, large.histogram_chunks - small.histogram_chunks);
  EXPECT_LT(extra, 50) << small.allocations << " vs " << large.allocations << " allocations on the workers' threads";
}

}  // namespace
}  // namespace pacer
