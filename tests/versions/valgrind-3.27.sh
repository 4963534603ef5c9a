#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The suites under Debian sid's Valgrind (tests/versions/run.sh).
exec "$(dirname "$0")/run.sh" 3.27 sid
