"""The `relay` dialect: a Relay-like tensor graph IR (NCHW / OIHW), float and quantized.

Op names mirror TVM Relay (`relay.nn.conv2d`, `relay.qnn.requantize`, ...). Every op keeps
its attributes as properties with TVM's defaults; results are builtin `tensor<...>` types.
Shape and type inference (`infer_result_types`) is shared by the verifier and by the
Python constructors, so building an op never needs its result type spelled out.

Custom syntax (properties that equal their default are not printed):

    %y = relay.nn.conv2d %x, %w {strides = [2, 2], padding = [1, 1, 1, 1]}
           : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x4x4xf32>
    %r = relay.nn.relu %y : tensor<1x8x4x4xf32>
    %c = relay.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %k = relay.constant external "conv1.weight" : tensor<8x3x3x3xf32>

Property values are plain literals: integer lists `[1, 1]`, integers, `true`/`false`,
strings, and floats written as `0.5`, `1.0e-05`, `inf`, `-inf` or `nan` (each prints back
to the same value). Errors in the dictionary (unknown property, wrong kind, repeated
entry) are parse errors located at the entry.

`external` constants name a tensor in the weights file given by the enclosing module's
`relay.weights` attribute (an ONNX model or an `.npz` archive), so large weights never
appear in the IR text. Discardable attributes (e.g. `accel.target`) share the brace
dictionary with the properties.
"""

from __future__ import annotations

import functools

import math
import re
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from xdsl.dialects.builtin import (
    ArrayAttr,
    BoolAttr,
    BytesAttr,
    DenseArrayBase,
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    Float4E2M1FNType,
    Float8E4M3FNType,
    Float8E4M3FNUZType,
    Float8E5M2FNUZType,
    Float8E5M2Type,
    Float8E8M0FNUType,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    Signedness,
    StringAttr,
    TensorType,
    UnitAttr,
    f64,
    i1,
    i64,
    UNKNOWN_LOC,  # passed to the ops built here: xDSL's default imports it per op (a tenth of a build)
)
from xdsl.ir import Attribute, Dialect, Operation, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    VarOperandDef,
    VariadicDef,
    VarResultDef,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsolatedFromAbove, IsTerminator, Pure
from xdsl.utils.exceptions import VerifyException

from accel.dialects.memo import by_identity

# --------------------------------------------------------------------------------------
# Element types
# --------------------------------------------------------------------------------------

FLOAT_TYPES = (Float16Type, BFloat16Type, Float32Type, Float64Type)
"""The float types relay computes on (f16 and bf16 in float32 on the host)."""
FLOAT8_TYPES = (Float8E4M3FNType, Float8E4M3FNUZType, Float8E5M2Type, Float8E5M2FNUZType)
STORAGE_FLOAT_TYPES = (*FLOAT8_TYPES, Float8E8M0FNUType, Float4E2M1FNType)
CAST_ROUND_MODES = ("up", "down", "nearest")
"""relay.cast's rounding modes into f8E8M0FNU (ONNX Cast's `round_mode`)."""
"""Storage-only float types: cast, quantize/dequantize and data movement."""


def is_float(t: Attribute) -> bool:
    return isinstance(t, FLOAT_TYPES)


