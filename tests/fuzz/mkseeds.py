#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the seed corpus of fuzz_pool (tests/fuzz/corpus/).

Each seed is a readable scenario in the input language of fuzz_pool.c
(one op byte = slot << 5 | kind, then its arguments, then one scribble-mode
byte), so that the smoke run in `make check` starts from inputs that reach
every operation with the geometries of the test rows, instead of from
nothing. Run it again after changing the input language.
"""
import os
import struct
import sys

ALLOC, FREE, DOUBLE, INTERIOR, FOREIGN, BADDMA, ANYWHERE = 0, 4, 7, 8, 9, 10, 11
RECLAIM, INJECT, DESTROY, CREATE = 12, 13, 14, 15
ALLOC_MANY, FREE_MANY = 16, 17


def lg(x):
    return x.bit_length() - 1


def create_args(size, align, boundary):
    b = bytes([1, (size - 1) & 255, (size - 1) >> 8])  # size = get16 % 4096 + 1
    b += bytes([1])                                    # hint byte for align
    b += bytes([0]) if not align else bytes([5, lg(align)])
    b += bytes([0]) if not boundary else bytes([5, lg(boundary)])
    return b + bytes([0])                              # name: not NULL


class Seed:
    def __init__(self, size, align, boundary):
        self.b = bytearray(create_args(size, align, boundary))
        self.n = 0

    def op(self, slot, kind, args=b""):
        self.b += bytes([slot << 5 | kind]) + args + bytes([self.n % 4])
        self.n += 1

    def create(self, slot, size, align, boundary):
        self.op(slot, CREATE, create_args(size, align, boundary))


def scenario(size, align, boundary, nalloc, slot2=None):
    s = Seed(size, align, boundary)
    if slot2:
        s.create(1, *slot2)
    for i in range(nalloc):
        s.op(0, ALLOC, bytes([i % 4]))
        if slot2 and i % 4 == 0:
            s.op(1, ALLOC, bytes([0]))
    for i in range(nalloc // 3):
        s.op(0, FREE, struct.pack("<H", (i * 7) % 1000))
    s.op(0, DOUBLE, bytes([0]))
    s.op(0, DOUBLE, bytes([3]))
    s.op(0, INTERIOR, struct.pack("<IB", 0x00050001, 0))
    s.op(0, INTERIOR, struct.pack("<IB", 0x0003ffff, 1))
    # foreign: NULL, into the decoy, the stack, random, forged
    for m, arg in ((0, b""), (1, b"\x10\x00"), (2, b""),
                   (4, struct.pack("<Q", 0x12345678)),
                   (5, struct.pack("<Q", 0x2345678912345))):
        s.op(0, FOREIGN, bytes([m | 0x10]) + arg)
    s.op(0, BADDMA, struct.pack("<Q", 0x0002000000000040))
    for r in range(8):
        s.op(0, ANYWHERE, struct.pack("<IB", 0x01234567 * (r + 3) & 0xffffffff, r))
    s.op(0, INJECT, bytes([1, 0]))        # the next allocation fails
    s.op(0, ALLOC, bytes([0]))
    s.op(0, ALLOC, bytes([1]))
    for i in range(nalloc):
        s.op(0, FREE, bytes([0, 0]))
    s.op(0, RECLAIM, bytes([0, 10, 1]))   # too young
    s.op(0, RECLAIM, bytes([50, 0, 0]))   # all go
    s.op(0, ALLOC, bytes([2]))
    s.op(0, INJECT, bytes([0]))           # init_on_alloc off
    s.op(0, FREE, bytes([0, 0]))
    s.op(0, ALLOC, bytes([0]))
    s.op(0, DESTROY)                      # with one live block
    s.create(0, size, align, boundary)
    s.op(0, ALLOC, bytes([0]))
    return bytes(s.b)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "corpus")
    os.makedirs(out, exist_ok=True)
    rows = [(16, 16, 0), (64, 64, 0), (256, 256, 0), (1024, 1024, 0),
            (4096, 4096, 0), (68, 32, 4096), (1, 1, 0), (24, 8, 64),
            (100, 4, 128), (3000, 64, 4096)]
    for size, align, boundary in rows:
        n = 40 if size <= 256 else 24
        name = "seed-%d-%d-%d" % (size, align, boundary)
        data = scenario(size, align, boundary, n,
                        slot2=(68, 32, 4096) if size == 16 else None)
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    # invalid geometries, then a valid one
    s = Seed(64, 3, 0)
    s.create(0, 64, 8, 32)
    s.create(1, 64, 0, 96)
    s.op(1, CREATE, bytes([4, 0, 1, 0, 0, 0]))  # size 0
    s.create(2, 5, 0, 8)
    for i in range(20):
        s.op(2, ALLOC, bytes([0]))
    with open(os.path.join(out, "seed-invalid"), "wb") as f:
        f.write(bytes(s.b))
    # many chunks (the chunk table grows), all freed, reclaimed, regrown
    s = Seed(4096, 4096, 0)
    s.create(1, 1024, 1024, 0)
    for slot in (0, 1, 0, 1, 0, 0):
        s.op(slot, ALLOC_MANY, bytes([63]) + bytes(range(64)))
    s.op(0, INJECT, bytes([2]))           # init_on_free on
    for slot in (0, 1, 0, 1, 0, 0):
        s.op(slot, FREE_MANY, bytes([63]) + bytes(128))
    s.op(0, RECLAIM, bytes([5, 0, 2]))
    s.op(1, RECLAIM, bytes([5, 0, 0]))
    s.op(0, ALLOC_MANY, bytes([63]) + bytes(64))
    s.op(1, DESTROY)
    with open(os.path.join(out, "seed-many"), "wb") as f:
        f.write(bytes(s.b))


main()
