"""Where measurements run: local worker processes, or a Ray cluster, behind one interface.

    with make_executor("local", jobs=2) as ex:        # or "ray", "ray:HOST:PORT"
        for request, result in ex.run(requests):      # results as they complete
            ...

Every request is measured by `compiler/tuning/measure.py:measure` (or the `fn` given:
a module-level function, so that workers can import it). A measurement that
does not answer within `timeout` seconds (a hung compile or program) is abandoned - its
local worker process is killed and replaced, its Ray task cancelled - and retried, up to
`retries` times; then it counts as failed (`Result.error`), so a tune never hangs on one
candidate (the pain of TVM's RPC runners). A worker that dies is replaced the same way.

Ray (`pip install accel[tune]`): `ray` starts a local cluster of `jobs` CPUs (or joins the
one `RAY_ADDRESS` names), `ray:ADDR` connects to a running cluster (`ray start --head`
on one machine, `ray start --address ADDR` on the others); each measurement is a task
asking for one CPU. The workers import accel from their own environment: on other
machines it must be installed there.
"""

from __future__ import annotations

import multiprocessing
import re
import signal
import time
from collections.abc import Callable, Iterable, Iterator
from multiprocessing.connection import Connection, wait

from accel.compiler.diagnostics import CompileError
from accel.compiler.tuning.measure import Request, Result, measure


class Executor:
    """Runs measurements; `run` yields (request, result) as they complete."""

    jobs: int = 1

    def run(self, requests: Iterable[Request]) -> Iterator[tuple[Request, Result]]:
        raise NotImplementedError

    def close(self) -> None:
        pass

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


# -- local worker processes --------------------------------------------------------------


_READY = "ready"
STARTUP_SECONDS = 120.0
"""How long a fresh worker may take to import accel before it counts as hung."""


def _worker_main(conn: Connection, fn: Callable[[Request], Result]) -> None:
    # Ctrl-C is the tuner's to handle (it keeps the log and stops the workers): a
    # terminal sends it to the whole process group, and the compiler and programs this
    # worker starts inherit the ignored signal.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    conn.send(_READY)  # the clock of a measurement starts once the worker is up
    while True:
        try:
            request = conn.recv()
        except EOFError:
            return
        if request is None:
            return
        conn.send(fn(request))


class _Worker:
    def __init__(self, ctx, fn: Callable[[Request], Result]) -> None:
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=_worker_main, args=(child, fn), daemon=True)
        self.process.start()
        child.close()
        self.request: Request | None = None
        self.attempt = 0
        self.spawned = time.monotonic()
        self.started = 0.0
        self.ready = False

    def submit(self, request: Request, attempt: int) -> None:
        self.request, self.attempt, self.started = request, attempt, time.monotonic()
        self.conn.send(request)  # queued in the pipe until the worker is up

    def kill(self) -> None:
        self.process.kill()
        self.process.join(5)
        self.conn.close()


class LocalExecutor(Executor):
    """`jobs` long-lived worker processes (spawned: no state shared with the tuner)."""

    def __init__(self, jobs: int = 1, timeout: float = 300.0, retries: int = 1,
                 fn: Callable[[Request], Result] = measure) -> None:
        self.jobs, self.timeout, self.retries, self.fn = max(1, jobs), timeout, retries, fn
        self._ctx = multiprocessing.get_context("spawn")
        self._workers: list[_Worker] = []

    def run(self, requests: Iterable[Request]) -> Iterator[tuple[Request, Result]]:
        pending: list[tuple[Request, int]] = [(r, 0) for r in requests]
        pending.reverse()
        while len(self._workers) < min(self.jobs, len(pending)):
            self._workers.append(_Worker(self._ctx, self.fn))
        busy: list[_Worker] = []
        idle = list(self._workers)
        while pending or busy:
            while pending and idle:
                w = idle.pop()
                request, attempt = pending.pop()
                w.submit(request, attempt)
                busy.append(w)
            ready = wait([w.conn for w in busy] + [w.process.sentinel for w in busy], timeout=1.0)
            now = time.monotonic()
            for w in list(busy):
                failure = None
                if w.conn in ready:
                    try:
                        result = w.conn.recv()
                    except (EOFError, OSError):
                        failure = "the worker process died"
                    else:
                        if result == _READY:
                            w.ready, w.started = True, now
                            continue
                        busy.remove(w)
                        idle.append(w)
                        yield w.request, result
                        continue
                elif not w.process.is_alive():
                    failure = f"the worker process died (exit {w.process.exitcode})"
                elif w.ready and now - w.started > self.timeout:
                    failure = f"no answer within {self.timeout:g} s"
                elif not w.ready and now - w.spawned > STARTUP_SECONDS:
                    failure = f"the worker did not start within {STARTUP_SECONDS:g} s"
                if failure is None:
                    continue
                busy.remove(w)
                w.kill()
                self._workers.remove(w)
                fresh = _Worker(self._ctx, self.fn)
                self._workers.append(fresh)
                idle.append(fresh)
                if w.attempt < self.retries:
                    pending.append((w.request, w.attempt + 1))
                else:
                    yield w.request, Result(error=f"measurement failed after {w.attempt + 1} attempts: {failure}",
                                            seconds=now - w.started)

    def close(self) -> None:
        for w in self._workers:
            try:
                w.conn.send(None)
            except OSError:
                pass
        for w in self._workers:
            w.process.join(2)
            if w.process.is_alive():
                w.kill()
        self._workers = []


