"""The proof writer: the exact margin of a small board as two strategy trees that
:mod:`.proof_check` replays on the pure-Python rules core.

A proof file (format ``margo-proof 1``) is text. Its header (``key: value`` lines) names the
format, the rules (``default``: rules.md section 9), the size, the value (White's margin
under perfect play, ``W+1``, ``B+2`` or ``0``) and the node count; then two trees:

* ``tree white-at-least N``: White's strategy that ends every game with White's margin at
  least N: one move where White is to move, every legal reply of Black;
* ``tree white-at-most N``: Black's strategy that holds White to at most N.

Together they prove the value exactly. A node is one line, ``DEPTH VERTEX`` (the move
played at that depth, 1 for the first move), in preorder; a game that ends has no child.
The file ends with ``end``. The strategies are the solver's (:mod:`.solver`); the proof
does not trust it: the checker replays every line with the whole history.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from margo_gtp.engine.board import Board
from margo_gtp.engine.python_core import PythonCore
from margo_gtp.engine.rules import Rules
from margo_gtp.engine.types import WHITE, Move
from margo_gtp.files import write_atomically
from margo_gtp.players.compact_check import (Rule, StrategyWalk, format_position, header_lines, position_key,
                                             rule_chooser, rule_line)
from margo_gtp.players.solver import ExactSolver
from margo_gtp.vertex import format_vertex

__all__ = ["FORMAT", "ProofError", "compact_proof_text", "format_value", "proof_text", "result_proof_text",
           "solver_commit", "strategy_lines", "write_compact_proof", "write_proof"]

FORMAT = "margo-proof 1"


class ProofError(RuntimeError):
    """The solver's move did not keep the claimed margin (the table misled it)."""


def format_value(white_margin: int) -> str:
    """White's margin as a result: ``W+1``, ``B+2``, ``0``."""
    if white_margin == 0:
        return "0"
    return f"W+{white_margin}" if white_margin > 0 else f"B+{-white_margin}"


def _strategy(solver: ExactSolver, board: Board, line: list[int], prover: int, claim: int, out: list[str]) -> None:
    """Append the subtree at ``board`` (after ``line``): ``prover`` (0 White, 1 Black) keeps
    its margin at least ``claim`` (from its own side)."""
    moves = board.legal_moves()
    if not moves:
        return
    depth = len(line) + 1
    mover = 0 if board.to_move is WHITE else 1
    if mover == prover:
        value, best = solver.value(line, claim - 1, claim) or (claim - 1, -1)
        if value < claim or best < 0:
            raise ProofError(f"after {len(line)} moves the solver found no move keeping {claim}")
        moves = [Move(solver.point_of(best))]
    for move in moves:
        out.append(f"{depth} {format_vertex(move.point)}")
        board.push(move)
        line.append(solver.code_of(move.point))
        _strategy(solver, board, line, prover, claim, out)
        line.pop()
        board.pop()


def strategy_lines(size: int, prover: int, claim: int, solver: ExactSolver | None = None) -> list[str]:
    """One strategy tree from the empty board, as node lines: ``prover`` (0 White, 1 Black)
    keeps its margin at least ``claim``; a one-sided bound where the value is not known
    (:func:`.proof_check.check_strategy` checks it). :class:`ProofError` if the solver
    cannot keep the claim."""
    out: list[str] = []
    _strategy(solver or ExactSolver(size), Board(Rules(size=size)), [], prover, claim, out)
    return out


def proof_text(size: int, solver: ExactSolver | None = None) -> str:
    """The whole proof file of a ``size`` board under the default rules."""
    solver = solver or ExactSolver(size)
    margin, _ = solver.exact([])  # White moves first: the root's margin is White's
    at_least: list[str] = []
    at_most: list[str] = []
    _strategy(solver, Board(Rules(size=size)), [], 0, margin, at_least)
    _strategy(solver, Board(Rules(size=size)), [], 1, -margin, at_most)
    header = [f"format: {FORMAT}", "rules: default", f"size: {size}", f"value: {format_value(margin)}",
              f"nodes: {len(at_least) + len(at_most)}"]
    return "\n".join([*header, f"tree white-at-least {margin}", *at_least,
                      f"tree white-at-most {margin}", *at_most, "end"]) + "\n"


def write_proof(path: Path, size: int, solver: ExactSolver | None = None) -> str:
    text = proof_text(size, solver)
    write_atomically(path, text)
    return text


# -- the compact proof (format ``margo-proof 2``, :mod:`.compact_check`)

