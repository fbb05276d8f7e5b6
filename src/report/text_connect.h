// The text report's lines on how connections were made: the connect times and
// what they show (connections still opening in the measured time, first SYNs the
// server dropped), then the path (proxy, tunnel, source addresses, TLS).
#pragma once

#include <string>

#include "report/run_report.h"
#include "stats/histogram.h"

namespace pacer::report {

// "avg 1.20ms, p99 3.40ms, max 5.00ms" (the Connect, Tunnel and TLS setup lines).
std::string avg_p99_max(const stats::Histogram& h);

// Connect: its times, and the connect burst's lines under it, then Keep-alive:.
void append_connect_lines(std::string& out, const RunReport& r);

// Keep-alive: the connections the peer closed after a response that kept them
// open, and the requests sent again because of it (issue 43); nothing if none.
void append_keepalive_line(std::string& out, const RunReport& r);

// Proxy:, Tunnel:, Source:, TLS: (issue 33).
void append_path_lines(std::string& out, const RunReport& r);

}  // namespace pacer::report
