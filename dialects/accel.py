"""The `accel` dialect: buffers in explicit memory spaces, DMA, and accelerator compute.

Memory spaces (memref `memory_space`): `#accel.mem<"spm">` is an accelerator's scratchpad,
`#accel.mem<"shared">` host memory the accelerator reaches directly, `#accel.mem<"dram">`
host memory seen through DMA. A memref without a memory space is host memory.

Three kinds of ops:

- `accel.kernel`: a relay computation on buffers (destination-passing style). The region
  computes on tensors; the yielded values are written into the `outs` buffers. This is
  what `bufferize` makes of every relay op, so the relay semantics stay in one place:

      accel.kernel ins(%x : memref<1x8xf32>) outs(%y : memref<1x8xf32>) {
      ^bb0(%a: tensor<1x8xf32>):
        %r = relay.nn.relu %a : tensor<1x8xf32>
        accel.yield %r : tensor<1x8xf32>
      }

- buffers and transfers: `accel.alloc` (a buffer, e.g. in the scratchpad, at an optional
  static `offset`), `accel.weight` (a read-only host buffer holding a constant),
  `accel.dma_start` (an N-d strided copy between host memory and the scratchpad; returns a
  `!accel.token`) and `accel.dma_wait`:

      %s = accel.alloc {offset = 0} : memref<1x8xf32, #accel.mem<"spm">>
      %t = accel.dma_start %x, %s : memref<1x8xf32>, memref<1x8xf32, #accel.mem<"spm">>
      accel.dma_wait %t

- compute ops (`accel.conv2d`, `accel.matmul`, `accel.pool`, `accel.eltwise`), one per
  accelerator function family, with a fused epilogue (bias, activation, requantization):

      accel.conv2d ins(%sx, %sw, %sb : ...) outs(%sy : ...) {padding = [1, 1, 1, 1], activation = "relu"}

  In a function marked `accel.placement = "dma"` (after `insert-dma`) they only read and
  write scratchpad buffers; with `"zero-copy"` (targets sharing host memory) they may
  also use host buffers. Before placement they compute on host buffers (the logical form
  produced by `lower-to-accel`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any, ClassVar

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    Float32Type,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    f64,
    i32,
    MemRefType,
    NoneAttr,
    StringAttr,
    TensorType,
    UNKNOWN_LOC,  # passed to the ops built here: xDSL's default imports it per op (a tenth of a build)
)
from xdsl.ir import Attribute, Dialect, Operation, ParametrizedAttribute, Region, SSAValue, TypeAttribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsolatedFromAbove, IsTerminator
from xdsl.utils.exceptions import VerifyException

from accel.dialects.conventions import PLACEMENT_ATTR, placement_of
from accel.dialects.relay import (
    Bool,
    Float,
    Int,
    Ints,
    PropKind,
    Str,
    conv_out_dim,
    float_array_attr,
    float_values,
    is_attribute,
    kinds_by_name,
    declare_props,
    pool_out_dim,
)

MEMORY_SPACES = ("dram", "spm", "shared")


@irdl_attr_definition
class MemSpaceAttr(ParametrizedAttribute):
    """`#accel.mem<"spm">`: where a buffer lives."""

    name = "accel.mem"
    kind: StringAttr

    def __init__(self, kind: str | StringAttr):
        super().__init__(kind if isinstance(kind, StringAttr) else StringAttr(kind))

    def verify(self) -> None:
        if self.kind.data not in MEMORY_SPACES:
            raise VerifyException(f"memory space must be one of {', '.join(MEMORY_SPACES)}, got '{self.kind.data}'")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        kind = parser.parse_str_literal()
        parser.parse_punctuation(">")
        return (StringAttr(kind),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f'<"{self.kind.data}">')


SPM = MemSpaceAttr("spm")
SHARED = MemSpaceAttr("shared")
DRAM = MemSpaceAttr("dram")


@irdl_attr_definition
class TokenType(ParametrizedAttribute, TypeAttribute):
    """`!accel.token`: completion of an asynchronous transfer."""

    name = "accel.token"


def memory_space(t: Attribute) -> str | None:
    """'spm' / 'shared' / 'dram', or None for plain host memory."""
    # Exact type tests: `isinstance` against xDSL's classes (ABCs) costs ~1 us, and this
    # is asked for every operand in every pass (neither class has subclasses).
    if type(t) is not MemRefType:
        return None
    ms = t.memory_space
    if type(ms) is MemSpaceAttr:
        return ms.kind.data
    return None


def memref_type(element_type: Attribute, shape: Sequence[int], layout: Attribute | None = None,
                space: Attribute | None = None) -> MemRefType:
    """`MemRefType(element_type, shape, layout, space)`, built once per distinct type:
    constructing one verifies its parameters (~60 us), and a compile builds the same few
    types for thousands of buffers."""
    return _memref_type(element_type, tuple(shape), _NONE if layout is None else layout,
                        _NONE if space is None else space)


_NONE = NoneAttr()


@functools.cache
def _memref_type(element_type: Attribute, shape: tuple[int, ...], layout: Attribute, space: Attribute) -> MemRefType:
    # From its parameters (still verified): `MemRefType(...)` checks a shape given as ints
    # against a generic constraint that xDSL builds anew per call (25 of its 35 us).
    return MemRefType.new((int_array(shape), element_type, layout, space))


int_attr = functools.cache(IntAttr)
"""`IntAttr(value)`, built once per value."""


@functools.cache
def int_array(values: tuple[int, ...]) -> ArrayAttr:
    """`ArrayAttr` of `IntAttr`s (a shape, a layout's strides), built once per tuple: a
    compile builds thousands of types of a few shapes."""
    return ArrayAttr(tuple(map(int_attr, values)))


def in_space(t: MemRefType, space: MemSpaceAttr | None) -> MemRefType:
    return memref_type(t.element_type, t.get_shape(), t.layout, space)


def _memref(t: Attribute, what: str) -> MemRefType:
    if not isinstance(t, MemRefType):
        raise VerifyException(f"{what} must be a memref, got {t}")
    return t


@functools.cache
def _segment_sizes(sizes: tuple[int, ...]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i32, sizes)


def _shape(t: Attribute) -> tuple[int, ...]:
    return tuple(t.get_shape())


# --------------------------------------------------------------------------------------
# Bufferized relay computation
# --------------------------------------------------------------------------------------


@irdl_op_definition
class KernelOp(IRDLOperation):
    """A relay computation in destination-passing style (see the module docstring)."""

    name = "accel.kernel"
    ins = var_operand_def(MemRefType)
    outs = var_operand_def(MemRefType)
    body = region_def("single_block")
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(IsolatedFromAbove())

    def __init__(self, ins: Sequence[SSAValue], outs: Sequence[SSAValue], body: Region,
                 attributes: dict[str, Attribute] | None = None):
        # What IRDL's builder makes, without its per-op checks (verify() checks the op).
        ins, outs = [SSAValue.get(v) for v in ins], [SSAValue.get(v) for v in outs]
        Operation.__init__(self, location=UNKNOWN_LOC, operands=[*ins, *outs], regions=[body], attributes=attributes or {},
                           properties={AttrSizedOperandSegments.attribute_name: _segment_sizes((len(ins), len(outs)))})

    def verify_(self) -> None:
        block = self.body.block
        if len(block.args) != len(self.ins):
            raise VerifyException(f"body has {len(block.args)} arguments for {len(self.ins)} inputs")
        for i, (arg, buf) in enumerate(zip(block.args, self.ins)):
            if not isinstance(arg.type, TensorType) or _shape(arg.type) != _shape(buf.type) or \
                    arg.type.element_type != buf.type.element_type:
                raise VerifyException(f"body argument #{i} {arg.type} does not match input buffer {buf.type}")
        term = block.last_op
        if not isinstance(term, YieldOp):
            raise VerifyException("body must end with accel.yield")
        if len(term.values) != len(self.outs):
            raise VerifyException(f"accel.yield has {len(term.values)} values for {len(self.outs)} outputs")
        for i, (v, buf) in enumerate(zip(term.values, self.outs)):
            if _shape(v.type) != _shape(buf.type) or v.type.element_type != buf.type.element_type:
                raise VerifyException(f"yielded value #{i} {v.type} does not match output buffer {buf.type}")

    def print(self, printer: Printer) -> None:
        _print_ins_outs(printer, self.ins, self.outs)
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=True)

    @classmethod
    def parse(cls, parser: Parser):
        ins, outs = _parse_ins_outs(parser)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        body = parser.parse_region()
        return cls(ins, outs, body, attrs.data if attrs is not None else None)


@irdl_op_definition
class YieldOp(IRDLOperation):
    """Terminator of `accel.kernel`: the tensors written to its `outs`."""

    name = "accel.yield"
    values = var_operand_def(TensorType)
    traits = traits_def(IsTerminator(), HasParent(KernelOp))
    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, *values: SSAValue | Operation):
        Operation.__init__(self, location=UNKNOWN_LOC, operands=[SSAValue.get(v) for v in values])


def _print_ins_outs(printer: Printer, ins: Sequence[SSAValue], outs: Sequence[SSAValue]) -> None:
    for kw, vals in (("ins", ins), ("outs", outs)):
        printer.print_string(f" {kw}(")
        printer.print_list(vals, printer.print_operand)
        if vals:
            printer.print_string(" : ")
            printer.print_list([v.type for v in vals], printer.print_attribute)
        printer.print_string(")")


def _parse_ins_outs(parser: Parser) -> tuple[list[SSAValue], list[SSAValue]]:
    groups = []
    for kw in ("ins", "outs"):
        parser.parse_keyword(kw)
        parser.parse_punctuation("(")
        names = []
        if parser.parse_optional_punctuation(")") is None:
            names = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
            parser.parse_punctuation(":")
            types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
            parser.parse_punctuation(")")
            if len(types) != len(names):
                parser.raise_error(f"{len(names)} {kw} operands but {len(types)} types")
            groups.append([parser.resolve_operand(n, t) for n, t in zip(names, types)])
        else:
            groups.append([])
    return groups[0], groups[1]


# --------------------------------------------------------------------------------------
# Buffers and transfers
# --------------------------------------------------------------------------------------


@irdl_op_definition
class AllocOp(IRDLOperation):
    """A buffer; in the scratchpad it gets a static byte `offset` from the planner."""

    name = "accel.alloc"
    offset = opt_prop_def(Int("offset").constraint())
    result = result_def(MemRefType)

    def __init__(self, type: MemRefType, offset: int | None = None):
        props = {"offset": Int("offset").to_attr(offset)} if offset is not None else {}
        # What IRDL's builder makes, without its per-op checks (verify() checks the op).
        Operation.__init__(self, location=UNKNOWN_LOC, result_types=[type], properties=props)

    def verify_(self) -> None:
        if self.offset is not None and self.offset.value.data < 0:
            raise VerifyException(f"offset must be non-negative, got {self.offset.value.data}")

    def print(self, printer: Printer) -> None:
        # One dictionary: the offset first, then discardable attributes.
        entries: list[tuple[str, Attribute | str]] = []
        if self.offset is not None:
            entries.append(("offset", str(self.offset.value.data)))
        entries.extend(self.attributes.items())
        if entries:
            printer.print_string(" {")
            for i, (name, value) in enumerate(entries):
                if i:
                    printer.print_string(", ")
                printer.print_identifier_or_string_literal(name)
                printer.print_string(" = ")
                if isinstance(value, str):
                    printer.print_string(value)
                else:
                    printer.print_attribute(value)
            printer.print_string("}")
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser):
        entries = parser.parse_optional_attr_dict()
        offset = entries.pop("offset", None)
        if offset is not None and not isinstance(offset, IntegerAttr):
            parser.raise_error(f"accel.alloc: offset must be an integer, got {offset}")
        parser.parse_punctuation(":")
        t = parser.parse_type()
        if not isinstance(t, MemRefType):
            parser.raise_error(f"accel.alloc needs a memref type, got {t}")
        op = cls(t, offset.value.data if offset is not None else None)
        op.attributes.update(entries)
        return op


@irdl_op_definition
class WeightOp(IRDLOperation):
    """A read-only host buffer holding a constant (inline, or `external "name"` in the
    module's weights file, as for `relay.constant`)."""

    name = "accel.weight"
    value = opt_prop_def(DenseIntOrFPElementsAttr)
    external = opt_prop_def(StringAttr)
    result = result_def(MemRefType)

    def __init__(self, type: MemRefType, value: DenseIntOrFPElementsAttr | None = None, external: str | None = None):
        props: dict[str, Attribute] = {}
        if value is not None:
            props["value"] = value
        if external is not None:
            props["external"] = StringAttr(external)
        Operation.__init__(self, location=UNKNOWN_LOC, result_types=[type], properties=props)  # IRDL's builder, without its checks

    def verify_(self) -> None:
        if (self.value is None) == (self.external is None):
            raise VerifyException("needs exactly one of an inline value and an external name")
        t = self.result.type
        if self.value is not None and (_shape(self.value.type) != _shape(t) or
                                       self.value.type.element_type != t.element_type):
            raise VerifyException(f"value type {self.value.type} does not match the buffer {t}")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        if self.value is not None:
            printer.print_attribute(self.value)
        else:
            printer.print_string("external ")
            printer.print_attribute(self.external)
        if self.attributes:
            printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser):
        value = None
        external = None
        if parser.parse_optional_keyword("external") is not None:
            external = parser.parse_str_literal()
        else:
            value = parser.parse_attribute()
            if not isinstance(value, DenseIntOrFPElementsAttr):
                parser.raise_error("accel.weight expects dense<...> : tensor<...> or external \"name\"")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        if not isinstance(t, MemRefType):
            parser.raise_error(f"accel.weight needs a memref type, got {t}")
        op = cls(t, value, external)
        op.attributes.update(attrs)
        return op


MAX_TRANSFER_RANK = 4
"""A DMA transfer (and so every buffer an accelerator reads or writes) has at most this
many dimensions (the simulator's and the vendor APIs' descriptors)."""


_TOKEN = TokenType()
_INDEX = IndexType()


@irdl_op_definition
class DmaStartOp(IRDLOperation):
    """Starts an N-d strided copy `source -> dest` between host memory and a scratchpad,
    or within the scratchpad (a copy on the device: tiles assembled into one buffer);
    both views have the same shape and element type, their layouts give the strides.

    A *guarded* transfer (`accel.dma_start %s, %d if %a < %b : ...`) is issued only when
    the index `a` is less than `b` (signed); the token of one not issued is complete (a
    wait for it returns at once). Double buffering guards the prefetch of the next tile,
    which the last iteration of a loop has none of."""

    name = "accel.dma_start"
    source = operand_def(MemRefType)
    dest = operand_def(MemRefType)
    guard = var_operand_def(IndexType)
    """Empty, or (a, b): issued only when a < b."""
    token = result_def(TokenType)

    def __init__(self, source: SSAValue | Operation, dest: SSAValue | Operation,
                 guard: tuple[SSAValue | Operation, SSAValue | Operation] | None = None):
        operands = [SSAValue.get(source), SSAValue.get(dest)]
        if guard is not None:
            operands += [SSAValue.get(guard[0]), SSAValue.get(guard[1])]
        Operation.__init__(self, location=UNKNOWN_LOC, operands=operands, result_types=[_TOKEN])

    def verify_(self) -> None:
        s, d = self.source.type, self.dest.type
        if _shape(s) != _shape(d) or s.element_type != d.element_type:
            raise VerifyException(f"source {s} and dest {d} must have the same shape and element type")
        if "spm" not in (memory_space(s), memory_space(d)):
            raise VerifyException(f"a transfer goes between host memory and a scratchpad or within a scratchpad, "
                                  f"got {s} -> {d}")
        if not 1 <= len(_shape(s)) <= MAX_TRANSFER_RANK:
            raise VerifyException(f"transfers have rank 1 to {MAX_TRANSFER_RANK}, got {s}")
        if len(self.operands) not in (2, 4):
            raise VerifyException(f"a guard is two index operands (issued when the first is less than the second), "
                                  f"got {len(self.operands) - 2}")

    @property
    def guarded(self) -> bool:
        """Whether the transfer has a guard (see the class docstring)."""
        return len(self._operands) == 4  # (the tuple: xDSL's `operands` builds a view per access)

    @property
    def guard_pair(self) -> tuple[SSAValue, SSAValue] | None:
        """(a, b) of the guard `if a < b`, or None."""
        ops = self._operands
        return (ops[2], ops[3]) if len(ops) == 4 else None

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        printer.print_string(", ")
        printer.print_operand(self.dest)
        if self.guarded:
            a, b = self.guard_pair
            printer.print_string(" if ")
            printer.print_operand(a)
            printer.print_string(" < ")
            printer.print_operand(b)
        if self.attributes:
            printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)
        printer.print_string(", ")
        printer.print_attribute(self.dest.type)

    @classmethod
    def parse(cls, parser: Parser):
        source = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        dest = parser.parse_unresolved_operand()
        guard = None
        if parser.parse_optional_keyword("if") is not None:
            lhs = parser.parse_operand(_INDEX)
            parser.parse_punctuation("<", " in a guard: `if %a < %b` (issued while a < b)")
            if parser.parse_optional_punctuation("=") is not None:
                parser.raise_error("a guard compares with '<' only: `if %a < %b` (issued while a < b)")
            guard = (lhs, parser.parse_operand(_INDEX))
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source_type = parser.parse_type()
        parser.parse_punctuation(",")
        dest_type = parser.parse_type()
        op = cls(parser.resolve_operand(source, source_type), parser.resolve_operand(dest, dest_type), guard)
        op.attributes.update(attrs)
        return op

    @property
    def to_device(self) -> bool:
        """Host memory -> scratchpad."""
        return memory_space(self.dest.type) == "spm" and memory_space(self.source.type) != "spm"

    @property
    def to_host(self) -> bool:
        """Scratchpad -> host memory."""
        return memory_space(self.dest.type) != "spm"

    @property
    def on_device(self) -> bool:
        """Scratchpad -> scratchpad (`dma_on_device` of the target's API)."""
        return memory_space(self.dest.type) == "spm" and memory_space(self.source.type) == "spm"


