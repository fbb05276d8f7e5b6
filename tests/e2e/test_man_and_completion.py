"""The man pages and shell completions that the build generates from the --help
texts (build/<preset>/man/, tools/docgen): every option --help shows is in the man
page and every option the man page names is in --help; the bash completion parses,
offers every option and command, the fixed value sets and file names; the values it
offers are ones pacer accepts. Each test takes well under a second."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import PACER_BIN

pytestmark = pytest.mark.no_sanitizer

MAN_DIR = Path(PACER_BIN).resolve().parent / "man"
BASH_COMPLETION = MAN_DIR / "pacer.bash"
ZSH_COMPLETION = MAN_DIR / "_pacer"

# A mention of an option: -c or --connections, not part of a word (-c100 is not one).
OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*[a-z0-9]|-[a-zA-Z])(?![\w-])")
# An option an entry defines: the line starts (indented) with it.
DEFINED = re.compile(r"^ {1,8}(-[^ ].*?)(?: {2,}|$)")

PAGES = [("pacer.1", []), ("pacer-serve.1", ["serve"]), ("pacer-merge.1", ["merge"]),
         ("pacer-report.1", ["report"]), ("pacer-cert.1", ["cert"])]


def help_text(command: list[str]) -> str:
    done = subprocess.run([PACER_BIN, *command, "--help"], capture_output=True, text=True, timeout=10)
    assert done.returncode == 0, done.stderr
    return done.stdout


def man_text(page: str) -> str:
    """The man page as plain text: roff requests' names, font escapes and \\- undone."""
    path = MAN_DIR / page
    assert path.is_file(), f"{path} missing: the build's pacer_docs target makes it"
    lines = []
    for line in path.read_text().splitlines():
        if line.startswith('.\\"'):
            continue
        line = re.sub(r"^\.[A-Z]{1,2}\b ?", "", line)
        line = re.sub(r"\\f[BIR]", "", line).replace("\\-", "-").replace("\\e", "\\").replace("\\&", "")
        lines.append(line)
    return "\n".join(lines)


def defined_options(help_: str) -> set[str]:
    found = set()
    for line in help_.splitlines():
        match = DEFINED.match(line)
        if match:
            found.update(o for o in OPTION.findall(match.group(1)))
    return found


def tp_terms(page: str) -> set[str]:
    """The options the man page's .TP entries define."""
    lines = (MAN_DIR / page).read_text().splitlines()
    terms = set()
    for i, line in enumerate(lines[:-1]):
        if line == ".TP":
            term = re.sub(r"\\f[BIR]", "", lines[i + 1]).replace("\\-", "-")
            terms.update(OPTION.findall(term) if term.startswith("-") else [])
    return terms


@pytest.mark.tsan
@pytest.mark.parametrize("page,command", PAGES, ids=[p for p, _ in PAGES])
def test_the_man_page_names_every_option_of_help_and_no_other(page, command):
    help_ = help_text(command)
    man = man_text(page)
    in_help = set(OPTION.findall(help_))
    in_man = set(OPTION.findall(man))
    assert in_help - in_man == set(), f"in --help, not in {page}"
    assert in_man - in_help == set(), f"in {page}, not in --help"
    assert defined_options(help_) == tp_terms(page), page
    assert len(tp_terms(page)) >= 4


