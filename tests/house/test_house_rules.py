"""The house rules a machine can check (STYLE.md, the project's standards): no
class reaches into another with `friend`, and no source file grows far past
~500 lines. Both are read from the tree as it is, so a new friend or a file that
keeps growing fails here, naming where."""

import pathlib
import re

SRC = pathlib.Path(__file__).resolve().parents[2] / "src"
MAX_LINES = 550  # "~500": some slack, so this flags a file that kept growing, not one at 505


def sources():
    return sorted(p for p in SRC.rglob("*") if p.suffix in (".h", ".cc"))


def test_the_rules_read_the_whole_source_tree():
    # A wrong path would make the checks below pass on nothing.
    names = {p.relative_to(SRC).as_posix() for p in sources()}
    assert len(names) > 100 and "engine/worker.h" in names, sorted(names)[:5]


def test_no_class_declares_a_friend():
    friends = [f"src/{p.relative_to(SRC)}:{number}: {line.strip()}"
               for p in sources()
               for number, line in enumerate(p.read_text(errors="replace").splitlines(), 1)
               if re.match(r"\s*friend\b", line)]
    assert not friends, "\n".join(friends)


def test_no_source_file_is_far_past_500_lines():
    long_files = {f"src/{p.relative_to(SRC)}": n for p in sources()
                  if (n := len(p.read_text(errors="replace").splitlines())) > MAX_LINES}
    assert not long_files, long_files
