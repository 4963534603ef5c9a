# SPDX-License-Identifier: GPL-2.0-or-later
"""Tests that keep nothing but make pytest keep records (a log line, a
warning, caplog), a doctest, a test that keeps a little memory, and markers
with bad or large sizes, for memgrow's pytest plugin (test_pytest_plugin.py
runs it with --memgrow-repeat and --doctest-modules)."""
import logging
import warnings

import pytest

KEPT = []


def test_logs():
    logging.getLogger("app").warning("request %d handled", 1)


def test_warns():
    warnings.warn("deprecated thing", DeprecationWarning)


def test_caplog_sees_its_own_run(caplog):
    logging.getLogger("app").error("seen %d", 2)
    assert len(caplog.records) == 1


def double(x):
    """
    >>> y = double(2)
    >>> y
    4
    """
    return 2 * x


def test_keeps_a_little():
    KEPT.append("k" * 200 + str(len(KEPT)))  # LITTLE_KEPT


@pytest.mark.memgrow_limit(-5)
def test_limit_negative():
    pass


@pytest.mark.memgrow_limit()
def test_limit_without_a_size():
    pass


@pytest.mark.memgrow_limit("1 TB")
def test_limit_in_terabytes():
    pass


@pytest.mark.memgrow_limit(size="1 KiB")
def test_limit_by_keyword():
    pass
