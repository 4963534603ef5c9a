# SPDX-License-Identifier: GPL-2.0-or-later
"""A PyTorch DataLoader with two forked workers over a list of small dicts,
as training scripts load their records: each worker reads its batches, a
read changes each record's reference count, and the worker copies the pages
its batches span.

argv[1] = "smaps" (run natively) has each worker print its smaps'
Private_Dirty at its end, the kernel's count beside memgrow's (docs/pages.md)."""
import multiprocessing.util
import os
import sys

import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info

RECORDS = 50_000


class Records(Dataset):
    def __init__(self):
        self.rows = [{"id": i, "label": i % 10} for i in range(RECORDS)]  # DATASET_HERE

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        return self.rows[i]  # READ_HERE


def private_dirty():
    with open("/proc/self/smaps_rollup") as f:
        kib = next(int(l.split()[1]) for l in f if l.startswith("Private_Dirty:"))
    print("worker", get_worker_info().id, "pid", os.getpid(), "Private_Dirty", kib, "kB",
          flush=True)


def started(worker):
    print("worker", worker, "pid", os.getpid(), flush=True)
    if sys.argv[1:] == ["smaps"]:  # at the worker's exit (multiprocessing's finalizers)
        multiprocessing.util.Finalize(None, private_dirty, exitpriority=0)


if __name__ == "__main__":
    torch.set_num_threads(1)
    loader = DataLoader(Records(), batch_size=1000, num_workers=2, collate_fn=len,
                        worker_init_fn=started, multiprocessing_context="fork")
    print("done", sum(loader))