#: How many of the latest earlier positions a rule names when a position needs another move
#: under another history and the move it had is still legal (doubled until it tells them apart).
RECENT_POSITIONS = 4
#: Walks of one strategy before the writer gives up mending its rules.
MAX_WALKS = 1000


#: The plain solver's nodes for the prover's move before a proof-number search takes over
#: (on 4x4 the plain solver spent more than 12 minutes on one position where superko
#: forbade the rule's move; such searches settled positions like it in 10^6 to 10^7).
MOVE_NODES = 1_000_000
#: The solver's nodes for checking that a rule made under another history keeps the claim
#: in this one (most answers are in its table already).
CHECK_NODES = 2_000_000


def _recent(earlier: list[tuple], needs: list[tuple]) -> list[tuple]:
    """The latest :data:`RECENT_POSITIONS` of the ``earlier`` positions (newest first), doubled
    until they differ from the ``needs`` of the rule the new one goes before."""
    count = RECENT_POSITIONS
    while True:
        recent = earlier[-count:][::-1]
        if recent != needs or count >= len(earlier):
            return recent
        count *= 2


class _Failure(Exception):
    """A line on which the strategy being written fails (some rule above it is wrong there)."""

    def __init__(self, moves: list[Move], why: str) -> None:
        super().__init__(why)
        self.moves = moves


