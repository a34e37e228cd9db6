"""The accelerator simulator (`compiler/runtime/c/sim`): transfers, placement and hazard
checks, the two-engine timeline, counters, and the npu/dsp compute commands against the
numpy reference.

Functional tests call the simulator in-process through ctypes. Everything that must end
the program (exit status 3 and one line on stderr) runs a scenario of one C program
built with `-fsanitize=address,undefined`, so those tests also show that a rejected
command touched no memory it should not have.
"""

from __future__ import annotations

import ctypes as C
import hashlib
import json
import subprocess

import numpy as np
import pytest

from accel.compiler.runtime import cbuild
from accel.compiler.runtime import reference as ref

VP = C.c_void_p
I64P = C.POINTER(C.c_int64)


class Config(C.Structure):
    _fields_ = [("spm_bytes", C.c_size_t), ("alignment", C.c_size_t), ("shared_with_host", C.c_int),
                ("dma_bytes_per_cycle", C.c_double), ("dma_setup_cycles", C.c_double),
                ("macs_per_cycle_f32", C.c_double), ("macs_per_cycle_int8", C.c_double),
                ("elementwise_per_cycle", C.c_double), ("launch_cycles", C.c_double),
                ("device_bytes_per_cycle", C.c_double)]  # fmt: skip
"""npu_config (dsp_config is its prefix: the dsp reads no device_bytes_per_cycle)."""

COUNTER_FIELDS = ("bytes_to_device", "bytes_to_host", "transfers", "accel_ops", "cycles")


class Counters(C.Structure):
    _fields_ = [(f, C.c_uint64) for f in (*COUNTER_FIELDS, "bytes_on_device")]
    """npu_counters (dsp_counters is its prefix)."""


QUANT_FIELDS = [("x_dtype", C.c_int), ("w_dtype", C.c_int), ("y_dtype", C.c_int), ("input_zero_point", C.c_int32),
                ("weight_zero_point", C.POINTER(C.c_int32)), ("weight_zero_point_len", C.c_int64),
                ("in_scale", C.POINTER(C.c_float)), ("in_scale_len", C.c_int64), ("out_scale", C.c_float),
                ("out_zero_point", C.c_int32)]  # fmt: skip
ACT_FIELDS = [("act", C.c_int), ("act_min", C.c_float), ("act_max", C.c_float)]


class ConvParams(C.Structure):
    _fields_ = [(f, C.c_int64) for f in (
        "n", "c", "h", "w", "oc", "kh", "kw", "oh", "ow", "stride_h", "stride_w",
        "pad_top", "pad_left", "pad_bottom", "pad_right", "dil_h", "dil_w", "groups")] + ACT_FIELDS + QUANT_FIELDS  # fmt: skip


class MatmulParams(C.Structure):
    _fields_ = [("m", C.c_int64), ("k", C.c_int64), ("n", C.c_int64), ("transpose_a", C.c_int),
                ("transpose_b", C.c_int)] + ACT_FIELDS + QUANT_FIELDS + [("batch", C.c_int64), ("accumulate", C.c_int)]  # fmt: skip


class PoolParams(C.Structure):
    _fields_ = [("kind", C.c_int)] + [(f, C.c_int64) for f in (
        "n", "c", "h", "w", "oh", "ow", "kh", "kw", "stride_h", "stride_w", "dil_h", "dil_w",
        "pad_top", "pad_left", "pad_bottom", "pad_right")] + [
        ("count_include_pad", C.c_int), ("x_dtype", C.c_int), ("y_dtype", C.c_int), ("in_scale", C.c_float),
        ("in_zero_point", C.c_int32), ("out_scale", C.c_float), ("out_zero_point", C.c_int32)]  # fmt: skip


class EltwiseParams(C.Structure):
    _fields_ = [("kind", C.c_int), ("count", C.c_int64), ("rhs_count", C.c_int64)] + ACT_FIELDS + [
        ("lhs_dtype", C.c_int), ("rhs_dtype", C.c_int), ("out_dtype", C.c_int), ("lhs_scale", C.c_float),
        ("lhs_zero_point", C.c_int32), ("rhs_scale", C.c_float), ("rhs_zero_point", C.c_int32),
        ("out_scale", C.c_float), ("out_zero_point", C.c_int32)]  # fmt: skip


ACT_NONE, ACT_RELU, ACT_CLIP = 0, 1, 2
POOL_MAX, POOL_AVG = 0, 1
ADD, MUL, RELU, CLIP = 0, 1, 2, 3
I8, U8 = 0, 1
QTYPE = {np.dtype(np.int8): I8, np.dtype(np.uint8): U8}

DMA_SIG = [VP, VP, C.c_size_t, C.c_int, I64P, I64P, I64P]


def _declare(dll, prefix: str) -> None:
    sigs = {
        "init": ([C.POINTER(Config)], C.c_int), "spm": ([], VP), "register_host": ([VP, C.c_size_t], None),
        "shutdown": ([], None), "dma_to_device": (DMA_SIG, C.c_int64), "dma_to_host": (DMA_SIG, C.c_int64),
        "dma_wait": ([C.c_int64], None), "sync": ([], None), "get_counters": ([], Counters),
        **({"dma_on_device": (DMA_SIG, C.c_int64)} if prefix == "npu_" else {}),
        "write_counters_json": ([C.c_char_p], C.c_int),
        "matmul_f32": ([VP, VP, VP, VP, C.POINTER(MatmulParams)], C.c_int),
        "matmul_s8": ([VP, VP, VP, VP, C.POINTER(MatmulParams)], C.c_int),
        "dense_f32": ([VP, VP, VP, VP, C.POINTER(MatmulParams)], C.c_int),
        "dense_s8": ([VP, VP, VP, VP, C.POINTER(MatmulParams)], C.c_int),
    }  # fmt: skip
    if prefix == "npu_":
        sigs.update({
            "conv2d_f32": ([VP, VP, VP, VP, C.POINTER(ConvParams)], C.c_int),
            "conv2d_s8": ([VP, VP, VP, VP, C.POINTER(ConvParams)], C.c_int),
            "pool2d_f32": ([VP, VP, C.POINTER(PoolParams)], C.c_int),
            "pool2d_s8": ([VP, VP, C.POINTER(PoolParams)], C.c_int),
            "eltwise_f32": ([VP, VP, VP, C.POINTER(EltwiseParams)], C.c_int),
            "eltwise_s8": ([VP, VP, VP, C.POINTER(EltwiseParams)], C.c_int),
        })  # fmt: skip
    for name, (args, res) in sigs.items():
        fn = getattr(dll, prefix + name)
        fn.argtypes = args
        fn.restype = res


@pytest.fixture(scope="session")
def dll():
    so = cbuild.build(cbuild.simulator_sources(), kind="shared", name="simulator")
    lib = C.CDLL(str(so))
    _declare(lib, "npu_")
    _declare(lib, "dsp_")
    return lib


