"""Converters of recurrent networks and control flow (issue 11): LSTM and GRU unrolled over
their static sequence length into relay ops, and If with a condition known at import time.

LSTM (direction=forward, layout 0; X: [T, B, I], W: [1, 4H, I], R: [1, 4H, H], B: [1, 8H]):

    %x2  = relay.reshape %X {newshape = [T*B, I]}
    %xw  = relay.nn.dense %x2, %W0                 one matmul of every step's input
    %xwb = relay.nn.bias_add %xw, %Wb_plus_Rb      (Wb + Rb folded at import)
    per step t:
      %g  = relay.add (relay.strided_slice %xwb rows t*B..(t+1)*B), (relay.nn.dense %h, %R0)
      %i, %f = relay.sigmoid (relay.strided_slice %g ...)    %c~ = relay.tanh (...)
      %c  = %f * %c + %i * %c~      %o = relay.sigmoid (...)      %h = %o * relay.tanh %c
    Y   = relay.concatenate of the steps' %h       Y_h, Y_c = the last %h, %c

Why unrolled rather than one `relay.lstm` op: every matmul becomes a `relay.nn.dense` with a
constant weight, the form the partitioner already offloads (at a CRNN's sizes all of an
LSTM's MACs go to the npu), and the gates are slices and elementwise ops that it places by
its usual rules; no new op, kernel, interpreter rule or pattern is needed. The cost is IR
linear in T (sequence lengths are static here). A missing initial state is zero: its
recurrent matmul and forget product are left out of the first step.

Supported: directions forward / reverse / bidirectional, layout 0 and 1, optional B,
initial_h / initial_c, LSTM peepholes P, `clip`. Refused with one line: other activations
(and activation_alpha / beta), LSTM input_forget = 1, sequence_lens other than the full
length, W / R / B / P computed at run time (a graph input can be bound).

GRU is the same with gates z, r, h (linear_before_reset 0 and 1).

com.microsoft DynamicQuantizeLSTM (onnxruntime's `quantize_dynamic` of an LSTM) is the same
LSTM whose products quantize their left operand as they run (`DynamicallyQuantized`):

    %s = relay.qnn.dynamic_scale %x     %z = relay.qnn.dynamic_zero_point %x
    %q = relay.qnn.quantize %x, %s, %z
    %p = relay.multiply (relay.cast (relay.qnn.dense %q, %Wq, %z, %wz)), (relay.multiply %s, %w_scale)

If(cond) whose cond folds to a constant at import: the taken branch's nodes are imported
in place (they see the outer graph's values); the other branch is never looked at.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from accel.compiler.frontend.onnx.context import MICROSOFT_DOMAIN, Const, Node, converter
from accel.compiler.frontend.onnx.ops_composed import softplus_of
from accel.compiler.frontend.onnx.ops_dynamic_quant import dynamic_product
from accel.compiler.frontend.onnx.ops_tensor import reshaped
from accel.dialects import relay

_DIRECTIONS = {"forward": 1, "reverse": 1, "bidirectional": 2}


# --------------------------------------------------------------------------------------
# Helpers shared by LSTM and GRU
# --------------------------------------------------------------------------------------


class Unroller:
    """The parts of an ONNX recurrent node that LSTM and GRU share: checked attributes and
    inputs, the input projection of all steps, per-step slices and the outputs."""

    def __init__(self, n: Node, gates: int, activations: list[str], configurable: bool = False):
        self.n = n
        self.gates = gates
        self.clip = n.attr("clip")
        if self.clip is not None and not self.clip > 0:
            raise n.error(f"clip {self.clip} must be positive")
        if not configurable and (n.attr("activation_alpha") is not None or n.attr("activation_beta") is not None):
            raise n.error("attributes 'activation_alpha' and 'activation_beta' are not supported "
                          "(only the default activations are)")
        direction = n.string("direction", "forward")
        if direction not in _DIRECTIONS:
            raise n.error(f"direction '{direction}' is not one of forward, reverse, bidirectional")
        self.direction = direction
        self.num_dir = _DIRECTIONS[direction]
        given = n.attr("activations")
        if not configurable and given is not None and \
                [a.lower() for a in given] != [a.lower() for a in activations] * self.num_dir:
            raise n.error(f"activations {list(given)} are not supported (only the default "
                          f"{activations * self.num_dir})")
        self.activations = activation_functions(n, list(given) if given is not None else activations * self.num_dir,
                                                len(activations) * self.num_dir)
        """Per direction, per slot: (name, alpha, beta) (see `apply_activation`)."""
        self.layout = int(n.attr("layout", 0))
        if self.layout not in (0, 1):
            raise n.error(f"layout {self.layout} is not 0 or 1")
        x_dims = n.shape(0)
        if len(x_dims) != 3:
            raise n.error(f"X {list(x_dims)} must be rank 3")
        self.steps, self.batch = (x_dims[0], x_dims[1]) if self.layout == 0 else (x_dims[1], x_dims[0])
        self.input_size = x_dims[2]
        self.rows: SSAValue | None = None  # X as [T*B, I] (layout 1: [B*T, I]), shared by the directions
        self.dtype = n.dtype(0)
        self.w, self.r = self.weights()
        h = n.attr("hidden_size", self.r.shape[-1] if self.r.ndim == 3 else None)
        if h is None or h < 1:
            raise n.error(f"hidden_size {h} must be positive (or R [num_directions, {gates}H, H] must give it)")
        self.hidden = h = int(h)
        if self.w.shape != (self.num_dir, gates * h, self.input_size):
            raise n.error(f"W {list(self.w.shape)} must be [{self.num_dir}, {gates * h}, {self.input_size}]")
        if self.r.shape != (self.num_dir, gates * h, h):
            raise n.error(f"R {list(self.r.shape)} must be [{self.num_dir}, {gates * h}, {h}]")
        self.b = n.opt_const(3, "B")
        if self.b is None:
            self.b = np.zeros((self.num_dir, 2 * gates * h), self.dtype)
        if self.b.shape != (self.num_dir, 2 * gates * h):
            raise n.error(f"B {list(self.b.shape)} must be [{self.num_dir}, {2 * gates * h}]")
        lens = n.opt_const(4, "sequence_lens")
        if lens is not None and np.any(lens.reshape(-1) != self.steps):
            raise n.error(f"sequence_lens {lens.reshape(-1).tolist()} is not supported (only every batch entry "
                          f"at the full length {self.steps})")

    # -- inputs ------------------------------------------------------------------------

    def weights(self) -> tuple[np.ndarray, np.ndarray]:
        """W and R as ONNX's LSTM and GRU lay them out: [num_dir, gates*H, I], [num_dir, gates*H, H]."""
        return self.n.const(1, "W"), self.n.const(2, "R")

    def weight(self, arr: np.ndarray, d: int, index: int) -> SSAValue:
        """Direction `d` of a constant [num_dir, ...] input (one direction keeps the file tensor)."""
        v = self.n.value(index)
        part = reshaped(self.n, v, arr.shape[1:]) if self.num_dir == 1 else Const(np.ascontiguousarray(arr[d]))
        return self.n.importer.materialize(part)

    def initial_state(self, index: int, d: int) -> SSAValue | None:
        """Direction `d` of initial_h / initial_c as [B, H], or None when absent (zero)."""
        n = self.n
        if not n.has(index):
            return None
        want = (self.num_dir, self.batch, self.hidden) if self.layout == 0 else (self.batch, self.num_dir, self.hidden)
        if n.shape(index) != want:
            raise n.error(f"input {index} {list(n.shape(index))} must be {list(want)}")
        v = n.value(index)
        if isinstance(v, Const):
            arr = v.value[d] if self.layout == 0 else v.value[:, d]
            return n.importer.materialize(Const(np.ascontiguousarray(arr)))
        if self.num_dir > 1:
            v = n.emit(relay.StridedSliceOp(v, begin=[d], end=[d + 1], axes=[self.layout]))
        return n.emit(relay.ReshapeOp(v, newshape=(self.batch, self.hidden)))

    # -- steps -------------------------------------------------------------------------

    def input_projection(self, d: int, bias: np.ndarray) -> list[SSAValue]:
        """X W_dᵀ + bias of every step with one dense: the [B, gates*H] rows of each step t."""
        n, width = self.n, self.gates * self.hidden
        if self.rows is None:
            self.rows = n.emit(relay.ReshapeOp(n.input(0), newshape=(self.steps * self.batch, self.input_size)))
        xw = self.product(self.rows, self.weight(self.w, d, 1), d, 1)
        if np.any(bias):
            xw = n.emit(relay.BiasAddOp(xw, n.importer.materialize(Const(bias.astype(self.dtype))), axis=1))
        if self.layout == 0:  # rows t*B .. (t+1)*B
            return [n.emit(relay.StridedSliceOp(xw, begin=[t * self.batch], end=[(t + 1) * self.batch], axes=[0]))
                    for t in range(self.steps)]
        xw = n.emit(relay.ReshapeOp(xw, newshape=(self.batch, self.steps, width)))
        return [n.emit(relay.ReshapeOp(n.emit(relay.StridedSliceOp(xw, begin=[t], end=[t + 1], axes=[1])),
                                       newshape=(self.batch, width)))
                for t in range(self.steps)]

    def order(self, d: int) -> range:
        reverse = self.direction == "reverse" or d == 1
        return range(self.steps - 1, -1, -1) if reverse else range(self.steps)

    def gate(self, g: SSAValue, k: int, act: type[relay.UnaryOp] | None = None, count: int = 1) -> SSAValue:
        """Gates `k` .. `k + count` of the [B, gates*H] pre-activations `g`, through `act`."""
        h = self.hidden
        part = self.n.emit(relay.StridedSliceOp(g, begin=[k * h], end=[(k + count) * h], axes=[1]))
        return part if act is None else self.activate(part, act)

    def activate(self, x: SSAValue, act: type[relay.UnaryOp]) -> SSAValue:
        return self.n.emit(act(self.clipped(x)))

    def activate_slot(self, x: SSAValue, d: int, slot: int) -> SSAValue:
        """Activation `slot` of direction `d` (as the node's `activations` give it) of x, clipped."""
        per_dir = len(self.activations) // self.num_dir
        return apply_activation(self.n, self.clipped(x), self.activations[d * per_dir + slot], self.dtype)

    def clipped(self, x: SSAValue) -> SSAValue:
        """The `clip` attribute bounds every activation's input to [-clip, clip]."""
        if self.clip is None:
            return x
        return self.n.emit(relay.ClipOp(x, a_min=-float(self.clip), a_max=float(self.clip)))

    # -- outputs -----------------------------------------------------------------------

    def sequence_output(self, per_dir: list[list[SSAValue]]) -> SSAValue:
        """Y from every direction's per-step [B, H] states (in time order)."""
        n, h = self.n, self.hidden
        shape = (1, 1, self.batch, h) if self.layout == 0 else (self.batch, 1, 1, h)
        time_axis, dir_axis = (0, 1) if self.layout == 0 else (1, 2)
        dirs = []
        for states in per_dir:
            parts = [n.emit(relay.ReshapeOp(s, newshape=shape)) for s in states]
            dirs.append(parts[0] if len(parts) == 1 else n.emit(relay.ConcatenateOp(*parts, axis=time_axis)))
        return dirs[0] if len(dirs) == 1 else n.emit(relay.ConcatenateOp(*dirs, axis=dir_axis))

    def final_output(self, finals: list[SSAValue]) -> SSAValue:
        """Y_h / Y_c from every direction's last [B, H] state."""
        n = self.n
        shape = (1, self.batch, self.hidden) if self.layout == 0 else (self.batch, 1, self.hidden)
        parts = [n.emit(relay.ReshapeOp(s, newshape=shape)) for s in finals]
        return parts[0] if len(parts) == 1 else n.emit(relay.ConcatenateOp(*parts, axis=self.layout))

    def wants(self, i: int) -> bool:
        out = self.n.proto.output
        return i < len(out) and out[i] != ""

    def recurrence(self, h: SSAValue, r: SSAValue, d: int) -> SSAValue:
        """h Rᵀ: the per-step dense of the state with direction `d`'s recurrent weight."""
        return self.product(h, r, d, 2)

    def product(self, x: SSAValue, weight: SSAValue, d: int, index: int) -> SSAValue:
        """x weightᵀ, `weight` being direction `d` of input `index` (W: 1, R: 2)."""
        return self.n.emit(relay.DenseOp(x, weight))

    def add(self, a: SSAValue | None, b: SSAValue) -> SSAValue:
        return b if a is None else self.n.emit(relay.AddOp(a, b))

    def mul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.n.emit(relay.MultiplyOp(a, b))

    def peephole(self, pre: SSAValue, p: SSAValue | None, c: SSAValue | None) -> SSAValue:
        """pre + p ⊙ c (LSTM's peephole; nothing without weights or with a zero cell state)."""
        return pre if p is None or c is None else self.add(pre, self.mul(c, p))


