"""The codegen hook of the cblas target: each dense/matmul (+bias, +relu) kernel of a
region becomes one `cblas_sgemm` call on host memory. The description says
`api.lowering = "none"`, so the region arrives bufferized: `accel.kernel` ops around
the relay ops or composites (docs/targets.md, "The codegen hook")."""

from accel.compiler.backend.codegen_hook import RegionCodegenInput, RegionCodegenResult
from accel.compiler.diagnostics import CompileError
from accel.dialects import accel, relay

TRANSPOSE = {False: "CblasNoTrans", True: "CblasTrans"}


def codegen(region: RegionCodegenInput) -> RegionCodegenResult:
    lines = ["#include <cblas.h>", '#include "model_internal.h"', "", f"{region.prototype()} {{"]
    for kernel in region.function.walk():
        if isinstance(kernel, accel.KernelOp):
            lines += gemm(region, kernel)
    lines += ["    return 0;", "}", ""]
    return RegionCodegenResult(region.symbol, sources={f"{region.symbol}.c": "\n".join(lines)})


def gemm(region: RegionCodegenInput, kernel: accel.KernelOp) -> list[str]:
    """C = act(A B + bias), A: M x K, B: K x N (dense: W is N x K, transposed)."""
    c_of = dict(zip(kernel.body.block.args, map(region.c_buffer, kernel.ins)))
    ops = [o for o in kernel.body.block.ops if not isinstance(o, (relay.ConstantOp, accel.YieldOp))]
    if len(ops) == 1 and isinstance(ops[0], relay.CompositeOp):
        c_of.update(zip(ops[0].body.block.args, (c_of.get(v) or region.c_buffer(v) for v in ops[0].operands)))
        ops = [o for o in ops[0].body.block.ops if not isinstance(o, relay.YieldOp)]
    names = [o.name for o in ops]
    if names[0] not in ("relay.nn.dense", "relay.nn.matmul") or names[1:] not in ([], ["relay.nn.relu"],
                                                                                    ["relay.nn.bias_add"],
                                                                                    ["relay.nn.bias_add", "relay.nn.relu"]):
        raise CompileError(f"cblas: cannot run {' -> '.join(names)}", kernel)
    mm = ops[0]
    a, b = (c_of.get(v) or region.c_buffer(v) for v in mm.operands)
    trans_a = mm.name == "relay.nn.matmul" and bool(mm.prop("transpose_a"))
    trans_b = mm.name == "relay.nn.dense" or bool(mm.prop("transpose_b"))
    (m, n), (ra, ca), (rb, cb) = (tuple(v.type.get_shape()) for v in (mm.results[0], *mm.operands))
    k = ra if trans_a else ca
    y = region.c_buffer(kernel.outs[0])
    out = ["    {", f"        float *y = {y};"]
    bias = next((o for o in ops if o.name == "relay.nn.bias_add"), None)
    if bias is not None:  # C starts as the bias rows; beta = 1 adds A B
        out.append(f"        for (int i = 0; i < {m * n}; i++) y[i] = ({c_of.get(bias.operands[1]) or region.c_buffer(bias.operands[1])})[i % {n}];")
    out.append(f"        cblas_sgemm(CblasRowMajor, {TRANSPOSE[trans_a]}, {TRANSPOSE[trans_b]}, {m}, {n}, {k}, 1.0f, "
               f"{a}, {ca}, {b}, {cb}, {'1.0f' if bias is not None else '0.0f'}, y, {n});")
    if "relay.nn.relu" in names:
        out.append(f"        for (int i = 0; i < {m * n}; i++) y[i] = y[i] > 0.0f ? y[i] : 0.0f;")
    return [*out, "    }"]