class Device:
    """One simulated target (prefix npu_ or dsp_) driven from Python."""

    def __init__(self, lib, prefix="npu_", spm_bytes=65536, shared=False, alignment=64, bpc=16.0, setup=32.0,
                 f32=64.0, int8=256.0, elementwise=32.0, launch=0.0, device_bpc=0.0):
        self.lib, self.p = lib, prefix
        self.cfg = Config(spm_bytes, alignment, int(shared), bpc, setup, f32, int8, elementwise, launch, device_bpc)
        assert self.call("init", C.byref(self.cfg)) == 0
        self.spm = self.call("spm")
        self.keep: list = []

    def call(self, name, *args):
        return getattr(self.lib, self.p + name)(*args)

    def host(self, a: np.ndarray) -> np.ndarray:
        a = np.ascontiguousarray(a)
        self.keep.append(a)
        self.call("register_host", a.ctypes.data, a.nbytes)
        return a

    def at(self, offset: int) -> int:
        return self.spm + offset

    def to_device(self, offset: int, a: np.ndarray, shape=None, dst_strides=None, src_strides=None, src_offset=0):
        shape, dst_strides, src_strides = self._box(a, shape, dst_strides, src_strides)
        return self.call("dma_to_device", self.at(offset), a.ctypes.data + src_offset * a.itemsize, a.itemsize,
                         len(shape), shape.ctypes.data_as(I64P), dst_strides.ctypes.data_as(I64P),
                         src_strides.ctypes.data_as(I64P))  # fmt: skip

    def to_host(self, a: np.ndarray, offset: int, shape=None, dst_strides=None, src_strides=None, dst_offset=0):
        shape, dst_strides, src_strides = self._box(a, shape, dst_strides, src_strides)
        return self.call("dma_to_host", a.ctypes.data + dst_offset * a.itemsize, self.at(offset), a.itemsize,
                         len(shape), shape.ctypes.data_as(I64P), dst_strides.ctypes.data_as(I64P),
                         src_strides.ctypes.data_as(I64P))  # fmt: skip

    def on_device(self, dst: int, src: int, shape, dst_strides, src_strides, elem_bytes=4):
        """npu_dma_on_device between scratchpad byte offsets."""
        arrs = [np.array(x, np.int64) for x in (shape, dst_strides, src_strides)]
        self.keep.extend(arrs)
        return self.call("dma_on_device", self.at(dst), self.at(src), elem_bytes, len(shape),
                         *(x.ctypes.data_as(I64P) for x in arrs))

    def _box(self, a, shape, dst_strides, src_strides):
        shape = a.shape if shape is None else shape
        dense = np.array([int(np.prod(shape[i + 1:])) for i in range(len(shape))], np.int64)
        arrs = [np.array(shape, np.int64),
                dense if dst_strides is None else np.array(dst_strides, np.int64),
                dense if src_strides is None else np.array(src_strides, np.int64)]  # fmt: skip
        self.keep.extend(arrs)
        return arrs

    def wait(self, token):
        self.call("dma_wait", token)

    def sync(self):
        self.call("sync")

    def counters(self) -> dict[str, int]:
        c = self.call("get_counters")
        return {f: getattr(c, f) for f in COUNTER_FIELDS}

    def bytes_on_device(self) -> int:
        return self.call("get_counters").bytes_on_device

    def run(self, inputs: list[np.ndarray], outputs: list[np.ndarray], compute) -> None:
        """DMA every input to its own 64-byte aligned slot, wait, run compute(addresses),
        DMA the outputs back, sync."""
        offsets, off = [], 0
        for a in [*inputs, *outputs]:
            offsets.append(off)
            off += (a.nbytes + 63) // 64 * 64
        assert off <= self.cfg.spm_bytes
        for a, o in zip(inputs, offsets):
            self.wait(self.to_device(o, self.host(a)))
        assert compute(*[self.at(o) for o in offsets]) == 0
        for a, o in zip(outputs, offsets[len(inputs):]):
            self.host(a)
            self.to_host(a, o)
        self.sync()


rng = np.random.default_rng(7)


def rand(shape, dtype=np.float32):
    if np.dtype(dtype).kind == "f":
        return rng.uniform(-1, 1, shape).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, int(info.max) + 1, shape, dtype=dtype)


def close(got, want, rtol=1e-5):
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * float(np.max(np.abs(want))))


def farr(values):
    a = np.ascontiguousarray(values, np.float32)
    return a, a.ctypes.data_as(C.POINTER(C.c_float))


def iarr(values):
    a = np.ascontiguousarray(values, np.int32)
    return a, a.ctypes.data_as(C.POINTER(C.c_int32))


# ---------------------------------------------------------------------------------------
# transfers
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.float64, np.int16])
def test_dma_strided_4d_tile_round_trip(dll, dtype):
    dev = Device(dll)
    x = dev.host(rand((2, 8, 10, 12), dtype))
    tile, origin = (1, 4, 5, 6), (1, 2, 3, 4)
    src_strides = [8 * 10 * 12, 10 * 12, 12, 1]
    start = int(np.ravel_multi_index(origin, x.shape))
    # into a padded scratchpad layout: rows of 8 elements, planes of 6 rows
    spm_strides = [4 * 6 * 8, 6 * 8, 8, 1]
    t = dev.to_device(128, x, tile, spm_strides, src_strides, src_offset=start)
    dev.wait(t)
    y = dev.host(np.zeros_like(x))
    dev.to_host(y, 128, tile, src_strides, spm_strides, dst_offset=start)
    dev.sync()
    sl = tuple(slice(o, o + s) for o, s in zip(origin, tile))
    np.testing.assert_array_equal(y[sl], x[sl])
    y[sl] = 0
    assert not y.any()  # nothing outside the tile was written
    nbytes = int(np.prod(tile)) * x.itemsize
    assert dev.counters() == {"bytes_to_device": nbytes, "bytes_to_host": nbytes, "transfers": 2, "accel_ops": 0,
                              "cycles": round(2 * (32 + nbytes / 16))}  # fmt: skip


def test_copy_on_the_device_assembles_tiles(dll):
    """npu_dma_on_device: two column tiles of a 4x6 matrix copied into one buffer on the
    device, on the DMA engine after the load (in order), at device_bytes_per_cycle."""
    dev = Device(dll, device_bpc=64.0)
    x = dev.host(rand((4, 6)))
    left, right, whole = 0, 256, 512
    dev.wait(dev.to_device(left, x, (4, 3), (3, 1), (6, 1)))
    dev.wait(dev.to_device(right, x, (4, 3), (3, 1), (6, 1), src_offset=3))
    copies = [dev.on_device(whole, left, (4, 3), (6, 1), (3, 1)), dev.on_device(whole + 12, right, (4, 3), (6, 1), (3, 1))]
    dev.wait(copies[-1])  # waits for the first copy too
    y = dev.host(np.zeros_like(x))
    dev.to_host(y, whole)
    dev.sync()
    np.testing.assert_array_equal(y, x)
    tile = 4 * 3 * 4
    assert dev.counters() == {"bytes_to_device": 2 * tile, "bytes_to_host": 2 * tile, "transfers": 5, "accel_ops": 0,
                              "cycles": round(2 * (32 + tile / 16) + 2 * (32 + tile / 64) + (32 + 2 * tile / 16))}
    assert dev.bytes_on_device() == 2 * tile


def test_copy_on_the_device_rate_defaults_to_the_dma_rate(dll):
    dev = Device(dll)  # device_bytes_per_cycle 0: the DMA engine's rate
    dev.wait(dev.on_device(1024, 0, (64,), (1,), (1,)))
    assert dev.counters()["cycles"] == round(32 + 256 / 16)


def test_dma_negative_strides_reverse(dll):
    dev = Device(dll)
    x = dev.host(np.arange(12, dtype=np.int32))
    dev.wait(dev.to_device(0, x, (12,), (1,), (-1,), src_offset=11))  # reversed on the way in
    y = dev.host(np.zeros(12, np.int32))
    dev.to_host(y, 0)
    dev.sync()
    np.testing.assert_array_equal(y, x[::-1])


def test_scratchpad_starts_as_nan(dll):
    """A forgotten transfer computes on garbage that shows: the scratchpad is 0xFF."""
    dev = Device(dll)
    y = dev.host(np.zeros(4, np.float32))
    dev.to_host(y, 1024)
    dev.sync()
    assert np.isnan(y).all()


# ---------------------------------------------------------------------------------------
# counters and timeline
# ---------------------------------------------------------------------------------------