_RNN_ATTRS = ("activation_alpha", "activation_beta", "activations", "clip", "direction", "hidden_size", "layout")


_ACTIVATIONS: dict[str, tuple[str, tuple[float, ...]]] = {
    "relu": ("Relu", ()), "tanh": ("Tanh", ()), "sigmoid": ("Sigmoid", ()),
    "affine": ("Affine", (1.0, 0.0)), "leakyrelu": ("LeakyRelu", (0.01,)),
    "thresholdedrelu": ("ThresholdedRelu", (1.0,)), "scaledtanh": ("ScaledTanh", (1.0, 1.0)),
    "hardsigmoid": ("HardSigmoid", (0.2, 0.5)), "elu": ("Elu", (1.0,)),
    "softsign": ("Softsign", ()), "softplus": ("Softplus", ()),
}
"""ONNX's recurrent activations (case-insensitive) and the defaults of the alpha (and
beta) they take."""


def activation_functions(n: Node, names: list[str], count: int) -> list[tuple[str, float, float]]:
    """The node's `count` activations as (name, alpha, beta): `activation_alpha` and
    `activation_beta` are consumed in order by the functions that take them (onnxruntime's
    reading); a function without a given value takes its default."""
    if len(names) != count:
        raise n.error(f"activations {names} must name {count} functions (one per gate function and direction)")
    alphas = [float(a) for a in n.attr("activation_alpha") or []]
    betas = [float(b) for b in n.attr("activation_beta") or []]
    out = []
    for name in names:
        if name.lower() not in _ACTIVATIONS:
            raise n.error(f"activation '{name}' is not one of {', '.join(v[0] for v in _ACTIVATIONS.values())}")
        canon, defaults = _ACTIVATIONS[name.lower()]
        alpha = alphas.pop(0) if len(defaults) > 0 and alphas else (defaults[0] if defaults else 0.0)
        beta = betas.pop(0) if len(defaults) > 1 and betas else (defaults[1] if len(defaults) > 1 else 0.0)
        out.append((canon, alpha, beta))
    return out


