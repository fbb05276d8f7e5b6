"""Issue 43 (8): `pacer report --compare --max-regression` as a CI gate that can fail on
a noisy machine. A bound passed within noise too large to judge is neither a pass nor a
regression: exit 4 (docs/output.md, "A gate that can fail"), naming the bound and the
runs a side that would settle it. Six runs of 60 requests each."""

from __future__ import annotations

import json
import re

from conftest import run_pacer


def test_a_bound_passed_within_the_noise_exits_4_and_says_how_many_runs_would_settle_it(server, tmp_path):
    # Each side mixes fast runs (/) and slow ones (/delay/2): the baseline two fast and one
    # slow, the candidate one fast and two slow. Their medians differ by the slow path's
    # ~2 ms (a p50 far past +10 %), and each side's runs span as much: not significant
    # whatever the machine (at most 8 of 9 pairs in order, p >= 0.1), so undecided.
    def one(name, path):
        out = tmp_path / f"{name}.json"
        r = run_pacer("-t1", "-c2", "-n", "60", "--format", "json", "-o", str(out), server.url + path)
        assert r.rc == 0, r
        return str(out)

    base = ",".join([one("a0", ""), one("a1", "delay/2"), one("a2", "")])
    cand = ",".join([one("b0", "delay/2"), one("b1", ""), one("b2", "delay/2")])
    html = tmp_path / "diff.html"
    run = run_pacer("report", base, cand, "--compare", "--max-regression", "p50=10%", "-o", str(html))
    assert run.rc == 4, run
    line = next(l for l in run.stdout.splitlines() if l.startswith("  --max-regression p50=10%"))
    m = re.search(r"UNDECIDED: beyond the bound, within the noise; about (\d+) runs a side \(--repeat (\d+)\) "
                  r"would settle it \(.*not significant\)$", line)
    assert m and m[1] == m[2] and 4 <= int(m[1]) <= 100, line
    assert re.search(r"^pacer report: undecided: beyond --max-regression but within the noise: p50 \(bound 10%; "
                     rf"about {m[1]} runs a side", run.stderr, re.M), run.stderr
    # The page's data says the same of the bound.
    data = json.loads(re.search(r'<script type="application/json" id="pacer-data">(.*?)</script>', html.read_text(),
                                re.S)[1])
    bound = data["bounds"][0]
    assert bound["broken"] and bound["undecided"] and not bound["regression"], bound
    assert bound["runs_to_settle"] == int(m[1]), bound
    # --strict asks for the plain bound: a regression (3); a bound held: 0.
    assert run_pacer("report", base, cand, "--compare", "--max-regression", "p50=10%", "--strict").rc == 3
    held = run_pacer("report", base, cand, "--compare", "--max-regression", "p50=100000%")
    assert held.rc == 0 and "undecided" not in held.stderr, held
