#!/usr/bin/env python3
"""Regenerates the fuzz seed corpora (fuzz/corpus/<target>/) from the test inputs.

Each target gets the inputs its tests use, in the target's input format (see the
comment at the top of fuzz/<target>_fuzz.cc): HTTP/1.1 responses from the
parser and session tests and the e2e servers, chunked bodies among them, the
command-line values and argument lists of tests/cli, the golden JSON reports
and their HdrHistogram strings, plus a few hand-made HTTP/2 frame sequences and
Lua value scripts that mirror what the HTTP/2 and script tests exercise.
Files are named by a hash of their content, so running this again only adds.
Usage: fuzz/make_corpus.py   (from anywhere; writes into the repository)
"""
import base64
import hashlib
import json
import re
import struct
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
OUT = ROOT / "fuzz" / "corpus"

CPP_LITERALS = re.compile(r'"((?:[^"\\\n]|\\.)*)"((?:\s*"(?:[^"\\\n]|\\.)*")*)')
ONE_LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
PY_BYTES = re.compile(r'b"((?:[^"\\\n]|\\.)*)"')


def unescape(text):
    out = bytearray()
    i = 0
    simple = {"r": 13, "n": 10, "t": 9, "\\": 92, '"': 34, "'": 39, "0": 0, "a": 7, "b": 8, "f": 12, "v": 11}
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            e = text[i + 1]
            if e == "x":
                m = re.match(r"[0-9a-fA-F]{1,2}", text[i + 2:])
                out.append(int(m.group(0), 16))
                i += 2 + len(m.group(0))
                continue
            if e in simple:
                out.append(simple[e])
                i += 2
                continue
            out.extend(e.encode())
            i += 2
            continue
        out.extend(c.encode())
        i += 1
    return bytes(out)


def cpp_strings(path):
    """Every string literal in a C++ file, adjacent literals joined."""
    text = path.read_text(errors="replace")
    for m in CPP_LITERALS.finditer(text):
        parts = [m.group(1)] + ONE_LITERAL.findall(m.group(2))
        yield b"".join(unescape(p) for p in parts)


def py_bytes(path):
    for m in PY_BYTES.finditer(path.read_text(errors="replace")):
        yield unescape(m.group(1))


def write(target, data):
    folder = OUT / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / hashlib.sha1(data).hexdigest()[:16]).write_bytes(data)


def http1():
    responses = set()
    for path in list((TESTS / "proto").glob("*.cc")) + list((TESTS / "engine").glob("*.cc")):
        responses.update(s for s in cpp_strings(path) if s.startswith(b"HTTP/1."))
    for path in (TESTS / "e2e").glob("*.py"):
        responses.update(s for s in py_bytes(path) if s.startswith(b"HTTP/1."))
    for r in sorted(responses):
        write("http1_response", b"\x00\x00\x00" + r)        # one request
        write("http1_response", b"\x02\x05\x00" + r * 3)    # three pipelined: the known head repeats
        write("http1_response", b"\x40\x09\x00" + r)        # HEAD
        write("http1_response", b"\x81\x11\x01" + r * 2)    # a script's batch of two, the first HEAD
        write("http1_response", b"\x01\x03\x07" + r * 2)    # early: the last 7 request bytes unwritten
        if b"chunked" in r.lower() and b"\r\n\r\n" in r:
            write("chunked", b"\x00\x00" + r.split(b"\r\n\r\n", 1)[1])
            write("chunked", b"\x01\x02" + r.split(b"\r\n\r\n", 1)[1])  # an 8-byte body cap
    for body in [b"5\r\nhello\r\n0\r\n\r\n", b"5;ext=1\r\nhello\r\n0\r\n\r\n",
                 b"3\r\nabc\r\n0\r\nTrailer: x\r\n\r\n", b"A\r\n0123456789\r\n0\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n",
                 b"0\r\n\r\n", b"ffffffffffffffff\r\n", b"1\r\na\r\n"]:
        write("chunked", b"\x07\x00" + body)