class _CompactWriter:
    """The rules of one strategy, found by walking it as the checker will (the walk is the
    check). At the prover's turn a position's first matching rule is played if its move is
    legal; where there is none, the solver's move becomes a rule (after the position's
    rules); where superko refuses the rule's move, the solver's move becomes a rule before it
    that needs the position the refused move would repeat. Where a line fails (a game ends
    below the claim, or the solver finds no move that keeps it), a rule above it was wrong
    in that history: the nearest of the prover's turns on the line where the solver keeps the
    claim with another move gets that move as a rule before its old one, needing the latest
    earlier positions; then the walk starts again."""

    def __init__(self, size: int, solver: ExactSolver, prover: int, claim: int,
                 known: dict[tuple[int, ...], int] | None = None,
                 progress: Callable[[StrategyWalk, "_CompactWriter"], None] | None = None) -> None:
        self.size, self.solver, self.prover, self.claim = size, solver, prover, claim
        self.known = known or {}  # line -> the prover's move, where another search proved it
        self.progress = progress  # called at each rule made, with the walk and this writer
        self.rules: dict[tuple, list[tuple[Rule, list[tuple]]]] = {}  # position -> [(rule, needs as positions)]
        self.number = 0  # a rule's number while writing: its order of creation
        self.walks = 0
        self.repairs = 0
        self.reordered = False  # a rule was added where the position had one: the walk must go again
        self.mended = 0  # rules added before another because its move lost in a new history
        self.walk_now: StrategyWalk | None = None

    def _add(self, core, position: tuple, point, needs: list[tuple], before: int) -> Rule:
        self.number += 1
        if self.progress is not None and self.walk_now is not None:
            self.progress(self.walk_now, self)
        rule = Rule(position, point, tuple(position_key(core, earlier) for earlier in needs), self.number)
        self.rules.setdefault(position, []).insert(before, (rule, needs))
        return rule

    def all_rule_lines(self) -> list[str]:
        """Every rule made so far, each position's in its order: a checkpoint of the writing
        (:meth:`load` takes it back; a walk whose rules are all known asks the solver nothing)."""
        return [rule_line(self.size, position, rule.point, needs)
                for position, rules in self.rules.items() for rule, needs in rules]

    def load(self, lines: list[str], where: str) -> None:
        """The rules of a checkpoint (:meth:`all_rule_lines`); :class:`ProofError` naming
        ``where`` and the line where one is not a rule."""
        from margo_gtp.players.compact_check import parse_position
        from margo_gtp.vertex import InvalidVertexError, parse_vertex

        core = PythonCore(Rules(size=self.size))
        for number, text in enumerate(lines, start=1):
            parts = text.split(" ")
            position = parse_position(self.size, parts[0])
            needs = [parse_position(self.size, part) for part in parts[3:]]
            try:
                point = parse_vertex(parts[1], self.size) if len(parts) > 1 else None
            except InvalidVertexError:
                point = None
            if (position is None or point is None or None in needs
                    or (len(parts) > 2 and (parts[2] != "if" or not needs))):
                raise ProofError(f"{where}: line {number}: not a rule: {text[:80]!r}")
            self._add(core, position, point, needs, len(self.rules.get(position, ())))

    def _matching(self, core, position: tuple, asked: set[int] | None = None) -> int | None:
        """The index of the position's first rule whose positions are all earlier, or None."""
        history = core._position_count
        for index, (rule, _) in enumerate(self.rules.get(position, ())):
            if asked is not None:
                asked.update(rule.needs)
            if all(key in history for key in rule.needs):
                return index
        return None

    def _solver_move(self, moves: list[Move]):
        line = [self.solver.code_of(move.point) for move in moves]
        if tuple(line) in self.known:
            return self.solver.point_of(self.known[tuple(line)])
        start, stop = self.solver.nodes, self.solver.stop
        self.solver.stop = lambda: self.solver.nodes - start >= MOVE_NODES
        try:
            answer = self.solver.value(line, self.claim - 1, self.claim)
        finally:
            self.solver.stop = stop
        if answer is None:  # not settled at once: proof-number search, which settles 4x4's hard ones
            return self._proof_number_move(line)
        value, best = answer
        return self.solver.point_of(best) if value >= self.claim and best >= 0 else None

    def _proof_number_move(self, line: list[int]):
        from margo_gtp.players.proof_number import ProofNumberSearch

        search = ProofNumberSearch(self.solver, line, self.prover, self.claim, MOVE_NODES)
        search.run()
        code = search.proven_move()
        return None if code is None else self.solver.point_of(code)

    def choose(self, walk: StrategyWalk, position: tuple) -> Rule | None:
        core = walk.core
        chosen = self._matching(core, position, walk.asked_now)
        known = self.rules.get(position, [])
        if chosen is not None:
            probe: set[int] = set()
            core.asked = probe
            legal = core.is_legal(Move(known[chosen][0].point))
            core.asked = walk.asked_now
            walk.asked_now.update(probe)
            if legal:
                rule, needs = known[chosen]
                # checked where the walk met the position before, under another history
                if not walk.memo.get(position) or self._keeps(list(core.move_stack), rule.point):
                    return rule
                # A rule made under another history loses in this one (situational superko
                # changed what the other side may play below): a rule before it for this history.
                point = self._solver_move(list(core.move_stack))
                if point is None:
                    raise _Failure(list(core.move_stack), f"the solver finds no move keeping {self.claim}")
                self.reordered = True
                self.mended += 1
                earlier = [(entry[2], entry[3], entry[8]) for entry in core._stack]
                return self._add(core, position, point, _recent(earlier, needs), chosen)
        if not core.legal_moves():
            return None  # the game has ended
        moves = list(core.move_stack)
        point = self._solver_move(moves)
        if point is None:
            raise _Failure(moves, f"the solver finds no move keeping {self.claim}")
        if chosen is None:
            if known:  # a rule after the position's others: another history chose differently
                self.reordered = True
            return self._add(core, position, point, [], len(known))
        self.reordered = True
        # the rule's move would repeat an earlier position: the new rule needs that position
        earlier = dict(zip(core._positions, [(entry[2], entry[3], entry[8]) for entry in core._stack]))
        return self._add(core, position, point, [earlier[key] for key in probe if key in earlier][:1], chosen)

    def _keeps(self, moves: list[Move], point) -> bool:
        """Does the prover's ``point`` after ``moves`` keep the claim (the other side cannot
        get more than minus the claim)? True where the solver does not settle it within
        :data:`CHECK_NODES` (the walk finds out below)."""
        line = [self.solver.code_of(move.point) for move in moves] + [self.solver.code_of(point)]
        start, stop = self.solver.nodes, self.solver.stop
        self.solver.stop = lambda: self.solver.nodes - start >= CHECK_NODES
        try:
            answer = self.solver.value(line, -self.claim, 1 - self.claim)
        finally:
            self.solver.stop = stop
        return answer is None or answer[0] < 1 - self.claim

    def repair(self, moves: list[Move]) -> None:
        """Mend the rules above the failing line ``moves`` (see the class docstring)."""
        core = PythonCore(Rules(size=self.size))
        turns = []
        for ply, move in enumerate(moves):
            if core._to_move == self.prover:
                position = (core._balls[0], core._balls[1], core._to_move)
                earlier = [(entry[2], entry[3], entry[8]) for entry in core._stack]
                turns.append((ply, position, self._matching(core, position), earlier))
            core.push(move)
        for ply, position, chosen, earlier in reversed(turns):
            point = self._solver_move(moves[:ply])
            if point is None or chosen is None:
                continue
            rule, needs = self.rules[position][chosen]
            if rule.point == point:
                continue
            core = PythonCore(Rules(size=self.size))
            self._add(core, position, point, _recent(earlier, needs), chosen)
            self.repairs += 1
            return
        raise ProofError(f"a line of {len(moves)} moves fails and no rule above it can be mended")

    def walk(self) -> StrategyWalk:
        """Walk until a walk goes through and adds no rule (a rule added during a walk may
        change the choice at a position the walk had already checked); the walk that did:
        it is the checker's walk over these rules."""
        for _ in range(MAX_WALKS):
            self.walks += 1
            before = self.number
            walk = self.walk_now = StrategyWalk(self.size, self.prover, self.claim, self.choose,
                                                lambda number, why: None)
            walk.fail = lambda number, why, walk=walk: _Failure(list(walk.core.move_stack), why)
            self.reordered = False
            try:
                walk.run()
            except _Failure as failure:
                self.repair(failure.moves)
                continue
            # A walk that only gave positions without rules their first rule checked every
            # position by the rule it has now: it is already the checker's walk.
            if self.number == before or not self.reordered:
                return walk
        raise ProofError(f"the compact strategy still fails after {MAX_WALKS} walks")


