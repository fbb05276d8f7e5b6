"""What every run maps and starts before it sends anything (issue 18, memory that
grows with use). The HTTP/3 module's share is in test_http3.py."""
import resource
import subprocess

import pytest
from hostile import run_measured

pytestmark = pytest.mark.alone


def test_the_binary_sets_up_no_standard_streams_at_start(pacer_bin):
    """A translation unit that includes <iostream> makes libstdc++ build std::cin,
    std::cout and the C++ locale before main: about 0.5 MB resident in every run,
    which reads nothing through them (stdin is read with read(2), core/read_fd.h)."""
    imports = subprocess.run(["nm", "-D", "--undefined-only", pacer_bin], capture_output=True, text=True,
                             timeout=30)
    assert imports.returncode == 0 and "fmt" in imports.stdout, imports
    assert "_ZNSt8ios_base4InitC1Ev" not in imports.stdout, "a source file includes <iostream>"


# Bytes of pacer's own memory per connection, measured by difference between two
# runs (so the binary, the libraries and the fixed buffers cancel out): the peak
# RSS (VmHWM) of a run at FEW connections and of one at MANY, each connection
# sending one request to `pacer serve`. Measured 2026-12-07 (19:58 UTC): 672-716
# bytes per connection on epoll, 719-814 on io_uring (whose completion queue grows
# with the connections) on the release build, 785-901 and 861-911 before llhttp's
# state was lent per response; 880-910 and 965-1,210 on the debug build before
# that: a Connection of 296 bytes and an Http1Session of 312 (304 and 320 with the
# allocator's header), the start gate's arrays, histogram chunks that differ
# between the runs. The bound leaves
# room for that noise and fails a change adding 1 KB per connection (checked by
# hand with a 1 KiB array in Connection: 1,737-1,987 measured; docs/benchmarks.md).
FEW = 200
MANY = 4200
BYTES_PER_CONNECTION_BOUND = 1450


@pytest.mark.no_sanitizer  # sanitizers change every allocation's size
@pytest.mark.parametrize("engine", ["epoll", "uring"])
def test_each_connection_costs_less_than_its_bound(pacer_bin, server, engine):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < MANY + 200:
        pytest.skip(f"the fd hard limit {hard} is below {MANY + 200}")
    probe = subprocess.run([pacer_bin, "--io", engine, "-n", "1", "-c", "1", server.url], capture_output=True,
                           text=True, timeout=30)
    if engine == "uring" and probe.returncode != 0:
        pytest.skip(f"no io_uring here: {probe.stderr.strip()}")
    peaks = {}
    for connections in (FEW, MANY):
        # One request per connection (-n = -c): every connection opens, the
        # histograms see alike latencies, and the run ends within a second.
        args = ["--io", engine, "-t", "1", "-c", str(connections), "-n", str(connections), server.url]
        run = run_measured(*args)
        assert run.rc == 0 and f"{connections} requests in" in run.stdout, run.stdout + run.stderr
        peaks[connections] = run.peak_rss_kb
    per_connection = (peaks[MANY] - peaks[FEW]) * 1024 / (MANY - FEW)
    assert per_connection <= BYTES_PER_CONNECTION_BOUND, (
        f"{engine}: {per_connection:.0f} bytes per connection (peak RSS {peaks[FEW]} KB at -c{FEW}, "
        f"{peaks[MANY]} KB at -c{MANY}); bound {BYTES_PER_CONNECTION_BOUND}"
    )
    assert per_connection > 0, f"{engine}: no growth from -c{FEW} to -c{MANY}: {peaks}"
