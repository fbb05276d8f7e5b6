"""HTTPS end to end: pacer against `pacer serve --tls` with a certificate from
`pacer cert`, and mutual TLS against `openssl s_server` with a private CA made by
the openssl CLI. Every server is started by the test and stopped at teardown;
every wait is bounded."""

from __future__ import annotations

import json
import socket
import subprocess
import time
from pathlib import Path

import pytest

from conftest import PACER_BIN

SELF_SIGNED_REASON = "certificate verify failed: self-signed certificate"


def make_cert(directory: Path, *hosts: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    args = [PACER_BIN, "cert", "--out", str(directory)]
    for h in hosts:
        args += ["--host", h]
    done = subprocess.run(args, capture_output=True, timeout=30)
    assert done.returncode == 0, done.stderr.decode()
    return directory


@pytest.fixture
def certs(tmp_path) -> Path:
    """cert.pem + key.pem for localhost, 127.0.0.1 and ::1."""
    return make_cert(tmp_path / "localhost")


@pytest.fixture
def tls_server(start_server, certs):
    return start_server("--tls", str(certs / "cert.pem"), str(certs / "key.pem"))


def https_url(server) -> str:
    return f"https://127.0.0.1:{server.port}/"


def tls_errors_line(text: str) -> str:
    lines = [l for l in text.splitlines() if l.startswith("TLS errors:")]
    assert len(lines) == 1, text
    return lines[0]


def test_pacer_serve_announces_an_https_url(tls_server):
    assert tls_server.url.startswith("https://127.0.0.1:")


def test_a_self_signed_server_fails_verification_and_exits_1(tls_server, pacer):
    run = pacer("-d", "1s", "-c", "2", "-t", "1", https_url(tls_server))

    # The start-up connection's handshake fails: the run stops before any load.
    assert run.rc == 1, run
    assert f"TLS handshake failed: {SELF_SIGNED_REASON}" in run.stderr, run
    assert (run.stdout + run.stderr).count(SELF_SIGNED_REASON) == 1, run  # shown once
    assert "Requests/sec" not in run.stdout, run


def test_insecure_accepts_the_self_signed_certificate(tls_server, pacer):
    run = pacer("-k", "-d", "1s", "-c", "2", "-t", "1", https_url(tls_server))

    assert run.rc == 0, run
    report = run.report
    assert report.requests > 0, run
    assert report.errors["tls"] == 0, run
    assert report.status_codes == {200: report.requests}, run
    assert "TLS setup:    avg " in run.stdout, run
    assert "TLS errors:" not in run.stdout, run


@pytest.mark.tsan
def test_cacert_trusts_the_private_certificate(tls_server, certs, pacer):
    run = pacer("--cacert", str(certs / "cert.pem"), "-n", "200", "-c", "4", "-t", "2", https_url(tls_server))

    assert run.rc == 0, run
    assert run.report.requests == 200, run
    assert run.report.errors["tls"] == 0, run


def test_https_by_host_name_checks_the_name_too(tls_server, certs, pacer):
    url = f"https://localhost:{tls_server.port}/bytes/50000"
    run = pacer("--cacert", str(certs / "cert.pem"), "-n", "50", "-c", "2", "-t", "1", url)

    assert run.rc == 0, run
    assert run.report.requests == 50, run
    assert run.report.bytes_read > 50 * 50000, run


@pytest.mark.parametrize("host, reason", [("localhost", "hostname mismatch"), ("127.0.0.1", "IP address mismatch")])
def test_a_certificate_for_another_host_fails_verification(start_server, tmp_path, pacer, host, reason):
    other = make_cert(tmp_path / "other", "other.example")
    server = start_server("--tls", str(other / "cert.pem"), str(other / "key.pem"))
    url = f"https://{host}:{server.port}/"
    run = pacer("--cacert", str(other / "cert.pem"), "-d", "1s", "-c", "1", "-t", "1", url)

    assert run.rc == 1, run
    assert f"TLS handshake failed: certificate verify failed: {reason}" in run.stderr, run


def test_reconnects_resume_the_tls_session_unless_turned_off(tls_server, certs, pacer):
    common = ["--cacert", str(certs / "cert.pem"), "--disable-keepalive", "-n", "60", "-c", "2", "-t", "1",
              "--format", "json", https_url(tls_server)]
    resumed = pacer(*common)
    full = pacer("--no-tls-resume", *common)

    assert resumed.rc == 0, resumed
    assert full.rc == 0, full
    r = json.loads(resumed.stdout)
    f = json.loads(full.stdout)
    assert r["counts"]["responses"] == 60 and f["counts"]["responses"] == 60
    # One connection per request; only each slot's first has nothing to resume.
    assert r["counts"]["tls_handshakes"] >= 60, resumed
    assert r["counts"]["tls_resumed"] >= r["counts"]["tls_handshakes"] - 4, resumed
    assert f["counts"]["tls_handshakes"] >= 60, full
    assert f["counts"]["tls_resumed"] == 0, full
    assert r["tls_handshake_time"]["count"] == r["counts"]["tls_handshakes"]
    assert r["tls_first_error"] is None


def test_a_failed_handshake_with_json_output_leaves_stdout_empty(tls_server, pacer):
    run = pacer("-d", "500ms", "-c", "1", "-t", "1", "--format", "json", https_url(tls_server))

    assert run.rc == 1, run
    assert run.stdout == "", run  # no half a JSON document for a pipe to choke on
    assert SELF_SIGNED_REASON in run.stderr, run


@pytest.mark.tsan
def test_an_unusable_cacert_exits_2_naming_the_file(tls_server, certs, pacer):
    key = str(certs / "key.pem")  # a key, not a certificate
    run = pacer("--cacert", key, "-d", "1s", https_url(tls_server))

    assert run.rc == 2, run
    assert f"--cacert: cannot load CA certificates from '{key}'" in run.stderr, run


@pytest.mark.tsan
def test_cert_without_key_exits_2(certs, pacer):
    run = pacer("--cert", str(certs / "cert.pem"), "https://127.0.0.1:1/")
    assert run.rc == 2, run
    assert "--cert needs --key too" in run.stderr, run


@pytest.mark.tsan
def test_serve_refuses_a_key_that_does_not_match_with_exit_2(tmp_path, pacer):
    a = make_cert(tmp_path / "a")
    b = make_cert(tmp_path / "b")
    run = pacer("serve", "--listen", "127.0.0.1:0", "--tls", str(a / "cert.pem"), str(b / "key.pem"), timeout=30)
    assert run.rc == 2, run
    assert f"does not match the certificate in '{a / 'cert.pem'}'" in run.stderr, run


def test_cert_creates_its_directory_as_mkdir_p_would(tmp_path, pacer):
    run = pacer("cert", "--out", str(tmp_path / "missing" / "certs"))
    assert run.rc == 0, run
    assert (tmp_path / "missing" / "certs" / "key.pem").exists()
    run = pacer("cert", "--out", str(tmp_path / "missing" / "certs" / "key.pem"))
    assert run.rc == 2 and "exists and is not a directory" in run.stderr, run


# ------------------------------------------------------------------ mutual TLS


def openssl(*args: str, cwd: Path) -> None:
    done = subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, timeout=60)
    assert done.returncode == 0, f"openssl {' '.join(args)}:\n{done.stderr.decode()}"


