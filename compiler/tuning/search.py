"""Search strategies: which configurations of a task to measure next.

Every strategy ranks with the analytic model (`space.analytic_cycles`) before anything is
measured, and never proposes a configuration already measured (a resumed tune skips
them):

- `grid`: the whole space, best predicted first (exhaustive when the budget allows);
- `random`: a seeded random sample of the space, four candidates drawn per one measured,
  the best predicted of them measured;
- `anneal`: simulated annealing over neighbouring configurations (one knob changed), the energy being the measured cycles where known, else the analytic
  estimate scaled by the task's measured/predicted ratio;
- `model`: a learned cost model (scikit-learn's gradient-boosted trees, the `tune`
  extra), fitted on every measurement of the tune so far (all tasks: the features are
  the configuration's relative tile sizes, tile count, buffering, prefetch and the
  analytic estimate) and refitted after each round; it ranks the unmeasured
  configurations, one in four proposals is drawn at random for exploration. Until it
  has 8 measurements it ranks like `grid`.
"""

from __future__ import annotations

import math
import random

from accel.compiler.diagnostics import CompileError
from accel.compiler.tuning.log import config_key

STRATEGIES = ("grid", "random", "anneal", "model")
MIN_MODEL_SAMPLES = 8


class TaskSearch:
    """The search state of one task: its space, analytic estimates, and measurements."""

    def __init__(self, configs: list[dict], analytic: list[float], features: list[list[float]], seed: int):
        self.configs = configs
        self.analytic = analytic
        self.features = features
        self.index = {config_key(c): i for i, c in enumerate(configs)}
        self.measured: dict[int, int | None] = {}
        self.rng = random.Random(seed)
        self.order = sorted(range(len(configs)), key=lambda i: analytic[i])
        self._near: dict[int, list[int]] = {}

    def record(self, config: dict, cycles: int | None) -> None:
        i = self.index.get(config_key(config))
        if i is not None:
            self.measured[i] = cycles

    def unmeasured(self) -> list[int]:
        return [i for i in self.order if i not in self.measured]

    def best(self) -> int | None:
        ok = [(c, i) for i, c in self.measured.items() if c is not None]
        return min(ok)[1] if ok else None

    def ratio(self) -> float:
        """Measured / predicted over this task's measurements (1 before any)."""
        pairs = [(c, self.analytic[i]) for i, c in self.measured.items() if c is not None and self.analytic[i] > 0]
        if not pairs:
            return 1.0
        return sorted(c / a for c, a in pairs)[len(pairs) // 2]


def propose(strategy: str, search: TaskSearch, n: int, learned=None) -> list[dict]:
    free = search.unmeasured()
    if n <= 0 or not free:
        return []
    if strategy == "grid" or (strategy == "model" and learned is None):
        picked = free[:n]
    elif strategy == "random":
        sample = search.rng.sample(free, min(len(free), 4 * n))
        picked = sorted(sample, key=lambda i: search.analytic[i])[:n]
    elif strategy == "anneal":
        picked = _anneal(search, n)
    elif strategy == "model":
        picked = _by_model(search, free, n, learned)
    else:
        raise CompileError(f"unknown strategy '{strategy}' (expected one of: {', '.join(STRATEGIES)})")
    return [search.configs[i] for i in picked]


def _neighbours(search: TaskSearch, i: int) -> list[int]:
    """Configurations differing from configuration i in one knob."""
    if i in search._near:
        return search._near[i]
    cfg = search.configs[i]
    out = search._near[i] = []
    for j, other in enumerate(search.configs):
        if j != i and len(set(cfg) ^ set(other)) == 0 and sum(cfg[k] != other[k] for k in cfg) == 1:
            out.append(j)
    return out


def _anneal(search: TaskSearch, n: int) -> list[int]:
    ratio = search.ratio()

    def energy(i: int) -> float:
        c = search.measured.get(i)
        return float(c) if c is not None else search.analytic[i] * ratio

    start = search.best()
    current = start if start is not None and search.configs[start] else search.order[0]
    if not search.configs[current]:  # the default has no knobs: start from the best predicted
        current = next((i for i in search.order if search.configs[i]), current)
    found: list[int] = []
    temperature = 0.05 * energy(current) + 1.0
    for _ in range(40 * n):
        if len(found) >= n:
            break
        near = _neighbours(search, current)
        if not near:
            break
        j = search.rng.choice(near)
        delta = energy(j) - energy(current)
        if delta <= 0 or search.rng.random() < math.exp(-delta / temperature):
            current = j
            if j not in search.measured and j not in found:
                found.append(j)
        temperature *= 0.95
    if len(found) < n:
        found += [i for i in search.unmeasured() if i not in found][: n - len(found)]
    return found


def _by_model(search: TaskSearch, free: list[int], n: int, learned) -> list[int]:
    predicted = learned.predict([search.features[i] for i in free])
    ranked = [i for _, i in sorted(zip(predicted, free))]
    picked = ranked[: max(1, n - n // 4)]
    rest = [i for i in free if i not in picked]
    while len(picked) < n and rest:
        picked.append(rest.pop(search.rng.randrange(len(rest))))
    return picked


def fit_model(searches: list[TaskSearch]):
    """Gradient-boosted trees on log(cycles) over every measurement so far (None below
    MIN_MODEL_SAMPLES measurements)."""
    xs, ys = [], []
    for s in searches:
        for i, c in s.measured.items():
            if c is not None and c > 0:
                xs.append(s.features[i])
                ys.append(math.log(c))
    if len(xs) < MIN_MODEL_SAMPLES:
        return None
    try:
        from sklearn.ensemble import GradientBoostingRegressor
    except ImportError:
        raise CompileError("--strategy model needs scikit-learn: pip install 'accel[tune]'") from None
    model = GradientBoostingRegressor(n_estimators=60, max_depth=3, learning_rate=0.1, random_state=0)
    model.fit(xs, ys)
    return model