def apply_activation(n: Node, x: SSAValue, act: tuple[str, float, float], dtype: np.dtype) -> SSAValue:
    """One of `_ACTIVATIONS` on x, in relay ops."""
    name, alpha, beta = act

    def scalar(v: float) -> SSAValue:
        return n.const_value(np.array(v, dtype=dtype))

    def mul(a, b):
        return n.emit(relay.MultiplyOp(a, b))

    if name == "Relu":
        return n.emit(relay.ReluOp(x))
    if name == "Tanh":
        return n.emit(relay.TanhOp(x))
    if name == "Sigmoid":
        return n.emit(relay.SigmoidOp(x))
    if name == "Affine":
        return n.emit(relay.AddOp(mul(x, scalar(alpha)), scalar(beta)))
    if name == "LeakyRelu":
        return n.emit(relay.LeakyReluOp(x, alpha=alpha))
    if name == "ThresholdedRelu":
        return n.emit(relay.WhereOp(n.emit(relay.GreaterOp(x, scalar(alpha))), x, scalar(0.0)))
    if name == "ScaledTanh":
        return mul(scalar(alpha), n.emit(relay.TanhOp(mul(x, scalar(beta)))))
    if name == "HardSigmoid":
        return n.emit(relay.HardSigmoidOp(x, alpha=alpha, beta=beta))
    if name == "Elu":
        em1 = n.emit(relay.SubtractOp(n.emit(relay.ExpOp(x)), scalar(1.0)))
        return n.emit(relay.WhereOp(n.emit(relay.LessOp(x, scalar(0.0))), mul(scalar(alpha), em1), x))
    if name == "Softsign":
        return n.emit(relay.DivideOp(x, n.emit(relay.AddOp(scalar(1.0), n.emit(relay.AbsOp(x))))))
    assert name == "Softplus", name
    return softplus_of(n, x, dtype)


