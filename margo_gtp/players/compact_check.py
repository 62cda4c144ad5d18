"""The compact proof (format ``margo-proof 2``) and its checker: a proof stored as the
winner's move per position, checked on the pure-Python rules core.

A tree proof (``margo-proof 1``, :mod:`.proof_check`) stores every reply of the loser; on
3x3 Black's half alone is 310 MB. A compact proof stores only the prover's strategy, as
rules keyed by position; the checker enumerates the loser's replies itself.

The file is text. Its header, one ``key: value`` a line: ``format``, ``rules`` (``default``),
``size``, ``value`` (White's margin, ``W+5``), ``solver`` (the commit that wrote it),
``solver-nodes`` (the solve's node count), ``rules-count`` (the rule lines below) and
``digest`` (``sha256:`` of the body, every line after the header). Then two strategies,
each under its heading, ``strategy white-at-least N`` (White's) and ``strategy
white-at-most N`` (Black's), and ``end``. A one-sided proof (a result, where the exact
margin is not known: 4x4's) has the bound as its value, ``white-at-least 1``, and holds the
one strategy under that heading. A rule is one line::

    POSITION VERTEX                 play VERTEX at POSITION
    POSITION VERTEX if Q1 Q2 ...    the same, but only if the positions Q1, Q2, ... are
                                    all earlier positions of this game

A POSITION is the side to move and every point in the order of the flat index of
:mod:`margo_gtp.engine.geometry` (level by level, row by row), levels apart by ``|``:
``W:XO.......|....|.`` (``O`` White, ``X`` Black, ``.`` empty). At a position the first of
its rules (in file order) whose positions are all in the game's history is played.

Situational superko makes a position's legal moves depend on the game's earlier positions,
so the checker walks the game from the empty board with the real history (the pure-Python
core keeps it): at the prover's turn it plays the rule's move, which must be legal in THAT
history; at the other side's turn it tries every legal reply; every ended game must give
the prover at least the claim. To stay small it reuses a checked subtree at a position
reached again, only where that is sound (docs/solving.md, *The compact proof*): it notes
every earlier position that the subtree's legality tests and rule conditions asked about
(the set ``asked``), and reuses the subtree under a new history only if the new history
holds exactly the same ones of ``asked`` as the checked one did. Then every legality test
and every rule choice in the subtree comes out the same, so the subtree is the same tree.
Of ``asked`` it keeps only the positions with no more balls than the line had at most
(:class:`StrategyWalk`): the others cannot be in any history within that ceiling.

It imports nothing of the solver or the writer (:mod:`.proof`).
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from collections.abc import Callable

from margo_gtp.engine.geometry import geometry
from margo_gtp.engine.python_core import PythonCore
from margo_gtp.engine.rules import Rules
from margo_gtp.engine.types import BLACK, WHITE, Move
from margo_gtp.textfile import TextFileError, read_text
from margo_gtp.vertex import InvalidVertexError, Point, format_vertex, parse_vertex

__all__ = ["CompactCheckError", "FORMAT", "Rule", "StrategyWalk", "check_compact", "check_compact_text",
           "format_position", "header_lines", "parse_position", "parse_rules", "position_key", "rule_chooser",
           "read_header", "rule_line", "white_margin"]

FORMAT = "margo-proof 2"
HEADER_KEYS = ("format", "rules", "size", "value", "solver", "solver-nodes", "rules-count", "digest")
MAX_SIZE = 5
#: The largest proof file read: 4x4's one-sided proof is 72 MB (1.7e6 rules); a file past
#: this is refused in one line before it is read.
MAX_PROOF_BYTES = 256 * 1024 * 1024
_VALUE = re.compile(r"0|[WB]\+[1-9][0-9]*|white-at-(least|most) (0|-?[1-9][0-9]*)")
_SIDES = {"W": 0, "B": 1}


class CompactCheckError(ValueError):
    """A compact proof that does not check; ``str()`` is the one line to print
    (:func:`.proof_check.check_proof` passes it on as its own error)."""


#: A position: (White's balls, Black's balls, the side to move: 0 White, 1 Black), the balls
#: as bit sets over the flat point index.
Position = tuple[int, int, int]


class Rule:
    """One rule line: at ``position`` play ``point`` if every position of ``needs`` (their
    repetition keys, as the rules core computes them) is an earlier position of the game."""

    __slots__ = ("position", "point", "needs", "number")

    def __init__(self, position: Position, point: Point, needs: tuple[int, ...], number: int) -> None:
        self.position, self.point, self.needs, self.number = position, point, needs, number


def format_position(size: int, position: Position) -> str:
    g = geometry(size)
    white, black, to_move = position
    cells = []
    for i in range(g.count):
        if i and g.level[i] != g.level[i - 1]:
            cells.append("|")
        bit = 1 << i
        cells.append("O" if white & bit else "X" if black & bit else ".")
    return ("W:" if to_move == 0 else "B:") + "".join(cells)


def parse_position(size: int, text: str) -> Position | None:
    """The position written by :func:`format_position`, or None if ``text`` is not one."""
    g = geometry(size)
    side, sep, cells = text.partition(":")
    if side not in _SIDES or not sep:
        return None
    levels = cells.split("|")
    if [len(level) for level in levels] != [(size - k) ** 2 for k in range(size)]:
        return None
    white = black = 0
    for i, cell in enumerate("".join(levels)):
        if cell == "O":
            white |= g.bit[i]
        elif cell == "X":
            black |= g.bit[i]
        elif cell != ".":
            return None
    return white, black, _SIDES[side]


def position_key(core: PythonCore, position: Position) -> int:
    """The repetition key the rules core gives ``position`` (what situational superko compares)."""
    probe = PythonCore(core.rules)
    probe._load(position[0], position[1])
    return probe._repetition_key(probe._key, probe._buried_key, position[2])


def rule_line(size: int, position: Position, point: Point, needs: list[Position]) -> str:
    """A rule's line: play ``point`` at ``position`` if the positions ``needs`` are all earlier."""
    words = [format_position(size, position), format_vertex(point)]
    if needs:
        words += ["if", *(format_position(size, earlier) for earlier in needs)]
    return " ".join(words)


