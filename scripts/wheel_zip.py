# SPDX-License-Identifier: GPL-2.0-or-later
"""Writes memgrow's wheel from a staged tree (scripts/build-wheel.sh): a zip
of the package with its .dist-info (METADATA, WHEEL, entry points, the
licences, RECORD) as the wheel format (PEP 427, 491) lays it out, with the
standard library alone. The entries are sorted and dated 1980-01-01 (or
SOURCE_DATE_EPOCH), so one build gives one wheel, byte for byte.

    python3 scripts/wheel_zip.py --version V --tag T --src SRC --stage DIR --out DIST
"""
import argparse
import base64
import hashlib
import os
import sys
import time
import zipfile

ENTRY_POINTS = """[console_scripts]
memgrow = memgrow.cli:main
memgrow-report = memgrow.cli:report_main

[pytest11]
memgrow = memgrow.pytest_entry
"""

SUMMARY = ("Finds the memory that keeps growing in a long-running program (Python or native), "
           "with its own Valgrind")


def metadata(version, readme):
    return f"""Metadata-Version: 2.1
Name: memgrow
Version: {version}
Summary: {SUMMARY}
Home-page: https://github.com/memgrow/memgrow
License: GPL-2.0-or-later
Platform: Linux x86-64
Classifier: License :: OSI Approved :: GNU General Public License v2 or later (GPLv2+)
Classifier: Operating System :: POSIX :: Linux
Classifier: Programming Language :: Python :: 3
Classifier: Framework :: Pytest
Classifier: Topic :: Software Development :: Debuggers
Requires-Python: >=3.8
Description-Content-Type: text/markdown

{readme}"""


def record_hash(data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + digest.decode()


def main():
    ap = argparse.ArgumentParser()
    for name in ("version", "tag", "src", "stage", "out"):
        ap.add_argument("--" + name, required=True)
    args = ap.parse_args()
    info = f"memgrow-{args.version}.dist-info"
    when = time.gmtime(max(int(os.environ.get("SOURCE_DATE_EPOCH", 315532800)), 315532800))[:6]

    entries = []  # (name in the wheel, bytes, mode)
    licences = os.path.join(args.stage, "licenses")  # into the .dist-info, below
    for root, dirs, files in os.walk(args.stage):
        dirs[:] = sorted(d for d in dirs if os.path.join(root, d) != licences)
        for f in sorted(files):
            path = os.path.join(root, f)
            with open(path, "rb") as fh:
                entries.append((os.path.relpath(path, args.stage), fh.read(),
                                os.stat(path).st_mode & 0o777))
    with open(os.path.join(args.src, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    entries.append((f"{info}/METADATA", metadata(args.version, readme).encode(), 0o644))
    entries.append((f"{info}/WHEEL", (f"Wheel-Version: 1.0\nGenerator: memgrow scripts/wheel_zip.py\n"
                                      f"Root-Is-Purelib: false\nTag: {args.tag}\n").encode(), 0o644))
    entries.append((f"{info}/entry_points.txt", ENTRY_POINTS.encode(), 0o644))
    entries.append((f"{info}/top_level.txt", b"memgrow\n", 0o644))
    for f in sorted(os.listdir(licences)):
        with open(os.path.join(licences, f), "rb") as fh:
            entries.append((f"{info}/licenses/{f}", fh.read(), 0o644))

    record = f"{info}/RECORD"
    lines = [f"{n},{record_hash(d)},{len(d)}" for n, d, _ in entries] + [f"{record},,"]
    entries.append((record, ("\n".join(lines) + "\n").encode(), 0o644))

    os.makedirs(args.out, exist_ok=True)
    wheel = os.path.join(args.out, f"memgrow-{args.version}-{args.tag}.whl")
    tmp = wheel + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for name, data, mode in entries:
            zi = zipfile.ZipInfo(name, date_time=when)
            zi.external_attr = (0o100000 | mode) << 16  # a regular file; pip keeps the x bits
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, data)
    os.replace(tmp, wheel)
    print(f"build-wheel: {wheel} ({os.path.getsize(wheel) / 1e6:.1f} MB, "
          f"{sum(len(d) for _, d, _ in entries) / 1e6:.1f} MB unpacked)", file=sys.stderr)


if __name__ == "__main__":
    main()