def is_int(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.width.data > 1


def is_int8(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.width.data == 8


def is_int32(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.width.data == 32


def tensor(shape: Sequence[int], element_type: Attribute) -> TensorType:
    """A tensor type, built once per distinct type (construction verifies it)."""
    return _tensor(tuple(shape), element_type)


@functools.cache
def _tensor(shape: tuple[int, ...], element_type: Attribute) -> TensorType:
    return TensorType(element_type, list(shape))


def shape_of(t: Attribute) -> tuple[int, ...]:
    assert isinstance(t, TensorType)
    return tuple(t.get_shape())


def numel(shape: Sequence[int]) -> int:
    return math.prod(shape)


def normalize_axis(axis: int, rank: int, what: str = "axis") -> int:
    if not -rank <= axis < max(rank, 1):
        raise VerifyException(f"{what} {axis} is out of range for rank {rank}")
    return axis + rank if axis < 0 else axis


def broadcast_shapes(a: Sequence[int], b: Sequence[int], names=("lhs", "rhs")) -> tuple[int, ...]:
    """numpy broadcasting of two static shapes."""
    rank = max(len(a), len(b))
    pa = (1,) * (rank - len(a)) + tuple(a)
    pb = (1,) * (rank - len(b)) + tuple(b)
    out = []
    for i, (x, y) in enumerate(zip(pa, pb)):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            raise VerifyException(
                f"operands '{names[0]}' {list(a)} and '{names[1]}' {list(b)} are not "
                f"broadcast-compatible (dimension {i}: {x} vs {y})"
            )
    return tuple(out)


# --------------------------------------------------------------------------------------
# Property kinds: how a property is stored, defaulted, printed and parsed.
# --------------------------------------------------------------------------------------


# Attributes are immutable and xDSL verifies an attribute's parameters on construction
# (a `DenseArrayBase` converts and checks every element): `to_attr` builds each distinct
# value once. Floats are keyed by their bits (0.0 and -0.0 are equal as keys).
_ATTR_CACHE = 1 << 16


@functools.lru_cache(maxsize=_ATTR_CACHE)
def _int_attr(value: int) -> IntegerAttr:
    return IntegerAttr(value, i64)


@functools.lru_cache(maxsize=_ATTR_CACHE)
def _ints_attr(values: tuple[int, ...]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, list(values))


@functools.lru_cache(maxsize=_ATTR_CACHE)
def _float_attr(bits: bytes, value: float) -> FloatAttr:
    return FloatAttr(value, f64)


def float_array_attr(value: Sequence[float]) -> DenseArrayBase:
    """`array<f64: ...>` of `value`, built once per distinct list."""
    values = tuple(float(v) for v in value)
    return _floats_attr(struct.pack(f"<{len(values)}d", *values), values)


@functools.lru_cache(maxsize=_ATTR_CACHE)
def _floats_attr(bits: bytes, values: tuple[float, ...]) -> DenseArrayBase:
    return DenseArrayBase.from_list(f64, list(values))


_ATTRIBUTE_TYPES: dict[type, bool] = {}


def is_attribute(value: object) -> bool:
    """`isinstance(value, Attribute)` answered once per type (`Attribute` is an ABC: its
    `isinstance` costs ~1 us, and property values are checked by the thousand)."""
    t = type(value)
    answer = _ATTRIBUTE_TYPES.get(t)
    if answer is None:
        answer = _ATTRIBUTE_TYPES[t] = issubclass(t, Attribute)
    return answer


_BOOL_ATTRS = {False: IntegerAttr(0, i1), True: IntegerAttr(1, i1)}


@functools.lru_cache(maxsize=_ATTR_CACHE)
def _str_attr(value: str) -> StringAttr:
    return StringAttr(value)


@dataclass(frozen=True)
class PropKind:
    """One property of a relay op. `default is None` means: required (or optional
    when `optional` is set, e.g. `relay.transpose` without `axes`)."""

    name: str
    default: Any = None
    optional: bool = False

    def to_attr(self, value: Any) -> Attribute:
        raise NotImplementedError

    def to_python(self, attr: Attribute) -> Any:
        raise NotImplementedError

    def from_parsed(self, attr: Attribute) -> Attribute | None:
        """Convert an attribute from the custom syntax; None if it has the wrong kind."""
        raise NotImplementedError

    def parse_value(self, parser: Parser) -> Attribute:
        """Parse a value in the custom syntax (checked by `from_parsed` afterwards)."""
        return parser.parse_attribute()

    def is_stored_form(self, attr: Attribute) -> bool:
        """A cheap check that `attr` is what `to_attr` makes (the verifier's fast path)."""
        return False

    def format(self, attr: Attribute) -> str:
        raise NotImplementedError

    def expected(self) -> str:
        raise NotImplementedError

    def definition(self):
        if self.default is not None:
            return prop_def(self.constraint(), default_value=self.to_attr(self.default))
        if self.optional:
            return opt_prop_def(self.constraint())
        return prop_def(self.constraint())


@by_identity
def int_values(attr: DenseArrayBase) -> tuple[int, ...]:
    """An integer array property's elements, unpacked from its bytes once per attribute
    (the passes ask a tile's strides and padding per op, again and again)."""
    return tuple(attr.get_values())


@by_identity
def float_values(attr: DenseArrayBase) -> tuple[float, ...]:
    """A float array property's elements, as Python floats, once per attribute."""
    return tuple(float(v) for v in attr.get_values())


@functools.cache
def kinds_by_name(cls: type) -> dict[str, PropKind]:
    """The property kinds an op class declares (`PROPS`), by name."""
    return {k.name: k for k in cls.PROPS}


class Ints(PropKind):
    def constraint(self):
        return DenseArrayBase.constr(i64)

    def is_stored_form(self, attr):
        return isinstance(attr, DenseArrayBase) and attr.elt_type == i64

    def to_attr(self, value):
        return _ints_attr(tuple(int(v) for v in value))

    def to_python(self, attr):
        return int_values(attr)

    def from_parsed(self, attr):
        if isinstance(attr, DenseArrayBase) and attr.elt_type == i64:
            return attr
        if isinstance(attr, ArrayAttr) and all(
            isinstance(a, IntegerAttr) and isinstance(a.type, IntegerType) and a.type.width.data > 1
            for a in attr.data
        ):
            return self.to_attr([a.value.data for a in attr.data])
        return None

    def format(self, attr):
        return "[" + ", ".join(str(v) for v in attr.get_values()) + "]"

    def expected(self):
        return "a list of integers like [1, 1]"


class Int(PropKind):
    def constraint(self):
        return IntegerAttr.constr(type=i64)

    def is_stored_form(self, attr):
        return isinstance(attr, IntegerAttr) and attr.type == i64

    def to_attr(self, value):
        return _int_attr(int(value))

    def to_python(self, attr):
        return attr.value.data

    def from_parsed(self, attr):
        if isinstance(attr, IntegerAttr) and isinstance(attr.type, IntegerType) and attr.type.width.data > 1:
            return self.to_attr(attr.value.data)
        return None

    def parse_value(self, parser):
        """An integer literal, optionally typed (`: i64`)."""
        value = parser.parse_optional_integer(allow_boolean=False)
        if value is None:
            return parser.parse_attribute()
        if parser.parse_optional_punctuation(":") is not None:
            type_pos = parser.pos
            if not is_int(parser.parse_type()):
                parser.raise_error("expected an integer type", type_pos, parser.pos)
        return self.to_attr(value)

    def format(self, attr):
        return str(attr.value.data)

    def expected(self):
        return "an integer"


class Float(PropKind):
    def constraint(self):
        return FloatAttr.constr(f64)

    def is_stored_form(self, attr):
        return isinstance(attr, FloatAttr) and attr.type == f64

    def to_attr(self, value):
        value = float(value)
        return _float_attr(struct.pack("<d", value), value)

    def to_python(self, attr):
        return float(attr.value.data)

    def from_parsed(self, attr):
        if isinstance(attr, FloatAttr):
            return self.to_attr(attr.value.data)
        if isinstance(attr, IntegerAttr) and isinstance(attr.type, IntegerType) and attr.type.width.data > 1:
            return self.to_attr(attr.value.data)
        return None

    def parse_value(self, parser):
        """A float or integer literal, `inf`, `-inf`, `nan`, or an MLIR hex literal
        (the f64 bit pattern, e.g. 0x7FF0000000000000), optionally typed (`: f64`)."""
        negative = parser.parse_optional_punctuation("-") is not None
        special = parser.parse_optional_keyword_in(("inf", "nan"))
        if special is not None:
            value = math.inf if special == "inf" else math.nan
        else:
            start = parser.pos
            is_hex = _at_hex_literal(parser)
            number = parser.parse_optional_number()
            if number is None:
                if negative:
                    parser.raise_error("expected a number after '-'")
                return parser.parse_attribute()
            if is_hex and number >= 1 << 64:
                parser.raise_error("a hex float literal has at most 16 digits (the f64 bit pattern)", start, parser.pos)
            value = struct.unpack("<d", struct.pack("<Q", number))[0] if is_hex else float(number)
            exponent_pos = parser.pos
            if re.fullmatch(r"[eE][0-9]*", parser.parse_optional_identifier() or "-"):
                parser.raise_error("a float needs a '.' before its exponent (write 1.0e-3, not 1e-3)", exponent_pos)
            if parser.parse_optional_punctuation(":") is not None:
                type_pos = parser.pos
                if not is_float(parser.parse_type()):
                    parser.raise_error("expected a float type", type_pos, parser.pos)
        return FloatAttr(-value if negative else value, f64)

    def format(self, attr):
        return format_float(float(attr.value.data))

    def expected(self):
        return "a float"


class Floats(PropKind):
    def constraint(self):
        return DenseArrayBase.constr(f64)

    def is_stored_form(self, attr):
        return isinstance(attr, DenseArrayBase) and attr.elt_type == f64

    def to_attr(self, value):
        return float_array_attr(value)

    def to_python(self, attr):
        return float_values(attr)

    def from_parsed(self, attr):
        if isinstance(attr, DenseArrayBase) and attr.elt_type == f64:
            return attr
        if isinstance(attr, ArrayAttr) and all(
            isinstance(a, FloatAttr) or (isinstance(a, IntegerAttr) and isinstance(a.type, IntegerType)
                                         and a.type.width.data > 1)
            for a in attr.data
        ):
            return self.to_attr([a.value.data for a in attr.data])
        return None

    def format(self, attr):
        return "[" + ", ".join(format_float(float(v)) for v in attr.get_values()) + "]"

    def expected(self):
        return "a list of floats like [0.0, 1.0]"


class Bool(PropKind):
    def constraint(self):
        return BoolAttr

    def is_stored_form(self, attr):
        return isinstance(attr, IntegerAttr) and attr.type == i1

    def to_attr(self, value):
        return _BOOL_ATTRS[bool(value)]

    def to_python(self, attr):
        return bool(attr.value.data)

    def from_parsed(self, attr):
        if isinstance(attr, IntegerAttr) and attr.type == i1:
            return attr
        return None

    def parse_value(self, parser):
        value = parser.parse_optional_boolean()
        return parser.parse_attribute() if value is None else self.to_attr(value)

    def format(self, attr):
        return "true" if attr.value.data else "false"

    def expected(self):
        return "true or false"


@dataclass(frozen=True)
class Str(PropKind):
    choices: tuple[str, ...] = ()

    def constraint(self):
        return StringAttr

    def is_stored_form(self, attr):
        return isinstance(attr, StringAttr) and (not self.choices or attr.data in self.choices)

    def to_attr(self, value):
        return _str_attr(str(value))

    def to_python(self, attr):
        return attr.data

    def from_parsed(self, attr):
        if isinstance(attr, StringAttr) and (not self.choices or attr.data in self.choices):
            return attr
        return None

    def parse_value(self, parser):
        value = parser.parse_optional_str_literal()
        return parser.parse_attribute() if value is None else StringAttr(value)

    def format(self, attr):
        return str(attr)  # quoted and escaped

    def expected(self):
        if self.choices:
            return "one of " + ", ".join(f'"{c}"' for c in self.choices)
        return "a string"


def format_float(v: float) -> str:
    """The shortest text that parses back to exactly `v` (MLIR float literals need a '.')."""
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    text = repr(v)
    if "." not in text:
        mantissa, _, exponent = text.partition("e")
        text = mantissa + ".0" + ("e" + exponent if exponent else "")
    return text


def declare_props(cls):
    """Mark upper-case class constants as ClassVars (as IRDL wants) and declare the
    properties listed in `PROPS`; then `irdl_op_definition` can define the op. Shared by
    the relay and accel op decorators."""
    for klass in cls.__mro__:
        own = klass.__dict__.get("__annotations__", {})
        consts = {n: ClassVar for n in klass.__dict__ if n.isupper() and n not in own}
        if consts and issubclass(klass, IRDLOperation) and klass is not IRDLOperation:
            klass.__annotations__ = {**own, **consts}
    for kind in cls.PROPS:
        setattr(cls, kind.name, kind.definition())
    return cls


def relay_op(cls):
    """Class decorator: declare the properties listed in `PROPS`, then define the op."""
    cls = irdl_op_definition(declare_props(cls))
    # IRDL's own property check reports only the bad value ("2 : i64 should be of base
    # attribute array"); check the properties first so the message names the property.
    checked = cls.verify_

    def verify_(self: RelayOp) -> None:
        self.verify_properties()
        checked(self)

    # What this verifier is made of, for a caller that runs the same checks faster
    # (compiler/diagnostics.py FastCheck): `pre_check`, then IRDL's generated `checked`.
    verify_.pre_check = cls.verify_properties  # type: ignore[attr-defined]
    verify_.checked = checked  # type: ignore[attr-defined]
    cls.verify_ = verify_
    return cls


# --------------------------------------------------------------------------------------
# Common base: construction with inference, custom syntax, verification
# --------------------------------------------------------------------------------------


@functools.cache
def _fixed_counts(cls: type[IRDLOperation]) -> tuple[int, int] | None:
    """(operands, results) of an op with neither variadic operands or results, nor
    regions, successors or segment-size options; None otherwise."""
    d = cls.get_irdl_definition()
    if d.options or d.regions or d.successors or any(isinstance(x, VariadicDef) for _, x in (*d.operands, *d.results)):
        return None
    return len(d.operands), len(d.results)


class RelayOp(IRDLOperation):
    """Base of all relay graph ops.

    Subclasses declare `PROPS` and implement `infer(operand_types, props)` returning the
    result types; `props` maps property names to Python values.
    """

    PROPS: ClassVar[tuple[PropKind, ...]] = ()
    # Print `: T` instead of `: (T) -> T` when all operand and result types are equal.
    SAME_TYPE_SYNTAX: ClassVar[bool] = False

    traits = traits_def(Pure())

    def __init__(
        self,
        *operands: SSAValue | Operation,
        result_types: Sequence[Attribute] | None = None,
        attributes: dict[str, Attribute] | None = None,
        **props: Any,
    ):
        values = [SSAValue.get(o) for o in operands]
        properties = self.props_to_attrs(props)
        if result_types is None:
            py_props = self.props_with_defaults(props)
            result_types = self.infer([v.type for v in values], py_props)
        counts = _fixed_counts(type(self))
        if counts is not None and counts == (len(values), len(result_types)) and not attributes:
            # What IRDL's builder makes for an op of fixed operands and results, without
            # its per-op checks (verify() checks the op; a wrong count takes the builder).
            Operation.__init__(self, location=UNKNOWN_LOC, operands=values, result_types=list(result_types), properties=properties)
            return
        super().__init__(
            operands=self.group_operands(values),
            result_types=self.group_results(list(result_types)),
            properties=properties,
            attributes=attributes or {},
        )

    # -- hooks -------------------------------------------------------------------------

    @classmethod
    def group_operands(cls, values: list[SSAValue]) -> Sequence[Any]:
        return values

    @classmethod
    def group_results(cls, types: list[Attribute]) -> Sequence[Any]:
        return types

    @classmethod
    def infer(cls, operand_types: Sequence[Attribute], props: dict[str, Any]) -> list[Attribute]:
        raise NotImplementedError

    # -- properties --------------------------------------------------------------------

    @classmethod
    def prop_kind(cls, name: str) -> PropKind | None:
        return kinds_by_name(cls).get(name)

    @classmethod
    def props_to_attrs(cls, props: dict[str, Any]) -> dict[str, Attribute]:
        out: dict[str, Attribute] = {}
        for name, value in props.items():
            kind = cls.prop_kind(name)
            if kind is None:
                raise TypeError(f"{cls.name} has no property '{name}'")
            if value is None:
                continue
            out[name] = value if is_attribute(value) else kind.to_attr(value)
        return cls.complete_props(out)

    @classmethod
    def complete_props(cls, props: dict[str, Attribute]) -> dict[str, Attribute]:
        """`props` with defaults filled in, in declaration order (a stable generic form)."""
        out: dict[str, Attribute] = {}
        for kind in cls.PROPS:
            if kind.name in props:
                out[kind.name] = props[kind.name]
            elif kind.default is not None:
                out[kind.name] = kind.to_attr(kind.default)
        return out

    @classmethod
    def props_with_defaults(cls, props: dict[str, Any]) -> dict[str, Any]:
        out = {}
        for kind in cls.PROPS:
            v = props.get(kind.name)
            if is_attribute(v):
                v = kind.to_python(v)
            if v is None:
                v = kind.default
            out[kind.name] = v
        return out

    def prop(self, name: str) -> Any:
        """The Python value of a property (its default when absent)."""
        kind = self.prop_kind(name)
        assert kind is not None, name
        attr = self.properties.get(name)
        if attr is None:
            return kind.default
        return kind.to_python(attr)

    def py_props(self) -> dict[str, Any]:
        return {k.name: self.prop(k.name) for k in self.PROPS}

    # -- verification ------------------------------------------------------------------

    def verify_properties(self) -> None:
        """Every declared property present (unless optional) and of its kind."""
        for kind in self.PROPS:
            attr = self.properties.get(kind.name)
            if attr is None:
                if kind.default is None and not kind.optional:
                    raise VerifyException(f"missing property '{kind.name}' ({kind.expected()})")
                continue
            if kind.is_stored_form(attr):
                continue
            converted = kind.from_parsed(attr)
            if converted != attr:
                stored = f" (stored as {converted})" if converted is not None else ""
                raise VerifyException(f"property '{kind.name}' must be {kind.expected()}{stored}, got {attr}")

    def verify_(self) -> None:
        inferred = self.infer([o.type for o in self.operands], self.py_props())
        actual = [r.type for r in self.results]
        if len(inferred) != len(actual):
            raise VerifyException(f"expected {len(inferred)} results, got {len(actual)}")
        for i, (want, got) in enumerate(zip(inferred, actual)):
            if want != got:
                which = "result" if len(actual) == 1 else f"result #{i}"
                raise VerifyException(f"{which} type {got} does not match the inferred type {want}")

    # -- custom syntax -----------------------------------------------------------------

    def print(self, printer: Printer) -> None:
        if self.operands:
            printer.print_string(" ")
            printer.print_list(self.operands, printer.print_operand)
        self.print_prop_dict(printer)
        self.print_types(printer)

    def print_prop_dict(self, printer: Printer) -> None:
        entries: list[tuple[str, Any]] = []
        for kind in self.PROPS:
            attr = self.properties.get(kind.name)
            if attr is None:
                continue
            if kind.default is not None and attr == kind.to_attr(kind.default):
                continue
            entries.append((kind.name, kind.format(attr) if kind.from_parsed(attr) is not None else attr))
        n_props = len(entries)
        for name, attr in self.attributes.items():
            entries.append((name, attr))
        if not entries:
            return
        printer.print_string(" {")
        for i, (name, value) in enumerate(entries):
            if i:
                printer.print_string(", ")
            if i >= n_props and "." not in name:
                printer.print_string_literal(name)  # a discardable attribute, not a property
            else:
                printer.print_identifier_or_string_literal(name)
            if isinstance(value, UnitAttr):
                continue
            printer.print_string(" = ")
            if isinstance(value, str):
                printer.print_string(value)
            else:
                printer.print_attribute(value)
        printer.print_string("}")

    def print_types(self, printer: Printer) -> None:
        printer.print_string(" : ")
        in_types = [o.type for o in self.operands]
        out_types = [r.type for r in self.results]
        if self.SAME_TYPE_SYNTAX and len(out_types) == 1 and all(t == out_types[0] for t in in_types):
            printer.print_attribute(out_types[0])
            return
        printer.print_string("(")
        printer.print_list(in_types, printer.print_attribute)
        printer.print_string(") -> ")
        if len(out_types) == 1:
            printer.print_attribute(out_types[0])
        else:
            printer.print_string("(")
            printer.print_list(out_types, printer.print_attribute)
            printer.print_string(")")

    @classmethod
    def parse_prop_dict(cls, parser: Parser) -> tuple[dict[str, Attribute], dict[str, Attribute]]:
        """`{name = value, ...}`: properties (parsed by their kind) and discardable
        attributes (dotted names such as `accel.target`, or any quoted name). Errors
        point at the entry."""
        props: dict[str, Attribute] = {}
        attrs: dict[str, Attribute] = {}
        if parser.parse_optional_punctuation("{") is not None and parser.parse_optional_punctuation("}") is None:
            while True:
                name_pos = parser.pos
                # A quoted name is always a discardable attribute (how names that could
                # be mistaken for a property print).
                quoted = parser.parse_optional_str_literal()
                name = quoted if quoted is not None else parser.parse_identifier(" as a property name")
                name_end = parser.pos
                if name in props or name in attrs:
                    parser.raise_error(f"'{name}' is given twice", name_pos, name_end)
                kind = cls.prop_kind(name) if quoted is None else None
                if kind is None and quoted is None and "." not in name:
                    known = f" (properties: {', '.join(k.name for k in cls.PROPS)})" if cls.PROPS else ""
                    parser.raise_error(f"'{cls.name}' has no property '{name}'{known}", name_pos, name_end)
                if kind is None:
                    has_value = parser.parse_optional_punctuation("=") is not None
                    attrs[name] = parser.parse_attribute() if has_value else UnitAttr()
                else:
                    parser.parse_punctuation("=", f" after property '{name}'")
                    value_pos = parser.pos
                    raw = kind.parse_value(parser)
                    value = kind.from_parsed(raw)
                    if value is None:
                        parser.raise_error(
                            f"property '{name}' of '{cls.name}' must be {kind.expected()}, got {raw}",
                            value_pos,
                            parser.pos,
                        )
                    props[name] = value
                if parser.parse_optional_punctuation(",") is None:
                    break
            parser.parse_punctuation("}", " to close the property dictionary")
        return cls.complete_props(props), attrs

    @classmethod
    def arity(cls) -> tuple[int | None, int | None]:
        """Fixed numbers of operands and results (None where variadic)."""
        op_def = cls.get_irdl_definition()
        n_in = None if any(isinstance(d, VarOperandDef) for _, d in op_def.operands) else len(op_def.operands)
        n_out = None if any(isinstance(d, VarResultDef) for _, d in op_def.results) else len(op_def.results)
        return n_in, n_out

    @classmethod
    def parse_types(cls, parser: Parser, n_operands: int) -> tuple[list[Attribute], list[Attribute]]:
        parser.parse_punctuation(":")
        if parser.parse_optional_punctuation("(") is not None:
            ins: list[Attribute] = []
            if parser.parse_optional_punctuation(")") is None:
                ins = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
                parser.parse_punctuation(")")
            parser.parse_punctuation("->")
            if parser.parse_optional_punctuation("(") is not None:
                outs = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
                parser.parse_punctuation(")")
            else:
                outs = [parser.parse_type()]
            return ins, outs
        t = parser.parse_type()
        return [t] * n_operands, [t]

    @classmethod
    def parse(cls, parser: Parser):
        n_in, n_out = cls.arity()
        operands_pos = parser.pos
        unresolved = []
        first = parser.parse_optional_unresolved_operand()
        if first is not None:
            unresolved.append(first)
            while parser.parse_optional_punctuation(",") is not None:
                unresolved.append(parser.parse_unresolved_operand())
        if n_in is not None and len(unresolved) != n_in:
            parser.raise_error(
                f"'{cls.name}' takes {_count(n_in, 'operand')}, got {len(unresolved)}", operands_pos, parser.pos
            )
        props, attrs = cls.parse_prop_dict(parser)
        pos = parser.pos
        in_types, out_types = cls.parse_types(parser, len(unresolved))
        if len(in_types) != len(unresolved):
            parser.raise_error(
                f"'{cls.name}' has {len(unresolved)} operands but {len(in_types)} operand types", pos, parser.pos
            )
        if n_out is not None and len(out_types) != n_out:
            parser.raise_error(f"'{cls.name}' has {_count(n_out, 'result')}, got {len(out_types)}", pos, parser.pos)
        operands = [parser.resolve_operand(u, t) for u, t in zip(unresolved, in_types)]
        op = cls.__new__(cls)
        IRDLOperation.__init__(
            op,
            operands=cls.group_operands(operands),
            result_types=cls.group_results(out_types),
            properties=props,
            attributes=attrs,
        )
        return op


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


# --------------------------------------------------------------------------------------
# Inference helpers
# --------------------------------------------------------------------------------------


def _tensor_type(t: Attribute, operand: str) -> TensorType:
    if not isinstance(t, TensorType):
        raise VerifyException(f"operand '{operand}' must be a ranked tensor, got {t}")
    return t


def _rank(t: TensorType, rank: int, operand: str) -> tuple[int, ...]:
    shape = shape_of(t)
    if len(shape) != rank:
        raise VerifyException(f"operand '{operand}' must have rank {rank}, got {t}")
    return shape


def _data_and_indices(ts) -> tuple[TensorType, TensorType]:
    """Operands 'data' and 'indices' (an integer tensor) of the ops that index data."""
    d, ix = _tensor_type(ts[0], "data"), _tensor_type(ts[1], "indices")
    if not is_int(ix.element_type):
        raise VerifyException(f"operand 'indices' must be an integer tensor, got {ix}")
    return d, ix


def _numeric_along_axis(ts, props) -> tuple[TensorType, tuple[int, ...], int]:
    """Operand 'data' (numeric, rank >= 1), its shape and property 'axis' normalized: the
    scans and top k."""
    d = _tensor_type(ts[0], "data")
    _numeric(d, "data")
    ds = shape_of(d)
    if not ds:
        raise VerifyException("operand 'data' must have rank >= 1")
    return d, ds, normalize_axis(props["axis"], len(ds), "property 'axis'")

def _float(t: TensorType, operand: str) -> None:
    if not is_float(t.element_type):
        raise VerifyException(f"operand '{operand}' must have a float element type, got {t}")


def _same_elem(a: TensorType, b: TensorType, na: str, nb: str) -> None:
    if a.element_type != b.element_type:
        raise VerifyException(
            f"operands '{na}' and '{nb}' must have the same element type, got {a.element_type} and {b.element_type}"
        )


def _len(props: dict[str, Any], name: str, n: int) -> tuple[int, ...]:
    v = props[name]
    if len(v) != n:
        raise VerifyException(f"property '{name}' must have {n} elements, got {list(v)}")
    return tuple(v)


def _positive(props: dict[str, Any], name: str) -> None:
    if any(x < 1 for x in props[name]):
        raise VerifyException(f"property '{name}' must be positive, got {list(props[name])}")


def _non_negative(props: dict[str, Any], name: str) -> None:
    if any(x < 0 for x in props[name]):
        raise VerifyException(f"property '{name}' must be non-negative, got {list(props[name])}")


def conv_out_dim(size: int, k: int, stride: int, dil: int, pad_lo: int, pad_hi: int) -> int:
    return (size + pad_lo + pad_hi - dil * (k - 1) - 1) // stride + 1


def pool_out_dim(size: int, k: int, stride: int, dil: int, pad_lo: int, pad_hi: int, ceil_mode: bool) -> int:
    eff = dil * (k - 1) + 1
    span = size + pad_lo + pad_hi - eff
    if not ceil_mode:
        return span // stride + 1
    out = -(-span // stride) + 1
    # The last window must start inside the input or the leading padding (PyTorch/ONNX rule).
    if (out - 1) * stride >= size + pad_lo:
        out -= 1
    return out


def _conv_like(data: TensorType, weight: TensorType, props: dict[str, Any], names=("data", "weight")) -> tuple[int, ...]:
    n, c, h, w = _rank(data, 4, names[0])
    o, cg, kh, kw = _rank(weight, 4, names[1])
    strides = _len(props, "strides", 2)
    dilation = _len(props, "dilation", 2)
    padding = _len(props, "padding", 4)
    _positive(props, "strides")
    _positive(props, "dilation")
    _non_negative(props, "padding")
    groups = props["groups"]
    if groups < 1:
        raise VerifyException(f"property 'groups' must be positive, got {groups}")
    if c % groups or o % groups:
        raise VerifyException(
            f"property 'groups' ({groups}) must divide the input channels ({c}) and the output channels ({o})"
        )
    if cg * groups != c:
        raise VerifyException(
            f"operand '{names[1]}' has {cg} input channels per group, expected {c // groups} "
            f"('{names[0]}' has {c} channels, groups = {groups})"
        )
    oh = conv_out_dim(h, kh, strides[0], dilation[0], padding[0], padding[2])
    ow = conv_out_dim(w, kw, strides[1], dilation[1], padding[1], padding[3])
    if oh < 1 or ow < 1:
        raise VerifyException(f"the kernel {kh}x{kw} does not fit the padded input {h}x{w}")
    return (n, o, oh, ow)


CONV_PROPS = (
    Ints("strides", (1, 1)),
    Ints("padding", (0, 0, 0, 0)),
    Ints("dilation", (1, 1)),
    Int("groups", 1),
)


def _quant_param(
    t: Attribute,
    operand: str,
    data_shape: Sequence[int],
    axis: int,
    *,
    want_float: bool | None,
    data: str = "data",
    scalar: bool = False,
) -> None:
    """A scale or zero point: a scalar (rank 0 or [1]) or, unless `scalar`, a 1-D tensor
    with one entry per slice of operand `data` along `axis`."""
    t = _tensor_type(t, operand)
    if want_float is True and not is_float(t.element_type):
        raise VerifyException(f"operand '{operand}' must be a float tensor, got {t}")
    if want_float is False and not is_int(t.element_type):
        raise VerifyException(f"operand '{operand}' must be an integer tensor, got {t}")
    shape = shape_of(t)
    if len(shape) == 0 or shape == (1,):
        return
    if scalar:
        raise VerifyException(f"operand '{operand}' must be a scalar, got {t}")
    if len(shape) != 1:
        raise VerifyException(f"operand '{operand}' must be a scalar or 1-D, got {t}")
    if not data_shape:
        raise VerifyException(f"operand '{operand}' is per-axis but '{data}' is a scalar")
    ax = normalize_axis(axis, len(data_shape), "property 'axis'")
    if shape[0] != data_shape[ax]:
        raise VerifyException(
            f"operand '{operand}' has {shape[0]} elements but '{data}' has {data_shape[ax]} along axis {axis}"
        )


# --------------------------------------------------------------------------------------
# Convolution, dense, matmul
# --------------------------------------------------------------------------------------


@relay_op
class Conv2DOp(RelayOp):
    """2-D convolution, NCHW data and OIHW weight; padding is (top, left, bottom, right)."""

    name = "relay.nn.conv2d"
    PROPS = CONV_PROPS
    data = operand_def(TensorType)
    weight = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        d, w = _tensor_type(ts[0], "data"), _tensor_type(ts[1], "weight")
        _float(d, "data")
        _same_elem(d, w, "data", "weight")
        return [tensor(_conv_like(d, w, props), d.element_type)]


@relay_op
class DenseOp(RelayOp):
    """y = x · Wᵀ: data [..., K], weight [N, K] -> [..., N] (TVM's nn.dense)."""

    name = "relay.nn.dense"
    data = operand_def(TensorType)
    weight = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        d, w = _tensor_type(ts[0], "data"), _tensor_type(ts[1], "weight")
        _float(d, "data")
        _same_elem(d, w, "data", "weight")
        ds = shape_of(d)
        n, k = _rank(w, 2, "weight")
        if not ds:
            raise VerifyException("operand 'data' must have rank >= 1")
        if ds[-1] != k:
            raise VerifyException(f"operand 'weight' has K = {k} but 'data' has K = {ds[-1]}")
        return [tensor(ds[:-1] + (n,), d.element_type)]


@relay_op
class MatmulOp(RelayOp):
    """2-D matrix product with optional transposes (TVM's nn.matmul)."""

    name = "relay.nn.matmul"
    PROPS = (Bool("transpose_a", False), Bool("transpose_b", False))
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        a, b = _tensor_type(ts[0], "lhs"), _tensor_type(ts[1], "rhs")
        _float(a, "lhs")
        _same_elem(a, b, "lhs", "rhs")
        m, k = _rank(a, 2, "lhs")
        k2, n = _rank(b, 2, "rhs")
        if props["transpose_a"]:
            m, k = k, m
        if props["transpose_b"]:
            k2, n = n, k2
        if k != k2:
            raise VerifyException(f"contraction sizes differ: 'lhs' has {k}, 'rhs' has {k2}")
        return [tensor((m, n), a.element_type)]


@relay_op
class BatchMatmulOp(RelayOp):
    """Batched matrix product over the last two dims; leading dims broadcast (numpy).

    As in TVM, `transpose_b` defaults to true: rhs is [..., N, K]."""

    name = "relay.nn.batch_matmul"
    PROPS = (Bool("transpose_a", False), Bool("transpose_b", True))
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        a, b = _tensor_type(ts[0], "lhs"), _tensor_type(ts[1], "rhs")
        _float(a, "lhs")
        _same_elem(a, b, "lhs", "rhs")
        sa, sb = shape_of(a), shape_of(b)
        if len(sa) < 2 or len(sb) < 2:
            raise VerifyException(f"operands must have rank >= 2, got {a} and {b}")
        m, k = sa[-2:]
        k2, n = sb[-2:]
        if props["transpose_a"]:
            m, k = k, m
        if props["transpose_b"]:
            k2, n = n, k2
        if k != k2:
            raise VerifyException(f"contraction sizes differ: 'lhs' has {k}, 'rhs' has {k2}")
        batch = broadcast_shapes(sa[:-2], sb[:-2])
        return [tensor(batch + (m, n), a.element_type)]


@relay_op
class BiasAddOp(RelayOp):
    """Adds a 1-D bias along `axis`."""

    name = "relay.nn.bias_add"
    PROPS = (Int("axis", 1),)
    data = operand_def(TensorType)
    bias = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        d, b = _tensor_type(ts[0], "data"), _tensor_type(ts[1], "bias")
        _same_elem(d, b, "data", "bias")
        ds = shape_of(d)
        (nb,) = _rank(b, 1, "bias")
        ax = normalize_axis(props["axis"], len(ds), "property 'axis'")
        if ds[ax] != nb:
            raise VerifyException(f"operand 'bias' has {nb} elements but 'data' has {ds[ax]} along axis {ax}")
        return [d]


# --------------------------------------------------------------------------------------
# Elementwise
# --------------------------------------------------------------------------------------


class BinaryOp(RelayOp):
    """Elementwise binary op with numpy broadcasting."""

    SAME_TYPE_SYNTAX = True
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        a, b = _tensor_type(ts[0], "lhs"), _tensor_type(ts[1], "rhs")
        _same_elem(a, b, "lhs", "rhs")
        return [tensor(broadcast_shapes(shape_of(a), shape_of(b)), a.element_type)]


@relay_op
class AddOp(BinaryOp):
    name = "relay.add"


@relay_op
class SubtractOp(BinaryOp):
    name = "relay.subtract"


@relay_op
class MultiplyOp(BinaryOp):
    name = "relay.multiply"


@relay_op
class DivideOp(BinaryOp):
    """Float division; integer division truncates toward zero (C, ONNX)."""

    name = "relay.divide"


class UnaryOp(RelayOp):
    """Elementwise op whose result has the operand's type."""

    SAME_TYPE_SYNTAX = True
    FLOAT_ONLY: ClassVar[bool] = True
    data = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        d = _tensor_type(ts[0], "data")
        if cls.FLOAT_ONLY:
            _float(d, "data")
        cls.check_props(props)
        return [d]

    @classmethod
    def check_props(cls, props):
        pass


@relay_op
class ReluOp(UnaryOp):
    name = "relay.nn.relu"
    FLOAT_ONLY = False


@relay_op
class ClipOp(UnaryOp):
    """min(max(x, a_min), a_max)."""

    name = "relay.clip"
    FLOAT_ONLY = False
    PROPS = (Float("a_min"), Float("a_max"))

    @classmethod
    def check_props(cls, props):
        if props["a_min"] is None or props["a_max"] is None:
            raise VerifyException("properties 'a_min' and 'a_max' are required")
        if props["a_min"] > props["a_max"]:
            raise VerifyException(f"property 'a_min' ({props['a_min']}) is greater than 'a_max' ({props['a_max']})")


@relay_op
class SigmoidOp(UnaryOp):
    name = "relay.sigmoid"


@relay_op
class TanhOp(UnaryOp):
    name = "relay.tanh"


@relay_op
class ErfOp(UnaryOp):
    name = "relay.erf"


@relay_op
class GeluOp(UnaryOp):
    """GELU; `approximate = "tanh"` uses the tanh formula (ONNX Gelu-20)."""

    name = "relay.nn.gelu"
    PROPS = (Str("approximate", "none", choices=("none", "tanh")),)


@relay_op
class HardSigmoidOp(UnaryOp):
    """max(0, min(1, alpha * x + beta)) (ONNX HardSigmoid; PyTorch's is alpha = 1/6)."""

    name = "relay.nn.hardsigmoid"
    PROPS = (Float("alpha", 0.2), Float("beta", 0.5))


@relay_op
class HardSwishOp(UnaryOp):
    """x * max(0, min(1, x / 6 + 1/2)) (ONNX HardSwish)."""

    name = "relay.nn.hardswish"


@relay_op
class SiluOp(UnaryOp):
    """x * sigmoid(x) (SiLU, Swish-1)."""

    name = "relay.nn.silu"


@relay_op
class LeakyReluOp(UnaryOp):
    name = "relay.nn.leaky_relu"
    PROPS = (Float("alpha", 0.01),)


@relay_op
class SoftmaxOp(UnaryOp):
    name = "relay.nn.softmax"
    PROPS = (Int("axis", -1),)

    @classmethod
    def infer(cls, ts, props):
        (d,) = super().infer(ts, props)
        normalize_axis(props["axis"], len(shape_of(d)), "property 'axis'")
        return [d]


# --------------------------------------------------------------------------------------
# Pooling and normalization
# --------------------------------------------------------------------------------------


def _pool(ts, props, ceil_mode: bool):
    d = _tensor_type(ts[0], "data")
    n, c, h, w = _rank(d, 4, "data")
    k = _len(props, "pool_size", 2)
    s = _len(props, "strides", 2)
    dil = _len(props, "dilation", 2)
    p = _len(props, "padding", 4)
    for name in ("pool_size", "strides", "dilation"):
        _positive(props, name)
    _non_negative(props, "padding")
    if p[0] >= k[0] * dil[0] or p[2] >= k[0] * dil[0] or p[1] >= k[1] * dil[1] or p[3] >= k[1] * dil[1]:
        raise VerifyException(f"property 'padding' {list(p)} must be smaller than the window {list(k)}")
    oh = pool_out_dim(h, k[0], s[0], dil[0], p[0], p[2], ceil_mode)
    ow = pool_out_dim(w, k[1], s[1], dil[1], p[1], p[3], ceil_mode)
    if oh < 1 or ow < 1:
        raise VerifyException(f"the window {list(k)} does not fit the padded input {h}x{w}")
    return [tensor((n, c, oh, ow), d.element_type)]


POOL_PROPS = (
    Ints("pool_size"),
    Ints("strides", (1, 1)),
    Ints("dilation", (1, 1)),
    Ints("padding", (0, 0, 0, 0)),
    Bool("ceil_mode", False),
)


@relay_op
class MaxPool2DOp(RelayOp):
    """Max pooling (padding never wins the max)."""

    name = "relay.nn.max_pool2d"
    PROPS = POOL_PROPS
    data = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        if props["pool_size"] is None:
            raise VerifyException("missing property 'pool_size'")
        return _pool(ts, props, props["ceil_mode"])


@relay_op
class AvgPool2DOp(RelayOp):
    """Average pooling; `count_include_pad` counts padded cells (never cells past the
    end that only `ceil_mode` adds)."""

    name = "relay.nn.avg_pool2d"
    PROPS = POOL_PROPS + (Bool("count_include_pad", False),)
    data = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        if props["pool_size"] is None:
            raise VerifyException("missing property 'pool_size'")
        d = _tensor_type(ts[0], "data")
        _float(d, "data")
        return _pool(ts, props, props["ceil_mode"])


@relay_op
class GlobalAvgPool2DOp(RelayOp):
    name = "relay.nn.global_avg_pool2d"
    data = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        d = _tensor_type(ts[0], "data")
        _float(d, "data")
        n, c, _, _ = _rank(d, 4, "data")
        return [tensor((n, c, 1, 1), d.element_type)]


@relay_op
class BatchNormOp(RelayOp):
    """Inference batch norm with running statistics:
    y = (x - mean) / sqrt(var + epsilon) * gamma + beta along `axis`."""

    name = "relay.nn.batch_norm"
    PROPS = (Int("axis", 1), Float("epsilon", 1e-5))
    data = operand_def(TensorType)
    gamma = operand_def(TensorType)
    beta = operand_def(TensorType)
    moving_mean = operand_def(TensorType)
    moving_var = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        d = _tensor_type(ts[0], "data")
        _float(d, "data")
        ds = shape_of(d)
        ax = normalize_axis(props["axis"], len(ds), "property 'axis'")
        for t, name in zip(ts[1:], ("gamma", "beta", "moving_mean", "moving_var")):
            t = _tensor_type(t, name)
            _same_elem(d, t, "data", name)
            (n,) = _rank(t, 1, name)
            if n != ds[ax]:
                raise VerifyException(f"operand '{name}' has {n} elements but 'data' has {ds[ax]} along axis {ax}")
        return [d]


@relay_op
class LayerNormOp(RelayOp):
    """Layer norm over the trailing axes starting at `axis` (ONNX LayerNormalization);
    gamma and beta have the normalized shape."""

    name = "relay.nn.layer_norm"
    PROPS = (Int("axis", -1), Float("epsilon", 1e-5))
    data = operand_def(TensorType)
    gamma = operand_def(TensorType)
    beta = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        d = _tensor_type(ts[0], "data")
        _float(d, "data")
        ds = shape_of(d)
        ax = normalize_axis(props["axis"], len(ds), "property 'axis'")
        for t, name in zip(ts[1:], ("gamma", "beta")):
            t = _tensor_type(t, name)
            _same_elem(d, t, "data", name)
            if shape_of(t) != ds[ax:]:
                raise VerifyException(f"operand '{name}' must have the normalized shape {list(ds[ax:])}, got {t}")
        return [d]


@relay_op
class RMSNormOp(RelayOp):
    """RMS norm over the trailing axes starting at `axis` (ONNX RMSNormalization, LLaMA's
    RMSNorm): x / sqrt(mean(x * x) + epsilon) * gamma; gamma has the normalized shape."""

    name = "relay.nn.rms_norm"
    PROPS = (Int("axis", -1), Float("epsilon", 1e-5))
    data = operand_def(TensorType)
    gamma = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        d, g = _tensor_type(ts[0], "data"), _tensor_type(ts[1], "gamma")
        _float(d, "data")
        ds = shape_of(d)
        ax = normalize_axis(props["axis"], len(ds), "property 'axis'")
        _same_elem(d, g, "data", "gamma")
        if shape_of(g) != ds[ax:]:
            raise VerifyException(f"operand 'gamma' must have the normalized shape {list(ds[ax:])}, got {g}")
        return [d]


@relay_op
class MeanOp(RelayOp):
    """Mean over `axis` (the complement when `exclude`); no axis (absent or []) means
    every axis, as in TVM."""

    name = "relay.mean"
    PROPS = (Ints("axis", optional=True), Bool("keepdims", False), Bool("exclude", False))
    data = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def reduced_axes(cls, rank: int, props) -> tuple[int, ...]:
        axes = props["axis"]
        if not axes:
            # TVM: no axis (None or []) reduces every axis, whatever `exclude` says.
            return tuple(range(rank))
        red = set()
        for a in axes:
            na = normalize_axis(a, rank, "property 'axis' entry")
            if na in red:
                raise VerifyException(f"property 'axis' repeats axis {a}")
            red.add(na)
        if props["exclude"]:
            red = set(range(rank)) - red
        return tuple(sorted(red))

    @classmethod
    def infer(cls, ts, props):
        d = _tensor_type(ts[0], "data")
        _float(d, "data")
        ds = shape_of(d)
        red = cls.reduced_axes(len(ds), props)
        if props["keepdims"]:
            out = tuple(1 if i in red else s for i, s in enumerate(ds))
        else:
            out = tuple(s for i, s in enumerate(ds) if i not in red)
        return [tensor(out, d.element_type)]


# --------------------------------------------------------------------------------------
# Run-time math: elementwise functions, comparisons, selection, reductions
# (what exporters emit for RMSNorm, rotary embeddings, causal masks, ...)
# --------------------------------------------------------------------------------------


def _numeric(t: TensorType, operand: str) -> None:
    if not (is_float(t.element_type) or is_int(t.element_type)):
        raise VerifyException(f"operand '{operand}' must have a float or integer element type, got {t}")


@relay_op
class SqrtOp(UnaryOp):
    """IEEE square root (sqrt(-1) is nan)."""

    name = "relay.sqrt"


@relay_op
class ExpOp(UnaryOp):
    name = "relay.exp"


@relay_op
class LogOp(UnaryOp):
    """Natural logarithm (log(0) is -inf, log(-1) is nan)."""

    name = "relay.log"


@relay_op
class FloorOp(UnaryOp):
    """The largest integer not above x (floor(-0.5) is -0.0; inf and nan stay)."""

    name = "relay.floor"


@relay_op
class CeilOp(UnaryOp):
    """The smallest integer not below x (ceil(-0.5) is -0.0; inf and nan stay)."""

    name = "relay.ceil"


@relay_op
class RoundOp(UnaryOp):
    """The nearest integer, halves to the even one (ONNX Round, numpy's round, C's
    nearbyint under the default rounding mode): round(2.5) is 2.0, round(-1.5) -2.0."""

    name = "relay.round"


# Trigonometric and hyperbolic functions (ONNX Sin ... Atanh; C's sinf ... atanhf): NaN
# outside a function's domain (asin(2), acosh(0.5)), +-inf at atanh(+-1).


@relay_op
class SinOp(UnaryOp):
    name = "relay.sin"


@relay_op
class CosOp(UnaryOp):
    name = "relay.cos"


@relay_op
class TanOp(UnaryOp):
    name = "relay.tan"


@relay_op
class AsinOp(UnaryOp):
    name = "relay.asin"


@relay_op
class AcosOp(UnaryOp):
    name = "relay.acos"


@relay_op
class AtanOp(UnaryOp):
    name = "relay.atan"


@relay_op
class SinhOp(UnaryOp):
    name = "relay.sinh"


@relay_op
class CoshOp(UnaryOp):
    name = "relay.cosh"


@relay_op
class AsinhOp(UnaryOp):
    name = "relay.asinh"


@relay_op
class AcoshOp(UnaryOp):
    name = "relay.acosh"


@relay_op
class AtanhOp(UnaryOp):
    name = "relay.atanh"


class SignedUnaryOp(UnaryOp):
    """An elementwise op on float or signed/unsigned integer data (integers wrap)."""

    FLOAT_ONLY = False

    @classmethod
    def infer(cls, ts, props):
        (d,) = super().infer(ts, props)
        _numeric(d, "data")
        return [d]


@relay_op
class NegativeOp(SignedUnaryOp):
    """-x; integers wrap (-INT_MIN == INT_MIN, unsigned: 2^n - x)."""

    name = "relay.negative"


@relay_op
class AbsOp(SignedUnaryOp):
    """|x|; integers wrap (|INT_MIN| == INT_MIN), unsigned data is unchanged."""

    name = "relay.abs"


@relay_op
class PowerOp(BinaryOp):
    """lhs ** rhs elementwise (float only), numpy broadcasting (C's powf)."""

    name = "relay.power"

    @classmethod
    def infer(cls, ts, props):
        (r,) = super().infer(ts, props)
        _float(_tensor_type(ts[0], "lhs"), "lhs")
        return [r]


class NumericBinaryOp(BinaryOp):
    @classmethod
    def infer(cls, ts, props):
        (r,) = super().infer(ts, props)
        _numeric(_tensor_type(ts[0], "lhs"), "lhs")
        return [r]


@relay_op
class MaximumOp(NumericBinaryOp):
    """Elementwise max; nan wins (np.maximum)."""

    name = "relay.maximum"


@relay_op
class MinimumOp(NumericBinaryOp):
    """Elementwise min; nan wins (np.minimum)."""

    name = "relay.minimum"


class CompareOp(RelayOp):
    """Elementwise comparison with numpy broadcasting; the result is boolean (`i1`), as
    in TVM and ONNX (any comparison with nan is false, except `not_equal`)."""

    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        a, b = _tensor_type(ts[0], "lhs"), _tensor_type(ts[1], "rhs")
        _same_elem(a, b, "lhs", "rhs")
        if a.element_type != i1:
            _numeric(a, "lhs")
        return [tensor(broadcast_shapes(shape_of(a), shape_of(b)), i1)]


@relay_op
class EqualOp(CompareOp):
    name = "relay.equal"


@relay_op
class NotEqualOp(CompareOp):
    name = "relay.not_equal"


@relay_op
class LessOp(CompareOp):
    name = "relay.less"


@relay_op
class LessEqualOp(CompareOp):
    name = "relay.less_equal"


@relay_op
class GreaterOp(CompareOp):
    name = "relay.greater"


@relay_op
class GreaterEqualOp(CompareOp):
    name = "relay.greater_equal"


@relay_op
class LogicalNotOp(RelayOp):
    """Boolean negation of an `i1` tensor."""

    name = "relay.logical_not"
    SAME_TYPE_SYNTAX = True
    data = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        d = _tensor_type(ts[0], "data")
        if d.element_type != i1:
            raise VerifyException(f"operand 'data' must be a boolean (i1) tensor, got {d}")
        return [d]


class LogicalBinaryOp(RelayOp):
    """Boolean op of two `i1` tensors with numpy broadcasting."""

    SAME_TYPE_SYNTAX = True
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        a, b = _tensor_type(ts[0], "lhs"), _tensor_type(ts[1], "rhs")
        for t, n in ((a, "lhs"), (b, "rhs")):
            if t.element_type != i1:
                raise VerifyException(f"operand '{n}' must be a boolean (i1) tensor, got {t}")
        return [tensor(broadcast_shapes(shape_of(a), shape_of(b)), i1)]


@relay_op
class LogicalAndOp(LogicalBinaryOp):
    name = "relay.logical_and"


@relay_op
class LogicalOrOp(LogicalBinaryOp):
    name = "relay.logical_or"


@relay_op
class LogicalXorOp(LogicalBinaryOp):
    name = "relay.logical_xor"


@relay_op
class WhereOp(RelayOp):
    """condition ? x : y elementwise; the three operands broadcast together (numpy)."""

    name = "relay.where"
    condition = operand_def(TensorType)
    x = operand_def(TensorType)
    y = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        c = _tensor_type(ts[0], "condition")
        x, y = _tensor_type(ts[1], "x"), _tensor_type(ts[2], "y")
        if c.element_type != i1:
            raise VerifyException(f"operand 'condition' must be a boolean (i1) tensor, got {c}")
        _same_elem(x, y, "x", "y")
        xy = broadcast_shapes(shape_of(x), shape_of(y), ("x", "y"))
        shape = broadcast_shapes(shape_of(c), xy, ("condition", "x and y"))
        return [tensor(shape, x.element_type)]


class ReduceOp(RelayOp):
    """A reduction over `axis` (the complement when `exclude`; no axis: every axis), as
    `relay.mean`; float or integer data, the result in the data's type."""

    PROPS = MeanOp.PROPS
    data = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def reduced_axes(cls, rank: int, props) -> tuple[int, ...]:
        return MeanOp.reduced_axes(rank, props)

    @classmethod
    def infer(cls, ts, props):
        d = _tensor_type(ts[0], "data")
        _numeric(d, "data")
        ds = shape_of(d)
        red = cls.reduced_axes(len(ds), props)
        if props["keepdims"]:
            out = tuple(1 if i in red else s for i, s in enumerate(ds))
        else:
            out = tuple(s for i, s in enumerate(ds) if i not in red)
        return [tensor(out, d.element_type)]


@relay_op
class SumOp(ReduceOp):
    """Sum; integers wrap in their own type."""

    name = "relay.sum"


@relay_op
class ProdOp(ReduceOp):
    """Product; integers wrap in their own type."""

    name = "relay.prod"


@relay_op
class MaxOp(ReduceOp):
    """Maximum; nan wins; over no element: the type's lowest value (-inf)."""

    name = "relay.max"


@relay_op
class MinOp(ReduceOp):
    """Minimum; nan wins; over no element: the type's highest value (inf)."""

    name = "relay.min"


def slice_range(dim: int, begin: int, end: int, stride: int) -> range:
    """The indices numpy's basic slice `begin:end:stride` picks from a dimension of `dim`
    (negative bounds count from the end, then clamp; ONNX Slice's rule too)."""
    if stride == 0:
        raise VerifyException("property 'strides' must not contain 0")
    return range(*slice(begin, end, stride).indices(dim))


@relay_op
class StridedSliceOp(RelayOp):
    """data[begin:end:strides] along `axes` (default: the first len(begin) axes), numpy's
    basic slicing per axis (TVM's strided_slice); the other axes are kept whole."""

    name = "relay.strided_slice"
    PROPS = (Ints("begin"), Ints("end"), Ints("strides", optional=True), Ints("axes", optional=True))
    data = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def ranges(cls, shape: Sequence[int], props) -> list[range]:
        """The picked indices of every axis of `shape`."""
        begin, end = props["begin"], props["end"]
        if begin is None or end is None:
            raise VerifyException("properties 'begin' and 'end' are required")
        n = len(begin)
        for name in ("end", "strides", "axes"):
            if props[name] is not None and len(props[name]) != n:
                raise VerifyException(f"property '{name}' {list(props[name])} must have as many entries as "
                                      f"'begin' {list(begin)}")
        strides = props["strides"] if props["strides"] is not None else (1,) * n
        axes = props["axes"] if props["axes"] is not None else tuple(range(n))
        out = [range(d) for d in shape]
        seen = set()
        for b, e, st, a in zip(begin, end, strides, axes):
            ax = normalize_axis(a, len(shape), "property 'axes' entry")
            if ax in seen:
                raise VerifyException(f"property 'axes' repeats axis {a}")
            seen.add(ax)
            out[ax] = slice_range(shape[ax], b, e, st)
            if not out[ax]:
                raise VerifyException(f"the slice {b}:{e}:{st} of axis {ax} (size {shape[ax]}) is empty")
        return out

    @classmethod
    def infer(cls, ts, props):
        d = _tensor_type(ts[0], "data")
        return [tensor(tuple(len(r) for r in cls.ranges(shape_of(d), props)), d.element_type)]


@relay_op
class BroadcastToOp(RelayOp):
    """data broadcast (numpy) to `shape` (TVM's broadcast_to, ONNX Expand): the result
    has the broadcast of the data's shape and `shape`."""

    name = "relay.broadcast_to"
    PROPS = (Ints("shape"),)
    data = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        d = _tensor_type(ts[0], "data")
        if props["shape"] is None:
            raise VerifyException("missing property 'shape'")
        return [tensor(broadcast_shapes(shape_of(d), props["shape"], ("data", "shape")), d.element_type)]


TRIG_OPS: tuple[type[UnaryOp], ...] = (SinOp, CosOp, TanOp, AsinOp, AcosOp, AtanOp,
                                        SinhOp, CoshOp, AsinhOp, AcoshOp, AtanhOp)
"""The trigonometric and hyperbolic functions (one C kernel each: acc_<name>_f32/_f64)."""

MATH_OPS: tuple[type[IRDLOperation], ...] = (
    SqrtOp, ExpOp, LogOp, FloorOp, CeilOp, RoundOp, NegativeOp, AbsOp, PowerOp, MaximumOp, MinimumOp,
    *TRIG_OPS,
    EqualOp, NotEqualOp, LessOp, LessEqualOp, GreaterOp, GreaterEqualOp, LogicalNotOp,
    LogicalAndOp, LogicalOrOp, LogicalXorOp, WhereOp,
    SumOp, ProdOp, MaxOp, MinOp, StridedSliceOp, BroadcastToOp,
)  # fmt: skip
"""The run-time math ops and the slicing/broadcasting of activations (in GRAPH_OPS)."""


# --------------------------------------------------------------------------------------
# Shape manipulation
# --------------------------------------------------------------------------------------


def resolve_newshape(in_shape: Sequence[int], newshape: Sequence[int]) -> tuple[int, ...]:
    """TVM/ONNX reshape codes: 0 copies the input dim, -1 is inferred (at most one)."""
    out = []
    infer_at = None
    for i, s in enumerate(newshape):
        if s == 0:
            if i >= len(in_shape):
                raise VerifyException(f"property 'newshape' copies dimension {i} that the input lacks")
            out.append(in_shape[i])
        elif s == -1:
            if infer_at is not None:
                raise VerifyException("property 'newshape' has more than one -1")
            infer_at = i
            out.append(1)
        elif s < -1:
            raise VerifyException(f"property 'newshape' has an invalid entry {s}")
        else:
            out.append(s)
    total = numel(in_shape)
    if infer_at is not None:
        known = numel(out)
        if known == 0 or total % known:
            raise VerifyException(
                f"property 'newshape' {list(newshape)} does not fit operand 'data' {list(in_shape)} ({total} elements)"
            )
        out[infer_at] = total // known
    if numel(out) != total:
        raise VerifyException(
            f"property 'newshape' {list(newshape)} gives {out} ({numel(out)} elements) "
            f"for operand 'data' {list(in_shape)} ({total} elements)"
        )
    return tuple(out)


@relay_op
class ReshapeOp(RelayOp):
    name = "relay.reshape"
    PROPS = (Ints("newshape"),)
    data = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        d = _tensor_type(ts[0], "data")
        if props["newshape"] is None:
            raise VerifyException("missing property 'newshape'")
        return [tensor(resolve_newshape(shape_of(d), props["newshape"]), d.element_type)]


@relay_op
class TransposeOp(RelayOp):
    """Permutes dims; without `axes`, reverses them."""

    name = "relay.transpose"
    PROPS = (Ints("axes", optional=True),)
    data = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def perm(cls, rank: int, axes) -> tuple[int, ...]:
        if axes is None:
            return tuple(reversed(range(rank)))
        if len(axes) != rank:
            raise VerifyException(f"property 'axes' must have {rank} entries, got {list(axes)}")
        perm = tuple(normalize_axis(a, rank, "property 'axes' entry") for a in axes)
        if sorted(perm) != list(range(rank)):
            raise VerifyException(f"property 'axes' {list(axes)} is not a permutation")
        return perm

    @classmethod
    def infer(cls, ts, props):
        d = _tensor_type(ts[0], "data")
        ds = shape_of(d)
        return [tensor(tuple(ds[p] for p in cls.perm(len(ds), props["axes"])), d.element_type)]


@relay_op
class ConcatenateOp(RelayOp):
    name = "relay.concatenate"
    PROPS = (Int("axis", 0),)
    inputs = var_operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def group_operands(cls, values):
        return [values]

    @classmethod
    def infer(cls, ts, props):
        if not ts:
            raise VerifyException("needs at least one operand")
        first = _tensor_type(ts[0], "inputs[0]")
        fs = shape_of(first)
        if not fs:
            raise VerifyException("operands must have rank >= 1")
        ax = normalize_axis(props["axis"], len(fs), "property 'axis'")
        total = 0
        for i, t in enumerate(ts):
            t = _tensor_type(t, f"inputs[{i}]")
            s = shape_of(t)
            if t.element_type != first.element_type:
                raise VerifyException(f"operand 'inputs[{i}]' has element type {t.element_type}, expected {first.element_type}")
            if len(s) != len(fs) or any(a != b for j, (a, b) in enumerate(zip(s, fs)) if j != ax):
                raise VerifyException(f"operand 'inputs[{i}]' {t} does not match {first} outside axis {ax}")
            total += s[ax]
        return [tensor(fs[:ax] + (total,) + fs[ax + 1 :], first.element_type)]


@relay_op
class PadOp(RelayOp):
    """`pad_width` is [before_0, after_0, before_1, after_1, ...]."""

    name = "relay.nn.pad"
    PROPS = (
        Ints("pad_width"),
        Float("pad_value", 0.0),
        Str("pad_mode", "constant", choices=("constant", "edge", "reflect", "wrap")),
    )
    data = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        d = _tensor_type(ts[0], "data")
        ds = shape_of(d)
        if props["pad_width"] is None:
            raise VerifyException("missing property 'pad_width'")
        pw = _len(props, "pad_width", 2 * len(ds))
        _non_negative(props, "pad_width")
        if props["pad_mode"] == "reflect":
            for i, s in enumerate(ds):
                if pw[2 * i] >= s or pw[2 * i + 1] >= s:
                    raise VerifyException(
                        f"property 'pad_width': reflect padding of dimension {i} ({pw[2 * i]}, {pw[2 * i + 1]}) "
                        f"must be smaller than its size {s}"
                    )
        if props["pad_mode"] in ("edge", "wrap") and any(s == 0 for s in ds):
            raise VerifyException(f"property 'pad_mode': {props['pad_mode']} padding needs non-empty dimensions")
        return [tensor(tuple(s + pw[2 * i] + pw[2 * i + 1] for i, s in enumerate(ds)), d.element_type)]


@relay_op
class BatchFlattenOp(RelayOp):
    name = "relay.nn.batch_flatten"
    data = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        d = _tensor_type(ts[0], "data")
        ds = shape_of(d)
        if not ds:
            raise VerifyException("operand 'data' must have rank >= 1")
        return [tensor((ds[0], numel(ds[1:])), d.element_type)]


@relay_op
class TakeOp(RelayOp):
    """Gather along `axis` (ONNX Gather; negative indices count from the end)."""

    name = "relay.take"
    PROPS = (Int("axis", 0),)
    data = operand_def(TensorType)
    indices = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        d, ix = _data_and_indices(ts)
        ds = shape_of(d)
        if not ds:
            raise VerifyException("operand 'data' must have rank >= 1")
        ax = normalize_axis(props["axis"], len(ds), "property 'axis'")
        return [tensor(ds[:ax] + shape_of(ix) + ds[ax + 1 :], d.element_type)]


@relay_op
class CastOp(RelayOp):
    """Element type conversion; float to int truncates toward zero and saturates.
    `saturate` (float8 results) and `round_mode` (f8E8M0FNU results) are ONNX Cast's:
    see `accel.compiler.narrow_types`."""

    name = "relay.cast"
    PROPS = (Bool("saturate", True), Str("round_mode", "up", choices=CAST_ROUND_MODES))
    data = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        raise VerifyException("relay.cast needs its result type")

    def __init__(self, data: SSAValue | Operation, dtype: Attribute, **props: Any):
        v = SSAValue.get(data)
        super().__init__(v, result_types=[tensor(shape_of(_tensor_type(v.type, "data")), dtype)], **props)

    def verify_(self) -> None:
        a, r = self.data.type, self.result.type
        if shape_of(a) != shape_of(r):
            raise VerifyException(f"result shape {r} must equal the operand shape {a}")
        if not self.prop("saturate") and not isinstance(r.element_type, FLOAT8_TYPES):
            raise VerifyException(f"property 'saturate' = false applies to float8 results only, not {r.element_type}")
        if self.prop("round_mode") != "up" and not isinstance(r.element_type, Float8E8M0FNUType):
            raise VerifyException(f"property 'round_mode' applies to f8E8M0FNU results only, not {r.element_type}")

    @classmethod
    def parse_types(cls, parser, n_operands):
        parser.parse_punctuation(":")
        a = parser.parse_type()
        parser.parse_punctuation("->")
        return [a], [parser.parse_type()]

    def print_types(self, printer):
        printer.print_string(" : ")
        printer.print_attribute(self.data.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class ConstantOp(IRDLOperation):
    """A constant tensor: inline (`dense<...>`) or `external "name"`, a tensor of the
    weights file named by the enclosing module's `relay.weights` attribute."""

    name = "relay.constant"
    value = opt_prop_def(DenseIntOrFPElementsAttr)
    external = opt_prop_def(StringAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    def __init__(self, value: DenseIntOrFPElementsAttr | None = None, *, external: str | None = None,
                 type: TensorType | None = None, attributes: dict[str, Attribute] | None = None):
        props: dict[str, Attribute] = {}
        if value is not None:
            props["value"] = value
            type = value.type
        if external is not None:
            props["external"] = StringAttr(external)
        assert type is not None
        # What IRDL's builder makes, without its per-op checks (verify() checks the op).
        Operation.__init__(self, location=UNKNOWN_LOC, result_types=[type], properties=props, attributes=attributes or {})

    def verify_(self) -> None:
        if (self.value is None) == (self.external is None):
            raise VerifyException("needs exactly one of an inline value and an external name")
        if self.value is not None and self.value.type != self.result.type:
            raise VerifyException(f"value type {self.value.type} does not match the result type {self.result.type}")
        if self.external is not None:
            module = self.parent_op()
            while module is not None and not isinstance(module, ModuleOp):
                module = module.parent_op()
            if module is not None and WEIGHTS_ATTR not in module.attributes:
                raise VerifyException(
                    f"external constant '{self.external.data}' needs a '{WEIGHTS_ATTR}' attribute on the module"
                )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        if self.value is not None and _has_non_finite(self.value):
            # xDSL prints nan/inf elements as hex integers that its parser reads back as
            # numbers; the hex form of the whole buffer round-trips exactly.
            printer.print_string(f'dense<"0x{self.value.data.data.hex().upper()}"> : ')
            printer.print_attribute(self.value.type)
        elif self.value is not None:
            printer.print_attribute(self.value)
        else:
            assert self.external is not None
            printer.print_string("external ")
            printer.print_attribute(self.external)
            printer.print_string(" : ")
            printer.print_attribute(self.result.type)
        if self.attributes:
            printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser):
        if parser.parse_optional_keyword("external") is not None:
            name = parser.parse_str_literal(" naming the external tensor")
            parser.parse_punctuation(":")
            type_pos = parser.pos
            t = parser.parse_type()
            if not isinstance(t, TensorType):
                parser.raise_error(f"relay.constant needs a tensor type, got {t}", type_pos, parser.pos)
            attrs = parser.parse_optional_attr_dict()
            return cls(external=name, type=t, attributes=attrs)
        if parser.parse_optional_keyword("dense") is None:
            parser.raise_error("relay.constant expects dense<...> : tensor<...> or external \"name\"")
        value = parse_dense_literal(parser)
        attrs = parser.parse_optional_attr_dict()
        return cls(value, attributes=attrs)


# --------------------------------------------------------------------------------------
# Dense literals
# --------------------------------------------------------------------------------------


def _at_hex_literal(parser: Parser) -> bool:
    head = parser.lexer.input.content[parser.pos : parser.pos + 2]
    return (head.decode("latin-1") if isinstance(head, bytes) else head) in ("0x", "0X")


MAX_LITERAL_BYTES = 1 << 31
"""The largest dense literal the IR text may hold (2 GiB): its elements are built in
memory, several times over."""


def parse_dense_literal(parser: Parser) -> DenseIntOrFPElementsAttr:
    """`<...> : tensor<...>` after the `dense` keyword: a splat, nested lists of numbers
    or booleans, or a hex string of the little-endian buffer.

    relay.constant parses its value here rather than with xDSL's attribute parser, which
    builds an IRDL constraint for every dense literal (about 2 ms, ten times the cost of a
    whole relay op) and reads hex elements (how nan and inf print) as integers instead of
    the bit patterns that MLIR means."""
    start = parser.pos
    parser.parse_punctuation("<", " after 'dense'")
    hex_text: str | None = None
    elements: list[tuple[int | float, bool, int]] | None = None  # (value, written in hex, position)
    literal_shape: list[int] = []
    if parser.parse_optional_punctuation(">") is None:
        hex_text = parser.parse_optional_str_literal()
        if hex_text is None:
            elements, literal_shape = _parse_dense_elements(parser)
        parser.parse_punctuation(">", " to close the dense literal")
    parser.parse_punctuation(":", " before the type of the dense literal")
    type_pos = parser.pos
    t = parser.parse_type()
    end = parser.pos
    if not isinstance(t, TensorType) or not (_is_any_float(t.element_type) or isinstance(t.element_type, IntegerType)):
        parser.raise_error(f"a dense literal needs an integer or float tensor type, got {t}", type_pos, end)
    shape = shape_of(t)
    if any(d < 0 for d in shape):
        parser.raise_error(f"a dense literal needs a static shape, got {t}", type_pos, end)
    count = numel(shape)
    elem = t.element_type
    # Checked before any element is built: a huge width or count would exhaust memory.
    if isinstance(elem, IntegerType) and elem.width.data > 64:
        parser.raise_error(f"a dense literal of {t}: integers wider than 64 bits are not supported", type_pos, end)
    if count * elem.compile_time_size > MAX_LITERAL_BYTES:
        parser.raise_error(f"a dense literal of {t} takes {count * elem.compile_time_size} bytes, more than the "
                           f"{MAX_LITERAL_BYTES} a literal may have (larger constants stay in the model's file: "
                           "relay.constant external)", type_pos, end)
    if hex_text is not None:
        try:
            if hex_text[:2] not in ("0x", "0X"):
                raise ValueError
            data = bytes.fromhex(hex_text[2:])
        except ValueError:
            parser.raise_error("the hex string of a dense literal must be 0x followed by hex digit pairs", start, end)
        if len(data) == elem.compile_time_size:
            data *= count  # a splat
        if len(data) != count * elem.compile_time_size:
            parser.raise_error(f"the hex string has {len(data)} bytes, {t} needs {count * elem.compile_time_size}", start, end)
        return DenseIntOrFPElementsAttr(t, BytesAttr(data))
    if elements is None:
        if count:
            parser.raise_error(f"the dense literal is empty but {t} has {count} elements", start, end)
        elements = []
    elif not literal_shape:
        elements = elements * count  # a splat
    elif tuple(literal_shape) != shape:
        parser.raise_error(f"the dense literal has shape {literal_shape} but the type is {t}", start, end)
    values = [_dense_element(parser, value, is_hex, pos, elem) for value, is_hex, pos in elements]
    try:
        data = elem.pack(values)
    except ValueError as e:  # e.g. a negative f8E8M0FNU
        parser.raise_error(f"a dense literal of {t}: {e}", start, end)
    except OverflowError:  # a float beyond the type's finite range (struct refuses to round it to inf)
        for value, (_, _, pos) in zip(values, elements):
            try:
                elem.pack([value])
            except OverflowError:
                parser.raise_error(f"{value} is out of the range of {elem} (an infinity is written as its bits in "
                                   "hex, as MLIR prints it)", pos, pos + 1)
        raise
    return DenseIntOrFPElementsAttr(t, BytesAttr(data))


def _is_any_float(t: Attribute) -> bool:
    return is_float(t) or isinstance(t, STORAGE_FLOAT_TYPES)


def _parse_dense_elements(parser: Parser) -> tuple[list[tuple[int | float, bool, int]], list[int]]:
    """An element or a nested list: (the elements in row-major order, the list's shape)."""
    if parser.parse_optional_punctuation("[") is None:
        pos = parser.pos
        flag = parser.parse_optional_boolean()
        if flag is not None:
            return [(int(flag), False, pos)], []
        negative = parser.parse_optional_punctuation("-") is not None
        is_hex = _at_hex_literal(parser)
        number = parser.parse_optional_number()
        if number is None:
            parser.raise_error("expected a number, true or false in the dense literal")
        return [(-number if negative else number, is_hex, pos)], []
    if parser.parse_optional_punctuation("]") is not None:
        return [], [0]
    flat: list[tuple[int | float, bool, int]] = []
    inner: list[int] | None = None
    rows = 0
    while True:
        pos = parser.pos
        values, shape = _parse_dense_elements(parser)
        if inner is None:
            inner = shape
        elif shape != inner:
            parser.raise_error(f"the dense literal is not rectangular: shape {shape} after {inner}", pos, parser.pos)
        flat.extend(values)
        rows += 1
        if parser.parse_optional_punctuation(",") is None:
            break
    parser.parse_punctuation("]", " to close a list of the dense literal")
    return flat, [rows, *(inner or [])]


def _dense_element(parser: Parser, value: int | float, is_hex: bool, pos: int, elem: Attribute) -> int | float:
    if _is_any_float(elem):
        if not is_hex:
            return float(value)
        size = elem.compile_time_size
        if value < 0 or value >= 1 << (8 * size):
            parser.raise_error(f"a hex element of {elem} has at most {2 * size} digits", pos)
        return elem.unpack(int(value).to_bytes(size, "little"), 1)[0]
    assert isinstance(elem, IntegerType)
    if isinstance(value, float):
        parser.raise_error(f"expected an integer element for {elem}, got {value}", pos)
    try:
        return elem.get_normalized_value(value)
    except ValueError as e:
        parser.raise_error(str(e), pos)


def _has_non_finite(value: DenseIntOrFPElementsAttr) -> bool:
    return _is_any_float(value.get_element_type()) and not all(math.isfinite(v) for v in value.get_values())


WEIGHTS_ATTR = "relay.weights"
"""Module attribute: path of the file holding the tensors of `external` constants."""


# --------------------------------------------------------------------------------------
# Quantized ops (qnn)
# --------------------------------------------------------------------------------------


@relay_op
class QuantizeOp(RelayOp):
    """q = saturate(round_half_even(x / scale) + zero_point) (ONNX QuantizeLinear)."""

    name = "relay.qnn.quantize"
    PROPS = (Int("axis", -1),)
    data = operand_def(TensorType)
    scale = operand_def(TensorType)
    zero_point = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        raise VerifyException("relay.qnn.quantize needs its result type")

    def __init__(self, data, scale, zero_point, *, axis: int = -1):
        """The result takes the zero point's element type (as ONNX QuantizeLinear)."""
        zp = SSAValue.get(zero_point)
        d = SSAValue.get(data)
        zp_type = _tensor_type(zp.type, "zero_point")
        d_type = _tensor_type(d.type, "data")
        super().__init__(d, scale, zp, axis=axis, result_types=[tensor(shape_of(d_type), zp_type.element_type)])
        self.verify_()  # a wrong build fails here, as for the ops whose type is inferred

    def verify_(self) -> None:
        d = _tensor_type(self.data.type, "data")
        _float(d, "data")
        ax = self.prop("axis")
        _quant_param(self.scale.type, "scale", shape_of(d), ax, want_float=True)
        _quant_param(self.zero_point.type, "zero_point", shape_of(d), ax, want_float=False)
        r = self.result.type
        if shape_of(r) != shape_of(d):
            raise VerifyException(f"result shape {r} must equal the data shape {d}")
        if not is_int(r.element_type):
            raise VerifyException(f"result must have an integer element type, got {r}")
        if self.zero_point.type.element_type != r.element_type:
            raise VerifyException(
                f"operand 'zero_point' has element type {self.zero_point.type.element_type}, "
                f"expected the result's {r.element_type}"
            )


@relay_op
class DequantizeOp(RelayOp):
    """x = (q - zero_point) * scale (ONNX DequantizeLinear), f32 result."""

    name = "relay.qnn.dequantize"
    PROPS = (Int("axis", -1),)
    data = operand_def(TensorType)
    scale = operand_def(TensorType)
    zero_point = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        d = _tensor_type(ts[0], "data")
        if not is_int(d.element_type):
            raise VerifyException(f"operand 'data' must have an integer element type, got {d}")
        ds = shape_of(d)
        _quant_param(ts[1], "scale", ds, props["axis"], want_float=True)
        _quant_param(ts[2], "zero_point", ds, props["axis"], want_float=False)
        if ts[2].element_type != d.element_type:
            raise VerifyException(
                f"operand 'zero_point' has element type {ts[2].element_type}, expected the data's {d.element_type}"
            )
        return [tensor(ds, ts[1].element_type)]


@relay_op
class RequantizeOp(RelayOp):
    """q_out = saturate(round_half_even(f32((q - in_zp) * in_scale) / out_scale) + out_zp),
    computed in f32 exactly as DequantizeLinear followed by QuantizeLinear."""

    name = "relay.qnn.requantize"
    PROPS = (Int("axis", -1),)
    data = operand_def(TensorType)
    input_scale = operand_def(TensorType)
    input_zero_point = operand_def(TensorType)
    output_scale = operand_def(TensorType)
    output_zero_point = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        d = _tensor_type(ts[0], "data")
        if not is_int(d.element_type):
            raise VerifyException(f"operand 'data' must have an integer element type, got {d}")
        ds = shape_of(d)
        ax = props["axis"]
        _quant_param(ts[1], "input_scale", ds, ax, want_float=True)
        _quant_param(ts[2], "input_zero_point", ds, ax, want_float=False)
        _quant_param(ts[3], "output_scale", ds, ax, want_float=True)
        _quant_param(ts[4], "output_zero_point", ds, ax, want_float=False)
        if ts[2].element_type != d.element_type:
            raise VerifyException(
                f"operand 'input_zero_point' has element type {ts[2].element_type}, expected {d.element_type}"
            )
        return [tensor(ds, ts[4].element_type)]


@relay_op
class QnnConv2DOp(RelayOp):
    """Integer convolution: sum((x - input_zp) * (w - kernel_zp)) accumulated in i32.
    The scales ride along for the requantize that follows (TVM's qnn.conv2d)."""

    name = "relay.qnn.conv2d"
    PROPS = CONV_PROPS
    data = operand_def(TensorType)
    weight = operand_def(TensorType)
    input_zero_point = operand_def(TensorType)
    kernel_zero_point = operand_def(TensorType)
    input_scale = operand_def(TensorType)
    kernel_scale = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        d, w = _tensor_type(ts[0], "data"), _tensor_type(ts[1], "weight")
        for t, n in ((d, "data"), (w, "weight")):
            if not is_int8(t.element_type):
                raise VerifyException(f"operand '{n}' must have an 8-bit integer element type, got {t}")
        out = _conv_like(d, w, props)
        _quant_param(ts[2], "input_zero_point", shape_of(d), 1, want_float=False, scalar=True)
        _quant_param(ts[4], "input_scale", shape_of(d), 1, want_float=True, scalar=True)
        _quant_param(ts[3], "kernel_zero_point", shape_of(w), 0, want_float=False, data="weight")
        _quant_param(ts[5], "kernel_scale", shape_of(w), 0, want_float=True, data="weight")
        return [tensor(out, IntegerType(32))]


@relay_op
class QnnDenseOp(RelayOp):
    """Integer dense: data [..., K] (i8/u8), weight [N, K] (i8/u8) -> i32 [..., N]."""

    name = "relay.qnn.dense"
    data = operand_def(TensorType)
    weight = operand_def(TensorType)
    input_zero_point = operand_def(TensorType)
    kernel_zero_point = operand_def(TensorType)
    input_scale = operand_def(TensorType)
    kernel_scale = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        d, w = _tensor_type(ts[0], "data"), _tensor_type(ts[1], "weight")
        for t, n in ((d, "data"), (w, "weight")):
            if not is_int8(t.element_type):
                raise VerifyException(f"operand '{n}' must have an 8-bit integer element type, got {t}")
        ds = shape_of(d)
        n, k = _rank(w, 2, "weight")
        if not ds or ds[-1] != k:
            raise VerifyException(f"operand 'weight' has K = {k} but 'data' is {d}")
        _quant_param(ts[2], "input_zero_point", ds, -1, want_float=False, scalar=True)
        _quant_param(ts[4], "input_scale", ds, -1, want_float=True, scalar=True)
        _quant_param(ts[3], "kernel_zero_point", (n, k), 0, want_float=False, data="weight")
        _quant_param(ts[5], "kernel_scale", (n, k), 0, want_float=True, data="weight")
        return [tensor(ds[:-1] + (n,), IntegerType(32))]


@relay_op
class QnnAddOp(RelayOp):
    """Quantized add: quantize(dequantize(lhs) + dequantize(rhs)) in f32, broadcasting."""

    name = "relay.qnn.add"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    lhs_scale = operand_def(TensorType)
    lhs_zero_point = operand_def(TensorType)
    rhs_scale = operand_def(TensorType)
    rhs_zero_point = operand_def(TensorType)
    output_scale = operand_def(TensorType)
    output_zero_point = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        a, b = _tensor_type(ts[0], "lhs"), _tensor_type(ts[1], "rhs")
        for t, n in ((a, "lhs"), (b, "rhs")):
            if not is_int8(t.element_type):
                raise VerifyException(f"operand '{n}' must have an 8-bit integer element type, got {t}")
        names = ("lhs_scale", "lhs_zero_point", "rhs_scale", "rhs_zero_point", "output_scale", "output_zero_point")
        for t, n in zip(ts[2:], names):
            _quant_param(t, n, (), 0, want_float="scale" in n, scalar=True)
        for zp, data, n in ((ts[3], a, "lhs_zero_point"), (ts[5], b, "rhs_zero_point")):
            if zp.element_type != data.element_type:
                raise VerifyException(f"operand '{n}' has element type {zp.element_type}, expected {data.element_type}")
        return [tensor(broadcast_shapes(shape_of(a), shape_of(b)), ts[7].element_type)]


# --------------------------------------------------------------------------------------
# Composites
# --------------------------------------------------------------------------------------


@irdl_op_definition
class CompositeOp(IRDLOperation):
    """A matched subgraph kept together (TVM's Composite function), named `<target>.<pattern>`:

        %y = relay.composite "npu.conv2d_bias_relu" (%x, %w, %b) : (...) -> tensor<...> {
        ^bb0(%a: tensor<...>, %k: tensor<...>, %c: tensor<...>):
          ...
          relay.yield %r : tensor<...>
        }
    """

    name = "relay.composite"
    pattern = prop_def(StringAttr)
    inputs = var_operand_def(TensorType)
    outputs = var_result_def(TensorType)
    body = region_def("single_block")
    traits = traits_def(IsolatedFromAbove(), Pure())

    def __init__(self, pattern: str, inputs: Sequence[SSAValue], result_types: Sequence[Attribute], body: Region,
                 attributes: dict[str, Attribute] | None = None):
        # What IRDL's builder makes, without its per-op checks (verify() checks the op).
        Operation.__init__(self, location=UNKNOWN_LOC, operands=[SSAValue.get(v) for v in inputs], result_types=list(result_types),
                           properties={"pattern": _str_attr(pattern)}, regions=[body], attributes=attributes or {})

    def verify_(self) -> None:
        if "." not in self.pattern.data:
            raise VerifyException(f"pattern name '{self.pattern.data}' must be '<target>.<pattern>'")
        block = self.body.block
        if len(block.args) != len(self.inputs):
            raise VerifyException(f"body has {len(block.args)} arguments for {_count(len(self.inputs), 'input')}")
        for i, (a, v) in enumerate(zip(block.args, self.inputs)):
            if a.type != v.type:
                raise VerifyException(f"body argument #{i} has type {a.type}, input has {v.type}")
        term = block.last_op
        if not isinstance(term, YieldOp):
            raise VerifyException("body must end with relay.yield")
        got = [v.type for v in term.values]
        want = [r.type for r in self.outputs]
        if got != want:
            raise VerifyException(
                f"relay.yield types ({', '.join(map(str, got))}) do not match the results ({', '.join(map(str, want))})"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.pattern)
        printer.print_string(" (")
        printer.print_list(self.inputs, printer.print_operand)
        printer.print_string(")")
        if self.attributes:
            printer.print_op_attributes(self.attributes)
        printer.print_string(" : (")
        printer.print_list([v.type for v in self.inputs], printer.print_attribute)
        printer.print_string(") -> ")
        outs = [r.type for r in self.outputs]
        if len(outs) == 1:
            printer.print_attribute(outs[0])
        else:
            printer.print_string("(")
            printer.print_list(outs, printer.print_attribute)
            printer.print_string(")")
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=True)

    @classmethod
    def parse(cls, parser: Parser):
        pattern = parser.parse_str_literal()
        unresolved = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types_pos = parser.pos
        ins = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
        parser.parse_punctuation("->")
        if parser.parse_optional_punctuation("(") is not None:
            outs = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
            parser.parse_punctuation(")")
        else:
            outs = [parser.parse_type()]
        if len(ins) != len(unresolved):
            parser.raise_error(
                f"relay.composite has {_count(len(unresolved), 'input')} but {len(ins)} input types", types_pos, parser.pos
            )
        operands = [parser.resolve_operand(u, t) for u, t in zip(unresolved, ins)]
        body = parser.parse_region()
        return cls(pattern, operands, outs, body, attrs)


@irdl_op_definition
class YieldOp(IRDLOperation):
    """Terminator of a `relay.composite` body."""

    name = "relay.yield"
    values = var_operand_def(TensorType)
    traits = traits_def(IsTerminator(), HasParent(CompositeOp))
    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, *values: SSAValue | Operation):
        Operation.__init__(self, location=UNKNOWN_LOC, operands=[SSAValue.get(v) for v in values])


# --------------------------------------------------------------------------------------
# Ops that exporters emit (issue 11): resize, transposed convolution, depth/space
# rearrangement, element gather, max-pool indices, clip with run-time bounds, the
# parameters of dynamic quantization
# --------------------------------------------------------------------------------------

RESIZE_COORDINATE_MODES = ("half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners",
                           "asymmetric", "tf_half_pixel_for_nn", "tf_crop_and_resize")
RESIZE_NEAREST_MODES = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")


@relay_op
class Resize2DOp(RelayOp):
    """Resize the two spatial axes of NCHW data to `size` = [OH, OW] (ONNX Resize,
    Upsample). `scale_h`/`scale_w` map output to input coordinates as ONNX does (the
    scales a model gives; absent: OH / H and OW / W). `method = "nearest"` rounds the
    mapped coordinate with `nearest_mode`; `"linear"` and `"cubic"` (Keys' kernel with
    `cubic_coeff_a`) interpolate each axis in turn (H, then W) with ONNX's taps
    (reference.resize_taps): neighbours past the edge repeat it, or drop out with
    `exclude_outside`; `antialias` widens the filter by 1 / scale when downsampling.
    `tf_crop_and_resize` maps the output onto `roi` = [start_h, start_w, end_h, end_w]
    (fractions of the input) and gives `extrapolation_value` outside the input."""

    name = "relay.image.resize2d"
    PROPS = (
        Ints("size"),
        Float("scale_h", optional=True),
        Float("scale_w", optional=True),
        Str("method", "nearest", choices=("nearest", "linear", "cubic")),
        Str("coordinate_transformation_mode", "half_pixel", choices=RESIZE_COORDINATE_MODES),
        Str("nearest_mode", "round_prefer_floor", choices=RESIZE_NEAREST_MODES),
        Float("cubic_coeff_a", -0.75),
        Bool("exclude_outside", False),
        Bool("antialias", False),
        Floats("roi", optional=True),
        Float("extrapolation_value", 0.0),
    )
    data = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        d = _tensor_type(ts[0], "data")
        n, c, _, _ = _rank(d, 4, "data")
        if props["size"] is None:
            raise VerifyException("missing property 'size'")
        oh, ow = _len(props, "size", 2)
        _positive(props, "size")
        for name in ("scale_h", "scale_w"):
            s = props[name]
            if s is not None and not (s > 0 and math.isfinite(s)):
                raise VerifyException(f"property '{name}' must be a positive finite number, got {s}")
        if props["method"] != "nearest":
            _float(d, "data")
        elif props["antialias"] or props["coordinate_transformation_mode"] == "tf_crop_and_resize":
            raise VerifyException("'antialias' and 'tf_crop_and_resize' need method 'linear' or 'cubic'")
        roi = props["roi"]
        if (roi is not None) != (props["coordinate_transformation_mode"] == "tf_crop_and_resize"):
            raise VerifyException("property 'roi' is given exactly with 'tf_crop_and_resize'")
        if roi is not None and (len(roi) != 4 or not all(math.isfinite(v) for v in roi)):
            raise VerifyException(f"property 'roi' must be 4 finite numbers [start_h, start_w, end_h, end_w], "
                                  f"got {list(roi)}")
        return [tensor((n, c, oh, ow), d.element_type)]

    @staticmethod
    def scales(in_hw: Sequence[int], props) -> tuple[float, float]:
        """The output-to-input coordinate scales (the given ones, else size / input)."""
        out = props["size"]
        sh = props["scale_h"] if props["scale_h"] is not None else out[0] / in_hw[0]
        sw = props["scale_w"] if props["scale_w"] is not None else out[1] / in_hw[1]
        return sh, sw


def conv_transpose_out_dim(size: int, k: int, stride: int, dil: int, pad_lo: int, pad_hi: int, out_pad: int) -> int:
    return (size - 1) * stride - pad_lo - pad_hi + dil * (k - 1) + 1 + out_pad


@relay_op
class Conv2DTransposeOp(RelayOp):
    """Transposed 2-D convolution (ONNX ConvTranspose), NCHW data, weight
    [C, O / groups, KH, KW] (IOHW, as ONNX and TVM store it); padding is (top, left,
    bottom, right) and removes output cells, `output_padding` adds cells at the end."""

    name = "relay.nn.conv2d_transpose"
    PROPS = CONV_PROPS + (Ints("output_padding", (0, 0)),)
    data = operand_def(TensorType)
    weight = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        d, w = _tensor_type(ts[0], "data"), _tensor_type(ts[1], "weight")
        _float(d, "data")
        _same_elem(d, w, "data", "weight")
        n, c, h, w_ = _rank(d, 4, "data")
        wc, og, kh, kw = _rank(w, 4, "weight")
        strides = _len(props, "strides", 2)
        dilation = _len(props, "dilation", 2)
        padding = _len(props, "padding", 4)
        out_pad = _len(props, "output_padding", 2)
        for name in ("strides", "dilation"):
            _positive(props, name)
        for name in ("padding", "output_padding"):
            _non_negative(props, name)
        groups = props["groups"]
        if groups < 1 or c % groups:
            raise VerifyException(f"property 'groups' ({groups}) must be positive and divide the input channels ({c})")
        if wc != c:
            raise VerifyException(f"operand 'weight' has {wc} input channels, 'data' has {c}")
        if any(p >= max(s, dl) for p, s, dl in zip(out_pad, strides, dilation)):
            raise VerifyException(f"property 'output_padding' {list(out_pad)} must be smaller than the stride "
                                  f"or the dilation")
        oh = conv_transpose_out_dim(h, kh, strides[0], dilation[0], padding[0], padding[2], out_pad[0])
        ow = conv_transpose_out_dim(w_, kw, strides[1], dilation[1], padding[1], padding[3], out_pad[1])
        if oh < 1 or ow < 1:
            raise VerifyException(f"the padding {list(padding)} removes the whole output ({oh}x{ow})")
        return [tensor((n, og * groups, oh, ow), d.element_type)]


@relay_op
class DepthToSpaceOp(RelayOp):
    """NCHW [N, C, H, W] -> [N, C / b², H·b, W·b]; `mode` "DCR" takes the channel as
    (block row, block column, channel), "CRD" as (channel, block row, block column)."""

    name = "relay.nn.depth_to_space"
    PROPS = (Int("block_size"), Str("mode", "DCR", choices=("DCR", "CRD")))
    data = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        d = _tensor_type(ts[0], "data")
        n, c, h, w = _rank(d, 4, "data")
        b = props["block_size"]
        if b is None or b < 1:
            raise VerifyException(f"property 'block_size' must be a positive integer, got {b}")
        if c % (b * b):
            raise VerifyException(f"the channels ({c}) must be a multiple of block_size² ({b * b})")
        return [tensor((n, c // (b * b), h * b, w * b), d.element_type)]


@relay_op
class SpaceToDepthOp(RelayOp):
    """NCHW [N, C, H, W] -> [N, C·b², H / b, W / b], the inverse of depth_to_space of
    the same `mode` ("DCR": channel ordered (block row, block column, channel), ONNX's
    SpaceToDepth; "CRD": (channel, block row, block column))."""

    name = "relay.nn.space_to_depth"
    PROPS = (Int("block_size"), Str("mode", "DCR", choices=("DCR", "CRD")))
    data = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        d = _tensor_type(ts[0], "data")
        n, c, h, w = _rank(d, 4, "data")
        b = props["block_size"]
        if b is None or b < 1:
            raise VerifyException(f"property 'block_size' must be a positive integer, got {b}")
        if h % b or w % b:
            raise VerifyException(f"the spatial size {h}x{w} must be a multiple of block_size ({b})")
        return [tensor((n, c * b * b, h // b, w // b), d.element_type)]


@relay_op
class GatherOp(RelayOp):
    """y[i_0, ..., i_k] = data[i_0, ..., indices[i_0, ..., i_k], ..., i_k] with the index
    at `axis` (ONNX GatherElements, TVM's relay.gather); indices has data's rank, each
    dimension at most data's (the result has the indices' shape); negative indices count
    from the end."""

    name = "relay.gather"
    PROPS = (Int("axis", 0),)
    data = operand_def(TensorType)
    indices = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        d, ix = _data_and_indices(ts)
        ds, xs = shape_of(d), shape_of(ix)
        if not ds:
            raise VerifyException("operand 'data' must have rank >= 1")
        if len(xs) != len(ds):
            raise VerifyException(f"operand 'indices' must have the rank of 'data' ({len(ds)}), got {ix}")
        ax = normalize_axis(props["axis"], len(ds), "property 'axis'")
        for i, (a, b) in enumerate(zip(ds, xs)):
            if i != ax and b > a:
                raise VerifyException(f"operand 'indices' has {b} elements along axis {i}, 'data' only {a}")
        return [tensor(xs, d.element_type)]


@relay_op
class MaxPool2DIndicesOp(RelayOp):
    """The indices of relay.nn.max_pool2d's maxima (ONNX MaxPool's second output, i64):
    the flat index of the first maximum in data's [N, C, H, W] (row-major;
    `storage_order = 1`: column-major within each image, n·C·H·W + c·H·W + w·H + h)."""

    name = "relay.nn.max_pool2d_indices"
    PROPS = POOL_PROPS + (Int("storage_order", 0),)
    data = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        if props["pool_size"] is None:
            raise VerifyException("missing property 'pool_size'")
        if props["storage_order"] not in (0, 1):
            raise VerifyException(f"property 'storage_order' must be 0 or 1, got {props['storage_order']}")
        (pooled,) = _pool(ts, props, props["ceil_mode"])
        return [tensor(shape_of(pooled), i64)]


@relay_op
class DynClipOp(RelayOp):
    """min(max(x, a_min), a_max) with the bounds as run-time scalar tensors of x's type
    (ONNX Clip-11+ whose min/max are computed or graph inputs; TVM's `dyn` namespace
    holds ops whose attributes became operands). a_min > a_max gives a_max everywhere."""

    name = "relay.dyn.clip"
    data = operand_def(TensorType)
    a_min = operand_def(TensorType)
    a_max = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        d = _tensor_type(ts[0], "data")
        for t, name in ((ts[1], "a_min"), (ts[2], "a_max")):
            b = _tensor_type(t, name)
            _same_elem(d, b, "data", name)
            if numel(shape_of(b)) != 1 or len(shape_of(b)) > 1:
                raise VerifyException(f"operand '{name}' must be a scalar (rank 0 or [1]), got {b}")
        return [d]


class _DynamicQParamOp(RelayOp):
    """A parameter of ONNX DynamicQuantizeLinear's uint8 quantization of float32 data:
    the range [min(0, min(x)), max(0, max(x))] mapped onto [0, 255]."""

    data = operand_def(TensorType)
    result = result_def(TensorType)
    RESULT: ClassVar[Attribute]

    @classmethod
    def infer(cls, ts, props):
        d = _tensor_type(ts[0], "data")
        if d.element_type != Float32Type():
            raise VerifyException(f"operand 'data' must be a float32 tensor, got {d}")
        return [tensor((), cls.RESULT)]


@relay_op
class DynamicScaleOp(_DynamicQParamOp):
    """scale = (max - min) / 255 (1 / 255 when the range is empty), a f32 scalar."""

    name = "relay.qnn.dynamic_scale"
    RESULT = Float32Type()


@relay_op
class DynamicZeroPointOp(_DynamicQParamOp):
    """zero point = round_half_even(saturate(0 - min / scale)), a ui8 scalar."""

    name = "relay.qnn.dynamic_zero_point"
    RESULT = IntegerType(8, Signedness.UNSIGNED)


# --------------------------------------------------------------------------------------
# Scans, selection and integer bit ops (ONNX CumSum, CumProd, TopK, BitwiseAnd/Or/Xor/Not,
# BitShift, BitCast)
# --------------------------------------------------------------------------------------


class CumulativeOp(RelayOp):
    """A running sum or product along `axis` (TVM's cumsum/cumprod, ONNX CumSum/CumProd):
    y[i] = x[0] op ... op x[i]; `exclusive` leaves x[i] out (the first element is the
    identity), `reverse` runs from the end. Floats accumulate in their own type in order
    (numpy's cumsum), integers wrap in their type."""

    SAME_TYPE_SYNTAX = True
    PROPS = (Int("axis", 0), Bool("exclusive", False), Bool("reverse", False))
    data = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        d, _, _ = _numeric_along_axis(ts, props)
        return [d]


@relay_op
class CumsumOp(CumulativeOp):
    name = "relay.cumsum"


@relay_op
class CumprodOp(CumulativeOp):
    name = "relay.cumprod"


@relay_op
class TopKOp(RelayOp):
    """The `k` largest (`is_ascend`: smallest) elements along `axis`, sorted (TVM's topk
    with one result): `ret_type` "indices" gives their positions (i64), "values" the
    elements. Equal elements keep their order (the lower index first, ONNX TopK); nan
    counts as larger than every number (numpy's sort order)."""

    name = "relay.topk"
    PROPS = (Int("k"), Int("axis", -1), Bool("is_ascend", False),
             Str("ret_type", "indices", choices=("indices", "values")))
    data = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        d, ds, ax = _numeric_along_axis(ts, props)
        k = props["k"]
        if k is None or k < 0 or k > ds[ax]:
            raise VerifyException(f"property 'k' must be in [0, {ds[ax]}] (the size of axis {ax}), got {k}")
        out = ds[:ax] + (k,) + ds[ax + 1 :]
        return [tensor(out, i64 if props["ret_type"] == "indices" else d.element_type)]


class BitwiseBinaryOp(BinaryOp):
    """Elementwise op of two integer tensors of one type, numpy broadcasting."""

    @classmethod
    def infer(cls, ts, props):
        (r,) = super().infer(ts, props)
        if not is_int(r.element_type):
            raise VerifyException(f"operand 'lhs' must have an integer element type, got {ts[0]}")
        return [r]


@relay_op
class BitwiseAndOp(BitwiseBinaryOp):
    name = "relay.bitwise_and"


@relay_op
class BitwiseOrOp(BitwiseBinaryOp):
    name = "relay.bitwise_or"


@relay_op
class BitwiseXorOp(BitwiseBinaryOp):
    name = "relay.bitwise_xor"


@relay_op
class LeftShiftOp(BitwiseBinaryOp):
    """lhs << rhs in the bits of the type (signed values shift their two's complement
    bits); a shift outside [0, bits) gives 0 (ONNX BitShift, unlike C)."""

    name = "relay.left_shift"


@relay_op
class RightShiftOp(BitwiseBinaryOp):
    """lhs >> rhs, arithmetic for signed types; a shift outside [0, bits) gives 0, or -1
    for a negative signed lhs (ONNX BitShift, unlike C)."""

    name = "relay.right_shift"


@relay_op
class BitwiseNotOp(UnaryOp):
    """~x of an integer tensor."""

    name = "relay.bitwise_not"
    FLOAT_ONLY = False

    @classmethod
    def infer(cls, ts, props):
        (d,) = super().infer(ts, props)
        if not is_int(d.element_type):
            raise VerifyException(f"operand 'data' must have an integer element type, got {d}")
        return [d]


def storage_bits(t: Attribute) -> int | None:
    """Bits of one stored element (i1: a byte); None for the sub-byte types."""
    if t == i1:
        return 8
    if isinstance(t, IntegerType):
        w = t.width.data
    elif isinstance(t, (*FLOAT_TYPES, *STORAGE_FLOAT_TYPES)):
        w = t.bitwidth
    else:
        return None
    return w if w >= 8 else None


@relay_op
class ReinterpretOp(RelayOp):
    """The bits of each element read as another element type of the same size (TVM's
    reinterpret, ONNX BitCast); booleans are bytes of 0 or 1 and may be read as 8-bit
    integers, but nothing is read as a boolean."""

    name = "relay.reinterpret"
    data = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        raise VerifyException("relay.reinterpret needs its result type")

    def __init__(self, data: SSAValue | Operation, dtype: Attribute):
        v = SSAValue.get(data)
        super().__init__(v, result_types=[tensor(shape_of(_tensor_type(v.type, "data")), dtype)])

    def verify_(self) -> None:
        a, r = _tensor_type(self.data.type, "data"), self.result.type
        if not isinstance(r, TensorType) or shape_of(a) != shape_of(r):
            raise VerifyException(f"result shape {r} must equal the operand shape {a}")
        if r.element_type == i1:
            raise VerifyException(f"the result must not be boolean (its bytes could be other than 0 and 1), got {r}")
        wa, wr = storage_bits(a.element_type), storage_bits(r.element_type)
        if wa is None or wr is None or wa != wr:
            raise VerifyException(f"element types {a.element_type} and {r.element_type} must be of one size "
                                  "of at least 8 bits")

    @classmethod
    def parse_types(cls, parser, n_operands):
        return CastOp.parse_types.__func__(cls, parser, n_operands)

    def print_types(self, printer):
        CastOp.print_types(self, printer)


@relay_op
class DetOp(RelayOp):
    """The determinant of each square matrix of the last two axes (ONNX Det): LU
    elimination with partial pivoting (the first largest |pivot|) in f64, rounded once to
    the type; a zero pivot column gives 0."""

    name = "relay.det"
    data = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        d = _tensor_type(ts[0], "data")
        _float(d, "data")
        ds = shape_of(d)
        if len(ds) < 2 or ds[-1] != ds[-2]:
            raise VerifyException(f"operand 'data' must be square matrices [..., M, M], got {d}")
        return [tensor(ds[:-2], d.element_type)]


SCAN_BIT_OPS: tuple[type[IRDLOperation], ...] = (
    CumsumOp, CumprodOp, TopKOp, BitwiseAndOp, BitwiseOrOp, BitwiseXorOp, BitwiseNotOp, LeftShiftOp, RightShiftOp,
    ReinterpretOp, DetOp,
)  # fmt: skip
"""Scans, selection, integer bit ops and the determinant (host kernels: host_kernels_scan_bits.inc)."""


IMAGE_OPS: tuple[type[IRDLOperation], ...] = (
    Resize2DOp, Conv2DTransposeOp, DepthToSpaceOp, SpaceToDepthOp, GatherOp, MaxPool2DIndicesOp, DynClipOp,
    DynamicScaleOp, DynamicZeroPointOp,
)  # fmt: skip


# --------------------------------------------------------------------------------------
# Index ops: N-dimensional gather, element and N-dimensional scatter (ONNX GatherND,
# ScatterElements / Scatter, ScatterND)
# --------------------------------------------------------------------------------------

SCATTER_REDUCTIONS = ("none", "add", "mul", "max", "min")


def _scatter_operands(ts, props) -> tuple[TensorType, TensorType, TensorType]:
    """A scatter's data, indices (integers) and updates (data's element type); a reduction
    other than "none" needs numeric data."""
    d, ix = _data_and_indices(ts)
    u = _tensor_type(ts[2], "updates")
    _same_elem(d, u, "data", "updates")
    if props["reduction"] != "none" and not (is_float(d.element_type) or is_int(d.element_type)):
        raise VerifyException(f"reduction '{props['reduction']}' needs a numeric 'data', got {d}")
    return d, ix, u


@relay_op
class GatherNDOp(RelayOp):
    """ONNX GatherND: indices [b..., q..., k] (integers) pick slices of data [b..., d...]:
    y[b..., q...] = data[b..., indices[b..., q..., 0], ..., indices[b..., q..., k - 1], ...]
    after the first `batch_dims` axes, which data and indices share. The result has shape
    indices.shape[:-1] + data.shape[batch_dims + k:]; a negative index counts from the end
    of its axis, any index outside [-n, n) is an error."""

    name = "relay.gather_nd"
    PROPS = (Int("batch_dims", 0),)
    data = operand_def(TensorType)
    indices = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        d, ix = _data_and_indices(ts)
        ds, xs = shape_of(d), shape_of(ix)
        b = props["batch_dims"]
        if not ds or not xs:
            raise VerifyException("operands 'data' and 'indices' must have rank >= 1")
        if not 0 <= b < min(len(ds), len(xs)):
            raise VerifyException(f"property 'batch_dims' ({b}) must be in [0, {min(len(ds), len(xs))})")
        if xs[:b] != ds[:b]:
            raise VerifyException(f"the batch dimensions of 'indices' {list(xs[:b])} and 'data' {list(ds[:b])} differ")
        k = xs[-1]
        if not 1 <= k <= len(ds) - b:
            raise VerifyException(f"the last dimension of 'indices' ({k}) must be in [1, {len(ds) - b}]")
        return [tensor(xs[:-1] + ds[b + k :], d.element_type)]


@relay_op
class ScatterElementsOp(RelayOp):
    """ONNX ScatterElements (and Scatter-9/11): y = data, then for each position i of
    indices, y[i with i[axis] replaced by indices[i]] = updates[i] (`reduction` "none"),
    or combined with it (+, *, max, min: NaN wins). Positions in row-major order, so of
    duplicate indices the last update wins ("none"), as onnx's reference implementation.
    indices (integers) and updates have data's rank and one shape, at most data's along
    the other axes; a negative index counts from the end, any index outside [-n, n) is
    an error."""

    name = "relay.scatter_elements"
    PROPS = (Int("axis", 0), Str("reduction", "none", choices=SCATTER_REDUCTIONS))
    data = operand_def(TensorType)
    indices = operand_def(TensorType)
    updates = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        d, ix, u = _scatter_operands(ts, props)
        ds, xs = shape_of(d), shape_of(ix)
        if not ds:
            raise VerifyException("operand 'data' must have rank >= 1")
        if len(xs) != len(ds):
            raise VerifyException(f"operand 'indices' must have the rank of 'data' ({len(ds)}), got {ix}")
        if shape_of(u) != xs:
            raise VerifyException(f"operand 'updates' must have the shape of 'indices' {list(xs)}, got {u}")
        ax = normalize_axis(props["axis"], len(ds), "property 'axis'")
        for i, (a, b) in enumerate(zip(ds, xs)):
            if i != ax and b > a:
                raise VerifyException(f"operand 'indices' has {b} elements along axis {i}, 'data' only {a}")
        return [d]


@relay_op
class ScatterNDOp(RelayOp):
    """ONNX ScatterND: y = data, then for each position i of indices[..., :] (integers,
    last dimension k), the slice y[indices[i]] (data.shape[k:]) = updates[i] (`reduction`
    "none"), or combined with it (+, *, max, min: NaN wins). Positions in row-major order,
    so of duplicate indices the last update wins ("none"), as onnx's reference
    implementation. updates has shape indices.shape[:-1] + data.shape[k:]; a negative index
    counts from the end, any index outside [-n, n) is an error."""

    name = "relay.scatter_nd"
    PROPS = (Str("reduction", "none", choices=SCATTER_REDUCTIONS),)
    data = operand_def(TensorType)
    indices = operand_def(TensorType)
    updates = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        d, ix, u = _scatter_operands(ts, props)
        ds, xs = shape_of(d), shape_of(ix)
        if not ds or not xs:
            raise VerifyException("operands 'data' and 'indices' must have rank >= 1")
        k = xs[-1]
        if not 1 <= k <= len(ds):
            raise VerifyException(f"the last dimension of 'indices' ({k}) must be in [1, {len(ds)}]")
        want = xs[:-1] + ds[k:]
        if shape_of(u) != want:
            raise VerifyException(f"operand 'updates' must have shape {list(want)}, got {u}")
        return [d]


INDEX_OPS: tuple[type[IRDLOperation], ...] = (GatherNDOp, ScatterElementsOp, ScatterNDOp)


# --------------------------------------------------------------------------------------
# Vision ops whose samples come from data: grid sampling, RoI align, max unpooling
# --------------------------------------------------------------------------------------


@relay_op
class GridSampleOp(RelayOp):
    """ONNX GridSample: y[n, c, o...] = data[n, c] sampled at grid[n, o...] (normalized
    coordinates in [-1, 1], x (width) first; `align_corners`: -1 and 1 are the corner
    cells' centres, else their outer edges). data [N, C, H, W] with grid [N, OH, OW, 2],
    or [N, C, D, H, W] with grid [N, OD, OH, OW, 3]; `method` "linear" / "nearest" (half
    to even) / "cubic" (Keys, a = -0.75; 2-D only); `padding_mode` says what samples
    outside the input read: "zeros", "border" (clamped), "reflection" (mirrored)."""

    name = "relay.image.grid_sample"
    PROPS = (
        Str("method", "linear", choices=("linear", "nearest", "cubic")),
        Str("padding_mode", "zeros", choices=("zeros", "border", "reflection")),
        Bool("align_corners", False),
    )
    data = operand_def(TensorType)
    grid = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        d, g = _tensor_type(ts[0], "data"), _tensor_type(ts[1], "grid")
        _float(d, "data")
        _same_elem(d, g, "data", "grid")
        ds, gs = shape_of(d), shape_of(g)
        if len(ds) not in (4, 5):
            raise VerifyException(f"operand 'data' must have rank 4 or 5 (NCHW, NCDHW), got {d}")
        k = len(ds) - 2
        if len(gs) != len(ds) or gs[0] != ds[0] or gs[-1] != k:
            raise VerifyException(f"operand 'grid' must be [{ds[0]}, {', '.join(['?'] * k)}, {k}] for data {d}, "
                                  f"got {g}")
        if props["method"] == "cubic" and k != 2:
            raise VerifyException("method 'cubic' needs 2-D (rank-4) data")
        return [tensor((ds[0], ds[1], *gs[1:-1]), d.element_type)]


@relay_op
class RoiAlignOp(RelayOp):
    """ONNX RoiAlign: for each box r of `rois` [R, 4] (x1, y1, x2, y2 in input pixels
    times `spatial_scale`) on image `batch_indices[r]` of data [N, C, H, W], the
    [C, OH, OW] bins of its `sampling_ratio`² (0: ceil(box / bins) per axis) bilinear
    samples, averaged (`mode` "avg") or the largest weighted corner ("max").
    `coordinate_transformation_mode` "half_pixel" shifts the box by -0.5;
    "output_half_pixel" does not and makes the box at least 1x1. A batch index outside
    [0, N) is an error."""

    name = "relay.vision.roi_align"
    PROPS = (
        Int("output_height", 1),
        Int("output_width", 1),
        Int("sampling_ratio", 0),
        Float("spatial_scale", 1.0),
        Str("mode", "avg", choices=("avg", "max")),
        Str("coordinate_transformation_mode", "half_pixel", choices=("half_pixel", "output_half_pixel")),
    )
    data = operand_def(TensorType)
    rois = operand_def(TensorType)
    batch_indices = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        d, r, b = _tensor_type(ts[0], "data"), _tensor_type(ts[1], "rois"), _tensor_type(ts[2], "batch_indices")
        _float(d, "data")
        _same_elem(d, r, "data", "rois")
        _rank(d, 4, "data")
        (nr, four) = _rank(r, 2, "rois")
        if four != 4:
            raise VerifyException(f"operand 'rois' must be [R, 4], got {r}")
        if not is_int(b.element_type) or shape_of(b) != (nr,):
            raise VerifyException(f"operand 'batch_indices' must be an integer tensor of {nr} elements, got {b}")
        oh, ow = props["output_height"], props["output_width"]
        if oh < 1 or ow < 1:
            raise VerifyException(f"properties 'output_height' and 'output_width' must be positive, got {oh}, {ow}")
        if props["sampling_ratio"] < 0:
            raise VerifyException(f"property 'sampling_ratio' must be non-negative, got {props['sampling_ratio']}")
        if not math.isfinite(props["spatial_scale"]):
            raise VerifyException(f"property 'spatial_scale' must be finite, got {props['spatial_scale']}")
        return [tensor((nr, shape_of(d)[1], oh, ow), d.element_type)]


@relay_op
class RoiPoolOp(RelayOp):
    """ONNX MaxRoiPool (Fast R-CNN's RoI pooling): for each box r of `rois` [R, 5]
    (batch index, x1, y1, x2, y2 in input pixels) on image trunc(rois[r, 0]) of data
    [N, C, H, W], the [C, PH, PW] bins (`pooled_shape`) of the box's corners rounded
    (half away from zero) after the `spatial_scale`, the box at least 1x1 (its end
    cells included); bin (ph, pw) spans rows [floor(ph * bh), ceil((ph + 1) * bh)) of the
    box (bh = box height / PH, in the element type), clipped to the image; its value
    starts at the type's lowest finite value and each value of the bin, in row-major
    order, replaces it unless it is <= it (onnxruntime's loop: -inf never wins, a NaN
    does until a later number); 0 for a bin clipped to nothing. A batch index whose truncation is outside [0, N), or a
    scaled corner that is non-finite or past 2^24, is an error."""

    name = "relay.vision.roi_pool"
    PROPS = (
        Ints("pooled_shape"),
        Float("spatial_scale", 1.0),
    )
    data = operand_def(TensorType)
    rois = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        d, r = _tensor_type(ts[0], "data"), _tensor_type(ts[1], "rois")
        _float(d, "data")
        _same_elem(d, r, "data", "rois")
        _rank(d, 4, "data")
        (nr, five) = _rank(r, 2, "rois")
        if five != 5:
            raise VerifyException(f"operand 'rois' must be [R, 5], got {r}")
        ps = props["pooled_shape"]
        if ps is None or len(ps) != 2 or min(ps) < 1:
            got = None if ps is None else list(ps)
            raise VerifyException(f"property 'pooled_shape' must be two positive extents, got {got}")
        if not math.isfinite(props["spatial_scale"]):
            raise VerifyException(f"property 'spatial_scale' must be finite, got {props['spatial_scale']}")
        return [tensor((nr, shape_of(d)[1], *ps), d.element_type)]


@relay_op
class MaxUnpoolOp(RelayOp):
    """ONNX MaxUnpool's scatter: y = zeros(`shape`), then y.flat[indices[i]] = data[i]
    for every i in order (a repeated index keeps the last); indices has data's shape and
    index the whole flattened result (MaxPool's Indices); one outside [0, numel) is an
    error."""

    name = "relay.nn.max_unpool"
    PROPS = (Ints("shape"),)
    data = operand_def(TensorType)
    indices = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer(cls, ts, props):
        d, ix = _data_and_indices(ts)
        if shape_of(ix) != shape_of(d):
            raise VerifyException(f"operand 'indices' must have the shape of 'data', got {ix} and {d}")
        if props["shape"] is None:
            raise VerifyException("missing property 'shape'")
        _non_negative(props, "shape")
        return [tensor(tuple(props["shape"]), d.element_type)]


VISION_OPS: tuple[type[IRDLOperation], ...] = (GridSampleOp, RoiAlignOp, RoiPoolOp, MaxUnpoolOp)


# --------------------------------------------------------------------------------------

GRAPH_OPS: tuple[type[IRDLOperation], ...] = (
    Conv2DOp, DenseOp, MatmulOp, BatchMatmulOp, BiasAddOp,
    AddOp, SubtractOp, MultiplyOp, DivideOp,
    ReluOp, ClipOp, SigmoidOp, TanhOp, ErfOp, GeluOp, HardSigmoidOp, HardSwishOp, SiluOp, LeakyReluOp, SoftmaxOp,
    MaxPool2DOp, AvgPool2DOp, GlobalAvgPool2DOp, BatchNormOp, LayerNormOp, RMSNormOp, MeanOp,
    ReshapeOp, TransposeOp, ConcatenateOp, PadOp, BatchFlattenOp, TakeOp, CastOp, ConstantOp,
    QuantizeOp, DequantizeOp, RequantizeOp, QnnConv2DOp, QnnDenseOp, QnnAddOp,
    *MATH_OPS,
    *IMAGE_OPS,
    *SCAN_BIT_OPS,
    *INDEX_OPS,
    *VISION_OPS,
)  # fmt: skip

Relay = Dialect("relay", [*GRAPH_OPS, CompositeOp, YieldOp], [])
