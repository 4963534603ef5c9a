# SPDX-License-Identifier: GPL-2.0-or-later
"""Blobs kept in a list inside a dict, and floats whose bits are the blobs'
addresses, in a list nearer the module: an object with no pointer in it (an
int, a float, bytes, a str's characters) is never a holder, and the blobs
are held by the dict's list. argv[1]: the blobs."""
import struct
import sys

DECOYS = []
STORE = {"blobs": []}
for i in range(int(sys.argv[1])):
    blob = bytes(200 + i % 7)  # DECOY_BLOB
    STORE["blobs"].append(blob)
    DECOYS.append(struct.unpack("d", struct.pack("Q", id(blob)))[0])
print(len(DECOYS))
