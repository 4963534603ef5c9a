# SPDX-License-Identifier: GPL-2.0-or-later
"""Tensors from the stand-in tensor library (tests/cuda/standin_torch.c),
driven through ctypes as a tensor library is: each step keeps a 256 KiB
tensor in a list, a 64 KiB one in a deque(maxlen=1000), and makes
temporaries, small and large, then marks. Prints the library's own counters
at each mark and its per-line accounting of the kept line.

Before it starts it maps two files memgrow reads as ELF objects and must
survive: an ELF header whose tables lie past the end of the file, and the
library's first half.

usage: py_standin_torch.py LIBRARY [STEPS [expandable]]
"""
import collections
import ctypes
import json
import mmap
import os
import struct
import sys
import tempfile

try:
    import memgrow
except ImportError:  # natively
    memgrow = None

lib = ctypes.CDLL(sys.argv[1])
STEPS = int(sys.argv[2]) if len(sys.argv) > 2 else 40
lib.st_malloc.restype = ctypes.c_void_p
lib.st_malloc.argtypes = [ctypes.c_size_t]
lib.st_free.argtypes = [ctypes.c_void_p]
lib.st_block_size.restype = ctypes.c_size_t
lib.st_block_size.argtypes = [ctypes.c_void_p]
lib.st_allocated.restype = ctypes.c_size_t
lib.st_reserved.restype = ctypes.c_size_t
lib.st_fill.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t]
lib.st_set_device.argtypes = [ctypes.c_int]
lib.st_set_expandable.argtypes = [ctypes.c_int]


class Tensor:
    """Holds its device pointer as a machine word (a c_void_p), as a
    tensor's storage does: the leak scan finds it there."""

    def __init__(self, nbytes):
        self.data = ctypes.c_void_p(lib.st_malloc(nbytes))
        if not self.data.value:
            raise MemoryError(nbytes)
        self.nbytes = nbytes
        if lib.st_fill(self.data, 0, nbytes) != 0:
            raise RuntimeError("fill failed")

    def __del__(self):
        lib.st_free(self.data)


def step(i, kept, recent):
    kept.append(Tensor(256 * 1024))  # KEPT_HERE
    recent.append(Tensor(64 * 1024))  # DEQUE_HERE
    scratch = Tensor(3 * 1024 * 1024 + 4096)  # TEMP_LARGE_HERE
    small = Tensor(100 * 1000 + i)  # TEMP_SMALL_HERE
    del scratch, small


def map_garbage():
    """Maps files that look like ELF objects and are not."""
    with open(sys.argv[1], "rb") as f:
        half = f.read()
    half = half[:len(half) // 2]
    header = bytearray(half[:64])
    # e_phoff, e_shoff far out; e_shnum and e_shstrndx at their largest.
    struct.pack_into("<QQ", header, 32, 1 << 40, (1 << 63) - 7)
    struct.pack_into("<HH", header, 60, 0xffff, 0xfffe)
    maps = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, data in (("header.so", bytes(header) + bytes(4096)), ("half.so", half)):
            path = os.path.join(tmp, name)
            with open(path, "wb") as f:
                f.write(data)
            with open(path, "rb") as f:
                maps.append(mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ))
    for m in maps:
        m.close()


def main():
    map_garbage()
    lib.st_set_device(0)
    lib.st_set_expandable(len(sys.argv) > 3 and sys.argv[3] == "expandable")
    kept = []
    recent = collections.deque(maxlen=1000)
    counters = []
    for i in range(STEPS):
        step(i, kept, recent)
        counters.append({"allocated": lib.st_allocated(), "reserved": lib.st_reserved()})
        if memgrow:
            memgrow.mark()
    kept_bytes = sum(lib.st_block_size(t.data) for t in kept)
    print("COUNTERS " + json.dumps({"marks": counters, "kept_bytes": kept_bytes,
                                    "kept_blocks": len(kept)}), flush=True)
    # The unused segments go back to CUDA: the reserve shrinks with them.
    lib.st_empty_cache()
    print("AFTER " + json.dumps({"allocated": lib.st_allocated(),
                                 "reserved": lib.st_reserved()}), flush=True)
    return kept, recent


if __name__ == "__main__":
    keep, recent_kept = main()
