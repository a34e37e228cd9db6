"""ONNX frontend: ONNX models (opsets 9 to 28; older ones are version-converted to 13 first)
to a relay module with `@main`.

    from accel.compiler.frontend.onnx import import_onnx_file
    module = import_onnx_file("model.onnx")       # arguments: graph inputs; results: outputs

`import_onnx_file(path, data=None)` reads a file (or takes its bytes, e.g. from stdin with
path "-"); `import_onnx_model(model, weights_path=None)` takes an `onnx.ModelProto`.
Errors are `accel.compiler.diagnostics.CompileError`s of one line naming the node, its op type
and what is not supported. See `importer` for the details and `SUPPORTED_OPS` for the op
list.
"""

from accel.compiler.frontend.onnx import (  # noqa: F401  (register ops)
    folding, ops_attention, ops_composed, ops_dynamic_quant, ops_einsum, ops_image, ops_index, ops_llm, ops_llm_state,
    ops_math, ops_nn, ops_ort_fused,
    ops_qoperator,
    ops_quant, ops_recurrent, ops_scan_bits, ops_sequence, ops_signal, ops_tensor, ops_vision,
)
from accel.compiler.frontend.onnx.context import OPS, PREVIEW_OPS
from accel.compiler.frontend.onnx.importer import INLINE_LIMIT, import_onnx_file, import_onnx_model, parse_model

SUPPORTED_OPS: frozenset[str] = frozenset(t for t, s in (*OPS.items(), *PREVIEW_OPS.items()) if s.convert is not None)
"""ONNX op types (of the default domain and of ai.onnx.preview) with a converter: they import
on run-time values, except NonZero and Unique, whose output shape depends on the values
(their converters fold a constant input and refuse a run-time one in one line); ops
without a converter are folded at import time only."""

__all__ = ["INLINE_LIMIT", "SUPPORTED_OPS", "import_onnx_file", "import_onnx_model", "parse_model"]
