"""Tuning tasks: the distinct tunable accelerator ops of a model, each as a one-task module.

A task is one accel compute op (after `lower-to-accel`, before tiling) of a kind the
target's `[tuning]` space covers: its kind, operand and result types (shapes, dtypes),
properties and description entry. Its one-task module is that op alone in a region of
its target, called from a `@main` whose inputs are its non-constant operands; weights
become external tensors `w0, w1, ...` of a `weights.npz` next to the module (the
measurement writes them; cycles do not depend on their values):

    builtin.module attributes {relay.weights = "weights.npz"} {
      func.func @main(%in0: memref<1x64x56x56xf32> {accel.name = "in0"}, %out0: ... {accel.name = "out0", accel.output}) {
        func.call @npu_0(%in0, %out0) : (...) -> ()
        func.return
      }
      func.func private @npu_0(%in0: memref<1x64x56x56xf32>, %out0: ... {accel.output}) attributes {accel.target = "npu"} {
        %w0 = accel.weight external "w0" : memref<64x64x3x3xf32>
        accel.conv2d ins(%in0, %w0 : ...) outs(%out0 : ...) {padding = [1, 1, 1, 1]} attributes {accel.entry = "patterns[16]"}
        func.return
      }
    }

The task key is a hash of that text: two ops with the same kind, types, properties and
entry are one task (deduplicated; `instances` counts them). Neighbours do not enter the
key: in isolation a task's operands come from host memory, which is what the tiles of one
op change; layer fusion, which tunes chains, adds its own tasks keyed by the chain.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Mapping
from dataclasses import dataclass, field

from xdsl.dialects import func, memref
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, MemRefType, ModuleOp, NoneAttr, StringAttr, UnitAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.printer import Printer

from accel.compiler.tensors import numpy_dtype
from accel.compiler.tile_plan import ComputeShape, eltwise_axis
from accel.dialects import accel
from accel.dialects.conventions import (NAME_ATTR, OUTPUT_ATTR, TARGET_ATTR, TUNING_ATTR, accelerator_functions,
                                        symbol_base)
from accel.dialects.relay import WEIGHTS_ATTR

KINDS: dict[type, str] = {accel.Conv2DOp: "conv2d", accel.PoolOp: "pool", accel.MatmulOp: "matmul",
                          accel.EltwiseOp: "eltwise"}
TASK_WEIGHTS_FILE = "weights.npz"


def tunable_kind(op: accel.ComputeOp) -> str | None:
    """The tuning-space table that covers `op`, if any (batched products are tiled
    whole matrices at a time, an element-wise op without an axis to split has one tile:
    no knob applies)."""
    kind = KINDS.get(type(op))
    if kind == "matmul" and len(op.output.type.get_shape()) > 2:
        return None
    if kind == "eltwise" and eltwise_axis(ComputeShape.of_op(op)) is None:
        return None
    return kind


@dataclass
class Task:
    key: str
    target: str
    kind: str
    summary: str
    """What a person reads in a log or a report: kind, shapes and dtypes."""
    text: str
    """The one-task module."""
    weights: list[tuple[str, tuple[int, ...], str]] = field(default_factory=list)
    """External weights of the module: (name, shape, numpy dtype name)."""
    instances: int = 1
    centre: int = 0
    """Which compute op of the module (in order) is the tuned one; the others are its
    neighbours, compiled with the heuristics."""
    context: int = 0
    """How many neighbours the module holds."""


def _plain(t) -> bool:
    """A whole host buffer (no layout, no memory space): what a task's arguments can be."""
    return isinstance(t, MemRefType) and isinstance(t.layout, NoneAttr) and isinstance(t.memory_space, NoneAttr)


def shape_of(v: SSAValue) -> str:
    return "x".join(str(d) for d in v.type.get_shape()) + f"x{v.type.element_type}"


def summary_of(op: accel.ComputeOp) -> str:
    ins = ", ".join(shape_of(v) for v in op.inputs)
    return f"{op.name.removeprefix('accel.')} ({ins}) -> {shape_of(op.output)}"


def _writer(v: SSAValue) -> accel.ComputeOp | None:
    return next((u.operation for u in v.uses if isinstance(u.operation, accel.ComputeOp)
                 and u.operation.output is v), None)


def neighbourhood(op: accel.ComputeOp, order: Mapping[Operation, int] | None = None) -> list[accel.ComputeOp]:
    """`op` with the compute ops of its region that write its inputs or read its result,
    in block order: whether a neighbour leaves an operand on the device or takes the result
    from there changes what the op's tiles cost (a tiled result is written back)."""
    chain = {op}
    for v in op.inputs:
        w = _writer(v)
        if w is not None and w.parent is op.parent:
            chain.add(w)
    for u in op.output.uses:
        c = u.operation
        if isinstance(c, accel.ComputeOp) and c is not op and c.parent is op.parent and op.output in c.inputs:
            chain.add(c)
    # `order`: the block's ops numbered once (get_operation_index walks the block).
    return sorted(chain, key=(lambda o: order[o]) if order is not None else (lambda o: o.parent.get_operation_index(o)))


