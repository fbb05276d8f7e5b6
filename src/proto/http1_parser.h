// Streaming HTTP/1.1 response parser over llhttp. It keeps no copy of the bytes it
// is fed (views only), so a connection needs no receive buffer of its own: the
// worker reads into one shared buffer and feeds it here. One parser per
// connection; owned and touched by that connection's worker thread only.
//
// Invariant: every final (non-1xx) response is matched to one outstanding request
// in send order; bytes that start a response nobody asked for are a parse error.
//
// Known head: a load test gets the same response over and over, and parsing its
// head is most of a client's per-response work. After llhttp has parsed a whole
// keep-alive response framed by Content-Length, its head bytes are kept; a later
// response (not to HEAD) whose head is byte for byte the same parses the same,
// so it is matched with one memcmp and its body skipped by count. Anything else
// (a new Date header, another length, chunked, an error) goes to llhttp. The kept
// head (KnownHead) is shared by the parsers of one worker's connections. Only a
// head llhttp accepted (and that passed the checks below) is ever kept.
//
// Checks beyond llhttp's: the status code is three digits in 100-599 (llhttp takes
// "20", "000" or "0200"); a 101 Switching Protocols is an error (pacer asks for no
// upgrade, and after a 101 the bytes are not HTTP/1.1); a response head longer than
// kMaxHeadBytes is an error (llhttp keeps nothing, so an endless head would
// otherwise be read until the timeout). Each is a parse error naming the rule.
#pragma once

#include <llhttp.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "proto/llhttp_pool.h"
#include "proto/response_inspect.h"

namespace pacer::proto {

// One cap on what a capture holds. Past it, the response is a parse error
// whose reason is `reason` (set by the capture's owner: it names the cap and
// its option).
struct CaptureCap {
  std::size_t max = SIZE_MAX;
  std::string reason = "response too large to capture";
};

// The headers and body of the response being parsed, copied out of the read
// buffer: only for a connection whose parser was given one (a script that
// defines response()). Cleared at the start of each response. The caps bound
// its memory whatever the server sends (endless headers, an endless body).
struct ResponseCapture {
  std::string fields;  // "name\0value\0" per header, in order
  std::string body;
  std::size_t header_count = 0;
  CaptureCap max_headers;       // header_count
  CaptureCap max_header_bytes;  // fields.size(): names, values and their separators
  CaptureCap max_body_bytes;    // body.size()
  bool keep_body = true;        // false: the headers only (a scenario's cookie jar reads Set-Cookie)
};

// Calls each(name, value) for every whole header in a capture's `fields`
// ("name\0value\0", the names as the server wrote them), in order, until each
// returns false.
template <typename Each>
void for_each_captured_field(std::string_view fields, Each&& each) {
  while (!fields.empty()) {
    const std::size_t name_end = fields.find('\0');
    const std::size_t value_end = fields.find('\0', name_end + 1);
    if (value_end == std::string_view::npos) return;
    if (!each(fields.substr(0, name_end), fields.substr(name_end + 1, value_end - name_end - 1))) return;
    fields.remove_prefix(value_end + 1);
  }
}

// The head of the last response llhttp parsed whole that qualified (see above).
// One per worker thread, shared by its connections' parsers; 0.5 KB.
struct KnownHead {
  static constexpr std::size_t kMaxBytes = 512;  // longer heads are always parsed by llhttp
  std::array<char, kMaxBytes> bytes{};
  std::size_t length = 0;  // 0: none yet
  std::size_t body = 0;    // its Content-Length
  int status = 0;
  std::string_view server;  // its Server header's value: a view into `bytes` ("" when none)
};

// The value of header `name` (lower case) in a whole response head (its lines
// after the status line), its surrounding spaces trimmed; "" when absent.
std::string_view find_header(std::string_view head, std::string_view name);

class ResponseParser {
 public:
  // Called once per final response, in order, from inside feed() or finish().
  // keep_alive: the server allows another request on this connection.
  using OnComplete = void (*)(void* context, int status_code, bool keep_alive);
  // Called at the first byte of every response (interim ones too), from inside
  // feed(), before its OnComplete; the oldest outstanding request is its request.
  using OnBegin = void (*)(void* context);