def _compact_strategy(size: int, solver: ExactSolver, prover: int, claim: int,
                      known: dict[tuple[int, ...], int] | None = None,
                      progress: Callable[[StrategyWalk, "_CompactWriter"], None] | None = None,
                      checkpoint: tuple[list[str], str] | None = None) -> tuple[list[str], int]:
    """One strategy's rule lines (only those its walk plays), and the walk's nodes;
    ``checkpoint``: the rule lines of an earlier run and where they were read."""
    writer = _CompactWriter(size, solver, prover, claim, known, progress)
    if checkpoint is not None:
        writer.load(*checkpoint)
    walk = writer.walk()
    lines = []
    for position in sorted(writer.rules, key=lambda place: format_position(size, place)):
        for rule, needs in writer.rules[position]:
            if rule.number in walk.used:
                lines.append(rule_line(size, position, rule.point, needs))
    return lines, walk.nodes


def compact_proof_text(size: int, solver: ExactSolver, commit: str, solver_nodes: int) -> str:
    """The compact proof of a ``size`` board under the default rules (:mod:`.compact_check`)."""
    margin, _ = solver.exact([])
    at_least, _ = _compact_strategy(size, solver, 0, margin)
    at_most, _ = _compact_strategy(size, solver, 1, -margin)
    body = [f"strategy white-at-least {margin}", *at_least, f"strategy white-at-most {margin}", *at_most, "end"]
    return "\n".join([*header_lines(size, format_value(margin), commit, solver_nodes, body), *body]) + "\n"


def result_proof_text(size: int, solver: ExactSolver, commit: str, solver_nodes: int, prover: int, claim: int,
                      known: dict[tuple[int, ...], int] | None = None,
                      progress: Callable[[StrategyWalk, "_CompactWriter"], None] | None = None,
                      checkpoint: tuple[list[str], str] | None = None) -> str:
    """A one-sided compact proof: ``prover`` (0 White, 1 Black) keeps its margin at least
    ``claim`` from the empty board (White's ``claim`` 1: White wins). ``known``: the
    prover's moves by line where the solver alone would take too long (the proven tree of
    :class:`.proof_number.ProofNumberSearch`, :meth:`~.proof_number.ProofNumberSearch.proving_moves`).
    ``progress(walk, writer)`` is called at each rule made (``writer.all_rule_lines()`` is a
    checkpoint); ``checkpoint``: such lines of an earlier run, and where they were read."""
    lines, _ = _compact_strategy(size, solver, prover, claim, known, progress, checkpoint)
    bound = f"white-at-least {claim}" if prover == 0 else f"white-at-most {-claim}"
    body = [f"strategy {bound}", *lines, "end"]
    return "\n".join([*header_lines(size, bound, commit, solver_nodes, body), *body]) + "\n"


def write_compact_proof(path: Path, size: int, solver: ExactSolver, commit: str, solver_nodes: int) -> str:
    text = compact_proof_text(size, solver, commit, solver_nodes)
    write_atomically(path, text)
    return text


def solver_commit() -> str:
    """The commit of this checkout (the proof's header names the solver that wrote it)."""
    import subprocess

    root = Path(__file__).resolve().parent.parent
    try:
        done = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    commit = done.stdout.strip()
    return commit if done.returncode == 0 and commit else "unknown"
