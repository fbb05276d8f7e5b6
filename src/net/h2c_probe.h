// --http2 on http:// speaks HTTP/2 by prior knowledge: the client's first bytes are
// the HTTP/2 connection preface. A server that speaks only HTTP/1.1 answers them
// with an HTTP/1.1 response (usually a 400) or closes. This probe, run once on the
// start-up connection before the load, tells the first case apart so that the run
// stops with that reason instead of counting read errors or timeouts.
// Main thread; blocking, bounded by its timeout.
#pragma once

#include "core/clock.h"

namespace pacer::net {

// Writes the HTTP/2 client preface (and an empty SETTINGS frame) on the connected,
// non-blocking socket fd and waits up to timeout_ns for the server's first bytes.
// True when they begin with "HTTP/1."; false for anything else (an HTTP/2 server's
// SETTINGS, silence, a close, an error): those the run itself will show. The
// connection is spent either way (its preface was sent): close it after.
bool answers_h2_preface_in_http1(int fd, TimeNs timeout_ns);

}  // namespace pacer::net
