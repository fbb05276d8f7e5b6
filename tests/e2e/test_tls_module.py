"""TLS over TCP (OpenSSL) lives in pacer-tls.so beside the binary, loaded by the
first run that needs TLS (issue 46): the binary links neither libssl nor libcrypto,
a plain-HTTP run maps neither, and an https run without the module says where it
looked. Each run is a few requests to a local `pacer serve`, stopped at teardown."""

import os
import subprocess
from pathlib import Path

import pytest

from test_tls import https_url, make_cert

OPENSSL_LIBS = ("libssl.so", "libcrypto.so")


def loaded_libraries(pacer_bin, *args):
    """The run's exit code and every shared object the dynamic loader opened for it
    (LD_DEBUG=files names each one, those linked and those dlopen'ed)."""
    run = subprocess.run([pacer_bin, *args], env={**os.environ, "LD_DEBUG": "files"}, capture_output=True,
                         text=True, timeout=30)
    opened = [line.split("file=", 1)[1].split()[0].rstrip(";") for line in run.stderr.splitlines()
              if "file=" in line and "[0];" in line]
    assert opened and any("libc.so" in name for name in opened), run.stderr[-2000:]
    return run.returncode, opened


@pytest.mark.tsan
def test_only_the_tls_module_links_openssl(pacer_bin):
    traced = subprocess.run([pacer_bin], env={"LD_TRACE_LOADED_OBJECTS": "1"}, capture_output=True, text=True,
                            timeout=30)
    assert traced.returncode == 0 and "libc.so" in traced.stdout, traced
    assert not [lib for lib in OPENSSL_LIBS if lib in traced.stdout], traced.stdout
    module = Path(pacer_bin).parent / "pacer-tls.so"
    assert module.is_file(), f"{module} was not built beside the binary"
    linked = subprocess.run(["ldd", str(module)], capture_output=True, text=True, timeout=30).stdout
    assert all(lib in linked for lib in OPENSSL_LIBS), linked


def test_a_plain_run_loads_no_openssl_and_an_https_run_loads_the_module(pacer_bin, start_server, tmp_path):
    plain = start_server()
    rc, opened = loaded_libraries(pacer_bin, "-n", "20", "-c", "2", "-t", "1", plain.url)
    assert rc == 0, opened
    assert not [name for name in opened if "pacer-tls" in name or any(lib in name for lib in OPENSSL_LIBS)], opened

    certs = make_cert(tmp_path / "certs")
    secure = start_server("--tls", str(certs / "cert.pem"), str(certs / "key.pem"))
    rc, opened = loaded_libraries(pacer_bin, "--cacert", str(certs / "cert.pem"), "-n", "20", "-c", "2", "-t", "1",
                                  https_url(secure))
    assert rc == 0, opened
    assert any(name.endswith("pacer-tls.so") for name in opened), opened
    assert all(any(lib in name for name in opened) for lib in OPENSSL_LIBS), opened


@pytest.mark.parametrize("module, reason", [
    ("/nonexistent/pacer-tls.so", "TLS: cannot load the TLS module (/nonexistent/pacer-tls.so"),
    ("libz.so.1", "TLS: libz.so.1 is not pacer's TLS module"),
])
def test_a_missing_or_foreign_module_is_a_clear_error(pacer, server, module, reason):
    env = {**os.environ, "PACER_TLS_MODULE": module}
    run = pacer("-d", "1s", "-t", "1", "-c", "1", "https://127.0.0.1:1/", env=env)
    assert run.rc == 1, run
    assert reason in run.stderr, run
    if "cannot load" in reason:
        assert "PACER_TLS_MODULE may name it" in run.stderr, run
    # pacer cert needs the module too; a plain run does not.
    cert = pacer("cert", "--out", "/nonexistent-dir-is-not-reached", env=env)
    assert cert.rc == 1 and reason in cert.stderr, cert
    plain = pacer("-n", "5", "-c", "1", "-t", "1", server.url, env=env)
    assert plain.rc == 0, plain
