"""Rule options (``rules.md`` section 9), with their defaults and parsing.

Options live on a :class:`Rules` value that a :class:`~margo_gtp.engine.board.Board` holds;
nothing is a module global. Names and values are exactly those of ``rules.md`` section 9,
so the GTP command ``margo-set_rules ko_rule=simple`` and the CLI ``--rule ko_rule=simple``
both go through :meth:`Rules.with_options`.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from margo_gtp.engine.types import Colour
from margo_gtp.options import OptionError, PairError, read_choice, read_decimal, read_integer, read_pairs, read_switch
from margo_gtp.vertex import MAX_SIZE, MIN_SIZE


class RulesError(ValueError):
    """Raised when a rule option name or value is not one of ``rules.md`` section 9"""


SWITCHES = ("swap", "bridge_cutting", "all_freedoms", "allow_pass", "first_capture_wins")
KO_RULES = ("situational", "positional", "simple", "none")
KO_POSITIONS = ("full", "top_view")
SCORINGS = ("balls", "territory")
OWN_FREEDOMLESS = ("capture", "illegal")

#: The komi allowed, either sign. The largest board holds 2,470 balls, so no score comes
#: near it; beyond it the numbers of the evaluators and of score estimates overflow (a
#: komi of 1e308 made ``final_score`` fail), and both cores refuse it alike.
MAX_KOMI = 10_000


@dataclass(frozen=True)
class Rules:
    """Every option of ``rules.md`` section 9, defaults as there.

    ``max_level`` is 0-based like the rules text (``None`` means ``size - 1``: no limit);
    :attr:`top_level` gives the effective value.

    Built from Python, every field must have its own type: the on/off options take a
    ``bool`` only (``Rules(swap="off")`` is refused, not read as a truthy string: text goes
    through :meth:`with_options`, which reads ``on``/``off``), and ``size``/``max_level``
    an ``int`` that is not a ``bool`` (``max_level=True`` is no level).
    """

    size: int = 9
    first_player: Colour = Colour.WHITE
    swap: bool = False
    max_level: int | None = None
    bridge_cutting: bool = True
    all_freedoms: bool = False
    own_freedomless_group: str = "capture"
    ko_rule: str = "situational"
    ko_position: str = "full"
    scoring: str = "balls"
    allow_pass: bool = False
    first_capture_wins: bool = False
    komi: float = 0.0

    def __post_init__(self) -> None:
        for name in SWITCHES:
            if not isinstance(getattr(self, name), bool):
                raise RulesError(f"invalid {name}: {getattr(self, name)!r} (True or False; text 'on'/'off' goes through with_options)")
        for name in ("size", "max_level", "komi"):
            if isinstance(getattr(self, name), bool):
                raise RulesError(f"invalid {name}: {getattr(self, name)!r} (a number, not a bool)")
        if self.max_level is not None and not isinstance(self.max_level, int):
            raise RulesError(f"invalid max_level: {self.max_level!r} (an integer or None)")
        if not isinstance(self.komi, (int, float)):
            raise RulesError(f"invalid komi: {self.komi!r} (a number)")
        if not (isinstance(self.size, int) and MIN_SIZE <= self.size <= MAX_SIZE):
            raise RulesError(f"invalid size: {self.size!r} (allowed {MIN_SIZE}..{MAX_SIZE})")
        if self.max_level is not None and not (0 <= self.max_level <= self.size - 1):
            raise RulesError(f"invalid max_level: {self.max_level!r} (allowed 0..{self.size - 1})")
        for name, allowed in (
            ("own_freedomless_group", OWN_FREEDOMLESS),
            ("ko_rule", KO_RULES),
            ("ko_position", KO_POSITIONS),
            ("scoring", SCORINGS),
        ):
            if getattr(self, name) not in allowed:
                raise RulesError(f"invalid {name}: {getattr(self, name)!r} (allowed {', '.join(allowed)})")
        if not math.isfinite(self.komi):
            raise RulesError(f"invalid komi: {self.komi!r}")
        if abs(self.komi) > MAX_KOMI:
            raise RulesError(f"invalid komi: {self.komi:g} (allowed -{MAX_KOMI}..{MAX_KOMI})")
        object.__setattr__(self, "first_player", Colour(self.first_player))

    @property
    def top_level(self) -> int:
        """Highest playable level, 0-based (``max_level`` or ``size - 1``)."""
        return self.size - 1 if self.max_level is None else min(self.max_level, self.size - 1)

    def replace(self, **changes: Any) -> "Rules":
        """A copy with some fields changed. Changing ``size`` drops a ``max_level`` that no
        longer fits (it becomes the default, no limit)."""
        if "size" in changes and "max_level" not in changes and self.max_level is not None:
            if self.max_level > changes["size"] - 1:
                changes["max_level"] = None
        return dataclasses.replace(self, **changes)

    def with_options(self, options: Mapping[str, str]) -> "Rules":
        """Apply ``{name: text value}`` pairs (names and values of ``rules.md`` section 9).

        All or nothing: raises :class:`RulesError` quoting the first bad name or value and
        returns no partial result.
        """
        changes: dict[str, Any] = {}
        for name, text in options.items():
            changes[name] = _parse_option(name, str(text))
        size = changes.get("size", self.size)
        if "max_level" in changes and changes["max_level"] is not None and changes["max_level"] > size - 1:
            raise RulesError(f"invalid max_level: {options['max_level']!r} (allowed 0..{size - 1})")
        return self.replace(**changes)

    def options(self) -> dict[str, Any]:
        """Every option as a JSON-ready value: on/off options as ``"on"``/``"off"``,
        ``size``/``max_level`` as int (``max_level`` effective), ``komi`` as float."""
        return {
            "size": self.size,
            "first_player": self.first_player.name.lower(),
            "swap": _on_off(self.swap),
            "max_level": self.top_level,
            "bridge_cutting": _on_off(self.bridge_cutting),
            "all_freedoms": _on_off(self.all_freedoms),
            "own_freedomless_group": self.own_freedomless_group,
            "ko_rule": self.ko_rule,
            "ko_position": self.ko_position,
            "scoring": self.scoring,
            "allow_pass": _on_off(self.allow_pass),
            "first_capture_wins": _on_off(self.first_capture_wins),
            "komi": float(self.komi),
        }


OPTION_NAMES = tuple(f.name for f in dataclasses.fields(Rules))


class RulePairError(RulesError):
    """A ``--rule`` value that is not ``K=V``, or names a key again: the syntax of the
    command line, not a rule's value."""