class _AskingCore(PythonCore):
    """The pure-Python core, noting every repetition key its legality tests look up, and the
    number of balls of the position each key stands for (``counts``, a position's ball count
    being the same whichever line reaches it)."""

    asked: set[int]
    counts: dict[int, int]
    _resolving = False

    def _repeats(self, key: int) -> bool:
        self.asked.add(key)
        if not self._resolving:  # the quiet placement's shortcut: one ball more, nothing taken
            self.counts.setdefault(key, self.balls_on_board() + 1)
        self._looked_up = key
        return super()._repeats(key)

    def _resolve(self, i: int, c: int) -> tuple | None:
        self._resolving, self._looked_up = True, None
        try:
            state = super()._resolve(i, c)
        finally:
            self._resolving = False
        if state is not None and self._looked_up is not None:
            self.counts.setdefault(self._looked_up, (state[0] | state[1]).bit_count())
        # refused by the repetition test: the key is an earlier position, whose count is known
        return state

    def push(self, move: Move, colour=None) -> None:
        super().push(move, colour)
        self.counts.setdefault(self._positions[-1], self.balls_on_board())

    def balls_on_board(self) -> int:
        """The balls of the position now, both colours (a walk's ceiling is the most of them)."""
        return (self._balls[0] | self._balls[1]).bit_count()


_NOTHING: frozenset[int] = frozenset()


