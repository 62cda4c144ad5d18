"""A match's configuration: the engines, the time control, adjudication and the limits.

:class:`MatchConfig` is everything that defines a match (its ``identity()`` is what a
resumed match must share with the stored ``match.json``); :class:`EngineSpec` is one engine
of it; :class:`TimeControl` is the referee's GTP ``time_settings`` (each engine's clock under
it is the one clock, ``players.clock.Clock(control.settings())``); :class:`Adjudication` is cutechess ``-resign`` for MarGo.
:func:`check_engine_command` and :func:`check_limits` refuse options that cannot work
before any game starts. The referee (:mod:`margo_gtp.match.referee`) plays what this
describes; the command lines and tournament files (:mod:`margo_gtp.match.referee_cli`,
:mod:`margo_gtp.match.tournament`) build it.
"""

from __future__ import annotations

import dataclasses
import math
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from margo_gtp.engine import Rules
from margo_gtp.options import (
    OptionError, PairError, parse_decimal, parse_integer, read_decimal, read_integer, read_pairs, split_items,
)
from margo_gtp.players.clock import TimeSettings

from margo_gtp.match.openings import Opening, book_digest
from margo_gtp.client import find_program

FORMAT_VERSION = 1



@dataclass(frozen=True)
class TimeControl:
    """GTP ``time_settings``: main time, then byo-yomi periods of ``byo_yomi_time``
    seconds for ``byo_yomi_stones`` moves (Canadian). ``byo_yomi_stones == 0`` with a
    positive byo-yomi time means no limit, as in GTP; main time only is sudden death.
    ``increment`` > 0 is Fischer (main time only, ``M+I`` as cutechess writes it): plain
    GTP has no command for it, so engines are told ``time_settings M 0 0`` and, before
    every move, ``time_left`` with the bank the increments have grown (as gtp2ogs tells
    engines without KataGo's ``kata-time_settings``). The clock itself is the one
    clock's (:meth:`settings`)."""

    main_time: float
    byo_yomi_time: float = 0.0
    byo_yomi_stones: int = 0
    increment: float = 0.0

    @classmethod
    def parse(cls, text: str) -> "TimeControl":
        """``'M'``, ``'M B S'`` (also with commas or slashes: seconds, seconds, moves) or
        ``'M+I'`` (Fischer: seconds, seconds added after each move), read by
        :mod:`margo_gtp.options` (no ``1_0``, no ``inf``)."""
        main, plus, increment = text.strip().partition("+")
        parts = main.replace(",", " ").replace("/", " ").split() + ([increment.strip()] if plus else [])
        try:
            if len(parts) != 2 if plus else len(parts) not in (1, 3):
                raise ValueError
            if plus:
                numbers = [parse_decimal(part) for part in parts]
                numbers = [numbers[0], 0.0, 0, numbers[1]]
            else:
                numbers = [parse_decimal(part) for part in parts[:2]] + [parse_integer(part) for part in parts[2:]]
        except ValueError:
            raise ValueError(f"time control must be 'MAIN', 'MAIN BYO_YOMI_TIME BYO_YOMI_STONES' or 'MAIN+INCREMENT': {text!r}") from None
        if not all(x >= 0 for x in numbers):
            raise ValueError(f"time control values must be finite and not negative: {text!r}")
        control = cls(*numbers)  # type: ignore[arg-type]
        if control.main_time == 0 and control.byo_yomi_time == 0:
            raise ValueError(f"time control gives no time at all: {text!r}")
        return control

    def gtp_args(self) -> tuple[int, int, int]:
        """``time_settings`` arguments (Fischer: its main time, sudden death; see above)."""
        return (round(self.main_time), round(self.byo_yomi_time), self.byo_yomi_stones)

    @property
    def unlimited(self) -> bool:
        return self.byo_yomi_time > 0 and self.byo_yomi_stones == 0

    def identity(self) -> dict[str, Any]:
        """The fields, ``increment`` only when used (matches stored before it existed resume)."""
        fields = dataclasses.asdict(self)
        if not self.increment:
            del fields["increment"]
        return fields

    def settings(self) -> TimeSettings:
        """The one clock's settings: GTP's reading of ``time_settings`` (an unlimited control
        keeps its numbers, so its untouched clock reads as GTP sends it)."""
        if self.unlimited:
            return TimeSettings("none", self.main_time, self.byo_yomi_time)
        if self.increment > 0:
            return TimeSettings("fischer", self.main_time, increment=self.increment)
        return TimeSettings.from_gtp(self.main_time, self.byo_yomi_time, self.byo_yomi_stones)


