"""pacer's plain progress lines (stderr without a live view), read back.

Each --interval is a block: a first line starting with "[", then lines indented
by four spaces (src/ui/plain_progress.h), none over 80 columns. progress_blocks
gives each block unwrapped into one line, so a test matches its figures with one
regular expression whatever the wrapping.
"""

import re

COLUMNS = 80
# An unwrapped block: [elapsed / total] (shard ... :) rate req/s, the rest; or the drain's.
BLOCK = re.compile(r"^\[\s*([0-9.]+)s / ([0-9.]+)s\] (?:shards? [0-9, ]+ of \d+: )?([0-9.]+) req/s(.*)$")
DRAIN = re.compile(r"^\[\s*([0-9.]+)s / ([0-9.]+)s\] (?:shards? [0-9, ]+ of \d+: )?drain (\S+) after the end: "
                   r"(\d+) responses, (\d+) sent, (.*)$")


def progress_blocks(stderr: str) -> list[str]:
    """Every progress block of `stderr`, its lines joined by one space."""
    blocks: list[str] = []
    for line in stderr.splitlines():
        if line.startswith("["):
            blocks.append(line)
        elif line.startswith("    ") and blocks:
            blocks[-1] += " " + line.strip()
    return blocks


def progress_lines_too_wide(stderr: str) -> list[str]:
    """The lines of progress blocks wider than 80 columns (none, as it should be)."""
    out = []
    in_block = False
    for line in stderr.splitlines():
        in_block = line.startswith("[") or (in_block and line.startswith("    "))
        if in_block and len(line) > COLUMNS:
            out.append(line)
    return out


def interval_blocks(stderr: str) -> list[re.Match]:
    """The blocks of the run's intervals (not the drain's), matched by BLOCK."""
    return [m for m in (BLOCK.match(b) for b in progress_blocks(stderr)) if m]


def drain_blocks(stderr: str) -> list[re.Match]:
    return [m for m in (DRAIN.match(b) for b in progress_blocks(stderr)) if m]
