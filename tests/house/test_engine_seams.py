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
- the fields a connection carries for other parts (conn/part_fields.h) are
  each written by the part that owns them only, and the open model's idle
  list is the OpenDriver's own, not a hook on the connection;
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


# conn/part_fields.h: each Connection member holding another part's fields, and
# the files of the part that alone may write it.
PART_FIELDS = {
    "exchanged": ("src/engine/exchange/",),
    "claim": ("src/engine/drive/driver.h",),
    "unread": ("src/engine/conn/read_budget.h",),
}
ASSIGN = r"(?:[-+*/|&^]?=(?!=)|\+\+|--)"


def field_writes(member):
    """(file, line) of every write in src/ to a field of Connection::<member>:
    `c.member.f = ...`, `x->member.f |= ...`, `++c.member.f`, `std::exchange(c.member.f, ...)`,
    and the member itself assigned."""
    access = rf"(?:\.|->){member}(?:\.\w+)?"
    patterns = (rf"\w{access}\s*{ASSIGN}", rf"(?:\+\+|--)\s*[\w.>-]*{access}\b", rf"std::exchange\(\s*[\w.>-]*{access}\b")
    found = []
    for path in sorted((ROOT / "src").rglob("*")):
        if path.suffix not in (".h", ".cc"):
            continue
        for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            code = line.split("//")[0]
            if any(re.search(p, code) for p in patterns):
                found.append((str(path.relative_to(ROOT)), n))
    return found


def test_only_the_owning_part_writes_its_fields_on_a_connection():
    fields = (ENGINE / "conn" / "part_fields.h").read_text()
    connection = (ENGINE / "conn" / "connection.h").read_text()
    wrong = []
    for member, owners in PART_FIELDS.items():
        assert re.search(rf"\b\w+ {member};", connection), f"Connection::{member} is gone: update PART_FIELDS"
        writes = field_writes(member)
        # The rule reads something: the owner's own writes are found.
        assert any(f.startswith(owners) for f, _ in writes), f"no write to Connection::{member} found in {owners}"
        wrong += [f"{f}:{n}: writes Connection::{member}" for f, n in writes if not f.startswith(owners)]
    for struct in ("ExchangeCounts", "QuotaClaim", "UnreadMark"):
        assert f"struct {struct}" in fields, struct
    assert not wrong, "\n".join(wrong)


def test_the_unread_list_is_the_read_budgets_and_the_idle_list_the_open_drivers():
    wrong = []
    for path in sorted((ROOT / "src").rglob("*")):
        if path.suffix not in (".h", ".cc"):
            continue
        rel = str(path.relative_to(ROOT))
        text = path.read_text(errors="replace")
        if re.search(r"\bUnreadList\b", text) and rel not in ("src/engine/conn/connection.h", "src/engine/conn/read_budget.h"):
            wrong.append(f"{rel}: UnreadList")
        if re.search(r"\bIdleConnections\b", text) and not rel.startswith("src/engine/drive/"):
            wrong.append(f"{rel}: IdleConnections")
    assert "idle" not in re.findall(r"ListHook<Connection>\s+(\w+);", (ENGINE / "conn" / "connection.h").read_text())
    assert not wrong, "\n".join(wrong)
