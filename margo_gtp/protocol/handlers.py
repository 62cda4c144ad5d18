"""Typed command handlers: ``cmd_*`` methods whose parameters are converted from the
GTP argument strings by their annotations (as minigo's ``_convert_args``).

    class Group(HandlerGroup):
        def commands(self):
            return {"play": self.cmd_play}
        def cmd_play(self, colour: Colour, move: Move) -> None: ...

A parameter with a default is optional; ``*rest: T`` takes the remaining arguments;
``X | None = None`` converts with ``X``. Too few or too many arguments, or a conversion
that raises ``ValueError`` (``InvalidVertexError`` is one), answer ``? syntax error``.
The converters for a group come from :meth:`HandlerGroup.converters`, looked up at call
time, so a converter may depend on state (a vertex depends on the board size).

Several groups can feed one :class:`~margo_gtp.protocol.gtp.GtpEngine`
(``engine.add_handlers(group.handlers())``), like minigo's composable GoGui/KGS groups.
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any

from margo_gtp.protocol.gtp import GtpError, Handler
from margo_gtp.options import parse_decimal, parse_integer

__all__ = ["HandlerGroup", "typed_handler"]

Converter = Callable[[str], Any]


def _base_type(annotation: Any) -> Any:
    """``X | None`` -> ``X``; anything else unchanged."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        members = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
        if len(members) == 1:
            return members[0]
    return annotation


def typed_handler(func: Callable[..., Any], converters: Callable[[], Mapping[Any, Converter]]) -> Handler:
    """Wrap ``func`` (typed parameters) as a GTP handler taking the list of argument strings."""
    signature = inspect.signature(func)
    hints = typing.get_type_hints(func)
    fixed: list[tuple[Any, bool]] = []  # (type, required)
    rest_type: Any = None
    for parameter in signature.parameters.values():
        annotation = _base_type(hints.get(parameter.name, str))
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            rest_type = annotation
        else:
            fixed.append((annotation, parameter.default is inspect.Parameter.empty))
    required = sum(1 for _, is_required in fixed if is_required)

    def handler(args: list[str]) -> Any:
        if len(args) < required or (rest_type is None and len(args) > len(fixed)):
            raise GtpError("syntax error", detail=f"expected {_count_words(required, len(fixed), rest_type is not None)}, got {len(args)}")
        table = converters()
        types_ = [annotation for annotation, _ in fixed] + [rest_type] * (len(args) - len(fixed))
        try:
            values = [table[annotation](arg) for annotation, arg in zip(types_, args)]
        except ValueError as error:
            raise GtpError("syntax error", detail=str(error)) from None
        return func(*values)

    handler.__name__ = getattr(func, "__name__", "handler")
    handler.__doc__ = func.__doc__
    return handler


def _count_words(required: int, fixed: int, more: bool) -> str:
    """'1 argument', '1 to 2 arguments', 'at least 2 arguments'."""
    if more:
        count = f"at least {required}"
    elif required == fixed:
        count = str(required)
    else:
        count = f"{required} to {fixed}"
    return f"{count} argument" + ("" if count.endswith(" 1") or count == "1" else "s")


class HandlerGroup:
    """A set of commands with typed handlers; subclasses list them in :meth:`commands`."""

    def commands(self) -> dict[str, Callable[..., Any]]:
        """The explicit registry: command name -> typed method."""
        return {}

    def converters(self) -> dict[Any, Converter]:
        """Annotation -> converter from the argument string (ValueError when bad)."""
        # GTP integers and floats as margo_gtp.options reads them: no '1_0', no
        # other scripts' digits, no inf/nan; a float may carry a sign, an integer only '-'.
        return {int: parse_integer, float: parse_decimal, str: str}

    def handlers(self) -> dict[str, Handler]:
        """The commands wrapped for :meth:`GtpEngine.add_handlers`."""
        return {name: typed_handler(func, self.converters) for name, func in self.commands().items()}
