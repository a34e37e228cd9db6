"""accel-disasm: a binary command stream back into text.

    accel-disasm FILE [--target T]

FILE is a stream a command-stream target's codegen wrote (`<region>.bin` next to
model.c); T (default `npu-cmd`) names the description whose instruction set ([isa])
decodes it. The text is the one `accel-opt -t commands` prints: the header, then one
command a line, `name field=value ...`. A malformed stream, or a target without an
instruction set, is one line on stderr and exit code 1.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from accel.compiler.backend.stream_format import disassemble
from accel.compiler.diagnostics import CompileError, format_error
from accel.compiler.targets.registry import load_target


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="accel-disasm", description="print a binary command stream as text")
    parser.add_argument("file", help="a command stream (<region>.bin)")
    parser.add_argument("--target", default="npu-cmd", help="the command-stream target whose instruction set decodes it")
    args = parser.parse_args(argv)
    try:
        desc = load_target(args.target)
        if desc.isa is None:
            raise CompileError(f"target '{desc.name}' has no instruction set ([isa] in {desc.path})")
        try:
            with open(args.file, "rb") as f:
                blob = f.read()
        except OSError as e:
            raise CompileError(f"cannot read '{args.file}': {e.strerror or e}") from None
        sys.stdout.write(disassemble(desc.isa, blob, args.file, desc.memory.scratchpad_bytes))
    except CompileError as e:
        print(f"accel-disasm: {format_error(e)}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
