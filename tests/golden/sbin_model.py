"""A reader of the quantized graph inside a compiled model (`systole compile -o MODEL.sbin`), written
from docs/sbin-format.md ("Version 2: a whole compiled model") and sharing no code with the C++
reader: the known-answer tests take the model's quantization parameters from this product output."""
import struct

import numpy as np

DTYPES = {0: np.float32, 1: np.int8, 2: np.int32, 3: np.int64, 4: np.uint8, 5: np.int16}


class Reader:
    def __init__(self, data):
        self.data, self.pos = data, 0

    def take(self, n):
        if self.pos + n > len(self.data):
            raise ValueError("truncated model description")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def unpack(self, fmt):
        return struct.unpack("<" + fmt, self.take(struct.calcsize("<" + fmt)))[0]

    def str(self):
        return self.take(self.unpack("I")).decode()

    def blob(self):
        return self.take(self.unpack("Q"))

    def array(self, count_fmt, item_fmt):
        n = self.unpack(count_fmt)
        return [self.unpack(item_fmt) for _ in range(n)]


class Value:
    def __init__(self, r):
        self.name = r.str()
        self.dtype = DTYPES[r.unpack("B")]
        self.shape = tuple(r.array("H", "q"))
        self.scale = self.zero_point = self.axis = None
        if r.unpack("B"):
            self.scale = np.array(r.array("I", "f"), np.float32)
            self.zero_point = np.array(r.array("I", "i"), np.int64)
            self.axis = r.unpack("i")
        self.is_constant = r.unpack("B") != 0
        raw = r.blob()
        self.data = np.frombuffer(raw, self.dtype).reshape(self.shape) if self.is_constant else None


ATTR_READERS = {
    0: lambda r: r.unpack("q"),
    1: lambda r: r.unpack("d"),
    2: lambda r: r.str(),
    3: lambda r: r.array("I", "q"),
    4: lambda r: r.array("I", "d"),
}


class Node:
    def __init__(self, r):
        self.name, self.op = r.str(), r.str()
        self.inputs = r.array("I", "i")
        self.outputs = r.array("I", "i")
        self.attrs = {}
        for _ in range(r.unpack("I")):
            key = r.str()
            self.attrs[key] = ATTR_READERS[r.unpack("B")](r)


class Graph:
    """values and nodes as the file lists them; inputs and outputs are value ids."""

    def __init__(self, r):
        self.opset = r.unpack("q")
        self.values = [Value(r) for _ in range(r.unpack("I"))]
        self.nodes = [Node(r) for _ in range(r.unpack("I"))]
        self.inputs = r.array("I", "i")
        self.outputs = r.array("I", "i")


def read_quantized_graph(path):
    """The quantized graph of a version-2 .sbin (the programs and the schedule are skipped)."""
    with open(path, "rb") as f:
        data = f.read()
    r = Reader(data)
    if r.take(8) != b"SYSTOLE\0" or r.unpack("I") != 2:
        raise ValueError(f"{path}: not a version-2 .sbin (a whole compiled model)")
    r.unpack("I")  # flags
    for _ in range(r.unpack("I")):
        r.blob()  # a version-1 program image
    model = Reader(r.blob())
    model.str()  # ISA name
    model.unpack("Q")  # ISA hash
    return Graph(model)