def parse_rule_pairs(pairs: Iterable[str]) -> dict[str, str]:
    """The options of a tool's repeatable ``--rule K=V`` (margo-gtp, margo-match and the
    scripts share it, so one mistake reads the same everywhere), read by
    :func:`margo_gtp.options.read_pairs`: keys and values stripped, values left for
    :meth:`Rules.with_options` to check. RulePairError for a value without ``=`` or without
    a key, and for a key given twice: as in ``margo-set_rules``, a repeat is a mistake,
    not an override."""
    try:
        return read_pairs(pairs, malformed="--rule takes K=V: {item!r}", repeated="--rule {key} given twice")
    except PairError as error:
        raise RulePairError(str(error)) from None


def merge_option_flags(options: Mapping[str, str], flags: Mapping[str, tuple[str, object]]) -> dict[str, str]:
    """Rule options given as ``K=V`` pairs plus shortcut flags: ``flags`` maps an option
    name to ``(flag, value)`` (e.g. ``{"size": ("--size", 7)}``; value None = not given).

    A flag and a pair naming the same option must agree (compared as parsed values, so
    ``--komi 5`` and ``komi=5.0`` agree); otherwise RulesError, rather than one of them
    silently winning. Bad values are left for :meth:`Rules.with_options` to report.
    """
    merged = dict(options)
    for name, (flag, value) in flags.items():
        if value is None:
            continue
        text = str(value)
        if name in merged:
            try:
                same = _parse_option(name, merged[name]) == _parse_option(name, text)
            except RulesError:
                same = True  # the bad value is reported by with_options
            if not same:
                raise RulesError(f"{flag} {text} contradicts the rule {name}={merged[name]}: give one of them")
            continue
        merged[name] = text
    return merged


def _on_off(value: bool) -> str:
    return "on" if value else "off"


#: How each option's value is read (margo_gtp.options), and the hint a refusal gives.
_CHOICES = {
    "own_freedomless_group": OWN_FREEDOMLESS,
    "ko_rule": KO_RULES,
    "ko_position": KO_POSITIONS,
    "scoring": SCORINGS,
}


def _read_option(name: str, text: str) -> Any:
    value = text.strip().lower()
    if name in SWITCHES:
        return read_switch(value, name, expected="allowed on, off")
    if name == "size":
        return read_integer(value, name, minimum=MIN_SIZE, maximum=MAX_SIZE, bounds=f"allowed {MIN_SIZE}..{MAX_SIZE}")
    if name == "max_level":
        return read_integer(value, name, minimum=0, bounds="allowed 0..size-1")
    if name == "komi":
        return read_decimal(value, name, bounds="a finite number")
    if name == "first_player":
        try:
            return Colour.parse(value)
        except ValueError:
            raise OptionError(name, value, "allowed white, black") from None
    if name not in _CHOICES:
        raise RulesError(f"unknown rule option: {name!r}")
    return read_choice(value, name, _CHOICES[name], expected=f"allowed {', '.join(_CHOICES[name])}")


def _parse_option(name: str, text: str) -> Any:
    """One option's value from its text; RulesError in the house phrase
    ``invalid value for NAME: 'TEXT' (HINT)``."""
    try:
        return _read_option(name, text)
    except OptionError as error:
        raise RulesError(f"invalid value for {name}: {text!r} ({error.expected})") from None