# --------------------------------------------------------------------------------------
# RNN
# --------------------------------------------------------------------------------------


@converter("RNN", attrs=_RNN_ATTRS)
def rnn(n: Node):
    """The simple (Elman) RNN: h' = f(x Wᵀ + h Rᵀ + Wb + Rb), f = Tanh unless `activations`
    names another (one per direction, with activation_alpha / beta where it takes them)."""
    u = Unroller(n, 1, ["Tanh"], configurable=True)
    hs, finals = [], []
    for d in range(u.num_dir):
        xw = u.input_projection(d, u.b[d, :u.hidden] + u.b[d, u.hidden:])
        r = u.weight(u.r, d, 2)
        h = u.initial_state(5, d)
        states: dict[int, SSAValue] = {}
        for t in u.order(d):
            pre = xw[t] if h is None else u.add(xw[t], u.recurrence(h, r, d))
            h = u.activate_slot(pre, d, 0)
            states[t] = h
        hs.append([states[t] for t in range(u.steps)])
        finals.append(h)
    return [u.sequence_output(hs) if u.wants(0) else None, u.final_output(finals) if u.wants(1) else None]


# --------------------------------------------------------------------------------------
# LSTM
# --------------------------------------------------------------------------------------

@converter("LSTM", attrs=(*_RNN_ATTRS, "input_forget"))
def lstm(n: Node):
    """Gates i, o, f, c (ONNX's order in W, R, B), peephole weights P = [p_i, p_o, p_f]:
    i = σ(x Wiᵀ + h Riᵀ + b_i + p_i c), f alike, c~ = tanh(x Wcᵀ + h Rcᵀ + b_c);
    c' = f c + i c~; o = σ(x Woᵀ + h Roᵀ + b_o + p_o c'); h' = o tanh(c')."""
    return unrolled_lstm(n, Unroller(n, 4, ["Sigmoid", "Tanh", "Tanh"]))


