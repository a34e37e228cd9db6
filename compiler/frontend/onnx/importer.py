"""ONNX model -> relay module with `@main`.

    model.onnx (opset 9..28)                      relay
    ─────────────────────────                     ──────────────────────────────────────
    input  x: float[1,3,8,8]                      func.func @main(%x: tensor<1x3x8x8xf32>
    init   w: float[8,3,3,3]                                      {accel.name = "x"})
    Conv(x, w, b) name=conv_1        ─────▶         %w = relay.constant external "w" : ...
    Relu name=relu_1                                %0 = relay.nn.conv2d %x, %w {...} loc("conv_1")
    output y                                        %1 = relay.nn.bias_add %0, %b loc("conv_1")
                                                    %y = relay.nn.relu %1 loc("relu_1")
                                                    func.return %y {accel.name = "y"}

Loading: the model is parsed (external data `model.onnx.data` is read from the model's
directory), local functions are inlined, and a model whose default opset is below 9 is
first brought to opset 13 with `onnx.version_converter.convert_version` (e.g. the
opset-6 `pytorch-converted` test models); from opset 9 on, every op is imported with the
semantics of its own version. Opset domains that no node uses are ignored.

Graph inputs that are also initializers (IR 3 lists every initializer as an input; from
IR 4 on that marks a default value) are constants: the model is compiled as shipped.
Values known at import time (initializers, `Constant` nodes, and everything computed only
from them and from static shapes: `Shape -> Gather -> Unsqueeze -> Concat -> Reshape`
chains, `ConstantOfShape`, ...) are evaluated with numpy; the rest becomes relay ops.
Tensors of more than `INLINE_LIMIT` elements that are stored in the model file become
`relay.constant external "<tensor name>"` and the module records the file in
`relay.weights`; everything else is inline.

Every error is a `CompileError` with one line naming the node, its op type and what is
not supported (or the graph input and dimension that is dynamic).
"""

from __future__ import annotations

import os
import warnings
from collections import ChainMap
from collections.abc import MutableMapping

import numpy as np
import onnx
from onnx import defs
from xdsl.dialects.builtin import (
    BytesAttr,
    DenseIntOrFPElementsAttr,
    ModuleOp,
    NameLoc,
    NoneAttr,
    StringAttr,
)
from xdsl.ir import Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

from accel.compiler.diagnostics import CompileError, ModelWarning, one_line
from accel.compiler.frontend.builder import GraphBuilder, ssa_name_hint
from accel.compiler.frontend.graph_inputs import OPTION, SHAPES_OPTION, Bindings, GraphInputs, Shapes, bound_value, given_shape
from accel.compiler.frontend.onnx.context import (
    MICROSOFT_DOMAIN,
    MICROSOFT_OPS,
    ORT_OPS_OF_THE_ONNX_DOMAIN,
    OPS,
    PREVIEW_DOMAIN,
    PREVIEW_OPS,
    Const,
    Node,
    OptValue,
    SeqValue,
    Value,
    node_attributes,
    node_display_name,
    np_dtype_of,
    onnx_dtype_name,
    tensor_to_array,
    verify_message,
)
from accel.compiler.tensors import UnsupportedDtype, dense_from_array, register_weights, tensor_type
from accel.dialects import relay
from accel.dialects.relay import WEIGHTS_ATTR

INLINE_LIMIT = 16
"""Constants with more elements than this are external when the model file holds them."""

MIN_OPSET = 9
CONVERT_TO_OPSET = 13
MAX_OPSET = defs.onnx_opset_version()
DEFAULT_DOMAINS = ("", "ai.onnx")


# --------------------------------------------------------------------------------------
# Public entry points
# --------------------------------------------------------------------------------------


def import_onnx_file(path: str, data: bytes | None = None, bind_inputs: Bindings | str | None = None,
                     input_shapes: Shapes | str | None = None) -> ModuleOp:
    """Import the ONNX model at `path` (`data`: its bytes when already read; `path` "-"
    means standard input, whose model has no file: every constant is then inline).
    `bind_inputs` gives graph inputs a value (arrays by name, or the `--bind-inputs`
    text: `NAME=VALUE,...` or an .npz path); they become constants. `input_shapes` gives
    graph inputs with dynamic dimensions their shape (tuples by name, or the
    `--input-shapes` text: `NAME=1x3x224x224,...`)."""
    inputs = GraphInputs.of(bind_inputs, input_shapes)
    source = "<stdin>" if path == "-" else path
    if data is None:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            raise CompileError(f"cannot read the model: {e.strerror or e}", location=source) from None
    model = parse_model(data, source)
    weights_path = None if path == "-" else os.path.abspath(path)
    if weights_path is not None and _has_external_data(model):
        _load_external_data(model, os.path.dirname(weights_path), source)
    return _import(model, source, weights_path, inputs)


