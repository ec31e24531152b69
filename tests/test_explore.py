"""The explorer's JSON API and server, without a browser: exact counts out, bad requests refused clearly."""

import http.client
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from fractions import Fraction

import pytest
from cpu_clock import timed
from hypothesis import given, settings
from hypothesis import strategies as st

import polyregions as pr
from polyregions.arrangements import Arrangement, canonical_hyperplanes, parse_name
from polyregions.cli import main
from polyregions.errors import InvalidInputError
from polyregions.explore import (
    LIMITS,
    NAMED_ARRANGEMENTS,
    ExplorerServer,
    arrangement_view,
    line_through,
    network_view,
)
from polyregions.explore._polygons import clip_rows, float_vertices, integer_row, window_vertices
from polyregions.plotting import arrangement_polygons, polygon_from_inequalities, region_polygons, window_polygon


def _lines(*pairs):
    """Lines as the page sends them: two points each, numbers as exact text."""
    return [[[str(v) for v in p], [str(v) for v in q]] for p, q in pairs]


def _arrangement(lines) -> Arrangement:
    points = [[[Fraction(v) for v in p] for p in line] for line in lines]
    return Arrangement([line_through(p, q) for p, q in points], dim=2)


def _floats(polygon):
    return [[float(x), float(y)] for x, y in polygon.vertices]


# ------------------------------------------------------------------------------------------- arrangements
CASES = {
    "braid-like: three lines through the origin": _lines(((-1, -1), (1, 1)), ((-1, 0), (1, 0)), ((0, -1), (0, 1))),
    "three lines through a point and one more": _lines(((0, -1), (0, 1)), ((-1, 0), (1, 0)), ((-1, 1), (1, -1)),
                                                       (("-1/2", -1), ("3/2", 1))),
    "parallel lines": _lines(((0, 0), (1, 0)), ((0, 1), (1, 1)), ((0, "0.25"), (1, "0.25")), ((0, 0), (0, 1))),
    "a triangle": _lines(((0, 0), (1, 0)), ((0, 0), (0, 1)), (("0.5", 0), (0, "0.5"))),
    "a line dragged onto another": _lines(((0, 0), (1, 1)), (("-1/2", "-1/2"), ("3/4", "3/4")), ((0, 1), (1, 0))),
    "no lines": [],
}


@pytest.mark.parametrize("lines", CASES.values(), ids=CASES.keys())
def test_counts_are_the_arrangements_and_zaslavskys(lines, tmp_path, capsys):
    view = arrangement_view({"lines": lines, "window": [[-2, -2], [2, 2]]})
    arrangement = _arrangement(lines)
    assert view["summary"] == arrangement.summary()
    assert view["zaslavsky"] == {"regions": arrangement.predicted_regions(),
                                 "bounded_regions": arrangement.predicted_bounded_regions()}
    assert view["zaslavsky"]["regions"] == view["summary"]["regions"] == len(view["regions"])
    assert view["zaslavsky"]["bounded_regions"] == view["summary"]["bounded_regions"] \
        == sum(r["bounded"] for r in view["regions"])
    assert view["characteristic_polynomial"] == list(arrangement.characteristic_polynomial())
    assert [f["mobius"] for f in view["poset"]["flats"]] == list(arrangement.poset.mobius)
    # the same lines through the command line
    path = tmp_path / "lines.json"
    pr.arrangements.write_arrangement(arrangement, path)
    assert main(["arrangement", str(path), "--json"]) == 0
    assert view["summary"] == json.loads(capsys.readouterr().out)


def test_a_line_dragged_onto_another_merges_with_it():
    view = arrangement_view({"lines": CASES["a line dragged onto another"]})
    assert [line["hyperplane"] for line in view["lines"]] == [0, 0, 1]
    assert view["summary"]["hyperplanes"] == 2 and view["summary"]["regions"] == 4