@irdl_op_definition
class DmaWaitOp(IRDLOperation):
    """Waits until the given transfers have completed."""

    name = "accel.dma_wait"
    tokens = var_operand_def(TokenType)
    assembly_format = "$tokens attr-dict"

    def __init__(self, *tokens: SSAValue | Operation):
        Operation.__init__(self, location=UNKNOWN_LOC, operands=[SSAValue.get(t) for t in tokens])


# --------------------------------------------------------------------------------------
# Compute ops
# --------------------------------------------------------------------------------------

ACTIVATION = (
    Str("activation", "none", choices=("none", "relu", "clip")),
    Float("clip_min", float("-inf")),
    Float("clip_max", float("inf")),
)

# Quantized epilogue (int8 ops): acc (int32) -> f32(acc * in_scale[c]) / out_scale,
# rounded half to even, + out_zero_point, saturated; inputs are offset by their zero points.
class Floats(PropKind):
    """A list of floats (`[0.5, 0.25]`), stored as `array<f64: ...>`; float32 scales are
    exact in f64, so they round-trip bit for bit."""

    def constraint(self):
        return DenseArrayBase.constr(f64)

    def to_attr(self, value):
        return float_array_attr(value)

    def to_python(self, attr):
        return float_values(attr)

    def from_parsed(self, attr):
        if isinstance(attr, DenseArrayBase) and attr.elt_type == f64:
            return attr
        if isinstance(attr, ArrayAttr) and all(isinstance(a, (FloatAttr, IntegerAttr)) for a in attr.data):
            return self.to_attr([a.value.data for a in attr.data])
        return None

    def format(self, attr):
        return "[" + ", ".join(repr(float(v)) for v in attr.get_values()) + "]"

    def expected(self):
        return "a list of floats like [0.5, 0.25]"


