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
``localhost``) on its port, so that another web site cannot reach it through a renamed host (DNS rebinding).
A POST must say ``Content-Type: application/json`` (a cross-site form cannot) and carry at most
``LIMITS.max_body_bytes``. Every error is a JSON object ``{"error": "..."}``: 400 for bad input, with the message
of the :class:`~polyregions.errors.PolyregionsError`; 404, 411, 413 and 415 for the request itself; 500 with
the exception's type and message, never a traceback page. Each API answer carries the time it took in a
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


class _Handler(BaseHTTPRequestHandler):
    server: "ExplorerServer"
    server_version = "polyregions-explorer"
    protocol_version = "HTTP/1.1"

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

    # ------------------------------------------------------------------------------------------- methods
    def do_GET(self) -> None:  # noqa: N802 (the name http.server calls)
        try:
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
        body = self.rfile.read(length)
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

    def __init__(self, *, port: int = DEFAULT_PORT, limits: Limits = LIMITS, quiet: bool = True) -> None:
        if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
            raise InvalidInputError(f"port: expected an integer in [0, 65535], got {port!r}")
        self.limits = limits
        self.quiet = quiet
        try:
            super().__init__((HOST, port), _Handler)
        except OSError as error:
            if error.errno in (errno.EADDRINUSE, errno.EACCES):
                raise InvalidInputError(f"port: expected a free port on {HOST}, got {port}, which "
                                        f"{'is in use' if error.errno == errno.EADDRINUSE else 'is not allowed'} "
                                        f"(choose another with --port N, or 0 for any free one)") from None
            raise

    def handle_error(self, request, client_address) -> None:
        """A client that went away mid-request (a tab closed, a connection reset) is no fault of the server's
        and prints nothing; any other exception in a handler is reported as ``socketserver`` does."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)

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