def test_regions_carry_sign_vectors_interior_points_and_exact_polygons():
    lines = CASES["three lines through a point and one more"]
    window = ((Fraction(-2), Fraction(-2)), (Fraction(2), Fraction(2)))
    view = arrangement_view({"lines": lines, "window": [["-2", "-2"], ["2", "2"]]})
    arrangement = _arrangement(lines)
    regions = arrangement.regions()
    assert [r["signs"] for r in view["regions"]] == [r.sign_string for r in regions]
    assert [r["bounded"] for r in view["regions"]] == [r.bounded for r in regions]
    for answer, region in zip(view["regions"], regions):
        assert region.contains([Fraction(v) for v in answer["interior_point"]])
    assert [r["polygon"] for r in view["regions"]] == [_floats(p) for p in arrangement_polygons(arrangement,
                                                                                                  window=window)]
    assert view["window"] == [["-2", "-2"], ["2", "2"]]


@pytest.mark.parametrize("name", NAMED_ARRANGEMENTS)
def test_named_arrangements_are_drawn_in_the_plane_with_draggable_lines(name):
    view = arrangement_view({"name": name})
    arrangement = parse_name(name)
    assert view["essentialized"] == (arrangement.dim != 2)
    assert view["summary"]["regions"] == arrangement.num_regions() == view["zaslavsky"]["regions"]
    assert view["summary"]["bounded_regions"] == len(arrangement.bounded_regions())
    assert len(view["lines"]) == len(arrangement) <= LIMITS.max_lines
    # the handles are exact points of the lines: sent back, they give the same arrangement
    again = arrangement_view({"lines": [line["points"] for line in view["lines"]], "window": view["window"]})
    assert again["summary"] == view["summary"]
    assert [line["hyperplane"] for line in again["lines"]] == list(range(len(arrangement)))
    assert all(len(v) <= LIMITS.max_number_chars for line in view["lines"] for p in line["points"] for v in p)
    assert all(len(v) <= LIMITS.max_number_chars for p in view["window"] for v in p)


@pytest.mark.parametrize("index", range(4))
def test_deletion_and_restriction_of_the_selected_line(index):
    lines = CASES["three lines through a point and one more"]
    view = arrangement_view({"lines": lines, "selected": index})
    arrangement = _arrangement(lines)
    selected = view["selected"]
    deletion, restriction = arrangement.deletion(selected["hyperplane"]), arrangement.restriction(
        selected["hyperplane"])
    assert selected["deletion"]["regions"] == deletion.num_regions()
    assert selected["deletion"]["characteristic_polynomial"] == list(deletion.characteristic_polynomial())
    assert selected["restriction"]["regions"] == restriction.num_regions() == len(selected["restriction"]["points"]) + 1
    assert selected["regions_add_up"] and selected["polynomials_agree"]
    (a1, a2, c) = arrangement.hyperplanes[selected["hyperplane"]]
    assert all(abs(a1 * x + a2 * y - c) < 1e-12 for x, y in selected["restriction"]["points"])


BAD_ARRANGEMENTS = [
    ([], "arrangement request: expected a JSON object"),
    ({}, "expected exactly one of name or lines, got neither"),
    ({"name": "braid:3", "lines": []}, "got both"),
    ({"lines": [], "colour": "red"}, "got unknown key \"colour\""),
    ({"name": "braid:9"}, "name: expected one of braid:3"),
    ({"lines": "x = 0"}, "lines: expected a list of lines"),
    ({"lines": [[[0, 0], [1, k]] for k in range(1, 14)]}, "lines: expected at most 12 lines, got 13"),
    ({"lines": [[[0, 0]]]}, "lines[0]: expected two points"),
    ({"lines": [[[0, 0], [0, "0/5"]]]}, "lines[0]: expected two different points, got (0, 0) twice"),
    ({"lines": [[[0, 0], [1, "one"]]]}, "lines[0][1][1]"),
    ({"lines": [[[0, 0], [1, True]]]}, "lines[0][1][1]: expected a number"),
    ({"lines": [[[0, 0], [1, "1" * 41]]]}, "at most 40 characters, got 41"),
    ({"lines": [[[0, 0], [1, "1e99"]]]}, "at most 40 digits"),
    ({"lines": [[[0, 0], [1, 1]]], "window": [[1, 0], [0, 1]]}, "window: expected x_min < x_max"),
    ({"lines": [[[0, 0], [1, 1]]], "selected": 1}, "selected: expected the index of a line in [0, 1)"),
    ({"lines": [[[0, 0], [1, 1]]], "selected": True}, "selected: expected the index of a line"),
]


