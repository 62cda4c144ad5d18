"""The one way to read options: strict numbers, on/off switches, choices and ``K=V`` pairs.

Every option a user types goes through here, whatever carries it: GTP arguments
(``komi 6.5``, ``time_settings 300 30 5``), ``margo-set_rules`` and ``--rule`` pairs,
player specs (``mcts:playouts=800``), the referee's ``--time-control``/``--adjudicate``/
``--sprt`` and tournament files. So ``1_0`` never means ten in one place and a mistake in
another. What is read, and what Python's own ``int()``/``float()`` would take but is refused:

===========  ============================================  ==================================
reader       accepts                                       refuses (``int``/``float`` take)
===========  ============================================  ==================================
integer      ASCII digits, optional ``-``                  ``+5``, ``1_0``, ``' 5'``, ``'\u0665'``
decimal      ASCII digits, optional sign, point and        ``1_0``, ``inf``, ``nan``, ``1e400``
             exponent: ``6.5``, ``-.5``, ``+5``, ``1e1``   (not finite), ``0x10``, ``'\uff15'``
switch       ``on``/``off``/``true``/``false`` (any case)  ``1``, ``0``, ``yes``, ``''``
choice       one of the given words, exactly               anything else
pairs        ``K=V`` items, each key once                  ``K``, ``=V``, a key given twice
===========  ============================================  ==================================

The signs follow GTP, whose integers (``boardsize``, ``time_settings``) are plain digits and
whose floats (``komi``) are read as C's ``strtod`` reads them, sign included: so a decimal
may carry ``+`` and an integer may not. A ``-`` is read on integers so that a range check,
not a syntax error, explains ``boardsize -5``.

A refusal is an :class:`OptionError`: a ``ValueError`` that knows the ``key``, the ``text``
as given and what was ``expected``; its message is one line, ``KEY must be EXPECTED:
'TEXT'``. A consumer with its own house phrase (``invalid value for komi: 'x' (a
number)``) formats the same three fields its way.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence

__all__ = [
    "OptionError",
    "PairError",
    "parse_decimal",
    "parse_integer",
    "read_choice",
    "read_decimal",
    "read_integer",
    "read_pairs",
    "read_switch",
    "split_items",
]

# [0-9], never \d: \d also matches other scripts' digits.
_INTEGER_RE = re.compile(r"-?[0-9]+")
_DECIMAL_RE = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_NON_FINITE_WORDS = ("nan", "inf", "infinity")
_SWITCHES = {"on": True, "true": True, "off": False, "false": False}


class OptionError(ValueError):
    """Raised when an option's value cannot be read; names the key, the text and what was expected"""

    def __init__(self, key: str, text: object, expected: str) -> None:
        self.key, self.text, self.expected = key, text, expected
        super().__init__(f"{key} must be {expected}: {text!r}")


class PairError(ValueError):
    """Raised when a ``K=V`` item is malformed or repeats a key; ``key`` is None for a malformed item"""

    def __init__(self, message: str, item: str, key: str | None) -> None:
        self.item, self.key = item, key
        super().__init__(message)


# -- numbers ------------------------------------------------------------------------------


def parse_integer(text: str) -> int:
    """A GTP integer: ASCII digits with an optional ``-``; ValueError otherwise.

    >>> parse_integer("-12")
    -12
    """
    if not isinstance(text, str) or _INTEGER_RE.fullmatch(text) is None:
        raise ValueError(f"not an integer: {text!r}")
    return int(text)


def parse_decimal(text: str) -> float:
    """A GTP float (komi, seconds): ASCII digits, optional sign, point and exponent, and
    finite; ValueError otherwise.

    >>> parse_decimal("6.5"), parse_decimal("-.5"), parse_decimal("1e1")
    (6.5, -0.5, 10.0)
    """
    if not isinstance(text, str) or _DECIMAL_RE.fullmatch(text) is None:
        raise ValueError(f"not a decimal number: {text!r}")
    value = float(text)
    if not math.isfinite(value):  # '1e400' overflows to inf
        raise ValueError(f"not a finite number: {text!r}")
    return value


