"""lower-to-accel: the kernels of accelerator functions become accel compute ops.

Runs on bufferized IR. In every function carrying `accel.target`, the body of each
`accel.kernel` (one relay op or one composite, of any length) is split into fused forms

    [dequantize inputs] anchor [bias] [activation] [quantize | requantize]

with anchor one of conv2d (also qnn.conv2d), dense / matmul (also qnn.dense), batch_matmul
(two activations, equal batch dims), max/avg pooling, global average pooling, add /
subtract / multiply / divide (also qnn.add; the rhs may be a scalar or the result's
trailing dims), relu, clip, sigmoid, tanh, gelu, silu, and the row ops softmax and
layer norm (last axis): greedily, in
topological order, each form as long as it can be (see
`accel.compiler.targets.fused_forms`, which partitioning asks too, so that whatever
annotate-target offloads lowers). Each form becomes one compute op (`accel.conv2d`,
`accel.matmul`, `accel.pool`, `accel.eltwise`) with its epilogue as properties; a value
passed from one form to the next is a fresh `memref.alloc` (insert-dma and optimize-dma
keep it in the scratchpad); constant operands become `accel.weight` buffers at the top of
the function. The ops still compute on host buffers (the logical form); `insert-dma`
moves them onto the scratchpad. The split does not depend on pattern names, so a user's
own patterns lower as long as their bodies split into such forms.

`relay.concatenate` (on targets that copy on the device: `dma.device_bytes_per_cycle`)
computes nothing: each input is copied into its slice of the output (`memref.copy` into a
`memref.subview`), and an input that is a buffer of the function (a producer's result) is
not copied at all: its producer writes straight into the slice. `insert-dma` stages the
copies that remain (inputs of the region), `assemble-on-device` keeps the output in the
scratchpad when it fits.

`relay.transpose`, `relay.reshape` and `relay.strided_slice` (on the same targets) compute
nothing either: each is a `memref.copy` of a strided view of its dense input
(`memref.reinterpret_cast`, `fused_forms.layout_view`) into its result; a layout op reading
another's result reads the first one's source through the composed view when the two
compose to a copy of rank 4 at most (a head split, `reshape, slice, reshape, transpose`,
is one copy; the source, now live until that copy, loses its host offset until the next
plan-memory), and copies that nothing reads any more are dropped. A result of rank above 4 is copied with the dimensions
contiguous on both sides merged (a view of the result too).

Quantized forms compute exactly in integers: int32 accumulation of zero-point-shifted
int8 values, the int32 bias added, then f32(acc * in_scale[c]) / out_scale rounded half to
even (`in_scale[c] = f32(s_x * s_w[c])`). The float QDQ reference computes the same sum in
float32, so results may differ by one quantization step where float rounding flips. An
int8 body splits where a form ends: `... relu quantize | dequantize max_pool quantize`.

Before (a user's pattern conv2d -> bias -> relu -> max_pool2d, two fused forms):

    accel.kernel ins(%x : memref<1x8x8x8xf32>) outs(%y : memref<1x8x4x4xf32>) {
    ^bb0(%a: tensor<1x8x8x8xf32>):
      %w = relay.constant external "w" : tensor<8x8x3x3xf32>
      %b = relay.constant external "b" : tensor<8xf32>
      %r = relay.composite "cnn.conv2d_bias_relu_maxpool" (%a, %w, %b) : (...) -> tensor<1x8x4x4xf32> {
      ^bb0(%a2: tensor<1x8x8x8xf32>, %w2: tensor<8x8x3x3xf32>, %b2: tensor<8xf32>):
        %0 = relay.nn.conv2d %a2, %w2 {padding = [1, 1, 1, 1]} : ...
        %1 = relay.nn.bias_add %0, %b2 : ...
        %2 = relay.nn.relu %1 : ...
        %3 = relay.nn.max_pool2d %2 {pool_size = [2, 2], strides = [2, 2]} : ...
        relay.yield %3 : tensor<1x8x4x4xf32>
      }
      accel.yield %r : tensor<1x8x4x4xf32>
    }

After:

    %w = accel.weight external "w" : memref<8x8x3x3xf32>
    %b = accel.weight external "b" : memref<8xf32>
    %t = memref.alloc() : memref<1x8x8x8xf32>
    accel.conv2d ins(%x, %w, %b : ...) outs(%t : ...) {padding = [1, 1, 1, 1], activation = "relu"}
    accel.pool ins(%t : ...) outs(%y : ...) {pool_size = [2, 2], strides = [2, 2]}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from accel.compiler import ir_build
from accel.compiler.diagnostics import CompileError
from accel.compiler.ir_build import memref_alloc
from accel.compiler.targets.fused_forms import (COPY_MAX_RANK, LAYOUT_OPS, Body, ComputePlan, LayoutView, NotLowerable,
                                               compose_views, layout_view, merged_dims, plan_body, weight_key)
from accel.compiler.tensors import constant_value, dense_from_array, element_type, reshaped_dense, row_major_strides
from accel.dialects import accel, relay
from accel.compiler.targets.context import target_context
from accel.compiler.targets.schema import TargetDescription
from accel.compiler.targets.support import command_element, op_entry_for, select
from accel.dialects.conventions import OFFSET_ATTR, TARGET_ATTR, set_entry


@dataclass
class WeightCache:
    """One accel.weight per constant (by external name or by inline value) per function."""

    fn: func.FuncOp
    by_key: dict[Any, SSAValue] = field(default_factory=dict)

    def get(self, const: relay.ConstantOp, shape: tuple[int, ...] | None = None,
            value: np.ndarray | None = None) -> SSAValue:
        t = const.result.type
        shape = tuple(t.get_shape()) if shape is None else shape
        key = weight_key(const, shape, value)
        if key not in self.by_key:
            mtype = accel.memref_type(t.element_type if value is None else _elem(value), shape)
            if key[0] == "ext":
                w = accel.WeightOp(mtype, external=const.external.data)
            elif value is None and const.value is not None:
                w = accel.WeightOp(mtype, value=reshaped_dense(const.value, shape))
            else:
                arr = np.asarray(constant_value(const) if value is None else value).reshape(shape)
                w = accel.WeightOp(mtype, value=dense_from_array(arr))
            w.location = const.location
            block = self.fn.body.block
            Rewriter.insert_op(w, InsertPoint.at_start(block) if not self.by_key
                               else InsertPoint.after(next(reversed(self.by_key.values())).owner))
            self.by_key[key] = w.result
        return self.by_key[key]


def _elem(arr: np.ndarray):
    return element_type(arr.dtype)


def build_compute(plan: ComputePlan, ins: list[SSAValue], out: SSAValue) -> accel.ComputeOp:
    """The compute op of one fused form, reading `ins` and writing `out`."""
    compute = plan.op_type(ins, out, **plan.props)
    compute.location = plan.anchor.location
    return compute


def lower_kernel(kernel: accel.KernelOp, weights: WeightCache) -> list[Operation]:
    """The compute ops of `kernel` (one per fused form of its body) and the buffers of
    the values passed between them, in order; raises NotLowerable."""
    plans = plan_body(Body.of_kernel(kernel))
    ops: list[Operation] = []
    temps: dict[SSAValue, SSAValue] = {}
    for i, plan in enumerate(plans):
        ins = []
        for o, shape in zip(plan.inputs, plan.shapes):
            if o.input is not None:
                ins.append(kernel.ins[o.input])
            elif o.temp is not None:
                ins.append(temps[o.temp])
            else:
                assert o.const is not None
                ins.append(weights.get(o.const, shape))
        if i == len(plans) - 1:
            out = kernel.outs[0]
        else:  # an intermediate: a fresh buffer (insert-dma keeps it in the scratchpad)
            t = plan.result.type
            assert isinstance(t, TensorType)
            alloc = memref_alloc(accel.memref_type(t.element_type, t.get_shape()))
            alloc.location = kernel.location
            ops.append(alloc)
            out = temps[plan.result] = alloc.memref
        ops.append(build_compute(plan, ins, out))
    return ops


@dataclass(frozen=True)
class LowerToAccel(ModulePass):
    """Kernels of accelerator functions to accel compute ops (logical form, host buffers)."""

    name = "lower-to-accel"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in op.body.block.ops:
            if not isinstance(fn, func.FuncOp) or TARGET_ATTR not in fn.attributes or fn.is_declaration:
                continue
            target = fn.attributes[TARGET_ATTR]
            if isinstance(target, StringAttr) and target.data == "host":
                continue
            desc = target_context(ctx).named(target.data, fn)
            if not desc.lowers_to_accel:
                continue  # api.lowering = "none": its codegen hook takes the bufferized region
            weights = WeightCache(fn)
            copies: list[memref.CopyOp] = []
            views: dict[SSAValue, tuple[SSAValue, LayoutView, memref.CopyOp]] = {}
            for kernel in list(fn.body.block.ops):
                concat = concatenate_of(kernel) if isinstance(kernel, accel.KernelOp) else None
                layout = layout_op_of(kernel) if isinstance(kernel, accel.KernelOp) else None
                if layout is not None:
                    spec = select(layout, desc)  # the description's entry: copies on the device
                    if isinstance(spec, str):
                        raise CompileError(f"lower-to-accel: '{desc.name}' has no entry for '{layout.name}': {spec}",
                                           kernel)
                    lowered = lower_layout(kernel, layout, views)
                    Rewriter.replace_op(kernel, lowered, new_results=[])
                    continue
                if concat is not None:
                    spec = select(concat, desc)  # the description's entry: copies on the device
                    if isinstance(spec, str):
                        raise CompileError(f"lower-to-accel: '{desc.name}' has no entry for 'relay.concatenate': "
                                           f"{spec}", kernel)
                    lowered = lower_concatenate(kernel, concat, weights)
                    copies += [o for o in lowered if isinstance(o, memref.CopyOp)]
                    Rewriter.replace_op(kernel, lowered, new_results=[])
                    continue
                if not isinstance(kernel, accel.KernelOp):
                    if isinstance(kernel, (relay.RelayOp, relay.CompositeOp)) or any(
                            isinstance(t, TensorType) for t in kernel.result_types):
                        raise CompileError(f"lower-to-accel: @{fn.sym_name.data} is not bufferized (run bufferize first)", kernel)
                    continue
                try:
                    lowered = lower_kernel(kernel, weights)
                except NotLowerable as e:
                    what = _describe(kernel)
                    raise CompileError(f"lower-to-accel: cannot run {what} on '{target.data}': {e}", kernel) from None
                stamp_entries(lowered, kernel, desc)
                if len(lowered) == 1:
                    lowered[0].location = kernel.location
                Rewriter.replace_op(kernel, lowered, new_results=[])
            for copy in copies:
                write_in_place(copy)
            drop_unread_copies(fn, [copy for _, _, copy in views.values()])


def concatenate_of(kernel: accel.KernelOp) -> relay.ConcatenateOp | None:
    """The concatenation a kernel is made of (with the constants it reads), if it is one."""
    ops = [o for o in kernel.body.block.ops if not isinstance(o, (accel.YieldOp, relay.ConstantOp))]
    return ops[0] if len(ops) == 1 and isinstance(ops[0], relay.ConcatenateOp) else None


def layout_op_of(kernel: accel.KernelOp) -> Operation | None:
    """The transpose, reshape or slice a kernel is made of, if it is one."""
    ops = [o for o in kernel.body.block.ops if not isinstance(o, accel.YieldOp)]
    return ops[0] if len(ops) == 1 and isinstance(ops[0], LAYOUT_OPS) else None


def lower_layout(kernel: accel.KernelOp, op: Operation,
                 views: dict[SSAValue, tuple[SSAValue, LayoutView, memref.CopyOp]]) -> list[Operation]:
    """A layout op as a copy of the view of its input it is (`fused_forms.layout_view`).
    A chain of them (a head split: reshape, slice, reshape, transpose) is one copy where
    their views compose (`views`: each layout copy's buffer -> its source, view and copy;
    the copies that nothing reads any more go after the function is lowered)."""
    view = layout_view(op)
    if isinstance(view, str):
        raise CompileError(f"lower-to-accel: {view}", kernel)
    src, out = kernel.ins[0], kernel.outs[0]
    if src in views:
        source, inner, _ = views[src]
        composed = compose_views(inner, view)
        # (Each op's copy has rank <= COPY_MAX_RANK, annotate-target checked; their
        # composition may not: then the first copy stays.)
        if composed is not None and composed.copy_rank() <= COPY_MAX_RANK:
            src, view = source, composed
            # The source now lives until this copy, no longer until the first one: its
            # host offset could overlap a buffer live in between (the next plan-memory
            # places it, as write_in_place's).
            if isinstance(src.owner, memref.AllocOp):
                src.owner.attributes.pop(OFFSET_ATTR, None)
    ops: list[Operation] = []
    if len(view.sizes) <= COPY_MAX_RANK:
        ops.append(ir_build.strided_view(src, view.offset, view.sizes, view.strides))
        dest = out
    else:  # a transfer has rank 1 to 4: the dims contiguous on both sides merged
        dims, (src_strides, out_strides) = merged_dims(view.sizes, [view.strides, row_major_strides(view.sizes)])
        ops.append(ir_build.strided_view(src, view.offset, dims, src_strides))
        ops.append(ir_build.strided_view(out, 0, dims, out_strides))
        dest = ops[-1].results[0]
    copy = memref.CopyOp(ops[0].results[0], dest)
    ops.append(copy)
    for o in ops:
        o.location = kernel.location
    views[out] = (src, view, copy)
    return ops


def drop_unread_copies(fn: func.FuncOp, copies: list[memref.CopyOp]) -> None:
    """Layout copies into a buffer of the function that nothing reads (a later copy reads
    their source through a composed view), last first: a chain goes in one sweep."""
    for copy in reversed(copies):
        dest = copy.destination
        into = dest.owner if isinstance(dest.owner, memref.ReinterpretCastOp) else None  # merged dims
        out = into.source if into is not None else dest
        alloc = out.owner
        if not isinstance(alloc, memref.AllocOp) or alloc.parent is not fn.body.block or \
                any(use.operation is not (into or copy) for use in out.uses) or \
                (into is not None and any(use.operation is not copy for use in dest.uses)):
            continue
        cast = copy.source.owner
        Rewriter.erase_op(copy)
        if into is not None:
            Rewriter.erase_op(into)
        Rewriter.erase_op(alloc)
        if isinstance(cast, memref.ReinterpretCastOp) and not cast.result.uses:
            Rewriter.erase_op(cast)


def lower_concatenate(kernel: accel.KernelOp, concat: relay.ConcatenateOp, weights: WeightCache) -> list[Operation]:
    """Each input of `concat` copied into its slice of the kernel's output buffer (a
    constant input from its weight: the constant blocks of a padding, undilate-convs')."""
    out = kernel.outs[0]
    shape = list(out.type.get_shape())
    axis = concat.prop("axis") % len(shape)
    ops: list[Operation] = []
    at = 0
    for v in concat.inputs:
        if isinstance(v.owner, relay.ConstantOp):
            source = weights.get(v.owner)
        elif isinstance(v, BlockArgument) and v.owner is kernel.body.block:
            source = kernel.ins[v.index]
        else:
            raise CompileError("lower-to-accel: a concatenation's input is neither the kernel's nor a constant", kernel)
        sizes = list(shape)
        sizes[axis] = v.type.get_shape()[axis]
        offsets = [0] * len(shape)
        offsets[axis] = at
        ones = [1] * len(shape)
        view = ir_build.subview(out, offsets, sizes, ones, ir_build.subview_type(out.type, offsets, sizes, ones))
        copy = memref.CopyOp(source, view.result)
        view.location = copy.location = kernel.location
        ops += [view, copy]
        at += sizes[axis]
    return ops


