"""max-as-pools: a max over trailing axes that no target runs becomes a cascade of strided
max pools over the data viewed as one row per max, which a target's pooling engine runs.

Runs in `byoc`, after mean-as-pool and before expand-pads. A 1-D CNN's global max pool
(ONNX GlobalMaxPool on [N, C, L] imports as `relay.max` over L; jax's and torch's
`max(x, axis=-1)` export so too: Magika's over 508 positions) is the max of each row of
`[R, T]` (R the product of the kept leading axes, T of the reduced trailing ones): of
`[1, R, 1, T]`, R channels of a 1 x T image. A target's max pools take small windows
(the npu's at most 3 x 3, strides 1 or 2), so the row is reduced in steps: each pool of
window (1, w) and stride s <= w, padded on the right so that its last window reaches the
row's end, leaves ceil((T - w) / s) + 1 cells, each the max of its window; the windows
cover the row and padding never wins a max (it is the lowest value), so the last pool's
single cell is the row's max, bit for bit, in any element type. Windows and strides are
each target's largest (s = w where it takes that stride); the cascade is kept when one
target runs every pool (`annotate_target.runs_alone`), and only for a max no target runs.

Only maxes over a non-empty set of trailing axes (keepdims or not) to a result of rank 1
or more (a DMA transfer has rank 1 to 4: a scalar computed on the device could not leave
it); a max over other axes would need a transpose first and is left alone.

Before (`byoc{target=npu}`):

    %m = relay.max %x {axis = [2], keepdims = true} : (tensor<1x4x9xf32>) -> tensor<1x4x1xf32>

After (windows of 3 at stride 2, the last window what is left: 9 -> 4 -> 2 -> 1 cells):

    %0 = relay.reshape %x {newshape = [1, 4, 1, 9]} : (tensor<1x4x9xf32>) -> tensor<1x4x1x9xf32>
    %1 = relay.nn.max_pool2d %0 {pool_size = [1, 3], strides = [2, 2]} : (tensor<1x4x1x9xf32>) -> tensor<1x4x1x4xf32>
    %2 = relay.nn.max_pool2d %1 {pool_size = [1, 3], strides = [2, 2], padding = [0, 0, 0, 1]} : (tensor<1x4x1x4xf32>) -> tensor<1x4x1x2xf32>
    %3 = relay.nn.max_pool2d %2 {pool_size = [1, 2], strides = [2, 2]} : (tensor<1x4x1x2xf32>) -> tensor<1x4x1x1xf32>
    %m = relay.reshape %3 {newshape = [1, 4, 1]} : (tensor<1x4x1x1xf32>) -> tensor<1x4x1xf32>
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, op_type_rewrite_pattern

from accel.compiler.byoc_rewrites import TargetsRewrite, rewrite_each
from accel.compiler.targets import target_context
from accel.compiler.targets.schema import TargetDescription
from accel.compiler.transforms.mean_as_pool import trailing_split
from accel.dialects import relay
from accel.dialects.relay import shape_of


def row_windows(length: int, window: int, stride: int) -> list[tuple[int, int]]:
    """(window, right padding) of each pool of the cascade reducing a row of `length` to
    one cell with windows of at most `window` at `stride` (the last pool's window is
    what is left, when that is at most `window`)."""
    steps = []
    while length > 1:
        if length <= window:
            steps.append((length, 0))
            break
        cells = -(-(length - window) // stride) + 1
        steps.append((window, (cells - 1) * stride + window - length))
        length = cells
    return steps


def pool_shapes(targets: tuple[TargetDescription, ...]) -> list[tuple[int, int]]:
    """(window, stride) along a row for each target's max_pool2d entries: its largest
    window (a row of any length where it sets none: 0) and the largest stride (s, s) it
    takes up to that window (the window itself where it sets none)."""
    found = []
    for t in targets:
        for entry in t.ops_named("relay.nn.max_pool2d"):
            window = entry.limits.max_kernel[1] if entry.limits.max_kernel is not None else 0
            allowed = entry.limits.strides
            if allowed is None:
                stride = window
            else:
                fitting = [s for s, s2 in allowed if s == s2 and (not window or s <= window)]
                if not fitting:
                    continue
                stride = max(fitting)
            found.append((window, stride))
    return sorted(set(found), reverse=True)


class MaxAsPools(TargetsRewrite):
    def __init__(self, targets: tuple[TargetDescription, ...]):
        super().__init__(targets)
        self.shapes = pool_shapes(targets)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.MaxOp, rewriter: PatternRewriter) -> None:
        if not self.shapes or not self.unclaimed(op):
            return
        split = trailing_split(op)
        if split is None or not shape_of(op.result.type):
            return  # (a scalar result: no transfer carries a value of rank 0)
        rows, length = split
        for window, stride in self.shapes:
            view = relay.ReshapeOp(op.data, newshape=[1, rows, 1, length])
            built: list = [view]
            for w, right in row_windows(length, window or length, stride or length):
                built.append(relay.MaxPool2DOp(built[-1].results[0], pool_size=[1, w], strides=[stride or w] * 2,
                                               padding=[0, 0, 0, right]))
            back = relay.ReshapeOp(built[-1].results[0], newshape=list(shape_of(op.result.type)))
            self.replace_if_run(rewriter, op, [*built, back], back.result)
            if op.parent is None:
                return


@dataclass(frozen=True)
class MaxesAsPools(ModulePass):
    """Maxes over trailing axes no target runs become cascades of strided max pools of the
    data viewed as [1, rows, 1, row length] where a target runs those."""

    name = "max-as-pools"

    target: tuple[str, ...] = ()
    """Targets that decide (default: --target)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        targets = tuple(target_context(ctx).resolve(self.target, self.name))
        if targets:
            rewrite_each(op, MaxAsPools(targets), (relay.MaxOp,))
