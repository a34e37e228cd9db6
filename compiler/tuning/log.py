"""Tuning logs: JSON lines, appended per measurement, read back to resume a tune and to
apply its best configurations (`accel-compile --tuning-log`).

    {"format": "accel-tuning-log", "version": 1, "targets": {"npu": {"fingerprint": "3f2a…", "tuning_version": 1}}}
    {"task": "97f82e36f87b167e", "target": "npu", "op": "conv2d (1x3x32x32xf32, …) -> …", "instances": 2, "config": {}, "cycles": 12016}
    {"task": "97f82e36f87b167e", "target": "npu", "op": "…", "instances": 2, "config": {"row_tile": 4}, "cycles": 8504}
    {"task": "…", "target": "npu", "op": "…", "instances": 1, "config": {"row_tile": 1}, "cycles": null, "error": "…"}

The first line names each target the log was tuned for by a fingerprint of its
description file and its `[tuning] version`: a log read against a different description
is stale and refused (never silently used); a target the header does not name (a log
written by hand) is not checked. Each later line is one measurement; the
default configuration `{}` is measured for every task. A line cut short by an
interrupted write (the last one) is ignored; any other malformed line is an error
naming the file and line. The best configuration of a task is its measured one with the
fewest cycles (the default included, so applying a log is never worse than the default
as measured). Measured alone, a task's best may still lose in the whole model (a
neighbour further away changes what stays on the device): the tune then records the
task's default again with `"selected": true`, which wins.
"""

from __future__ import annotations

import hashlib
import json
import os
import tomllib
from dataclasses import dataclass, field

from accel.compiler.diagnostics import CompileError
from accel.compiler.targets.registry import EXTENDS_KEY, base_path
from accel.compiler.targets.schema import TargetDescription

FORMAT = "accel-tuning-log"
VERSION = 1


def fingerprint(desc: TargetDescription) -> dict:
    """What a log records of a target: a hash of its description file and the files it
    `extends` (npu-cmd tunes the npu's space: a change there makes its logs stale too),
    and its `[tuning] version`."""
    h = hashlib.sha256()
    path: str | None = desc.path
    try:
        while path is not None:
            with open(path, "rb") as f:
                data = f.read()
            h.update(data)
            base = tomllib.loads(data.decode()).get(EXTENDS_KEY)
            path = base_path(base, path) if base is not None else None
        digest = h.hexdigest()[:16]
    except (OSError, ValueError, CompileError):
        digest = "unreadable"
    return {"fingerprint": digest, "tuning_version": desc.tuning.version if desc.tuning else 0}


def config_key(config: dict) -> str:
    return json.dumps(config, sort_keys=True)


@dataclass
class Record:
    task: str
    target: str
    op: str
    instances: int
    config: dict
    cycles: int | None
    error: str | None = None
    selected: bool = False
    """Chosen by the tune's check of the whole model (see tuner.py): it wins over the
    task's fewest cycles."""

    def to_json(self) -> str:
        d = {"task": self.task, "target": self.target, "op": self.op, "instances": self.instances,
             "config": self.config, "cycles": self.cycles}
        if self.error is not None:
            d["error"] = self.error
        if self.selected:
            d["selected"] = True
        return json.dumps(d, sort_keys=True)


@dataclass
class TuningLog:
    path: str
    targets: dict[str, dict] = field(default_factory=dict)
    records: list[Record] = field(default_factory=list)

    def measured(self, task: str) -> dict[str, Record]:
        """The task's measurements by configuration (`config_key`)."""
        return {config_key(r.config): r for r in self.records if r.task == task}

    def best(self, task: str) -> tuple[Record | None, Record | None]:
        """(best, default measured) of a task: its last selected record, else its measured
        configuration with the fewest cycles."""
        rs = [r for r in self.records if r.task == task and r.cycles is not None]
        if not rs:
            return None, None
        default = next((r for r in rs if not r.config), None)
        selected = [r for r in rs if r.selected]
        if selected:
            return selected[-1], default
        return min(rs, key=lambda r: (r.cycles, bool(r.config))), default

    def check_target(self, desc: TargetDescription) -> None:
        """Refuse a log tuned for another version of the description."""
        recorded = self.targets.get(desc.name)
        if recorded is None:
            return
        current = fingerprint(desc)
        if recorded != current:
            raise CompileError(
                f"{self.path}: stale tuning log: tuned for target '{desc.name}' with description fingerprint "
                f"{recorded.get('fingerprint')} (tuning version {recorded.get('tuning_version')}), the description is "
                f"now {current['fingerprint']} (tuning version {current['tuning_version']}); rerun accel-tune")