QUANT = (
    Int("input_zero_point", 0),
    Ints("weight_zero_point", ()),  # one per output channel, or one, or none (= 0)
    Floats("in_scale", ()),  # input_scale * weight_scale[c], one per output channel or one
    Float("out_scale", 1.0),
    Int("output_zero_point", 0),
)


class ComputeOp(IRDLOperation):
    """Base of accelerator compute ops: `ins(...) outs(%out)` plus properties."""

    PROPS: ClassVar[tuple[PropKind, ...]] = ()
    N_INPUTS: ClassVar[tuple[int, ...]] = (1,)

    inputs = var_operand_def(MemRefType)
    output = operand_def(MemRefType)

    def __init__(self, inputs: Sequence[SSAValue], output: SSAValue, attributes: dict[str, Attribute] | None = None,
                 **props: Any):
        properties: dict[str, Attribute] = {}
        for kind in self.PROPS:
            v = props.pop(kind.name, None)
            if v is None:
                v = kind.default
            if v is None:
                continue
            properties[kind.name] = v if is_attribute(v) else kind.to_attr(v)
        if props:
            raise TypeError(f"{self.name} has no properties {sorted(props)}")
        # What IRDL's builder makes (one variadic operand group: no segment sizes), without
        # its per-op checks (verify() checks the op).
        Operation.__init__(self, location=UNKNOWN_LOC, operands=[*(SSAValue.get(v) for v in inputs), SSAValue.get(output)],
                           properties=properties, attributes=attributes or {})

    def prop(self, name: str) -> Any:
        kind = kinds_by_name(type(self))[name]
        attr = self.properties.get(name)
        return kind.default if attr is None else kind.to_python(attr)

    @property
    def is_quantized(self) -> bool:
        from accel.dialects.relay import is_int8

        return is_int8(self.output.type.element_type)

    @property
    def reads_output(self) -> bool:
        """Whether the op reads what its output holds (an accumulating product)."""
        return False

    def verify_(self) -> None:
        if len(self.inputs) not in self.N_INPUTS:
            raise VerifyException(f"expects {' or '.join(map(str, self.N_INPUTS))} inputs, got {len(self.inputs)}")
        for kind in self.PROPS:
            attr = self.properties.get(kind.name)
            if attr is not None and not kind.is_stored_form(attr) and kind.from_parsed(attr) is None:
                raise VerifyException(f"property '{kind.name}' must be {kind.expected()}, got {attr}")
        self.verify_placement()
        self.verify_shapes()

    def verify_placement(self) -> None:
        fn = self.parent_op()
        while fn is not None and PLACEMENT_ATTR not in fn.attributes:
            fn = fn.parent_op()
        if fn is None:
            return
        allowed = {"spm"} if placement_of(fn) == "dma" else {"spm", "shared", None}
        for i, v in enumerate([*self.inputs, self.output]):
            space = memory_space(v.type)
            if space not in allowed:
                what = f"input #{i}" if i < len(self.inputs) else "output"
                raise VerifyException(
                    f"{what} is in {space or 'host'} memory; after insert-dma accelerator ops only use the scratchpad"
                )

    def verify_shapes(self) -> None:
        """Checks of the operand shapes; messages are formatted only on failure (printing
        a type costs more than the check)."""

    def print(self, printer: Printer) -> None:
        _print_ins_outs(printer, self.inputs, [self.output])
        entries = []
        for kind in self.PROPS:
            attr = self.properties.get(kind.name)
            if attr is None or (kind.default is not None and attr == kind.to_attr(kind.default)):
                continue
            entries.append(f"{kind.name} = {kind.format(attr)}")
        if entries:
            printer.print_string(" {" + ", ".join(entries) + "}")
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)

    @classmethod
    def parse(cls, parser: Parser):
        ins, outs = _parse_ins_outs(parser)
        if len(outs) != 1:
            parser.raise_error(f"{cls.name} has exactly one output")
        entries = parser.parse_optional_attr_dict()
        props: dict[str, Any] = {}
        for kind in cls.PROPS:
            if kind.name in entries:
                v = kind.from_parsed(entries.pop(kind.name))
                if v is None:
                    parser.raise_error(f"property '{kind.name}' of '{cls.name}' must be {kind.expected()}")
                props[kind.name] = v
        if entries:
            parser.raise_error(f"'{cls.name}' has no property '{next(iter(entries))}'")
        attrs = parser.parse_optional_attr_dict_with_keyword()
        op = cls(ins, outs[0], **props)
        if attrs is not None:
            op.attributes.update(attrs.data)
        return op


