"""A capacity search's JSON document ("pacer-capacity", version 1, issue 41) made of
real runs, for the capacity page's tests (test_capacity_page.py).

Each step is a real open-model run of pacer (-t1 -c2) against `pacer serve`'s
/delay/MS: two connections over a MS-millisecond answer carry about 2000/MS requests
per second, so the latency climbs past there as a server's does at its limit. A step's
figures are its run's JSON report's, its server CPU the server's own from /proc. The
plan (the rates, their repeats) is given rather than searched; the verdicts and the
answer are the objective's, checked here as the search checks them.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import time
from pathlib import Path

CLK_TCK = os.sysconf("SC_CLK_TCK")

# The objective "p99<=20ms,errors<=1%" as the document's terms.
TERMS = [{"figure": "p99", "limit": 20_000_000, "unit": "ns", "text": "p99<=20ms"},
         {"figure": "errors", "limit": 0.01, "unit": "fraction", "text": "errors<=1%"}]
LATENCY_KEYS = {"p50": "50", "p90": "90", "p99": "99", "max": "100"}


def cpu_seconds(pid: int) -> float:
    """The process's user and system CPU so far (/proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def run_step(pacer_bin: str, url: str, rate: int | None, duration: str, out: Path, server_pid: int) -> tuple[dict, float]:
    """One run (closed loop when rate is None): its JSON report and the server's CPU
    over it, as a fraction of one CPU."""
    path = out / f"step-{time.monotonic_ns()}.json"
    args = [pacer_bin, "-t1", "-c2", f"-d{duration}", "--format", "json", "-o", str(path)]
    if rate is not None:
        args += ["-R", str(rate)]
    cpu0, t0 = cpu_seconds(server_pid), time.monotonic()
    run = subprocess.run(args + [url], capture_output=True, text=True, timeout=30)
    cpu1, t1 = cpu_seconds(server_pid), time.monotonic()
    assert run.returncode == 0, (args, run.stdout, run.stderr)
    return json.loads(path.read_text()), (cpu1 - cpu0) / (t1 - t0)


def ms(ns: float) -> str:
    return f"{ns / 1e6:.1f}ms"


def broken_by(step: dict) -> str:
    """The first term the step broke, as the terminal says it ("p99 35.3ms > 20ms")."""
    for t in TERMS:
        if t["unit"] == "ns" and step["latency_ns"][t["figure"]] > t["limit"]:
            return f"{t['figure']} {ms(step['latency_ns'][t['figure']])} > {ms(t['limit']).replace('.0ms', 'ms')}"
        if t["figure"] == "errors" and step["error_rate"] > t["limit"]:
            return f"errors {step['error_rate']:.2%} > {t['limit']:.0%}"
    return ""


def step_entry(index: int, rate: int | None, repeat: int, repeats: int, run: dict, cpu: float) -> dict:
    pct = run["latency"]["percentiles_ns"]
    step = {"index": index, "kind": "probe" if rate is None else "step", "target_rate_per_s": rate or 0,
            "achieved_rate_per_s": run["rates"]["completed_per_s"], "repeat": repeat, "repeats": repeats,
            "latency_ns": {k: pct[v] for k, v in LATENCY_KEYS.items()},
            "requests": run["counts"]["responses"], "errors": run["counts"]["failed"], "error_rate": run["error_rate"],
            "server_cpu": round(cpu, 4), "verdict": "measured", "near": repeats > 1, "broken_by": "",
            "client_limit": "", "run": run}
    if rate is not None:
        step["broken_by"] = broken_by(step)
        step["verdict"] = "breaks" if step["broken_by"] else "holds"
    return step


def answer(steps: list[dict], elapsed_s: float) -> dict:
    """The highest rate all of whose runs held, the lowest rate one of whose runs broke."""
    by_rate: dict[int, list[dict]] = {}
    for s in steps:
        if s["kind"] == "step":
            by_rate.setdefault(s["target_rate_per_s"], []).append(s)
    held = [r for r, ss in by_rate.items() if all(s["verdict"] == "holds" for s in ss)]
    broke = [r for r, ss in by_rate.items() if any(s["verdict"] == "breaks" for s in ss)]
    holds_at, breaks_at = max(held, default=None), min(broke, default=None)
    why = next((s["broken_by"] for s in by_rate.get(breaks_at, []) if s["broken_by"]), "") if breaks_at else ""
    if holds_at is not None and breaks_at is not None:
        outcome, sentence = "found", f"holds at {holds_at:,}/s, breaks at {breaks_at:,}/s ({why})"
    elif holds_at is None:
        outcome, sentence = "no_rate_held", f"no rate held: {min(by_rate):,}/s broke ({why})"
    else:
        outcome, sentence = "never_broke", f"holds at {holds_at:,}/s, the highest rate tried"
    return {"outcome": outcome, "holds_at_per_s": holds_at, "breaks_at_per_s": breaks_at, "broken_by": why,
            "client_limit": "", "sentence": sentence, "cut_short": False, "cut_reason": "",
            "elapsed_s": round(elapsed_s, 3)}


def capacity_document(pacer_bin: str, url: str, plan: list[tuple[int | None, int]], out: Path, server_pid: int,
                      duration: str = "500ms") -> dict:
    """plan: (rate, repeats) in the order run; rate None is the probe (a closed loop)."""
    start = time.monotonic()
    steps = []
    for rate, repeats in plan:
        for k in range(1, repeats + 1):
            run, cpu = run_step(pacer_bin, url, rate, duration, out, server_pid)
            steps.append(step_entry(len(steps) + 1, rate, k, repeats, run, cpu))
    probe = plan[0][0] is None
    first = next(r for r, _ in plan if r is not None)
    command = f"pacer --capacity {shlex.quote(','.join(t['text'] for t in TERMS))} -t1 -c2 --step {duration} {url}"
    return {"schema": "pacer-capacity", "version": 1, "mode": "search", "url": url, "command_line": command,
            "objective": ",".join(t["text"] for t in TERMS), "terms": TERMS,
            "settings": {"step_duration_s": float(duration.removesuffix("ms")) / 1000, "step_warmup_s": 0,
                         "precision": 0.05, "budget_s": 600, "step_repeat": max(n for _, n in plan),
                         "arrival": "uniform", "connections": 2, "threads": 1, "start_rate_per_s": first,
                         "start_from": "probe" if probe else "given", "server_sampled": True},
            "answer": answer(steps, time.monotonic() - start), "steps": steps}
