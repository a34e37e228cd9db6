"""The host kernels' matrix products on both GEMM paths (CBLAS and the blocked GEMM of
host_gemm.c), the build probe that chooses between them, and the runner's repeat mode.

The kernel library is built twice per session, with `cbuild.host_runtime(blas=True)` and
`(blas=False)` (-O3, -march=native where accepted), and called through ctypes against
the numpy reference on shapes that cross the blocked GEMM's register and cache blocks
(MR = 6, NR = 16, KC = 256, MC = 96) and the conv corner cases (groups, strides,
dilation, padding, 1x1, depthwise, odd sizes). Float: within 1e-5 of the output's
largest magnitude (summation order); int8: exact. Whole models run under ASan/UBSan on
both paths, within 1e-4 of onnxruntime's largest output. CBLAS is required (make setup
and .ci/run install libopenblas-dev): its absence fails here, naming the package.
"""

from __future__ import annotations

import ctypes as C
import json
import os
import subprocess

import numpy as np
import pytest
from e2e_util import ort_run, quantize_qdq, run_tool
from test_host_kernels import DT, OK, SIGNATURES, VP, close, conv_params, ptr, rand, shape_arr, sp

from accel.compiler.driver import compile_to_directory
from accel.compiler.runtime import cbuild
from accel.compiler.runtime import reference as ref
from accel.compiler.runtime.run_compiled import LATENCY_FILE, run_directory, time_directory

MODELS = os.path.join(os.path.dirname(__file__), "models")
HOST_ONLY = "host"
GEMM_PATHS = ("cblas", "own")
rng = np.random.default_rng(7)


def build_kernels(path: str) -> C.CDLL:
    runtime = cbuild.host_runtime(blas=path == "cblas")
    so = cbuild.build(cbuild.host_kernel_sources(), kind="shared", extra_flags=runtime.cflags,
                      link_flags=runtime.link_flags, name=f"host_kernels_{path}")
    dll = C.CDLL(str(so))
    for name, args in SIGNATURES.items():
        fn = getattr(dll, name)
        fn.argtypes = args
        fn.restype = C.c_int
    i64 = C.c_int64
    dll.acc_sgemm.argtypes = [C.c_int, C.c_int, i64, i64, i64, VP, i64, VP, i64, VP, i64, C.c_int]
    dll.acc_sgemm.restype = C.c_int
    dll.acc_igemm_s16.argtypes = [i64, i64, i64, VP, i64, VP, i64, VP, i64]
    dll.acc_igemm_s16.restype = None
    dll.acc_gemm_uses_cblas.restype = C.c_int
    return dll


@pytest.fixture(scope="module", params=GEMM_PATHS)
def lib(request):
    return build_kernels(request.param), request.param


def test_each_build_runs_its_gemm(lib):
    dll, path = lib
    assert dll.acc_gemm_uses_cblas() == (path == "cblas")


def test_host_runtime_probe(monkeypatch):
    with_blas, without = cbuild.host_runtime(blas=True), cbuild.host_runtime(blas=False)
    assert with_blas.uses_cblas and "-lopenblas" in with_blas.link_flags
    assert not without.uses_cblas and not without.link_flags
    assert "-O3" in without.cflags
    monkeypatch.setenv(cbuild.HOST_BLAS_ENV, "0")
    assert cbuild.host_runtime() == without
    monkeypatch.delenv(cbuild.HOST_BLAS_ENV)
    assert cbuild.host_runtime() == with_blas


def test_host_runtime_without_cblas_names_the_package(monkeypatch):
    monkeypatch.setattr(cbuild, "_HOST_RUNTIME", {})
    monkeypatch.setattr(cbuild, "CBLAS_LIBS", ("-lno_such_blas_library",))
    assert not cbuild.host_runtime().uses_cblas  # the default falls back
    # ... keeping what the compiler takes without CBLAS (-march=native: probed alone then)
    assert cbuild.host_runtime().cflags == cbuild.host_runtime(blas=False).cflags
    with pytest.raises(cbuild.CompileError, match="libopenblas-dev"):
        cbuild.host_runtime(blas=True)