@pytest.fixture
def private_ca(tmp_path) -> Path:
    """A CA, a server certificate for 127.0.0.1 and a client certificate, all signed
    by the CA, made with the openssl CLI."""
    d = tmp_path / "ca"
    d.mkdir()
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
    openssl("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "1", "-subj", "/CN=pacer test CA",
            cwd=d)
    for name, ext in (("server", "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth"),
                      ("client", "extendedKeyUsage=clientAuth")):
        (d / f"{name}.ext").write_text(ext + "\n")
        openssl("req", *ec, "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", f"/CN=pacer {name}", cwd=d)
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", f"{name}.pem", "-days", "1", "-extfile", f"{name}.ext", cwd=d)
    return d


def wait_until_listening(port: int, proc: subprocess.Popen, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"openssl s_server exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"nothing listening on 127.0.0.1:{port} after {timeout}s")


@pytest.fixture
def mtls_server(private_ca, free_port):
    """`openssl s_server -Verify 1`: a client certificate signed by the CA is required."""
    proc = subprocess.Popen(
        ["openssl", "s_server", "-accept", f"127.0.0.1:{free_port}", "-cert", "server.pem", "-key", "server.key",
         "-CAfile", "ca.pem", "-Verify", "1", "-verify_return_error", "-www", "-quiet"],
        cwd=private_ca, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        wait_until_listening(free_port, proc)
        # The probe connection above counts as a failed handshake for s_server; no harm.
        yield f"https://127.0.0.1:{free_port}/"
    finally:
        proc.kill()
        proc.wait(timeout=10)


def test_mtls_fails_without_a_client_certificate(mtls_server, private_ca, pacer):
    run = pacer("--cacert", str(private_ca / "ca.pem"), "-d", "1s", "-c", "1", "-t", "1", mtls_server)

    assert run.rc == 1, run
    report = run.report
    assert report.requests == 0, run
    # TLS 1.3: the client's handshake ends first; the server's refusal comes as an
    # alert on the first read.
    assert report.errors["tls"] > 0, run
    assert "certificate required" in tls_errors_line(run.stdout), run


def test_mtls_succeeds_with_the_client_certificate(mtls_server, private_ca, pacer):
    run = pacer("--cacert", str(private_ca / "ca.pem"), "--cert", str(private_ca / "client.pem"),
                "--key", str(private_ca / "client.key"), "-n", "20", "-c", "1", "-t", "1", mtls_server)

    assert run.rc == 0, run
    assert run.report.requests == 20, run
    assert run.report.status_codes == {200: 20}, run
    assert run.report.errors["tls"] == 0, run
