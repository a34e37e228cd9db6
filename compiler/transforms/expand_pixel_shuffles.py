"""expand-pixel-shuffles: a depth_to_space or space_to_depth that no target runs becomes
reshapes and transposes that a target copies on its device.

Runs in `byoc`, after split-wide-layers and before merge-composite. Pixel shuffles
come from super-resolution heads (PyTorch's PixelShuffle: depth_to_space, mode CRD), from
every transposed convolution (canonicalize-conv-transpose: a conv2d, then depth_to_space
DCR) and from space-to-depth stems; a target that copies strided views on its device (the
npu: rank 1 to 4 after merging the dimensions contiguous on both sides) runs them as
copies, so a U-Net decoder or an upsampling head stays in one region instead of a round
trip through the host.

The shuffle is the reshape / transpose / reshape of its definition (reference.py) where
that transpose is a copy of rank 4 at most (depth_to_space DCR and space_to_depth DCR of
one image); otherwise it is two transposes of rank 4 at most, each moving one block axis:

    depth_to_space, x = [N, C*b*b, H, W] -> [N, C, H*b, W*b] (block rows b1, columns b2):
      [P, b2, Q, W] -transpose [0, 2, 3, 1]-> [P, Q, W, b2]   (b2 to the end)
      [R, b1, S, W*b] -transpose [0, 2, 1, 3]-> [R, S, b1, W*b]   (b1 after the rows)
      DCR (channel = (b1, b2, c)): P = N*b, Q = C*H, R = N, S = C*H
      CRD (channel = (c, b1, b2)): P = N*C*b, Q = H, R = N*C, S = H
    space_to_depth, x = [N, C, h*b, w*b] -> [N, C*b*b, h, w], the inverse steps:
      [A, B, b1, W] -transpose [0, 2, 1, 3]-> [A, b1, B, W]
      [A*b, B, w, b2] -transpose [0, 3, 1, 2]-> [A*b, b2, B, w]
      DCR (channel = (b1, b2, c)): A = N, B = C*h;  CRD (channel = (c, b1, b2)): A = N*C, B = h

A per-tensor dequantize feeding the shuffle (QDQ models leave shuffles in float) is taken
after the copies, or cancels with a quantize of the same scale and zero point after it,
so that they move the int8 data beside the convolution that made it.

Rewritten only when no target runs the shuffle and one target runs every op it becomes
(its entries, and the copy's rank: `annotate_target.runs_alone`).

Before (`byoc{target=npu}`; a transposed convolution's pixel shuffle):

    %y = relay.nn.depth_to_space %x {block_size = 2} : (tensor<1x32x8x8xf32>) -> tensor<1x8x16x16xf32>

After:

    %0 = relay.reshape %x {newshape = [1, 2, 2, 8, 8, 8]} : ... -> tensor<1x2x2x8x8x8xf32>
    %1 = relay.transpose %0 {axes = [0, 3, 4, 1, 5, 2]} : ... -> tensor<1x8x8x2x8x2xf32>
    %y = relay.reshape %1 {newshape = [1, 8, 16, 16]} : ... -> tensor<1x8x16x16xf32>
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter

from accel.compiler.byoc_rewrites import TargetsRewrite, discard, moved_int8, replace_moved, rewrite_each
from accel.compiler.targets import target_context
from accel.compiler.targets.fused_forms import COPY_MAX_RANK, layout_view
from accel.compiler.transforms.annotate_target import one_target_runs
from accel.dialects import relay
from accel.dialects.relay import shape_of

SHUFFLES = (relay.DepthToSpaceOp, relay.SpaceToDepthOp)


# --------------------------------------------------------------------------------------
# The ops a shuffle becomes
# --------------------------------------------------------------------------------------


def _permuted(v: SSAValue, shape: list[int], axes: list[int], new: list[Operation]) -> SSAValue:
    """`v` reshaped to `shape`, then transposed by `axes`."""
    split = relay.ReshapeOp(v, newshape=shape)
    moved = relay.TransposeOp(split.result, axes=axes)
    new += [split, moved]
    return moved.result


def one_step(op: Operation, data: SSAValue, new: list[Operation]) -> SSAValue:
    """The shuffle's definition on `data` (its input, or the int8 tensor its input
    dequantizes): one reshape, transpose and reshape."""
    n, c, h, w = shape_of(data.type)
    b, mode = op.prop("block_size"), op.prop("mode")
    if isinstance(op, relay.DepthToSpaceOp):
        c2 = c // (b * b)
        shape, axes = ([n, b, b, c2, h, w], [0, 3, 4, 1, 5, 2]) if mode == "DCR" else \
            ([n, c2, b, b, h, w], [0, 1, 4, 2, 5, 3])
    else:
        shape = [n, c, h // b, b, w // b, b]
        axes = [0, 3, 5, 1, 2, 4] if mode == "DCR" else [0, 1, 3, 5, 2, 4]
    moved = _permuted(data, shape, axes, new)
    whole = relay.ReshapeOp(moved, newshape=list(shape_of(op.results[0].type)))
    new.append(whole)
    return whole.result


def two_steps(op: Operation, data: SSAValue, new: list[Operation]) -> SSAValue:
    """The shuffle on `data` as two transposes, each moving one block axis (see the module)."""
    n, c, h, w = shape_of(data.type)
    b, dcr = op.prop("block_size"), op.prop("mode") == "DCR"
    if isinstance(op, relay.DepthToSpaceOp):
        c2 = c // (b * b)
        p, q, r, s = (n * b, c2 * h, n, c2 * h) if dcr else (n * c2 * b, h, n * c2, h)
        v = _permuted(data, [p, b, q, w], [0, 2, 3, 1], new)
        v = _permuted(v, [r, b, s, w * b], [0, 2, 1, 3], new)
    else:
        a, bb = (n, c * (h // b)) if dcr else (n * c, h // b)
        v = _permuted(data, [a, bb, b, w], [0, 2, 1, 3], new)
        v = _permuted(v, [a * b, bb, w // b, b], [0, 3, 1, 2], new)
    whole = relay.ReshapeOp(v, newshape=list(shape_of(op.results[0].type)))
    new.append(whole)
    return whole.result


def copies_fit(new: list[Operation]) -> bool:
    return all(not isinstance(op, relay.TransposeOp) or
               (not isinstance(view := layout_view(op), str) and view.copy_rank() <= COPY_MAX_RANK) for op in new)


# --------------------------------------------------------------------------------------
# Pattern
# --------------------------------------------------------------------------------------


class ExpandPixelShuffle(TargetsRewrite):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, SHUFFLES) or not self.unclaimed(op):
            return
        # int8 data moves: a per-tensor dequantize of the input comes after the copies, or
        # cancels with a quantize after the shuffle.
        data, dequant, requant = moved_int8(op)
        new: list[Operation] = []
        value = one_step(op, data, new)
        if not copies_fit(new):
            discard(new)
            new = []
            value = two_steps(op, data, new)
        if not one_target_runs(new, self.targets):
            discard(new)
            return
        for o in new:
            o.location = op.location
        replace_moved(rewriter, op, new, value, dequant, requant)


# --------------------------------------------------------------------------------------
# Pass
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ExpandPixelShuffles(ModulePass):
    """depth_to_space / space_to_depth no target runs become reshapes and transposes a
    target copies on its device."""

    name = "expand-pixel-shuffles"

    target: tuple[str, ...] = ()
    """Targets that decide (default: --target)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        targets = tuple(target_context(ctx).resolve(self.target, self.name))
        if targets:
            rewrite_each(op, ExpandPixelShuffle(targets), SHUFFLES)