  static constexpr int kMaxOutstanding = 64;  // pipelined requests per connection
  // The longest response head accepted, status line to blank line (Chromium's cap).
  // With a capture whose header-bytes cap is higher, the head may be that cap plus
  // kHeadFramingBytes (for the status line, separators and line ends), so that a
  // script's raised cap is the one that applies.
  static constexpr std::size_t kMaxHeadBytes = 256 * 1024;
  static constexpr std::size_t kHeadFramingBytes = 64 * 1024;
  std::size_t max_head_bytes() const { return max_head_bytes_; }

  // known: where repeated heads are kept and looked up (outlives the parser);
  // nullptr: every response is parsed by llhttp. parsers: where llhttp's state
  // is borrowed from for a response llhttp reads and given back at its end (the
  // worker's, outlives the parser); nullptr: allocated and freed each time.
  ResponseParser(OnComplete on_complete, void* context, KnownHead* known = nullptr, LlhttpPool* parsers = nullptr);
  ResponseParser(const ResponseParser&) = delete;
  ResponseParser& operator=(const ResponseParser&) = delete;

  // Forgets all state: for a new connection.
  void reset();

  // From the next reset() on, copies every response's headers and body into
  // capture (owned by the caller, outliving the parser), readable from the
  // OnComplete callback. nullptr (the default) copies nothing.
  void set_capture(ResponseCapture* capture) { capture_ = capture; }
  const ResponseCapture* capture() const { return capture_; }

  // From the next reset() on, hands each response's Location and
  // Content-Encoding headers and its body to `inspect` (outliving the parser);
  // a response it reads (ResponseInspect::reads) never becomes the known head.
  // nullptr (the default): nothing.
  void set_inspect(ResponseInspect* inspect) { inspect_ = inspect; }
  ResponseInspect* inspect() const { return inspect_; }

  // From the next reset() on, keeps each response's Server header (ab's
  // "Server Software"), readable from the OnComplete callback (server()).
  // Costs header callbacks on responses llhttp parses; off by default. The
  // header's buffer is made when a Server header comes and freed by
  // keep_server(false): every connection a worker opens before its first
  // response keeps the header, and a buffer each from the start would be
  // 0.5 MB at -c10000.
  void keep_server(bool keep) {
    keep_server_ = keep;
    if (!keep) server_.reset();
  }
  // Inside OnComplete: the completed response's Server header (keep_server:
  // "" when it had none; without keep_server, ""), and its body's length on the
  // wire (chunked: the chunks' data; a HEAD's or a 204's: 0).
  std::string_view server() const;
  std::uint64_t body_bytes() const { return body_bytes_; }

  // Time to first byte: on_begin is called at each response's first byte (null: never).
  void set_on_begin(OnBegin on_begin) { on_begin_ = on_begin; }

  // One request was written; is_head: its response carries no body. Returns false
  // if kMaxOutstanding requests are already outstanding.
  bool expect(bool is_head);
  int outstanding() const { return outstanding_; }

  // True when some bytes of a response have been seen but it is not complete.
  bool mid_response() const { return in_message_; }

  // Responses completed by the known-head match since the last reset (for tests).
  std::uint64_t known_head_matches() const { return known_matches_; }

  // Parses the next bytes. Returns false on malformed input; the connection must
  // then be closed (its outstanding requests are lost).
  bool feed(const char* data, std::size_t len);

  // The peer closed the connection. Completes a body delimited by close; returns
  // false if a response was cut short.
  bool finish();

  // Why the last feed()/finish() failed (valid until the next call on this parser
  // or, for a reason naming a value, until the next such call on this thread).
  const char* error_reason() const;

