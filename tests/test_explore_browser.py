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