def write_in_place(copy: memref.CopyOp) -> None:
    """A copied input that is a buffer of the function (what a producer wrote) becomes its
    slice of the output: the producer writes there, and the copy goes."""
    src, view = copy.source, copy.destination
    alloc = src.owner
    block = copy.parent
    if not isinstance(alloc, memref.AllocOp) or alloc.parent is not block or block is None:
        return
    if any(isinstance(use.operation, memref.ReinterpretCastOp) for use in src.uses):
        return  # a layout op's view of it assumes a dense buffer
    chain = []
    v = view
    while isinstance(v.owner, memref.SubviewOp):
        chain.append(v.owner)
        v = v.owner.source
    if v is src:
        return
    base = v.owner
    if isinstance(base, memref.AllocOp) and base.parent is block and not base.is_before_in_block(alloc):
        base.detach()
        Rewriter.insert_op(base, InsertPoint.before(alloc))
        # It now lives from the producer on: the host plan's offset (plan-memory, from
        # its old life) may overlap buffers live in between. Unplanned until the next
        # plan-memory, as the buffers lowering adds are.
        base.attributes.pop(OFFSET_ATTR, None)
    for sv in reversed(chain):  # outermost first, right after the input's buffer
        sv.detach()
        Rewriter.insert_op(sv, InsertPoint.after(alloc))
        alloc = sv
    Rewriter.erase_op(copy)
    src.replace_all_uses_with(view)
    Rewriter.erase_op(src.owner)
    retype_views_of(view)