def _bounds_phrase(minimum: float | None, maximum: float | None, noun: str) -> str:
    if minimum is not None and maximum is not None:
        return f"between {minimum:g} and {maximum:g}"
    if minimum is not None:
        return f"{noun} >= {minimum:g}"
    if maximum is not None:
        return f"{noun} <= {maximum:g}"
    return noun


def read_integer(text: str, key: str, *, minimum: int | None = None, maximum: int | None = None,
                 expected: str = "an integer", bounds: str | None = None) -> int:
    """``text`` as an integer in ``minimum..maximum``, else :class:`OptionError` naming
    ``key``: ``expected`` when it is no integer, ``bounds`` (default: the range in words)
    when it is out of range."""
    try:
        number = parse_integer(text)
    except ValueError:
        raise OptionError(key, text, expected) from None
    if (minimum is not None and number < minimum) or (maximum is not None and number > maximum):
        raise OptionError(key, text, bounds or _bounds_phrase(minimum, maximum, "an integer"))
    return number


def read_decimal(text: str, key: str, *, minimum: float | None = None, maximum: float | None = None,
                 expected: str = "a number", bounds: str | None = None, above: bool = False) -> float:
    """``text`` as a finite decimal in ``minimum..maximum`` (``above``: strictly greater than
    ``minimum``), else :class:`OptionError` naming ``key``. A value that spells ``nan``/``inf``
    or overflows (``1e400``) is out of range, not malformed: ``bounds`` explains it."""
    limits = bounds or _bounds_phrase(minimum, maximum, "a finite number")
    if above and bounds is None:
        limits = f"a finite number > {minimum:g}"
    try:
        number = parse_decimal(text)
    except ValueError:
        spelled = text.strip().lower().lstrip("+-") if isinstance(text, str) else ""
        if spelled in _NON_FINITE_WORDS or (isinstance(text, str) and _DECIMAL_RE.fullmatch(text)):
            raise OptionError(key, text, limits) from None
        raise OptionError(key, text, expected) from None
    if minimum is not None and (number < minimum or (above and number == minimum)):
        raise OptionError(key, text, limits)
    if maximum is not None and number > maximum:
        raise OptionError(key, text, limits)
    return number


# -- words --------------------------------------------------------------------------------


def read_switch(text: str, key: str, *, expected: str = "on or off") -> bool:
    """``on``/``true`` -> True, ``off``/``false`` -> False (any case); else :class:`OptionError`."""
    value = _SWITCHES.get(text.strip().lower()) if isinstance(text, str) else None
    if value is None:
        raise OptionError(key, text, expected)
    return value


def read_choice(text: str, key: str, choices: Sequence[str], *, expected: str | None = None) -> str:
    """``text`` if it is one of ``choices`` (exactly), else :class:`OptionError`."""
    if text not in choices:
        raise OptionError(key, text, expected or f"one of {', '.join(choices)}")
    return text


# -- pairs --------------------------------------------------------------------------------


def split_items(text: str, separators: str = ",") -> list[str]:
    """The non-empty, stripped items of ``text`` split at any of ``separators`` (and, when
    ``separators`` holds a space, at any white space)."""
    pattern = "[" + re.escape(separators.replace(" ", "")) + ("\\s" if " " in separators else "") + "]+"
    return [item.strip() for item in re.split(pattern, text) if item.strip()]


def read_pairs(items: Iterable[str], *, malformed: str = "expected K=V: {item!r}",
               repeated: str = "{key} given twice") -> dict[str, str]:
    """``['a=1', 'b = 2']`` -> ``{'a': '1', 'b': '2'}`` (keys and values stripped; values left
    as text for the readers above). :class:`PairError` for an item without ``=`` or without
    a key (message ``malformed``) and for a key given twice (``repeated``): a repeat is a
    mistake, not an override. Both messages are ``str.format`` templates over ``item`` and
    ``key``."""
    options: dict[str, str] = {}
    for item in items:
        key, equals, value = item.partition("=")
        key = key.strip()
        if not equals or not key:
            raise PairError(malformed.format(item=item, key=key), item, None)
        if key in options:
            raise PairError(repeated.format(item=item, key=key), item, key)
        options[key] = value.strip()
    return options
