"""pacer's HdrHistogram output read by the Java reference implementation.

HdrCodec.DumpForReference (tests/stats/hdr_codec_test.cc) writes fixed histograms
as pacer encodes them (V2 compressed base64) together with what a reader should
find in them and pacer's .hgrm rendering. DecodeHdr.java decodes each string with
org.HdrHistogram.Histogram.decodeFromCompressedByteBuffer and prints what it sees;
these tests compare the two, and diff Java's outputPercentileDistribution with
pacer's .hgrm text (and with tests/golden/basic.hgrm) character for character.

PACER_TESTS_BIN names the GoogleTest binary (default build/debug/tests/pacer_tests);
HDR_JAR the HdrHistogram jar (default: Debian libhdrhistogram-java's). Skipped only
when no `java` is installed. Run: python3 -m pytest -q tests/reference
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
TESTS_BIN = os.environ.get("PACER_TESTS_BIN") or str(REPO / "build" / "debug" / "tests" / "pacer_tests")
JAR_CANDIDATES = ["/usr/share/java/hdrhistogram.jar", "/usr/share/java/HdrHistogram.jar"]
JAVA_TIMEOUT_S = 180

SUMMARY = re.compile(r"total=(\d+) max=(\d+) p50=(\d+) p90=(\d+) p99=(\d+) p99\.9=(\d+)")


def _java() -> str:
    java = shutil.which("java")
    if java is None:
        pytest.skip("no java on PATH (apt-get install default-jre-headless libhdrhistogram-java)")
    return java


def _jar() -> str:
    candidates = [os.environ["HDR_JAR"]] if os.environ.get("HDR_JAR") else JAR_CANDIDATES
    for path in candidates:
        if Path(path).is_file():
            return path
    pytest.fail(f"HdrHistogram jar not found in {candidates}: apt-get install libhdrhistogram-java or set HDR_JAR")


@pytest.fixture(scope="module")
def fixtures(tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    _java()  # skip before demanding a build when there is nothing to compare against
    if not Path(TESTS_BIN).is_file():
        pytest.fail(f"{TESTS_BIN} not built: cmake --preset debug && cmake --build --preset debug")
    dump = tmp_path_factory.mktemp("hdr") / "dump.jsonl"
    run = subprocess.run(
        [TESTS_BIN, "--gtest_filter=HdrCodec.DumpForReference"],
        env={**os.environ, "PACER_HDR_DUMP": str(dump)},
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    items = [json.loads(line) for line in dump.read_text().splitlines()]
    assert len(items) >= 5, f"dump holds {len(items)} histograms"
    return items


def _run_java(items: list[dict], *args: str) -> str:
    run = subprocess.run(
        [_java(), "-cp", _jar(), str(HERE / "DecodeHdr.java"), *args],
        input="".join(item["base64"] + "\n" for item in items),
        capture_output=True, text=True, timeout=JAVA_TIMEOUT_S, check=False,
    )
    assert run.returncode == 0, f"Java reference failed to decode pacer's output:\n{run.stderr}"
    return run.stdout


def test_java_decodes_count_max_and_percentiles(fixtures: list[dict]) -> None:
    lines = _run_java(fixtures).splitlines()
    assert len(lines) == len(fixtures), lines
    for item, line in zip(fixtures, lines):
        m = SUMMARY.fullmatch(line)
        assert m, f"{item['name']}: unexpected Java output {line!r}"
        total, max_value, *percentiles = (int(g) for g in m.groups())
        assert total == item["total"], item["name"]
        assert max_value == item["max"], item["name"]
        for (label, (lo, hi)), value in zip(item["percentiles"].items(), percentiles):
            if item["total"] == 0:
                assert value == 0, (item["name"], label)
            else:
                assert lo <= value <= hi, f"{item['name']} p{label}: Java {value} not in pacer's [{lo}, {hi}]"


def _java_hgrm_blocks(fixtures: list[dict]) -> list[str]:
    out = _run_java(fixtures, "--hgrm", "1e6")
    blocks = out.split("#END\n")
    assert blocks[-1] == "", "output does not end with #END"
    # Drop each block's summary line; what is left is outputPercentileDistribution.
    return [block.split("\n", 1)[1] for block in blocks[:-1]]


def test_hgrm_matches_java_output_percentile_distribution(fixtures: list[dict]) -> None:
    blocks = _java_hgrm_blocks(fixtures)
    assert len(blocks) == len(fixtures)
    for item, java in zip(fixtures, blocks):
        assert item["hgrm_ms"] == java, f"{item['name']}: pacer's .hgrm differs from Java's"


def test_golden_hgrm_is_what_java_prints(fixtures: list[dict]) -> None:
    basic = [item for item in fixtures if item["name"] == "basic_hgrm"]
    assert basic, "the dump has no basic_hgrm fixture"
    (java,) = _java_hgrm_blocks(basic)
    assert (REPO / "tests" / "golden" / "basic.hgrm").read_text() == java
