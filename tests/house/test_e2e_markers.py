"""Every end-to-end test that plainly runs pacer with threads sharing state carries
the tsan marker, so the ThreadSanitizer pass (which runs only marked tests) sees
it: read from the tests' own text, a test whose body names -t2 or more, --web or a
signal. The e2e suite checks the rest as each test runs (tests/e2e/suite_rules.py:
default threads, helpers that build the command line)."""

import ast
import pathlib
import re

E2E = pathlib.Path(__file__).resolve().parents[1] / "e2e"

# -t2 .. -t99, "-t", "2", --threads 2 / --threads=2, --web, a signal other than SIGKILL.
_THREADS = re.compile(r"""["'](?:-t|--threads=?)(?:["'],\s*["'])?([0-9]+)["']""")
_OWN_THREAD = re.compile(r"""["']--web["']|\bsignal\.SIG(?!KILL)[A-Z]+\b|\.send_signal\(|\bos\.kill\(""")


def _marks(decorators) -> set[str]:
    names = set()
    for d in decorators:
        node = d.func if isinstance(d, ast.Call) else d
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute) and node.value.attr == "mark":
            names.add(node.attr)
    return names


def _module_marks(tree: ast.Module) -> set[str]:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "pytestmark" for t in node.targets):
            values = node.value.elts if isinstance(node.value, (ast.List, ast.Tuple)) else [node.value]
            return _marks(values)
    return set()


def why_tsan(source: str) -> str | None:
    """Why a test's source plainly needs the tsan marker, or None."""
    threads = [int(n) for n in _THREADS.findall(source)]
    if any(n >= 2 for n in threads):
        return f"-t{max(threads)}"
    if m := _OWN_THREAD.search(source):
        return m.group(0)
    return None


def unmarked(path: pathlib.Path) -> list[str]:
    text = path.read_text()
    tree = ast.parse(text)
    module = _module_marks(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
            if "tsan" in module or "tsan" in _marks(node.decorator_list):
                continue
            if why := why_tsan(ast.get_source_segment(text, node) or ""):
                found.append(f"{path.name}::{node.name} ({why})")
    return found


def test_the_scan_tells_a_threaded_test_from_a_plain_one():
    assert why_tsan('pacer("-t2", "-c4", url)') == "-t2"
    assert why_tsan('pacer("-t", "4", url)') == "-t4"
    assert why_tsan('run(["--threads=3", url])') == "-t3"
    assert why_tsan('pacer("--web", "127.0.0.1:0", url)') is not None
    assert why_tsan("proc.send_signal(signal.SIGINT)") is not None
    assert why_tsan('pacer("-t1", "-c4", url); proc.kill()') is None
    assert why_tsan("proc.send_signal(signal.SIGKILL)") is not None  # send_signal itself counts
    assert why_tsan('"-t1"') is None


def test_every_plainly_threaded_e2e_test_is_marked_tsan():
    files = sorted(E2E.glob("test_*.py"))
    assert len(files) > 40, files
    missing = [entry for f in files for entry in unmarked(f)]
    assert not missing, "mark these @pytest.mark.tsan (tests/e2e/suite_rules.py):\n" + "\n".join(missing)