def frame(kind, flags, stream, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def http2():
    settings = frame(4, 0, 0, struct.pack(">HI", 3, 100) + struct.pack(">HI", 4, 65535))
    ack = frame(4, 1, 0)
    status = {200: b"\x88", 204: b"\x89", 404: b"\x8d", 500: b"\x8e"}
    def headers(stream, code, end):  # indexed :status from the HPACK static table
        return frame(1, 0x4 | (0x1 if end else 0), stream, status[code])
    literal_503 = b"\x08\x03503"      # :status 503, literal without indexing
    seeds = [
        settings + ack + headers(1, 200, True),
        settings + ack + headers(1, 200, False) + frame(0, 1, 1, b"hello"),
        settings + frame(1, 0x5, 1, literal_503),
        settings + frame(3, 0, 1, struct.pack(">I", 2)),                                   # RST_STREAM
        settings + frame(7, 0, 0, struct.pack(">II", 0, 0)),                               # GOAWAY, NO_ERROR
        settings + headers(1, 200, True) + frame(7, 0, 0, struct.pack(">II", 1, 2)),        # GOAWAY, error
        settings + frame(6, 0, 0, b"12345678") + frame(8, 0, 0, struct.pack(">I", 1000)),  # PING, WINDOW_UPDATE
        settings + frame(1, 0, 1, b"\x08\x03") + frame(9, 4, 1, b"100") + headers(1, 200, True),  # CONTINUATION
        settings + frame(1, 4, 1, b"\x08\x03103") + headers(1, 204, True),                 # 1xx then final
        settings + headers(1, 200, True) + headers(3, 404, True) + headers(5, 500, True),
    ]
    for i, s in enumerate(seeds):
        write("http2_session", bytes([2, i]) + s)         # three streams
        write("http2_session", bytes([0x20 | 0x08, i]) + s[len(settings):])  # body, implicit SETTINGS
        write("http2_session", bytes([0x10 | 0x02, i]) + s)  # token 0 cancelled


def cli():
    selectors = {
        "units_test.cc": [0, 1, 9], "load_options_test.cc": [2, 3], "gate_options_test.cc": [4, 5],
        "shard_options_test.cc": [6, 7], "protocol_options_test.cc": [8], "serve_options_test.cc": [10, 0],
    }
    for name, sels in selectors.items():
        for s in set(cpp_strings(TESTS / "cli" / name)):
            if len(s) <= 64 and b"\n" not in s and b" was accepted" not in s:
                for sel in sels:
                    write("cli_values", bytes([sel]) + s)
    args = re.compile(r'\{\s*("(?:[^"\\\n]|\\.)*"(?:\s*,\s*"(?:[^"\\\n]|\\.)*")*)\s*\}')
    for path in (TESTS / "cli").glob("*.cc"):
        text = path.read_text()
        for m in args.finditer(text):
            items = [unescape(x) for x in ONE_LITERAL.findall(m.group(1))]
            if any(i.startswith(b"/") or (b"@" in i and b"@-" not in i) for i in items):
                continue
            write("cli_args", b"\x00".join(items))
        for s in cpp_strings(path):
            if b"://" in s and len(s) < 200:
                write("url_header", s)
            elif re.match(rb"^[A-Za-z-]+:\s?\S", s) and len(s) < 100:
                write("url_header", s)


def reports():
    texts = []
    for path in sorted((TESTS / "golden").glob("report_*.json")):
        write("json_report", path.read_bytes())
        texts.append(path.read_text())
    for path in sorted((TESTS / "golden").glob("*.ndjson")):
        texts.append(path.read_text())
    for path in [TESTS / "stats" / "hdr_codec_test.cc", TESTS / "report" / "hgrm_test.cc"]:
        texts.extend(s.decode(errors="replace") for s in cpp_strings(path))
    for hist in set(re.findall(r"HISTF[A-Za-z0-9+/=]+", "\n".join(texts))):
        write("hdr_decode", b"\x02" + hist.encode())
        try:  # some tests hold deliberately broken strings
            compressed = base64.b64decode(hist)
            write("hdr_decode", b"\x01" + compressed)
            write("hdr_decode", b"\x00" + zlib.decompress(compressed[8:]))
        except (ValueError, zlib.error):
            pass


def lua():
    def s(text):  # a string value
        return bytes([5, len(text)]) + text
    def n(x):     # a double value
        return bytes([4]) + struct.pack("<d", x)
    nil = b"\x00"
    table = lambda *vals: bytes([7, len(vals)]) + b"".join(k + v for k, v in vals)
    seeds = [
        b"\x01" + s(b"GET /x HTTP/1.1\r\nHost: a\r\n\r\n"),                           # request() returns a string
        b"\x02" + s(b"POST") + s(b"/api") + table((s(b"X-A"), s(b"1"))) + s(b"body"),  # wrk.format
        b"\x00\x00" + s(b"PUT") + b"\x00\x03" + s(b"data") + b"\x00\x02" + table((s(b"H"), s(b"v"))),  # wrk fields
        b"\x03" + n(10.0),                                                            # delay() 10 ms
        b"\x03" + n(-1.0),
        b"\x04" + nil + b"\x01\x03\x05",                                              # response(), request() -> 5
        b"\x05" + s(b"/init") + b"\x06" + s(b"k") + table((s(b"a"), n(1.5))),         # init, thread:set
        b"\x07" + n(99.0) + s(b"requests"),                                           # done(): latency:percentile
        b"\x08" + s(b"127.0.0.1:1"),                                                  # thread.addr = string
        b"\x09" + nil + nil + nil + nil,
    ]
    for seed in seeds:
        write("lua_script", seed)


if __name__ == "__main__":
    http1()
    http2()
    cli()
    reports()
    lua()
    for folder in sorted(OUT.iterdir()):
        print(f"{folder.name}: {len(list(folder.iterdir()))} files")