def test_counters_exact_and_json(dll, tmp_path):
    dev = Device(dll, launch=10.0)
    a = rand((4, 16))
    w = rand((8, 16))
    y = np.zeros((4, 8), np.float32)
    p = MatmulParams(m=4, k=16, n=8)
    dev.run([a, w], [y], lambda sa, sw, sy: dev.call("dense_f32", sa, sw, None, sy, C.byref(p)))
    close(y, ref.dense(a, w))
    e = EltwiseParams(kind=RELU, count=32)
    dev.call("eltwise_f32", dev.at(0), None, dev.at(0), C.byref(e))  # in place
    c = dev.counters()
    # 256 + 512 bytes in, 128 bytes out; 3 transfers; 2 ops
    assert (c["bytes_to_device"], c["bytes_to_host"], c["transfers"], c["accel_ops"]) == (768, 128, 3, 2)
    # timeline: in a [0, 48], wait; in w [48, 112], wait; dense 10 + 512/64 -> [112, 130];
    # out y waits for it [130, 170]; sync (host at 170); relu 10 + 32/32 -> [170, 181]
    assert c["cycles"] == 181
    path = tmp_path / "counters.json"
    assert dev.call("write_counters_json", str(path).encode()) == 0
    assert json.loads(path.read_text()) == {**c, "bytes_on_device": 0}
    assert dev.call("write_counters_json", str(tmp_path / "no" / "such" / "dir.json").encode()) != 0


def serial_and_double_buffered(dll, double_buffer: bool) -> tuple[int, np.ndarray]:
    """Two tiles of 1024 floats through relu: transfer in, compute, transfer out."""
    dev = Device(dll, elementwise=4.0)
    x = dev.host(rand((2, 1024)))
    y = dev.host(np.zeros((2, 1024), np.float32))
    tile = 4096
    A, B = [0, tile], [2 * tile, 3 * tile]
    e = EltwiseParams(kind=RELU, count=1024)

    def relu(i):
        assert dev.call("eltwise_f32", dev.at(A[i]), None, dev.at(B[i]), C.byref(e)) == 0

    if not double_buffer:
        for i in range(2):
            dev.wait(dev.to_device(A[i], x[i]))
            relu(i)
            dev.wait(dev.to_host(y[i], B[i]))
    else:
        t0 = dev.to_device(A[0], x[0])
        dev.wait(t0)
        t1 = dev.to_device(A[1], x[1])  # the next tile moves while tile 0 computes
        relu(0)
        dev.to_host(y[0], B[0])
        dev.wait(t1)
        relu(1)
        dev.to_host(y[1], B[1])
    dev.sync()
    np.testing.assert_array_equal(y, np.maximum(x, 0))
    return dev.counters()["cycles"], y


def test_double_buffering_saves_the_predicted_cycles(dll):
    D = 32 + 4096 / 16  # one tile's transfer: 288 cycles
    Cc = 1024 / 4  # one tile's relu: 256 cycles
    serial = 2 * (D + Cc + D)  # nothing overlaps
    # in0 [0, D]; in1 [D, 2D] while c0 [D, D+C]; out0 after in1 and c0; c1 after in1;
    # out1 after out0 and c1
    out0_end = max(2 * D, D + Cc) + D
    c1_end = max(2 * D, D + Cc) + Cc
    overlapped = max(out0_end, c1_end) + D
    got_serial, _ = serial_and_double_buffered(dll, False)
    got_overlapped, _ = serial_and_double_buffered(dll, True)
    assert (got_serial, got_overlapped) == (serial, overlapped) == (1664, 1152)
    assert got_serial - got_overlapped == 512


def test_transfer_into_a_buffer_being_read_waits_for_the_reader(dll):
    """WAR: a transfer overwriting a compute op's input starts when the op ends."""
    dev = Device(dll, elementwise=1.0)
    x = dev.host(rand(256))
    dev.wait(dev.to_device(0, x))  # [0, 96]
    e = EltwiseParams(kind=RELU, count=256)
    dev.call("eltwise_f32", dev.at(0), None, dev.at(1024), C.byref(e))  # [96, 352]
    dev.to_device(0, x)  # issued at 96, starts at 352
    dev.sync()
    assert dev.counters()["cycles"] == 352 + 96


# ---------------------------------------------------------------------------------------
# compute commands against the reference
# ---------------------------------------------------------------------------------------