class StrategyWalk:
    """The walk of one strategy from the empty board (or from ``start``, moves played first):
    ``prover`` (0 White, 1 Black) keeps its margin at least ``claim``. ``choose(walk,
    position)`` gives the rule to play at the prover's turn (None where it has none); it may
    read ``walk.core`` (the game so far) and must add to ``walk.asked_now`` every repetition
    key its choice looked up. ``fail`` makes the one-line error of a failed check.

    A checked subtree is kept with the keys it asked about, but only those that could be an
    earlier position of a line reaching it: a key whose position has more balls than every
    position of the line so far (the subtree's root included) cannot be one, under this
    history or any other whose positions have no more balls than that (the *ceiling*). The
    subtree is reused under a history within its ceiling that holds exactly the same of the
    kept keys. Most of a subtree's keys are of positions with more balls than its root (a
    placement adds a ball; only captures take some away), so what is kept stays small."""

    def __init__(self, size: int, prover: int, claim: int, choose: Callable[["StrategyWalk", Position], Rule | None],
                 fail: Callable[[int, str], Exception], reuse: bool = True, start: tuple[Move, ...] = ()) -> None:
        self.size, self.prover, self.claim, self.choose, self.fail = size, prover, claim, choose, fail
        self.reuse = reuse  # False: every line walked to its end (the tests' cross-check of the reuse)
        self.start = start
        self.core = _AskingCore(Rules(size=size))
        self.core.asked = set()
        self.core.counts = {self.core._positions[0]: 0}
        self.asked_now: set[int] = self.core.asked
        #: position -> [(ceiling, kept, seen)]: a checked subtree, the highest ball count of its
        #: line when checked, the keys it asked about with no more balls than that, and those of
        #: them that were earlier positions then
        self.memo: dict[Position, list[tuple[int, frozenset[int], frozenset[int]]]] = {}
        self.nodes = 0  # positions checked
        self.reused = 0  # positions whose checked subtree was reused
        self.used: set[int] = set()  # the rule lines played
        self.rule_number = 0  # the rule played last on this line (for the messages)

    def run(self) -> None:
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 20_000))  # lines of hundreds of plies (ko fights)
        try:
            ceiling = 0
            for move in self.start:
                self.core.push(move)
                ceiling = max(ceiling, self.core.balls_on_board())
            self._node(ceiling)
        finally:
            sys.setrecursionlimit(limit)

    def moves_text(self) -> str:
        moves = [move.gtp() for move in self.core.move_stack]
        shown = " ".join(moves[-8:])
        return f"after {len(moves)} moves ({'... ' if len(moves) > 8 else ''}{shown})" if moves else "at the start"

    def _node(self, ceiling: int) -> frozenset[int]:
        """Check the subtree here (``ceiling``: the most balls of any position of the line so
        far, this one included); the keys it asked about, those with at most ``ceiling``
        balls (unknown counts count as none: kept)."""
        core = self.core
        history = core._position_count
        position = (core._balls[0], core._balls[1], core._to_move)
        for top, kept, seen in self.memo.get(position, ()) if self.reuse else ():
            if ceiling <= top and all((key in history) == (key in seen) for key in kept):
                self.reused += 1
                return kept
        self.nodes += 1
        asked_here: set[int] = set()
        core.asked = self.asked_now = asked_here
        rule_before = self.rule_number
        if core._to_move == self.prover:
            rule = self.choose(self, position)
            if rule is not None and core.is_legal(Move(rule.point)):
                moves = [Move(rule.point)]
                self.used.add(rule.number)
                self.rule_number = rule.number
            else:  # the game must have ended here (no legal move), whatever the rules say
                moves = core.legal_moves()
                if moves and rule is None:
                    raise self.fail(0, f"no rule for the position {format_position(self.size, position)} "
                                       f"{self.moves_text()}")
                if moves:
                    raise self.fail(rule.number, f"{format_vertex(rule.point)} is not legal {self.moves_text()}")
        else:
            moves = core.legal_moves()
        if not moves:
            counts = core.ball_counts()
            margin = counts[WHITE] - counts[BLACK]
            if self.prover == 1:
                margin = -margin
            if margin < self.claim:
                raise self.fail(self.rule_number, f"the game {self.moves_text()} ends with the prover's margin "
                                                  f"{margin}, less than {self.claim}")
        asked = asked_here
        for move in moves:
            core.asked = set()  # the push tests the move again: nothing new
            core.push(move)
            asked.update(self._node(max(ceiling, core.balls_on_board())))
            core.pop()
        self.rule_number = rule_before
        counts = core.counts
        kept = frozenset(key for key in asked if counts.get(key, 0) <= ceiling) or _NOTHING
        if self.reuse:
            seen = frozenset(key for key in kept if key in history) or _NOTHING
            self.memo.setdefault(position, []).append((ceiling, kept, seen))
        return kept


