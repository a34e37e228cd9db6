"""What the targets' convolution entries take, and the building blocks of the byoc passes
that rewrite what no target takes into what one does: the convolution rewrites
(undilate-convs, split-grouped-convs, unstride-convs) and the expansions of pixel
shuffles, large max pools, activations and nearest upsampling.

Each convolution rewrite is a `ConvRewrite` pattern run by `apply_conv_rewrite`: it sees
the conv ops (`CONV_NAMES`) that carry no manual `accel.target` (the user's choice
stands), with the limits of every target entry that runs a convolution (`conv_limits`),
and rewrites only when no entry `takes` the conv as it is and one takes what it becomes
(`accepts_with`, a probe). The new conv keeps the old one's discardable attributes
(`keep_attributes`). Every byoc rewrite visits only the ops of its kinds (`rewrite_each`:
one walk that tests an op's class, not a pattern driver over every op of the module).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint

from accel.compiler.targets import target_context
from accel.compiler.targets.schema import Limits, TargetDescription
from accel.compiler.transforms.annotate_target import runs_alone
from accel.compiler.transforms.canonicalize_linear import ELEMENTWISE
from accel.compiler.targets.support import check_op_limits
from accel.compiler.tensors import inline_constant, known_size, known_value, numpy_dtype, per_tensor, same_value
from accel.compiler.transforms.fold_constants import erase_dead
from accel.dialects import relay
from accel.dialects.conventions import TARGET_ATTR
from accel.dialects.relay import shape_of, tensor

CONV_NAMES = ("relay.nn.conv2d", "relay.qnn.conv2d")


# --------------------------------------------------------------------------------------
# Which convolutions
# --------------------------------------------------------------------------------------


def conv_limits(targets: Sequence[TargetDescription]) -> list[Limits]:
    """The limits of every entry that runs a convolution: `[[ops]]` entries of the conv ops
    and `[[patterns]]` holding one."""
    found = []
    for t in targets:
        found += [e.limits for e in t.ops if e.op in CONV_NAMES]
        found += [p.limits for p in t.patterns if p.pattern.names & set(CONV_NAMES)]
    return found


def takes(limits: list[Limits], op: Operation) -> bool:
    return any(check_op_limits(op, lim) is None for lim in limits)


def accepts_with(op: Operation, limits: list[Limits], **props) -> bool:
    """Whether an entry takes `op` with `props` changed (a probe on the same operands,
    erased at once: the limits read the properties and the operands' channels)."""
    changed = {name: op.prop_kind(name).to_attr(value) for name, value in props.items()}
    probe = type(op).create(operands=list(op.operands), result_types=[op.results[0].type],
                            properties={**op.properties, **changed})
    try:
        return takes(limits, probe)
    finally:
        probe.erase(safe_erase=False)


MAX_SUBSAMPLE = 4
"""At most this many times the work for a strided window op (a grouped convolution, a
pool) computed at stride 1 and subsampled (PP-OCR's depthwise convolutions and CRNNs' max
pools at stride (2, 1): twice)."""


def effective_strides(op: Operation) -> tuple[int, int]:
    """A window op's strides, 1 along an axis with one output position (never applied)."""
    oh, ow = shape_of(op.results[0].type)[2:]
    sh, sw = op.py_props()["strides"]
    return (1 if oh == 1 else sh), (1 if ow == 1 else sw)


def subsample(v: SSAValue, oh: int, ow: int, sh: int, sw: int) -> relay.StridedSliceOp:
    """Every sh-th row and sw-th column of NCHW `v`, oh x ow of them: the outputs of a
    window op at strides (sh, sw) from its outputs at stride 1 (a strided slice, which a
    target copies on its device)."""
    return relay.StridedSliceOp(v, begin=[0, 0], end=[(oh - 1) * sh + 1, (ow - 1) * sw + 1], strides=[sh, sw],
                                axes=[2, 3])


def summed_with_bias(parts: list[SSAValue], op: Operation, bias: Operation | None,
                     new: list[Operation]) -> SSAValue:
    """The sum of partial layers `parts` computing `op` (split-tall-kernels' kernel tiles,
    split-wide-layers' input slices), `bias` (a `bias_add` of `op`, or None) on the last
    part so that the part and its bias match a target's layer+bias pattern; the ops are
    appended to `new`."""
    if bias is not None:
        moved = relay.BiasAddOp(parts[-1], bias.bias, **bias.py_props())
        moved.location = bias.location
        new.append(moved)
        parts = [*parts[:-1], moved.result]
    v = parts[-1]
    for part in reversed(parts[:-1]):
        add = relay.AddOp(v, part)
        add.location = op.location
        new.append(add)
        v = add.result
    return v


class TargetsRewrite(RewritePattern):
    """A byoc rewrite of ops into others that a target runs, with the targets that decide."""

    def __init__(self, targets: tuple[TargetDescription, ...]):
        super().__init__()
        self.targets = targets

    def unclaimed(self, op: Operation) -> bool:
        """Whether `op` is the rewrite's to consider: no manual `accel.target` (the user's
        choice stands) and no target runs it as it is (`annotate_target.runs_alone`)."""
        return TARGET_ATTR not in op.attributes and not any(runs_alone(op, t) for t in self.targets)

    def replace_if_run(self, rewriter: PatternRewriter, op: Operation, new: list[Operation], value: SSAValue) -> None:
        """`op` replaced by the ops `new` (built, not inserted; `value` taking its result's
        place, each at `op`'s location) when one target runs every one of them; else they
        are dropped."""
        for o in new:
            o.location = op.location
        if any(all(runs_alone(o, t) for o in new) for t in self.targets):
            replace_chain(rewriter, new, op, value, [op])
        else:
            discard(new)


class ConvRewrite(RewritePattern):
    """A rewrite of the conv ops no manual target names, with the targets' conv limits."""

    def __init__(self, limits: list[Limits]):
        super().__init__()
        self.limits = limits

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if op.name in CONV_NAMES and TARGET_ATTR not in op.attributes:
            self.rewrite(op, rewriter)

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        raise NotImplementedError


def rewrite_each(module: ModuleOp, pattern: RewritePattern, kinds: tuple[type[Operation], ...]) -> None:
    """`pattern` applied once to each op of `kinds` in the module, in order (what
    `PatternRewriteWalker(apply_recursively=False)` does, but the walk tests only each
    op's class: the byoc rewrites find nothing to do in most models, and their walks
    should cost that). Ops a rewrite erases are skipped; ops it makes are not visited."""
    for op in [op for op in module.walk() if isinstance(op, kinds)]:
        if op.parent is not None:
            pattern.match_and_rewrite(op, PatternRewriter(op))


def apply_conv_rewrite(ctx: Context, module: ModuleOp, targets: tuple[str, ...], pass_name: str,
                       pattern: type[ConvRewrite]) -> None:
    limits = conv_limits(target_context(ctx).resolve(targets, pass_name))
    if limits:
        rewrite_each(module, pattern(limits), (relay.Conv2DOp, relay.QnnConv2DOp))


# --------------------------------------------------------------------------------------
# Building blocks
# --------------------------------------------------------------------------------------


def keep_attributes(new: Operation, old: Operation) -> None:
    """`new` replaces `old`: its location and discardable attributes."""
    new.location = old.location
    new.attributes.update(old.attributes)


def data_source(op: Operation) -> tuple[SSAValue, Operation | None, float] | None:
    """What a layout change or slice of a conv's data reads: the data, or the int8 tensor a
    per-tensor dequantize makes it from (with that dequantize, to take again after it),
    and the value padding adds (the real zero: the zero point of int8 data). None when a
    zero point is not a constant."""
    if isinstance(op, relay.QnnConv2DOp):
        zp = known_value(op.input_zero_point)
        return None if zp is None else (op.data, None, float(zp.reshape(-1)[0]))
    dequant = op.data.owner
    if per_tensor(dequant, relay.DequantizeOp):
        zp = known_value(dequant.zero_point)
        if zp is not None:
            return dequant.data, dequant, float(zp.reshape(-1)[0])
    return op.data, None, 0.0


def moved_int8(op: Operation) -> tuple[SSAValue, Operation | None, Operation | None]:
    """What a data-movement op (it only moves, repeats or selects its input's elements)
    can move instead of its input: the int8 tensor that a per-tensor dequantize makes the
    input from, with that dequantize (to apply after the move; else the input and None),
    and a quantize that is the op's only reader with the dequantize's scale and zero point
    (the two then cancel: the moved int8 data is the quantize's result; else None). QDQ
    models wrap such ops so (onnxruntime drops the pair too). A dequantize that others
    read too stays for them (a residual block's input: its pad and its skip add)."""
    data = op.operands[0]
    dequant = data.owner
    if not per_tensor(dequant, relay.DequantizeOp):
        return data, None, None
    result = op.results[0]
    requant = result.first_use.operation if result.has_one_use() else None
    if not (per_tensor(requant, relay.QuantizeOp) and same_value(requant.scale, dequant.scale) and
            same_value(requant.zero_point, dequant.zero_point) and
            requant.results[0].type.element_type == dequant.data.type.element_type):
        requant = None
    return dequant.data, dequant, requant


def dequantized(v: SSAValue, dequant: Operation | None, new: list[Operation]) -> SSAValue:
    """`v` through a dequantize like `dequant` (or `v` itself when there is none)."""
    if dequant is None:
        return v
    dq = relay.DequantizeOp(v, dequant.scale, dequant.zero_point, axis=dequant.py_props()["axis"])
    new.append(dq)
    return dq.result


def padded(v: SSAValue, axis: int, before: int, after: int, value: float, new: list[Operation]) -> SSAValue:
    """`v` padded along `axis` with `value`, as a concatenation with constant blocks (which
    targets that copy on their device run there; a pad they may not take)."""
    if not before and not after:
        return v
    shape = list(shape_of(v.type))
    dtype = numpy_dtype(v.type.element_type)

    def block(rows: int) -> list[SSAValue]:
        if not rows:
            return []
        const = inline_constant(np.full([*shape[:axis], rows, *shape[axis + 1:]], value, dtype))
        new.append(const)
        return [const.result]

    joined = relay.ConcatenateOp(*block(before), v, *block(after), axis=axis)
    new.append(joined)
    return joined.result


def rebuilt_on(user: Operation, value: SSAValue) -> Operation:
    """`user` (an elementwise op or channel bias whose first operand changes) made anew on
    `value`, of another shape: the same other operands, properties and attributes."""
    op = type(user).create(operands=[value, *user.operands[1:]],
                           result_types=[tensor(shape_of(value.type), user.results[0].type.element_type)],
                           properties=dict(user.properties), attributes=dict(user.attributes))
    op.location = user.location
    return op


def replace_chain(rewriter: PatternRewriter, new: list[Operation], last: Operation, value: SSAValue,
                  dead: list[Operation]) -> None:
    """Insert `new` before `last` and let `value` (made by `new`, with `last`'s name) take
    the place of `last`'s result; then erase the ops of `dead` (in order: users first)
    that nothing reads any more."""
    value.name_hint = last.results[0].name_hint
    rewriter.insert_op(new, InsertPoint.before(last))
    rewriter.replace_all_uses_with(last.results[0], value)
    erase_dead(rewriter, dead)


def replace_moved(rewriter: PatternRewriter, op: Operation, new: list[Operation], value: SSAValue,
                  dequant: Operation | None, requant: Operation | None) -> None:
    """`new` (computing `value`, the moved data of `moved_int8`) in place of `op`: the
    quantize's result when the dequantize and quantize cancel, else `op`'s result after
    the dequantize (if any)."""
    if requant is not None:
        replace_chain(rewriter, new, requant, value, [requant, op, dequant])
        return
    value = dequantized(value, dequant, new)
    replace_chain(rewriter, new, op, value, [op, *([dequant] if dequant is not None else [])])


def int8_weight(op: Operation) -> tuple[relay.DequantizeOp, np.ndarray] | None:
    """The dequantize making layer `op`'s weight from an integer constant, with a constant
    scale and zero point per tensor or per output channel (axis 0), and that constant;
    None otherwise (split-wide-layers, quantize-layer-biases)."""
    dq = op.weight.owner
    if not isinstance(dq, relay.DequantizeOp):
        return None
    data = known_value(dq.data)
    if data is None or data.dtype.kind not in "iu":
        return None
    if not _sliceable(dq, data.shape[0]) or not per_tensor(dq) and dq.prop("axis") % data.ndim != 0:
        return None
    return dq, data


def _sliceable(dq: relay.DequantizeOp, channels: int) -> bool:
    """Whether a dequantize's scale and zero point are constants of one value or `channels`."""
    return all(known_size(v) in (1, channels) for v in (dq.scale, dq.zero_point))


def per_channel_parts(bias: SSAValue, channels: int) -> list[SSAValue] | None:
    """The constants a channel bias is made of, each of `channels` values or one: the
    bias, or the int32 data, scale and zero point of its dequantize (QDQ models); None
    when it is neither."""
    if (size := known_size(bias)) is not None:
        return [bias] if size == channels else None
    dq = bias.owner
    if not isinstance(dq, relay.DequantizeOp):
        return None
    sizes = [known_size(v) for v in (dq.data, dq.scale, dq.zero_point)]
    if sizes[0] != channels or any(n not in (1, channels) for n in sizes):
        return None
    return [dq.data, dq.scale, dq.zero_point]


def channel_epilogue(v: SSAValue, axis: int, channels: int) -> list[Operation]:
    """The ops after the layer making `v` that act on each of its `channels` channels
    (along `axis`) alone: an optional bias_add of a constant along them
    (`per_channel_parts`), then elementwise activations, up to and with a per-tensor
    quantize; each the only use of the value before it."""
    ops: list[Operation] = []
    rank = len(shape_of(v.type))
    while v.has_one_use():
        user = next(iter(v.uses)).operation
        if (isinstance(user, relay.BiasAddOp) and not ops and user.data is v and user.prop("axis") % rank == axis
                and per_channel_parts(user.bias, channels) is not None):
            pass
        elif per_tensor(user, relay.QuantizeOp):
            ops.append(user)
            break
        elif not isinstance(user, ELEMENTWISE):
            break
        ops.append(user)
        v = user.results[0]
    return ops


def discard(new: list[Operation]) -> None:
    """Erase ops built but not inserted (last first: each only uses earlier ones)."""
    for op in reversed(new):
        op.erase(safe_erase=False)


def epilogue(op: Operation, movable) -> list[Operation]:
    """The ops after `op` each reading only the one before it (the first `op`'s result)
    that `movable(user, value)` accepts, up to and with a per-tensor quantize."""
    chain: list[Operation] = []
    last = op
    while last.results[0].has_one_use():
        user = last.results[0].first_use.operation
        quantize = per_tensor(user, relay.QuantizeOp)
        if not (quantize or movable(user, last.results[0])):
            break
        chain.append(user)
        last = user
        if quantize:
            break
    return chain