@pytest.mark.parametrize("request_, message", BAD_ARRANGEMENTS, ids=[m for _, m in BAD_ARRANGEMENTS])
def test_bad_arrangement_requests_are_refused_with_the_field_named(request_, message):
    with pytest.raises(InvalidInputError, match=None) as error:
        arrangement_view(request_)
    assert message in str(error.value)


# ----------------------------------------------------------------------------------------------- networks
def _network(view) -> pr.Network:
    last = len(view["layers"]) - 1
    return pr.Network.from_layers(2, [(layer["weight"], layer["bias"], "linear" if l == last else "relu")
                                      for l, layer in enumerate(view["layers"])])


def _layers_request(view):
    return {"layers": [{"weight": layer["weight"], "bias": layer["bias"]} for layer in view["layers"]]}


@pytest.mark.parametrize("widths, seed", [([2, 8, 8, 1], 0), ([2, 5, 3, 2], 7), ([2, 4, 4, 4, 1], 3)])
def test_the_network_view_is_enumerate_regions(widths, seed):
    view = network_view({"widths": widths, "seed": seed})
    assert view["widths"] == widths
    assert all(Fraction(v) * 100 == round(Fraction(v) * 100) for layer in view["layers"] for row in layer["weight"]
               for v in row)
    complex_ = pr.enumerate_regions(_network(view), pr.box([-1, -1], [1, 1]))
    assert view["summary"] == complex_.summary()
    assert [r["pattern"].replace("|", "") for r in view["regions"]] == \
        ["".join(map(str, r.pattern)) for r in complex_.regions]
    assert [len(r["pattern"].split("|")) for r in view["regions"]] == [len(widths) - 2] * len(complex_)
    linear = {frozenset(i for i, r in enumerate(view["regions"]) if r["linear_region"] == k)
              for k in {r["linear_region"] for r in view["regions"]}}
    assert linear == set(complex_.linear_regions)
    assert [r["polygon"] for r in view["regions"]] == [_floats(p) for p in region_polygons(complex_)]
    # the weights sent back, as the sliders do, give the same answer
    assert network_view(_layers_request(view)) == view


def test_a_moved_weight_is_read_exactly():
    view = network_view({"widths": [2, 3, 1], "seed": 1})
    request = _layers_request(view)
    request["layers"][0]["weight"][0][0] = "37/100"
    request["layers"][0]["bias"][2] = "-0.25"
    moved = network_view(request)
    assert moved["layers"][0]["weight"][0][0] == "37/100" and moved["layers"][0]["bias"][2] == "-1/4"
    assert moved["summary"] == pr.enumerate_regions(_network(moved), pr.box([-1, -1], [1, 1])).summary()


def test_the_box_is_the_domain():
    view = network_view({"widths": [2, 4, 1], "seed": 0, "box": [["0", "-1/2"], ["2", "1/2"]]})
    assert view["box"] == [["0", "-1/2"], ["2", "1/2"]]
    assert view["summary"] == pr.enumerate_regions(_network(view), pr.box([0, "-1/2"], [2, "1/2"])).summary()


def _layer(width, fan_in, value="0.5"):
    return {"weight": [[value] * fan_in for _ in range(width)], "bias": ["0"] * width}