def task_of(op: accel.ComputeOp, target: str, order: Mapping[Operation, int] | None = None) -> Task | None:
    """The task of a compute op of a region of `target` (None: not tunable): the op with
    its neighbours (`neighbourhood`; `order`: its block's ops numbered); the configuration
    applies to the op alone."""
    kind = tunable_kind(op)
    if kind is None:
        return None
    chain = neighbourhood(op, order)
    built = chain_module(chain, target, f"// centre: {chain.index(op)}")
    if built is None:
        return None
    key, text, specs = built
    return Task(key, target, kind, summary_of(op), text, specs, centre=chain.index(op), context=len(chain) - 1)


def chain_module(chain: list[accel.ComputeOp], target: str,
                 marker: str) -> tuple[str, str, list[tuple[str, tuple[int, ...], str]]] | None:
    """(key, text, external weights) of the one-task module of `chain` (compute ops of one
    region, in block order), `marker` ending the text (what the task tunes of the chain);
    None when an operand is not a whole host buffer."""
    in_chain = set(chain)
    values = list(dict.fromkeys(v for c in chain for v in (*c.inputs, c.output)))
    if not all(_plain(v.type) for v in values):
        return None
    outputs = {c.output for c in chain}
    weights = [v for v in values if isinstance(v.owner, accel.WeightOp)]
    # Results read outside the chain (or region results) stay results; the others are
    # intermediates of the task's region.
    results = [v for v in values if v in outputs and (not isinstance(v.owner, memref.AllocOp) or any(
        u.operation not in in_chain for u in v.uses))]
    data = [v for v in values if v not in weights and v not in outputs]
    arg_types = [*(v.type for v in data), *(v.type for v in results)]
    region_name = f"{symbol_base(target)}_0"

    body = Block(arg_types=arg_types)
    mapping: dict[SSAValue, SSAValue] = {v: body.args[i] for i, v in enumerate([*data, *results])}
    specs = []
    for i, w in enumerate(weights):
        t = w.type
        wop = accel.WeightOp(t, external=f"w{i}")
        body.add_op(wop)
        mapping[w] = wop.results[0]
        specs.append((f"w{i}", tuple(t.get_shape()), _numpy_name(t.element_type)))
    for v in values:
        if v in outputs and v not in mapping:
            alloc = memref.AllocOp([], [], v.type)
            body.add_op(alloc)
            mapping[v] = alloc.results[0]
    for c in chain:
        clone = c.clone(value_mapper=dict(mapping))
        clone.attributes.pop(TUNING_ATTR, None)
        body.add_op(clone)
    body.add_op(func.ReturnOp())
    names = [*(f"in{i}" for i in range(len(data))), *(f"out{i}" for i in range(len(results)))]
    for a, n in zip(body.args, names):
        a.name_hint = n
    out_attrs = DictionaryAttr({OUTPUT_ATTR: UnitAttr()})
    region_fn = func.FuncOp(region_name, (arg_types, []), Region(body), "private",
                            arg_attrs=ArrayAttr([DictionaryAttr({}) for _ in data] + [out_attrs for _ in results]))
    region_fn.attributes[TARGET_ATTR] = StringAttr(target)

    main_body = Block(arg_types=arg_types)
    main_body.add_op(func.CallOp(region_name, list(main_body.args), []))
    main_body.add_op(func.ReturnOp())
    for a, n in zip(main_body.args, names):
        a.name_hint = n
    attrs = [DictionaryAttr({NAME_ATTR: StringAttr(n)}) for n in names[:len(data)]]
    attrs += [DictionaryAttr({NAME_ATTR: StringAttr(n), OUTPUT_ATTR: UnitAttr()}) for n in names[len(data):]]
    main = func.FuncOp("main", (arg_types, []), Region(main_body), arg_attrs=ArrayAttr(attrs))
    module = ModuleOp([main, region_fn])
    if specs:
        module.attributes[WEIGHTS_ATTR] = StringAttr(TASK_WEIGHTS_FILE)
    out = io.StringIO()
    Printer(stream=out).print_op(module)
    text = out.getvalue() + f"\n{marker}\n"
    return hashlib.sha256(text.encode()).hexdigest()[:16], text, specs


def _numpy_name(element_type) -> str:
    return numpy_dtype(element_type).name


def module_tasks(module: ModuleOp) -> list[tuple[accel.ComputeOp, Task]]:
    """Every tunable compute op of the module's accelerator regions (at accel level,
    before tiling) with its task."""
    out = []
    for fn, target in accelerator_functions(module):
        order = {o: i for i, o in enumerate(fn.body.block.ops)}
        for op in fn.body.block.ops:
            if isinstance(op, accel.ComputeOp):
                task = task_of(op, target, order)
                if task is not None:
                    out.append((op, task))
    return out


def distinct_tasks(pairs: list[tuple[accel.ComputeOp, Task]]) -> list[Task]:
    """One task per key, in first-seen order, counting its instances."""
    by_key: dict[str, Task] = {}
    for _, task in pairs:
        if task.key in by_key:
            by_key[task.key].instances += 1
        else:
            by_key[task.key] = task
    return list(by_key.values())