def compute_op(cls):
    """Class decorator: declare the properties listed in `PROPS`, then define the op."""
    return irdl_op_definition(declare_props(cls))


@compute_op
class Conv2DOp(ComputeOp):
    """Convolution (NCHW/OIHW) with optional bias, activation and int8 requantization."""

    name = "accel.conv2d"
    N_INPUTS = (2, 3)
    PROPS = (
        Ints("strides", (1, 1)), Ints("padding", (0, 0, 0, 0)), Ints("dilation", (1, 1)), Int("groups", 1),
        *ACTIVATION, *QUANT,
    )

    def verify_shapes(self) -> None:
        x, w = _shape(self.inputs[0].type), _shape(self.inputs[1].type)
        y = _shape(self.output.type)
        if not (len(x) == 4 and len(w) == 4 and len(y) == 4):
            raise VerifyException("data, weight and output must be 4-D")
        g = self.prop("groups")
        if not (w[1] * g == x[1] and w[0] == y[1] and x[0] == y[0]):
            raise VerifyException(f"inconsistent channels: data {list(x)}, weight {list(w)}, output {list(y)}, "
                                  f"groups {g}")
        s, p, d = self.prop("strides"), self.prop("padding"), self.prop("dilation")
        oh = conv_out_dim(x[2], w[2], s[0], d[0], p[0], p[2])
        ow = conv_out_dim(x[3], w[3], s[1], d[1], p[1], p[3])
        if (oh, ow) != y[2:]:
            raise VerifyException(f"output is {list(y)}, expected spatial size {[oh, ow]}")
        if len(self.inputs) == 3:
            if _shape(self.inputs[2].type) != (w[0],):
                raise VerifyException(f"bias must have {w[0]} elements")


