"""Corrections of xDSL 0.74's parser where it reads MLIR text differently from MLIR.

- **Hex literals in a float `dense<...>`.** MLIR reads `dense<0xFF800000> : tensor<f32>`
  as the float whose bits are 0xFF800000 (-inf), and xDSL's printer writes a non-finite
  float element that way (the generic form of a `relay.constant` of -inf or NaN, and
  mlir-opt's output); xDSL's parser reads the literal as the integer 4286578688 and
  converts it, so -inf came back as 4.29e9 (found by the random-graph round-trip test
  once the fuzz generator drew masks of -inf). Here a hex element of a float type is
  its bit pattern (f16, bf16, f32, f64), as in MLIR.

`install()` applies them (once, process-wide; `AccelContext` calls it).
"""

from __future__ import annotations

import struct

from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, Float64Type
from xdsl.parser import AttrParser

_FORMATS = {Float16Type: ("<H", "<e"), Float32Type: ("<I", "<f"), Float64Type: ("<Q", "<d")}
"""Float element type -> struct formats of (the unsigned integer of its width, the float).
(struct, not numpy: accel-opt starts without importing numpy.)"""


def _float_of_bits(parser: AttrParser, element, float_type) -> float:
    bits = element.value
    if bits >> float_type.bitwidth:
        parser.raise_error(f"hex literal 0x{bits:X} is wider than {float_type} ({float_type.bitwidth} bits)",
                           at_position=element.span)
    if isinstance(float_type, BFloat16Type):  # the upper half of an f32
        return struct.unpack("<f", struct.pack("<I", bits << 16))[0]
    uint, real = _FORMATS[type(float_type)]
    return struct.unpack(real, struct.pack(uint, bits))[0]


def install() -> None:
    element = AttrParser._TensorLiteralElement
    if getattr(element, "_accel_hex_floats", False):
        return
    to_type = element.to_type

    def hex_aware_to_type(self, parser: AttrParser, element_type):
        if (isinstance(element_type, (Float16Type, BFloat16Type, Float32Type, Float64Type))
                and type(self.value) is int and not self.is_negative and self.span.text[:2] in ("0x", "0X")):
            return _float_of_bits(parser, self, element_type)
        return to_type(self, parser, element_type)

    element.to_type = hex_aware_to_type
    element._accel_hex_floats = True
