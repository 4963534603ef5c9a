# SPDX-License-Identifier: GPL-2.0-or-later
"""Holders that read the same (docs/holders.md): four sessions, each an
instance in one module list, each with its own log list that only grows.
The four logs are one holder line and one finding, `SESSIONS[*].log`."""


class Session:
    def __init__(self):
        self.log = []


SESSIONS = [Session() for _ in range(4)]
for i in range(2000):
    SESSIONS[i % 4].log.append("entry %d" % i)  # ALIKE_ENTRY
print(len(SESSIONS))
