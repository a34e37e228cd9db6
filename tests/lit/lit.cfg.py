import os
import sys

import lit.formats

config.name = "accel"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.excludes = ["lit.cfg.py", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
# lit does not inherit an activated venv: put this interpreter's tools (accel-opt,
# filecheck) first on PATH.
config.environment["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), config.environment.get("PATH", "")])
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%inputs", os.path.join(os.path.dirname(__file__), "Inputs")))
