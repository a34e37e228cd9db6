"""`make demo`: the whole flow on the bundled example model.

ONNX model -> relay -> partition for the built-in `npu` target -> accel dialect with
DMA -> C -> built with the system compiler against the NPU simulator -> run -> compared
with the reference interpreter and onnxruntime. Prints the partition summary, the DMA
figures (planned by the compiler and counted by the simulator) and the errors.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=os.path.join(HERE, "tiny_resnet.onnx"))
    parser.add_argument("--target", default="npu")
    parser.add_argument("-o", "--output", default=None, help="output directory (default: a temporary one)")
    args = parser.parse_args()

    from accel.compiler.diagnostics import CompileError, format_error
    from accel.compiler.driver import compile_to_directory
    from accel.compiler.frontend.onnx import import_onnx_file
    from accel.compiler.runtime.interpreter import run_function
    from accel.compiler.runtime.run_compiled import model_signature, run_directory

    out_dir = args.output or tempfile.mkdtemp(prefix="accel-demo-")
    try:
        print(f"== accel-compile {os.path.relpath(args.model)} --target {args.target} -o {out_dir}")
        report = compile_to_directory(args.model, args.target, out_dir)
        ops = report["ops"]
        print(f"   {ops['offloaded']} of {ops['total']} ops offloaded to {args.target}, {ops['host']} on the host, "
              f"{len(report['regions'])} region(s)")
        for r in report["regions"]:
            print(f"   region {r['name']}: {r['ops']} ops, {len(r['inputs'])} input(s), {len(r['outputs'])} output(s)")
        for rej in report["rejected"]:
            print(f"   host: {rej['op']} at {rej['location']}: {rej['reason']}")

        ins, _ = model_signature(out_dir)
        rng = np.random.default_rng(0)
        inputs = {name: rng.standard_normal(shape).astype(dt) for name, shape, dt in ins}
        print("== accel-run (C, built with cc against the NPU simulator)")
        outputs, counters = run_directory(out_dir, inputs)
        dma = report["dma"]
        print(f"   DMA planned by the compiler: {dma['bytes_to_device']} B to device, {dma['bytes_to_host']} B to host, "
              f"{dma['transfers']} transfers (lower bound {dma['lower_bound_bytes']} B)")
        print(f"   DMA counted by the simulator: {counters.get('bytes_to_device')} B to device, "
              f"{counters.get('bytes_to_host')} B to host, {counters.get('transfers')} transfers, "
              f"{counters.get('accel_ops')} accelerator ops, {counters.get('cycles')} cycles "
              f"(compiler's estimate {report['cycles']['estimate']}, lower bound {report['cycles']['lower_bound']})")

        print("== check against the references")
        reference = run_function(import_onnx_file(args.model), inputs)
        ok = True
        for name, ref in reference.items():
            scale = float(np.max(np.abs(ref))) or 1.0
            err = float(np.max(np.abs(outputs[name].astype(np.float64) - ref.astype(np.float64))))
            good = err <= 1e-4 * scale
            ok &= good
            print(f"   {name}: max |C - interpreter| = {err:.3g} ({err / scale:.2g} of max |ref| {scale:.3g}) "
                  f"{'OK' if good else 'MISMATCH'}")
        try:
            import onnxruntime as ort

            so = ort.SessionOptions()
            so.intra_op_num_threads = 1
            sess = ort.InferenceSession(args.model, so, providers=["CPUExecutionProvider"])
            for meta, value in zip(sess.get_outputs(), sess.run(None, inputs)):
                scale = float(np.max(np.abs(value))) or 1.0
                err = float(np.max(np.abs(outputs[meta.name].astype(np.float64) - value)))
                good = err <= 1e-4 * scale
                ok &= good
                print(f"   {meta.name}: max |C - onnxruntime| = {err:.3g} ({err / scale:.2g} of max) "
                      f"{'OK' if good else 'MISMATCH'}")
        except ImportError:
            print("   (onnxruntime not installed: skipped that comparison)")
        print(f"== {'PASS' if ok else 'FAIL'} (tolerance: 1e-4 of the output's max); artifacts in {out_dir}")
        return 0 if ok else 1
    except CompileError as e:
        print(f"demo: {format_error(e)}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
