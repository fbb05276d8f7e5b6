// The help texts and the version line. Plain constants: every line under 80
// columns (a test checks), every option with its default and meaning.
#include "cli/cli.h"

#include "cli/io_options.h"
#include "io/select.h"

#ifndef PACER_VERSION
#define PACER_VERSION "0.0.0"
#endif

namespace pacer::cli {

std::string usage() {
  return R"(Usage: pacer [options] URL [-- script args]
       pacer serve [options]
       pacer demo [options]
       pacer merge [options] FILE...
       pacer cert --out DIR [options]
       pacer report [options] RUN.json... -o report.html

  URL is http:// or https://, e.g. http://127.0.0.1:8080/index.html

Options (as wrk):                                             [default]
  -c, --connections N  connections to keep open, in total     [10]
  -d, --duration T     how long to record (after --warmup)    [10s]
  -t, --threads N      threads; never more than connections   [2]
  -H, --header "K: V"  add a request header (repeatable); pacer frames
                       the body itself, so Transfer-Encoding, or a
                       Content-Length other than the body's, is refused;
                       so are two Host headers
      --latency        print the latency distribution
      --timeout T      a response not complete T after the    [2s]
                       request was sent counts as a timeout; a
                       connect not done within T, as a connect
                       error; with -R, an arrival that waited T
                       for a free connection, as unsent
  -v, --version        print the version, the I/O engine and the
                       libraries it runs with, and exit
  -h, --help           print this help and exit

More options:
  -m, --method M       request method                         [GET]
  -b, --body B         request body (the method becomes POST unless -m
                       is given); @FILE sends a file's bytes, @- reads
                       standard input, @@x sends "@x"; sent as given,
                       with no Content-Type unless -H adds one
      --json BODY      a JSON body, as -b (@FILE, @-), with
                       Content-Type and Accept: application/json
                       unless -H gives them (POST unless -m)
      --cookie C       send cookies with every request: 'a=1; b=2', or
                       @FILE, a Netscape cookies.txt (curl's); joined
                       with -H's Cookie into one header (repeatable)
      --max-request-body SIZE
                       largest body @FILE or @- may give (-b or
                       --json); more is refused (a device that never
                       ends too)                              [64M]
  -n, --requests N     stop after N requests (each ends in a response or an
                       error); no time limit unless -d
      --disable-keepalive
                       a new connection for every request
      --warmup T       send for T before recording anything   [0]
      --no-record-timeouts
                       leave timeouts out of the latency histogram
                       (by default each is kept as a lower bound)
      --give-up T      end the run (exit 1) when not one connection
                       has been open for T             [10 x --timeout]
      --io ENGINE      I/O engine: auto (io_uring where the kernel
                       allows it, else epoll), uring, epoll; the
                       variable PACER_IO=uring|epoll sets auto [auto]
      --spin           workers poll instead of sleeping (a whole CPU
                       each): exact send times at low rates where a
                       sleeping thread wakes late (VMs, busy hosts)

Protocol:
      --http2          HTTP/2 (nghttp2): prior knowledge (h2c) on
                       http://, ALPN "h2" on https://
      --http3          HTTP/3 over QUIC (ngtcp2, nghttp3, GnuTLS):
                       https:// only, ALPN "h3", one UDP socket per
                       connection; certificates checked as for HTTPS
      --streams N      HTTP/2 or HTTP/3 requests in flight per
                       connection; -c stays connections, -R the total
                       rate  [1]
      --pipeline N     HTTP/1.1 requests written ahead on each
                       connection, answered in order (1..64)  [1]
      --unix-socket PATH
                       connect to this Unix domain socket instead of
                       TCP (HTTP/1.1, h2c); the URL gives Host and path
      --follow-redirects N
                       follow 301/302/303/307/308 up to N hops on the
                       URL's origin, same connection (303 and POST on
                       301/302 become GET); latency runs to the final
                       response
                                                        [off, as wrk]
      --compressed     ask for gzip, deflate, br, zstd and decode each
                       body; Decoded: beside the wire bytes     [off]

HTTPS (https:// URLs; OpenSSL, TLS 1.2 or 1.3; GnuTLS, TLS 1.3 with --http3):
  -k, --insecure       do not verify the server's certificate or name
      --cacert FILE    trust the CA certificates in FILE (PEM) instead
                       of the system's
      --cert FILE      present this client certificate (PEM)...
      --key FILE       ...with this private key (give both or neither)
      --no-tls-resume  a full handshake on every connect (by default
                       reconnects resume the last TLS session)
      --tls-min V, --tls-max V
                       TLS versions allowed: 1.2 or 1.3 (the report's
                       TLS: line says what was negotiated)
      --ciphers LIST   TLS 1.2 cipher list (OpenSSL syntax)
      --tls13-ciphers LIST
                       TLS 1.3 suites (TLS_AES_128_GCM_SHA256:...)
      --sni NAME       send NAME as SNI (the certificate is still
                       checked against the URL's host)
      --no-sni         send no SNI (the server's default certificate)

Connect path (docs/proxy.md):
  -x, --proxy URL      go through this HTTP proxy ([http://][user:pass@]
                       host[:port], port 1080 by default): http:// is
                       forwarded, https:// tunneled with CONNECT ('' :
                       none). Without it: http_proxy, HTTPS_PROXY,
                       ALL_PROXY as curl reads them
      --proxy-user USER:PASS
                       the proxy's credentials (Proxy-Authorization)
      --noproxy LIST   hosts that go direct (replaces NO_PROXY:
                       names with their subdomains, IPs, CIDR, '*')
      --user USER:PASS basic authentication on every request (a -H or a
                       request's own Authorization wins; -u is users)
  -B, --bind ADDRS     local source addresses, round-robin: one, a list
                       or a range (127.0.0.2-127.0.0.9, IPv6 too)

Open model (requests arrive on a schedule, whatever the server does):
  -R, --rate N         N requests/second in total; latency is measured
                       from when each request was due (no coordinated
                       omission); at most 10M per process (--shard)
  -R A:B               a linear ramp from A to B requests/second over -d
      --stages LIST    a piecewise-linear profile from 0, e.g.
                       30s:100,1m:1000,30s:0 (sets the duration)
      --arrival KIND   uniform or poisson (exponential gaps) [uniform]
      --seed N         random seed for poisson arrivals,     [1]
                       --targets-order random, pacer.random()
      --deadline T     shed a request still queued T after it was due
                       (counted as a deadline error, not sent)

Many endpoints (see docs/targets.md):
      --targets FILE   send the requests FILE lists (- for stdin):
                       vegeta's text ("METHOD URL", headers, @body)
                       or JSON Lines (url, method, header, body,
                       body_text, name, weight); paths resolve
                       against URL (optional then), one origin
      --targets-order O
                       round-robin, random (--seed) or weighted
                                                       [round-robin]
      --max-names N    request names kept for the Endpoints table;
                       more count under (other)               [1000]

Scripts (wrk's Lua API, on LuaJIT; see docs/scripting.md):
  -s, --script FILE    run FILE's setup/init/request/response/delay/done;
                       request() may return a name as a second value;
                       arguments after the URL (or after --) go to
                       init(args); what it prints goes to stdout, or
                       to stderr when stdout carries JSON
      --max-capture-headers N
                       most headers a response() is given; one more
                       makes the response a parse error       [100]
      --max-capture-header-bytes SIZE
                       most header bytes given to response()  [64k]
      --max-capture-body SIZE
                       most body bytes given to response()    [8M]
      --lua-memory SIZE
                       most memory one Lua state (a -s script's or a
                       scenario's, one per thread) may hold; past it
                       a Lua error "not enough memory"        [256M]

Scenarios (virtual users in Lua; see docs/scenarios.md):
      --scenario FILE  run FILE's user definition: each user a coroutine
                       with its own connection, weighted tasks, think
                       time, checks, a cookie jar (u.cookies);
                       arguments after the URL: pacer.args
  -u, --users N        closed model: virtual users             [-c]
      --spawn-rate R   closed model: users started per second  [all]
      --max-users N    open model (-R: tasks/second): users created
                       at most, as tasks need them             [10000]
                       closed model: the most users a load shape or
                       POST /users may ask for                 [-u]
      --stop-timeout T a user stopped by a lower count or the
                       run's end ends its task first, for at
                       most T (closed model)                   [0]
      --tags LIST      run only the tasks with one of these tags
      --exclude-tags LIST
                       leave out the tasks with one of these tags

Output:
      --format F       text (wrk's layout) or json               [text]
  -o, --output FILE    write the final report to FILE, atomically
                       (through a symlink to its target; a device or
                       FIFO in place); the text report still goes to
                       stdout. Every output path is checked first
      --hdr FILE       also write the latency distribution as .hgrm
                       (HdrHistogram's plotter format, milliseconds)
      --timeseries FILE
                       one NDJSON line per --interval (- for stdout;
                       the final report then goes to stderr)
      --timeseries-histogram
                       add each interval's HdrHistogram (V2, base64)
      --interval T     time-series and progress-line interval   [1s]
      --refresh T      how often the live view is redrawn     [100ms]
      --plain          no live view: progress lines every --interval
                       on stderr (the default when stdout is not a
                       terminal, or TERM=dumb); NO_COLOR turns off colour
      --html FILE      write the run as one self-contained HTML page
                       (charts, percentile plot, tables; no request to
                       any host), also on Ctrl-C; see pacer report
      --csv PREFIX     write PREFIX_stats.csv, PREFIX_history.csv and
                       PREFIX_failures.csv (Locust's columns)
      --csv-format F   pacer, or locust: Locust 2.x's four files, its
                       headers and rounding; a scenario's      [pacer]
                       default names keep their query string
      --csv-full-history
                       locust: a history row per name per interval
      --log-requests FILE
                       one row per request (due and send times,
                       latency, TTFB, status, bytes, name, error,
                       a scenario's failed check)
      --log-format F   csv or ndjson              [from the extension]
      --log-sample F   log a seeded share of the requests (0.1, 10%)
      --trace N        print the first N exchanges on stderr as curl -v
                       does (headers, 1 KiB of each body); -v stays
                       the version, as in wrk

Live web view (see docs/web.md):
      --web [ADDR]     serve a live page while the run goes: charts,
                       figures, a Stop button (ends the run as Ctrl-C);
                       /events (one JSON per --interval), /report.json,
                       POST /stop; a --capacity search's steps too
                       (/search.json). ADDR: HOST:PORT, :PORT
                                                      [127.0.0.1:8089]
      --web-token TOKEN
                       require TOKEN (?token= or Bearer) on every
                       request; any non-loopback ADDR needs one (else
                       one is generated and printed)
      --web-linger T   keep serving the final page for T after the run
                       (Ctrl-C ends it early)                     [0]

Prometheus (see docs/prometheus.md; --web also serves /metrics, the
text format or OpenMetrics, latency histograms bucketed 1us to 60s):
      --prometheus-remote-write URL
                       push the same series every --interval and at the
                       end (remote write 1.0; retried on 5xx/429; a full
                       queue drops pushes, counted in the report)
      --prometheus-label K=V
                       add a label to every series (repeatable)
      --prometheus-basic-auth USER:PASSWORD, --prometheus-bearer-token T
                       credentials for the push (@FILE reads them)
      --prometheus-timeout T
                       one push's limit, and the final flush's     [5s]
      --run-id ID      the run_id label (default: SLURM_JOB_ID's, else
                       random); give shards one id to sum them

Is it the client or the server? (see docs/output.md, "client", "server"):
      --client-busy-threshold PCT
                       a worker busy (not waiting for the network) this
                       share of the run is the bottleneck: the report
                       says the figures measure pacer               [90%]
      --server-pid PID sample a process on this machine every --interval
                       from /proc: CPU, RSS, threads, fds, context
                       switches (repeatable)
      --server-metrics URL
                       scrape a Prometheus text endpoint every --interval
                       (repeatable); counters become rates per second
      --server-metric NAME|REGEX
                       the series to keep (repeatable; default:
                       process_cpu_seconds_total,
                       process_resident_memory_bytes, process_open_fds)
      --server-metrics-timeout T
                       one scrape's limit (default: half an --interval,
                       at least 50ms, at most 2s)
      --repeat N       run the test N times; report each run and the
                       median, min, max and spread of the headline figures
      --repeat-pause T wait T between the runs                       [0]

How much can the server take? (docs/capacity.md):
      --capacity OBJECTIVE
                       find the highest rate meeting OBJECTIVE, e.g.
                       "p99<=50ms,errors<=0.1%,server_cpu<=80%": open-
                       model steps of -d (5s) after --warmup (1s),
                       doubling from -R (or half a closed-loop probe's
                       rate) until one breaks, then bisecting; prints
                       each step, the answer as a bracket and the curve
      --sweep RATES    run each rate once instead: 100,200,400 or
                       FROM:TO:STEP (with --capacity: judged by it)
      --step-repeat N  --capacity: run a rate near a limit up to N
                       times, held only if every run holds; --sweep:
                       run every rate N times         [3 search, 1 sweep]
      --capacity-precision PCT
                       stop when the bracket is this narrow      [3%]
      --capacity-budget T
                       the whole search's time, at most          [10m]

Many machines (merge the JSON reports with pacer merge):
      --shard i/N      run shard i (0..N-1) of N: 1/N of -c, -n, -R;
                       everything it prints is about its share
      --shard auto     i and N from the engine that started pacer: MPI,
                       Slurm (srun, job arrays); auto/N where the
                       engine gives only i (Kubernetes Indexed Job, Nomad)
      --start-at TIME  start the load at TIME (UTC, e.g.
                       2026-11-30T12:00:00Z, or Unix seconds), at
                       most 7 days ahead
      --check-args     check every option and load -s/--scenario's
                       file, print what would run and exit (0, or 2
                       for bad arguments); no connection
      --config FILE    settings from a TOML file of long option names
                       (and url); PACER_<OPTION> variables too. The
                       command line wins, then the environment
      --print-config   print the settings and where each came from

CI gates (a breach exits 3):
      --slo LIST       latency bounds, e.g. "p99<250ms,p50<20ms,max<2s";
                       pNN (any percentile), mean, max; < or <=
      --max-error-rate R
                       most errors allowed, as 1% or 0.01, of all
                       requests (status >= 400 counts as an error)

  Durations: 2s, 250ms, 1m, 1h; a bare number is seconds. Counts: 10k, 1M.
  Durations also take us and decimals (1.5s); counts take k, K, M, G.
  Sizes: 4096, 64k, 16M, 1G (bytes; k, M, G are 1024, 1024^2, 1024^3).

Commands:
  serve                a fast HTTP/1.1 test server; pacer serve --help
                       lists its options and routes
  demo                 runs the test server in-process and a 5s benchmark
                       against it; takes the options above but no URL
  merge                combines the JSON reports of several shards of one
                       test into one exact report; pacer merge --help
  cert                 writes a throwaway self-signed certificate and key
                       for pacer serve --tls; pacer cert --help
  report               draws the HTML report of saved JSON reports (one run,
                       or two with --compare); pacer report --help

Exit codes:
  0  ok
  1  run failed, or no request succeeded, or pacer itself limited a
     --capacity search (the answer says what to change)
  2  bad arguments or unreadable input file
  3  a gate (--slo, --max-error-rate) failed, or no rate met the
     --capacity objective
  130, 143  stopped by SIGINT, SIGTERM (the partial report is printed)
)";
}

std::string serve_usage() {
  return R"(Usage: pacer serve [options]

A fast HTTP/1.1 server to calibrate a setup and to point pacer at.

Options:                                                      [default]
      --listen ADDR:PORT  where to listen: 127.0.0.1:8080,    [127.0.0.1:8080]
                          [::1]:8080, or :PORT for 127.0.0.1;
                          port 0 picks a free port; unix:PATH
                          a Unix socket (pacer --unix-socket PATH)
  -t, --threads N         threads to use                      [2]
      --freeze-at T       stop answering T after the first request...
      --freeze-for T      ...for T (give both or neither)
      --log-arrivals FILE write when the kernel received each request
                          to FILE (monotonic ns, one per line)
      --tls CERT KEY      serve HTTPS with this certificate chain
                          and key (PEM files; pacer cert makes a
                          throwaway pair)
  -h, --help              print this help and exit

Routes:
  /                       a small 200 response
  /bytes/N                200 with an N-byte body
  /delay/MS               answers after MS milliseconds
  /pool/W/MS              W workers of MS milliseconds each (W <= 1024,
                          MS <= 60000): W*1000/MS requests/s, the rest queue
  /status/CODE            answers with status CODE
  /fail/N                 every Nth request answers 500
  /never                  never answers
  /close                  closes the connection after the headers
  /hangup                 200 as keep-alive, then closes the connection
                          without Connection: close (as tinyproxy does)
  /chunked/N              N bytes in a chunked body
  /redirect               302 to /
  /echo                   sends the request back as the body
  /login                  a token as JSON: {"token":"pacer-token-1"}
  /auth                   200 with "Authorization: Bearer pacer-token-1",
                          otherwise 401
  /json                   200 with a JSON Content-Type (application/json
                          or */*+json), otherwise 415
  /api/login              as /login (examples/scenarios/shop.lua)
  /api/products           a JSON list of products
  /api/orders             201 with the /login token as a bearer token,
                          otherwise 401
  /session/login          200 setting the cookie
                          pacer_session=pacer-session-1 (Path=/)
  /session/page           200 with that cookie, otherwise 401
  /stats                  counters as JSON (not counted itself)
)";
}

std::string merge_usage() {
  return R"(Usage: pacer merge [options] FILE...

Combines the JSON reports (--format json -o FILE) of the shards of one load
test, run by several pacer processes, into one report. Counts are summed and
histograms merged, so the percentiles are exact for all samples together
(a scenario's tasks, names and check and script errors too).
Gates (--slo, --max-error-rate) are not in the JSON and are not checked.

Options:                                                      [default]
      --format F       text (wrk's layout) or json               [text]
  -o, --output FILE    also write the merged report to FILE, atomically;
                       the text report then goes to stdout
      --force          merge reports whose configurations differ
                       (url, method, load model, timeout, keep-alive,
                       duration, rates, stages, arrival, a scenario's
                       tasks), or one shard twice
      --allow-missing  merge a set that lacks shards: the report names
                       them and judges the rate against the shards present
      --start-tolerance T
                       flag shards whose start times differ by     [1s]
                       more than T: their combined rate is not the
                       test's
      --latency        print the latency distribution (text)
      --max-report-size SIZE
                       refuse an input file larger than SIZE    [256M]
                       (a report is parsed whole: memory is about
                       six times its size)
  -h, --help           print this help and exit

Exit codes: 0 ok, 1 no request succeeded, 2 bad arguments, a file that
cannot be read or is not a pacer JSON report, shards missing (without
--allow-missing), or a sum past 2^64 - 1 (the file and field are named).
)";
}

std::string cert_usage() {
  return R"(Usage: pacer cert --out DIR [options]

Writes DIR/cert.pem and DIR/key.pem: an EC P-256 key and a self-signed
certificate for it, to serve HTTPS in tests (pacer serve --tls) without
any other tool. Not for production. Clients trust it with --cacert
DIR/cert.pem, or skip verification with -k.

Options:                                                      [default]
      --out DIR        the directory to write into (created if missing)
      --host NAME      a name or address the certificate is for
                       (repeatable)       [localhost, 127.0.0.1, ::1]
      --days N         how long it is valid                      [30]
  -h, --help           print this help and exit
)";
}

std::string report_usage() {
  return R"(Usage: pacer report [options] RUN.json... [-o report.html]
       pacer report BASELINE.json CANDIDATE.json --compare [-o diff.html]

Draws pacer's JSON reports as one self-contained HTML page (the page --html
writes), or, without -o and --csv, prints the report's text as the run
printed it: several files are the shards of one run, merged as pacer merge
merges them. A --capacity search's JSON prints its steps, answer and curve
(and draws them with -o); two of them --compare their answers. With
--compare, the change of each headline figure from the baseline to the
candidate is printed as a table, and drawn overlaid.
A side may be a --repeat report, or single runs as A1.json,A2.json,...
(run the two sides interleaved: a machine whose speed drifts then
moves both alike). A report drawn over time needs its time series
(run with --timeseries, --html or --csv).

Options:                                                      [default]
  -o, --output FILE    write the HTML page to FILE, atomically (without
                       it and --csv: print the text report)
      --csv PREFIX     also write PREFIX_stats.csv, PREFIX_history.csv
                       and PREFIX_failures.csv (one run only)
      --csv-format F   pacer, or locust: Locust 2.x's four files
      --csv-full-history
                       locust: a history row per name per interval
      --compare        BASELINE.json CANDIDATE.json: print and draw
                       the change of each figure
      --max-regression LIST
                       with --compare, exit 3 when a figure got worse
                       by more than its bound, e.g. "p99=10%,rps=5%";
                       figures: requests rps errors error_rate p50 p90
                       p99 p99.9 max mean (latency and errors: higher
                       is worse; requests and rps: lower is worse);
                       only a change beyond the noise counts: a rank
                       test over the runs of --repeat reports, or over
                       the intervals of single runs (docs/output.md)
      --strict         with --max-regression, any bound broken counts,
                       beyond the noise or not
      --force, --allow-missing, --start-tolerance T, --max-report-size SIZE
                       as pacer merge, for the shards of one run
  -h, --help           print this help and exit

Exit: 0 drawn, 2 bad arguments or unreadable report, 3 a bound broken
beyond the noise (any bound broken with --strict), 4 undecided: a bound
broken within noise too large to judge, none beyond it.
)";
}

// The engine a run uses by default (--io auto; PACER_IO may set it).
std::string version_line() {
  const auto io = io::choose_engine(IoChoice::kAuto);
  if (!io) return "pacer " PACER_VERSION " [epoll; " + io.error().message + "]";
  std::string engine = io::engine_name(io->kind);
  if (!io->fallback.empty()) engine += "; " + io->fallback;
  return "pacer " PACER_VERSION " [" + engine + "]";
}

}  // namespace pacer::cli
