"""Random target descriptions derived from the built-in ones (hypothesis strategies).

A drawn `DerivedTarget` is the TOML text of `npu`, `npu-shared`, `dsp` or `npu-cmd` (which
extends a derived npu) with

- a random scratchpad size, 512 B .. 256 KiB (`[memory] scratchpad_bytes`; small sizes
  make tile-for-scratchpad tile, or refuse, what the built-in sizes take whole);
- a random subset of its `[[ops]]` entries and of its `[[patterns]]` (so other ops stay
  on the host, other composites are matched or none);

everything else (API, structs, library, costs) as written. The text is edited by
blocks, not re-serialised, so the description stays the file a user would write; the
pattern file is referenced by absolute path so the TOML can live anywhere.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass

from hypothesis import strategies as st

from accel.compiler.targets.registry import builtin_target_names

TARGETS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "targets")
BASES = ("npu", "npu-shared", "dsp", "npu-cmd")
"""The built-in descriptions the fuzzer derives from (lowered by accel's own codegen: C
calls, or npu-cmd's command streams)."""
MIN_SCRATCHPAD = 512
MAX_SCRATCHPAD = 256 * 1024

_HEADER = re.compile(r"^\[", re.MULTILINE)
_SCRATCHPAD = re.compile(r"^scratchpad_bytes = \d+", re.MULTILINE)


@dataclass(frozen=True)
class DerivedTarget:
    base: str
    text: str
    scratchpad_bytes: int
    ops: int
    """How many [[ops]] entries were kept (of the base's)."""
    patterns: int
    parent: str | None = None
    """The text of the description this one `extends` (npu-cmd's: a derived npu, written
    beside it; `PARENT` in `text` stands for its path)."""

    def write(self, directory: str) -> str:
        """Write the TOML under a name made of its content (the target registry caches
        parsed files by path and modification time, so a path is never rewritten)."""
        text = self.text
        if self.parent is not None:
            text = text.replace(PARENT, _write(directory, "parent", self.parent))
        return _write(directory, self.base, text)


PARENT = "{derived-parent}"


def _write(directory: str, stem: str, text: str) -> str:
    path = os.path.join(directory, f"{stem}-{hashlib.sha1(text.encode()).hexdigest()[:12]}.toml")
    if not os.path.exists(path):
        with open(path + ".tmp", "w") as f:
            f.write(text)
        os.replace(path + ".tmp", path)
    return path


def split_blocks(text: str) -> list[str]:
    """The text cut before every table header (`[x]`, `[[x]]`); joined, the pieces give
    the text back. A header's block runs to the next header (comments included)."""
    starts = [m.start() for m in _HEADER.finditer(text)]
    cuts = [0, *starts, len(text)]
    return [text[a:b] for a, b in zip(cuts, cuts[1:]) if b > a]


def base_text(base: str) -> str:
    if base not in builtin_target_names():
        raise ValueError(f"no built-in target '{base}'")
    with open(os.path.join(TARGETS_DIR, f"{base}.toml")) as f:
        text = f.read()
    return text.replace('file = "patterns.mlir"', f'file = "{os.path.join(TARGETS_DIR, "patterns.mlir")}"')


@st.composite
def derived_targets(draw, bases: tuple[str, ...] = BASES) -> DerivedTarget:
    base = draw(st.sampled_from(bases))
    # npu-cmd extends npu (its ops, patterns and memory): a derived npu, extended.
    stream = base == "npu-cmd"
    blocks = split_blocks(base_text("npu" if stream else base))
    # Small scratchpads are the interesting ones: draw the size on a log scale.
    log2 = draw(st.integers(MIN_SCRATCHPAD.bit_length() - 1, MAX_SCRATCHPAD.bit_length() - 1))
    size = draw(st.integers(1 << log2, min(MAX_SCRATCHPAD, (2 << log2) - 1)))
    size -= size % 64  # keeps every alignment of the bases
    kept: list[str] = []
    counts = {"[[ops]]": 0, "[[patterns]]": 0}
    for block in blocks:
        header = block.split("\n", 1)[0].strip()
        if header in counts:
            if not draw(st.booleans()) and draw(st.booleans()):  # keep three in four
                continue
            counts[header] += 1
        kept.append(block)
    text, n = _SCRATCHPAD.subn(f"scratchpad_bytes = {size}", "".join(kept), count=1)
    assert n == 1, f"{base}.toml has no scratchpad_bytes line"
    if stream:
        own = base_text(base).replace('extends = "npu"', f'extends = "{PARENT}"', 1)
        return DerivedTarget(base, own, size, counts["[[ops]]"], counts["[[patterns]]"], parent=text)
    return DerivedTarget(base, text, size, counts["[[ops]]"], counts["[[patterns]]"])
