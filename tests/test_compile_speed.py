"""Compile-speed changes that must not change results: the cheap builders of
`accel.compiler.ir_build` make the ops xDSL's builders make, and accel-opt's start-up
does not import what a plain .mlir run does not use."""

import io
import subprocess
import sys

import pytest
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, StridedLayoutAttr, f32
from xdsl.ir import Block
from xdsl.printer import Printer

from accel.compiler.ir_build import index_constant, strided_layout, subview, subview_type


def generic(op) -> str:
    out = io.StringIO()
    Printer(out, print_generic_format=True).print_op(op)
    return out.getvalue()


@pytest.mark.parametrize("offsets, sizes", [([0, "iv", 2], [1, 4, 4]), ([1, 2, 3], [1, 4, 4]),
                                            (["iv", 0, 0], [2, "iv", 8]), ([0, 0, 0], [4, 8, 8])])
def test_subview_as_xdsl_builds_it(offsets, sizes):
    block = Block(arg_types=[MemRefType(f32, [4, 8, 8]), IndexType()])
    src, iv = block.args
    offsets = [iv if o == "iv" else o for o in offsets]
    sizes = [iv if s == "iv" else s for s in sizes]
    strides = [1, 1, 1]
    expected_type = memref.SubviewOp.infer_result_type(src.type, offsets, sizes, strides)
    assert subview_type(src.type, offsets, sizes, strides) == expected_type
    expected = memref.SubviewOp.get(src, offsets, sizes, strides, expected_type)
    built = subview(src, offsets, sizes, strides, expected_type)
    built.verify()
    assert generic(built) == generic(expected)
    assert str(built) == str(expected)


def test_index_constant_and_layout_as_xdsl_builds_them():
    assert generic(index_constant(7)) == generic(arith.ConstantOp(IntegerAttr(7, IndexType())))
    assert strided_layout((8, 1), None) == StridedLayoutAttr([8, 1], None)
    assert strided_layout((8, 1), 16) is strided_layout((8, 1), 16)  # built once


def test_accel_opt_start_up_imports_no_numpy_or_frontend():
    code = ("import sys; import accel.tools.accel_opt; "
            "print(sorted(m for m in ('numpy', 'onnx', 'hypothesis', 'accel.compiler.partition_report', "
            "'accel.compiler.frontend.onnx') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