BAD_NETWORKS = [
    ({"widths": [2, 8, 1], "layers": []}, "expected exactly one of widths or layers, got both"),
    ({"widths": [3, 8, 1]}, "widths[0]: expected input dimension 2, got 3"),
    ({"widths": [2, 1]}, "widths: expected [2, hidden widths..., outputs]"),
    ({"widths": [2, 40, 25, 1]}, "widths: expected at most 64 hidden units, got 65"),
    ({"widths": [2, 8, 5]}, "widths: expected at most 4 outputs, got 5"),
    ({"widths": [2, 8, 1], "seed": -1}, "seed: expected an integer in [0, 2^32)"),
    ({"layers": [_layer(4, 2)], "seed": 0}, "seed: expected it only with widths"),
    ({"layers": [_layer(4, 2)]}, "layers: expected a list of at least two layers"),
    ({"layers": [_layer(4, 2), _layer(1, 3)]}, "layers[1].weight[0]: expected 4 numbers"),
    ({"layers": [_layer(4, 3), _layer(1, 4)]}, "layers[0].weight[0]: expected 2 numbers"),
    ({"layers": [_layer(65, 2), _layer(1, 65)]}, "layers: expected at most 64 hidden units, got 65"),
    ({"layers": [_layer(4, 2), {"weight": [["1"] * 4], "bias": []}]}, "layers[1].bias: expected a list of 1"),
    ({"layers": [_layer(4, 2, "x"), _layer(1, 4)]}, "layers[0].weight[0][0]"),
    ({"layers": [_layer(4, 2), {"weight": [["1"] * 4], "bias": ["0"], "relu": 1}]}, "unknown key \"relu\""),
    ({"widths": [2, 4, 1], "box": [[0, 0], [0, 1]]}, "box: expected x_min < x_max"),
]


@pytest.mark.parametrize("request_, message", BAD_NETWORKS, ids=[m for _, m in BAD_NETWORKS])
def test_bad_network_requests_are_refused_with_the_field_named(request_, message):
    with pytest.raises(InvalidInputError) as error:
        network_view(request_)
    assert message in str(error.value)


# ------------------------------------------------------------------------------------------------ polygons
_coefficient = st.integers(-6, 6)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_coefficient, _coefficient, _coefficient).filter(lambda r: r[0] or r[1]), max_size=6),
       st.sampled_from([((-2, -2), (2, 2)), ((Fraction(-1, 3), 0), (Fraction(5, 2), Fraction(7, 4)))]))
def test_integer_clipping_gives_the_polygons_of_the_plotting_module(rows, window):
    expected = polygon_from_inequalities([r[:2] for r in rows], [r[2] for r in rows], window=window_polygon(*window))
    got = clip_rows(window_vertices(*window), [integer_row(r[:2], r[2]) for r in rows])
    assert [(Fraction(x, w), Fraction(y, w)) for x, y, w in got] == list(expected.vertices)
    assert float_vertices(got) == _floats(expected)


# -------------------------------------------------------------------------------------------------- server
@pytest.fixture(scope="module")
def server():
    server = ExplorerServer(port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _ask(server, method, path, body=None, headers=None):
    connection = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=30)
    try:
        connection.request(method, path, body=body, headers=headers if headers is not None else
                           {"Content-Type": "application/json"})
        reply = connection.getresponse()
        return reply.status, dict(reply.getheaders()), reply.read()
    finally:
        connection.close()


def _post(server, path, payload):
    status, headers, body = _ask(server, "POST", path, json.dumps(payload).encode())
    return status, headers, json.loads(body)


def test_the_server_listens_on_the_loopback_address_only(server):
    host, port = server.server_address
    assert host == "127.0.0.1" and server.url == f"http://127.0.0.1:{port}/"
    with pytest.raises(OSError):  # the rest of 127.0.0.0/8 is loopback too, but nothing listens there
        socket.create_connection(("127.0.0.2", port), timeout=5).close()


def test_the_page_and_its_files_are_served_with_a_strict_policy(server):
    status, headers, body = _ask(server, "GET", "/")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert "default-src 'self'" in headers["Content-Security-Policy"]
    page = body.decode()
    assert 'src="explorer.js"' in page and 'href="explorer.css"' in page and "http" not in page.split("<body")[1]
    for path, kind in (("/explorer.js", "text/javascript"), ("/explorer.css", "text/css")):
        status, headers, body = _ask(server, "GET", path)
        assert status == 200 and headers["Content-Type"].startswith(kind) and body
        body = body.replace(b'"http://www.w3.org/2000/svg"', b"")  # the SVG namespace is a name, not a fetch
        assert b"http://" not in body and b"https://" not in body  # nothing is fetched from elsewhere
    status, _, body = _ask(server, "GET", "/api/config")
    config = json.loads(body)
    assert status == 200 and config["arrangements"] == list(NAMED_ARRANGEMENTS)
    assert config["limits"] == LIMITS.to_json()