def unrolled_lstm(n: Node, u: Unroller) -> list[SSAValue | None]:
    """An LSTM's steps, its products made by `u`."""
    if n.attr("input_forget", 0):
        raise n.error("input_forget = 1 is not supported")
    hid = u.hidden
    peepholes = n.opt_const(7, "P")
    if peepholes is not None and peepholes.shape != (u.num_dir, 3 * hid):
        raise n.error(f"P {list(peepholes.shape)} must be [{u.num_dir}, {3 * hid}]")
    hs, finals_h, finals_c = [], [], []
    for d in range(u.num_dir):
        xw = u.input_projection(d, u.b[d, :4 * hid] + u.b[d, 4 * hid:])
        r = u.weight(u.r, d, 2)
        # P is [p_i, p_o, p_f]: i and f see the previous cell state, o the new one.
        p_i, p_o, p_f = ([n.importer.materialize(Const(np.ascontiguousarray(peepholes[d, k * hid:(k + 1) * hid])))
                          for k in range(3)] if peepholes is not None and np.any(peepholes[d]) else (None,) * 3)
        h, c = u.initial_state(5, d), u.initial_state(6, d)
        states: dict[int, SSAValue] = {}
        for t in u.order(d):
            g = xw[t] if h is None else u.add(xw[t], u.recurrence(h, r, d))
            i = u.activate(u.peephole(u.gate(g, 0), p_i, c), relay.SigmoidOp)
            f = u.activate(u.peephole(u.gate(g, 2), p_f, c), relay.SigmoidOp)
            cand = u.gate(g, 3, relay.TanhOp)
            c = u.add(None if c is None else u.mul(f, c), u.mul(i, cand))
            o = u.activate(u.peephole(u.gate(g, 1), p_o, c), relay.SigmoidOp)
            h = u.mul(o, n.emit(relay.TanhOp(c)))
            states[t] = h
        hs.append([states[t] for t in range(u.steps)])
        finals_h.append(h)
        finals_c.append(c)
    return [u.sequence_output(hs) if u.wants(0) else None,
            u.final_output(finals_h) if u.wants(1) else None,
            u.final_output(finals_c) if u.wants(2) else None]