def check_engine_command(command: str, spelled: str) -> None:
    """ValueError naming ``spelled`` (the option or config key) if ``command`` cannot be a
    command line: unbalanced quotes or nothing at all. Checked when the options are read,
    not when the first game starts the engine."""
    try:
        words = shlex.split(command)
    except ValueError as error:
        raise ValueError(f"{spelled}: cannot split the engine command ({error}): {command!r}") from None
    if not words:
        raise ValueError(f"{spelled}: empty engine command: {command!r}")


@dataclass(frozen=True)
class EngineSpec:
    """One engine of a match: ``label`` ``A``/``B``, a display ``name``, its command line."""

    label: str
    name: str
    command: str

    def argv(self) -> list[str]:
        """The command as an argument list. A program not found on PATH but installed
        beside the running Python (the project's venv, not activated) is taken from there."""
        return find_program(shlex.split(self.command))


@dataclass(frozen=True)
class MatchConfig:
    """Everything that defines a match. ``identity()`` is what a resumed match must share."""

    engine_a: EngineSpec
    engine_b: EngineSpec
    games: int
    rules: Rules = field(default_factory=Rules)
    move_timeout: float | None = 60.0
    command_timeout: float = 30.0
    time_control: TimeControl | None = None
    max_moves: int | None = None
    parallel: int = 1
    wire_log: bool = False
    openings: tuple[Opening, ...] = ()
    adjudication: "Adjudication | None" = None

    def engines(self) -> dict[str, EngineSpec]:
        return {"A": self.engine_a, "B": self.engine_b}

    def identity(self) -> dict[str, Any]:
        return {
            "format": FORMAT_VERSION,
            "engines": {label: dataclasses.asdict(spec) for label, spec in self.engines().items()},
            "rules": self.rules.options(),
            "move_timeout": self.move_timeout,
            "time_control": self.time_control.identity() if self.time_control else None,
            "max_moves": self.max_moves,
            # Absent unless used, so matches stored before these options existed still resume.
            **({"openings": book_digest(self.openings)} if self.openings else {}),
            **({"adjudication": dataclasses.asdict(self.adjudication)} if self.adjudication else {}),
        }


@dataclass(frozen=True)
class Adjudication:
    """cutechess ``-resign`` for MarGo: the game is adjudicated as a win for the side ahead
    once the referee's own count (the rules' ``scoring``, komi added to White) has shown
    a lead of at least ``margin`` for ``moves`` consecutive moves. Engines' own estimates
    are not asked for: every engine is judged by the same count, and no GTP extension is
    needed."""

    margin: float
    moves: int

    @classmethod
    def parse(cls, text: str) -> "Adjudication":
        """``"margin=M moves=N"`` (``M`` > 0 points, ``N`` >= 1 moves; spaces or commas
        between), read by :mod:`margo_gtp.options`."""
        usage = f"--adjudicate takes margin=M moves=N: {text!r}"
        try:
            values = read_pairs(split_items(text, ", "))
        except PairError:  # not K=V, or a key twice: the usage says both
            raise ValueError(usage) from None
        if set(values) != {"margin", "moves"}:
            raise ValueError(usage)
        try:
            margin = read_decimal(values["margin"], "--adjudicate margin")
            moves = read_integer(values["moves"], "--adjudicate moves")
        except OptionError as error:
            raise ValueError(str(error)) from None
        if not margin > 0 or moves < 1:
            raise ValueError(f"--adjudicate needs margin > 0 and moves >= 1: {text!r}")
        return cls(margin, moves)


def check_limits(move_timeout: float, command_timeout: float, max_moves: int, spelled: Callable[[str], str]) -> None:
    """ValueError for a limit that would forfeit or adjudicate every game at once: a
    negative move timeout (0 means none), a command timeout that is not positive, a
    negative ``max_moves`` (0 means none). ``spelled(key)`` names the option as the user
    wrote it (``--move-timeout`` on a command line, ``'move_timeout'`` in a TOML file)."""
    if not (math.isfinite(move_timeout) and move_timeout >= 0):
        raise ValueError(f"{spelled('move_timeout')} must be 0 (no limit) or a positive number of seconds: {move_timeout:g}")
    if not (math.isfinite(command_timeout) and command_timeout > 0):
        raise ValueError(f"{spelled('command_timeout')} must be a positive number of seconds: {command_timeout:g}")
    if max_moves < 0:
        raise ValueError(f"{spelled('max_moves')} must be 0 (never) or a positive number of moves: {max_moves}")


def default_names(command_a: str, command_b: str) -> tuple[str, str]:
    """Display names for two engine commands: the commands, marked when they are equal."""
    if command_a == command_b:
        return (f"{command_a} (A)", f"{command_a} (B)")
    return (command_a, command_b)
