"""docs/architecture.md is the map of the code (issue 45, item 8): every file it
names and every `Class::method` or `function()` it names in backticks exists in
the tree, so a rename or a move that forgets the map fails here, naming what is
stale.

Paths are read relative to the places the map writes them from: the tree's
root, src/ and src/engine/ (a worker's parts are named from there), or, for a
bare file name, anywhere in src/, web/ and tests/. `x.*` and `x.{h,cc}` stand
for the files they match; a name with a placeholder (`<module>`) or a URL path
(`/report.json`) is no file."""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "architecture.md"
BASES = (ROOT, ROOT / "src", ROOT / "src" / "engine")
SEARCHED = ("src", "web", "tests", "tools", "scripts", "bench", "cmake", "fuzz", "docs", "packaging")
# Made by the set-up (npm ci), not kept in the tree.
GENERATED = {"web/node_modules"}
FILE_EXT = re.compile(r"\.(h|cc|c|py|sh|js|css|md|cmake|json|toml|txt|yml|yaml|lua|html)$|\.\*$|\.\{[\w,]+\}$")


def backticked():
    return re.findall(r"`([^`\n]+)`", DOC.read_text())


def source_text():
    return "\n".join(p.read_text(errors="replace") for p in (ROOT / "src").rglob("*") if p.suffix in (".h", ".cc"))


def expand(token):
    m = re.match(r"^(.*)\.\{([\w,]+)\}$", token)
    if m:
        return [f"{m.group(1)}.{ext}" for ext in m.group(2).split(",")]
    return [token]


def exists(token):
    token = token.rstrip("/")
    for base in BASES:
        if "*" in token:
            if any(base.glob(token)):
                return True
        elif (base / token).exists() or ("." not in token.split("/")[-1] and any(base.glob(token + ".*"))):
            return True  # a file, a folder, or a part's files by their stem (`app/live_output`)
    if "/" not in token:  # a bare file name: anywhere it is kept
        return any(any((ROOT / d).rglob(token)) for d in SEARCHED if (ROOT / d).is_dir())
    return False


def paths():
    found = set()
    for token in backticked():
        if token.startswith(("/", "-", ".", "http")) or "<" in token or " " in token or token in GENERATED:
            continue
        looks_like_path = ("/" in token and re.match(r"^[\w.\-/*{},]+$", token)) or FILE_EXT.search(token)
        if looks_like_path and re.match(r"^[\w.\-/*{},]+$", token):
            found.update(expand(token))
    return sorted(found)


def test_the_map_names_files_and_functions():
    # A wrong reading would pass on nothing.
    assert len(paths()) > 50 and len(qualified_names()) > 20


def test_every_file_the_map_names_exists():
    missing = [p for p in paths() if not exists(p)]
    assert not missing, "docs/architecture.md names files that are not in the tree:\n" + "\n".join(missing)


def qualified_names():
    names = set()
    for token in backticked():
        m = re.match(r"^((?:[A-Za-z_]\w*::)+)([A-Za-z_~]\w*)(\(\))?$", token)
        if m and not token.startswith("std::"):
            names.add((m.group(1)[:-2], m.group(2)))
    return sorted(names)


def test_every_class_method_the_map_names_exists():
    text = source_text()
    missing = []
    for scope, name in qualified_names():
        owner = scope.split("::")[-1]
        if re.search(rf"\b{owner}::{name}\b", text):
            continue
        # Declared inside its class or namespace: a file with both, the name as a word.
        declared = any(
            re.search(rf"\b(class|struct|enum class|enum)\s+{owner}\b|\bnamespace\s+[\w:]*\b{owner}\b", t)
            and re.search(rf"\b{name}\b", t)
            for t in (p.read_text(errors="replace") for p in (ROOT / "src").rglob("*") if p.suffix in (".h", ".cc")))
        if not declared:
            missing.append(f"{scope}::{name}")
    assert not missing, "docs/architecture.md names what the code does not have:\n" + "\n".join(missing)


def test_every_function_the_map_names_exists():
    text = source_text()
    names = sorted({t[:-2] for t in backticked() if re.match(r"^[a-z_][a-z0-9_]*\(\)$", t)})
    missing = [n for n in names if not re.search(rf"\b{n}\s*\(", text)]
    assert not missing, "docs/architecture.md names functions the code does not have:\n" + "\n".join(missing)


def test_every_snake_case_name_the_map_names_is_in_the_code():
    # `send_request`, `next_due_ns`, `record_from_ns`: a function, a field or a
    # key the code has (src/, the web view, the scripts), as a whole word.
    kept = source_text() + "\n".join(
        p.read_text(errors="replace") for d in ("web", "scripts", "tools", "packaging", "cmake")
        for p in (ROOT / d).rglob("*") if p.is_file() and "node_modules" not in p.parts
        and p.suffix in (".js", ".sh", ".py", ".cmake", ".html", ".css", ".json") and p.stat().st_size < 2_000_000)
    names = sorted({t for t in backticked() if re.match(r"^[a-z][a-z0-9]*(_[a-z0-9]+)+$", t)})
    missing = [n for n in names if not re.search(rf"\b{n}\b", kept)]
    assert not missing, "docs/architecture.md names what the code does not have:\n" + "\n".join(missing)
