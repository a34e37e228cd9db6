"""The target context: the accelerator descriptions of one compile, loaded once.

A tool loads the descriptions named by `--target` into the context (`select`); a pass
whose own target option is empty uses those, and a pass option naming a file loads it
into the same context (`load`). After that every pass, the report and the emitter look
targets up by name (`named`, for `accel.target = "<name>"`), so a description is read,
validated and its hooks imported once per compile, and two passes never disagree about
what `npu` means. As snax-mlir's `AccContext`, it rides on xDSL's `Context`:

    ctx = AccelContext()            # the dialects are loaded by `make_context()`
    ctx.targets.select("npu,dsp")
    Byoc().apply(ctx, module)       # byoc{target=} empty: npu, dsp

Rules checked here, because they concern several descriptions at once: a name is one
description (the same name from two files is an error), and two targets of one compile
never share a C prefix (their APIs would collide in one program).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from accel.compiler.diagnostics import CompileError
from accel.dialects import fast_core, xdsl_fixes
from accel.dialects.conventions import accelerator_functions
from accel.dialects.fast_access import speed_up

if TYPE_CHECKING:
    from accel.compiler.targets.schema import TargetDescription


def _registry():
    """The description reader, imported when a compile first names a target (the schema
    and numpy cost a tool's start-up otherwise)."""
    from accel.compiler.targets import registry

    return registry


class TargetContext:
    """Descriptions by name, in the order they were loaded."""

    def __init__(self) -> None:
        self._by_spec: dict[str, TargetDescription] = {}
        self._by_name: dict[str, TargetDescription] = {}
        self.selected: tuple[TargetDescription, ...] = ()
        """The tool's `--target`, in priority order: the default of every target option."""
        self._region_clones: dict[str, Operation] = {}
        """Region symbol -> its function at relay/composite level, as outline-regions made
        it (kept for targets with a codegen hook: the hook's `relay_function`)."""

    def _add(self, spec: str) -> TargetDescription:
        desc = self._by_spec.get(spec) or self._by_name.get(spec)
        if desc is not None:
            return desc
        desc = _registry().load_target(spec)
        known = self._by_name.get(desc.name)
        if known is not None and known.path != desc.path:
            raise CompileError(f"two descriptions are named '{desc.name}': {known.path} and {desc.path}")
        for other in self._by_name.values():
            if other.name != desc.name and other.api.prefix == desc.api.prefix:
                raise CompileError(
                    f"targets '{other.name}' and '{desc.name}' share the C prefix '{desc.api.prefix}': "
                    "their APIs would collide in one program (compile for one of them)"
                )
        self._by_spec[spec] = desc
        self._by_name.setdefault(desc.name, desc)
        return desc

    def load(self, option: str | Iterable[str]) -> tuple[TargetDescription, ...]:
        """The descriptions of a target option ("npu,dsp", a tuple, paths), loaded into
        the context if they are not there yet; in order, without duplicates."""
        out: list[TargetDescription] = []
        for spec in _registry().target_names(option):
            desc = self._add(spec)
            if any(d.name == desc.name for d in out):
                raise CompileError(f"target '{desc.name}' is listed twice")
            out.append(desc)
        return tuple(out)

    def select(self, option: str | Iterable[str]) -> tuple[TargetDescription, ...]:
        """Load the tool's `--target` and make it the default of empty target options."""
        self.selected = self.load(option)
        return self.selected

    def resolve(self, option: str | Iterable[str], pass_name: str, key: str = "target") -> tuple[TargetDescription, ...]:
        """A pass's target option (`key`), or the selected targets when it is empty."""
        descs = self.load(option) if _registry().target_names(option) else self.selected
        if not descs:
            raise CompileError(f"{pass_name} needs a target (e.g. {pass_name}{{{key}=npu}} or --target npu)")
        return descs

    def next_compile(self) -> TargetContext:
        """A context for another compile in the same run (the next chunk of
        --split-input-file): the same selection, nothing else it loaded."""
        fresh = TargetContext()
        fresh.select(tuple(d.path for d in self.selected))
        return fresh

    def named(self, name: str, op: Operation | None = None) -> TargetDescription:
        """The description of `accel.target = "<name>"`: one loaded in this compile, else
        the built-in target of that name."""
        desc = self._by_name.get(name)
        if desc is not None:
            return desc
        if op is None:
            return self._add(name)
        try:
            return self._add(name)
        except CompileError as e:
            raise CompileError(f"accel.target \"{name}\": {e.message}", op) from None

    def of_regions(self, module: ModuleOp) -> dict[str, TargetDescription]:
        """The description of every target that has a region in `module`, by name."""
        return {name: self.named(name, fn) for fn, name in accelerator_functions(module)}

    def keep_region(self, symbol: str, fn: Operation) -> None:
        """Keep `fn` (a clone, outside the module) as region `symbol` at relay level."""
        self._region_clones[symbol] = fn

    def region_clone(self, symbol: str) -> Operation | None:
        return self._region_clones.get(symbol)

    def get(self, name: str) -> TargetDescription | None:
        return self._by_name.get(name)

    @property
    def descriptions(self) -> tuple[TargetDescription, ...]:
        return tuple(self._by_name.values())


@dataclass
class AccelContext(Context):
    """xDSL's context plus the compile's targets."""

    targets: TargetContext = field(default_factory=TargetContext)

    def __post_init__(self) -> None:
        fast_core.install()  # xDSL's op construction and walks in fewer steps, the same results
        xdsl_fixes.install()  # MLIR's reading of hex literals in float dense attributes

    def clone(self) -> AccelContext:
        base = super().clone()
        return AccelContext(
            base.allow_unregistered, base._loaded_dialects, base._loaded_ops, base._loaded_attrs,
            base._loaded_types, base._registered_dialects, targets=self.targets,
        )

    def load_op(self, op: type[Operation]) -> None:
        super().load_op(op)
        speed_up(op)  # every op the compile can parse or build: its accessors by tuple index


def target_context(ctx: Context) -> TargetContext:
    """The targets of the compile `ctx` belongs to."""
    if not isinstance(ctx, AccelContext):
        raise CompileError("accel's passes need an AccelContext (accel.compiler.targets.AccelContext)")
    return ctx.targets
