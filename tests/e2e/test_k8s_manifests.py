"""deploy/k8s/*.yaml checked offline (no Kubernetes can run here): the API schemas
through the npm package kubernetes-models (tools/k8s-validate, installed by
scripts/setup.sh), pacer's own rule that --shard auto/N matches completions, and the
containers' command lines run through `sh -c` as the pods would: the shards' with
`pacer --check-args` for every JOB_COMPLETION_INDEX, the merge's for real on
reports of a short run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from conftest import PACER_BIN, REPO
from engines import need

pytestmark = pytest.mark.no_sanitizer

VALIDATOR = REPO / "tools" / "k8s-validate"
MANIFESTS = sorted(str(p) for p in (REPO / "deploy" / "k8s").glob("*.yaml"))


def validate(*args: str) -> subprocess.CompletedProcess:
    need("node")
    assert (VALIDATOR / "node_modules" / "kubernetes-models").is_dir(), \
        "tools/k8s-validate/node_modules missing: run scripts/setup.sh (npm ci there)"
    return subprocess.run(["node", str(VALIDATOR / "validate.js"), *args], capture_output=True, text=True, timeout=60)


@pytest.fixture(scope="module")
def containers() -> list[dict]:
    out = validate("--commands", *MANIFESTS)
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


def test_the_manifests_are_valid_kubernetes_objects(containers):
    assert len(MANIFESTS) >= 3, MANIFESTS
    assert {c["job"] for c in containers} == {"pacer-load", "pacer-merge"}


def test_the_validator_refuses_a_broken_job(tmp_path):
    job = (REPO / "deploy" / "k8s" / "pacer-job.yaml").read_text()
    broken = tmp_path / "broken.yaml"
    broken.write_text(job.replace("completionMode: Indexed", "completionMode: Indexd"))
    out = validate(str(broken))
    assert out.returncode == 1 and "completionMode must be equal to one of the allowed values" in out.stderr, out
    broken.write_text(job.replace("completions: 4", "completions: 5"))
    out = validate(str(broken))
    assert out.returncode == 1 and "--shard auto/4 but completions is 5" in out.stderr, out


def pod_env(container: dict, **extra: str) -> dict[str, str]:
    """The container's environment after `envsubst '$START_AT'`, as the docs apply it."""
    env = {"PATH": os.environ["PATH"]}
    for var in container["env"]:
        env[var["name"]] = var["value"].replace("${START_AT}", extra.get("START_AT", ""))
    env.update(extra)
    return env


@pytest.fixture
def pod_root(tmp_path) -> Path:
    """A bin/pacer that checks the shards' arguments (--check-args) and runs merge
    for real, and a reports folder standing in for the volume at /reports."""
    (tmp_path / "bin").mkdir()
    (tmp_path / "reports").mkdir()
    wrapper = tmp_path / "bin" / "pacer"
    wrapper.write_text(f'#!/bin/sh\nif [ "$1" = merge ]; then exec {PACER_BIN} "$@"; fi\n'
                       f'exec {PACER_BIN} --check-args "$@"\n')
    wrapper.chmod(0o755)
    return tmp_path


def pod_script(container: dict, root: Path) -> list[str]:
    assert container["command"] == ["sh", "-c"], container
    return ["sh", "-c", container["args"][0].replace("/reports", str(root / "reports"))]


def test_every_shards_command_line_parses(containers, pod_root, pacer_bin):
    load = next(c for c in containers if c["job"] == "pacer-load")
    start = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 180))
    for index in range(4):
        env = pod_env(load, START_AT=start, JOB_COMPLETION_INDEX=str(index))
        env["PATH"] = f"{pod_root / 'bin'}:{env['PATH']}"
        out = subprocess.run(pod_script(load, pod_root), env=env, capture_output=True, text=True, timeout=30)
        assert out.returncode == 0, out.stderr
        assert f"(shard {index} of 4 from JOB_COMPLETION_INDEX)" in out.stdout, out.stdout
        assert f"Start:   at {start}" in out.stdout, out.stdout
        assert f"JSON to {pod_root}/reports/shard-{index}.json" in out.stdout, out.stdout
    # Without envsubst the pod would get the literal "${START_AT}": exit 2, saying so.
    env = pod_env(load, JOB_COMPLETION_INDEX="0")
    env["START_AT"] = "${START_AT}"
    env["PATH"] = f"{pod_root / 'bin'}:{env['PATH']}"
    out = subprocess.run(pod_script(load, pod_root), env=env, capture_output=True, text=True, timeout=30)
    assert out.returncode == 2 and "--start-at: '${START_AT}' is not a time" in out.stderr, out


@pytest.mark.tsan
def test_the_merge_command_merges_the_shards_reports(containers, pod_root, server, pacer):
    for i in range(4):
        run = pacer("-t1", "-c4", "-n", "100", "--shard", f"{i}/4", "--format", "json", "-o",
                    str(pod_root / "reports" / f"shard-{i}.json"), server.url, timeout=30)
        assert run.rc == 0, run
    merge = next(c for c in containers if c["job"] == "pacer-merge")
    env = pod_env(merge)
    env["PATH"] = f"{pod_root / 'bin'}:{env['PATH']}"
    out = subprocess.run(pod_script(merge, pod_root), env=env, capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert "100 requests in" in out.stdout, out.stdout  # the text report, for kubectl logs
    merged = json.loads((pod_root / "reports" / "merged.json").read_text())
    assert merged["counts"]["responses"] == 100  # -n is the whole test's
