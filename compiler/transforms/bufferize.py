"""bufferize: tensors to buffers, in destination-passing style.

Every function's tensor arguments become memrefs and its results become extra output
arguments (marked `accel.output` in `arg_attrs`, keeping their `accel.name`). Every relay
op (or composite) becomes an `accel.kernel` that reads input buffers and writes output
buffers; constant operands move into the kernel (weights stay bound to their users).
Intermediate values get `memref.alloc`s placed right before their writer; values that a
function returns are written straight into its output arguments.

In host functions (no `accel.target`), composites that were not offloaded are inlined
first: the host runs their ops one by one.

Before:

    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %c = relay.constant dense<1.0> : tensor<4xf32>
      %y = relay.add %x, %c : tensor<4xf32>
      %z = relay.nn.relu %y : tensor<4xf32>
      func.return %z : tensor<4xf32>
    }

After:

    func.func @main(%x: memref<4xf32>, %out0: memref<4xf32> {accel.output}) {
      %0 = memref.alloc() : memref<4xf32>
      accel.kernel ins(%x : memref<4xf32>) outs(%0 : memref<4xf32>) {
      ^bb0(%a: tensor<4xf32>):
        %c = relay.constant dense<1.0> : tensor<4xf32>
        %y = relay.add %a, %c : tensor<4xf32>
        accel.yield %y : tensor<4xf32>
      }
      accel.kernel ins(%0 : memref<4xf32>) outs(%out0 : memref<4xf32>) { ... relu ... }
      func.return
    }
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FunctionType,
    MemRefType,
    ModuleOp,
    TensorType,
    UnitAttr,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from accel.compiler.diagnostics import CompileError
from accel.compiler.ir_build import memref_alloc
from accel.dialects import accel, relay
from accel.dialects.conventions import OUTPUT_ATTR, TARGET_ATTR

"""Argument attribute of a bufferized function: this argument receives a result."""


def memref_of(t: TensorType) -> MemRefType:
    return accel.memref_type(t.element_type, t.get_shape())


def is_bufferized(fn: func.FuncOp) -> bool:
    return all(not isinstance(t, TensorType) for t in (*fn.function_type.inputs, *fn.function_type.outputs))


def inline_composite(op: relay.CompositeOp) -> None:
    """Replace a composite by the ops of its body."""
    block = op.body.block
    mapping = dict(zip(block.args, op.inputs))
    yielded: list[SSAValue] = []
    for inner in list(block.ops):
        if isinstance(inner, relay.YieldOp):
            yielded = [mapping.get(v, v) for v in inner.values]
            break
        clone = inner.clone(value_mapper=mapping)
        for k, v in op.attributes.items():
            clone.attributes.setdefault(k, v)
        clone.location = op.location
        Rewriter.insert_op(clone, InsertPoint.before(op))
    for res, new in zip(op.outputs, yielded):
        res.replace_all_uses_with(new)
    Rewriter.erase_op(op)


def _kernel_for(op: Operation, operand_buffers: list[SSAValue | None], outs: list[SSAValue]) -> accel.KernelOp:
    """Wrap `op` in an accel.kernel, inserted where `op` was: `op` itself moves into the
    kernel's body (its results keep their identity, so later ops still find their
    buffers by them). `operand_buffers[i]` is None for constant operands, which are
    cloned into the kernel."""
    block = Block()
    mapping: dict[SSAValue, SSAValue] = {}
    ins: list[SSAValue] = []
    for operand, buf in zip(op.operands, operand_buffers):
        if operand in mapping:
            continue
        if buf is None:
            const = operand.owner
            assert isinstance(const, relay.ConstantOp)
            clone = const.clone()
            block.add_op(clone)
            mapping[operand] = clone.result
        else:
            if buf in ins:
                mapping[operand] = block.args[ins.index(buf)]
                continue
            ins.append(buf)
            mapping[operand] = block.insert_arg(relay.tensor(buf.type.get_shape(), buf.type.element_type), len(block.args))
    kernel = accel.KernelOp(ins, outs, Region(block))
    kernel.location = op.location
    Rewriter.insert_op(kernel, InsertPoint.before(op))
    op.detach()
    op.operands = [mapping.get(v, v) for v in op.operands]
    block.add_op(op)
    block.add_op(accel.YieldOp(*op.results))
    return kernel


class FunctionBufferizer:
    def __init__(self, fn: func.FuncOp, signatures: dict[str, tuple[list[MemRefType], list[MemRefType]]]):
        self.fn = fn
        self.signatures = signatures
        self.buffers: dict[SSAValue, SSAValue] = {}

    def run(self) -> None:
        fn = self.fn
        block = fn.body.block
        if TARGET_ATTR not in fn.attributes:
            for op in list(block.ops):
                if isinstance(op, relay.CompositeOp):
                    inline_composite(op)

        in_types = list(fn.function_type.inputs)
        out_types = list(fn.function_type.outputs)
        for arg in block.args:
            if not isinstance(arg.type, TensorType):
                raise CompileError(f"bufferize: @{fn.sym_name.data} has a non-tensor argument {arg.type}", fn)
            new = Rewriter.replace_value_with_new_type(arg, memref_of(arg.type))
            self.buffers[new] = new
        out_args = [block.insert_arg(memref_of(t), len(block.args)) for t in out_types]
        for i, a in enumerate(out_args):
            a.name_hint = f"out{i}"

        ret = block.last_op
        assert isinstance(ret, func.ReturnOp)
        # A returned value is written straight into its output argument (first return only).
        destination: dict[SSAValue, SSAValue] = {}
        for v, out in zip(ret.arguments, out_args):
            if v not in destination and v.owner is not None and not isinstance(v.owner, (Block, relay.ConstantOp)) \
                    and isinstance(v.owner, Operation):
                destination[v] = out

        # New ops go in front of the old ones; a relay op moves into its kernel, a call
        # stays until the end so that later ops can still be looked up by their
        # original operands.
        replaced: list[Operation] = []
        for op in list(block.ops):
            if op is ret or isinstance(op, relay.ConstantOp):
                continue
            if isinstance(op, func.CallOp):
                self.bufferize_call(op, destination)
                replaced.append(op)
            elif isinstance(op, (relay.RelayOp, relay.CompositeOp)):
                self.bufferize_op(op, destination)
            else:
                raise CompileError(f"bufferize: cannot bufferize '{op.name}'", op)

        # Outputs not written in place: copies (a returned argument, constant or duplicate).
        for v, out in zip(ret.arguments, out_args):
            if destination.get(v) is out:
                continue
            src = self.buffer_of(v, ret)
            Rewriter.insert_op(memref.CopyOp(src, out), InsertPoint.before(ret))
        Rewriter.replace_op(ret, func.ReturnOp())
        for op in reversed(replaced):
            Rewriter.erase_op(op)
        for op in list(block.ops):
            if isinstance(op, relay.ConstantOp) and not op.result.uses:
                Rewriter.erase_op(op)

        arg_attrs = list(fn.arg_attrs.data) if fn.arg_attrs is not None else [DictionaryAttr({})] * len(in_types)
        res_attrs = list(fn.res_attrs.data) if fn.res_attrs is not None else [DictionaryAttr({})] * len(out_types)
        out_attrs = [DictionaryAttr({**d.data, OUTPUT_ATTR: UnitAttr()}) for d in res_attrs]
        fn.arg_attrs = ArrayAttr([*arg_attrs, *out_attrs])
        fn.res_attrs = None
        fn.function_type = FunctionType.from_lists([a.type for a in block.args], [])

    def buffer_of(self, v: SSAValue, before: Operation) -> SSAValue:
        if v in self.buffers:
            return self.buffers[v]
        owner = v.owner
        if isinstance(owner, relay.ConstantOp):
            w = accel.WeightOp(memref_of(owner.result.type), owner.value, owner.external.data if owner.external else None)
            w.location = owner.location
            Rewriter.insert_op(w, InsertPoint.before(before))
            self.buffers[v] = w.result
            return w.result
        raise CompileError(f"bufferize: value {v} has no buffer", before)

    def result_buffers(self, op: Operation, destination: dict[SSAValue, SSAValue]) -> list[SSAValue]:
        outs = []
        for r in op.results:
            if r in destination:
                buf = destination[r]
            else:
                alloc = memref_alloc(memref_of(r.type))
                alloc.location = op.location
                Rewriter.insert_op(alloc, InsertPoint.before(op))
                buf = alloc.memref
            self.buffers[r] = buf
            outs.append(buf)
        return outs

    def bufferize_op(self, op: Operation, destination: dict[SSAValue, SSAValue]) -> None:
        operand_buffers: list[SSAValue | None] = []
        for v in op.operands:
            if isinstance(v.owner, relay.ConstantOp):
                operand_buffers.append(None)
            else:
                operand_buffers.append(self.buffer_of(v, op))
        outs = self.result_buffers(op, destination)
        _kernel_for(op, operand_buffers, outs)

    def bufferize_call(self, call: func.CallOp, destination: dict[SSAValue, SSAValue]) -> None:
        args = [self.buffer_of(v, call) for v in call.arguments]
        outs = self.result_buffers(call, destination)
        new = func.CallOp(call.callee, [*args, *outs], [])
        new.location = call.location
        new.attributes.update(call.attributes)
        Rewriter.insert_op(new, InsertPoint.before(call))


@dataclass(frozen=True)
class Bufferize(ModulePass):
    """Tensors to memrefs: relay ops become accel.kernel ops in destination-passing style."""

    name = "bufferize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        funcs = [f for f in op.body.block.ops if isinstance(f, func.FuncOp) and not f.is_declaration]
        signatures: dict[str, tuple[list[MemRefType], list[MemRefType]]] = {}
        for fn in funcs:
            if is_bufferized(fn):
                continue
            FunctionBufferizer(fn, signatures).run()
