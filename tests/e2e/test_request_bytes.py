"""What pacer puts on the wire: method, body bytes, Content-Length, headers, Host.

A recording server written here (raw sockets) keeps the exact bytes of each request.
"""

import random

import pytest


@pytest.fixture(scope="module")
def binary_body() -> bytes:
    data = random.Random(20240601).randbytes(3000)
    # The point of the fixture: NUL bytes and bytes that are not UTF-8.
    assert b"\x00" in data
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")
    return data


def assert_all_received(server, expected_count: int, method: bytes, body: bytes):
    requests = server.wait_for_requests(expected_count)
    assert server.problems == []
    assert len(requests) == expected_count
    for req in requests:
        assert req.method == method
        assert req.version == b"HTTP/1.1"
        assert req.header_values(b"Content-Length") == [str(len(body)).encode()]
        assert req.header_values(b"Transfer-Encoding") == []
        assert req.body == body  # byte for byte
    return requests


def test_a_binary_body_file_arrives_byte_for_byte(recording_server, pacer, binary_body, tmp_path):
    body_file = tmp_path / "body.bin"
    body_file.write_bytes(binary_body)
    run = pacer("-m", "POST", "-b", f"@{body_file}", "-n", "5", "-c2", "-t1", recording_server.url + "upload", timeout=30)

    assert run.rc == 0, run
    assert run.report.requests == 5, run
    requests = assert_all_received(recording_server, 5, b"POST", binary_body)
    assert {r.target for r in requests} == {b"/upload"}


def test_a_body_read_from_standard_input_arrives_byte_for_byte(recording_server, pacer, binary_body):
    run = pacer("-m", "POST", "-b", "@-", "-n", "5", "-c2", "-t1", recording_server.url, input=binary_body, timeout=30)

    assert run.rc == 0, run
    assert run.report.requests == 5, run
    assert_all_received(recording_server, 5, b"POST", binary_body)


def test_a_literal_body_makes_the_method_post(recording_server, pacer):
    literal = 'héllo wörld {"a": [1, 2]}'
    run = pacer("-b", literal, "-n", "5", "-c1", recording_server.url, timeout=30)

    assert run.rc == 0, run
    assert run.report.requests == 5, run
    assert_all_received(recording_server, 5, b"POST", literal.encode("utf-8"))


def test_headers_arrive_verbatim_and_in_order_with_a_host_that_includes_the_port(recording_server, pacer):
    headers = [
        ("X-First", "1"),
        ("x-lower-case", "MiXeD Case"),
        ("X-Spaces", "two  inner  spaces"),
        ("X-Punctuation", 'a,b;c="d e"/f?g=h'),
        ("X-First", "repeated"),
    ]
    args = [a for name, value in headers for a in ("-H", f"{name}: {value}")]
    run = pacer(*args, "-n", "3", "-c1", recording_server.url + "h?q=1", timeout=30)

    assert run.rc == 0, run
    requests = recording_server.wait_for_requests(3)
    assert recording_server.problems == []
    assert len(requests) == 3
    for req in requests:
        assert (req.method, req.target) == (b"GET", b"/h?q=1")
        sent = [(k.decode(), v.decode()) for k, v in req.headers if k.lower().startswith(b"x-")]
        assert sent == headers
        assert req.header_values(b"Host") == [f"127.0.0.1:{recording_server.port}".encode()]
        assert req.body == b""


def test_a_host_header_given_with_h_replaces_the_default_one(recording_server, pacer):
    run = pacer("-H", "Host: example.test", "-n", "2", "-c1", recording_server.url, timeout=30)

    assert run.rc == 0, run
    requests = recording_server.wait_for_requests(2)
    assert len(requests) == 2
    for req in requests:
        assert req.header_values(b"Host") == [b"example.test"]
