#!/bin/sh
# The suites under Debian trixie's Valgrind (tests/versions/run.sh).
exec "$(dirname "$0")/run.sh" 3.24 trixie