def test_the_man_page_keeps_each_options_text_and_default():
    man = man_text("pacer.1")
    flat = " ".join(man.split())
    assert "connections to keep open, in total. Default: 10." in flat
    assert "how long to record (after --warmup). Default: 10s." in flat
    assert "I/O engine: auto (io_uring where the kernel allows it, else epoll), uring, epoll;" in flat
    roff = (MAN_DIR / "pacer.1").read_text()
    for section in ("NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "COMMANDS", "EXIT STATUS", "ENVIRONMENT", "FILES"):
        assert re.search(f'\n\\.SH "?{section}"?\n', roff), section


@pytest.mark.skipif(shutil.which("man") is None, reason="man(1) is not installed")
def test_man_renders_the_page_without_warnings():
    done = subprocess.run(["man", "--warnings", "-l", str(MAN_DIR / "pacer.1")], capture_output=True, text=True,
                          timeout=30, env={"MANWIDTH": "80", "PATH": "/usr/bin:/bin", "MAN_KEEP_FORMATTING": "0"})
    assert done.returncode == 0, done.stderr
    assert done.stderr == "", done.stderr
    assert "--connections" in re.sub(".\x08", "", done.stdout)  # overstrike bold undone


def complete(*words: str, cwd: Path | None = None) -> list[str]:
    """What bash's completion of `pacer WORDS...` offers for the last word."""
    words_array = " ".join("'" + w.replace("'", "'\\''") + "'" for w in ("pacer", *words))
    script = (f"source '{BASH_COMPLETION}'; COMP_WORDS=({words_array}); COMP_CWORD={len(words)}; "
              "_pacer; printf '%s\\n' \"${COMPREPLY[@]}\"")
    done = subprocess.run(["bash", "--norc", "--noprofile", "-c", script], capture_output=True, text=True,
                          timeout=10, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return [line for line in done.stdout.splitlines() if line]


def test_the_bash_completion_parses():
    done = subprocess.run(["bash", "-n", str(BASH_COMPLETION)], capture_output=True, text=True, timeout=10)
    assert done.returncode == 0, done.stderr


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed")
def test_the_zsh_completion_parses():
    done = subprocess.run(["zsh", "-n", str(ZSH_COMPLETION)], capture_output=True, text=True, timeout=10)
    assert done.returncode == 0, done.stderr


@pytest.mark.tsan
@pytest.mark.parametrize("command", [[], ["serve"], ["merge"], ["report"], ["cert"]], ids=str)
def test_bash_completes_every_option_of_help(command):
    offered = set(complete(*command, "-"))
    assert defined_options(help_text(command)) - offered == set()


def test_bash_completes_commands_and_option_names():
    assert complete("") == ["serve", "demo", "merge", "cert", "report"]
    assert complete("se") == ["serve"]
    assert complete("--arr") == ["--arrival"]
    assert complete("serve", "--l") == ["--listen", "--log-arrivals"]
    assert complete("merge", "--fo") == ["--format", "--force"]


@pytest.mark.parametrize("words,expected", [
    (["--io", ""], ["auto", "uring", "epoll"]),
    (["--io", "=", "ep"], ["epoll"]),  # --io=ep, split at '=' by bash
    (["--arrival", "p"], ["poisson"]),
    (["--format", ""], ["text", "json"]),
    (["merge", "--format", "j"], ["json"]),
    (["--targets-order", "r"], ["round-robin", "random"]),
    (["-m", "P"], ["POST", "PUT", "PATCH"]),
    (["-c", ""], []),  # a number: nothing to offer
    (["-d", "1"], []),
])
def test_bash_completes_fixed_values(words, expected):
    assert complete(*words) == expected


def test_bash_completes_file_names_and_directories(tmp_path):
    (tmp_path / "targets.txt").write_text("GET http://127.0.0.1:1/\n")
    (tmp_path / "tdir").mkdir()
    assert complete("--targets", "ta", cwd=tmp_path) == ["targets.txt"]
    assert sorted(complete("-s", "t", cwd=tmp_path)) == ["targets.txt", "tdir"]
    assert complete("cert", "--out", "t", cwd=tmp_path) == ["tdir"]
    assert sorted(complete("serve", "--tls", "targets.txt", "t", cwd=tmp_path)) == ["targets.txt", "tdir"]
    assert sorted(complete("merge", "t", cwd=tmp_path)) == ["targets.txt", "tdir"]
    assert sorted(complete("http://127.0.0.1:1/", "--", "t", cwd=tmp_path)) == ["targets.txt", "tdir"]


@pytest.mark.parametrize("option,extra", [("--io", []), ("--arrival", ["-R", "10"]), ("--format", []),
                                          ("-m", []), ("--targets-order", ["--targets", "TARGETS"])])
def test_every_value_completion_offers_is_accepted(option, extra, tmp_path):
    targets = tmp_path / "targets.txt"
    targets.write_text("GET http://127.0.0.1:1/\n")
    extra = [str(targets) if e == "TARGETS" else e for e in extra]
    values = complete(option, "")
    assert values, option
    for value in values:
        done = subprocess.run([PACER_BIN, "--check-args", option, value, *extra, "http://127.0.0.1:1/"],
                              capture_output=True, text=True, timeout=10)
        assert done.returncode == 0, (option, value, done.stderr)