def broadcasts_as_rows(rhs: Sequence[int], out: Sequence[int]) -> bool:
    """Whether an elementwise rhs of shape `rhs` broadcasts over `out` as accel.eltwise
    reads it: one element, or `out`'s trailing dims (leading 1s aside), repeated."""
    rhs, out = tuple(rhs), tuple(out)
    if math.prod(rhs) == 1:
        return True
    core = rhs
    while core and core[0] == 1:
        core = core[1:]
    return len(rhs) <= len(out) and core == out[len(out) - len(core):]


@compute_op
class MatmulOp(ComputeOp):
    """out[M, N] = data[M, K] x weight (weight [N, K] when `transpose_b`, the dense form),
    optional bias [N], activation and int8 requantization. A vector data [K] gives [N].
    Batched: operands [..., M, K] x [..., K, N] -> [..., M, N] with the same leading dims
    (both operands activations: attention's QKᵀ and PV). With `accumulate` the product is
    added to what `out` holds (a K tile of a product split along K, float only): out =
    act(out + data x weight + bias)."""

    name = "accel.matmul"
    N_INPUTS = (2, 3)
    PROPS = (Bool("transpose_a", False), Bool("transpose_b", True), Bool("accumulate", False), *ACTIVATION, *QUANT)

    def verify_shapes(self) -> None:
        a, b, y = (_shape(self.inputs[0].type), _shape(self.inputs[1].type), _shape(self.output.type))
        if len(a) == 1 and len(y) == 1 and not self.prop("transpose_a"):
            a, y = (1, a[0]), (1, y[0])  # a vector is one row
        if len(y) > 2:
            if not (a[:-2] == b[:-2] == y[:-2]):
                raise VerifyException(f"batch dims of {list(a)} x {list(b)} -> {list(y)} differ")
            a, b, y = a[-2:], b[-2:], y[-2:]
        if not (len(a) == 2 and len(b) == 2 and len(y) == 2):
            raise VerifyException("operands must be 2-D (or a vector data row)")
        m, k = (a[1], a[0]) if self.prop("transpose_a") else a
        n, k2 = b if self.prop("transpose_b") else (b[1], b[0])
        if not (k == k2 and y == (m, n)):
            raise VerifyException(f"shapes {list(a)} x {list(b)} -> {list(y)} do not agree")
        if len(self.inputs) == 3:
            if _shape(self.inputs[2].type) != (n,):
                raise VerifyException(f"bias must have {n} elements")
        if self.prop("accumulate") and self.is_quantized:
            raise VerifyException("an int8 product cannot accumulate")

    @property
    def reads_output(self) -> bool:
        return self.prop("accumulate")


