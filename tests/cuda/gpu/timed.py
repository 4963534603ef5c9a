# SPDX-License-Identifier: GPL-2.0-or-later
"""Runs one command of the GPU kit with a time limit and records how it went
(tests/cuda/gpu/run.sh): timed.py NAME LIMIT DIR [VAR=VALUE ...] COMMAND...
Its output goes to DIR/NAME.out; one JSON line to DIR/times.jsonl: exit
status, wall, user and system seconds, peak RSS, the load average before and
after. At the limit the command's process group gets SIGTERM (Valgrind then
still writes its report and log), 30 s later SIGKILL."""
import json
import os
import resource
import signal
import subprocess
import sys
import time


def main():
    name, limit, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    args = sys.argv[4:]
    env = dict(os.environ)
    while args and "=" in args[0] and not args[0].startswith("/"):
        k, v = args.pop(0).split("=", 1)
        env[k] = v
    load0 = os.getloadavg()[0]
    start = time.time()
    timed_out = False
    with open(os.path.join(out, name + ".out"), "wb") as log:
        p = subprocess.Popen(args, env=env, stdout=log, stderr=subprocess.STDOUT,
                             start_new_session=True)
        try:
            rc = p.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(p.pid, signal.SIGTERM)
            try:
                rc = p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                rc = p.wait()
    wall = time.time() - start
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    row = {"name": name, "pid": p.pid, "rc": rc, "timed_out": timed_out, "wall": round(wall, 2),
           "user": round(ru.ru_utime, 2), "sys": round(ru.ru_stime, 2),
           "maxrss_mib": round(ru.ru_maxrss / 1024), "load_before": round(load0, 1),
           "load_after": round(os.getloadavg()[0], 1), "limit": limit,
           "env": {k: v for k, v in env.items() if os.environ.get(k) != v}}
    with open(os.path.join(out, "times.jsonl"), "a") as f:
        f.write(json.dumps(row) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
