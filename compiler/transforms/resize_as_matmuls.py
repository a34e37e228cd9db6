"""resize-as-matmuls: a resize that no target runs becomes products with its interpolation
matrices, which a target's matrix engine runs.

Runs in `byoc`, after expand-nearest-upsampling (whole-factor nearest upsampling is
cheaper as copies) and before mean-as-pool. ONNX Resize is separable: along each axis every
output cell is a weighted sum of input cells (nearest: one weight of 1; linear and cubic:
`resize_sampling.resize_taps`, antialiased or not), so the resize is

    Y[n, c] = R_h · X[n, c] · R_wᵀ      (R_h: [OH, H], R_w: [OW, W])

The W axis is a dense layer on `X` as [N*C*H, W] (weight R_w); the H axis one on the
transposed result as [N*C*OW, H] (weight R_h), transposed back. An axis the resize leaves
alone has no product. The segmentation heads of DeepLab-style networks (a bilinear resize
by 2 after the decoder's convolutions, a nearest resize by 23/15 in its pooling branch)
then stay in the npu's region instead of cutting it in two. A QDQ model's resize sits
between a dequantize and a quantize: the products run in float between them.

Nearest sampling is exact (each output is 1 * one input, finite data); linear and cubic
sum the same products as the reference (which sums in float64 and rounds once) in the
matrix engine's float32: a few units in the last place. Only float data; a
`tf_crop_and_resize` whose extrapolation value is not 0 is not linear and is left alone.
Rewritten only when no target runs the resize and one target runs every op it becomes
(`annotate_target.runs_alone`), and then only where it pays by the cost model of
merge-regions (`targets.cost`): where the resize cuts a region (ops a target runs make
its data and read its result, looking through a QDQ model's conversions), or where the
products cost that target no more, as a region of their own with their transfers, than
the resize costs the host. A resize at the end of a network (the segmentation map's
upsampling) is cheaper on the host than as products (about OW + OH multiply-adds per
output cell, and its larger result leaving the device): it stays there.

Before (`byoc{target=npu}`):

    %y = relay.image.resize2d %x {size = [8, 6], method = "linear"} : (tensor<1x2x4x3xf32>) -> tensor<1x2x8x6xf32>

After:

    %0 = relay.reshape %x {newshape = [8, 3]} : (tensor<1x2x4x3xf32>) -> tensor<8x3xf32>
    %1 = relay.constant dense<...> : tensor<6x3xf32>
    %2 = relay.nn.dense %0, %1 : (tensor<8x3xf32>, tensor<6x3xf32>) -> tensor<8x6xf32>
    %3 = relay.reshape %2 {newshape = [2, 4, 6]} : (tensor<8x6xf32>) -> tensor<2x4x6xf32>
    %4 = relay.transpose %3 {axes = [0, 2, 1]} : (tensor<2x4x6xf32>) -> tensor<2x6x4xf32>
    %5 = relay.reshape %4 {newshape = [12, 4]} : (tensor<2x6x4xf32>) -> tensor<12x4xf32>
    %6 = relay.constant dense<...> : tensor<8x4xf32>
    %7 = relay.nn.dense %5, %6 : (tensor<12x4xf32>, tensor<8x4xf32>) -> tensor<12x8xf32>
    %8 = relay.reshape %7 {newshape = [2, 6, 8]} : (tensor<12x8xf32>) -> tensor<2x6x8xf32>
    %9 = relay.transpose %8 {axes = [0, 2, 1]} : (tensor<2x6x8xf32>) -> tensor<2x8x6xf32>
    %y = relay.reshape %9 {newshape = [1, 2, 8, 6]} : (tensor<2x8x6xf32>) -> tensor<1x2x8x6xf32>
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, op_type_rewrite_pattern

from accel.compiler.byoc_rewrites import TargetsRewrite, discard, replace_chain, rewrite_each
from accel.compiler.resize_sampling import resize2d_taps, resize_nearest_index, resize_source_coordinate
from accel.compiler.targets import target_context
from accel.compiler.targets.cost import op_work, region_cost
from accel.compiler.targets.schema import TargetDescription
from accel.compiler.tensors import inline_constant, numpy_dtype
from accel.compiler.transforms.annotate_target import runs_alone
from accel.dialects import relay
from accel.dialects.relay import shape_of


def interpolation_matrices(op: relay.Resize2DOp) -> tuple[np.ndarray, np.ndarray] | None:
    """(R_h [OH, H], R_w [OW, W]) in float64 with Y[n, c] = R_h · X[n, c] · R_wᵀ, or None
    when the resize is not linear in its data (an extrapolation value other than 0)."""
    props = op.py_props()
    _, _, h, w = shape_of(op.data.type)
    size = props["size"]
    scales = relay.Resize2DOp.scales((h, w), props)
    if props["method"] == "nearest":
        if props["coordinate_transformation_mode"] == "tf_crop_and_resize":
            return None
        matrices = []
        for length, out, scale in ((h, size[0], scales[0]), (w, size[1], scales[1])):
            coord = resize_source_coordinate(np.arange(out, dtype=np.float64), scale, length, out,
                                             props["coordinate_transformation_mode"])
            m = np.zeros((out, length))
            m[np.arange(out), resize_nearest_index(coord, length, props["nearest_mode"])] = 1.0
            matrices.append(m)
        return matrices[0], matrices[1]
    matrices = []
    for (index, weight, outside), length in zip(resize2d_taps((h, w), size, scales, props), (h, w)):
        if outside.any() and props["extrapolation_value"] != 0.0:
            return None
        m = np.zeros((len(index), length))
        np.add.at(m, (np.repeat(np.arange(len(index)), index.shape[1]), index.ravel()), weight.ravel())
        m[outside] = 0.0
        matrices.append(m)
    return matrices[0], matrices[1]


class _Chain:
    """The ops of the products (not inserted), collected in `ops`."""

    def __init__(self, dtype: np.dtype):
        self.dtype = dtype
        self.ops: list[Operation] = []

    def _add(self, op: Operation) -> SSAValue:
        self.ops.append(op)
        return op.results[0]

    def reshape(self, v: SSAValue, shape: list[int]) -> SSAValue:
        return self._add(relay.ReshapeOp(v, newshape=shape))

    def transpose(self, v: SSAValue) -> SSAValue:
        return self._add(relay.TransposeOp(v, axes=[0, 2, 1]))

    def dense(self, v: SSAValue, matrix: np.ndarray) -> SSAValue:
        return self._add(relay.DenseOp(v, self._add(inline_constant(matrix.astype(self.dtype)))))


def product_ops(op: relay.Resize2DOp, r_h: np.ndarray, r_w: np.ndarray) -> tuple[list[Operation], SSAValue]:
    """The reshapes, transposes and dense layers computing the resize from its input; an
    axis whose matrix is the identity has none."""
    n, c, h, w = shape_of(op.data.type)
    oh, ow = r_h.shape[0], r_w.shape[0]
    chain = _Chain(numpy_dtype(op.data.type.element_type))
    v = op.data
    if not (ow == w and np.array_equal(r_w, np.eye(w))):
        v = chain.dense(chain.reshape(v, [n * c * h, w]), r_w)
    if not (oh == h and np.array_equal(r_h, np.eye(h))):
        v = chain.transpose(chain.reshape(v, [n * c, h, ow]))
        v = chain.dense(chain.reshape(v, [n * c * ow, h]), r_h)
        v = chain.transpose(chain.reshape(v, [n * c, ow, oh]))
    result = chain.reshape(v, [n, c, oh, ow])
    return chain.ops, result


_CONVERSIONS = (relay.QuantizeOp, relay.DequantizeOp)


def _made_on_device(v: SSAValue, targets: tuple[TargetDescription, ...]) -> bool:
    """Whether an op one of `targets` runs makes `v` (through conversions)."""
    owner = v.owner
    while isinstance(owner, _CONVERSIONS):
        owner = owner.operands[0].owner
    return (isinstance(owner, relay.RelayOp) and not isinstance(owner, relay.ConstantOp)
            and any(runs_alone(owner, t) for t in targets))


def _read_on_device(v: SSAValue, targets: tuple[TargetDescription, ...]) -> bool:
    """Whether an op one of `targets` runs reads `v` (through conversions)."""
    for use in v.uses:
        user = use.operation
        if isinstance(user, _CONVERSIONS):
            if _read_on_device(user.results[0], targets):
                return True
        elif isinstance(user, relay.RelayOp) and any(runs_alone(user, t) for t in targets):
            return True
    return False


def pays(op: relay.Resize2DOp, new: list[Operation], value: SSAValue, target: TargetDescription,
         targets: tuple[TargetDescription, ...]) -> bool:
    """Whether the products `new` (computing `value`) on `target` pay for themselves: the
    resize cuts a region, or the products, their input, matrices and result crossing, cost
    `target` no more than the resize costs the host."""
    if _made_on_device(op.data, targets) and _read_on_device(op.results[0], targets):
        return True
    computed = [o for o in new if not isinstance(o, relay.ConstantOp)]
    boundary = [op.data, *(o.results[0] for o in new if isinstance(o, relay.ConstantOp)), value]
    return region_cost(computed, boundary, target).accel_cycles <= op_work(op).cycles(target.host)


class ResizeAsMatmuls(TargetsRewrite):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.Resize2DOp, rewriter: PatternRewriter) -> None:
        if not self.unclaimed(op):
            return
        if not np.issubdtype(numpy_dtype(op.data.type.element_type), np.floating):
            return
        matrices = interpolation_matrices(op)
        if matrices is None:
            return
        new, value = product_ops(op, *matrices)
        for o in new:
            o.location = op.location
        computed = [o for o in new if not isinstance(o, relay.ConstantOp)]
        runner = next((t for t in self.targets if all(runs_alone(o, t) for o in computed)), None)
        if runner is not None and pays(op, new, value, runner, self.targets):
            replace_chain(rewriter, new, op, value, [op])
        else:
            discard(new)


@dataclass(frozen=True)
class ResizesAsMatmuls(ModulePass):
    """Resizes no target runs become products with their interpolation matrices (dense
    layers and transposes) where a target runs those."""

    name = "resize-as-matmuls"

    target: tuple[str, ...] = ()
    """Targets that decide (default: --target)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        targets = tuple(target_context(ctx).resolve(self.target, self.name))
        if targets:
            rewrite_each(op, ResizeAsMatmuls(targets), (relay.Resize2DOp,))
