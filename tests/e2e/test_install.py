"""`cmake --install` of the build under test into a temporary prefix: the files land
where packaging/install.cmake says (the binary in bin/, the HTTP/3 and TLS modules
in the module directory, man pages, completions, docs), and the installed binary finds
the installed modules from its own directory, with no PACER_HTTP3_MODULE or
PACER_TLS_MODULE. About a second."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import PACER_BIN

pytestmark = pytest.mark.no_sanitizer

BUILD_DIR = Path(PACER_BIN).resolve().parent


def cache_value(name: str) -> str:
    for line in (BUILD_DIR / "CMakeCache.txt").read_text().splitlines():
        if line.startswith(name + ":"):
            return line.split("=", 1)[1]
    raise AssertionError(f"{name} not in {BUILD_DIR}/CMakeCache.txt")


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")
def test_the_installed_binary_finds_its_installed_module(tmp_path):
    prefix = tmp_path / "usr"
    done = subprocess.run(["cmake", "--install", str(BUILD_DIR), "--prefix", str(prefix)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    libdir = cache_value("CMAKE_INSTALL_LIBDIR")
    module = prefix / libdir / "pacer" / "pacer-http3.so"
    tls_module = prefix / libdir / "pacer" / "pacer-tls.so"
    for path in (prefix / "bin" / "pacer", module, tls_module, prefix / "share" / "man" / "man1" / "pacer.1.gz",
                 prefix / "share" / "man" / "man1" / "pacer-serve.1.gz",
                 prefix / "share" / "bash-completion" / "completions" / "pacer",
                 prefix / "share" / "zsh" / "vendor-completions" / "_pacer",
                 prefix / "share" / "doc" / "pacer" / "copyright", prefix / "share" / "doc" / "pacer" / "README.md",
                 prefix / "share" / "doc" / "pacer" / "docs" / "install.md"):
        assert path.is_file(), path
    assert not (prefix / "bin" / "pacer-http3.so").exists()
    assert not (prefix / "bin" / "pacer-tls.so").exists()

    env = {k: v for k, v in os.environ.items() if k not in ("PACER_HTTP3_MODULE", "PACER_TLS_MODULE")}
    version = subprocess.run([str(prefix / "bin" / "pacer"), "--version"], capture_output=True, text=True,
                             timeout=30, env=env)
    assert version.returncode == 0, version.stderr
    assert version.stdout.splitlines()[2].endswith(f"({module})"), version.stdout
    assert version.stdout.splitlines()[3].endswith(f"({tls_module})"), version.stdout
    # `pacer cert` runs on the installed TLS module.
    made = subprocess.run([str(prefix / "bin" / "pacer"), "cert", "--out", str(tmp_path / "certs")],
                          capture_output=True, text=True, timeout=30, env=env)
    assert made.returncode == 0 and (tmp_path / "certs" / "cert.pem").is_file(), made

    # The module moved away: --http3 names every place it looked.
    module.unlink()
    run = subprocess.run([str(prefix / "bin" / "pacer"), "--http3", "-d1s", "https://127.0.0.1:1/"],
                         capture_output=True, text=True, timeout=30, env=env)
    assert run.returncode == 1, run
    assert f"looked for {prefix / 'bin' / 'pacer-http3.so'}, {module}" in run.stderr, run.stderr

    # The TLS module moved away: an https run names every place it looked.
    tls_module.unlink()
    run = subprocess.run([str(prefix / "bin" / "pacer"), "-d1s", "https://127.0.0.1:1/"],
                         capture_output=True, text=True, timeout=30, env=env)
    assert run.returncode == 1, run
    assert f"looked for {prefix / 'bin' / 'pacer-tls.so'}, {tls_module}" in run.stderr, run.stderr