def import_onnx_model(model: onnx.ModelProto, weights_path: str | None = None,
                      bind_inputs: Bindings | str | None = None, input_shapes: Shapes | str | None = None) -> ModuleOp:
    """Import an in-memory model. With `weights_path` (the .onnx file the model was loaded
    from), large initializers stay external tensors of that file; without it every
    constant is inline. `bind_inputs` and `input_shapes` as for `import_onnx_file`.
    `model` is not modified."""
    inputs = GraphInputs.of(bind_inputs, input_shapes)
    source = weights_path
    abs_weights = os.path.abspath(weights_path) if weights_path is not None else None
    if _has_external_data(model):
        if abs_weights is None:
            raise CompileError("the model keeps tensors in external data files; pass its path as weights_path")
        copy = onnx.ModelProto()
        copy.CopyFrom(model)
        _load_external_data(copy, os.path.dirname(abs_weights), source)
        model = copy
    return _import(model, source, abs_weights, inputs)


def parse_model(data: bytes, source: str) -> onnx.ModelProto:
    model = onnx.ModelProto()
    try:
        model.ParseFromString(data)
    except Exception as e:  # protobuf's DecodeError and friends
        reason = one_line(str(e)) or type(e).__name__
        raise CompileError(f"not a valid ONNX model (the file is corrupt or truncated: {reason})",
                           location=source) from None
    if model.ir_version <= 0 or not model.HasField("graph"):
        raise CompileError("not a valid ONNX model (no IR version or no graph; corrupt or truncated file?)",
                           location=source)
    bad = _non_text_name(model.graph)
    if bad is not None:
        raise CompileError(f"not a valid ONNX model (a name is not UTF-8 text: {bad!r}; corrupt file?)",
                           location=source)
    return model


def _non_text_name(graph: onnx.GraphProto) -> bytes | None:
    """The first name of `graph` (and its subgraphs) that is not UTF-8: protobuf hands
    such proto2 strings over as bytes, which no later step expects (the parser fuzzer
    found them as TypeErrors deep in the import)."""
    for node in graph.node:
        for text in (node.name, node.op_type, node.domain, *node.input, *node.output):
            if isinstance(text, bytes):
                return text
        for attr in node.attribute:
            if isinstance(attr.name, bytes):
                return attr.name
            for sub in ((attr.g,) if attr.HasField("g") else ()) + tuple(attr.graphs):
                if (found := _non_text_name(sub)) is not None:
                    return found
    for infos in (graph.input, graph.output, graph.value_info, graph.initializer):
        for info in infos:
            if isinstance(info.name, bytes):
                return info.name
    return None


# --------------------------------------------------------------------------------------
# Model-level preparation
# --------------------------------------------------------------------------------------


def _has_external_data(model: onnx.ModelProto) -> bool:
    return any(t.data_location == onnx.TensorProto.EXTERNAL for t in model.graph.initializer)


def _load_external_data(model: onnx.ModelProto, base_dir: str, source: str | None) -> None:
    from onnx.external_data_helper import load_external_data_for_model

    try:
        load_external_data_for_model(model, base_dir)
    except Exception as e:
        raise CompileError(f"cannot read the model's external data: {one_line(str(e))}", location=source) from None


def _default_opset(model: onnx.ModelProto, source: str | None) -> int:
    versions = [o.version for o in model.opset_import if o.domain in DEFAULT_DOMAINS]
    if not versions:
        if model.ir_version >= 3:
            raise CompileError("the model imports no version of the default ONNX domain", location=source)
        return 1  # IR version 1/2 models have no opset_import
    return versions[0]


def _file_tensor_names(graph: onnx.GraphProto) -> set[str]:
    """Names under which accel.compiler.tensors finds a tensor in the model file."""
    names = {t.name for t in graph.initializer}
    for node in graph.node:
        if node.op_type == "Constant" and node.domain in DEFAULT_DOMAINS and node.output:
            if any(a.name == "value" for a in node.attribute):
                names.add(node.output[0])
    return names


