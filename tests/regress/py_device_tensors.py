# SPDX-License-Identifier: GPL-2.0-or-later
"""Tensors on the CUDA stand-ins, as a tensor library keeps them: a Python
object whose C storage (a heap block of its own) holds the device pointer
cudaMalloc gave it. Each step keeps a tensor in a list, puts one in a
deque(maxlen=1000) that never fills, and frees a temporary. The list's line
grows, held by the list; the deque's is a plateau, bounded by the deque.
argv: the steps."""
import collections
import ctypes
import sys

cudart = ctypes.CDLL("libcudart.so.13")
cudart.cudaMalloc.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
cudart.cudaFree.argtypes = [ctypes.c_void_p]


class Tensor:
    def __init__(self, nbytes):
        # More than a ctypes object's inline 16 bytes: its own heap block.
        self.storage = ctypes.create_string_buffer(64)
        assert cudart.cudaMalloc(self.storage, nbytes) == 0

    def __del__(self):
        cudart.cudaFree(ctypes.c_void_p.from_buffer(self.storage).value)


history = []
recent = collections.deque(maxlen=1000)
for step in range(int(sys.argv[1])):
    history.append(Tensor(64 << 10))  # KEPT_TENSOR
    recent.append(Tensor(16 << 10))  # DEQUE_TENSOR
    scratch = Tensor(32 << 10)  # TEMP_TENSOR
    del scratch
print(len(history), len(recent))
