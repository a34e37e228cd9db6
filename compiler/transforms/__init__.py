"""accel's passes, one module per pass, named after the pass.

`ACCEL_PASSES` maps each pass name to a factory that imports its module on first use,
so that a tool pays only for the passes it runs.
"""

from collections.abc import Callable

from xdsl.passes import ModulePass


def _lazy(module: str, cls: str) -> Callable[[], type[ModulePass]]:
    def factory() -> type[ModulePass]:
        import importlib

        return getattr(importlib.import_module(f"accel.compiler.transforms.{module}"), cls)

    return factory


ACCEL_PASSES: dict[str, Callable[[], type[ModulePass]]] = {
    "canonicalize": _lazy("canonicalize", "Canonicalize"),
    "fold-constants": _lazy("fold_constants", "FoldConstants"),
    "fold-batch-norm": _lazy("fold_batch_norm", "FoldBatchNorm"),
    "fold-explicit-padding": _lazy("fold_explicit_padding", "FoldExplicitPadding"),
    "undilate-column-convs": _lazy("undilate_column_convs", "UndilateColumnConvs"),
    "propagate-qdq": _lazy("propagate_qdq", "PropagateQdq"),
    "widen-host-floats": _lazy("widen_host_floats", "WidenHostFloats"),
    "recognize-decompositions": _lazy("recognize_decompositions", "RecognizeDecompositions"),
    "additive-masks": _lazy("additive_masks", "AdditiveMasks"),
    "canonicalize-conv-transpose": _lazy("canonicalize_conv_transpose", "CanonicalizeConvTranspose"),
    "canonicalize-linear": _lazy("canonicalize_linear", "CanonicalizeLinear"),
    "quantize-layer-biases": _lazy("quantize_layer_biases", "QuantizeLayerBiases"),
    "split-tall-kernels": _lazy("split_tall_kernels", "SplitTallKernels"),
    "undilate-convs": _lazy("undilate_convs", "UndilateConvs"),
    "split-grouped-convs": _lazy("split_grouped_convs", "SplitGroupedConvs"),
    "unstride-convs": _lazy("unstride_convs", "UnstrideConvs"),
    "expand-pixel-shuffles": _lazy("expand_pixel_shuffles", "ExpandPixelShuffles"),
    "cascade-max-pools": _lazy("cascade_max_pools", "CascadeMaxPools"),
    "tabulate-activations": _lazy("tabulate_activations", "TabulateActivations"),
    "expand-activations": _lazy("expand_activations", "ExpandActivations"),
    "expand-nearest-upsampling": _lazy("expand_nearest_upsampling", "ExpandNearestUpsamplings"),
    "unstride-pools": _lazy("unstride_pools", "UnstridePools"),
    "global-pools": _lazy("global_pools", "GlobalPools"),
    "split-wide-layers": _lazy("split_wide_layers", "SplitWideLayers"),
    "resize-as-matmuls": _lazy("resize_as_matmuls", "ResizesAsMatmuls"),
    "mean-as-pool": _lazy("mean_as_pool", "MeansAsPools"),
    "dequantize-integer-products": _lazy("dequantize_integer_products", "DequantizeIntegerProducts"),
    "max-as-pools": _lazy("max_as_pools", "MaxesAsPools"),
    "softmax-last-axis": _lazy("softmax_last_axis", "SoftmaxesLastAxis"),
    "expand-pads": _lazy("expand_pads", "ExpandPads"),
    "collapse-norm-axes": _lazy("collapse_norm_axes", "CollapseNormAxes"),
    "requantize-concatenations": _lazy("requantize_concatenations", "RequantizeConcatenations"),
    "trailing-broadcasts": _lazy("trailing_broadcasts", "TrailingBroadcasts"),
    "merge-composite": _lazy("merge_composite", "MergeComposite"),
    "annotate-target": _lazy("annotate_target", "AnnotateTarget"),
    "merge-regions": _lazy("merge_regions", "MergeRegions"),
    "outline-regions": _lazy("outline_regions", "OutlineRegions"),
    "byoc": _lazy("byoc", "Byoc"),
    "bufferize": _lazy("bufferize", "Bufferize"),
    "plan-memory": _lazy("plan_memory", "PlanMemory"),
    "lower-to-accel": _lazy("lower_to_accel", "LowerToAccel"),
    "apply-tuning": _lazy("apply_tuning", "ApplyTuning"),
    "fuse-layers": _lazy("fuse_layers", "FuseLayers"),
    "tile-for-scratchpad": _lazy("tile_for_scratchpad", "TileForScratchpad"),
    "insert-dma": _lazy("insert_dma", "InsertDma"),
    "optimize-dma": _lazy("optimize_dma", "OptimizeDma"),
    "assemble-on-device": _lazy("assemble_on_device", "AssembleOnDevice"),
    "partial-residency": _lazy("partial_residency", "PartialResidency"),
}
