"""The explorer's web server: the page and a JSON API on the loopback interface only.

The standard library's :class:`http.server.ThreadingHTTPServer` serves three static files packaged with
polyregions (``static/index.html``, ``explorer.js``, ``explorer.css``: plain JavaScript and SVG, nothing fetched
from elsewhere) and the API:

=============================  ===============================================================================
``GET /api/config``            the named arrangements and the request limits
``POST /api/arrangement``      :func:`~polyregions.explore.arrangement_api.arrangement_view`
``POST /api/network``          :func:`~polyregions.explore.network_api.network_view`
=============================  ===============================================================================

It binds to ``127.0.0.1`` and nothing else, and answers only requests addressed to that host (or
``localhost``) on its port, so that another web site cannot reach it through a renamed host (DNS rebinding); a
request that names another ``Origin`` is refused too. A POST must say ``Content-Type: application/json`` (a
cross-site form cannot) and carry at most ``LIMITS.max_body_bytes``. Headers that two readers could take two
ways are refused (400): two ``Host`` headers, two ``Content-Length`` headers, any ``Transfer-Encoding``, a body
on a GET.

The server holds at most ``max_connections`` connections (a thread each) and gives a request
``request_seconds`` to arrive, its headers and body together: a connection still sending when its time is up
is answered 408 and closed, and when every place is taken the one that has been sending longest gives its place
to the new one (503), so that connections left open mid-request cannot keep a real request from an answer.

Every error is a JSON object ``{"error": "..."}``: 400 for bad input, with the message of the
:class:`~polyregions.errors.PolyregionsError`; 403, 404, 408, 411, 413, 415 and 503 for the request itself; 500
with the exception's type and message, never a traceback page. Each API answer carries the time it took in a
``Server-Timing`` header.

Examples
--------
>>> import json, threading, urllib.request
>>> server = ExplorerServer(port=0)  # any free port
>>> thread = threading.Thread(target=server.serve_forever, daemon=True)
>>> thread.start()
>>> request = urllib.request.Request(server.url + "api/arrangement", data=b'{"name": "braid:3"}',
...                                  headers={"Content-Type": "application/json"})
>>> json.load(urllib.request.urlopen(request))["summary"]["regions"]
6
>>> server.shutdown(); server.server_close()
"""

from __future__ import annotations

import errno
import json
import os
import socket
import sys
import threading
import time
import traceback
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any, Callable

from polyregions.errors import InvalidInputError, PolyregionsError
from polyregions.explore.limits import LIMITS, Limits

__all__ = ["HOST", "DEFAULT_PORT", "ExplorerServer", "serve", "has_display"]

#: The only address the explorer listens on.
HOST = "127.0.0.1"
#: The port of ``polyregions explore`` when none is given.
DEFAULT_PORT = 8765

_STATIC = {"/": ("index.html", "text/html; charset=utf-8"),
           "/index.html": ("index.html", "text/html; charset=utf-8"),
           "/explorer.js": ("explorer.js", "text/javascript; charset=utf-8"),
           "/explorer.css": ("explorer.css", "text/css; charset=utf-8")}