 private:
  static int on_message_begin(llhttp_t* parser);
  static int on_headers_complete(llhttp_t* parser);
  int end_undecodable(llhttp_t* parser);
  static int on_message_complete(llhttp_t* parser);
  static int on_header_field(llhttp_t* parser, const char* at, std::size_t length);
  static int on_header_value(llhttp_t* parser, const char* at, std::size_t length);
  static int on_field_complete(llhttp_t* parser);
  static int on_value_complete(llhttp_t* parser);
  // The Server header's name, matched piece by piece (keep_server).
  void match_server_name(const char* at, std::size_t length);
  // Appends to a capture, or fails the parse with cap's reason if it would pass it.
  int capture_bytes(std::string& into, const CaptureCap& cap, const char* at, std::size_t length);
  static int on_body(llhttp_t* parser, const char* at, std::size_t length);
  static const llhttp_settings_t& settings();
  static const llhttp_settings_t& capturing_settings();
  // The llhttp state of the response llhttp is in, borrowed (and initialised:
  // the callbacks this parser's capture, inspection and Server header need) at
  // its first byte; give_back() at its end or a reset.
  llhttp_t& llhttp();
  void give_back();

  // The known head: whether the bytes at p start with it (and a response is due).
  bool starts_with_known_head(const char* p, const char* end) const;
  // After llhttp completed the response [start, stop): keeps its head if it qualifies.
  void learn_head(const char* start, const char* stop);
  // Skips up to `available` bytes of a known response's body; completes it at its end.
  std::size_t skip_known_body(std::size_t available);
  void complete(int status, bool keep_alive);
  // Follows the status line of the response starting in llhttp's next bytes until its
  // code has ended; false (with error_reason_) if the code is not three digits.
  bool scan_status_code(const char* p, const char* end);
  bool fail(const char* reason);
  bool fail_head_too_long();

  // Ordered by size, leaving no padding: every HTTP/1.1 connection holds one.
  std::unique_ptr<llhttp_t> llhttp_;  // held from a response's first byte llhttp reads to its end
  LlhttpPool* parsers_;
  OnComplete on_complete_;
  OnBegin on_begin_ = nullptr;
  void* context_;
  ResponseCapture* capture_ = nullptr;
  ResponseInspect* inspect_ = nullptr;
  std::uint64_t head_bits_ = 0;  // bit i: the i-th oldest outstanding request is HEAD
  std::size_t head_bytes_ = 0;   // bytes of the head llhttp is in, fed so far (see feed())
  std::size_t max_head_bytes_ = kMaxHeadBytes;  // set by reset() (see kMaxHeadBytes)
  // A reason that names a value: error_reason_ points at reason_format_ (a printf
  // format taking reason_value_), formatted by error_reason() in a buffer of the
  // thread's, so that every connection's parser does not carry one.
  const char* reason_format_ = nullptr;
  long long reason_value_ = 0;
  KnownHead* known_;
  std::unique_ptr<std::string> server_;  // keep_server: the Server header llhttp read last (made when one comes)
  std::uint64_t body_bytes_ = 0;     // of the response in progress (or just completed)
  std::size_t known_body_left_ = 0;  // of the known response in progress
  std::uint64_t known_matches_ = 0;
  const char* error_reason_ = "";
  std::uint16_t known_status_ = 0;   // of the known response in progress (100-599)
  std::uint8_t outstanding_ = 0;     // at most kMaxOutstanding
  std::uint8_t status_digits_ = 0;   // the scan ends at the fourth (scan_status_code)
  std::uint8_t status_line_bytes_ = 0;  // the scan ends past kMaxVersionBytes (17 at most)
  // The status line of the response llhttp reads now: before the code, in it, or past it.
  enum class StatusScan : std::uint8_t { kDone, kVersion, kCode };
  StatusScan status_scan_ = StatusScan::kDone;
  bool in_message_ = false;
  bool in_head_ = false;         // llhttp is between a response's first byte and its blank line
  bool closed_ = false;          // a response said the connection closes: what follows is ignored
  bool learn_ = false;           // the response llhttp completed last may become the known head
  bool keep_server_ = false;     // keep_server(): header callbacks from the next reset() on
  bool from_known_ = false;      // the response completed last matched the known head
  std::uint8_t server_name_ = 0;  // bytes of "server" matched in the header name so far (7: not it)
};

}  // namespace pacer::proto
