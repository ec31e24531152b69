"""The explorer's server under abuse, on the loopback interface only: ambiguous headers refused, connections left
open mid-request bounded in number and in time, so that a real request is still answered and nothing is printed."""

import http.client
import json
import select
import socket
import threading
import time

import pytest

from polyregions.errors import InvalidInputError
from polyregions.explore import ExplorerServer


def _serving(**options):
    server = ExplorerServer(port=0, **options)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server


@pytest.fixture
def server():
    server = _serving()
    yield server
    server.shutdown()
    server.server_close()


def _raw(server, data: bytes, timeout: float = 10.0) -> tuple[int, dict]:
    """Send ``data`` as it is, read the answer until the server closes: (status, JSON body)."""
    with socket.create_connection(("127.0.0.1", server.server_address[1]), timeout=timeout) as client:
        client.sendall(data)
        answer = b""
        while chunk := client.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)


def _host(server) -> str:
    return f"127.0.0.1:{server.server_address[1]}"


AMBIGUOUS = [
    ("two Host headers, the second foreign", "GET /api/config HTTP/1.1\r\nHost: {host}\r\nHost: evil.example\r\n\r\n",
     400, "Host: expected at most one Host header, got 2"),
    ("two Host headers, the first foreign", "GET /api/config HTTP/1.1\r\nHost: evil.example\r\nHost: {host}\r\n\r\n",
     400, "Host: expected at most one"),
    ("two equal Content-Length", "POST /api/arrangement HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json"
     "\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{{}}", 400, "Content-Length: expected at most one"),
    ("two conflicting Content-Length", "POST /api/arrangement HTTP/1.1\r\nHost: {host}\r\nContent-Type: "
     "application/json\r\nContent-Length: 2\r\nContent-Length: 40\r\n\r\n{{}}", 400,
     "Content-Length: expected at most one"),
    ("Transfer-Encoding with Content-Length", "POST /api/arrangement HTTP/1.1\r\nHost: {host}\r\nContent-Type: "
     "application/json\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{{}}\r\n0\r\n\r\n", 400,
     "Transfer-Encoding: expected none (a body is sent with Content-Length), got Transfer-Encoding with"),
    ("Transfer-Encoding alone", "POST /api/arrangement HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
     "Transfer-Encoding: chunked\r\n\r\n2\r\n{{}}\r\n0\r\n\r\n", 400, "Transfer-Encoding: expected none"),
    ("a GET with a body", "GET /api/config HTTP/1.1\r\nHost: {host}\r\nContent-Length: 30\r\n\r\n"
     "GET /api/config HTTP/1.1\r\n\r\n", 400, "Content-Length: expected no body with GET"),
    ("two Content-Type", "POST /api/arrangement HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
     "Content-Type: text/plain\r\nContent-Length: 2\r\n\r\n{{}}", 400, "Content-Type: expected at most one"),
    ("a foreign Origin", "GET /api/config HTTP/1.1\r\nHost: {host}\r\nOrigin: http://evil.example\r\n\r\n", 403,
     "Origin: expected http://127.0.0.1:"),
    ("two Origins", "GET /api/config HTTP/1.1\r\nHost: {host}\r\nOrigin: http://{host}\r\nOrigin: http://{host}\r\n"
     "\r\n", 400, "Origin: expected at most one"),
    ("a malformed request line", "GET /a b HTTP/1.1\r\nHost: {host}\r\n\r\n", 400, "Bad request syntax"),
]


@pytest.mark.parametrize("name, request_, status, message", AMBIGUOUS, ids=[a[0] for a in AMBIGUOUS])
def test_ambiguous_headers_are_refused(server, name, request_, status, message, capfd):
    capfd.readouterr()
    got, body = _raw(server, request_.format(host=_host(server)).encode())
    assert got == status and message in body["error"], (got, body)
    assert capfd.readouterr().err == ""


def test_the_page_s_own_origin_is_answered(server):
    connection = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=10)
    connection.request("POST", "/api/arrangement", body=b'{"name": "braid:3"}',
                       headers={"Content-Type": "application/json", "Origin": f"http://{_host(server)}"})
    reply = connection.getresponse()
    assert reply.status == 200 and json.loads(reply.read())["summary"]["regions"] == 6
    connection.close()