def header_lines(size: int, value: int | str, solver: str, solver_nodes: int, body: list[str]) -> list[str]:
    """The header of a compact proof with ``body`` (the lines after the header); ``value``:
    White's exact margin (an int) or a one-sided bound (``white-at-least 1``)."""
    if isinstance(value, int):
        value = "0" if value == 0 else f"W+{value}" if value > 0 else f"B+{-value}"
    rules_count = sum(1 for line in body if line[:2] in ("W:", "B:"))
    return [f"format: {FORMAT}", "rules: default", f"size: {size}", f"value: {value}", f"solver: {solver}",
            f"solver-nodes: {solver_nodes}", f"rules-count: {rules_count}", f"digest: sha256:{_digest(body)}"]


def _digest(body: list[str]) -> str:
    return hashlib.sha256("".join(line + "\n" for line in body).encode()).hexdigest()


def white_margin(value: str) -> int:
    """White's margin in a header's value: ``W+5`` is 5, ``B+3`` is -3, ``0`` is 0."""
    if value == "0":
        return 0
    return int(value[2:]) if value[0] == "W" else -int(value[2:])


def parse_rules(lines: list[tuple[int, str]], size: int, where: str) -> dict[Position, list[Rule]]:
    """The rule lines of one strategy (numbered), by position, in file order."""
    core = PythonCore(Rules(size=size))
    keys: dict[Position, int] = {}
    rules: dict[Position, list[Rule]] = {}
    for number, text in lines:
        parts = text.split(" ")
        bad = len(parts) < 2 or (len(parts) > 2 and (parts[2] != "if" or len(parts) < 4))
        position = None if bad else parse_position(size, parts[0])
        if position is None:
            raise CompactCheckError(f"{where}: line {number}: not a rule 'POSITION VERTEX [if POSITION ...]': {text!r}")
        try:
            point = parse_vertex(parts[1], size)
        except InvalidVertexError as error:
            raise CompactCheckError(f"{where}: line {number}: {error}") from None
        needs = []
        for part in parts[3:]:
            earlier = parse_position(size, part)
            if earlier is None:
                raise CompactCheckError(f"{where}: line {number}: not a position: {part!r}")
            if earlier not in keys:
                keys[earlier] = position_key(core, earlier)
            needs.append(keys[earlier])
        known = rules.setdefault(position, [])
        if known and not known[-1].needs:
            raise CompactCheckError(f"{where}: line {number}: a rule after the unconditional rule of its position")
        known.append(Rule(position, point, tuple(needs), number))
    return rules


def rule_chooser(rules: dict[Position, list[Rule]]) -> Callable[[StrategyWalk, Position], Rule | None]:
    """The checker's choice: the first rule of the position whose positions are all earlier."""

    def choose(walk: StrategyWalk, position: Position) -> Rule | None:
        history = walk.core._position_count
        for rule in rules.get(position, ()):
            walk.asked_now.update(rule.needs)
            if all(key in history for key in rule.needs):
                return rule
        return None

    return choose


