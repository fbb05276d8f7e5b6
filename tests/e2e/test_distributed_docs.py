"""docs/distributed.md shows deploy/'s files verbatim: each block after an
`<!-- include: PATH -->` marker must be that file, so the page cannot drift from
what the tests run."""

from __future__ import annotations

import pytest
import re

from conftest import REPO

pytestmark = pytest.mark.no_sanitizer

INCLUDE = re.compile(r"<!-- include: (\S+) -->\n```\w*\n(.*?)\n```", re.S)


def test_the_included_files_are_the_files_in_deploy():
    text = (REPO / "docs" / "distributed.md").read_text()
    blocks = INCLUDE.findall(text)
    assert {path for path, _ in blocks} >= {"deploy/slurm/pacer.sbatch", "deploy/k8s/pacer-job.yaml",
                                            "deploy/k8s/pacer-merge.yaml"}, blocks
    for path, shown in blocks:
        assert shown == (REPO / path).read_text().rstrip("\n"), f"docs/distributed.md's copy of {path} differs"