# The page may load only its own files and talk only to this server.
_SECURITY_HEADERS = {"Content-Security-Policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
                     "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}


class _Reply(Exception):
    """An answer other than 200, raised from inside request handling."""

    def __init__(self, status: HTTPStatus, message: str) -> None:
        super().__init__(message)
        self.status = status


def _config(limits: Limits) -> dict[str, Any]:
    from polyregions.explore.arrangement_api import NAMED_ARRANGEMENTS

    return {"arrangements": list(NAMED_ARRANGEMENTS), "limits": limits.to_json()}


def _views() -> dict[str, Callable[..., dict[str, Any]]]:
    from polyregions.explore.arrangement_api import arrangement_view
    from polyregions.explore.network_api import network_view

    return {"/api/arrangement": arrangement_view, "/api/network": network_view}


class _Connection:
    """A connection the server holds: while ``reading``, its request must arrive by ``deadline``; once
    ``dropped`` (too slow, or its place given to a newer connection), its reading side is shut and it is answered
    ``status`` with ``reason``."""

    __slots__ = ("socket", "started", "deadline", "reading", "dropped", "status", "reason")

    def __init__(self, connection: socket.socket, seconds: float) -> None:
        self.socket = connection
        self.started = time.monotonic()
        self.deadline = self.started + seconds
        self.reading = True
        self.dropped = False
        self.status = HTTPStatus.REQUEST_TIMEOUT
        self.reason = ""


class _Handler(BaseHTTPRequestHandler):
    server: "ExplorerServer"
    server_version = "polyregions-explorer"
    protocol_version = "HTTP/1.1"
    _record: _Connection | None = None

    # ----------------------------------------------------------------------------------------- the request
    def setup(self) -> None:
        self._record = self.server._record_of(self.request)
        super().setup()
        # No single read or write waits much longer than a request may take; the server's sweep (every half
        # second) drops a request that is too slow first, and answers it 408.
        self.connection.settimeout(self.server.request_seconds + 5)

    def handle_one_request(self) -> None:
        self.server._start_reading(self._record)
        super().handle_one_request()

    def parse_request(self) -> bool:
        if not super().parse_request():
            return False
        record = self._record
        if record is not None and record.dropped:  # the headers were cut short: not a request to answer
            self.send_error(record.status)
            return False
        try:
            self._check_framing()
        except _Reply as reply:
            self._error(reply.status, str(reply))
            return False
        return True

    def _check_framing(self) -> None:
        """Refuse headers that a proxy and this server could read as two different requests."""
        for name in ("Host", "Content-Length", "Origin", "Content-Type"):
            values = self.headers.get_all(name) or []
            if len(values) > 1:
                raise _Reply(HTTPStatus.BAD_REQUEST, f"{name}: expected at most one {name} header, got "
                                                     f"{len(values)}")
        if self.headers.get("Transfer-Encoding") is not None:
            with_length = " with Content-Length" if self.headers.get("Content-Length") is not None else ""
            raise _Reply(HTTPStatus.BAD_REQUEST, f"Transfer-Encoding: expected none (a body is sent with "
                                                 f"Content-Length), got Transfer-Encoding{with_length}")
        if self.command in ("GET", "HEAD") and self.headers.get("Content-Length") not in (None, "0"):
            raise _Reply(HTTPStatus.BAD_REQUEST, f"Content-Length: expected no body with {self.command}, got "
                                                 f"{self.headers.get('Content-Length', '')[:40]!r}")

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """http.server's own refusals (a malformed request line, too many headers) as JSON, like the others."""
        record = self._record
        if record is not None and record.dropped:
            code, message = record.status, record.reason
        try:
            status = HTTPStatus(code)
        except ValueError:
            status = HTTPStatus.BAD_REQUEST
        try:
            self._error(status, message or status.phrase)
        except OSError:  # the client is gone
            self.close_connection = True

    # -------------------------------------------------------------------------------------------- answers
    def _send(self, status: HTTPStatus, body: bytes, content_type: str, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        for name, value in {**_SECURITY_HEADERS, **(extra or {})}.items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _send_json(self, status: HTTPStatus, payload: Any, extra: dict[str, str] | None = None) -> None:
        self._send(status, json.dumps(payload, separators=(",", ":")).encode(), "application/json", extra)

    def _error(self, status: HTTPStatus, message: str) -> None:
        self.close_connection = True  # the rest of a refused body is not read
        self._send_json(status, {"error": message})

    def _check_host(self) -> None:
        port = self.server.server_address[1]
        if self.headers.get("Host", "") not in (f"{HOST}:{port}", f"localhost:{port}"):
            raise _Reply(HTTPStatus.FORBIDDEN, f"Host: expected {HOST}:{port} or localhost:{port}, got "
                                               f"{self.headers.get('Host', 'nothing')[:60]!r}")
        origin = self.headers.get("Origin")
        if origin is not None and origin not in (f"http://{HOST}:{port}", f"http://localhost:{port}"):
            raise _Reply(HTTPStatus.FORBIDDEN, f"Origin: expected http://{HOST}:{port} or http://localhost:{port} "
                                               f"(or none), got {origin[:60]!r}")

    # ------------------------------------------------------------------------------------------- methods
    def do_GET(self) -> None:  # noqa: N802 (the name http.server calls)
        try:
            self.server._stop_reading(self._record)
            self._check_host()
            path = self.path.split("?", 1)[0]
            if path == "/api/config":
                self._send_json(HTTPStatus.OK, _config(self.server.limits))
                return
            if path not in _STATIC:
                raise _Reply(HTTPStatus.NOT_FOUND, f"{path[:80]}: expected one of {', '.join(_STATIC)} or "
                                                   f"/api/config, got an unknown path")
            name, content_type = _STATIC[path]
            body = resources.files("polyregions.explore").joinpath("static", name).read_bytes()
            self._send(HTTPStatus.OK, body, content_type)
        except _Reply as reply:
            self._error(reply.status, str(reply))

    do_HEAD = do_GET

    def do_POST(self) -> None:  # noqa: N802
        started = time.perf_counter()
        try:
            self._check_host()
            view = _views().get(self.path)
            if view is None:
                raise _Reply(HTTPStatus.NOT_FOUND, f"{self.path[:80]}: expected POST to /api/arrangement or "
                                                   f"/api/network, got an unknown path")
            request = self._read_json()
            answer = view(request, limits=self.server.limits)
        except _Reply as reply:
            self._error(reply.status, str(reply))
            return
        except PolyregionsError as error:
            self._error(HTTPStatus.BAD_REQUEST, str(error))
            return
        except Exception as error:  # an answer, not a traceback page; the traceback goes to the server's log
            if not self.server.quiet:
                traceback.print_exc(file=sys.stderr)
            self._error(HTTPStatus.INTERNAL_SERVER_ERROR, f"internal error: {type(error).__name__}: {error}")
            return
        elapsed = (time.perf_counter() - started) * 1000
        self._send_json(HTTPStatus.OK, answer, {"Server-Timing": f"compute;dur={elapsed:.1f}"})

    def _read_json(self) -> Any:
        content_type = self.headers.get("Content-Type", "").split(";", 1)[0].strip().lower()
        if content_type != "application/json":
            raise _Reply(HTTPStatus.UNSUPPORTED_MEDIA_TYPE,
                         f"Content-Type: expected application/json, got {content_type[:60] or 'nothing'}")
        length_text = self.headers.get("Content-Length")
        if length_text is None:
            raise _Reply(HTTPStatus.LENGTH_REQUIRED, "Content-Length: expected the length of the body, got nothing")
        try:
            length = int(length_text)
        except ValueError:
            length = -1
        if length < 0:
            raise _Reply(HTTPStatus.BAD_REQUEST, f"Content-Length: expected a non-negative integer, got "
                                                 f"{length_text[:40]!r}")
        limit = self.server.limits.max_body_bytes
        if length > limit:
            raise _Reply(HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                         f"body: expected at most {limit} bytes, got {length}")
        try:
            body = self.rfile.read(length)
        except TimeoutError:
            body = b""
        self.server._stop_reading(self._record)
        if len(body) < length:
            record = self._record
            if record is not None and record.dropped:
                raise _Reply(record.status, record.reason)
            raise _Reply(HTTPStatus.REQUEST_TIMEOUT, f"body: expected {length} bytes within "
                                                     f"{self.server.request_seconds:g} s, got {len(body)}")
        try:
            return json.loads(body.decode("utf-8"), parse_constant=_reject_constant)
        except UnicodeDecodeError as error:
            raise _Reply(HTTPStatus.BAD_REQUEST, f"body: expected UTF-8 text, got {error.reason}") from None
        except json.JSONDecodeError as error:
            raise _Reply(HTTPStatus.BAD_REQUEST, f"body: expected valid JSON, got {error}") from None
        except InvalidInputError as error:
            raise _Reply(HTTPStatus.BAD_REQUEST, str(error)) from None
        except RecursionError:
            raise _Reply(HTTPStatus.BAD_REQUEST, "body: expected JSON nested a few levels deep, got one nested "
                                                 "too deeply") from None

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the signature of http.server)
        if not self.server.quiet:
            sys.stderr.write(f"polyregions explore: {self.address_string()} {format % args}\n")


def _reject_constant(name: str) -> Any:
    raise InvalidInputError(f"body: expected finite numbers, got {name}")


class ExplorerServer(ThreadingHTTPServer):
    """The explorer's HTTP server, bound to ``127.0.0.1``.

    Parameters
    ----------
    port : int, keyword-only
        The port; 0 takes any free one (read it from :attr:`url`).
    limits : Limits, keyword-only
        The bounds on a request.
    quiet : bool, keyword-only
        Do not log requests to stderr.

    Raises
    ------
    InvalidInputError
        When ``port`` is not in ``[0, 65535]`` or is in use.
    """

    daemon_threads = True
    request_queue_size = 128  # connections waiting to be accepted (a burst of them is taken in turn)

    def __init__(self, *, port: int = DEFAULT_PORT, limits: Limits = LIMITS, quiet: bool = True,
                 max_connections: int = 64, request_seconds: float = 10.0) -> None:
        if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
            raise InvalidInputError(f"port: expected an integer in [0, 65535], got {port!r}")
        if isinstance(max_connections, bool) or not isinstance(max_connections, int) or max_connections < 1:
            raise InvalidInputError(f"max_connections: expected a positive integer, got {max_connections!r}")
        if isinstance(request_seconds, bool) or not isinstance(request_seconds, (int, float)) or \
                not 0 < request_seconds < float("inf"):
            raise InvalidInputError(f"request_seconds: expected a positive number of seconds, got "
                                    f"{request_seconds!r}")
        self.limits = limits
        self.quiet = quiet
        self.max_connections = max_connections
        self.request_seconds = float(request_seconds)
        self._connections: dict[socket.socket, _Connection] = {}
        self._lock = threading.Lock()
        try:
            super().__init__((HOST, port), _Handler)
        except OSError as error:
            if error.errno in (errno.EADDRINUSE, errno.EACCES):
                raise InvalidInputError(f"port: expected a free port on {HOST}, got {port}, which "
                                        f"{'is in use' if error.errno == errno.EADDRINUSE else 'is not allowed'} "
                                        f"(choose another with --port N, or 0 for any free one)") from None
            raise

    def handle_error(self, request, client_address) -> None:
        """A client that went away mid-request (a tab closed, a connection reset) or stopped reading its answer
        is no fault of the server's and prints nothing; any other exception in a handler is reported as
        ``socketserver`` does."""
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)

    # ------------------------------------------------------------------------------ connections and time
    def process_request(self, request, client_address) -> None:
        """A thread for the connection, once it has a place: at most ``max_connections`` are held, and when all
        are taken the one that has been sending its request longest is dropped for the new one (a connection
        whose request has arrived and is being answered keeps its place; when every one is, the new one is
        answered 503 at once)."""
        with self._lock:
            held = [record for record in self._connections.values() if not record.dropped]
            if len(held) >= self.max_connections:
                reading = [record for record in held if record.reading]
                if not reading:
                    self._busy(request)
                    return
                self._drop(min(reading, key=lambda record: record.started), HTTPStatus.SERVICE_UNAVAILABLE,
                           f"connection: expected a request within the server's {self.max_connections} "
                           "connections, got one dropped for a newer connection while it was still being sent")
            self._connections[request] = _Connection(request, self.request_seconds)
        thread = threading.Thread(target=self.process_request_thread, args=(request, client_address), daemon=True)
        try:
            thread.start()
        except RuntimeError:  # no thread to be had: the connection is closed, the server goes on
            with self._lock:
                self._connections.pop(request, None)
            self.shutdown_request(request)

    def process_request_thread(self, request, client_address) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            with self._lock:
                self._connections.pop(request, None)

    def service_actions(self) -> None:
        """Between two polls of ``serve_forever`` (every half second): drop the connections whose request has
        not arrived in time."""
        now = time.monotonic()
        with self._lock:
            for record in self._connections.values():
                if record.reading and not record.dropped and now > record.deadline:
                    self._drop(record, HTTPStatus.REQUEST_TIMEOUT,
                               f"request: expected the headers and body within {self.request_seconds:g} s, got "
                               "them too slowly")

    def _record_of(self, connection: socket.socket) -> _Connection | None:
        with self._lock:
            return self._connections.get(connection)

    def _start_reading(self, record: _Connection | None) -> None:
        """A new request on the connection (the first, or the next one kept alive) has its own time."""
        if record is not None:
            with self._lock:
                record.reading = True
                record.started = time.monotonic()
                record.deadline = record.started + self.request_seconds

    def _stop_reading(self, record: _Connection | None) -> None:
        if record is not None:
            with self._lock:
                record.reading = False

    @staticmethod
    def _drop(record: _Connection, status: HTTPStatus, reason: str) -> None:
        """Shut the connection's reading side (under the lock): its handler's read ends at once, and it answers
        ``status`` if it can."""
        record.dropped, record.status, record.reason = True, status, reason
        try:
            record.socket.shutdown(socket.SHUT_RD)
        except OSError:
            pass

    def _busy(self, request: socket.socket) -> None:
        """Answer 503 without waiting for the client (every place is taken by a request being answered)."""
        body = json.dumps({"error": f"connection: expected a free place among the server's {self.max_connections} "
                                    "connections, got none (every one is answering a request)"}).encode()
        head = (f"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: {len(body)}"
                "\r\nConnection: close\r\n\r\n").encode()
        try:
            request.setblocking(False)
            request.send(head + body)
        except OSError:
            pass
        self.shutdown_request(request)

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT/``, the page."""
        return f"http://{HOST}:{self.server_address[1]}/"


def has_display() -> bool:
    """Whether a browser window can open here: always on macOS and Windows, with ``DISPLAY`` or
    ``WAYLAND_DISPLAY`` elsewhere (a text browser in the terminal would be no use)."""
    return sys.platform in ("darwin", "win32") or bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _warm_up() -> None:
    """Load what the first answers need (numpy, FLINT, HiGHS, the engines) before a student's first move."""
    from polyregions.explore.arrangement_api import arrangement_view
    from polyregions.explore.network_api import network_view

    arrangement_view({"name": "braid:3"})
    network_view({"widths": [2, 2, 1]})


def serve(*, port: int = DEFAULT_PORT, open_browser: bool = True, quiet: bool = True,
          announce: Callable[[str], None] | None = None) -> None:
    """Serve the explorer until interrupted, after printing its address (or passing it to ``announce``) and
    opening it in the default browser (unless ``open_browser`` is false or there is no display).

    Raises
    ------
    InvalidInputError
        When ``port`` is not in ``[0, 65535]`` or is in use.
    """
    server = ExplorerServer(port=port, quiet=quiet)
    try:
        if announce is None:
            print(f"polyregions explore: serving {server.url} (Ctrl-C to stop)", flush=True)
        else:
            announce(server.url)
        threading.Thread(target=_warm_up, name="warm-up", daemon=True).start()
        if open_browser and has_display():
            import webbrowser

            webbrowser.open(server.url)
        server.serve_forever()
    finally:
        server.server_close()
