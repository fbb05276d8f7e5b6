"""The engine's seams as the code has them (issue 45, docs/architecture.md "The
worker's parts"): the arrows between a worker's parts run one way, so no call
can come back into a part through another while it is working.

- conn/ (the pool, the transport, the connection) includes nothing of the
  exchange or the drivers: it reports through conn/links.h, and the wire tap
  it feeds is the recorder's (record/wire_tap.h);
- the exchange includes neither the pool nor the links: it cannot close,
  reopen or fill a connection itself, only say so to its caller (the worker);
- the drivers include neither the transport nor the pool's events: they never
  write (the worker writes what the exchange was given);
- every part has a test of its own with fakes of its neighbours."""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
ENGINE = ROOT / "src" / "engine"
PARTS = ("loop", "transport", "pool", "exchange", "driver", "recorder")


def includes(folder):
    """(file, included path) for every project include in src/engine/<folder>."""
    found = []
    for path in sorted((ENGINE / folder).glob("*")):
        for line in path.read_text(errors="replace").splitlines():
            m = re.match(r'\s*#include\s+"([^"]+)"', line)
            if m:
                found.append((f"src/engine/{folder}/{path.name}", m.group(1)))
    return found


def test_the_folders_the_rules_read_exist():
    for folder in ("conn", "exchange", "drive", "loop", "record"):
        assert includes(folder), f"src/engine/{folder} has no includes: a wrong path would pass everything"


def test_conn_includes_nothing_of_the_exchange_or_the_drivers():
    wrong = [f"{f}: {inc}" for f, inc in includes("conn")
             if inc.startswith(("engine/exchange/", "engine/drive/"))]
    assert not wrong, "\n".join(wrong)


def test_the_exchange_cannot_reach_the_pool_or_the_links():
    wrong = [f"{f}: {inc}" for f, inc in includes("exchange")
             if inc.startswith(("engine/conn/pool", "engine/conn/links", "engine/conn/transport", "engine/drive/"))]
    assert not wrong, "\n".join(wrong)


def test_the_drivers_never_write():
    wrong = [f"{f}: {inc}" for f, inc in includes("drive") if inc == "engine/conn/transport.h"]
    wrong += [f"{f}: Transport" for f, _ in includes("drive")
              if re.search(r"\bTransport\s*[&*]", (ROOT / f).read_text())]
    assert not wrong, "\n".join(sorted(set(wrong)))


def test_every_part_has_a_part_test():
    tests = ROOT / "tests" / "engine"
    missing = [p for p in PARTS if not (tests / f"{p}_part_test.cc").exists()]
    assert not missing, missing