def _import(model: onnx.ModelProto, source: str | None, weights_path: str | None,
            inputs: GraphInputs) -> ModuleOp:
    opset = _default_opset(model, source)
    file_names = _file_tensor_names(model.graph) if weights_path else set()
    if opset > MAX_OPSET:
        raise CompileError(f"opset {opset} of the default domain is newer than the importer supports "
                           f"({MIN_OPSET} to {MAX_OPSET})", location=source)
    if model.functions:
        from onnx import inliner

        try:
            model = inliner.inline_local_functions(model)
        except Exception as e:
            raise CompileError(f"cannot inline the model's local functions: {one_line(str(e))}",
                               location=source) from None
    original_opset = opset
    if opset < MIN_OPSET:
        from onnx import version_converter

        try:
            model = version_converter.convert_version(model, CONVERT_TO_OPSET)
        except Exception as e:
            raise CompileError(f"cannot convert opset {opset} to {CONVERT_TO_OPSET} "
                               f"(opsets below {MIN_OPSET} are converted first): {one_line(str(e))}",
                               location=source) from None
        opset = CONVERT_TO_OPSET
    return GraphImporter(model.graph, opset, source, weights_path, file_names, original_opset=original_opset,
                         inputs=inputs).run()


# --------------------------------------------------------------------------------------
# The graph walk
# --------------------------------------------------------------------------------------


