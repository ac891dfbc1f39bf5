"""The report page in a real headless Chromium (issue 51 item 2): ``discover --report`` on
Sachs-like known relations and on a V = 1000 simulated run; the page must log no script
error, its table must have rows, sort and search, its figures must not be blank, and the
known and discovered edges must be drawn apart. A screenshot of each page is written under
the test's folder. How fast the V = 1000 page opens and what it weighs:
``python -m benchmarks.report_page``."""

from __future__ import annotations

import io
import itertools
from pathlib import Path

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import causalcal
from benchmarks.chromium import missing, start_chromium
from benchmarks.report_page import write_large_run
from causalcal.cli import main

pytestmark = pytest.mark.slow

SACHS = Path(causalcal.__file__).resolve().parents[1] / "studies/discover_known/data/sachs"


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    reason = missing()
    if reason is not None:
        pytest.skip(f"the browser tests need Chromium: {reason}")
    driver = start_chromium(str(tmp_path_factory.mktemp("profile")))
    yield driver
    driver.quit()


def sachs_known() -> pd.DataFrame:
    """The consensus network's arcs as known ``->`` and 12 pairs it leaves apart as
    ``none`` (the README's Sachs data, as edge types)."""
    target = pd.read_csv(SACHS / "cyto_full_target.csv")
    joined = nx.Graph(target.to_numpy().tolist())
    names = pd.read_csv(SACHS / "cyto_full_data.csv", nrows=0).columns
    rows = [(a, b, "->") for a, b in target.to_numpy()]
    rows += [(a, b, "none") for a, b in itertools.combinations(names, 2)
             if not joined.has_edge(a, b)][:12]
    return pd.DataFrame(rows, columns=["a", "b", "relation"])


@pytest.fixture(scope="module")
def sachs_page(tmp_path_factory):
    root = tmp_path_factory.mktemp("sachs")
    sachs_known().to_csv(root / "known.csv", index=False)
    assert main(["discover", str(SACHS / "cyto_full_data.csv"), "--discretize", "quantile:3",
                 "--known", str(root / "known.csv"), "--n-boot", "6", "--jobs", "2",
                 "--quiet", "--out", str(root / "edges.csv"),
                 "--report", str(root / "run.html")]) == 0
    return root / "run.html"


@pytest.fixture(scope="module")
def large_page(tmp_path_factory):
    """V = 1000, two replicates, 80 known pairs (benchmarks/report_page.py)."""
    return write_large_run(tmp_path_factory.mktemp("v1000"))


def _column(driver, k: int) -> list[str]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#pairs-table tbody tr'))"
        ".map(r => r.cells[arguments[0]].textContent)", k)


def _in_order(driver, values: list[str], descending: bool = False) -> bool:
    """Whether ``values`` are sorted as the page sorts text (the browser's collation)."""
    return driver.execute_script(
        "const v = arguments[0], d = arguments[1] ? -1 : 1;"
        "return v.every((x, i) => i === 0 || d * v[i - 1].localeCompare(x) <= 0)",
        values, descending)


def _not_blank(png: bytes) -> float:
    """The share of a screenshot's pixels that are not (near) white."""
    from PIL import Image

    pixels = np.asarray(Image.open(io.BytesIO(png)).convert("L"))
    return float((pixels < 235).mean())


def check_page(driver, page: Path, shot: Path) -> None:
    from selenium.webdriver.common.by import By

    driver.set_window_size(1200, 900)
    driver.get(page.as_uri())
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors
    first = _column(driver, 0)
    assert first, "the table of pairs has no rows"
    headers = driver.find_elements(By.CSS_SELECTOR, "#pairs-table thead th")
    names = [h.text for h in headers]
    k = names.index("p_adjacent")
    ranked = [float(x) for x in _column(driver, k)]
    assert ranked == sorted(ranked, reverse=True)  # top pairs first
    headers[k].click()
    up = [float(x) for x in _column(driver, k)]
    assert up == sorted(up) and up != ranked
    assert headers[k].get_attribute("aria-sort") == "ascending"
    headers[k].click()
    down = [float(x) for x in _column(driver, k)]
    assert down == sorted(down, reverse=True) and down != up
    assert headers[k].get_attribute("aria-sort") == "descending"
    headers[1].click()
    assert _in_order(driver, _column(driver, 1))
    headers[1].click()
    assert _in_order(driver, _column(driver, 1), descending=True)
    search = driver.find_element(By.ID, "pairs-search")
    search.send_keys(first[0])
    a, b = _column(driver, 0), _column(driver, 1)
    assert a and all(first[0].lower() in f"{x} {y}".lower() for x, y in zip(a, b))
    search.clear()
    search.send_keys("no-such-variable-at-all")
    assert _column(driver, 0) == []
    assert "no pair matches" in driver.find_element(By.ID, "pairs-info").text
    for figure in ("fig-reliability", "fig-network"):
        svg = driver.find_element(By.CSS_SELECTOR, f"#{figure} svg")
        driver.execute_script("arguments[0].scrollIntoView()", svg)
        assert svg.size["width"] > 150 and svg.size["height"] > 150, figure
        assert _not_blank(svg.screenshot_as_png) > 0.01, f"{figure} is blank"
    strokes = {}
    for edge in ("known", "discovered"):
        paths = driver.find_elements(By.CSS_SELECTOR,
                                     f"#fig-network g[id^='edge-{edge}-'] path")
        assert paths, f"no {edge} edge drawn"
        strokes[edge] = {driver.execute_script("return getComputedStyle(arguments[0]).stroke",
                                               p) for p in paths}
        rows = driver.find_elements(By.CSS_SELECTOR, f"#network-table tr.edge-{edge}")
        assert rows and all(r.find_elements(By.TAG_NAME, "td")[-1].text == edge
                            for r in rows)
    assert strokes["known"].isdisjoint(strokes["discovered"]), strokes
    height = driver.execute_script("return document.body.scrollHeight")
    driver.set_window_size(1200, min(height, 12000))
    driver.save_screenshot(str(shot))
    driver.set_window_size(390, 844)  # a phone: the page fits its width, tables scroll
    width = driver.execute_script("return document.documentElement.scrollWidth")
    assert width <= 400
    driver.save_screenshot(str(shot.with_name(shot.stem + "-phone.png")))


def test_the_sachs_page_in_a_browser(browser, sachs_page):
    check_page(browser, sachs_page, sachs_page.with_name("run.png"))
    assert sachs_page.with_name("run.png").stat().st_size > 10_000


def test_the_v1000_page_in_a_browser(browser, large_page):
    from selenium.webdriver.common.by import By

    check_page(browser, large_page, large_page.with_name("run.png"))
    browser.get(large_page.as_uri())
    info = browser.find_element(By.ID, "pairs-info").text
    assert "of 5000" in info and "page 1 of 100" in info
    browser.find_element(By.ID, "pairs-next").click()
    assert "rows 51–100" in browser.find_element(By.ID, "pairs-info").text
    text = browser.find_element(By.ID, "pairs").text
    assert "The top 5000 of 499420 pairs" in text and "edges.csv" in text