def read_log(path: str) -> TuningLog:
    """A log file; one-line errors for anything malformed."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
    except OSError as e:
        raise CompileError(f"cannot read tuning log '{path}': {e.strerror}") from None
    complete = lines[:-1] if lines and lines[-1] == "" else lines
    log = TuningLog(path)
    for i, line in enumerate(complete):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except ValueError:
            if i == len(complete) - 1 and lines[-1] != "":
                break  # the last line of an interrupted write
            raise CompileError(f"{path}:{i + 1}: not a tuning log line (invalid JSON)") from None
        if i == 0:
            if not isinstance(data, dict) or data.get("format") != FORMAT:
                raise CompileError(f"{path}:1: not an accel tuning log (expected a header with \"format\": \"{FORMAT}\")")
            if data.get("version") != VERSION:
                raise CompileError(f"{path}:1: tuning log version {data.get('version')!r}, this accel reads {VERSION}")
            targets = data.get("targets")
            if not isinstance(targets, dict) or not all(isinstance(v, dict) for v in targets.values()):
                raise CompileError(f"{path}:1: 'targets' must map target names to fingerprints")
            log.targets = targets
            continue
        log.records.append(_record(data, path, i + 1))
    if not complete or not complete[0].strip():
        raise CompileError(f"{path}: empty tuning log (expected a header line)")
    return log


def _record(data, path: str, line: int) -> Record:
    def fail(what: str):
        raise CompileError(f"{path}:{line}: {what}")

    if not isinstance(data, dict):
        fail("expected a JSON object")
    for key, kind in (("task", str), ("target", str), ("config", dict)):
        if not isinstance(data.get(key), kind):
            fail(f"'{key}' must be a {'string' if kind is str else 'object'}")
    cycles = data.get("cycles")
    if cycles is not None and (isinstance(cycles, bool) or not isinstance(cycles, int) or cycles < 0):
        fail("'cycles' must be a non-negative integer or null")
    for k, v in data["config"].items():
        if not isinstance(v, (int, str)):
            fail(f"config value of '{k}' must be an integer, a boolean or a string")
    instances = data.get("instances", 1)
    return Record(data["task"], data["target"], str(data.get("op", "")), instances if isinstance(instances, int) else 1,
                  data["config"], cycles, data.get("error"), data.get("selected") is True)


class LogWriter:
    """Appends records to a log (creating it with its header), each flushed to disk at
    once, so an interrupted tune keeps every measurement made."""

    def __init__(self, path: str, targets: dict[str, dict]):
        self.path = path
        exists = os.path.exists(path) and os.path.getsize(path) > 0
        if exists:
            # A last line cut short by an interrupted write is dropped (read_log ignores it).
            with open(path, "rb+") as f:
                data = f.read()
                if not data.endswith(b"\n"):
                    f.truncate(data.rfind(b"\n") + 1)
        self.file = open(path, "a", encoding="utf-8")
        if not exists or os.path.getsize(path) == 0:
            self._write(json.dumps({"format": FORMAT, "version": VERSION, "targets": targets}, sort_keys=True))

    def _write(self, line: str) -> None:
        self.file.write(line + "\n")
        self.file.flush()
        os.fsync(self.file.fileno())

    def append(self, record: Record) -> None:
        self._write(record.to_json())

    def close(self) -> None:
        self.file.close()
