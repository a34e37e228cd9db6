"""IR definitions: the `relay` tensor dialect and the `accel` buffer/DMA dialect."""

from collections.abc import Callable

from xdsl.ir import Dialect


def _relay() -> Dialect:
    from accel.dialects.relay import Relay

    return Relay


def _accel() -> Dialect:
    from accel.dialects.accel import Accel

    return Accel


ACCEL_DIALECTS: dict[str, Callable[[], Dialect]] = {
    "relay": _relay,
    "accel": _accel,
}
