#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What a report costs to read: memgrow on bench/py_token_service.py (a
60-line service: a bounded deque of records, growing statistics dicts,
per-request temporaries, 6,000 requests), then the JSON report's size, the
time of `memgrow-report show` and `html` on it, the page's size, and the
time headless Chromium takes to open the page (its --dump-dom run, which
waits for the page's load and script, minus the same run on an empty page).

    bench/report_pages.py                  # memgrow from build/, 3 repeats
    bench/report_pages.py --report R.json  # an existing report instead of a run
    bench/report_pages.py --build DIR --repeat 5 --keep

Times are the best of --repeat runs; numbers are printed, not asserted.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)


def interpreter():
    """The real interpreter (pyenv's python3 is a shell shim)."""
    return subprocess.run([sys.executable, "-c", "import sys; print(sys.executable)"],
                          stdout=subprocess.PIPE, text=True, check=True).stdout.strip()


def timed(argv, repeat, **kw):
    best = None
    for _ in range(repeat):
        t = time.monotonic()
        p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                           errors="replace", **kw)
        elapsed = time.monotonic() - t
        if p.returncode != 0:
            sys.exit(f"failed ({p.returncode}): {' '.join(argv)}\n{p.stderr[-2000:]}")
        best = elapsed if best is None else min(best, elapsed)
    return best


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    sys.exit("no chromium: scripts/install-deps.sh installs it")


def open_page(page, repeat, tmp):
    profile = os.path.join(tmp, "profile")
    argv = [chromium(), "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--disable-extensions", f"--user-data-dir={profile}", "--dump-dom",
            "file://" + os.path.abspath(page)]
    # The first run creates the profile; it is not counted.
    timed(argv, 1)
    return timed(argv, repeat)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(TOP, "build"))
    ap.add_argument("--report", help="an existing JSON report (no memgrow run)")
    ap.add_argument("--requests", type=int, default=6000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    a = ap.parse_args()
    tool = os.path.join(a.build, "memgrow-report")
    tmp = tempfile.mkdtemp(prefix="memgrow-pages-")
    try:
        report = a.report
        if not report:
            report = os.path.join(tmp, "service.json")
            t = timed([os.path.join(a.build, "vg-in-place"), "--tool=memgrow", "-q",
                       f"--json-file={report}", interpreter(),
                       os.path.join(HERE, "py_token_service.py"), str(a.requests)], 1)
            print(f"memgrow run ({a.requests} requests): {t:.1f} s")
        print(f"JSON report: {os.path.getsize(report) / 1e6:.1f} MB")
        show = timed([tool, "show", report], a.repeat)
        print(f"memgrow-report show: {show:.2f} s")
        page = os.path.join(tmp, "page.html")
        html = timed([tool, "html", report, "-o", page], a.repeat)
        print(f"memgrow-report html: {html:.2f} s, page {os.path.getsize(page) / 1e6:.2f} MB")
        blank = os.path.join(tmp, "blank.html")
        with open(blank, "w") as f:
            f.write("<!DOCTYPE html><html><body>x</body></html>\n")
        empty = open_page(blank, a.repeat, tmp)
        full = open_page(page, a.repeat, tmp)
        print(f"chromium --dump-dom: {full:.2f} s (empty page {empty:.2f} s): "
              f"the page opens in {full - empty:.2f} s")
    finally:
        if a.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
