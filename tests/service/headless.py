"""Headless chromium for the browser tests (Debian's chromium, chromium-driver and
python3-selenium: an optional part, scripts/bootstrap --with browser; scripts/test installs it).
Importing this module without them skips the test (exit 77, CTest SKIP_RETURN_CODE), not fails
it. chromium(profile, width, height): a fresh profile, no background network traffic;
serve(sao, data, token): `sao serve` on a free port, and its URL; workbench(prefix, token,
page_ids): both for one test's main (below)."""
import argparse
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By  # noqa: F401 (for the tests)
    from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: F401
except ImportError:
    print("SKIP: python3-selenium is not installed (scripts/bootstrap --with browser)")
    sys.exit(77)
if not (shutil.which("chromium") and os.path.exists("/usr/bin/chromedriver")):
    print("SKIP: chromium or chromium-driver is not installed (scripts/bootstrap --with browser)")
    sys.exit(77)


def chromium(profile, width, height):
    options = webdriver.ChromeOptions()
    for flag in ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--allow-file-access-from-files", "--user-data-dir=" + profile,
                 "--window-size=%d,%d" % (width, height)]:
        options.add_argument(flag)
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    return webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"),
                            options=options)


def serve(sao, data, token):
    server = subprocess.Popen([sao, "serve", "--port", "0", "--data", data, "--token", token],
                              stdout=subprocess.PIPE, text=True)
    line = server.stdout.readline()
    match = re.search(r"serving (http://\S+/)", line)
    if not match:
        server.kill()
        sys.exit("sao serve did not start: " + line)
    return server, match.group(1)


@contextlib.contextmanager
def workbench(prefix, token, page_ids):
    """A browser test's session: its arguments (`sao`, the source folder, --screenshot FILE),
    `sao serve` on a fresh data folder and a headless chromium; yields (args, driver, url). On
    a failure the text of the page's elements `page_ids` goes to stderr, for the log; the
    browser, the server and the folder go in every case."""
    parser = argparse.ArgumentParser()
    parser.add_argument("sao")
    parser.add_argument("source")
    parser.add_argument("--screenshot")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix=prefix)
    server, url = serve(args.sao, os.path.join(work, "data"), token)
    driver = None
    try:
        driver = chromium(os.path.join(work, "profile"), 1400, 2300)
        yield args, driver, url
    except Exception:
        if driver:
            print("page:", driver.execute_script(
                "return %s.map(id => id + ': ' + document.getElementById(id).textContent);"
                % json.dumps(page_ids)), file=sys.stderr)
        raise
    finally:
        if driver:
            driver.quit()
        server.terminate()
        server.wait()
        shutil.rmtree(work, ignore_errors=True)
