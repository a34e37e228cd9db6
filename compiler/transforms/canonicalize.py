"""canonicalize: the graph clean-ups that run before partitioning, in order:

    canonicalize = fold-constants, fold-batch-norm, fold-explicit-padding, undilate-column-convs,
                   propagate-qdq, recognize-decompositions, additive-masks, canonicalize-conv-transpose,
                   canonicalize-linear

Constants fold first (a QDQ model's weight quantizers become int8 constants; a batch
norm's statistics computed from constants become constants), then batch norms fold into
the convolutions and dense layers before them (or become scale-shifts), explicit pads
into the convolutions and pools after them, dilated one-column convolutions
(WaveNet's) undilated on their row phases, quantizes and dequantizes move across the
reshapes between them and the ops they quantize, then exporter
decompositions become single ops, attention masks selecting -inf become added
constants, transposed convolutions become convolutions (their
stride phases as channels) and a pixel shuffle, and matrix products with constant weights become 2-D
dense layers with their epilogue next to them (after GELU is recognised). The result is what the targets' patterns expect:

Before:

    %w = relay.constant dense<...> : tensor<8x3x3x3xf32>
    %0 = relay.nn.conv2d %x, %w : (...) -> tensor<1x8x8x8xf32>
    %1 = relay.nn.batch_norm %0, %g, %b, %m, %v : (...) -> tensor<1x8x8x8xf32>
    %2 = relay.multiply %1, %sixth : (tensor<1x8x8x8xf32>, tensor<f32>) -> tensor<1x8x8x8xf32>
    %3 = relay.add %2, %half : (tensor<1x8x8x8xf32>, tensor<f32>) -> tensor<1x8x8x8xf32>
    %4 = relay.clip %3 {a_min = 0.0, a_max = 1.0} : tensor<1x8x8x8xf32>
    %5 = relay.multiply %1, %4 : tensor<1x8x8x8xf32>

After:

    %0 = relay.nn.conv2d %x, %w2 : (...) -> tensor<1x8x8x8xf32>
    %1 = relay.nn.bias_add %0, %t : (...) -> tensor<1x8x8x8xf32>
    %5 = relay.nn.hardswish %1 : tensor<1x8x8x8xf32>

accel's `canonicalize` replaces xDSL's pass of that name in accel-opt (xDSL's folds
arith/scf ops, which accel's IR does not use).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from accel.compiler.transforms.additive_masks import AdditiveMasks
from accel.compiler.transforms.canonicalize_conv_transpose import CanonicalizeConvTranspose
from accel.compiler.transforms.canonicalize_linear import CanonicalizeLinear
from accel.compiler.transforms.fold_batch_norm import FoldBatchNorm
from accel.compiler.transforms.fold_constants import FoldConstants
from accel.compiler.transforms.fold_explicit_padding import FoldExplicitPadding
from accel.compiler.transforms.propagate_qdq import PropagateQdq
from accel.compiler.transforms.recognize_decompositions import RecognizeDecompositions
from accel.compiler.transforms.undilate_column_convs import UndilateColumnConvs


@dataclass(frozen=True)
class Canonicalize(ModulePass):
    """The graph clean-ups before partitioning: constants, batch norms, pads folded; exporter forms undone.

    fold-constants, fold-batch-norm, fold-explicit-padding, undilate-column-convs,
    propagate-qdq, recognize-decompositions, additive-masks, canonicalize-conv-transpose,
    canonicalize-linear."""

    name = "canonicalize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        FoldConstants().apply(ctx, op)
        FoldBatchNorm().apply(ctx, op)
        FoldExplicitPadding().apply(ctx, op)
        UndilateColumnConvs().apply(ctx, op)
        PropagateQdq().apply(ctx, op)
        RecognizeDecompositions().apply(ctx, op)
        AdditiveMasks().apply(ctx, op)
        CanonicalizeConvTranspose().apply(ctx, op)
        CanonicalizeLinear().apply(ctx, op)