@pytest.mark.parametrize("m, n, k", [(1, 1, 1), (6, 16, 8), (7, 17, 3), (97, 33, 257), (13, 2100, 5), (100, 5, 600)])
@pytest.mark.parametrize("ta, tb", [(0, 0), (0, 1), (1, 0), (1, 1)])
def test_sgemm_blocks_and_transposes(lib, m, n, k, ta, tb):
    dll, _ = lib
    a = rand((k, m) if ta else (m, k))
    b = rand((n, k) if tb else (k, n))
    want = ref.matmul(a, b, bool(ta), bool(tb))
    # c inside a wider buffer (ldc = n + 3): the columns past n stay untouched
    c = np.full((m, n + 3), 7.0, np.float32)
    assert dll.acc_sgemm(ta, tb, m, n, k, ptr(a), a.shape[1], ptr(b), b.shape[1], ptr(c), n + 3, 0) == OK
    close(c[:, :n], want)
    assert (c[:, n:] == 7.0).all()
    assert dll.acc_sgemm(ta, tb, m, n, k, ptr(a), a.shape[1], ptr(b), b.shape[1], ptr(c), n + 3, 1) == OK
    close(c[:, :n], 2 * want)


def test_sgemm_empty_k_zeroes_or_keeps(lib):
    dll, _ = lib
    a, b = np.zeros((3, 1), np.float32), np.zeros((1, 4), np.float32)
    c = np.full((3, 4), 5.0, np.float32)
    assert dll.acc_sgemm(0, 0, 3, 4, 0, ptr(a), 1, ptr(b), 4, ptr(c), 4, 1) == OK
    assert (c == 5.0).all()
    assert dll.acc_sgemm(0, 0, 3, 4, 0, ptr(a), 1, ptr(b), 4, ptr(c), 4, 0) == OK
    assert (c == 0.0).all()


@pytest.mark.parametrize("m, n, k", [(1, 1, 1), (5, 3, 7), (9, 13, 300), (2, 4, 1)])
def test_igemm_exact(lib, m, n, k):
    dll, _ = lib
    a = rng.integers(-255, 256, size=(m, k)).astype(np.int16)
    bt = rng.integers(-255, 256, size=(n, k)).astype(np.int16)
    c = np.zeros((m, n), np.int32)
    dll.acc_igemm_s16(m, n, k, ptr(a), k, ptr(bt), k, ptr(c), n)
    np.testing.assert_array_equal(c, a.astype(np.int64) @ bt.astype(np.int64).T)