class DynamicallyQuantized(Unroller):
    """com.microsoft DynamicQuantizeLSTM (onnxruntime's `quantize_dynamic`): W [num_dir, I,
    4H] and R [num_dir, H, 4H] in int8 or uint8 with a scale per direction (or per column)
    and one zero point per direction (inputs 8-11: W_scale, W_zero_point, R_scale,
    R_zero_point). Each product quantizes its left operand as it runs, as onnxruntime's
    quantized GEMM does (DynamicQuantizeLinear: uint8, from the operand's range; all steps'
    X at once, the state at each step), multiplies in integers and scales the int32 sums
    by the operand's scale times the weight's (computed in f32 first)."""

    def weights(self) -> tuple[np.ndarray, np.ndarray]:
        n = self.n
        arrays = []
        for i, name in ((1, "W"), (2, "R")):
            arr = n.const(i, name)
            if arr.ndim != 3 or arr.dtype not in (np.int8, np.uint8):
                raise n.error(f"{name} {list(arr.shape)} of {arr.dtype} must be a rank-3 int8 or uint8 tensor")
            arrays.append(np.swapaxes(arr, 1, 2))
        return arrays[0], arrays[1]

    def weight(self, arr: np.ndarray, d: int, index: int) -> SSAValue:
        return self.n.importer.materialize(Const(np.ascontiguousarray(arr[d])))

    def product(self, x: SSAValue, weight: SSAValue, d: int, index: int) -> SSAValue:
        n = self.n
        name, at = ("W", 8) if index == 1 else ("R", 10)  # the inputs {name}_scale, {name}_zero_point
        columns = self.gates * self.hidden
        scale = n.const(at, f"{name}_scale").astype(np.float32).reshape(self.num_dir, -1)
        zero = n.const(at + 1, f"{name}_zero_point").reshape(self.num_dir, -1)
        if scale.shape[1] not in (1, columns):
            raise n.error(f"{name}_scale must have one value per direction or per column ({columns})")
        dtype = (self.w if index == 1 else self.r).dtype
        if zero.dtype != dtype or np.any(zero != zero[:, :1]):
            raise n.error(f"{name}_zero_point must be one {dtype} value per direction")
        w_zero = n.const_value(np.ascontiguousarray(zero[d, 0]))
        w_scale = n.const_value(np.ascontiguousarray(scale[d] if scale.shape[1] > 1 else scale[d, 0]))
        return dynamic_product(n, x, weight, w_zero, w_scale)


@converter("DynamicQuantizeLSTM", attrs=(*_RNN_ATTRS, "input_forget"), domain=MICROSOFT_DOMAIN)
def dynamic_quantize_lstm(n: Node):
    """LSTM (see `lstm`) with dynamically quantized products (`DynamicallyQuantized`)."""
    return unrolled_lstm(n, DynamicallyQuantized(n, 4, ["Sigmoid", "Tanh", "Tanh"]))


# --------------------------------------------------------------------------------------
# GRU
# --------------------------------------------------------------------------------------


