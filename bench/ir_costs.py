"""IR costs per op: parse, verify, print and interpret relay graphs of growing size.

    .venv/bin/python bench/ir_costs.py                  # 1k, 10k and 50k ops
    .venv/bin/python bench/ir_costs.py --sizes 1000,10000 --repeat 3

The graphs are deep CNN-like chains built with `GraphBuilder`: conv2d + bias_add + relu
blocks with residual adds, depthwise convs, batch norm, pools, a dense head per stage,
reshape / transpose / concatenate, softmax, and int8 quantize / qnn.conv2d / requantize /
dequantize blocks. Convolution weights are external (an .npz beside the IR, as a real
model's would be); biases and quantization parameters are inline. "ops" counts every op in
`@main` (constants included). Each cost is the median of `--repeat` runs, in milliseconds
per op; per-op costs that grow with the size would mean quadratic behaviour. Times are
CPU time of this process (`time.process_time`), so other work on a shared machine
inflates them less than it would wall-clock time.

parse uses accel-opt's parser (`LocatingParser`, which also records op locations);
verify is `ModuleOp.verify()`; print is the custom form; interpret is the numpy
reference interpreter (`run_function`). Not part of the test suite.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.dialects.func import Func
from xdsl.printer import Printer

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from accel.compiler.diagnostics import LocatingParser  # noqa: E402
from accel.compiler.frontend.builder import GraphBuilder  # noqa: E402
from accel.compiler.tensors import set_ir_dir  # noqa: E402
from accel.dialects.relay import Relay  # noqa: E402

CHANNELS = 8
SIZE = 8

# --------------------------------------------------------------------------------------
# Graph generation
# --------------------------------------------------------------------------------------


class Net:
    """Appends blocks to a GraphBuilder; every block keeps the [1, C, H, W] activation."""

    def __init__(self, seed: int = 0):
        self.b = GraphBuilder(inline_limit=64)
        self.rng = np.random.default_rng(seed)
        self.x = self.b.input("image", (1, CHANNELS, SIZE, SIZE))
        self.outputs = []

    def w(self, *shape: int, scale: float = 0.2):
        return self.b.const(self.rng.uniform(-scale, scale, size=shape).astype(np.float32))

    def conv_block(self, x):
        y = self.b.conv2d(x, self.w(CHANNELS, CHANNELS, 3, 3), padding=(1, 1, 1, 1))
        return self.b.relu(self.b.bias_add(y, self.w(CHANNELS)))

    def residual(self, x):
        return self.b.add(self.conv_block(self.conv_block(x)), x)

    def depthwise_bn(self, x):
        y = self.b.conv2d(x, self.w(CHANNELS, 1, 3, 3), padding=(1, 1, 1, 1), groups=CHANNELS)
        params = [self.w(CHANNELS, scale=1.0) for _ in range(3)]
        var = self.b.const(self.rng.uniform(0.5, 1.5, CHANNELS).astype(np.float32))
        y = self.b.batch_norm(y, *params, var)
        return self.b.clip(y, a_min=0.0, a_max=6.0)

    def pool_branch(self, x):
        m = self.b.max_pool2d(x, pool_size=(3, 3), padding=(1, 1, 1, 1))
        a = self.b.avg_pool2d(x, pool_size=(3, 3), padding=(1, 1, 1, 1), count_include_pad=False)
        return self.b.multiply(self.b.add(m, a), self.b.const(np.float32(0.5)))

    def head(self, x):
        """A side output: pool, flatten, dense, softmax (a multi-output network)."""
        flat = self.b.batch_flatten(self.b.global_avg_pool2d(x))
        logits = self.b.dense(flat, self.w(10, CHANNELS))
        self.outputs.append(self.b.softmax(logits))

    def shuffle(self, x):
        """Channel shuffle (reshape / transpose / reshape), then swap the channel halves
        (two takes and a concatenate)."""
        y = self.b.reshape(x, newshape=(1, 2, CHANNELS // 2, SIZE, SIZE))
        y = self.b.transpose(y, axes=(0, 2, 1, 3, 4))
        y = self.b.reshape(y, newshape=(0, -1, SIZE, SIZE))
        half = CHANNELS // 2
        low = self.b.take(y, self.b.const(np.arange(half, dtype=np.int64)), axis=1)
        high = self.b.take(y, self.b.const(np.arange(half, CHANNELS, dtype=np.int64)), axis=1)
        return self.b.concatenate(high, low, axis=1)

    def quantized(self, x):
        scale, zp = self.b.const(np.float32(0.05)), self.b.const(np.int8(0))
        q = self.b.qnn_quantize(x, scale, zp)
        w = self.b.const(self.rng.integers(-8, 8, size=(CHANNELS, CHANNELS, 1, 1)).astype(np.int8))
        acc = self.b.qnn_conv2d(q, w, zp, self.b.const(np.int8(0)), scale, self.b.const(np.float32(0.01)))
        r = self.b.qnn_requantize(acc, self.b.const(np.float32(0.0005)), self.b.const(np.int32(0)), scale, zp)
        return self.b.qnn_dequantize(r, scale, zp)

    def stage(self, x):
        x = self.residual(x)
        x = self.depthwise_bn(x)
        x = self.pool_branch(x)
        x = self.shuffle(x)
        x = self.quantized(x)
        self.head(x)
        return x


def build(n_ops: int, weights_path: str) -> tuple[ModuleOp, dict[str, np.ndarray]]:
    """A network of about `n_ops` ops in `@main`."""
    net = Net()
    x = net.x
    while len(net.b.block.ops) < n_ops:
        x = net.stage(x)
    module = net.b.build([x, *net.outputs], ["features", *[f"head{i}" for i in range(len(net.outputs))]],
                         weights_path=weights_path)
    inputs = {"image": np.random.default_rng(1).standard_normal((1, CHANNELS, SIZE, SIZE)).astype(np.float32)}
    return module, inputs


# --------------------------------------------------------------------------------------
# Measurements
# --------------------------------------------------------------------------------------


def context() -> Context:
    ctx = Context()
    for dialect in (Builtin, Func, Relay):
        ctx.load_dialect(dialect)
    return ctx


def print_ir(module: ModuleOp) -> str:
    out = io.StringIO()
    Printer(stream=out).print_op(module)
    return out.getvalue()


def median_ms(fn: Callable[[], object], repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        start = time.process_time()
        result = fn()
        times.append((time.process_time() - start) * 1000)
    return statistics.median(times), result


def measure(n_ops: int, repeat: int, interpret: bool, workdir: str) -> dict[str, float]:
    module, inputs = build(n_ops, os.path.join(workdir, f"weights_{n_ops}.npz"))
    ops = sum(1 for _ in module.body.block.first_op.body.block.ops)
    text = print_ir(module)
    ctx = context()

    t_parse, parsed = median_ms(lambda: LocatingParser(ctx, text, "bench.mlir").parse_module(), repeat)
    t_verify, _ = median_ms(parsed.verify, repeat)
    t_print, printed = median_ms(lambda: print_ir(parsed), repeat)
    assert printed == text, "print -> parse -> print is not a fixed point"
    row = {"ops": ops, "text_mb": len(text) / 1e6, "parse": t_parse, "verify": t_verify, "print": t_print}
    if interpret:
        from accel.compiler.runtime.interpreter import run_function

        set_ir_dir(workdir)
        t_run, _ = median_ms(lambda: run_function(parsed, inputs), repeat)
        row["interpret"] = t_run
    return row


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,50000", help="comma-separated op counts")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement (the median is shown)")
    parser.add_argument("--no-interpret", action="store_true", help="skip the interpreter")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s]

    columns = ["parse", "verify", "print"] + ([] if args.no_interpret else ["interpret"])
    print(f"{'ops':>7} {'IR MB':>6} " + " ".join(f"{c + ' ms/op':>15}" for c in columns))
    with tempfile.TemporaryDirectory() as workdir:
        for n in sizes:
            row = measure(n, args.repeat, not args.no_interpret, workdir)
            cells = " ".join(f"{row[c] / row['ops']:>15.4f}" for c in columns)
            print(f"{row['ops']:>7} {row['text_mb']:>6.2f} {cells}", flush=True)


if __name__ == "__main__":
    main()