class GraphImporter:
    """Converts one graph, node by node in the (topological) order of the file."""

    def __init__(self, graph: onnx.GraphProto, opset: int, source: str | None,
                 weights_path: str | None, file_names: set[str], *, original_opset: int | None = None,
                 inputs: GraphInputs | None = None):
        self.graph = graph
        self.opset = opset
        self.original_opset = opset if original_opset is None else original_opset  # before conversion
        self.source = source
        self.weights_path = weights_path
        self.file_names = file_names
        self.builder = GraphBuilder()
        self.values: MutableMapping[str, Value] = {}
        self.unusable: dict[str, str] = {}  # name -> why (e.g. an unsupported element type)
        self.materialized: dict[int, tuple[Const, SSAValue]] = {}
        self.file_tensors: dict[str, np.ndarray] = {}
        self._loc: NameLoc | None = None
        self._schemas: dict[str, int | None] = {}
        inputs = inputs or GraphInputs()
        self.bindings: Bindings = inputs.values
        self.shapes: Shapes = inputs.shapes
        self.bound: set[str] = set()
        self.runtime_inputs: set[str] = set()  # graph inputs left to run time
        self.known: dict[SSAValue, np.ndarray] = {}
        """Values of relay ops computed from file weights at import (see `try_fold`)."""

    # -- errors ------------------------------------------------------------------------

    def error(self, what: str) -> CompileError:
        return CompileError(one_line(what), location=self.source)

    def node_error(self, proto: onnx.NodeProto, what: str) -> CompileError:
        return self.error(f"node '{node_display_name(proto)}' ({proto.op_type}): {what}")

    # -- values ------------------------------------------------------------------------

    def lookup(self, proto: onnx.NodeProto, name: str) -> Value:
        v = self.values.get(name)
        if v is None:
            if name in self.unusable:
                raise self.node_error(proto, self.unusable[name])
            raise self.node_error(proto, f"input '{name}' is not produced by any earlier node, initializer or "
                                         "graph input (the graph is not topologically sorted or is incomplete)")
        return v

    def bind(self, name: str, value: Value) -> None:
        if not name:
            return
        if isinstance(value, SSAValue) and value.name_hint is None:
            value.name_hint = ssa_name_hint(name)
        self.values[name] = value

    def materialize(self, v: Value) -> SSAValue:
        if isinstance(v, SSAValue):
            return v
        if isinstance(v, (SeqValue, OptValue)):
            kind = "a sequence" if isinstance(v, SeqValue) else "an optional"
            raise self.error(f"{kind} is used where a tensor is expected")
        cached = self.materialized.get(id(v))
        if cached is not None:
            return cached[1]
        arr = v.value
        try:
            t = tensor_type(arr.shape, arr.dtype)
        except UnsupportedDtype as e:
            raise self.error(f"constant '{v.file_name or '?'}': {verify_message(e)}") from None
        if arr.size > INLINE_LIMIT and v.file_name is not None and self.weights_path is not None:
            op = relay.ConstantOp(external=v.file_name, type=t)
        elif arr.size > INLINE_LIMIT and _is_uniform(arr):
            op = relay.ConstantOp(_splat(arr, t))
        else:
            op = relay.ConstantOp(dense_from_array(arr, t))
        if v.file_name is not None:
            op.location = NameLoc(StringAttr(v.file_name), _NO_LOC)
            op.result.name_hint = ssa_name_hint(v.file_name)
        elif self._loc is not None:
            op.location = self._loc
        self.builder.add_op(op)
        # Keyed by identity (a Const shared through Identity/Dropout is one constant op);
        # the entry keeps `v` alive so that its id is never reused.
        self.materialized[id(v)] = (v, op.result)
        return op.result

    def emit(self, op: Operation, proto: onnx.NodeProto) -> SSAValue:
        op.location = self._loc if self._loc is not None else NameLoc(StringAttr(node_display_name(proto)), _NO_LOC)
        self.builder.add_op(op)
        return op.results[0]

    def file_const(self, name: str, arr: np.ndarray) -> Const:
        in_file = name in self.file_names
        if in_file:
            self.file_tensors[name] = arr
        return Const(arr, name if in_file else None)

    # -- graph -------------------------------------------------------------------------

    def run(self) -> ModuleOp:
        g = self.graph
        for init in g.initializer:
            try:
                arr = tensor_to_array(init)
            except UnsupportedDtype as e:
                # An error only if a node uses it (quantizers leave unused tensors behind).
                self.unusable[init.name] = f"initializer '{init.name}': {verify_message(e)}"
                continue
            except Exception as e:
                raise self.error(f"initializer '{init.name}' cannot be read "
                                 f"(corrupt or truncated file?): {one_line(str(e))}") from None
            self.values[init.name] = self.file_const(init.name, arr)
        if g.sparse_initializer:
            raise self.error(f"sparse initializer '{g.sparse_initializer[0].values.name}' is not supported")
        self.check_shaped_inputs()
        self.bind_inputs()
        for vi in g.input:
            if vi.name in self.bound:
                continue
            if vi.name in self.values or vi.name in self.unusable:
                continue  # IR < 4: initializers are listed as inputs too
            shape, dtype = self.input_type(vi)
            self.values[vi.name] = self.builder.input(vi.name, shape, dtype)
            self.runtime_inputs.add(vi.name)
        for proto in g.node:
            self.import_node(proto)
        outputs: list[SSAValue] = []
        names: list[str] = []
        self._loc = None
        for vi in g.output:
            v = self.values.get(vi.name)
            if v is None:
                raise self.error(self.unusable.get(vi.name, f"graph output '{vi.name}' is not produced by any node"))
            for name, elem in self.output_tensors(vi.name, v):
                ssa = self.materialize(elem)
                if name == vi.name:
                    self.check_output_type(vi, ssa)
                outputs.append(ssa)
                names.append(name)
        if not outputs:
            raise self.error("the graph has no outputs")
        module = self.builder.build(outputs, names)
        if self.weights_path is not None:
            module.attributes[WEIGHTS_ATTR] = StringAttr(self.weights_path)
            if os.path.exists(self.weights_path):
                register_weights(self.weights_path, self.all_file_tensors())
        return module

    def output_tensors(self, name: str, v: Value) -> list[tuple[str, SSAValue | Const]]:
        """The tensors of graph output `name`: itself, or a sequence's elements as outputs
        `name[0]`, `name[1]`, ... (`sequence_output_name`), or what an optional holds."""
        if isinstance(v, OptValue):
            if v.value is None:
                raise self.error(f"graph output '{name}' is an empty optional; only an optional that holds a "
                                 "value is supported as a graph output")
            v = v.value
        if isinstance(v, SeqValue):
            if not v.items:
                raise self.error(f"graph output '{name}' is an empty sequence; a sequence graph output must "
                                 "have elements (each becomes an output)")
            return [(sequence_output_name(name, i), item) for i, item in enumerate(v.items)]
        return [(name, v)]

    def all_file_tensors(self) -> dict[str, np.ndarray]:
        """Every tensor the weights loader would find in the file, so it never re-reads it."""
        out = dict(self.file_tensors)
        for name in self.file_names:
            v = self.values.get(name)
            if name not in out and isinstance(v, Const):
                out[name] = v.value
        return out

    def bind_inputs(self) -> None:
        """Graph inputs given a value (`--bind-inputs`) become constants (an input that
        also has an initializer takes the bound value)."""
        inputs = {vi.name: vi for vi in self.graph.input}
        for name, value in self.bindings.items():
            vi = inputs.get(name)
            if vi is None:
                listed = ", ".join(n for n in inputs if n not in self.values) or "none"
                raise self.error(f"{OPTION}: the model has no graph input '{name}' (its inputs: {listed})")
            kind = vi.type.WhichOneof("value")
            if kind in ("sequence_type", "optional_type"):
                self.values[name] = self.bound_container(vi, value)
                self.bound.add(name)
                continue
            shape = self.declared_shape(vi)
            if name in self.shapes:
                shape = self.given_shape(vi, shape)
            elif shape is None:  # no declared shape: the value's
                shape = (None,) * np.ndim(value)
            try:
                dtype = np_dtype_of(vi.type.tensor_type.elem_type)
            except UnsupportedDtype as e:
                raise self.error(f"graph input '{name}': {verify_message(e)}") from None
            try:
                self.values[name] = Const(bound_value(name, value, shape, dtype))
            except CompileError as e:
                raise self.error(e.message) from None
            self.bound.add(name)

    def bound_container(self, vi: onnx.ValueInfoProto, value) -> SeqValue | OptValue:
        """A sequence (a list of arrays) or optional (None, an array or a list) bound to
        graph input `vi`: import-time constants."""
        def seq(t: onnx.TypeProto, items) -> SeqValue:
            if not isinstance(items, (list, tuple)):
                raise self.error(f"{OPTION}: graph input '{vi.name}' is a sequence; bind it to a list of arrays")
            elem = t.sequence_type.elem_type
            dtype = None
            if elem.HasField("tensor_type") and elem.tensor_type.elem_type:
                try:
                    dtype = np_dtype_of(elem.tensor_type.elem_type)
                except UnsupportedDtype as e:
                    raise self.error(f"graph input '{vi.name}': {verify_message(e)}") from None
            arrays = [np.asarray(a, dtype=dtype) for a in items]
            return SeqValue([Const(a) for a in arrays], dtype if dtype is not None else
                            (arrays[0].dtype if arrays else None))

        t = vi.type
        if t.HasField("sequence_type"):
            return seq(t, value)
        inner = t.optional_type.elem_type
        if value is None:
            return OptValue(None)
        if inner.HasField("sequence_type"):
            return OptValue(seq(inner, value))
        dtype = np_dtype_of(inner.tensor_type.elem_type) if inner.tensor_type.elem_type else None
        return OptValue(Const(np.asarray(value, dtype=dtype)))

    def input_type(self, vi: onnx.ValueInfoProto) -> tuple[tuple[int, ...], np.dtype]:
        t = vi.type
        if t.WhichOneof("value") in ("sequence_type", "optional_type"):
            kind = t.WhichOneof("value").removesuffix("_type")
            raise self.error(f"graph input '{vi.name}' is a{'n' if kind == 'optional' else ''} {kind}: it must be "
                             "known at import time (bind it to a list of arrays or None: import_onnx_model(..., "
                             "bind_inputs=...)); run-time sequences and optionals are not supported")
        if t.WhichOneof("value") != "tensor_type":
            raise self.error(f"graph input '{vi.name}' is a {t.WhichOneof('value') or 'untyped value'}; "
                             "only tensors are supported")
        tt = t.tensor_type
        try:
            dtype = np_dtype_of(tt.elem_type)
        except UnsupportedDtype as e:
            raise self.error(f"graph input '{vi.name}': {verify_message(e)}") from None
        shape = self.declared_shape(vi)
        if vi.name in self.shapes:
            return self.given_shape(vi, shape), dtype
        if shape is None:
            raise self.error(f"graph input '{vi.name}' has no shape; give it with {SHAPES_OPTION} "
                             f"{vi.name}=D0xD1x...")
        for i, d in enumerate(shape):
            if d is None:
                dim = tt.shape.dim[i]
                what = f"'{dim.dim_param}'" if dim.HasField("dim_param") else "unknown"
                template = "x".join("?" if d is None else str(d) for d in shape)
                raise self.error(f"graph input '{vi.name}' has a dynamic dimension {i} ({what}); give its size "
                                 f"with {SHAPES_OPTION} {vi.name}={template} (each ? a size)")
        return shape, dtype

    @staticmethod
    def declared_shape(vi: onnx.ValueInfoProto) -> tuple[int | None, ...] | None:
        """A graph input's declared shape, None for a dynamic (or negative) dimension; None
        when it declares no shape."""
        if not vi.type.HasField("tensor_type") or not vi.type.tensor_type.HasField("shape"):
            return None
        return tuple(d.dim_value if d.HasField("dim_value") and d.dim_value >= 0 else None
                     for d in vi.type.tensor_type.shape.dim)

    def given_shape(self, vi: onnx.ValueInfoProto, declared: tuple[int | None, ...] | None) -> tuple[int, ...]:
        """The shape `--input-shapes` gives graph input `vi` (declared None: the model
        declares no shape, any rank goes)."""
        given = self.shapes[vi.name]
        if declared is None:
            return given
        try:
            return given_shape(vi.name, declared, given)
        except CompileError as e:
            raise self.error(e.message) from None

    def check_shaped_inputs(self) -> None:
        """Every input `--input-shapes` names is a graph input computed at run time or
        bound (not an initializer: its shape is its value's)."""
        inputs = [vi.name for vi in self.graph.input]
        for name in self.shapes:
            if name not in inputs:
                listed = ", ".join(n for n in inputs if n not in self.values) or "none"
                raise self.error(f"{SHAPES_OPTION}: the model has no graph input '{name}' (its inputs: {listed})")
            if name in self.values and name not in self.bindings:
                raise self.error(f"{SHAPES_OPTION}: '{name}' is an initializer of the model; its shape is "
                                 "its value's")

    def check_output_type(self, vi: onnx.ValueInfoProto, v: SSAValue) -> None:
        """The declared element type of a graph output must be what the import computed;
        a declared shape that disagrees is a warning (the computed one is used)."""
        t = vi.type
        if t.WhichOneof("value") != "tensor_type":
            return
        tt = t.tensor_type
        got_shape = tuple(v.type.get_shape())
        if tt.elem_type:
            try:
                want = tensor_type((), np_dtype_of(tt.elem_type)).element_type
            except UnsupportedDtype as e:
                raise self.error(f"graph output '{vi.name}': {verify_message(e)}") from None
            if want != v.type.element_type:
                raise self.error(f"graph output '{vi.name}' is declared {onnx_dtype_name(tt.elem_type)} "
                                 f"but computes {v.type.element_type}")
        if tt.HasField("shape"):
            # A negative size (paddle2onnx writes -1) is a dynamic dimension, as for inputs.
            dims = tt.shape.dim
            bad = len(dims) != len(got_shape) or any(
                d.HasField("dim_value") and 0 <= d.dim_value != s for d, s in zip(dims, got_shape))
            if bad:  # onnxruntime goes on too (its "lenient merge")
                declared = [d.dim_value if d.HasField("dim_value") and d.dim_value >= 0 else (d.dim_param or "?")
                            for d in dims]
                warnings.warn(ModelWarning(one_line(f"graph output '{vi.name}' is declared with shape {declared} but "
                                                    f"computes {list(got_shape)}; the computed shape is used"),
                                           self.source), stacklevel=2)

    # -- nodes -------------------------------------------------------------------------

    def op_version(self, proto: onnx.NodeProto) -> int:
        v = self.onnx_version(proto.op_type)
        if v is None:
            raise self.node_error(proto, f"'{proto.op_type}' is not an op of the ONNX domain at opset {self.opset}")
        return v

    def onnx_version(self, op_type: str) -> int | None:
        """The version of ONNX's `op_type` at the model's opset; None if ONNX has none."""
        if op_type not in self._schemas:
            try:
                self._schemas[op_type] = defs.get_schema(op_type, self.opset, "").since_version
            except Exception:
                self._schemas[op_type] = None
        return self._schemas[op_type]

    def import_node(self, proto: onnx.NodeProto) -> None:
        if proto.domain == MICROSOFT_DOMAIN and proto.op_type in MICROSOFT_OPS:
            version, support = 1, MICROSOFT_OPS[proto.op_type]
        elif proto.domain == PREVIEW_DOMAIN and proto.op_type in PREVIEW_OPS:
            version, support = 1, PREVIEW_OPS[proto.op_type]
        elif proto.domain == "com.microsoft.nchwc":
            raise self.node_error(proto, "ops of domain 'com.microsoft.nchwc' are not supported (onnxruntime's "
                                         "blocked layout for the CPU it ran on, written at its level 99: save "
                                         "the model at ORT_ENABLE_EXTENDED)")
        elif proto.domain not in DEFAULT_DOMAINS:
            raise self.node_error(proto, f"ops of domain '{proto.domain}' are not supported")
        elif proto.op_type in ORT_OPS_OF_THE_ONNX_DOMAIN and self.onnx_version(proto.op_type) is None:
            # onnxruntime's own version 1 (e.g. LayerNormalization in a model below opset 17)
            version, support = 1, OPS.get(proto.op_type) or MICROSOFT_OPS[proto.op_type]
        else:
            version = self.op_version(proto)
            support = OPS.get(proto.op_type)
        inputs = [self.lookup(proto, name) if name else None for name in proto.input]
        if proto.op_type not in CONTAINER_OPS or proto.domain not in DEFAULT_DOMAINS:
            for name, v in zip(proto.input, inputs):
                if isinstance(v, (SeqValue, OptValue)):
                    kind = "a sequence" if isinstance(v, SeqValue) else "an optional"
                    raise self.node_error(proto, f"input '{name}' is {kind}; {proto.op_type} takes tensors")
        all_const = all(v is None or isinstance(v, Const) for v in inputs)
        all_known = all_const or all(v is None or isinstance(v, Const) or v in self.known for v in inputs)
        if support is None:
            if all_const and (folded := self.fold_with_reference(proto, inputs)) is not None:
                self.bind_outputs(proto, folded)
                return
            raise self.node_error(proto, f"op {proto.op_type} (opset {self.opset}) is not supported")
        try:
            attrs = node_attributes(proto)
        except ValueError as e:
            raise self.node_error(proto, str(e)) from None
        unknown = sorted(set(attrs) - support.attrs)
        if unknown:
            raise self.node_error(proto, f"attribute '{unknown[0]}' is not supported")
        node = Node(proto, version, self, attrs)
        self._loc = NameLoc(StringAttr(node.name), _NO_LOC)
        try:
            outs = known = None
            if support.fold is not None and all_known:
                outs, known = self.try_fold(node, support, inputs)
            if outs is None:
                if support.convert is None:
                    runtime = next(n for n, v in zip(proto.input, inputs) if isinstance(v, SSAValue))
                    raise node.error(f"input '{runtime}' is computed at run time; {proto.op_type} is only "
                                     "supported on values known at import time (shape computations)")
                outs = support.convert(node)
        except (VerifyException, UnsupportedDtype) as e:
            raise node.error(verify_message(e)) from None
        except (ValueError, IndexError) as e:
            # numpy on malformed inputs (shapes that do not concatenate, indices out of range)
            raise node.error(f"cannot evaluate the node: {one_line(str(e))}") from None
        except MemoryError as e:
            # a constant the node's shapes make too large to hold (a causal mask of a
            # million-token sequence: 4 TiB)
            raise node.error(f"a value of the node is too large to build: {one_line(str(e))}") from None
        self.bind_outputs(proto, outs)
        if known is not None:
            for out, arr in zip(outs if isinstance(outs, (list, tuple)) else [outs], known):
                if isinstance(out, SSAValue):
                    self.known[out] = arr

    def subgraph_constants(self, proto: onnx.NodeProto, graph: onnx.GraphProto) -> dict[str, Const]:
        """The initializers of subgraph `graph` (read once: a Loop body run per iteration
        shares them, each one relay constant)."""
        out = {}
        for init in graph.initializer:
            try:
                out[init.name] = Const(tensor_to_array(init))
            except UnsupportedDtype as e:
                raise self.node_error(proto, f"initializer '{init.name}': {verify_message(e)}") from None
        return out

    def run_subgraph(self, proto: onnx.NodeProto, graph: onnx.GraphProto, feeds: dict[str, Value],
                     constants: dict[str, Const] | None = None) -> list[Value]:
        """Import the nodes of `graph` (an If branch, a Loop or Scan body) in place, its
        inputs given by `feeds` (its initializers by `constants`, else read here), and
        return its outputs. The subgraph sees the outer values; its own names
        (initializers, inputs, node outputs) live in a scope of their own, so a body run
        once per iteration never clashes with the outer graph or itself."""
        saved_values, saved_loc = self.values, self._loc
        self.values = ChainMap({}, saved_values)  # the outer values, read-only below (O(1) per iteration)
        try:
            self.values.update(self.subgraph_constants(proto, graph) if constants is None else constants)
            self.values.update(feeds)
            for p in graph.node:
                self.import_node(p)
            return [self.lookup(proto, out.name) for out in graph.output]
        finally:
            self.values, self._loc = saved_values, saved_loc

    def try_fold(self, node: Node, support, inputs: list[Value | None]) -> tuple[list[Value] | None, list[np.ndarray]]:
        """numpy evaluation of a node whose inputs are all known: its results as constants,
        unless that would turn large file weights into large anonymous inline tensors (then
        None: relay ops are kept, and the values stay `known` to a node that needs them at
        import time, e.g. an LSTM's weights sliced and stacked by the exporter)."""
        arrays = [None if v is None else v.value if isinstance(v, Const) else self.known[v] for v in inputs]
        result = support.fold(node, arrays)
        results = [np.asarray(r) for r in (result if isinstance(result, (list, tuple)) else [result])]
        from_file = any((isinstance(v, Const) and v.file_name is not None) or (v is not None and not isinstance(v, Const))
                        for v in inputs)
        if support.convert is not None and from_file and any(r.size > INLINE_LIMIT for r in results):
            return None, results
        return [Const(r) for r in results], results

    def fold_with_reference(self, proto: onnx.NodeProto, inputs: list[Value | None]) -> list[Value] | None:
        """Evaluate an op the importer has no converter for when all its inputs are known
        (rare shape arithmetic), with onnx's reference implementation of that op version."""
        from onnx import helper
        from onnx.reference import ReferenceEvaluator

        feeds = {}
        in_infos = []
        for name, v in zip(proto.input, inputs):
            if v is None:
                continue
            arr = v.value
            feeds[name] = arr
            in_infos.append(helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(arr.dtype), arr.shape))
        outs = [o for o in proto.output if o]
        try:
            graph = helper.make_graph([proto], "fold", in_infos, [helper.make_empty_tensor_value_info(o) for o in outs])
            m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset)])
            results = ReferenceEvaluator(m).run(None, feeds)
        except Exception:
            return None
        out: list[Value] = []
        for r in results:
            if not isinstance(r, np.ndarray):
                return None
            out.append(Const(r))
        return out

    def bind_outputs(self, proto: onnx.NodeProto, outs) -> None:
        if outs is None:
            outs = []
        elif not isinstance(outs, (list, tuple)):
            outs = [outs]
        for i, name in enumerate(proto.output):
            if not name:
                continue
            if i >= len(outs) or outs[i] is None:
                raise self.node_error(proto, f"output {i} ('{name}') is not supported")
            self.bind(name, outs[i])