def _stalled(server, count: int) -> list[socket.socket]:
    """``count`` connections that send half of their headers and then nothing."""
    opened = []
    for _ in range(count):
        try:
            client = socket.create_connection(("127.0.0.1", server.server_address[1]), timeout=2)
            client.sendall(f"GET /api/config HTTP/1.1\r\nHost: {_host(server)}\r\nX-Slow: ".encode())
            opened.append(client)
        except OSError:  # a full accept queue: the rest of the attack just fails
            pass
    return opened


def test_300_stalled_connections_do_not_keep_a_request_from_its_answer(server, capfd):
    capfd.readouterr()
    threads = threading.active_count()
    stalled = _stalled(server, 300)
    try:
        assert len(stalled) >= 200
        started = time.monotonic()
        connection = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=10)
        connection.request("GET", "/api/config")
        reply = connection.getresponse()
        assert reply.status == 200 and "limits" in json.loads(reply.read())
        connection.close()
        assert time.monotonic() - started < 5
        assert threading.active_count() <= threads + server.max_connections + 8  # a thread per held connection
    finally:
        for client in stalled:
            client.close()
    time.sleep(0.5)
    assert capfd.readouterr().err == ""


def test_a_request_that_arrives_too_slowly_is_answered_408(capfd):
    server = _serving(request_seconds=1.0)
    try:
        capfd.readouterr()
        host = _host(server)
        started = time.monotonic()
        status, body = _raw(server, f"GET /api/config HTTP/1.1\r\nHost: {host}\r\nX-Slow: ".encode())
        assert status == 408 and "within 1 s" in body["error"] and time.monotonic() - started < 5
        # a body that never comes
        status, body = _raw(server, f"POST /api/arrangement HTTP/1.1\r\nHost: {host}\r\nContent-Type: "
                                    "application/json\r\nContent-Length: 100\r\n\r\n{\"name\"".encode())
        assert status == 408 and "within 1 s" in body["error"]
        # a byte at a time, each in time for a socket timeout, the whole too slow: cut off at the deadline
        with socket.create_connection(("127.0.0.1", server.server_address[1]), timeout=10) as client:
            started, answer, closed = time.monotonic(), b"", False
            for byte in f"GET /api/config HTTP/1.1\r\nHost: {host}\r\nX-Slow: {'x' * 200}".encode():
                if select.select([client], [], [], 0.05)[0]:
                    try:
                        answer += client.recv(65536)
                    except OSError:  # reset: the server closed while bytes were still coming
                        pass
                    closed = True
                    break
                try:
                    client.sendall(bytes([byte]))
                except OSError:
                    closed = True
                    break
            assert closed and time.monotonic() - started < 3.5, time.monotonic() - started
            assert answer == b"" or b"408" in answer or b"too slowly" in answer, answer
        # a connection that sends nothing is closed, without an answer
        with socket.create_connection(("127.0.0.1", server.server_address[1]), timeout=10) as client:
            started = time.monotonic()
            assert client.recv(1) == b"" and time.monotonic() - started < 5
        assert capfd.readouterr().err == ""
    finally:
        server.shutdown()
        server.server_close()


def test_when_every_connection_is_answering_a_new_one_gets_503(monkeypatch):
    import polyregions.explore.arrangement_api as api

    release = threading.Event()

    def slow(request, *, limits):
        release.wait(10)
        return {"ok": True}

    monkeypatch.setattr(api, "arrangement_view", slow)
    server = _serving(max_connections=2)
    try:
        def ask():
            connection = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=20)
            connection.request("POST", "/api/arrangement", body=b"{}", headers={"Content-Type": "application/json"})
            return connection.getresponse().status

        results = []
        workers = [threading.Thread(target=lambda: results.append(ask())) for _ in range(2)]
        for worker in workers:
            worker.start()
        time.sleep(1.0)
        status, body = _raw(server, f"GET /api/config HTTP/1.1\r\nHost: {_host(server)}\r\n\r\n".encode())
        assert status == 503 and "every one is answering" in body["error"]
        release.set()
        for worker in workers:
            worker.join(20)
        assert results == [200, 200]
    finally:
        release.set()
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("option, value, message", [("max_connections", 0, "max_connections: expected a positive"),
                                                    ("request_seconds", float("nan"), "request_seconds: expected"),
                                                    ("request_seconds", True, "request_seconds: expected")])
def test_bad_server_options_are_refused(option, value, message):
    with pytest.raises(InvalidInputError, match=message):
        ExplorerServer(port=0, **{option: value})