def retype_views_of(buffer: SSAValue) -> None:
    """Views taken of a buffer that has become a slice of another (a concatenation inside a
    concatenation) get the strides of what they now view: a view built for the dense buffer
    would address the slice as if it were dense."""
    for use in list(buffer.uses):
        sv = use.operation
        if not isinstance(sv, memref.SubviewOp) or use.index != 0:
            continue
        offsets, sizes, strides = ir_build.subview_indices(sv)
        kind = ir_build.subview_type(buffer.type, offsets, sizes, strides)
        if kind == sv.result.type:
            continue
        new = ir_build.subview(buffer, offsets, sizes, strides, kind)
        new.location = sv.location
        Rewriter.replace_op(sv, new)
        retype_views_of(new.result)


def stamp_entries(lowered: list[Operation], kernel: accel.KernelOp, desc: TargetDescription) -> None:
    """Record on each compute op the description entry whose declared C call runs it.
    The first compute op of a kernel runs on the kernel's entry (its composite's
    pattern, or the first `[[ops]]` entry accepting its op); the later ones of a
    composite that lowers to several commands run on the first `[[ops]]` entry of
    their kind and element type."""
    computes = [o for o in lowered if isinstance(o, accel.ComputeOp)]
    anchor = next(o for o in kernel.body.block.ops if not isinstance(o, (relay.ConstantOp, accel.YieldOp)))
    spec = select(anchor, desc)
    if isinstance(spec, str):
        raise CompileError(f"lower-to-accel: '{desc.name}' has no entry for {_describe(kernel)}: {spec}", kernel)
    set_entry(computes[0], spec.key)
    for compute in computes[1:]:
        kind = compute.properties.get("kind")
        entry = op_entry_for(compute.name, kind.data if kind is not None else None, command_element(compute.output), desc)
        if entry is None:
            raise CompileError(f"lower-to-accel: '{desc.name}' declares no call for the '{compute.name}' command "
                               f"of {_describe(kernel)} (add an [[ops]] entry for it)", kernel)
        set_entry(compute, entry.key)


def _describe(kernel: accel.KernelOp) -> str:
    for op in kernel.body.block.ops:
        if isinstance(op, relay.CompositeOp):
            return f"composite '{op.pattern.data}'"
        if not isinstance(op, (relay.ConstantOp, accel.YieldOp)):
            return f"'{op.name}'"
    return "an empty kernel"