def test_the_api_answers_what_the_functions_compute(server):
    lines = CASES["three lines through a point and one more"]
    status, headers, answer = _post(server, "/api/arrangement", {"lines": lines, "selected": 1})
    assert status == 200 and answer == arrangement_view({"lines": lines, "selected": 1})
    assert headers["Server-Timing"].startswith("compute;dur=")
    status, _, answer = _post(server, "/api/network", {"widths": [2, 4, 1], "seed": 2})
    assert status == 200 and answer == network_view({"widths": [2, 4, 1], "seed": 2})


BAD_HTTP = [
    ("not JSON", {}, b"{lines: ", 400, "body: expected valid JSON"),
    ("NaN", {}, b'{"lines": [[[0, NaN], [1, 1]]]}', 400, "body: expected finite numbers, got NaN"),
    ("not UTF-8", {}, b'{"name": "\xff"}', 400, "body: expected UTF-8 text"),
    ("nested deeply", {}, b"[" * 100_000, 400, "body: expected JSON nested a few levels deep"),
    ("bad input", {}, b'{"lines": [[[0, 0], [0, 0]]]}', 400, "lines[0]: expected two different points"),
    ("no JSON type", {"Content-Type": "text/plain"}, b"{}", 415, "Content-Type: expected application/json"),
    ("too large", {}, b" " * (LIMITS.max_body_bytes + 1), 413, f"body: expected at most {LIMITS.max_body_bytes}"),
]


@pytest.mark.parametrize("case, headers, body, status, message", BAD_HTTP, ids=[c[0] for c in BAD_HTTP])
def test_bad_requests_get_a_json_error_and_never_a_traceback(server, case, headers, body, status, message):
    got_status, got_headers, got_body = _ask(server, "POST", "/api/arrangement", body,
                                             {"Content-Type": "application/json", **headers})
    assert got_status == status and got_headers["Content-Type"] == "application/json"
    error = json.loads(got_body)["error"]
    assert message in error and "Traceback" not in error


def test_unknown_paths_and_other_hosts_are_refused(server):
    status, _, body = _ask(server, "GET", "/../setup.cfg")
    assert status == 404 and "unknown path" in json.loads(body)["error"]
    status, _, body = _ask(server, "POST", "/api/everything", b"{}")
    assert status == 404
    port = server.server_address[1]
    status, _, body = _ask(server, "GET", "/", headers={"Host": f"evil.example:{port}"})
    assert status == 403 and "Host: expected 127.0.0.1" in json.loads(body)["error"]
    assert _ask(server, "GET", "/api/config", headers={"Host": f"localhost:{port}"})[0] == 200


def test_an_unexpected_failure_is_a_json_500(server, monkeypatch):
    import polyregions.explore.arrangement_api as api

    def broken(request, *, limits):
        raise RuntimeError("the sky fell")

    monkeypatch.setattr(api, "arrangement_view", broken)
    status, headers, answer = _post(server, "/api/arrangement", {"name": "braid:3"})
    assert status == 500 and answer == {"error": "internal error: RuntimeError: the sky fell"}


def test_a_port_in_use_or_out_of_range_is_bad_input(server):
    with pytest.raises(InvalidInputError, match=r"port: expected a free port on 127.0.0.1, got \d+, which is in use"):
        ExplorerServer(port=server.server_address[1])
    with pytest.raises(InvalidInputError, match=r"port: expected an integer in \[0, 65535\], got 70000"):
        ExplorerServer(port=70000)


