"""What a target accepts: the attribute limits of `[[ops]]` and `[[patterns]]` entries,
checked against real ops, and the predicates named in the description.

Each check returns None (accepted) or a short reason ("kernel 9x9 exceeds 7x7") that
annotate-target stores in `accel.reason`. Limits (None = no limit):

- `dtypes`: ops: every operand and result element type; patterns: every non-constant
  input and every result of the composite. Defaults to the target's `dtypes`.
- `max_kernel = [h, w]`: conv weight H x W, pool `pool_size`.
- `strides`, `dilations`: allowed [h, w] pairs of convs and pools.
- `groups`: conv grouping kinds: "one" (groups = 1), "depthwise" (groups = input
  channels), "grouped" (anything else).
- `max_channels`: convs and pools: input and output channels; dense/matmul: K and N.
- `broadcast = false`: binary elementwise operands must have equal shapes.
- `max_rank`: no operand or result of the op has a higher rank.

For a pattern the op limits apply to every matched op they concern.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, OpResult, SSAValue

from accel.compiler.targets import isa as isa_vocab
from accel.compiler.targets.c_api import COMMANDS, KIND_VARIANTS, command_of, dtype_name, encodes_kind
from accel.compiler.targets.schema import LIMIT_APPLIES_TO, Limits, OpSpec, PatternSpec, TargetDescription
from accel.dialects.relay import ConstantOp, RelayOp


def is_constant(value: SSAValue) -> bool:
    return isinstance(value, OpResult) and isinstance(value.op, ConstantOp)


def _shape(v: SSAValue) -> tuple[int, ...]:
    t = v.type
    return tuple(t.get_shape()) if isinstance(t, TensorType) else ()


def _pair(values: Sequence[int]) -> str:
    return "x".join(str(v) for v in values)


# --------------------------------------------------------------------------------------
# Facts about one op
# --------------------------------------------------------------------------------------


def kernel_of(op: Operation) -> tuple[int, int] | None:
    if op.name in ("relay.nn.conv2d", "relay.qnn.conv2d"):
        s = _shape(op.operands[1])
        return (s[2], s[3]) if len(s) == 4 else None
    if op.name in ("relay.nn.max_pool2d", "relay.nn.avg_pool2d") and isinstance(op, RelayOp):
        k = op.prop("pool_size")
        return (k[0], k[1]) if k is not None and len(k) == 2 else None
    return None


def groups_kind(op: Operation) -> tuple[str, int]:
    assert isinstance(op, RelayOp)
    groups = op.prop("groups")
    if groups == 1:
        return "one", groups
    c_in = _shape(op.operands[0])[1]
    return ("depthwise" if groups == c_in else "grouped"), groups


def channels_of(op: Operation) -> tuple[int, ...]:
    """Channel-like sizes limited by `max_channels` (see the module docstring)."""
    name = op.name
    if name in ("relay.nn.conv2d", "relay.qnn.conv2d"):
        return (_shape(op.operands[0])[1], _shape(op.operands[1])[0])
    if name in ("relay.nn.max_pool2d", "relay.nn.avg_pool2d", "relay.nn.global_avg_pool2d"):
        return (_shape(op.operands[0])[1],)
    if name in ("relay.nn.dense", "relay.qnn.dense"):
        return (_shape(op.operands[0])[-1], _shape(op.operands[1])[0])
    if name in ("relay.nn.matmul", "relay.nn.batch_matmul"):
        out = _shape(op.results[0])
        a = _shape(op.operands[0])
        ta = isinstance(op, RelayOp) and op.prop("transpose_a")
        k = a[-2] if ta else a[-1]
        return (k, out[-1])
    return ()


# --------------------------------------------------------------------------------------
# Limits
# --------------------------------------------------------------------------------------


def _applies(limit: str, op_name: str) -> bool:
    ops = LIMIT_APPLIES_TO[limit]
    return ops is None or op_name in ops


def check_op_limits(op: Operation, limits: Limits) -> str | None:
    """The first limit `op` violates, or None. Dtypes are checked by the caller."""
    name = op.name
    if limits.max_kernel is not None and _applies("max_kernel", name):
        k = kernel_of(op)
        if k is not None and (k[0] > limits.max_kernel[0] or k[1] > limits.max_kernel[1]):
            return f"kernel {_pair(k)} exceeds {_pair(limits.max_kernel)}"
    if isinstance(op, RelayOp):
        for limit, prop, what in (("strides", "strides", "strides"), ("dilations", "dilation", "dilation")):
            allowed = getattr(limits, limit)
            if allowed is None or not _applies(limit, name) or op.prop_kind(prop) is None:
                continue
            got = tuple(op.prop(prop))
            if got not in allowed:
                return f"{what} {_pair(got)} not supported (supported: {', '.join(_pair(a) for a in allowed)})"
    if limits.groups is not None and _applies("groups", name):
        kind, groups = groups_kind(op)
        if kind not in limits.groups:
            return f"{kind} convolution (groups={groups}) not supported (supported: {', '.join(limits.groups)})"
    if limits.max_channels is not None and _applies("max_channels", name):
        over = [c for c in channels_of(op) if c > limits.max_channels]
        if over:
            return f"{max(over)} channels exceed {limits.max_channels}"
    if limits.max_rank is not None:
        rank = max((len(_shape(v)) for v in (*op.operands, *op.results)), default=0)
        if rank > limits.max_rank:
            return f"rank {rank} exceeds {limits.max_rank}"
    if limits.broadcast is False and _applies("broadcast", name):
        a, b = op.operands[0].type, op.operands[1].type
        if _shape(op.operands[0]) != _shape(op.operands[1]):
            return f"broadcasting {a} with {b} not supported"
    return None


def _check_dtypes(values: Iterable[SSAValue], allowed: tuple[str, ...]) -> str | None:
    for v in values:
        name = dtype_name(v.type)
        if name not in allowed:
            return f"element type {name} not supported (supported: {', '.join(allowed)})"
    return None


def _predicate(fn, subject, target: TargetDescription, ref: str) -> str | None:
    try:
        verdict = fn(subject, target)
    except Exception as e:  # a predicate's bug must not become a traceback
        return f"predicate {ref} failed: {type(e).__name__}: {e}"
    if verdict is None:
        return None
    return str(verdict) or f"rejected by {ref}"


# --------------------------------------------------------------------------------------
# Entries
# --------------------------------------------------------------------------------------


def entry_encodes(spec: OpSpec, target: TargetDescription, command: str, kind: str | None, element: str) -> bool:
    """Whether `spec`'s call (or the target's instruction set) can say `kind` to command
    `accel.<command>`: a kind an op's properties choose (`c_api.KIND_VARIANTS`) need not
    be in every API that runs the op."""
    if kind is None:
        return True
    if target.isa is not None:
        name = isa_vocab.op_for(command, element, kind)
        if name is None:
            return False  # no operation of the vocabulary computes it
        encoded = target.isa.command(name)
        if kind == "lut" and (encoded is None or "table" not in encoded.fields):
            return False  # a lookup needs its table
        if encoded is None:
            return False  # an operation the instruction set may leave out (isa.CONVERSIONS)
        for field in encoded.fields if encoded is not None else ():
            form, enum = isa_vocab.FIELDS[field]
            if form == isa_vocab.ENUM and kind in isa_vocab.ENUMS[enum]:
                return kind in target.isa.enums.get(enum, {})
        return True
    return encodes_kind(spec.call, target.struct, kind)


def check_op_spec(op: Operation, spec: OpSpec, target: TargetDescription) -> str | None:
    values = [*op.operands, *op.results]
    reason = _check_dtypes(values, spec.limits.dtypes or target.dtypes)
    reason = reason or check_op_limits(op, spec.limits)
    command = command_of(op)
    if reason is None and command is not None and op.results:
        if not entry_encodes(spec, target, *command, command_element(op.results[0])):
            reason = (f"the '{command[1]}' kind has no code in {spec.key}'s API" if target.isa is None
                      else f"no command of its instruction set runs '{command[1]}'")
    if reason is None and spec.predicate_fn is not None:
        reason = _predicate(spec.predicate_fn, op, target, spec.predicate or "")
    return reason


def select_op(op: Operation, target: TargetDescription) -> OpSpec | str:
    """The first `[[ops]]` entry of `target` that accepts `op`, or why none does."""
    specs = target.ops_named(op.name)
    if not specs:
        return "op not supported"
    reasons: list[str] = []
    for spec in specs:
        reason = check_op_spec(op, spec, target)
        if reason is None:
            return spec
        if reason not in reasons:
            reasons.append(reason)
    return " | ".join(reasons)


def check_match_limits(
    spec: PatternSpec, target: TargetDescription, ops: Sequence[Operation], inputs: Sequence[SSAValue],
    results: Sequence[SSAValue],
) -> str | None:
    """Limits of a pattern on one match (`ops` matched, `inputs` bound, `results` of the
    root); the predicate is checked on the composite by the caller."""
    data_inputs = [v for v in inputs if not is_constant(v)]
    reason = _check_dtypes([*data_inputs, *results], spec.limits.dtypes or target.dtypes)
    if reason is not None:
        return reason
    for op in ops:
        reason = check_op_limits(op, spec.limits)
        if reason is not None:
            return reason
    return None


def check_pattern_predicate(composite: Operation, spec: PatternSpec, target: TargetDescription) -> str | None:
    if spec.predicate_fn is None:
        return None
    return _predicate(spec.predicate_fn, composite, target, spec.predicate or "")


def select(op: Operation, target: TargetDescription) -> OpSpec | PatternSpec | str:
    """How `target` runs `op`: the pattern of a composite `<target>.<name>`, the first
    accepting `[[ops]]` entry of a single op, or the reason it cannot. The lowering uses
    this to find the `c_function` of every op of an outlined region."""
    if op.name == "relay.composite":
        name = op.properties["pattern"].data  # type: ignore[attr-defined]
        spec = target.pattern(name)
        if spec is None or spec.composite != name:
            return f"composite {name} does not belong to {target.name}"
        return spec
    return select_op(op, target)


# -- the entry of a lowered command --------------------------------------------------------



def command_element(result: SSAValue) -> str:
    """The element type that picks a command's entry: its result's (an int8 command
    writes int8)."""
    return dtype_name(result.type.element_type)


def op_entry_for(command: str, kind: str | None, element: str, target: TargetDescription) -> OpSpec | None:
    """The first `[[ops]]` entry that runs an accel command (`accel.pool`, kind "max",
    element "i8"): an entry of a relay op of the command's kind whose dtypes take the
    element type. Used for the commands after the first of a composite that lowers to
    several."""
    wanted = (command.removeprefix("accel."), KIND_VARIANTS.get(kind, kind))
    for spec in target.ops:
        if COMMANDS.get(spec.op) == wanted and element in (spec.limits.dtypes or target.dtypes) and \
                entry_encodes(spec, target, wanted[0], kind, element):
            return spec
    return None