# -- Ray -----------------------------------------------------------------------------------


def _ray():
    try:
        import ray
    except ImportError:
        raise CompileError("--executor ray needs Ray: pip install 'accel[tune]' (ray==2.60.0)") from None
    return ray


class RayExecutor(Executor):
    """Each measurement a Ray task (one CPU); at most `jobs` in flight (default: the
    cluster's CPUs)."""

    def __init__(self, address: str | None = None, jobs: int = 0, timeout: float = 300.0, retries: int = 1,
                 fn: Callable[[Request], Result] = measure) -> None:
        ray = _ray()
        self.ray, self.timeout, self.retries = ray, timeout, retries
        self._owned = not ray.is_initialized()
        if self._owned:
            kwargs = {"address": address} if address else {"num_cpus": jobs or None}
            try:
                ray.init(include_dashboard=False, log_to_driver=False, configure_logging=False, **kwargs)
            except Exception as e:  # ConnectionError, RuntimeError, ...: one line
                what = f"connect to the Ray cluster at {address}" if address else "start a local Ray cluster"
                raise CompileError(f"cannot {what}: {_last_line(e)}") from None
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.jobs = max(1, min(jobs, cpus) if jobs else cpus)
        self._remote = ray.remote(num_cpus=1, max_retries=0)(fn)

    def run(self, requests: Iterable[Request]) -> Iterator[tuple[Request, Result]]:
        ray = self.ray
        pending: list[tuple[Request, int]] = [(r, 0) for r in requests]
        pending.reverse()
        flight: dict = {}
        while pending or flight:
            while pending and len(flight) < self.jobs:
                request, attempt = pending.pop()
                flight[self._remote.remote(request)] = (request, attempt, time.monotonic())
            done, _ = ray.wait(list(flight), num_returns=1, timeout=1.0)
            now = time.monotonic()
            for ref in done:
                request, attempt, started = flight.pop(ref)
                try:
                    yield request, ray.get(ref)
                except Exception as e:  # the worker died (RayTaskError, WorkerCrashedError, ...)
                    failure = _last_line(e)
                    if attempt < self.retries:
                        pending.append((request, attempt + 1))
                    else:
                        yield request, Result(error=f"measurement failed after {attempt + 1} attempts: {failure}",
                                              seconds=now - started)
            for ref, (request, attempt, started) in list(flight.items()):
                if now - started > self.timeout:
                    ray.cancel(ref, force=True)
                    del flight[ref]
                    if attempt < self.retries:
                        pending.append((request, attempt + 1))
                    else:
                        yield request, Result(error=f"measurement failed after {attempt + 1} attempts: no answer "
                                                    f"within {self.timeout:g} s", seconds=now - started)

    def close(self) -> None:
        if self._owned and self.ray.is_initialized():
            self.ray.shutdown()


def _last_line(e: BaseException) -> str:
    """The line of a (Ray) exception that says what went wrong: its last, without colours."""
    lines = [re.sub(r"\x1b\[[0-9;]*m", "", ln).strip() for ln in str(e).splitlines()]
    lines = [ln for ln in lines if ln]
    return lines[-1] if lines else type(e).__name__


def make_executor(spec: str, jobs: int = 1, timeout: float = 300.0, retries: int = 1) -> Executor:
    """`local`, `ray` (start or join a local cluster) or `ray:ADDRESS`."""
    if spec == "local":
        return LocalExecutor(jobs, timeout, retries)
    if spec == "ray" or spec.startswith("ray:"):
        address = spec[4:] or None if spec.startswith("ray:") else None
        return RayExecutor(address, jobs, timeout, retries)
    raise CompileError(f"unknown executor '{spec}' (expected local, ray or ray:ADDRESS)")
