"""Weights reach weights.bin without copies: `StoredBytes` (an array as stored, a key
equal by content) and the artifact writer's pieces (written and compared one by one)."""

from __future__ import annotations

import os

import numpy as np
import pytest
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr

from accel.compiler.backend.artifacts import ArtifactWriter
from accel.compiler.tensors import (HASHED_BYTES, StoredBytes, array_from_dense, dense_from_array, reshaped_dense,
                                   tensor_type)


def test_stored_bytes_are_the_arrays_own_memory_when_laid_out_as_stored():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    s = StoredBytes(a)
    assert np.shares_memory(s.data, a)
    assert bytes(s.data) == a.tobytes() and len(s) == a.nbytes


@pytest.mark.parametrize("arr", [
    np.arange(12, dtype=np.float32).reshape(3, 4).T,        # not C order
    np.arange(6, dtype=">i4"),                               # big-endian
    np.array([True, False, True]),                           # a bool a byte
    np.float16(1.5) * np.ones((2, 0, 3), np.float16),        # no elements
    np.array(7, dtype=np.int8),                              # a scalar
])
def test_stored_bytes_hold_c_order_little_endian(arr):
    want = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<") if arr.dtype != np.bool_ else np.uint8).tobytes()
    assert bytes(StoredBytes(arr).data) == want


def test_stored_bytes_are_a_key_equal_by_content():
    a = np.linspace(0, 1, 1000, dtype=np.float32)
    b = a.copy()
    c = a.copy()
    c[500] = np.nextafter(c[500], np.float32(2))  # one ulp apart
    table = {("val", StoredBytes(a)): 1}
    assert table.get(("val", StoredBytes(b))) == 1
    assert table.get(("val", StoredBytes(c))) is None
    assert StoredBytes(a) == StoredBytes(b) and hash(StoredBytes(a)) == hash(StoredBytes(b))
    assert StoredBytes(np.zeros(4, np.uint8)) != StoredBytes(np.zeros(8, np.uint8))


@pytest.mark.parametrize("n", [HASHED_BYTES + 1, 3 * HASHED_BYTES + 17, 10**6])
def test_large_arrays_are_keys_equal_by_content_though_hashed_by_a_sample(n):
    a = np.random.default_rng(n).integers(0, 256, n, dtype=np.uint8)
    assert StoredBytes(a) == StoredBytes(a.copy()) and hash(StoredBytes(a)) == hash(StoredBytes(a.copy()))
    for at in (0, 1, n // 2 + 7, n - 65, n - 1):  # inside and between the sampled runs
        b = a.copy()
        b[at] ^= 1
        table = {("val", StoredBytes(a)): 1}
        assert table.get(("val", StoredBytes(b))) is None, at
        assert StoredBytes(b) != StoredBytes(a)


def test_a_reshaped_weight_shares_the_constants_bytes():
    attr = dense_from_array(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    got = reshaped_dense(attr, (6, 4))
    assert got.data is attr.data and tuple(got.get_shape()) == (6, 4)
    np.testing.assert_array_equal(array_from_dense(got), np.arange(24, dtype=np.float32).reshape(6, 4))


def _splat(value: float, shape: tuple[int, ...]) -> DenseIntOrFPElementsAttr:
    """A dense attribute storing one value for every element of `shape`."""
    return DenseIntOrFPElementsAttr(tensor_type(shape, np.float32), dense_from_array(np.array([value], np.float32)).data)


@pytest.mark.parametrize("attr", [
    _splat(2.5, (2, 2)),                                         # one stored value for four
    dense_from_array(np.array([[True, False], [False, True]])),  # bools
])
def test_a_reshaped_weight_is_encoded_again_where_its_bytes_are_not_its_elements(attr):
    got = reshaped_dense(attr, (4,))
    assert got.data is not attr.data and tuple(got.get_shape()) == (4,)
    np.testing.assert_array_equal(array_from_dense(got), array_from_dense(attr).reshape(4))


def test_a_dense_attributes_value_is_read_without_a_copy():
    arr = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    attr = dense_from_array(arr)
    got = array_from_dense(attr)
    np.testing.assert_array_equal(got, arr)
    assert not got.flags.writeable  # a view of the attribute's bytes: the IR's value is not changed through it
    assert np.shares_memory(got, np.frombuffer(attr.data.data, np.uint8))


def test_pieces_are_written_as_their_concatenation_and_left_alone_when_unchanged(tmp_path):
    pieces = [b"ab", np.arange(5, dtype=np.uint8), b"\0" * 3, np.frombuffer(b"xyz", np.uint8)]
    def write(parts) -> None:
        w = ArtifactWriter(str(tmp_path))
        w.write_pieces("weights.bin", parts)
        w.finish()  # the manifest: a later writer may replace what this one wrote

    write(pieces)
    path = tmp_path / "weights.bin"
    assert path.read_bytes() == b"ab" + bytes(range(5)) + b"\0\0\0xyz"
    os.utime(path, ns=(1, 1))
    write(pieces)
    assert path.stat().st_mtime_ns == 1, "the same bytes again: the file is not rewritten"
    changed = [b"ab", np.arange(5, dtype=np.uint8), b"\0" * 3, np.frombuffer(b"xyZ", np.uint8)]  # same size
    write(changed)
    assert path.read_bytes().endswith(b"xyZ") and path.stat().st_mtime_ns != 1
