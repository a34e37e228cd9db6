"""A target's tuning space: the `[tuning]` tables of a description, and what they admit.

The knobs are the choices `tile-for-scratchpad` and `optimize-dma` make per op today,
declared by the vendor with their ranges, so that `accel-tune` may search them and an
op may carry a chosen configuration (`accel.tuning`, dialects/conventions.py):

    [tuning]
    version = 1                              # bump when the knobs' meaning changes: older logs go stale

    [tuning.conv2d]                          # every op and composite lowering to accel.conv2d
    channel_tile = { multiple_of = 8 }       # output channels per tile (whole groups)
    row_tile = { min = 1 }                   # output rows per tile
    resident = ["weights", "input"]          # which operand stays on the device while the other streams
    double_buffer = [true, false]            # two slots per streamed tile (loads overlap compute)
    prefetch = [0, 1, 2, 3]                  # how many compute ops ahead its loads may be issued

    [tuning.matmul]                          # dense, matmul (2-D; batched products are not tiled within a matrix)
    row_tile = {}                            # data rows (M) per tile
    feature_tile = { multiple_of = 4 }       # output features (N) per tile
    k_tile = {}                              # K per tile (float products on a target that accumulates)
    resident = ["weights", "input"]          # loop order: the weights' feature tile or the data's row tile stays

    [tuning.eltwise]                         # element-wise ops, softmax and layer norm
    outer_tile = {}                          # slices of the outermost axis longer than 1 per tile

    [tuning.fusion]                          # chains of fuse-layers (compiler/tuning/fusion.py)
    depth = { max = 4 }                      # ops per fused segment (where a chain is cut)
    stripe_rows = {}                         # output rows of a fused segment's last op per stripe

A tile knob's values are the tile sizes the lowering can emit for the op's extent (ceil(n/k)
for every k, as the heuristics try them) that lie in [min, max] and are multiples of
`multiple_of`, plus the whole extent (always allowed: untiled along that dimension). A
knob left out of a table is not tuned: the heuristics choose it. Whether a configuration
fits the scratchpad is decided by the lowering's own check (compiler/tuning/space.py).

A fusion task is a chain of `fuse-layers` (compiler/tuning/fusion.py): its configuration
is one knob, `segments` ("3x8,1,2x4": a fused segment of 3 ops in stripes of 8 rows, an op
alone, a segment of 2 in stripes of 4), whose segment lengths `depth` and stripe heights
`stripe_rows` admit. apply-tuning writes it onto the chain's ops as `fuse` (an op joins the
previous op's segment) and `stripe_rows` (on a segment's last op), which fuse-layers reads.

Extension point: every table under `[tuning]` is read by the reader registered for its
name in `KIND_READERS`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from accel.compiler.diagnostics import CompileError

RESIDENT_CHOICES = ("weights", "input")
"""conv2d/pool: `weights` keeps the weight tile while row tiles stream (rows inside
channels); `input` keeps the input rows while weight tiles stream (channels inside rows).
matmul: `weights` keeps a feature tile of the weights while row tiles of the data stream
(the heuristics' loop order); `input` keeps a row tile of the data while the weights'
feature tiles stream, double-buffered (rows outside features)."""
RESIDENT_KINDS = ("conv2d", "pool", "matmul")

TILE_KNOBS: dict[str, tuple[str, ...]] = {
    "conv2d": ("channel_tile", "row_tile"),
    "pool": ("channel_tile", "row_tile"),
    "matmul": ("row_tile", "feature_tile", "k_tile"),
    "eltwise": ("outer_tile",),
}
"""Tile knobs per compute kind (in the order the space enumerates them)."""

COMMON_KNOBS = ("double_buffer", "prefetch")
FUSION_KIND = "fusion"
SEGMENTS_KNOB = "segments"
"""A fusion task's one knob (the module docstring)."""
FUSE_KNOB, STRIPE_KNOB = "fuse", "stripe_rows"
FUSION_OP_KNOBS = (FUSE_KNOB, STRIPE_KNOB)
"""What a chain's configuration puts on its ops (read by fuse-layers)."""
FUSION_RANGES = ("depth", "stripe_rows")
MAX_PREFETCH = 8


@dataclass(frozen=True)
class TileRange:
    min: int = 1
    max: int | None = None
    multiple_of: int = 1

    def admits(self, value: int, extent: int) -> bool:
        if value == extent:
            return True
        hi = extent if self.max is None else min(self.max, extent)
        return self.min <= value <= hi and value % self.multiple_of == 0


@dataclass(frozen=True)
class KindSpace:
    """The knobs of one compute kind."""

    kind: str
    tiles: tuple[tuple[str, TileRange], ...] = ()
    resident: tuple[str, ...] = ()
    double_buffer: tuple[bool, ...] = ()
    prefetch: tuple[int, ...] = ()

    @property
    def knobs(self) -> tuple[str, ...]:
        names = [n for n, _ in self.tiles]
        for name in ("resident", "double_buffer", "prefetch"):
            if getattr(self, name):
                names.append(name)
        return tuple(names)

    def tile(self, name: str) -> TileRange | None:
        return next((r for n, r in self.tiles if n == name), None)


@dataclass(frozen=True)
class TuningSpace:
    version: int
    kinds: tuple[KindSpace, ...]

    def of(self, kind: str) -> KindSpace | None:
        return next((k for k in self.kinds if k.kind == kind), None)


# -- the reader ----------------------------------------------------------------------------


class _Reader:
    def __init__(self, path: str):
        self.path = path

    def fail(self, key: str, message: str):
        raise CompileError(f"key '{key}': {message}", location=self.path)

    def table(self, value: Any, key: str) -> dict:
        if not isinstance(value, dict):
            self.fail(key, f"expected a table, got {value!r}")
        return value

    def finish(self, data: dict, read: tuple[str, ...], key: str) -> None:
        for name in data:
            if name not in read:
                self.fail(f"{key}.{name}", f"unknown key (expected one of: {', '.join(read)})")

    def positive(self, value: Any, key: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            self.fail(key, f"expected a positive integer, got {value!r}")
        return value

    def tile_range(self, value: Any, key: str) -> TileRange:
        data = self.table(value, key)
        self.finish(data, ("min", "max", "multiple_of"), key)
        lo = self.positive(data.get("min", 1), f"{key}.min")
        hi = self.positive(data["max"], f"{key}.max") if "max" in data else None
        multiple = self.positive(data.get("multiple_of", 1), f"{key}.multiple_of")
        if hi is not None and hi < lo:
            self.fail(f"{key}.max", f"expected at least min ({lo}), got {hi}")
        return TileRange(lo, hi, multiple)

    def choices(self, value: Any, key: str, ok: Callable[[Any], bool], expected: str) -> tuple:
        if not isinstance(value, list) or not value or not all(ok(v) for v in value) or len(set(value)) != len(value):
            self.fail(key, f"expected a non-empty list of distinct {expected}, got {value!r}")
        return tuple(value)


def _kind_reader(kind: str) -> Callable[[_Reader, Any, str], KindSpace]:
    def read(r: _Reader, value: Any, key: str) -> KindSpace:
        data = r.table(value, key)
        tile_names = TILE_KNOBS[kind]
        allowed = (*tile_names, *(("resident",) if kind in RESIDENT_KINDS else ()), *COMMON_KNOBS)
        r.finish(data, allowed, key)
        tiles = tuple((n, r.tile_range(data[n], f"{key}.{n}")) for n in tile_names if n in data)
        resident = r.choices(data["resident"], f"{key}.resident", lambda v: v in RESIDENT_CHOICES,
                             " or ".join(f'"{c}"' for c in RESIDENT_CHOICES)) if "resident" in data else ()
        double = r.choices(data["double_buffer"], f"{key}.double_buffer", lambda v: isinstance(v, bool),
                           "booleans") if "double_buffer" in data else ()
        prefetch = r.choices(data["prefetch"], f"{key}.prefetch",
                             lambda v: isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= MAX_PREFETCH,
                             f"integers in 0..{MAX_PREFETCH}") if "prefetch" in data else ()
        space = KindSpace(kind, tiles, resident, double, prefetch)
        if not space.knobs:
            r.fail(key, f"declares no knob (expected some of: {', '.join(allowed)})")
        return space

    return read


def _fusion_reader(r: _Reader, value: Any, key: str) -> KindSpace:
    data = r.table(value, key)
    r.finish(data, FUSION_RANGES, key)
    if not data:
        r.fail(key, f"declares no knob (expected some of: {', '.join(FUSION_RANGES)})")
    depth = r.tile_range(data.get("depth", {}), f"{key}.depth")
    if depth.max is None:
        r.fail(f"{key}.depth.max", "missing (the longest fused segment to try bounds the space)")
    return KindSpace(FUSION_KIND, (("depth", depth), ("stripe_rows", r.tile_range(data.get("stripe_rows", {}),
                                                                                  f"{key}.stripe_rows"))))


KIND_READERS: dict[str, Callable[[_Reader, Any, str], KindSpace]] = {
    **{k: _kind_reader(k) for k in TILE_KNOBS}, FUSION_KIND: _fusion_reader}
"""Readers of the tables under `[tuning]`, by table name (the extension point: see the
module docstring)."""


def parse_tuning(value: Any, path: str) -> TuningSpace | None:
    """The `[tuning]` table of a description (None when it has none)."""
    if value is None:
        return None
    r = _Reader(path)
    data = r.table(value, "tuning")
    if "version" not in data:
        r.fail("tuning.version", "missing (expected a positive integer; bump it when the knobs' meaning changes)")
    version = r.positive(data["version"], "tuning.version")
    kinds = []
    for name, table in data.items():
        if name == "version":
            continue
        if name not in KIND_READERS:
            r.fail(f"tuning.{name}", f"unknown table (expected one of: version, {', '.join(KIND_READERS)})")
        kinds.append(KIND_READERS[name](r, table, f"tuning.{name}"))
    if not kinds:
        r.fail("tuning", f"declares no knobs (expected tables among: {', '.join(KIND_READERS)})")
    return TuningSpace(version, tuple(kinds))
