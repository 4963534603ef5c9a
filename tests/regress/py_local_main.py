# SPDX-License-Identifier: GPL-2.0-or-later
"""The statistics dict is a local of main(): it is freed when main() returns,
just before Py_FinalizeEx. Its growth must still be reported."""


def main():
    stats = {}
    for i in range(100000):
        stats[f"client-{i}"] = [i, i * 2, str(i)]  # GROW_HERE
    return len(stats)


print(main())