def read_header(text: str, where: str, *, keys: tuple[str, ...], format_name: str, counts: tuple[str, ...],
                kind: str, readable: str, error: type[ValueError]) -> tuple[dict[str, str], list[tuple[int, str]]]:
    """The header of a proof file of either format, checked as far as the two formats agree,
    and the numbered lines after it, which end in ``end``. ``keys`` are the header's keys in
    order, ``counts`` those that must be whole numbers, ``kind`` and ``readable`` name the
    file and the formats in the messages; every refusal is one ``error`` naming ``where``."""
    lines = [(number, line) for number, line in enumerate(text.split("\n"), start=1)]
    if lines and lines[-1][1] == "":
        lines.pop()
    header: dict[str, str] = {}
    for number, line in lines[:len(keys)]:
        key, sep, value = line.partition(": ")
        if not sep or key not in keys or key in header:
            raise error(f"{where}: line {number}: not a proof header line: {line!r}")
        header[key] = value
    if set(header) != set(keys):
        raise error(f"{where}: not a {kind} (header {', '.join(keys)} expected)")
    if header["format"] != format_name:
        raise error(f"{where}: format {header['format']!r}, this checker reads {readable}")
    if header["rules"] != "default":
        raise error(f"{where}: proof for rules {header['rules']!r}; this checker checks the default rules only")
    if not header["size"].isdigit() or not 2 <= int(header["size"]) <= MAX_SIZE:
        raise error(f"{where}: size {header['size']!r}, not 2..{MAX_SIZE}")
    if not _VALUE.fullmatch(header["value"]) or not all(header[key].isdigit() for key in counts):
        fields = ", ".join(f"{key} {header[key]!r}" for key in ("value", *counts))
        raise error(f"{where}: damaged header ({fields})")
    body = lines[len(keys):]
    if not body or body[-1][1] != "end":
        raise error(f"{where}: truncated: no 'end' line")
    return header, body


def check_compact_text(text: str, where: str) -> dict[str, str]:
    """Check a compact proof's text (``where`` names it in the messages); its header if it checks."""
    header, body = read_header(text, where, keys=HEADER_KEYS, format_name=FORMAT, counts=("solver-nodes", "rules-count"),
                               kind="compact margo proof", readable=repr(FORMAT), error=CompactCheckError)
    if header["digest"] != f"sha256:{_digest([line for _, line in body])}":
        raise CompactCheckError(f"{where}: damaged: the body does not match the header's digest")
    size, value = int(header["size"]), header["value"]
    last_line = body.pop()[0]  # the 'end' line's number
    count = 0
    if value.startswith("white-at-"):  # a one-sided bound: the one strategy that proves it
        bound = int(value.split(" ")[1])
        strategies = [(f"strategy {value}", 0, bound) if "least" in value else (f"strategy {value}", 1, -bound)]
    else:
        margin = white_margin(value)
        strategies = [(f"strategy white-at-least {margin}", 0, margin), (f"strategy white-at-most {margin}", 1, -margin)]
    for title, prover, claim in strategies:
        if not body or body[0][1] != title:
            number = body[0][0] if body else last_line
            raise CompactCheckError(f"{where}: line {number}: {title!r} expected")
        heading = body[0][0]
        end = next((k for k, (_, line) in enumerate(body[1:], start=1) if line.startswith("strategy ")), len(body))
        rules = parse_rules(body[1:end], size, where)

        def fail(number: int, why: str, heading: int = heading) -> CompactCheckError:
            return CompactCheckError(f"{where}: line {number or heading}: {why}")

        walk = StrategyWalk(size, prover, claim, rule_chooser(rules), fail)
        walk.run()
        unused = [number for number, _ in body[1:end] if number not in walk.used]
        if unused:
            raise CompactCheckError(f"{where}: line {unused[0]}: a rule the strategy never plays")
        count += end - 1
        body = body[end:]
    if body:
        raise CompactCheckError(f"{where}: line {body[0][0]}: text after the strategies: {body[0][1]!r}")
    if count != int(header["rules-count"]):
        raise CompactCheckError(f"{where}: the header says {header['rules-count']} rules, the strategies hold {count}")
    return header


def check_compact(path: str | os.PathLike[str]) -> dict[str, str]:
    """Check the compact proof at ``path``; its header, or :class:`CompactCheckError`."""
    try:
        text = read_text(path, MAX_PROOF_BYTES)
    except TextFileError as error:
        raise CompactCheckError(str(error)) from None
    return check_compact_text(text, os.fspath(path))

