"""A headless Chromium for the report page's checks (tests/report/test_report_browser.py)
and its benchmark (benchmarks/report_page.py): Debian's ``chromium`` and
``chromium-driver`` through selenium, started offline with a fresh profile.

``start_chromium`` returns None, with the reason, when something is missing, so a test
can skip saying what to install.
"""

from __future__ import annotations

import shutil
import tempfile

#: Chromium's switches: no sandbox (root in a container), nothing fetched or synced.
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync")


def missing() -> str | None:
    """What is missing to start the browser (None: nothing)."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install selenium)"
    for program, package in (("chromium", "chromium"), ("chromedriver", "chromium-driver")):
        if shutil.which(program) is None:
            return f"{program} is not installed (apt-get install -y {package})"
    return None


def start_chromium(profile: str | None = None, width: int = 1200, height: int = 900):
    """A selenium driver of a headless Chromium with :data:`FLAGS`, a fresh
    ``--user-data-dir`` (``profile``, default a new temporary folder) and the browser's
    console log kept; quit it when done."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for flag in (*FLAGS, f"--user-data-dir={profile or tempfile.mkdtemp()}"):
        options.add_argument(flag)
    options.binary_location = shutil.which("chromium")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    driver.set_window_size(width, height)
    return driver
