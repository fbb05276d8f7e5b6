"""deploy/Containerfile cannot be built here (no base images), so check what can be:
every shared library the pacer binary and its HTTP/3 module link comes from a package
the runtime stage installs (or from the base image's libc6, libstdc++6, libgcc-s1),
and the image holds the module beside the binary, where --http3 looks for it."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from conftest import PACER_BIN, REPO

pytestmark = pytest.mark.no_sanitizer

BASE_IMAGE_PACKAGES = {"libc6", "libstdc++6", "libgcc-s1"}
# The sanitizer runtimes a tsan or asan build links (CI runs this suite with those
# builds too): the image holds a release build, which links none of them.
SANITIZER_RUNTIME = re.compile(r"lib(t|a|ub|l|hwa)san\d*")


def runtime_packages() -> set[str]:
    text = (REPO / "deploy" / "Containerfile").read_text()
    runtime = text.split("FROM debian:12-slim", 1)[1]
    install = re.search(r"apt-get install -y --no-install-recommends(.*?)&&", runtime, re.S)
    assert install, "no apt-get install in the runtime stage"
    return set(install.group(1).replace("\\", " ").split())


def test_the_image_holds_the_modules_beside_the_binary():
    runtime = (REPO / "deploy" / "Containerfile").read_text().split("FROM debian:12-slim", 1)[1]
    copy = re.search(r"^COPY --from=build (.+) (\S+)$", runtime, re.M)
    assert copy, runtime
    sources, destination = copy.group(1).split(), copy.group(2)
    assert {s.rsplit("/", 1)[1] for s in sources} == {"pacer", "pacer-http3.so", "pacer-tls.so"}, copy.group(0)
    assert destination == "/usr/local/bin/", copy.group(0)


@pytest.mark.parametrize("file", ["pacer", "pacer-http3.so", "pacer-tls.so"])
def test_the_runtime_stage_installs_every_library_pacer_links(pacer_bin, file):
    path = Path(PACER_BIN).parent / file
    ldd = subprocess.run(["ldd", str(path)], capture_output=True, text=True, timeout=30, check=True).stdout
    paths = re.findall(r"=> (/\S+)", ldd)
    assert paths, ldd
    needed = set()
    for path in paths:
        owner = subprocess.run(["dpkg", "-S", path], capture_output=True, text=True, timeout=30)
        if owner.returncode != 0:  # /lib vs /usr/lib (merged /usr): ask for the other spelling
            other = path.removeprefix("/usr") if path.startswith("/usr/") else "/usr" + path
            owner = subprocess.run(["dpkg", "-S", other], capture_output=True, text=True, timeout=30)
        assert owner.returncode == 0, f"no package owns {path}"
        package = owner.stdout.split(":")[0]
        if not SANITIZER_RUNTIME.fullmatch(package):
            needed.add(package)
    missing = needed - runtime_packages() - BASE_IMAGE_PACKAGES
    assert not missing, f"deploy/Containerfile's runtime stage lacks {sorted(missing)}"