CONTAINER_OPS = frozenset({
    "Identity", "If", "Loop", "Scan", "SequenceConstruct", "SequenceEmpty", "SequenceAt", "SequenceInsert",
    "SequenceErase", "SequenceLength", "SplitToSequence", "ConcatFromSequence", "SequenceMap", "Optional",
    "OptionalHasElement", "OptionalGetElement"})
"""Ops that take sequence or optional values (any other op given one is a one-line error)."""


def sequence_output_name(name: str, i: int) -> str:
    """The name of element `i` of sequence graph output `name`: one output per element."""
    return f"{name}[{i}]"


_NO_LOC = NoneAttr()
"""A name location's child location (built once: constructing an attribute verifies it)."""


def _is_uniform(arr: np.ndarray) -> bool:
    """All elements bit-identical (so -0.0 and 0.0 differ), e.g. `ConstantOfShape` output."""
    if all(s == 0 for s in arr.strides):
        return True  # a broadcast scalar
    bits = np.ascontiguousarray(arr).reshape(-1).view(f"u{arr.dtype.itemsize}")
    return bool(np.all(bits == bits[0]))


def _splat(arr: np.ndarray, t) -> DenseIntOrFPElementsAttr:
    one = dense_from_array(np.array([arr.flat[0]], dtype=arr.dtype))
    return DenseIntOrFPElementsAttr(t, BytesAttr(one.data.data))
