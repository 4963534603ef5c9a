# SPDX-License-Identifier: GPL-2.0-or-later
"""A test file for memgrow's pytest plugin (test_pytest_plugin.py runs it):
one test keeps a module-level list growing, two are clean, and two carry a
memgrow_limit."""
import pytest

KEPT = []
CACHE = {}


def test_keeps_a_list_growing():
    KEPT.append(bytearray(4096))  # KEPT_HERE


def test_clean_arithmetic():
    assert sum(range(1000)) == 499500


def test_clean_temporaries_and_a_warm_cache():
    CACHE.setdefault("table", [bytes(64) for _ in range(50)])  # filled by the first run only
    data = [bytes(100) for _ in range(100)]
    assert len(data) == 100


@pytest.mark.memgrow_limit("16 KB")
def test_over_its_limit():
    KEPT.append(bytearray(64 * 1024))


@pytest.mark.memgrow_limit("1 MB")
def test_under_its_limit():
    KEPT.append(bytearray(1024))
