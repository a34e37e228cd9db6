"""expand-pads: a pad that no target runs becomes slices of its input and constant blocks,
concatenated, which a target copies on its device.

Runs in `byoc`, after max-as-pools and before collapse-norm-axes. Constant
pads in front of a convolution or pool are folded into it by canonicalize
(fold-explicit-padding); what is left are the pads that fold nowhere: the reflection pads
of image-to-image generators (CycleGAN's and pix2pix's ResNet blocks, fast style
transfer: `ReflectionPad2d` before every convolution), edge and wrap pads, and constant
pads before ops that take no padding. Each cut a region at every layer. Along each padded
axis, in order, the result is the input with its border rows added before and after, each
border row a copy of one input row (numpy's and ONNX's modes):

- reflect: row -i is row i, row n-1+i is row n-1-i (the edge row is not repeated);
- edge: rows before are row 0, rows after row n-1;
- wrap: row -i is row n-i, row n-1+i is row i-1;
- constant: a constant block of `pad_value` (the zero point of int8 data for 0.0).

Border rows that are consecutive input rows in order are one slice (a wrap pad's border
is one slice each side); a reflection's border reverses the rows, one slice per row. A
pad of several axes pads the first axis, then the next on that result (the corners come
out as numpy's). The copies move the same values: bit for bit. A QDQ model's pad
(dequantize, pad, quantize of the same scale) moves the int8 data.

Rewritten only when no target runs the pad and one target runs every op it becomes
(`annotate_target.runs_alone`; the constant blocks are weights).

Before (`byoc{target=npu}`):

    %y = relay.nn.pad %x {pad_width = [0, 0, 0, 0, 1, 1, 0, 0], pad_mode = "reflect"} : (tensor<1x2x4x4xf32>) -> tensor<1x2x6x4xf32>

After:

    %0 = relay.strided_slice %x {begin = [1], end = [2], axes = [2]} : (tensor<1x2x4x4xf32>) -> tensor<1x2x1x4xf32>
    %1 = relay.strided_slice %x {begin = [2], end = [3], axes = [2]} : (tensor<1x2x4x4xf32>) -> tensor<1x2x1x4xf32>
    %y = relay.concatenate %0, %x, %1 {axis = 2} : (...) -> tensor<1x2x6x4xf32>
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, op_type_rewrite_pattern

from accel.compiler.byoc_rewrites import TargetsRewrite, discard, moved_int8, replace_moved, rewrite_each
from accel.compiler.targets import target_context
from accel.compiler.tensors import inline_constant, known_value, numpy_dtype
from accel.compiler.transforms.annotate_target import one_target_runs
from accel.dialects import relay
from accel.dialects.relay import shape_of


# --------------------------------------------------------------------------------------
# Which input row each border row copies
# --------------------------------------------------------------------------------------


def source_row(i: int, n: int, mode: str) -> int:
    """The input row that padded row `i` (-before <= i < 0 or n <= i) copies, for an axis
    of `n` rows (reflect: |i| < n, as the verifier demands)."""
    if mode == "edge":
        return min(max(i, 0), n - 1)
    if mode == "wrap":
        return i % n
    assert mode == "reflect"
    return -i if i < 0 else 2 * (n - 1) - i


def runs(rows: list[int]) -> list[tuple[int, int]]:
    """`rows` as [start, end) ranges of consecutive rows in increasing order."""
    found: list[tuple[int, int]] = []
    for r in rows:
        if found and found[-1][1] == r:
            found[-1] = (found[-1][0], r + 1)
        else:
            found.append((r, r + 1))
    return found


# --------------------------------------------------------------------------------------
# The ops a pad becomes
# --------------------------------------------------------------------------------------


def padded_axis(v: SSAValue, axis: int, before: int, after: int, mode: str, value: float,
                new: list[Operation]) -> SSAValue:
    """`v` with `before` and `after` border rows along `axis` (see the module)."""
    shape = list(shape_of(v.type))
    n = shape[axis]
    made: dict[tuple[int, int], SSAValue] = {}  # each slice (or block of k rows) made once

    def piece(start: int, end: int) -> SSAValue:
        if (start, end) not in made:
            if mode == "constant":
                block = np.full([*shape[:axis], end - start, *shape[axis + 1:]], value, numpy_dtype(v.type.element_type))
                part = inline_constant(block)
            else:
                part = relay.StridedSliceOp(v, begin=[start], end=[end], axes=[axis])
            new.append(part)
            made[(start, end)] = part.results[0]
        return made[(start, end)]

    def border(rows: range) -> list[SSAValue]:
        if not len(rows):
            return []
        if mode == "constant":
            return [piece(0, len(rows))]
        return [piece(start, end) for start, end in runs([source_row(i, n, mode) for i in rows])]

    joined = relay.ConcatenateOp(*border(range(-before, 0)), v, *border(range(n, n + after)), axis=axis)
    new.append(joined)
    return joined.result


def pad_ops(op: relay.PadOp, data: SSAValue, value: float) -> tuple[list[Operation], SSAValue]:
    """The slices and concatenations of the pad on `data` (its input, or the int8 tensor
    its input dequantizes), axis by axis."""
    props = op.py_props()
    widths = props["pad_width"]
    new: list[Operation] = []
    for axis in range(len(shape_of(data.type))):
        before, after = widths[2 * axis], widths[2 * axis + 1]
        if before or after:
            data = padded_axis(data, axis, before, after, props["pad_mode"], value, new)
    return new, data


def int8_pad_value(op: relay.PadOp, dequant: Operation) -> float | None:
    """The int8 value a constant pad of the dequantized data adds (the zero point for a
    pad of 0.0); None when the pad value is not exactly the zero point's."""
    zero = known_value(dequant.zero_point)
    if zero is None or op.prop("pad_value") != 0.0:
        return None
    return float(zero.reshape(-1)[0])


# --------------------------------------------------------------------------------------
# Pattern
# --------------------------------------------------------------------------------------


class ExpandPad(TargetsRewrite):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.PadOp, rewriter: PatternRewriter) -> None:
        if not any(op.prop("pad_width")) or not self.unclaimed(op):
            return
        data, dequant, requant = moved_int8(op)  # int8 data moves (see expand-pixel-shuffles)
        value = op.prop("pad_value")
        if dequant is not None and op.prop("pad_mode") == "constant":
            value = int8_pad_value(op, dequant)
            if value is None:  # the float pad value is no int8 value: pad the float data
                data, dequant, requant, value = op.data, None, None, op.prop("pad_value")
        new, result = pad_ops(op, data, value)
        for o in new:
            o.location = op.location
        copies = [o for o in new if not isinstance(o, relay.ConstantOp)]
        if one_target_runs(copies, self.targets):
            replace_moved(rewriter, op, new, result, dequant, requant)
        else:
            discard(new)


# --------------------------------------------------------------------------------------
# Pass
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ExpandPads(ModulePass):
    """Pads no target runs become slices and constant blocks, concatenated, which a target
    copies on its device."""

    name = "expand-pads"

    target: tuple[str, ...] = ()
    """Targets that decide (default: --target)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        targets = tuple(target_context(ctx).resolve(self.target, self.name))
        if targets:
            rewrite_each(op, ExpandPad(targets), (relay.PadOp,))