@compute_op
class PoolOp(ComputeOp):
    """Max or average 2-D pooling; int8 pools dequantize, pool and requantize."""

    name = "accel.pool"
    PROPS = (
        Str("kind", "max", choices=("max", "avg")), Ints("pool_size", (1, 1)), Ints("strides", (1, 1)),
        Ints("dilation", (1, 1)), Ints("padding", (0, 0, 0, 0)), Bool("ceil_mode", False),
        Bool("count_include_pad", False), *QUANT,
    )

    def verify_shapes(self) -> None:
        x, y = _shape(self.inputs[0].type), _shape(self.output.type)
        if not (len(x) == 4 and len(y) == 4 and x[:2] == y[:2]):
            raise VerifyException(f"input {list(x)} and output {list(y)} disagree")
        k, s, d, p = self.prop("pool_size"), self.prop("strides"), self.prop("dilation"), self.prop("padding")
        c = self.prop("ceil_mode")
        oh = pool_out_dim(x[2], k[0], s[0], d[0], p[0], p[2], c)
        ow = pool_out_dim(x[3], k[1], s[1], d[1], p[1], p[3], c)
        if (oh, ow) != y[2:]:
            raise VerifyException(f"output is {list(y)}, expected spatial size {[oh, ow]}")


@compute_op
class EltwiseOp(ComputeOp):
    """Elementwise `add`/`sub`/`mul`/`div` of two buffers, unary `relu`/`clip`/`sigmoid`/
    `tanh`/`gelu`/`silu`/`sqrt`/`exp`/`log` of one, with a fused activation; int8 forms dequantize the
    inputs, compute in f32 and quantize. The rhs of a binary kind has the output's shape,
    or one element (a scalar), or the output's trailing dims (a row broadcast, e.g. an
    attention mask over heads). Row kinds work along the last axis: `softmax`,
    `layer_norm` with optional gamma and beta [D] (inputs 1 and 2) and `epsilon`, and
    `rms_norm` with an optional gamma [D] (input 1) and `epsilon`. `lut` maps each 8-bit
    element through `table` (256 values of the output's type, indexed by the input's
    byte: an int8 -1 reads entry 255), what an int8 activation between a dequantize and a
    quantize is. `quantize` (f32 to 8-bit, `out_scale`, `output_zero_point`) and
    `dequantize` (8-bit to f32, `lhs_scale`, `lhs_zero_point`) convert alone: the ends of a
    float island of a quantized model."""

    name = "accel.eltwise"
    N_INPUTS = (1, 2, 3)
    BINARY: ClassVar[tuple[str, ...]] = ("add", "sub", "mul", "div")
    UNARY: ClassVar[tuple[str, ...]] = ("relu", "clip", "sigmoid", "tanh", "gelu", "silu", "gelu_tanh", "sqrt", "exp",
                                        "log")
    ROWS: ClassVar[tuple[str, ...]] = ("softmax", "layer_norm", "rms_norm")
    CONVERT: ClassVar[tuple[str, ...]] = ("quantize", "dequantize")
    LOOKUP: ClassVar[str] = "lut"
    TABLE_SIZE: ClassVar[int] = 256
    PROPS = (
        Str("kind", "add", choices=(*BINARY, *UNARY, *ROWS, LOOKUP, *CONVERT)), *ACTIVATION,
        Float("lhs_scale", 1.0), Int("lhs_zero_point", 0), Float("rhs_scale", 1.0), Int("rhs_zero_point", 0),
        Float("out_scale", 1.0), Int("output_zero_point", 0), Float("epsilon", 1e-5), Ints("table", ()),
    )

    PASSES: ClassVar[dict[str, int]] = {"softmax": 3, "layer_norm": 3, "rms_norm": 2}
    """Passes over the data per kind (1 when not listed): a row op reads each row three
    times (max or mean, sum or variance, output), an RMS norm twice (the sum of squares,
    output). The simulator charges the same (`SIM_ROW_PASSES`, `SIM_RMS_PASSES`)."""

    def verify_shapes(self) -> None:
        kind = self.prop("kind")
        y = _shape(self.output.type)
        n = {**dict.fromkeys(self.BINARY, (2,)), **dict.fromkeys(self.UNARY, (1,)),
             "softmax": (1,), "layer_norm": (1, 3), "rms_norm": (1, 2), self.LOOKUP: (1,),
             **dict.fromkeys(self.CONVERT, (1,))}[kind]
        if len(self.inputs) not in n:
            raise VerifyException(f"'{kind}' takes {' or '.join(map(str, n))} inputs")
        if (kind == self.LOOKUP) != bool(self.prop("table")):
            raise VerifyException("'lut' takes a table, and only 'lut' does")
        if kind == self.LOOKUP:
            bits = [getattr(v.type.element_type, "bitwidth", 0) for v in (self.inputs[0], self.output)]
            if len(self.prop("table")) != self.TABLE_SIZE or bits != [8, 8]:
                raise VerifyException(f"'lut' maps 8-bit data through a table of {self.TABLE_SIZE} values")
        if kind in self.CONVERT:
            wide, narrow = (self.inputs[0], self.output) if kind == "quantize" else (self.output, self.inputs[0])
            if not (isinstance(wide.type.element_type, Float32Type) and
                    isinstance(narrow.type.element_type, IntegerType) and narrow.type.element_type.bitwidth == 8):
                raise VerifyException(f"'{kind}' converts {'f32 to 8-bit' if kind == 'quantize' else '8-bit to f32'} "
                                      f"data, got {self.inputs[0].type.element_type} to {self.output.type.element_type}")
        if _shape(self.inputs[0].type) != y:
            raise VerifyException(f"input #0 {self.inputs[0].type} must have the output's shape {list(y)}")
        if kind in self.BINARY:
            b = _shape(self.inputs[1].type)
            if not (b == y or broadcasts_as_rows(b, y)):
                raise VerifyException(f"input #1 {self.inputs[1].type} must have the output's shape {list(y)}, "
                                      "one element or its trailing dims")
        if kind in ("layer_norm", "rms_norm") and len(self.inputs) > 1:
            for i in range(1, len(self.inputs)):
                if _shape(self.inputs[i].type) != y[-1:]:
                    raise VerifyException(f"input #{i} {self.inputs[i].type} must be [{y[-1]}]")


COMPUTE_OPS = (Conv2DOp, MatmulOp, PoolOp, EltwiseOp)

Accel = Dialect(
    "accel",
    [KernelOp, YieldOp, AllocOp, WeightOp, DmaStartOp, DmaWaitOp, *COMPUTE_OPS],
    [MemSpaceAttr, TokenType],
)
