#!/usr/bin/python3
"""Rewrites a version-1 .sbin (docs/sbin-format.md) with another ISA name and/or renamed tensors,
and/or code bytes, and a checksum that matches, so a test can hand the tools a well-formed file with
hostile names or an instruction that does not decode.

    patch_sbin.py IN OUT [--isa-name NAME] [--rename OLD=NEW]... [--code-byte INDEX=VALUE]...

INDEX counts from the start of the code, or from its end when negative (-1: the last byte).
"""
import argparse
import struct


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


class Reader:
    def __init__(self, data):
        self.data, self.pos = data, 0

    def take(self, n):
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def u(self, fmt):
        return struct.unpack("<" + fmt, self.take(struct.calcsize("<" + fmt)))[0]

    def str(self):
        return self.take(self.u("I"))

    def blob(self):
        return self.take(self.u("Q"))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("inp")
    p.add_argument("out")
    p.add_argument("--isa-name")
    p.add_argument("--rename", action="append", default=[])
    p.add_argument("--code-byte", action="append", default=[])
    a = p.parse_args()
    renames = dict(r.split("=", 1) for r in a.rename)
    data = open(a.inp, "rb").read()[:-8]
    r = Reader(data)
    out = bytearray(r.take(16))  # magic, version, flags
    name = r.str()
    if a.isa_name is not None:
        name = a.isa_name.encode().replace(b"\\0", b"\0")
    out += struct.pack("<I", len(name)) + name
    out += r.take(8 + 4)  # hash, instruction size
    code = bytearray(r.blob())
    for cb in a.code_byte:
        index, value = cb.split("=", 1)
        code[int(index, 0)] = int(value, 0)
    out += struct.pack("<Q", len(code)) + code
    segments = r.u("I")
    out += struct.pack("<I", segments)
    for _ in range(segments):
        out += r.take(8)
        seg = r.blob()
        out += struct.pack("<Q", len(seg)) + seg
    tensors = r.u("I")
    out += struct.pack("<I", tensors)
    for _ in range(tensors):
        tname = r.str().decode()
        tname = renames.get(tname, tname).encode()
        out += struct.pack("<I", len(tname)) + tname
        kind_dtype = r.take(2)
        rank = r.u("H")
        out += kind_dtype + struct.pack("<H", rank) + r.take(8 * rank + 8 + 4 + 4)
    out += r.take(len(data) - r.pos)
    out += struct.pack("<Q", fnv1a64(out))
    open(a.out, "wb").write(out)


if __name__ == "__main__":
    main()
