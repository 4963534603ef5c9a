#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# What a user does with memgrow's wheel, in the current (empty, writable)
# directory, which holds leaky_service.py, the C program leaky_service and
# sample.py (a pytest file with a test that keeps memory): a fresh virtual
# environment of PYTHON, `pip install` of the wheel offline, then memgrow run
# on the Python script and on the C program, memgrow report show and html,
# and the pytest plugin under memgrow, by its entry point natively, and not
# at all when not asked for. test_wheel.py runs it as a non-root user with the
# system's Valgrind hidden, and reads each step's output (STEP.log) and exit
# code (STEP.rc).
#
#   wheel_user.sh PYTHON WHEEL PIP
# PIP: ensurepip (a venv with its own pip, and the system's site packages for
# their pytest), or a folder holding a pip to run (a pip wheel) and,
# in PYTHONPATH, the pytest to use.
set -u
py=$1 wheel=$2 pip=$3
step() {
    name=$1
    shift
    "$@" >"$name.log" 2>&1
    echo $? >"$name.rc"
}
id -u >uid.log
step system_valgrind sh -c 'valgrind --version || ls /usr/libexec/valgrind/*-amd64-linux'
if [ "$pip" = ensurepip ]; then
    step venv "$py" -m venv --system-site-packages venv
    step install venv/bin/python -m pip install --no-index --no-cache-dir "$wheel"
else
    step venv "$py" -m venv --without-pip venv
    step install venv/bin/python "$pip/pip" install --no-index --no-cache-dir "$wheel"
fi
step version venv/bin/memgrow --version
step python venv/bin/memgrow run --json-file=python.json leaky_service.py 3000
step show venv/bin/memgrow report show python.json
step html venv/bin/memgrow report html python.json -o page.html
step code venv/bin/memgrow run -q --leak-check=no --json-file=code.json -c \
    "import memgrow, sys; print('running', memgrow.running(), memgrow.__file__, sys.prefix)"
step native venv/bin/python -m memgrow run --json-file=native.json -- ./leaky_service
step pytest venv/bin/memgrow run --json-file=pytest.json -m pytest -p memgrow.pytest \
    --memgrow-repeat=3 -p no:cacheprovider -rf sample.py -k "not limit"
step pytest_entry venv/bin/python -m pytest --memgrow-repeat=3 -p no:cacheprovider -rf sample.py \
    -k "not limit"
step pytest_plain venv/bin/python -m pytest -p no:cacheprovider -rf sample.py -k "not limit"