CONV_CASES = [
    # x shape, w shape, strides, padding (t, l, b, r), dilation, groups: beyond the GEMM blocks
    ((1, 17, 13, 11), (35, 17, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),
    ((2, 9, 15, 12), (20, 9, 3, 5), (2, 3), (0, 2, 1, 1), (2, 1), 1),  # strides, dilation, asymmetric pads
    ((1, 12, 9, 9), (18, 4, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 3),  # groups with several channels each
    ((1, 33, 10, 7), (70, 33, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1),  # 1x1: the input is the matrix
    ((1, 16, 11, 11), (24, 16, 1, 1), (2, 2), (0, 0, 0, 0), (1, 1), 1),  # 1x1 strided: im2col
    ((1, 10, 6, 6), (12, 10, 1, 1), (1, 1), (1, 0, 1, 2), (1, 1), 1),  # 1x1 padded
    ((2, 24, 14, 13), (24, 1, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 24),  # depthwise, stride 2
    ((1, 8, 12, 12), (8, 1, 3, 3), (1, 1), (2, 2, 2, 2), (2, 2), 8),  # depthwise, dilation
    ((1, 3, 31, 29), (8, 3, 7, 7), (2, 2), (3, 3, 3, 3), (1, 1), 1),  # a stem
    ((1, 2, 4, 4), (5, 2, 3, 3), (1, 1), (4, 4, 4, 4), (1, 1), 1),  # padding beyond the input
]


@pytest.mark.parametrize("xs, ws, strides, padding, dilation, groups", CONV_CASES)
@pytest.mark.parametrize("with_bias", [False, True])
def test_conv2d_f32(lib, xs, ws, strides, padding, dilation, groups, with_bias):
    dll, _ = lib
    x, w = rand(xs), rand(ws)
    bias = rand((ws[0],)) if with_bias else None
    want = ref.conv2d(x, w, strides, padding, dilation, groups)
    if with_bias:
        want = ref.bias_add(want, bias, 1)
    y = np.full(want.shape, np.nan, np.float32)
    p = conv_params(xs, ws, strides, padding, dilation, groups)
    assert dll.acc_conv2d_f32(ptr(x), ptr(w), ptr(bias), ptr(y), C.byref(p)) == OK
    close(y, want)


@pytest.mark.parametrize("xs, ws, strides, padding, dilation, groups", CONV_CASES)
@pytest.mark.parametrize("xt, wt", [(np.int8, np.int8), (np.uint8, np.int8), (np.uint8, np.uint8)])
def test_qnn_conv2d_exact(lib, xs, ws, strides, padding, dilation, groups, xt, wt):
    dll, _ = lib
    x, w = rand(xs, xt), rand(ws, wt)
    x_zp = np.array(-7 if xt == np.int8 else 120, xt)
    w_zp = (rng.integers(-3, 4, ws[0]) + (0 if wt == np.int8 else 128)).astype(wt)
    bias = rng.integers(-1000, 1000, ws[0]).astype(np.int32)
    want = ref.bias_add(ref.qnn_conv2d(x, w, x_zp, w_zp, strides, padding, dilation, groups), bias, 1)
    y = np.zeros(want.shape, np.int32)
    p = conv_params(xs, ws, strides, padding, dilation, groups)
    wz = w_zp.astype(np.int32)
    assert dll.acc_qnn_conv2d(DT[x.dtype], ptr(x), DT[w.dtype], ptr(w), ptr(bias), ptr(y), C.byref(p), int(x_zp),
                              ptr(wz), wz.size) == OK
    np.testing.assert_array_equal(y, want)


@pytest.mark.parametrize("m, k, n", [(1, 300, 10), (7, 33, 17), (97, 64, 100)])
def test_dense_f32_and_qnn_dense(lib, m, k, n):
    dll, _ = lib
    x, w, b = rand((m, k)), rand((n, k)), rand((n,))
    y = np.zeros((m, n), np.float32)
    assert dll.acc_dense_f32(ptr(x), ptr(w), ptr(b), ptr(y), m, k, n) == OK
    close(y, ref.dense(x, w) + b)
    xq, wq = rand((m, k), np.uint8), rand((n, k), np.int8)
    wz = rng.integers(-4, 5, n).astype(np.int32)
    bq = rng.integers(-500, 500, n).astype(np.int32)
    yq = np.zeros((m, n), np.int32)
    assert dll.acc_qnn_dense(DT[xq.dtype], ptr(xq), DT[wq.dtype], ptr(wq), ptr(bq), ptr(yq), m, k, n, 128, ptr(wz),
                             n) == OK
    np.testing.assert_array_equal(yq, ref.qnn_dense(xq, wq, np.array(128, np.uint8), wz.astype(np.int8)) + bq)


@pytest.mark.parametrize("a_shape, b_shape, ta, tb", [
    ((2, 3, 17, 40), (2, 3, 33, 40), 0, 1),  # attention scores (QK^T)
    ((2, 1, 17, 33), (3, 33, 20), 0, 0),  # broadcast batch
    ((4, 29, 7), (4, 29, 101), 1, 0),
])  # fmt: skip
def test_batch_matmul_f32(lib, a_shape, b_shape, ta, tb):
    dll, _ = lib
    a, b = rand(a_shape), rand(b_shape)
    want = ref.batch_matmul(a, b, bool(ta), bool(tb))
    y = np.zeros(want.shape, np.float32)
    sa, sb = shape_arr(a_shape), shape_arr(b_shape)
    assert dll.acc_batch_matmul_f32(ptr(a), len(a_shape), sp(sa), ptr(b), len(b_shape), sp(sb), ptr(y), ta,
                                    tb) == OK
    close(y, want)


# ---- whole models, built as accel-run builds them, under ASan/UBSan -----------------------


def compile_host(model: str, out_dir: str, blas: bool, monkeypatch) -> None:
    monkeypatch.setenv(cbuild.HOST_BLAS_ENV, "1" if blas else "0")
    compile_to_directory(os.path.join(MODELS, f"{model}.onnx"), "npu", out_dir, HOST_ONLY)


@pytest.mark.parametrize("model", ["resnet_dynamo", "vit_dynamo"])
@pytest.mark.parametrize("path", GEMM_PATHS)
def test_models_sanitized_on_both_paths(tmp_path, monkeypatch, model, path):
    out = str(tmp_path / "out")
    compile_host(model, out, path == "cblas", monkeypatch)
    with open(os.path.join(out, "Makefile")) as f:
        makefile = f.read()
    assert ("-DACC_HAVE_CBLAS" in makefile) == (path == "cblas")
    shape = (1, 3, 32, 32) if model == "resnet_dynamo" else (1, 3, 16, 16)
    x = rng.uniform(-1, 1, shape).astype(np.float32)
    got, _ = run_directory(out, {"input": x}, sanitize=True)
    want = ort_run(os.path.join(MODELS, f"{model}.onnx"), {"input": x})
    for name, value in want.items():
        assert np.abs(got[name] - value).max() <= 1e-4 * np.abs(value).max()


def test_host_pipeline_dequantizes_weights_at_compile_time(tmp_path):
    qdq = str(tmp_path / "resnet_qdq.onnx")
    quantize_qdq(os.path.join(MODELS, "resnet_dynamo.onnx"), qdq)
    x = rng.uniform(-1, 1, (1, 3, 32, 32)).astype(np.float32)
    runs, dequantizes = {}, {}
    for pipeline in ("host", "canonicalize,bufferize,plan-memory"):
        out = str(tmp_path / pipeline.split(",")[0])
        report = compile_to_directory(qdq, "npu", out, pipeline)
        assert report["ops"]["offloaded"] == 0
        with open(os.path.join(out, "model.c")) as f:
            dequantizes[pipeline] = f.read().count("acc_dequantize(")
        runs[pipeline], _ = run_directory(out, {"input": x})
    # the weights' dequantize moved to compile time; activations keep theirs
    assert 0 < dequantizes["host"] < dequantizes["canonicalize,bufferize,plan-memory"]
    # numpy's dequantize at compile time computes the C kernel's float values
    for name, value in runs["host"].items():
        np.testing.assert_array_equal(value, runs["canonicalize,bufferize,plan-memory"][name])


# ---- the runner's repeat mode ---------------------------------------------------------------


@pytest.fixture(scope="module")
def mlp_dir(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("repeat") / "mlp")
    compile_to_directory(os.path.join(MODELS, "mlp_dynamo.onnx"), "npu", out, HOST_ONLY)
    return out


def test_repeat_times_each_run_and_keeps_the_outputs(mlp_dir):
    x = rng.uniform(-1, 1, (4, 32)).astype(np.float32)
    once, _ = run_directory(mlp_dir, {"input": x})
    got, latency = time_directory(mlp_dir, {"input": x}, repeat=5, warmup=2)
    np.testing.assert_array_equal(got["output"], once["output"])
    assert latency["runs"] == 5 and latency["warmup"] == 2 and len(latency["times_ms"]) == 5
    assert 0 < latency["min_ms"] <= latency["median_ms"] <= latency["max_ms"]
    assert latency["median_ms"] == float(np.median(latency["times_ms"]))
    assert len(latency["cpu_times_ms"]) == 5 and latency["cpu_median_ms"] == float(np.median(latency["cpu_times_ms"]))
    assert all(t >= 0 for t in latency["cpu_times_ms"])
    with open(os.path.join(mlp_dir, LATENCY_FILE)) as f:
        assert json.load(f) == latency


def test_repeat_on_the_command_line(mlp_dir, tmp_path):
    inputs = str(tmp_path / "in.npz")
    np.savez(inputs, input=np.zeros((4, 32), np.float32))
    proc = run_tool("accel-run", mlp_dir, "--inputs", inputs, "--repeat", "3", "--warmup", "0")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("latency: median ") and "(3 runs after 0 warm-up)" in proc.stdout
    with open(os.path.join(mlp_dir, LATENCY_FILE)) as f:
        assert json.load(f)["runs"] == 3
    for args, message in ((["--repeat", "0"], "--repeat must be at least 1"),
                          (["--repeat", "2", "--sanitize"], "does not combine with --sanitize")):
        proc = run_tool("accel-run", mlp_dir, "--inputs", inputs, *args)
        assert proc.returncode == 1 and message in proc.stderr and "Traceback" not in proc.stderr
    proc = run_tool("accel-run", os.path.join(MODELS, "mlp_dynamo.onnx"), "--inputs", inputs, "--repeat", "2")
    assert proc.returncode == 1 and "time a compiled DIR" in proc.stderr


def test_runner_rejects_a_bad_count(mlp_dir):
    exe = os.path.join(mlp_dir, "model")
    assert os.path.exists(exe)  # built by the tests above
    proc = subprocess.run([exe, "--repeat", "x", "--times", "/dev/null", "weights.bin", "a", "b"], capture_output=True,
                          text=True)
    assert proc.returncode == 2 and "--repeat takes a whole number (got x)" in proc.stderr
    proc = subprocess.run([exe, "--repeat", "2", "weights.bin", "a", "b"], capture_output=True, text=True)
    assert proc.returncode == 2 and "usage:" in proc.stderr
