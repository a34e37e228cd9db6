"""dialects/fast_access.py: the replaced accessors return what xDSL's own return, on every
op of the lit suite's inputs (every IR level, every dialect the compiler loads)."""

from __future__ import annotations

import glob
import os

import pytest
from xdsl.dialects import memref
from xdsl.irdl.operations import BaseAccessor, BaseAttrAccessor, get_accessors_from_op_def
from xdsl.parser import Parser

from accel.compiler.driver import make_context
from accel.dialects import accel

LIT = os.path.join(os.path.dirname(__file__), "lit")


def _modules():
    ctx = make_context()
    for path in sorted(glob.glob(os.path.join(LIT, "**", "*.mlir"), recursive=True)):
        with open(path) as f:
            chunks = f.read().split("// -----")
        for chunk in chunks:
            try:
                yield Parser(ctx, chunk).parse_module()
            except Exception:  # noqa: BLE001 - negative tests hold IR that does not parse
                continue


def test_accessors_replaced():
    make_context()
    assert isinstance(vars(accel.DmaStartOp)["source"], property)
    assert isinstance(vars(accel.Conv2DOp)["inputs"], property)
    assert isinstance(vars(memref.SubviewOp)["source"], property)  # segment-sized, first
    assert not isinstance(vars(memref.SubviewOp)["offsets"], property)


def test_fast_accessors_agree_with_xdsl():
    xdsl_accessors: dict[type, dict[str, BaseAccessor]] = {}
    seen = 0
    for module in _modules():
        for op in module.walk():
            cls = type(op)
            if not hasattr(cls, "get_irdl_definition"):
                continue
            if cls not in xdsl_accessors:
                xdsl_accessors[cls] = {
                    name: a for name, a in get_accessors_from_op_def(cls.get_irdl_definition(), None).items()
                    if isinstance(a, (BaseAccessor, BaseAttrAccessor)) and isinstance(vars(cls).get(name), property)
                }
            for name, original in xdsl_accessors[cls].items():
                fast, slow = getattr(op, name), original.__get__(op)
                assert type(fast) is type(slow) and tuple(fast if isinstance(fast, tuple) else (fast,)) == \
                    tuple(slow if isinstance(slow, tuple) else (slow,)), f"{op.name}.{name}"
                seen += 1
    assert seen > 2_000, seen


def test_fast_accessor_cannot_be_set():
    ctx = make_context()
    module = Parser(ctx, "%a = arith.constant 1 : index\n%b = arith.addi %a, %a : index").parse_module()
    add = module.body.block.last_op
    with pytest.raises(AttributeError):
        add.lhs = add.rhs