def _best_time(server, path, payload, repeat=5) -> float:
    body = json.dumps(payload).encode()
    best = float("inf")
    for _ in range(repeat):  # CPU seconds of this process, which serves the request in a thread
        with timed() as elapsed:
            status, _, _ = _ask(server, "POST", path, body)
        best = min(best, elapsed.seconds)
        assert status == 200
    return best


def test_interaction_answers_in_under_100_ms(server, capsys):
    twelve = arrangement_view({"name": "generic:12,2"})
    drag = {"lines": [line["points"] for line in twelve["lines"]], "window": twelve["window"], "selected": 3}
    small = network_view({"widths": [2, 8, 8, 1], "seed": 0})
    times = {"12 lines (generic:12,2), a drag with a selected line": _best_time(server, "/api/arrangement", drag),
             "network [2, 8, 8, 1], a slider move": _best_time(server, "/api/network", _layers_request(small))}
    for widths in ([2, 16, 16, 1], [2, 32, 32, 1], [2, 64, 1]):
        request = _layers_request(network_view({"widths": widths, "seed": 0}))
        times[f"network {widths}, a slider move"] = _best_time(server, "/api/network", request, repeat=2)
    with capsys.disabled():
        print("\nexplorer API, best CPU time of a request over HTTP (client and server):")
        for what, seconds in times.items():
            print(f"  {what:<55} {seconds * 1000:7.1f} ms")
    assert times["12 lines (generic:12,2), a drag with a selected line"] < 0.1
    assert times["network [2, 8, 8, 1], a slider move"] < 0.1
    assert all(seconds < 2 for seconds in times.values())


# ---------------------------------------------------------------------------------------------- command line
def test_the_command_serves_until_interrupted():
    process = subprocess.Popen([sys.executable, "-m", "polyregions", "explore", "--port", "0", "--no-open"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")})
    try:
        line = process.stdout.readline()
        assert line.startswith("polyregions explore: serving http://127.0.0.1:") and "Ctrl-C" in line
        url = line.split("serving ", 1)[1].split()[0]
        port = int(url.rsplit(":", 1)[1].strip("/"))
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        connection.request("GET", "/api/config")
        assert connection.getresponse().status == 200
        connection.close()
    finally:
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
    assert process.returncode == 130 and err.strip().endswith("polyregions: interrupted")


def test_a_client_resetting_its_connection_mid_request_prints_nothing(server, capfd):
    capfd.readouterr()
    client = socket.create_connection(("127.0.0.1", server.server_address[1]), timeout=5)
    client.sendall(b"GET /api/config HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # the headers not finished
    client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    client.close()  # with a zero linger: a reset, which the handler reading the headers meets
    time.sleep(0.5)
    assert _ask(server, "GET", "/api/config")[0] == 200  # still serving
    assert "Exception" not in capfd.readouterr().err


def test_the_command_refuses_a_bad_port(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["explore", "--port", "70000", "--no-open"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err == "polyregions: error: port: expected an integer in [0, 65535], got 70000\n"


@pytest.mark.parametrize("display, flag, opened", [("1", False, True), ("1", True, False), (None, False, False)])
def test_the_browser_opens_only_with_a_display_and_without_no_open(monkeypatch, display, flag, opened):
    import webbrowser

    from polyregions.explore import server as server_module

    seen = []
    monkeypatch.setattr(webbrowser, "open", seen.append)
    monkeypatch.setattr(server_module.ExplorerServer, "serve_forever", lambda self: None)
    monkeypatch.setattr(server_module, "_warm_up", lambda: None)
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    if display is None:
        monkeypatch.delenv("DISPLAY", raising=False)
    else:
        monkeypatch.setenv("DISPLAY", ":1")
    argv = ["explore", "--port", "0"] + (["--no-open"] if flag else [])
    assert main(argv) == 0
    assert bool(seen) == opened and all(url.startswith("http://127.0.0.1:") for url in seen)


def test_canonical_rows_of_lines_through_two_points():
    assert canonical_hyperplanes([line_through((Fraction(0), Fraction(1)), (Fraction(2), Fraction(0)))])[1] == \
        ((1, 2, 2),)
