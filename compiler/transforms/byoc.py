"""byoc: the partitioning pipeline, TVM's BYOC flow in one pass.

    byoc{target=npu,dsp min-ops=1 cost-model=true zero-copy=true}
      = dequantize-integer-products{target=npu,dsp}, split-tall-kernels{target=npu,dsp}, undilate-convs{target=npu,dsp},
        split-grouped-convs{target=npu,dsp}, unstride-convs{target=npu,dsp}, split-wide-layers{target=npu,dsp},
        expand-pixel-shuffles{target=npu,dsp}, cascade-max-pools{target=npu,dsp}, unstride-pools{target=npu,dsp},
        global-pools{target=npu,dsp},
        tabulate-activations{target=npu,dsp}, expand-activations{target=npu,dsp}, expand-nearest-upsampling{target=npu,dsp},
        resize-as-matmuls{target=npu,dsp}, mean-as-pool{target=npu,dsp}, max-as-pools{target=npu,dsp},
        expand-pads{target=npu,dsp},
        collapse-norm-axes{target=npu,dsp}, softmax-last-axis{target=npu,dsp},
        requantize-concatenations{target=npu,dsp}, trailing-broadcasts{target=npu,dsp},
        quantize-layer-biases{target=npu,dsp}, merge-composite{target=npu}, merge-composite{target=dsp},
        annotate-target{targets=npu,dsp zero-copy=true}, merge-regions{min-ops=1 cost-model=true},
        outline-regions

Targets are in priority order everywhere: the first target's patterns are matched
first, and annotate-target gives an op to the first target that accepts it.

Before (`byoc{target=npu}`):

    func.func @main(%x: tensor<1x16x32x32xf32>) -> tensor<1x16x32x32xf32> {
      %0 = relay.nn.conv2d %x, %w {padding = [1, 1, 1, 1]} : ...
      %1 = relay.nn.bias_add %0, %b : ...
      %2 = relay.sigmoid %1 : ...
      func.return %2 : ...
    }

After:

    func.func @main(%x: tensor<1x16x32x32xf32>) -> tensor<1x16x32x32xf32> {
      %1 = func.call @npu_0(%x) : (tensor<1x16x32x32xf32>) -> tensor<1x16x32x32xf32>
      %2 = relay.sigmoid %1 {accel.target = "host", accel.reason = "npu: op not supported"} : ...
      func.return %2 : ...
    }
    func.func private @npu_0(%x: tensor<1x16x32x32xf32>) -> tensor<1x16x32x32xf32>
        attributes {accel.target = "npu"} {
      %w = relay.constant ...
      %b = relay.constant ...
      %1 = relay.composite "npu.conv2d_bias" (%x, %w, %b) : ... { ... }
      func.return %1 : ...
    }
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from accel.compiler.targets import target_context
from accel.compiler.transforms.annotate_target import AnnotateTarget
from accel.compiler.transforms.cascade_max_pools import CascadeMaxPools
from accel.compiler.transforms.collapse_norm_axes import CollapseNormAxes
from accel.compiler.transforms.expand_activations import ExpandActivations
from accel.compiler.transforms.expand_nearest_upsampling import ExpandNearestUpsamplings
from accel.compiler.transforms.expand_pads import ExpandPads
from accel.compiler.transforms.expand_pixel_shuffles import ExpandPixelShuffles
from accel.compiler.transforms.global_pools import GlobalPools
from accel.compiler.transforms.dequantize_integer_products import DequantizeIntegerProducts
from accel.compiler.transforms.max_as_pools import MaxesAsPools
from accel.compiler.transforms.mean_as_pool import MeansAsPools
from accel.compiler.transforms.merge_composite import MergeComposite
from accel.compiler.transforms.merge_regions import MergeRegions
from accel.compiler.transforms.outline_regions import OutlineRegions
from accel.compiler.transforms.quantize_layer_biases import QuantizeLayerBiases
from accel.compiler.transforms.requantize_concatenations import RequantizeConcatenations
from accel.compiler.transforms.resize_as_matmuls import ResizesAsMatmuls
from accel.compiler.transforms.split_grouped_convs import SplitGroupedConvs
from accel.compiler.transforms.softmax_last_axis import SoftmaxesLastAxis
from accel.compiler.transforms.split_tall_kernels import SplitTallKernels
from accel.compiler.transforms.split_wide_layers import SplitWideLayers
from accel.compiler.transforms.tabulate_activations import TabulateActivations
from accel.compiler.transforms.trailing_broadcasts import TrailingBroadcasts
from accel.compiler.transforms.undilate_convs import UndilateConvs
from accel.compiler.transforms.unstride_convs import UnstrideConvs
from accel.compiler.transforms.unstride_pools import UnstridePools


STEPS = ("dequantize-integer-products", "split-tall-kernels", "undilate-convs", "split-grouped-convs", "unstride-convs", "split-wide-layers",
         "expand-pixel-shuffles", "cascade-max-pools", "unstride-pools", "global-pools", "tabulate-activations",
         "expand-activations", "expand-nearest-upsampling", "resize-as-matmuls", "mean-as-pool", "max-as-pools",
         "expand-pads", "collapse-norm-axes", "softmax-last-axis", "requantize-concatenations", "trailing-broadcasts",
         "quantize-layer-biases", "merge-composite", "annotate-target", "merge-regions", "outline-regions")
"""The passes `byoc` runs, in order (for pipelines that write them out: the bench's stage
timing, tests that leave one out)."""


@dataclass(frozen=True)
class Byoc(ModulePass):
    """Partition for the targets: dequantize-integer-products, split-tall-kernels, undilate-convs, split-grouped-convs,
    unstride-convs, split-wide-layers, expand-pixel-shuffles, cascade-max-pools, unstride-pools, global-pools, tabulate-activations, expand-activations,
    expand-nearest-upsampling, resize-as-matmuls, mean-as-pool, max-as-pools, expand-pads, collapse-norm-axes, softmax-last-axis, requantize-concatenations, trailing-broadcasts, quantize-layer-biases, merge-composite, annotate-target, merge-regions, outline-regions."""

    name = "byoc"

    target: tuple[str, ...] = ()
    """Targets in priority order: built-in names or paths (default: --target)."""

    min_ops: int = 1
    """Forwarded to merge-regions."""

    cost_model: bool = True
    """Forwarded to merge-regions."""

    zero_copy: bool = True
    """Forwarded to annotate-target (false: check the scratchpad of targets sharing host
    memory too, for pipelines that stage their regions through it)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        names = tuple(t.name for t in target_context(ctx).resolve(self.target, self.name))
        DequantizeIntegerProducts(target=names).apply(ctx, op)
        SplitTallKernels(target=names).apply(ctx, op)
        UndilateConvs(target=names).apply(ctx, op)
        SplitGroupedConvs(target=names).apply(ctx, op)
        UnstrideConvs(target=names).apply(ctx, op)
        SplitWideLayers(target=names).apply(ctx, op)
        ExpandPixelShuffles(target=names).apply(ctx, op)
        CascadeMaxPools(target=names).apply(ctx, op)
        UnstridePools(target=names).apply(ctx, op)
        GlobalPools(target=names).apply(ctx, op)
        TabulateActivations(target=names).apply(ctx, op)
        ExpandActivations(target=names).apply(ctx, op)
        ExpandNearestUpsamplings(target=names).apply(ctx, op)
        ResizesAsMatmuls(target=names).apply(ctx, op)
        MeansAsPools(target=names).apply(ctx, op)
        MaxesAsPools(target=names).apply(ctx, op)
        ExpandPads(target=names).apply(ctx, op)
        CollapseNormAxes(target=names).apply(ctx, op)
        SoftmaxesLastAxis(target=names).apply(ctx, op)
        RequantizeConcatenations(target=names).apply(ctx, op)
        TrailingBroadcasts(target=names).apply(ctx, op)
        QuantizeLayerBiases(target=names).apply(ctx, op)
        MergeComposite(target=names).apply(ctx, op)
        AnnotateTarget(targets=names, zero_copy=self.zero_copy).apply(ctx, op)
        MergeRegions(min_ops=self.min_ops, cost_model=self.cost_model).apply(ctx, op)
        OutlineRegions().apply(ctx, op)