@converter("GRU", attrs=(*_RNN_ATTRS, "linear_before_reset"))
def gru(n: Node):
    """Gates z, r, h (ONNX's order): z = σ(x Wzᵀ + h Rzᵀ + b_z), r alike;
    linear_before_reset 0: h~ = tanh(x Whᵀ + (r h) Rhᵀ + Wb_h + Rb_h),
    linear_before_reset 1: h~ = tanh(x Whᵀ + Wb_h + r (h Rhᵀ + Rb_h));
    h' = (1 - z) h~ + z h, computed as h~ + z (h - h~)."""
    u = Unroller(n, 3, ["Sigmoid", "Tanh"])
    before_reset = bool(n.attr("linear_before_reset", 0))
    hid = u.hidden
    hs, finals = [], []
    for d in range(u.num_dir):
        wb, rb = u.b[d, :3 * hid], u.b[d, 3 * hid:]
        folded = wb + np.concatenate([rb[:2 * hid], np.zeros(hid, rb.dtype) if before_reset else rb[2 * hid:]])
        xw = u.input_projection(d, folded)
        r_all = u.r[d]
        if before_reset:
            r_full = u.weight(u.r, d, 2)
            rb_h = rb[2 * hid:].astype(u.dtype)
            rb_full = n.importer.materialize(Const(np.concatenate([np.zeros(2 * hid, u.dtype), rb_h])))
        else:
            r_zr = n.importer.materialize(Const(np.ascontiguousarray(r_all[:2 * hid])))
            r_h = n.importer.materialize(Const(np.ascontiguousarray(r_all[2 * hid:])))
        h = u.initial_state(5, d)
        states: dict[int, SSAValue] = {}
        for t in u.order(d):
            x_zr, x_h = xw[t], u.gate(xw[t], 2)
            if h is None:  # zero state: no recurrent products
                z, r = u.gate(x_zr, 0, relay.SigmoidOp), u.gate(x_zr, 1, relay.SigmoidOp)
                lin = x_h
                if before_reset and np.any(rb_h):
                    lin = u.add(x_h, u.mul(r, n.importer.materialize(Const(rb_h))))
            elif before_reset:
                hr = n.emit(relay.BiasAddOp(u.recurrence(h, r_full, d), rb_full, axis=1)) if np.any(rb_h) \
                    else u.recurrence(h, r_full, d)
                g = u.add(x_zr, hr)
                z, r = u.gate(g, 0, relay.SigmoidOp), u.gate(g, 1, relay.SigmoidOp)
                lin = u.add(x_h, u.mul(r, u.gate(hr, 2)))
            else:
                g = u.add(u.gate(x_zr, 0, None, 2), u.recurrence(h, r_zr, d))
                z, r = u.gate(g, 0, relay.SigmoidOp), u.gate(g, 1, relay.SigmoidOp)
                lin = u.add(x_h, u.recurrence(u.mul(r, h), r_h, d))
            cand = n.emit(relay.TanhOp(u.clipped(lin)))
            if h is None:
                h = n.emit(relay.SubtractOp(cand, u.mul(z, cand)))
            else:
                h = u.add(cand, u.mul(z, n.emit(relay.SubtractOp(h, cand))))
            states[t] = h
        hs.append([states[t] for t in range(u.steps)])
        finals.append(h)
    return [u.sequence_output(hs) if u.wants(0) else None, u.final_output(finals) if u.wants(1) else None]


# --------------------------------------------------------------------------------------
# If
# --------------------------------------------------------------------------------------


@converter("If", attrs=("then_branch", "else_branch"))
def if_(n: Node):
    """The branch the constant condition takes, imported in place: its initializers become
    constants, its nodes are converted like the outer graph's (they see its values), and
    its outputs are the If's."""
    if not n.is_const(0) and n.proto.input[0] not in n.importer.runtime_inputs:
        raise n.error(f"the condition ('{n.proto.input[0]}') is computed at run time; only an If whose "
                      "condition is known at import time is supported")
    cond = n.const(0, "the condition")  # a graph input: the error says to bind it
    if cond.size != 1:
        raise n.error(f"the condition has {cond.size} elements, not one")
    taken = "then_branch" if bool(cond.reshape(-1)[0]) else "else_branch"
    branch = n.attr(taken)
    if branch is None:
        raise n.error(f"attribute '{taken}' is missing")
    if len(branch.output) != len(n.proto.output):
        raise n.error(f"{taken} has {len(branch.output)} outputs, the node {len(n.proto.output)}")
    return n.importer.run_subgraph(n.proto, branch, {})
