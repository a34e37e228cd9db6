"""3-D (rank-5, NCDHW) convolution, transposed convolution and pooling as 2-D relay ops:
the host kernels and the accelerators have the 2-D forms, and the depth axis becomes a
gather (convolutions) or one more 2-D pooling pass (pools).

    Conv(x: [N,C,D,H,W], w: [O,C/g,KD,KH,KW])
        ->  %p = relay.nn.pad %x {pad_width = [0,0, 0,0, 0,1, 0,0, 0,0]}      (a zero depth slice)
            %t = relay.take %p, %taps {axis = 2}        [N,C,OD,KD,H,W]: the depth slice
                                                        under each tap (the zero slice in the padding)
            %u = relay.transpose %t {axes = [0,2,1,3,4,5]} -> relay.reshape [N*OD, C*KD, H, W]
            %y = relay.nn.conv2d %u, reshape(w) [O, C/g*KD, KH, KW]          [N*OD, O, OH, OW]
            -> relay.reshape [N, OD, O, OH, OW] -> relay.transpose [N, O, OD, OH, OW]
    ConvTranspose(x, w: [C,O/g,KD,KH,KW]): the same gather (the input depths that reach
        each output depth) and relay.nn.conv2d_transpose with w as [C*KD, O/g, KH, KW].
    MaxPool / AveragePool(x: [N,C,D,H,W])
        ->  the 2-D pool of [N, C*D, H, W] over (KH, KW), then the 2-D pool of
            [N*C, 1, D, OH*OW] over (KD, 1). A window is a box, so its maximum is the
            maximum of per-axis maxima, and its average's divisor (cells inside the input,
            or inside the explicit padding) is the product of per-axis counts.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.ir import SSAValue

from accel.compiler.frontend.onnx.context import Node, Value
from accel.compiler.frontend.onnx.ops_tensor import reshaped
from accel.dialects import relay


def _depth_taps(n: Node, x: Value, taps: np.ndarray, x_dims: Sequence[int] | None = None) -> SSAValue:
    """x (input 0, or of shape `x_dims`, [N,C,D,H,W]) gathered along the depth by `taps`
    [OD, KD] (D: a zero slice): [N*OD, C*KD, H, W], each output depth's taps as channels
    (channel-major)."""
    nb, c, d, h, w = (int(s) for s in (x_dims or n.shape(0)))
    padded = n.emit(relay.PadOp(n.importer.materialize(x), pad_width=[0, 0, 0, 0, 0, 1, 0, 0, 0, 0]))
    od, kd = taps.shape
    gathered = n.emit(relay.TakeOp(padded, n.const_value(taps.astype(np.int64)), axis=2))
    moved = n.emit(relay.TransposeOp(gathered, axes=[0, 2, 1, 3, 4, 5]))
    return reshaped(n, moved, (nb * od, c * kd, h, w))


def _volume(n: Node, y: SSAValue, nb: int, od: int) -> SSAValue:
    """[N*OD, O, OH, OW] back to [N, O, OD, OH, OW]."""
    _, o, oh, ow = (int(s) for s in y.type.get_shape())
    y = reshaped(n, y, (nb, od, o, oh, ow))
    return n.emit(relay.TransposeOp(y, axes=[0, 2, 1, 3, 4]))


def conv3d(n: Node, x: Value, w: Value, strides: Sequence[int], dil: Sequence[int], begin: Sequence[int],
           end: Sequence[int], groups: int) -> SSAValue:
    nb, _, d, _, _ = (int(s) for s in n.shape(0))
    o, cg, kd, kh, kw = (int(s) for s in n.shape(1))
    od = (d + begin[0] + end[0] - dil[0] * (kd - 1) - 1) // strides[0] + 1
    if od < 1:
        raise n.error(f"the depth window does not fit: {d} input slices, kernel {kd}")
    src = np.arange(od)[:, None] * strides[0] + np.arange(kd)[None, :] * dil[0] - begin[0]
    taps = np.where((src >= 0) & (src < d), src, d)
    wt = n.importer.materialize(reshaped(n, w, (o, cg * kd, kh, kw)))
    y = n.emit(relay.Conv2DOp(_depth_taps(n, x, taps), wt, strides=strides[1:], dilation=dil[1:],
                              padding=(*begin[1:], *end[1:]), groups=groups))
    return _volume(n, y, nb, od)


def conv_transpose3d(n: Node, x: Value, w: Value, strides: Sequence[int], dil: Sequence[int], begin: Sequence[int],
                     end: Sequence[int], out_pad: Sequence[int], groups: int, x_dims: Sequence[int] | None = None,
                     w_dims: Sequence[int] | None = None) -> SSAValue:
    """Input 0 by input 1 (or values of shapes `x_dims` and `w_dims`: Col2Im)."""
    x_dims = tuple(x_dims or n.shape(0))
    nb, _, d, _, _ = (int(s) for s in x_dims)
    c, og, kd, kh, kw = (int(s) for s in (w_dims or n.shape(1)))
    od = relay.conv_transpose_out_dim(d, kd, strides[0], dil[0], begin[0], end[0], out_pad[0])
    if od < 1:
        raise n.error(f"the padding removes the whole output depth ({od})")
    # Output depth o takes input depth i through tap k where i * stride + k * dil - begin = o.
    reach = np.arange(od)[:, None] + begin[0] - np.arange(kd)[None, :] * dil[0]
    src = reach // strides[0]
    taps = np.where((reach >= 0) & (reach % strides[0] == 0) & (src < d), src, d)
    wt = n.emit(relay.TransposeOp(n.importer.materialize(w), axes=[0, 2, 1, 3, 4]))
    wt = n.importer.materialize(reshaped(n, wt, (c * kd, og, kh, kw)))
    y = n.emit(relay.Conv2DTransposeOp(_depth_taps(n, x, taps, x_dims), wt, strides=strides[1:], dilation=dil[1:],
                                       padding=(*begin[1:], *end[1:]), groups=groups, output_padding=out_pad[1:]))
    return _volume(n, y, nb, od)


def pool3d(n: Node, op_cls, x: Value, kernel: Sequence[int], strides: Sequence[int], dil: Sequence[int],
           begin: Sequence[int], end: Sequence[int], ceil_mode: bool, **extra) -> SSAValue:
    nb, c, d, h, w = (int(s) for s in n.shape(0))
    planes = n.emit(op_cls(n.importer.materialize(reshaped(n, x, (nb, c * d, h, w))), pool_size=kernel[1:],
                           strides=strides[1:], dilation=dil[1:], padding=(begin[1], begin[2], end[1], end[2]),
                           ceil_mode=ceil_mode, **extra))
    oh, ow = (int(s) for s in planes.type.get_shape()[2:])
    if kernel[0] == 1 and strides[0] == 1 and begin[0] == end[0] == 0:  # the depth pass is the identity
        return reshaped(n, planes, (nb, c, d, oh, ow))
    depth = reshaped(n, planes, (nb * c, 1, d, oh * ow))
    y = n.emit(op_cls(n.importer.materialize(depth), pool_size=[kernel[0], 1], strides=[strides[0], 1],
                      dilation=[dil[0], 1], padding=(begin[0], 0, end[0], 0), ceil_mode=ceil_mode, **extra))
    od = int(y.type.get_shape()[2])
    return reshaped(n, y, (nb, c, od, oh, ow))
