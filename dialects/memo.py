"""Values computed once per IR object (an attribute or a type), keyed by identity.

The lowest layer's home for the memo the dialects (their property values) and the
compiler (buffer sizes, layouts, verification) share: hashing an xDSL attribute walks its
parameters, while attributes and types are immutable and shared, so their identity is
as good a key, and cheaper."""

from __future__ import annotations


def by_identity(fn=None, *, limit: int = 100_000):
    """`fn(x)` computed once per object `x` (an attribute or type: immutable, and shared,
    as built here and by `accel.memref_type`): keyed by `id(x)`, since hashing an xDSL
    attribute walks its parameters. An entry keeps its `x` alive, so the id is not reused;
    the table is emptied past `limit` entries (`@by_identity(limit=PER_DESCRIPTION)` for a
    function of a target description, which holds its pattern modules' IR: a process that
    loads many, such as the fuzzer's worker, must not keep them all)."""
    if fn is None:
        return lambda f: by_identity(f, limit=limit)
    memo: dict[int, tuple] = {}

    def get(x):
        hit = memo.get(id(x))
        if hit is not None and hit[0] is x:
            return hit[1]
        value = fn(x)
        if len(memo) >= limit:
            memo.clear()
        memo[id(x)] = (x, value)
        return value

    get.__doc__ = fn.__doc__
    get.__name__ = getattr(fn, "__name__", "by_identity")
    return get