CONV_CASES = [
    ((1, 3, 8, 8), (4, 3, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),
    ((1, 4, 9, 9), (6, 4, 3, 3), (2, 2), (0, 1, 1, 0), (1, 1), 1),
    ((1, 8, 6, 6), (8, 1, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 8),  # depthwise
    ((2, 2, 7, 7), (3, 2, 2, 2), (1, 1), (0, 0, 0, 0), (2, 2), 1),  # dilation
]


def conv_params(xs, ws, strides, padding, dilation, groups, **kw) -> ConvParams:
    n, c, h, w = xs
    oc, _, kh, kw_ = ws
    oh = (h + padding[0] + padding[2] - dilation[0] * (kh - 1) - 1) // strides[0] + 1
    ow = (w + padding[1] + padding[3] - dilation[1] * (kw_ - 1) - 1) // strides[1] + 1
    return ConvParams(n, c, h, w, oc, kh, kw_, oh, ow, *strides, *padding, *dilation, groups, **kw)


@pytest.mark.parametrize("xs, ws, strides, padding, dilation, groups", CONV_CASES)
@pytest.mark.parametrize("act", [ACT_NONE, ACT_RELU, ACT_CLIP])
def test_npu_conv2d_f32(dll, xs, ws, strides, padding, dilation, groups, act):
    dev = Device(dll)
    x, w, b = rand(xs), rand(ws), rand(ws[0])
    want = ref.bias_add(ref.conv2d(x, w, strides, padding, dilation, groups), b, 1)
    want = {ACT_NONE: want, ACT_RELU: ref.relu(want), ACT_CLIP: ref.clip(want, -0.25, 0.5)}[act]
    y = np.zeros(want.shape, np.float32)
    p = conv_params(xs, ws, strides, padding, dilation, groups, act=act, act_min=-0.25, act_max=0.5)
    dev.run([x, w, b], [y], lambda sx, sw, sb, sy: dev.call("conv2d_f32", sx, sw, sb, sy, C.byref(p)))
    close(y, want)
    macs = y.size * (xs[1] // groups) * ws[2] * ws[3]
    assert dev.counters()["accel_ops"] == 1
    # the op's cost shows in the timeline: three waits, the conv, the transfer out
    dma = [32 + a.nbytes / 16 for a in (x, w, b, y)]
    assert dev.counters()["cycles"] == round(sum(dma) + macs / 64)


def quantized_conv_reference(x, w, b, x_zp, w_zp, in_scale, out_scale, out_zp, act, geometry, out_dtype):
    """The npu_conv2d_s8 arithmetic composed from reference ops: the exact i32
    accumulator, + bias, requantize with in_scale[c] = s_x * s_w[c]; relu on the real
    value is max(q, zero point) since quantization is monotone."""
    acc = ref.qnn_conv2d(x, w, np.array(x_zp, x.dtype), w_zp.astype(w.dtype), *geometry)
    acc = ref.bias_add(acc, b, 1)
    q = ref.qnn_requantize(acc, in_scale, np.array(0, np.int32), np.array(out_scale, np.float32),
                           np.array(out_zp, out_dtype), axis=1)  # fmt: skip
    if act == ACT_RELU:
        q = np.maximum(q, np.array(out_zp, out_dtype))
    return q


@pytest.mark.parametrize("xs, ws, strides, padding, dilation, groups", CONV_CASES)
@pytest.mark.parametrize("xt, wt, yt", [(np.int8, np.int8, np.int8), (np.uint8, np.int8, np.uint8)])
@pytest.mark.parametrize("act", [ACT_NONE, ACT_RELU])
def test_npu_conv2d_s8_matches_requantized_reference(dll, xs, ws, strides, padding, dilation, groups, xt, wt, yt, act):
    dev = Device(dll)
    x, w = rand(xs, xt), rand(ws, wt)
    b = rng.integers(-2000, 2000, ws[0]).astype(np.int32)
    x_zp = 3 if xt == np.int8 else 128
    w_zp = rng.integers(-3, 4, ws[0]).astype(np.int32)  # per output channel
    in_scale = rng.uniform(1e-4, 1e-3, ws[0]).astype(np.float32)
    out_scale, out_zp = np.float32(0.05), (-5 if yt == np.int8 else 120)
    want = quantized_conv_reference(x, w, b, x_zp, w_zp, in_scale, out_scale, out_zp, act,
                                    (strides, padding, dilation, groups), yt)  # fmt: skip
    y = np.zeros(want.shape, yt)
    wz, wzp = iarr(w_zp)
    sc, scp = farr(in_scale)
    p = conv_params(xs, ws, strides, padding, dilation, groups, act=act, x_dtype=QTYPE[np.dtype(xt)],
                    w_dtype=QTYPE[np.dtype(wt)], y_dtype=QTYPE[np.dtype(yt)], input_zero_point=x_zp,
                    weight_zero_point=wzp, weight_zero_point_len=len(wz), in_scale=scp, in_scale_len=len(sc),
                    out_scale=out_scale, out_zero_point=out_zp)  # fmt: skip
    dev.run([x, w, b], [y], lambda sx, sw, sb, sy: dev.call("conv2d_s8", sx, sw, sb, sy, C.byref(p)))
    np.testing.assert_array_equal(y, want)
    macs = y.size * (xs[1] // groups) * ws[2] * ws[3]
    dma = [32 + a.nbytes / 16 for a in (x, w, b, y)]
    assert dev.counters()["cycles"] == round(sum(dma) + macs / 256)  # the int8 rate


def test_s8_epilogue_rounds_ties_to_even_and_saturates(dll):
    """A 1x1 conv with weight 1 makes acc = x; acc * 0.5 / 1.0 lands on .5 ties."""
    x = np.array([1, 3, 5, -1, -3, -5, 7, 127, -128, 0], np.int8)
    sc, scp = farr([0.5])
    dev = Device(dll)
    w = np.ones((1, 1, 1, 1), np.int8)
    y = np.zeros((1, 1, 1, x.size), np.int8)
    p = conv_params((1, 1, 1, x.size), (1, 1, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1, in_scale=scp, in_scale_len=1,
                    out_scale=1.0)  # fmt: skip
    dev.run([x.reshape(1, 1, 1, -1), w], [y], lambda sx, sw, sy: dev.call("conv2d_s8", sx, sw, None, sy, C.byref(p)))
    np.testing.assert_array_equal(y.ravel(), [0, 2, 2, 0, -2, -2, 4, 64, -64, 0])  # half to even
    # saturation: acc * 3 - 1 leaves int8 for most values
    dsp = Device(dll, "dsp_")
    sc3, scp3 = farr([3.0])
    q = MatmulParams(m=x.size, k=1, n=1, in_scale=scp3, in_scale_len=1, out_scale=1.0, out_zero_point=-1)
    y2 = np.zeros((x.size, 1), np.int8)
    dsp.run([x.reshape(-1, 1), w.reshape(1, 1)], [y2],
            lambda sx, sw, sy: dsp.call("dense_s8", sx, sw, None, sy, C.byref(q)))  # fmt: skip
    np.testing.assert_array_equal(y2.ravel(), [2, 8, 14, -4, -10, -16, 20, 127, -128, -1])


@pytest.mark.parametrize("prefix", ["npu_", "dsp_"])
@pytest.mark.parametrize("ta, tb", [(0, 1), (0, 0), (1, 0), (1, 1)])
def test_matmul_f32_transposes(dll, prefix, ta, tb):
    dev = Device(dll, prefix)
    m, k, n = 5, 12, 7
    a = rand((k, m) if ta else (m, k))
    b = rand((n, k) if tb else (k, n))
    bias = rand(n)
    y = np.zeros((m, n), np.float32)
    p = MatmulParams(m=m, k=k, n=n, transpose_a=ta, transpose_b=tb, act=ACT_CLIP, act_min=-0.5, act_max=1.0)
    dev.run([a, b, bias], [y], lambda sa, sb, sc, sy: dev.call("matmul_f32", sa, sb, sc, sy, C.byref(p)))
    close(y, ref.clip(ref.matmul(a, b, bool(ta), bool(tb)) + bias, -0.5, 1.0))


def _k_halves(dll, accumulate: int):
    """y = clip(a · b + bias) as two K tiles on the npu: the second accumulates (or, with
    accumulate 0, overwrites) and applies bias and activation."""
    dev = Device(dll, "npu_")
    m, k, n = 8, 24, 8  # whole cycles: m*n/32 and m*n*k/2/64
    a, b, bias = rand((m, k)), rand((n, k)), rand(n)
    halves = [np.ascontiguousarray(v[:, h * k // 2:(h + 1) * k // 2]) for h in (0, 1) for v in (a, b)]
    y = np.zeros((m, n), np.float32)
    first = MatmulParams(m=m, k=k // 2, n=n, transpose_b=1)
    last = MatmulParams(m=m, k=k // 2, n=n, transpose_b=1, act=ACT_CLIP, act_min=-0.5, act_max=1.0,
                        accumulate=accumulate)

    def compute(sa0, sb0, sa1, sb1, sbias, sy):
        assert dev.call("matmul_f32", sa0, sb0, None, sy, C.byref(first)) == 0
        return dev.call("matmul_f32", sa1, sb1, sbias, sy, C.byref(last))

    dev.run([*halves, bias], [y], compute)
    return y, ref.clip(ref.matmul(a, b, False, True) + bias, -0.5, 1.0), dev.counters()["cycles"], m * n


def test_matmul_f32_accumulates_k_tiles(dll):
    y, want, cycles, mn = _k_halves(dll, 1)
    close(y, want)
    y_over, _, cycles_over, _ = _k_halves(dll, 0)
    assert not np.allclose(y_over, want)  # without accumulate the second tile overwrites
    assert cycles - cycles_over == mn / 32  # reading the partial sums: m*n elementwise work


@pytest.mark.parametrize("prefix", ["npu_", "dsp_"])
@pytest.mark.parametrize("ta, tb, fn", [(0, 1, "dense_s8"), (0, 1, "matmul_s8"), (1, 0, "matmul_s8")])
def test_quantized_dense_and_matmul(dll, prefix, ta, tb, fn):
    dev = Device(dll, prefix)
    m, k, n = 6, 40, 9
    x = rand((m, k), np.uint8)
    w = rand((n, k), np.int8)
    a = np.ascontiguousarray(x.T) if ta else x
    b = w if tb else np.ascontiguousarray(w.T)
    bias = rng.integers(-3000, 3000, n).astype(np.int32)
    x_zp, w_zp = 100, np.int32(2)
    in_scale, out_scale, out_zp = np.float32(0.0007), np.float32(0.08), 3
    acc = ref.qnn_dense(x, w, np.array(x_zp, np.uint8), np.array(w_zp, np.int8)) + bias
    want = np.maximum(ref.qnn_requantize(acc, np.array(in_scale), np.array(0, np.int32), np.array(out_scale),
                                         np.array(out_zp, np.int8)), np.int8(out_zp))  # fmt: skip
    y = np.zeros((m, n), np.int8)
    wz, wzp = iarr([w_zp])
    sc, scp = farr([in_scale])
    p = MatmulParams(m=m, k=k, n=n, transpose_a=ta, transpose_b=tb, act=ACT_RELU, x_dtype=U8, w_dtype=I8,
                     y_dtype=I8, input_zero_point=x_zp, weight_zero_point=wzp, weight_zero_point_len=1, in_scale=scp,
                     in_scale_len=1, out_scale=out_scale, out_zero_point=out_zp)  # fmt: skip
    dev.run([a, b, bias], [y], lambda sa, sb, sc_, sy: dev.call(fn, sa, sb, sc_, sy, C.byref(p)))
    np.testing.assert_array_equal(y, want)


POOL_CASES = [
    ((1, 2, 8, 8), (2, 2), (2, 2), (0, 0, 0, 0), False, False),
    ((1, 3, 7, 7), (3, 3), (2, 2), (1, 1, 1, 1), True, False),  # ceil_mode
    ((2, 2, 6, 6), (3, 3), (1, 1), (1, 1, 1, 1), False, True),  # count_include_pad
]


def pool_params(kind, shape, k, s, pad, ceil_mode, include_pad, **kw) -> PoolParams:
    n, c, h, w = shape
    oh = ref.pool_out_dim(h, k[0], s[0], 1, pad[0], pad[2], ceil_mode)
    ow = ref.pool_out_dim(w, k[1], s[1], 1, pad[1], pad[3], ceil_mode)
    return PoolParams(kind, n, c, h, w, oh, ow, *k, *s, 1, 1, *pad, int(include_pad), **kw)


@pytest.mark.parametrize("shape, k, s, pad, ceil_mode, include_pad", POOL_CASES)
@pytest.mark.parametrize("kind", [POOL_MAX, POOL_AVG])
def test_npu_pool2d_f32(dll, shape, k, s, pad, ceil_mode, include_pad, kind):
    dev = Device(dll)
    x = rand(shape)
    if kind == POOL_MAX:
        want = ref.max_pool2d(x, k, s, (1, 1), pad, ceil_mode)
    else:
        want = ref.avg_pool2d(x, k, s, (1, 1), pad, ceil_mode, include_pad)
    y = np.zeros(want.shape, np.float32)
    p = pool_params(kind, shape, k, s, pad, ceil_mode, include_pad)
    dev.run([x], [y], lambda sx, sy: dev.call("pool2d_f32", sx, sy, C.byref(p)))
    close(y, want)


@pytest.mark.parametrize("shape, k, s, pad, ceil_mode, include_pad", POOL_CASES)
@pytest.mark.parametrize("kind", [POOL_MAX, POOL_AVG])
def test_npu_pool2d_s8_is_dequantize_pool_quantize(dll, shape, k, s, pad, ceil_mode, include_pad, kind):
    dev = Device(dll)
    x = rand(shape, np.int8)
    in_s, in_zp, out_s, out_zp = np.float32(0.04), np.int8(-3), np.float32(0.05), np.int8(6)
    xf = ref.qnn_dequantize(x, np.array(in_s), np.array(in_zp))
    if kind == POOL_MAX:
        pooled = ref.max_pool2d(xf, k, s, (1, 1), pad, ceil_mode)
    else:
        pooled = ref.avg_pool2d(xf, k, s, (1, 1), pad, ceil_mode, include_pad)
    want = ref.qnn_quantize(pooled, np.array(out_s), np.array(out_zp))
    y = np.zeros(want.shape, np.int8)
    p = pool_params(kind, shape, k, s, pad, ceil_mode, include_pad, in_scale=in_s, in_zero_point=in_zp,
                    out_scale=out_s, out_zero_point=out_zp)  # fmt: skip
    dev.run([x], [y], lambda sx, sy: dev.call("pool2d_s8", sx, sy, C.byref(p)))
    diff = np.abs(y.astype(np.int32) - want)
    # max is exact; the average may round a float32 tie differently (summation order)
    assert diff.max() <= (0 if kind == POOL_MAX else 1) and (diff == 0).mean() > 0.95


@pytest.mark.parametrize("kind, act", [(ADD, ACT_NONE), (ADD, ACT_RELU), (MUL, ACT_CLIP), (RELU, ACT_NONE),
                                       (CLIP, ACT_CLIP)])  # fmt: skip
def test_npu_eltwise_f32(dll, kind, act):
    dev = Device(dll)
    a, b = rand((3, 50)), rand((3, 50))
    v = {ADD: a + b, MUL: a * b, RELU: ref.relu(a), CLIP: ref.clip(a, -0.3, 0.6)}[kind]
    want = {ACT_NONE: v, ACT_RELU: ref.relu(v), ACT_CLIP: ref.clip(v, -0.3, 0.6)}[act]
    y = np.zeros_like(a)
    p = EltwiseParams(kind=kind, count=a.size, act=act, act_min=-0.3, act_max=0.6)
    binary = kind in (ADD, MUL)
    dev.run([a, b], [y], lambda sa, sb, sy: dev.call("eltwise_f32", sa, sb if binary else None, sy, C.byref(p)))
    np.testing.assert_array_equal(y, want)


@pytest.mark.parametrize("at, bt, yt", [(np.int8, np.int8, np.int8), (np.uint8, np.int8, np.uint8)])
def test_npu_eltwise_s8_add_is_qnn_add(dll, at, bt, yt):
    dev = Device(dll)
    a, b = rand(500, at), rand(500, bt)
    sa, za, sb, zb, sy, zy = np.float32(0.02), 5, np.float32(0.03), -2, np.float32(0.04), 7
    if at == np.uint8:
        za = 130
    if yt == np.uint8:
        zy = 125
    want = ref.qnn_add(a, b, np.array(sa), np.array(za, at), np.array(sb), np.array(zb, bt), np.array(sy),
                       np.array(zy, yt))  # fmt: skip
    y = np.zeros(500, yt)
    p = EltwiseParams(kind=ADD, count=500, lhs_dtype=QTYPE[np.dtype(at)], rhs_dtype=QTYPE[np.dtype(bt)],
                      out_dtype=QTYPE[np.dtype(yt)], lhs_scale=sa, lhs_zero_point=za, rhs_scale=sb, rhs_zero_point=zb,
                      out_scale=sy, out_zero_point=zy)  # fmt: skip
    dev.run([a, b], [y], lambda pa, pb, py: dev.call("eltwise_s8", pa, pb, py, C.byref(p)))
    np.testing.assert_array_equal(y, want)


def test_inconsistent_parameters_return_einval(dll, capfd):
    dev = Device(dll)
    p = conv_params((1, 4, 8, 8), (4, 4, 3, 3), (1, 1), (0, 0, 0, 0), (1, 1), 1)
    p.oh = 7  # should be 6
    assert dev.call("conv2d_f32", dev.at(0), dev.at(4096), None, dev.at(8192), C.byref(p)) == 1
    err = capfd.readouterr().err
    assert err.count("\n") == 1 and err.startswith("npu: error: npu_conv2d_f32: inconsistent parameters")
    assert dev.counters()["accel_ops"] == 0  # rejected before it was issued
    q = MatmulParams(m=2, k=2, n=2, in_scale_len=1)  # no in_scale array
    assert dev.call("matmul_s8", dev.at(0), dev.at(64), None, dev.at(128), C.byref(q)) == 1
    assert "in_scale" in capfd.readouterr().err


def test_init_rejects_a_bad_config(dll, capfd):
    cfg = Config(0, 64, 0, 16.0, 32.0, 64.0, 256.0, 32.0, 0.0)
    assert dll.npu_init(C.byref(cfg)) != 0
    cfg = Config(4096, 48, 0, 16.0, 32.0, 64.0, 256.0, 32.0, 0.0)
    assert dll.dsp_init(C.byref(cfg)) != 0
    err = capfd.readouterr().err.splitlines()
    assert err == ["npu: error: invalid configuration: spm_bytes must be in (0, 2^40]",
                   "dsp: error: invalid configuration: alignment must be a power of two"]  # fmt: skip


# ---------------------------------------------------------------------------------------
# fatal errors: one line, exit status 3, nothing touched (sanitized scenarios)
# ---------------------------------------------------------------------------------------

SCENARIOS_C = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "npu.h"
#include "dsp.h"

#define SPM 4096
static unsigned char canary[256];
static float host_a[256], host_b[256];
static unsigned char *spm;

/* Runs at exit (also after a fatal simulator error): what memory looks like. */
static void report(void) {
    int canary_ok = 1, spm_ok = 1;
    for (int i = 0; i < 256; i++) canary_ok &= canary[i] == 0xAB;
    if (spm)
        for (int i = 0; i < SPM; i++) spm_ok &= spm[i] == 0xFF;
    printf("canary %s, scratchpad %s\n", canary_ok ? "intact" : "CORRUPTED", spm_ok ? "untouched" : "written");
}

static void setup(int shared) {
    npu_config c;
    memset(&c, 0, sizeof c);
    c.spm_bytes = SPM; c.alignment = 64; c.shared_with_host = shared; c.dma_bytes_per_cycle = 16;
    c.dma_setup_cycles = 32; c.macs_per_cycle_f32 = 64; c.macs_per_cycle_int8 = 256; c.elementwise_per_cycle = 32;
    if (npu_init(&c)) exit(10);
    spm = npu_spm();
    memset(canary, 0xAB, sizeof canary);
    for (int i = 0; i < 256; i++) host_a[i] = (float)i - 100.0f;
    npu_register_host(canary, 64); /* only the first 64 bytes */
    npu_register_host(host_a, sizeof host_a);
    npu_register_host(host_b, sizeof host_b);
    atexit(report);
}

static const int64_t ONE[4] = {1, 1, 1, 1};

static npu_token in1(void *dst, const void *src, int64_t n) {
    int64_t shape[1] = {n};
    return npu_dma_to_device(dst, src, 4, 1, shape, ONE, ONE);
}

static npu_eltwise_params relu(int64_t n) {
    npu_eltwise_params p;
    memset(&p, 0, sizeof p);
    p.kind = NPU_ELTWISE_RELU;
    p.count = n;
    return p;
}

int main(int argc, char **argv) {
    const char *s = argc > 1 ? argv[1] : "";
    if (!strcmp(s, "before_init")) { npu_sync(); return 0; }
    if (!strcmp(s, "dsp_before_init")) { dsp_sync(); return 0; }
    if (!strcmp(s, "spm_overflow")) { setup(0); in1(spm + SPM - 64, host_a, 32); return 0; }
    if (!strcmp(s, "spm_underflow")) { setup(0); in1(spm - 16, host_a, 8); return 0; }
    if (!strcmp(s, "strided_overflow")) {
        setup(0);
        int64_t shape[2] = {4, 64}, dst[2] = {1350, 1}, src[2] = {64, 1};
        npu_dma_to_device(spm, canary, 1, 2, shape, dst, src); /* last row ends at 4114 */
        return 0;
    }
    if (!strcmp(s, "host_src_overflow")) { setup(0); in1(spm, host_a + 200, 64); return 0; }
    if (!strcmp(s, "host_unregistered")) { setup(0); float local[8] = {0}; in1(spm, local, 8); return 0; }
    if (!strcmp(s, "host_dst_overflow")) {
        setup(0);
        int64_t shape[1] = {128};
        npu_dma_to_host(canary, spm, 1, 1, shape, ONE, ONE); /* 128 bytes, 64 registered */
        return 0;
    }
    if (!strcmp(s, "compute_on_host")) {
        setup(0);
        npu_eltwise_params p = relu(16);
        npu_eltwise_f32(host_a, NULL, (float *)spm, &p);
        return 0;
    }
    if (!strcmp(s, "compute_past_end")) {
        setup(0);
        npu_eltwise_params p = relu(64);
        npu_eltwise_f32((float *)spm, NULL, (float *)(spm + SPM - 128), &p);
        return 0;
    }
    if (!strcmp(s, "shared_ok")) {
        setup(1);
        npu_eltwise_params p = relu(256);
        int st = npu_eltwise_f32(host_a, NULL, host_b, &p); /* zero-copy: host memory directly */
        npu_sync();
        printf("status %d, relu(-100) = %g, relu(155) = %g, ops %llu, transfers %llu\n", st, host_b[0], host_b[255],
               (unsigned long long)npu_get_counters().accel_ops, (unsigned long long)npu_get_counters().transfers);
        return 0;
    }
    if (!strcmp(s, "shared_unregistered")) {
        setup(1);
        float local[16] = {0};
        npu_eltwise_params p = relu(16);
        npu_eltwise_f32(local, NULL, host_b, &p);
        return 0;
    }
    if (!strcmp(s, "missing_wait")) {
        setup(0);
        in1(spm, host_a, 64); /* never waited for */
        npu_eltwise_params p = relu(64);
        npu_eltwise_f32((float *)spm, NULL, (float *)(spm + 1024), &p);
        return 0;
    }
    if (!strcmp(s, "missing_wait_conv")) {
        setup(0);
        npu_dma_wait(in1(spm, host_a, 16));
        in1(spm + 256, host_a, 9); /* the weights: never waited for */
        npu_conv2d_params p;
        memset(&p, 0, sizeof p);
        p.n = 1; p.c = 1; p.h = 4; p.w = 4; p.oc = 1; p.kh = 3; p.kw = 3; p.oh = 2; p.ow = 2;
        p.stride_h = p.stride_w = 1; p.dil_h = p.dil_w = 1; p.groups = 1;
        npu_conv2d_f32((float *)spm, (float *)(spm + 256), NULL, (float *)(spm + 512), &p);
        return 0;
    }
    if (!strcmp(s, "overwrite_unwaited")) {
        setup(0);
        npu_dma_wait(in1(spm, host_a, 16));
        in1(spm + 1024, host_a, 16); /* still in flight ... */
        npu_eltwise_params p = relu(16);
        npu_eltwise_f32((float *)spm, NULL, (float *)(spm + 1024), &p); /* ... when this overwrites it */
        return 0;
    }
    if (!strcmp(s, "later_wait_covers")) {
        setup(0);
        in1(spm, host_a, 64);
        npu_token t2 = in1(spm + 1024, host_a, 64);
        npu_dma_wait(t2); /* in order: the first transfer is complete too */
        npu_eltwise_params p = relu(64);
        int st = npu_eltwise_f32((float *)spm, NULL, (float *)(spm + 2048), &p);
        printf("status %d\n", st);
        return 0;
    }
    if (!strcmp(s, "unaligned_tiles_ok")) {
        setup(0);
        npu_dma_wait(in1(spm, host_a, 10)); /* bytes [0, 40) */
        in1(spm + 40, host_a, 10);          /* bytes [40, 80), same 64-byte block, in flight */
        npu_eltwise_params p = relu(10);
        int st = npu_eltwise_f32((float *)spm, NULL, (float *)(spm + 1024), &p); /* reads [0, 40) only */
        printf("status %d\n", st);
        return 0;
    }
    if (!strcmp(s, "overlap")) {
        setup(0);
        npu_sync();
        npu_eltwise_params p = relu(64);
        npu_eltwise_f32((float *)spm, NULL, (float *)(spm + 128), &p);
        return 0;
    }
    if (!strcmp(s, "device_copy_overlap")) {
        setup(0);
        int64_t shape[1] = {32};
        npu_dma_on_device(spm + 64, spm, 4, 1, shape, ONE, ONE); /* [64, 192) from [0, 128) */
        return 0;
    }
    if (!strcmp(s, "device_copy_past_end")) {
        setup(0);
        int64_t shape[1] = {32};
        npu_dma_on_device(spm, spm + SPM - 64, 4, 1, shape, ONE, ONE);
        return 0;
    }
    if (!strcmp(s, "device_copy_unwaited")) {
        setup(0);
        npu_dma_wait(in1(spm, host_a, 16));
        int64_t shape[1] = {16};
        npu_dma_on_device(spm + 1024, spm, 4, 1, shape, ONE, ONE); /* never waited for */
        npu_eltwise_params p = relu(16);
        npu_eltwise_f32((float *)(spm + 1024), NULL, (float *)(spm + 2048), &p);
        return 0;
    }
    if (!strcmp(s, "bad_token")) { setup(0); npu_dma_wait(5); return 0; }
    if (!strcmp(s, "bad_rank")) {
        setup(0);
        int64_t shape[5] = {1, 1, 1, 1, 4};
        npu_dma_to_device(spm, host_a, 4, 5, shape, ONE, ONE);
        return 0;
    }
    if (!strcmp(s, "dsp_missing_wait")) {
        dsp_config c;
        memset(&c, 0, sizeof c);
        c.spm_bytes = SPM; c.dma_bytes_per_cycle = 8; c.dma_setup_cycles = 16; c.macs_per_cycle_f32 = 32;
        c.macs_per_cycle_int8 = 128; c.elementwise_per_cycle = 8;
        if (dsp_init(&c)) return 10;
        unsigned char *d = dsp_spm();
        dsp_register_host(host_a, sizeof host_a);
        int64_t shape[1] = {16};
        dsp_dma_to_device(d, host_a, 4, 1, shape, ONE, ONE);
        dsp_matmul_params p;
        memset(&p, 0, sizeof p);
        p.m = 4; p.k = 4; p.n = 4; p.transpose_b = 1;
        dsp_dense_f32((float *)d, (float *)d, NULL, (float *)(d + 1024), &p);
        return 0;
    }
    fprintf(stderr, "unknown scenario '%s'\n", s);
    return 20;
}
"""


@pytest.fixture(scope="session")
def scenarios(tmp_path_factory):
    d = tmp_path_factory.mktemp("scenarios")
    src = d / "sim_scenarios.c"
    src.write_text(SCENARIOS_C)
    return cbuild.build([src, *cbuild.simulator_sources()], kind="exe", sanitize=True, name="sim_scenarios")


def run_scenario(exe, name: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(exe), name], capture_output=True, text=True, timeout=60)


FATAL = {
    "before_init": "npu: error: npu_sync called before npu_init",
    "dsp_before_init": "dsp: error: dsp_sync called before dsp_init",
    "spm_overflow": "npu: error: transfer to the device destination is outside the scratchpad (dma #1, spm offset 4032, 128 bytes; the scratchpad has 4096 bytes)",
    "spm_underflow": "npu: error: transfer to the device destination is outside the scratchpad (dma #1, spm offset -16, 32 bytes; the scratchpad has 4096 bytes)",
    "strided_overflow": "npu: error: transfer to the device destination is outside the scratchpad (dma #1, spm offset 0, 4114 bytes; the scratchpad has 4096 bytes)",
    "host_src_overflow": "npu: error: transfer to the device source is outside registered host memory (dma #1, host address 0x",
    "host_unregistered": "npu: error: transfer to the device source is outside registered host memory (dma #1, host address 0x",
    "host_dst_overflow": "npu: error: transfer to the host destination is outside registered host memory (dma #1, host address 0x",
    "compute_on_host": "npu: error: npu_eltwise_f32 input 'lhs' is not in the scratchpad (op #1, address 0x",
    "compute_past_end": "npu: error: npu_eltwise_f32 output 'y' runs past the end of the scratchpad (op #1, spm offset 3968, 256 bytes; the scratchpad has 4096 bytes)",
    "shared_unregistered": "npu: error: npu_eltwise_f32 input 'lhs' is not in the scratchpad nor in registered host memory (op #1, address 0x",
    "missing_wait": "npu: error: npu_eltwise_f32 input 'lhs' reads scratchpad bytes written by dma #1, which was never waited for (op #1, spm offset 0)",
    "missing_wait_conv": "npu: error: npu_conv2d_f32 input 'weight' reads scratchpad bytes written by dma #2, which was never waited for (op #1, spm offset 256)",
    "overwrite_unwaited": "npu: error: npu_eltwise_f32 output 'y' overwrites scratchpad bytes written by dma #2, which was never waited for (op #1, spm offset 1024)",
    "overlap": "npu: error: npu_eltwise_f32 output 'y' overlaps input 'lhs' (op #1, 256 bytes at spm offset 128 and 256 at 0)",
    "device_copy_overlap": "npu: error: copy on the device overlaps its source (dma #1, spm offsets 0..128 and 64..192)",
    "device_copy_past_end": "npu: error: copy on the device source is outside the scratchpad (dma #1, spm offset 4032, 128 bytes; the scratchpad has 4096 bytes)",
    "device_copy_unwaited": "npu: error: npu_eltwise_f32 input 'lhs' reads scratchpad bytes written by dma #2, which was never waited for (op #1, spm offset 1024)",
    "bad_token": "npu: error: waits for dma #5, which was never issued (0 transfers so far)",
    "bad_rank": "npu: error: transfer to the device needs rank 1 to 4 with shape and strides, got rank 5 (dma #1)",
    "dsp_missing_wait": "dsp: error: dsp_dense_f32 input 'a' reads scratchpad bytes written by dma #1, which was never waited for (op #1, spm offset 0)",
}  # fmt: skip


@pytest.mark.parametrize("name", list(FATAL))
def test_fatal_error_is_one_line_and_exit_3(scenarios, name):
    r = run_scenario(scenarios, name)
    assert r.returncode == 3, r.stderr
    assert r.stderr.count("\n") == 1 and r.stderr.startswith(FATAL[name]), r.stderr
    if name not in ("before_init", "dsp_before_init", "dsp_missing_wait"):
        # the rejected command touched nothing: the partly registered canary and the
        # scratchpad (0xFF at init) hold their bytes; ASan saw no stray access either
        untouched = "untouched" if name in ("spm_overflow", "spm_underflow", "strided_overflow", "host_src_overflow",
                                            "host_unregistered", "host_dst_overflow", "compute_on_host",
                                            "compute_past_end",
                                            "bad_token", "bad_rank", "overlap", "shared_unregistered",
                                            "device_copy_overlap", "device_copy_past_end") else ""  # fmt: skip
        assert r.stdout.startswith("canary intact, scratchpad " + untouched), r.stdout


def test_shared_memory_computes_on_registered_host_memory(scenarios):
    r = run_scenario(scenarios, "shared_ok")
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert r.stdout.startswith("status 0, relu(-100) = 0, relu(155) = 155, ops 1, transfers 0\n")


def test_the_wait_check_is_exact_to_the_byte(scenarios):
    """Tiles of one buffer may share a 64-byte block: using the waited tile is fine while
    its neighbour is still in flight."""
    r = run_scenario(scenarios, "unaligned_tiles_ok")
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert r.stdout.startswith("status 0\n")


def test_waiting_for_a_later_transfer_covers_earlier_ones(scenarios):
    r = run_scenario(scenarios, "later_wait_covers")
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert r.stdout.startswith("status 0\n")


# ---------------------------------------------------------------------------------------
# sanitized end-to-end sequence: conv + dense (float and int8) + strided transfers
# ---------------------------------------------------------------------------------------

PIPELINE_C = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "npu.h"

/* Deterministic inputs: x [1][4][10][10] f32, w [8][4][3][3], b [8]; dense [8*5*5] -> 10;
 * int8 copies of x/w for the quantized conv. Outputs to argv[1] as raw bytes. */
static float x[400], w[288], b[8], conv[8 * 5 * 5], dw[10 * 200], dense[10];
static int8_t xq[400], wq[288], convq[8 * 5 * 5];
static int32_t bq[8];

static float lcg(unsigned *s) { *s = *s * 1103515245u + 12345u; return (float)((*s >> 8) & 0xFFFF) / 32768.0f - 1.0f; }

int main(int argc, char **argv) {
    unsigned seed = 42;
    if (argc < 2) return 6;
    for (int i = 0; i < 400; i++) { x[i] = lcg(&seed); xq[i] = (int8_t)(x[i] * 100); }
    for (int i = 0; i < 288; i++) { w[i] = lcg(&seed); wq[i] = (int8_t)(w[i] * 100); }
    for (int i = 0; i < 8; i++) { b[i] = lcg(&seed); bq[i] = (int32_t)(b[i] * 1000); }
    for (int i = 0; i < 2000; i++) dw[i] = lcg(&seed);

    npu_config c;
    memset(&c, 0, sizeof c);
    c.spm_bytes = 65536; c.alignment = 64; c.dma_bytes_per_cycle = 16; c.dma_setup_cycles = 32;
    c.macs_per_cycle_f32 = 64; c.macs_per_cycle_int8 = 256; c.elementwise_per_cycle = 32;
    if (npu_init(&c)) return 1;
    unsigned char *spm = npu_spm();
    npu_register_host(x, sizeof x); npu_register_host(w, sizeof w); npu_register_host(b, sizeof b);
    npu_register_host(conv, sizeof conv); npu_register_host(dw, sizeof dw); npu_register_host(dense, sizeof dense);
    npu_register_host(xq, sizeof xq); npu_register_host(wq, sizeof wq); npu_register_host(bq, sizeof bq);
    npu_register_host(convq, sizeof convq);

    /* x in as two row halves (strided 4-D tiles), into one dense spm tensor */
    int64_t tile[4] = {1, 4, 5, 10}, dense4[4] = {400, 100, 10, 1};
    npu_token t0 = npu_dma_to_device(spm, x, 4, 4, tile, dense4, dense4);
    npu_token t1 = npu_dma_to_device(spm + 50 * 4, x + 50, 4, 4, tile, dense4, dense4);
    int64_t n1[1] = {288}, n2[1] = {8}, n3[1] = {2000}, s1[1] = {1};
    npu_token t2 = npu_dma_to_device(spm + 2048, w, 4, 1, n1, s1, s1);
    npu_token t3 = npu_dma_to_device(spm + 4096, b, 4, 1, n2, s1, s1);
    npu_token t4 = npu_dma_to_device(spm + 8192, dw, 4, 1, n3, s1, s1);
    npu_dma_wait(t0); npu_dma_wait(t1); npu_dma_wait(t2); npu_dma_wait(t3);

    npu_conv2d_params p;
    memset(&p, 0, sizeof p);
    p.n = 1; p.c = 4; p.h = 10; p.w = 10; p.oc = 8; p.kh = 3; p.kw = 3; p.oh = 5; p.ow = 5;
    p.stride_h = p.stride_w = 2; p.pad_top = p.pad_left = 0; p.pad_bottom = p.pad_right = 1;
    p.dil_h = p.dil_w = 1; p.groups = 1; p.act = NPU_ACT_RELU;
    if (npu_conv2d_f32((float *)spm, (float *)(spm + 2048), (float *)(spm + 4096), (float *)(spm + 6144), &p)) return 2;
    npu_dma_wait(t4);
    npu_matmul_params m;
    memset(&m, 0, sizeof m);
    m.m = 1; m.k = 200; m.n = 10; m.transpose_b = 1;
    if (npu_dense_f32((float *)(spm + 6144), (float *)(spm + 8192), NULL, (float *)(spm + 16384), &m)) return 3;
    int64_t n4[1] = {200}, n5[1] = {10};
    npu_dma_to_host(conv, spm + 6144, 4, 1, n4, s1, s1);
    npu_dma_to_host(dense, spm + 16384, 4, 1, n5, s1, s1);

    /* int8 conv on the same geometry */
    int64_t q1[1] = {400}, q2[1] = {288};
    npu_token u0 = npu_dma_to_device(spm + 20480, xq, 1, 1, q1, s1, s1);
    npu_token u1 = npu_dma_to_device(spm + 21504, wq, 1, 1, q2, s1, s1);
    npu_token u2 = npu_dma_to_device(spm + 22528, bq, 4, 1, n2, s1, s1);
    npu_dma_wait(u0); npu_dma_wait(u1); npu_dma_wait(u2);
    static const float in_scale[1] = {0.0001f};
    p.act = NPU_ACT_NONE;
    p.in_scale = in_scale; p.in_scale_len = 1; p.out_scale = 0.05f; p.out_zero_point = 3; p.input_zero_point = -1;
    if (npu_conv2d_s8(spm + 20480, spm + 21504, (int32_t *)(spm + 22528), spm + 23552, &p)) return 4;
    npu_dma_to_host(convq, spm + 23552, 1, 1, n4, s1, s1);
    npu_sync();

    FILE *f = fopen(argv[1], "wb");
    if (!f) return 5;
    fwrite(x, 1, sizeof x, f); fwrite(w, 1, sizeof w, f); fwrite(b, 1, sizeof b, f); fwrite(dw, 1, sizeof dw, f);
    fwrite(xq, 1, sizeof xq, f); fwrite(wq, 1, sizeof wq, f); fwrite(bq, 1, sizeof bq, f);
    fwrite(conv, 1, sizeof conv, f); fwrite(dense, 1, sizeof dense, f); fwrite(convq, 1, sizeof convq, f);
    fclose(f);
    npu_counters k = npu_get_counters();
    printf("%llu %llu %llu %llu\n", (unsigned long long)k.bytes_to_device, (unsigned long long)k.bytes_to_host,
           (unsigned long long)k.transfers, (unsigned long long)k.accel_ops);
    npu_shutdown();
    return 0;
}
"""


def test_sanitized_conv_dense_dma_pipeline(tmp_path):
    src = tmp_path / "sim_pipeline.c"
    src.write_text(PIPELINE_C)
    exe = cbuild.build([src, *cbuild.simulator_sources()], kind="exe", sanitize=True, name="sim_pipeline")
    out = tmp_path / "out.bin"
    r = subprocess.run([str(exe), str(out)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert r.stdout.split() == [str(400 * 4 + 288 * 4 + 32 + 2000 * 4 + 400 + 288 + 32), str(200 * 4 + 40 + 200),
                                "11", "3"]  # fmt: skip
    data = out.read_bytes()
    parts, off = {}, 0
    for name, dtype, shape in [("x", np.float32, (1, 4, 10, 10)), ("w", np.float32, (8, 4, 3, 3)), ("b", np.float32, (8,)),
                               ("dw", np.float32, (10, 200)), ("xq", np.int8, (1, 4, 10, 10)),
                               ("wq", np.int8, (8, 4, 3, 3)), ("bq", np.int32, (8,)), ("conv", np.float32, (1, 8, 5, 5)),
                               ("dense", np.float32, (1, 10)), ("convq", np.int8, (1, 8, 5, 5))]:  # fmt: skip
        n = int(np.prod(shape)) * np.dtype(dtype).itemsize
        parts[name] = np.frombuffer(data[off:off + n], dtype).reshape(shape)
        off += n
    assert off == len(data)
    geometry = ((2, 2), (0, 0, 1, 1), (1, 1), 1)
    conv = ref.relu(ref.bias_add(ref.conv2d(parts["x"], parts["w"], *geometry), parts["b"], 1))
    close(parts["conv"], conv)
    close(parts["dense"], ref.dense(parts["conv"].reshape(1, 200), parts["dw"]))
    acc = ref.bias_add(ref.qnn_conv2d(parts["xq"], parts["wq"], np.array(-1, np.int8), np.array(0, np.int8), *geometry),
                       parts["bq"], 1)  # fmt: skip
    want = ref.qnn_requantize(acc, np.array(0.0001, np.float32), np.array(0, np.int32), np.array(0.05, np.float32),
                              np.array(3, np.int8))  # fmt: skip
    np.testing.assert_array_equal(parts["convq"], want)


def test_cbuild_source_key_ignores_the_directory(tmp_path):
    """A generated source in a fresh directory hits the cache when its content is known."""
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    text = "int f(void) { return 1; }\n" + f"/* {hashlib.sha1(str(tmp_path).encode()).hexdigest()} */\n"
    (a / "gen.c").write_text(text)
    (b / "gen.c").write_text(text)
    assert cbuild.build([a / "gen.c"], kind="object") == cbuild.build([b / "gen.c"], kind="object")
