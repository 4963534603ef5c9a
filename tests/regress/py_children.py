# SPDX-License-Identifier: GPL-2.0-or-later
"""Starts a child Python process in the way argv[1] names (subprocess,
fork or spawn); parent and child each allocate a 200,003-byte buffer (a
block of 200,004 bytes) on a marked line."""
import multiprocessing
import subprocess
import sys

KEEP = []


def work():
    KEEP.append(bytearray(200_003))  # CHILD_WORK


if __name__ == "__main__":
    how = sys.argv[1]
    KEEP.append(bytearray(200_003))  # PARENT_WORK
    if how == "subprocess":
        subprocess.run([sys.executable, __file__, "child"], check=True)
    elif how == "child":
        work()
    else:
        process = multiprocessing.get_context(how).Process(target=work)
        process.start()
        process.join()
        assert process.exitcode == 0, process.exitcode
    print("done", how)
