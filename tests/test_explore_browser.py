"""The explorer in a real browser: headless Chromium driven by Selenium, against a server on a loopback port.

Dragging a line must show the counts that ``polyregions arrangement FILE --json`` prints for the lines the page
then holds, and that the API answers; moving a weight's slider must show the counts of ``pr.enumerate_regions``.
Skipped where Chromium, its driver or Selenium is missing (``apt-get install chromium chromium-driver``; Selenium
is in the ``test`` extra). With ``POLYREGIONS_UPDATE_SCREENSHOTS=1`` the tests also write the two screenshots of
``docs/teaching/explorer.rst`` into ``docs/_static/``.
"""

import json
import os
import shutil
import subprocess
import sys
import threading
import urllib.request
from fractions import Fraction
from pathlib import Path

import pytest

import polyregions as pr
from polyregions.explore import ExplorerServer, line_through

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
STATIC = Path(__file__).resolve().parents[1] / "docs" / "_static"

pytestmark = pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None,
                                reason="headless Chromium and its driver are not installed "
                                       "(apt-get install -y chromium chromium-driver)")
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (the test extra has it)")

from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


@pytest.fixture(scope="module")
def server():
    server = ExplorerServer(port=0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    # No network here: without the background-networking flags Chromium keeps trying to reach its vendor.
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--window-size=1280,900",
                 f"--user-data-dir={tmp_path_factory.mktemp('chromium')}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


def _responses(driver) -> int:
    return int(driver.find_element(By.TAG_NAME, "body").get_attribute("data-responses") or 0)


def _settled(driver, after: int) -> None:
    """Wait until the page has had an answer beyond the first ``after`` and has no request in flight."""
    body = driver.find_element(By.TAG_NAME, "body")
    WebDriverWait(driver, 60).until(lambda d: body.get_attribute("data-state") == "idle"
                                    and int(body.get_attribute("data-responses") or 0) > after)
    error = driver.find_element(By.ID, "error")
    assert not error.is_displayed(), error.text


def _text(driver, element_id: str) -> str:
    return driver.find_element(By.ID, element_id).text


def _post(server, path: str, payload) -> dict:
    request = urllib.request.Request(server.url + path.lstrip("/"), data=json.dumps(payload).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as reply:
        return json.load(reply)


def _screenshot(driver, tmp_path, name: str) -> None:
    driver.save_screenshot(str(tmp_path / name))
    if os.environ.get("POLYREGIONS_UPDATE_SCREENSHOTS") == "1":
        STATIC.mkdir(exist_ok=True)
        shutil.copyfile(tmp_path / name, STATIC / name)


def test_dragging_a_line_shows_the_counts_of_the_command_line(server, browser, tmp_path):
    browser.get(server.url)
    _settled(browser, 0)
    assert _text(browser, "a-regions") == "11"  # the four lines of the course: x = 0, y = 0, x + y = 1, x - y = 1/2
    assert browser.execute_script("return explorer.lines()")[3] == [["-1/2", "-1"], ["3/2", "1"]]
    # drag the end (3/2, 1) of the last line to (1/2, 1): the line then passes through the origin, with two others
    handle = browser.find_element(By.CSS_SELECTOR, 'circle.handle[data-line="3"][data-end="q"]')
    before = _responses(browser)
    scale = browser.find_element(By.ID, "plane").size["width"] / 4  # pixels per unit: the window is [-2, 2]^2
    ActionChains(browser).move_to_element(handle).click_and_hold().move_by_offset(-round(scale / 2), 0) \
        .move_by_offset(-round(scale / 2), 0).release().perform()
    _settled(browser, before)
    WebDriverWait(browser, 30).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-state")
                                     == "idle")
    lines = browser.execute_script("return explorer.lines()")
    assert lines[3] == [["-1/2", "-1"], ["1/2", "1"]]
    # the same lines through the command line
    rows = [[str(v) for v in line_through(*[tuple(Fraction(c) for c in p) for p in line])] for line in lines]
    path = tmp_path / "lines.json"
    path.write_text(json.dumps({"format": "polyregions.arrangement/1", "dimension": 2, "hyperplanes": rows}))
    cli = json.loads(subprocess.run([sys.executable, "-m", "polyregions", "arrangement", str(path), "--json"],
                                    capture_output=True, text=True, check=True).stdout)
    shown = {name: int(_text(browser, f"a-{name}"))
             for name in ("regions", "bounded", "zaslavsky-regions", "zaslavsky-bounded")}
    assert shown == {"regions": cli["regions"], "bounded": cli["bounded_regions"],
                     "zaslavsky-regions": cli["zaslavsky"]["regions"],
                     "zaslavsky-bounded": cli["zaslavsky"]["bounded_regions"]}
    assert shown["regions"] == 10  # three lines through a point now: one region fewer
    assert _post(server, "/api/arrangement", {"lines": lines})["summary"] == cli
    assert len(browser.find_elements(By.CSS_SELECTOR, "#plane polygon.region")) == cli["regions"]
    assert len(browser.find_elements(By.CSS_SELECTOR, "#poset circle.flat")) == sum(cli["flats_by_rank"])


def test_clicking_a_line_shows_its_deletion_and_restriction(server, browser, tmp_path):
    browser.get(server.url)
    _settled(browser, 0)
    before = _responses(browser)
    browser.find_element(By.CSS_SELECTOR, 'line.line-hit[data-line="2"]').click()
    _settled(browser, before)
    lines = browser.execute_script("return explorer.lines()")
    answer = _post(server, "/api/arrangement", {"lines": lines, "selected": 2})["selected"]
    text = _text(browser, "a-selected")
    h = f"H{answer['hyperplane']}"
    assert f"deletion A∖{h}: {answer['deletion']['regions']} regions" in text
    assert f"restriction A/{h}: {answer['restriction']['regions']} regions" in text
    assert f"r(A) = r(A∖{h}) + r(A/{h}): 11 = 7 + 4" in text  # the course's example
    assert len(browser.find_elements(By.CSS_SELECTOR, "circle.restriction-point")) == 3
    _screenshot(browser, tmp_path, "explorer_arrangement.png")


def test_moving_a_slider_shows_the_counts_of_enumerate_regions(server, browser, tmp_path):
    browser.get(server.url)
    _settled(browser, 0)
    before = _responses(browser)
    browser.find_element(By.ID, "tab-network").click()
    _settled(browser, before)
    WebDriverWait(browser, 60).until(lambda d: d.execute_script("return explorer.layers() !== null")
                                     and _text(d, "n-activation") != "")
    layers = browser.execute_script("return explorer.layers()")
    assert [len(layer["weight"]) for layer in layers] == [8, 8, 1]
    slider = browser.find_element(By.ID, "w-0-0-0")
    old = Fraction(layers[0]["weight"][0][0])
    before = _responses(browser)
    slider.send_keys(Keys.ARROW_RIGHT)
    _settled(browser, before)
    layers = browser.execute_script("return explorer.layers()")
    assert Fraction(layers[0]["weight"][0][0]) == old + Fraction(1, 100)
    net = pr.Network.from_layers(2, [(layer["weight"], layer["bias"], "linear" if l == 2 else "relu")
                                     for l, layer in enumerate(layers)])
    summary = pr.enumerate_regions(net, pr.box([-1, -1], [1, 1])).summary()
    assert int(_text(browser, "n-activation")) == summary["activation_regions"]
    assert int(_text(browser, "n-linear")) == summary["linear_regions"]
    assert int(_text(browser, "n-neurons")) == summary["neurons"] == 16
    assert len(browser.find_elements(By.CSS_SELECTOR, "#net-plane polygon.region")) == summary["activation_regions"]
    _screenshot(browser, tmp_path, "explorer_network.png")


def _viewport(driver, width: int, height: int) -> None:
    """The page's own size (the window's inner size), whatever the window's frame takes."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})


def _on_screen(driver, element_id: str) -> bool:
    """Whether the element's whole box lies in the viewport, with the page not scrolled."""
    return driver.execute_script(
        "const r = document.getElementById(arguments[0]).getBoundingClientRect();"
        "return r.width > 0 && r.left >= 0 && r.top >= 0 && r.right <= innerWidth && r.bottom <= innerHeight;",
        element_id)


@pytest.mark.parametrize("width, height", [(1024, 768), (1920, 1080)])
def test_canvas_counts_and_controls_fit_the_screen(server, browser, tmp_path, width, height):
    _viewport(browser, width, height)
    try:
        browser.get(server.url)
        _settled(browser, 0)
        for element in ("plane", "named", "load-named", "snap", "fit", "clear-lines", "a-regions", "a-bounded",
                        "a-chi", "a-zaslavsky-regions", "a-agree", "a-hover"):
            assert _on_screen(browser, element), element
        # The initial state is one story: the box names the course's four lines, which the canvas and counts show.
        assert browser.execute_script("return explorer.source()") == "course"
        assert "four lines" in browser.find_element(By.CSS_SELECTOR, "#named option:checked").text
        assert len(browser.execute_script("return explorer.lines()")) == 4 and _text(browser, "a-lines") == "4 (4)"
        assert len(browser.find_elements(By.CSS_SELECTOR, "#plane polygon.region")) == int(_text(browser, "a-regions"))
        # Labels scale with the canvas: at least 10 px on screen.
        sizes = browser.execute_script("return [...document.querySelectorAll('#plane .region-label')]"
                                       ".map((t) => t.getBoundingClientRect().height)")
        assert sizes and min(sizes) >= 10
        _screenshot(browser, tmp_path, f"explorer_{width}x{height}.png")
        before = _responses(browser)
        browser.find_element(By.ID, "tab-network").click()
        _settled(browser, before)
        WebDriverWait(browser, 60).until(lambda d: _text(d, "n-activation") != "")
        for element in ("net-plane", "widths", "seed", "new-network", "n-activation", "n-linear", "n-hover"):
            assert _on_screen(browser, element), element
        ticks = [t.text for t in browser.find_elements(By.CSS_SELECTOR, "#net-plane .tick-label")]
        assert ticks[:2] == ["−1", "−1"] and "0.5" in ticks  # the axes of the box [-1, 1]^2
        summaries = [s.text for s in browser.find_elements(By.CSS_SELECTOR, "#sliders summary")]
        assert summaries[-1] == "Layer 3: 1 linear output, 8 inputs"
        _screenshot(browser, tmp_path, f"explorer_network_{width}x{height}.png")
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_hover_text_follows_what_is_drawn_after_load(server, browser):
    browser.get(server.url)
    _settled(browser, 0)
    region = browser.find_element(By.CSS_SELECTOR, '#plane polygon.region[data-signs="++++"]')
    ActionChains(browser).move_to_element(region).perform()
    assert _text(browser, "a-hover").startswith("++++ ·")
    # Load braid:3 while the pointer rests on the canvas: no region of three lines is "++++".
    browser.execute_script("document.getElementById('named').value = 'braid:3'")
    before = _responses(browser)
    browser.execute_script("document.getElementById('load-named').click()")
    _settled(browser, before)
    assert browser.execute_script("return explorer.source()") == "braid:3"
    signs = {p.get_attribute("data-signs") for p in browser.find_elements(By.CSS_SELECTOR, "#plane polygon.region")}
    hover = _text(browser, "a-hover")
    assert "++++" not in hover
    assert hover == "Point at a region for its sign vector." or hover.split(" ·")[0] in signs
    # Moving a line makes the box say "your lines", never the name of what is no longer drawn.
    handle = browser.find_element(By.CSS_SELECTOR, 'circle.handle[data-line="0"][data-end="q"]')
    before = _responses(browser)
    ActionChains(browser).move_to_element(handle).click_and_hold().move_by_offset(-40, 0).release().perform()
    _settled(browser, before)
    assert browser.execute_script("return explorer.source()") == ""
    assert browser.find_element(By.CSS_SELECTOR, "#named option:checked").text == "your lines (edited)"


def test_the_page_names_its_icon_inline(server, browser):
    browser.get(server.url)
    icon = browser.find_element(By.CSS_SELECTOR, "link[rel=icon]").get_attribute("href")
    assert icon.startswith("data:image/svg+xml,")  # no request for /favicon.ico, so no 404 on every load
