"""The game session: a MarGo board, komi and clocks behind typed GTP command handlers.

The middle layer of three (gomill ``gtp_states``): :class:`~margo_gtp.protocol.gtp.GtpEngine`
(lines, ids, framing) <- :class:`GameSession` (this module: game state, one ``cmd_*``
method per command) <- a :class:`~margo_gtp.players.Player` (move choice).

Every standard command of gtp.md section 3 and the ``margo-`` extensions of section 4
are here, except ``margo-analyze``. Extra commands come as another
:class:`~margo_gtp.protocol.handlers.HandlerGroup` (reuse ``session.converters`` for
typed Colour/Point/Move parameters), registered with
``engine.add_handlers(group.handlers())`` (``list_commands`` then lists them) and, for
GoGui, a line appended to :attr:`GameSession.analyze_commands`. A streaming command
returns a :class:`~margo_gtp.protocol.gtp.GtpStream`; see the test
``test_an_extra_handler_group_can_add_a_streaming_command``.

What is enforced: argument syntax (``syntax error``), the canonical failure texts of
gtp.md section 1, and that a failed command changes nothing (each handler validates
everything before it touches the board, or works on a copy). What is not: time. The
clocks given by ``time_settings``/``time_left``/``kgs-time_settings`` are stored and
turned into a :class:`~margo_gtp.players.Budget` for the player; the session
does not stop a player that overruns.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import margo_gtp
from margo_gtp import files, textfile
from margo_gtp.engine import Board, Colour, IllegalMoveError, Move, Point, Rules, RulesError
from margo_gtp.engine.rules import MAX_KOMI
from margo_gtp.options import PairError, parse_decimal, parse_integer, read_pairs
from margo_gtp.players import RESIGN, Budget, Player, PlayerSpecError, make_player, timecontrol
from margo_gtp.players.base import PlayerRefusal
from margo_gtp.players.clock import KGS_ARITY, MAX_CLOCK_NUMBER, ClockReading, TimeSettings
from margo_gtp.players.levels import LevelError, level_spec, read_level
from margo_gtp.protocol.gtp import GtpEngine, GtpError
from margo_gtp.protocol.handlers import Converter, HandlerGroup
from margo_gtp.vertex import MAX_SIZE, MIN_SIZE, gtp_order, parse_vertex

__all__ = ["ENGINE_NAME", "GameSession", "TimeSettings", "format_result", "make_gtp_engine", "render_board"]

ENGINE_NAME = "margo-gtp"


@dataclass
class _SessionState:
    resigned: Colour | None = None
    #: What ``time_left`` last reported for each colour: a reading of the one clock.
    clocks: dict[Colour, ClockReading] = field(default_factory=dict)


def format_result(white: float, black: float) -> str:
    """``(white, black)`` scores -> ``'W+3'``, ``'B+0.5'`` or ``'0'``."""
    diff = white - black
    if diff == 0:
        return "0"
    return f"{'W' if diff > 0 else 'B'}+{abs(diff):g}"


def render_board(board: Board) -> str:
    """The ``showboard`` answer: the board's diagram (``str(board)``,
    :func:`margo_gtp.engine.diagram.diagram`) from the line after ``=``."""
    return "\n" + str(board)


class GameSession(HandlerGroup):
    """Game state plus the command handlers of gtp.md sections 3 and 4.

    ``player`` chooses moves for ``genmove``/``reg_genmove``; ``stderr`` receives
    details the canonical failure texts leave out.
    """

    def __init__(self, player: Player, rules: Rules | None = None, *, stderr: IO[str] | None = None) -> None:
        self.player = player
        self.board = Board(rules if rules is not None else Rules())
        self.time_settings = TimeSettings()
        #: What ``margo-set_limit`` set (None: no limit beyond the clock and the player's own).
        self.limit: Budget | None = None
        #: The seed of the players ``margo-level`` builds (``--seed``).
        self.seed: int | None = None
        self._state = _SessionState()
        self._stderr = stderr
        #: ``gogui-analyze_commands`` lines ("type/Label/command"); other groups append.
        self.analyze_commands: list[str] = [
            "string/Board (JSON)/margo-board",
            "string/Legal moves/margo-legal_moves",
            "string/Ball counts/margo-score",
            "string/Rules (JSON)/margo-get_rules",
            "string/Final score/final_score",
            "string/Dead balls/final_status_list dead",
        ]
        self.player.reset(self.board)

    # -- registry ----------------------------------------------------------------------

    def commands(self) -> dict[str, Callable[..., Any]]:
        return {
            "name": self.cmd_name,
            "version": self.cmd_version,
            "boardsize": self.cmd_boardsize,
            "clear_board": self.cmd_clear_board,
            "komi": self.cmd_komi,
            "play": self.cmd_play,
            "genmove": self.cmd_genmove,
            "reg_genmove": self.cmd_reg_genmove,
            "undo": self.cmd_undo,
            "showboard": self.cmd_showboard,
            "final_score": self.cmd_final_score,
            "final_status_list": self.cmd_final_status_list,
            "time_settings": self.cmd_time_settings,
            "time_left": self.cmd_time_left,
            "kgs-time_settings": self.cmd_kgs_time_settings,
            "loadsgf": self.cmd_loadsgf,
            "printsgf": self.cmd_printsgf,
            "gogui-analyze_commands": self.cmd_gogui_analyze_commands,
            "margo-setup": self.cmd_margo_setup,
            "margo-to_move": self.cmd_margo_to_move,
            "margo-board": self.cmd_margo_board,
            "margo-legal_moves": self.cmd_margo_legal_moves,
            "margo-get_rules": self.cmd_margo_get_rules,
            "margo-set_rules": self.cmd_margo_set_rules,
            "margo-score": self.cmd_margo_score,
            "margo-set_limit": self.cmd_margo_set_limit,
            "margo-level": self.cmd_margo_level,
            "cputime": self.cmd_cputime,
        }

    def converters(self) -> dict[Any, Converter]:
        table = super().converters()
        table[Colour] = Colour.parse
        table[Point] = lambda text: parse_vertex(text, self.board.size)
        table[Move] = lambda text: Move.from_gtp(text, self.board.size)
        return table

    # -- helpers -----------------------------------------------------------------------

    def _detail(self, message: str) -> None:
        stream = self._stderr or sys.stderr
        stream.write(f"margo-gtp: {message}\n")
        stream.flush()

    def _replace_board(self, board: Board) -> None:
        """Install a new position (not reached by one move): the player starts over."""
        self.board = board
        self._state.resigned = None
        self.player.reset(board)

    def _rebuilt(self, rules: Rules) -> Board:
        """The current game (root position and moves) replayed under ``rules``.
        Raises IllegalMoveError/ValueError if it does not fit them."""
        old = self.board
        board = Board(rules)
        root = old.root_balls()
        if root:
            board.setup(root, to_move=old.root_to_move)
        elif old.root_to_move != old.rules.first_player:
            board.set_to_move(old.root_to_move)
        for colour, move in old.history:
            board.push(move, colour)
        return board

    def _apply(self, move: Move, colour: Colour) -> None:
        self.board.push(move, colour)
        self._state.resigned = None
        self.player.notify(self.board, move, colour)

    def _game_over(self) -> bool:
        return self._state.resigned is not None or self.board.is_game_over()

    def budget_for(self, colour: Colour) -> Budget:
        """The thinking budget for ``colour``'s next move from the stored clocks (no limit
        when none was set), by :func:`margo_gtp.players.timecontrol.budget`: a share
        of the time left that never exceeds what may be used without losing on time.
        A ``margo-set_limit`` limit applies on top: the tighter of the two seconds, and
        its playouts."""
        budget = timecontrol.budget(self.time_settings, self._state.clocks.get(colour))
        if self.limit is None:
            return budget
        seconds = [value for value in (budget.seconds, self.limit.seconds) if value is not None]
        return Budget(seconds=min(seconds) if seconds else None, playouts=self.limit.playouts)

    def _charge_clock(self, colour: Colour, elapsed: float) -> None:
        """Run ``colour``'s stored clock down by a genmove's thinking time, so budgets stay
        within the time left even when the controller sends no ``time_left``."""
        left = timecontrol.charge(self.time_settings, self._state.clocks.get(colour), elapsed)
        if left is not None:
            self._state.clocks[colour] = ClockReading(*left)  # type: ignore[arg-type]

    def _choose(self, colour: Colour) -> Move | Any:
        """Ask the player; pass when ``colour`` has no legal move or the game is over."""
        if self._game_over() or not self.board.legal_moves(colour):
            return Move.PASS
        try:
            choice = self.player.select_move(self.board, colour, self.budget_for(colour))
        except PlayerRefusal as refusal:  # a player that cannot play this game says why, in one line
            raise GtpError(str(refusal)) from None
        if choice is RESIGN:
            return choice
        if not self.board.is_legal(choice, colour):
            raise RuntimeError(f"player {self.player.name!r} chose an illegal move {choice!r} for {colour.name}")
        return choice

    # -- standard commands (gtp.md section 3) --------------------------------------------

    def cmd_name(self) -> str:
        return ENGINE_NAME

    def cmd_version(self) -> str:
        return margo_gtp.__version__

    def cmd_boardsize(self, size: int) -> None:
        if not MIN_SIZE <= size <= MAX_SIZE:
            raise GtpError("unacceptable size")
        self._replace_board(Board(self.board.rules.replace(size=size)))

    def cmd_clear_board(self) -> None:
        self._replace_board(Board(self.board.rules))

    def cmd_komi(self, komi: float) -> None:
        if abs(komi) > MAX_KOMI:   # the same range on both cores (engine/rules.py)
            raise GtpError("syntax error", detail=f"komi must be between -{MAX_KOMI} and {MAX_KOMI}")
        if komi != self.board.rules.komi:
            self._replace_board(self._rebuilt(self.board.rules.replace(komi=komi)))

    def cmd_play(self, colour: Colour, move: Move) -> None:
        if move.is_pass and not self.board.rules.allow_pass:
            if self.board.legal_moves(colour):
                raise GtpError("illegal move")
            return  # a blocked colour "passes": nothing to do
        try:
            self.board.push(move, colour)
        except IllegalMoveError as error:
            self._detail(str(error))
            raise GtpError("illegal move") from None
        self._state.resigned = None
        self.player.notify(self.board, move, colour)

    def cmd_genmove(self, colour: Colour) -> str:
        started = time.monotonic()
        choice = self._choose(colour)
        self._charge_clock(colour, time.monotonic() - started)
        if choice is RESIGN:
            self._state.resigned = colour
            return "resign"
        if choice.is_pass and not self.board.is_legal(choice, colour):
            return "pass"  # no legal move: the game is over, nothing is played
        self._apply(choice, colour)
        return choice.gtp()

    def cmd_reg_genmove(self, colour: Colour) -> str:
        choice = self._choose(colour)
        return "resign" if choice is RESIGN else choice.gtp()

    def cmd_undo(self) -> None:
        if not self.board.history:
            raise GtpError("cannot undo")
        board = self.board.copy()
        board.pop()
        self._replace_board(board)

    def cmd_showboard(self) -> str:
        return render_board(self.board)

    def cmd_final_score(self) -> str:
        if self._state.resigned is not None:
            return f"{self._state.resigned.opponent.letter}+R"
        outcome = self.board.outcome()
        if outcome is not None:
            return outcome.result()
        white, black = self.board.score()
        return format_result(white, black)

    def cmd_cputime(self) -> str:
        """CPU seconds this engine process has used (GoGui's ``cputime`` extension, which
        gogui-twogtp reads for its CPU columns)."""
        return f"{time.process_time():.3f}"

    def cmd_final_status_list(self, status: str) -> str:
        if status not in ("alive", "dead", "seki"):
            raise GtpError("syntax error", detail=f"status must be alive, dead or seki, not {status!r}")
        dead = set(self.board.zombies())
        if status == "seki":
            return ""
        if status == "dead":
            return " ".join(point.gtp() for point in sorted(dead, key=gtp_order))
        alive = [point for point in self.board.balls() if point not in dead]
        return " ".join(point.gtp() for point in sorted(alive, key=gtp_order))

    def cmd_time_settings(self, main_time: int, byo_yomi_time: int, byo_yomi_stones: int) -> None:
        if min(main_time, byo_yomi_time, byo_yomi_stones) < 0:
            raise GtpError("syntax error", detail="times and stones must be >= 0")
        _check_clock(main_time, byo_yomi_time, byo_yomi_stones)
        self.time_settings = TimeSettings.from_gtp(main_time, byo_yomi_time, byo_yomi_stones)
        self._state.clocks.clear()

    def cmd_time_left(self, colour: Colour, seconds: int, stones: int) -> None:
        if seconds < 0 or stones < 0:
            raise GtpError("syntax error", detail="time and stones must be >= 0")
        _check_clock(seconds, 0, stones)
        self._state.clocks[colour] = ClockReading(seconds, stones)

    def cmd_kgs_time_settings(self, system: str, *values: int) -> None:
        """KGS's four systems. The one clock also knows ``fischer``, which no GTP command sets
        here: the exact transcripts keep ``kgs-time_settings fischer`` a syntax error, and a
        referee gives Fischer as ``time_settings M 0 0`` plus ``time_left`` (see
        ``margo_gtp.match.match_config.TimeControl``)."""
        if KGS_ARITY.get(system) != len(values) or any(value < 0 for value in values):
            raise GtpError("syntax error", detail="expected none | absolute M | byoyomi M P N | canadian M P S, values >= 0")
        _check_clock(*values)
        self.time_settings = TimeSettings.from_kgs(system, values)
        self._state.clocks.clear()

    def cmd_loadsgf(self, filename: str, move_number: int | None = None) -> None:
        if move_number is not None and move_number < 1:
            raise GtpError("syntax error", detail="the move number counts from 1")
        try:
            from margo_gtp import sgf

            _, board = sgf.load_board(sgf.read_file(filename), move_number)
        except OSError as error:  # the file itself: say what the system said, not Python's class name
            self._detail(f"loadsgf {filename!r}: {error.strerror or error}")
            raise GtpError("cannot load file") from None
        except Exception as error:  # noqa: BLE001 - any failure is "cannot load file" (gtp.md)
            self._detail(f"loadsgf {filename!r}: {error}")
            raise GtpError("cannot load file") from None
        self._replace_board(board)

    def cmd_printsgf(self, filename: str | None = None) -> str | None:
        try:
            from margo_gtp import sgf
        except ImportError as error:
            self._detail(f"printsgf: {error}")
            raise GtpError("cannot save file") from None
        meta = {}
        if self._state.resigned is not None:
            meta["result"] = f"{self._state.resigned.opponent.letter}+R"
        text = sgf.dumps(sgf.record_from_board(self.board, **meta))
        if filename is None:
            return text
        try:  # a regular file only (not /dev/stdout: the answers), replaced whole
            files.write_atomically(Path(textfile.check_regular_target(filename)), text)
        except textfile.TextFileError as error:
            self._detail(f"printsgf {filename!r}: {error.reason}")
            raise GtpError("cannot save file") from None
        except OSError as error:
            self._detail(f"printsgf {filename!r}: {error.strerror or error}")
            raise GtpError("cannot save file") from None
        return None

    def cmd_gogui_analyze_commands(self) -> str:
        return "\n".join(self.analyze_commands)

    # -- MarGo extensions (gtp.md section 4) ----------------------------------------------

    def cmd_margo_setup(self, *pairs: str) -> None:
        if not pairs or len(pairs) % 2:
            raise GtpError("syntax error", detail="expected colour/vertex pairs")
        size = self.board.size
        try:
            balls = [(parse_vertex(pairs[i + 1], size), Colour.parse(pairs[i])) for i in range(0, len(pairs), 2)]
        except ValueError as error:
            raise GtpError("syntax error", detail=str(error)) from None
        board = self.board.copy()
        try:
            board.setup(balls)
        except IllegalMoveError as error:
            self._detail(str(error))
            raise GtpError("illegal move") from None
        self._replace_board(board)

    def cmd_margo_to_move(self, colour: Colour | None = None) -> str | None:
        if colour is None:
            return self.board.to_move.letter
        board = self.board.copy()
        board.set_to_move(colour)
        self._replace_board(board)
        return None

    def cmd_margo_board(self) -> str:
        board = self.board
        balls = board.balls()
        return json.dumps(
            {
                "size": board.size,
                "to_move": board.to_move.letter,
                "balls": {point.gtp(): balls[point].letter for point in sorted(balls, key=gtp_order)},
                "zombies": [point.gtp() for point in board.zombies()],
                "buried": [point.gtp() for point in board.buried()],
                "captured": {"W": board.captured[Colour.WHITE], "B": board.captured[Colour.BLACK]},
                "moves": len(board.history),
                "over": self._game_over(),
            },
            separators=(",", ":"),
        )

    def cmd_margo_legal_moves(self, colour: Colour | None = None) -> str:
        if self._state.resigned is not None:
            return ""
        return " ".join(move.gtp() for move in self.board.legal_moves(colour))

    def cmd_margo_get_rules(self) -> str:
        return json.dumps(self.board.rules.options(), separators=(",", ":"))

    def cmd_margo_set_rules(self, *pairs: str) -> None:
        if not pairs:
            raise GtpError("syntax error", detail="expected K=V pairs")
        try:
            options = read_pairs(pairs, malformed="expected K=V pairs, each key once: {item!r}",
                                 repeated="expected K=V pairs, each key once: {item!r}")
        except PairError as error:
            raise GtpError("syntax error", detail=str(error)) from None
        try:
            rules = self.board.rules.with_options(options)
        except (RulesError, ValueError, TypeError) as error:
            raise GtpError("syntax error", detail=str(error)) from None
        if self.board.history:
            raise GtpError("cannot change rules now")
        try:
            board = self._rebuilt(rules)
        except ValueError as error:  # the set-up position does not fit the new rules
            self._detail(str(error))
            raise GtpError("cannot change rules now") from None
        self._replace_board(board)

    def cmd_margo_set_limit(self, *pairs: str) -> None:
        """``margo-set_limit [seconds=S] [playouts=N]``: the thinking limit of every later
        ``genmove`` (and of ``margo-analyze_snapshot`` without its time argument); no
        arguments remove it. All or nothing; a bad pair is ``syntax error``."""
        message = "expected seconds=S or playouts=N, each once: {item!r}"
        try:
            texts = read_pairs(pairs, malformed=message, repeated=message)
            unknown = [key for key in texts if key not in ("seconds", "playouts")]
            if unknown:
                raise PairError(message.format(item=f"{unknown[0]}={texts[unknown[0]]}"), unknown[0], None)
        except PairError as error:
            raise GtpError("syntax error", detail=str(error)) from None
        values: dict[str, float | int] = {}
        for key, text in texts.items():
            try:
                values[key] = parse_decimal(text) if key == "seconds" else parse_integer(text)
            except ValueError as error:
                raise GtpError("syntax error", detail=str(error)) from None
            if not (values[key] >= 0 if key == "seconds" else values[key] >= 1):
                raise GtpError("syntax error", detail="seconds must be >= 0, playouts >= 1")
        self.limit = Budget(**values) if values else None  # type: ignore[arg-type]

    def cmd_margo_level(self, text: str) -> None:
        """``margo-level N``: play every later ``genmove`` at level N (``--level N``'s
        player, :mod:`margo_gtp.players.levels`), from the position as it is. A level out of
        range is ``syntax error`` and keeps the player."""
        try:
            spec = level_spec(read_level(text))
        except LevelError as error:
            raise GtpError("syntax error", detail=str(error)) from None
        try:
            player = make_player(spec, self.seed)
        except PlayerSpecError as error:  # e.g. a broken shipped network: the player stays
            raise GtpError("cannot set level", detail=str(error)) from None
        self.player = player
        player.reset(self.board)

    def cmd_margo_score(self) -> str:
        counts = self.board.ball_counts()
        return f"W {counts[Colour.WHITE]} B {counts[Colour.BLACK]}"


def _check_clock(*numbers: float) -> None:
    """``? syntax error`` (and one line on stderr) for a clock number beyond
    :data:`~margo_gtp.players.clock.MAX_CLOCK_NUMBER`; nothing is changed then."""
    if max(numbers, default=0) > MAX_CLOCK_NUMBER:
        raise GtpError("syntax error", detail=f"clock numbers must be at most {MAX_CLOCK_NUMBER}")


def make_gtp_engine(player: Player, rules: Rules | None = None, *, stderr: IO[str] | None = None,
                    seed: int | None = None) -> GtpEngine:
    """Composition root of the protocol: player -> session -> engine (style.md item 18).
    The session is reachable as ``engine.session`` (for tests and extra handler groups);
    ``seed`` seeds the players ``margo-level`` builds."""
    session = GameSession(player, rules, stderr=stderr)
    session.seed = seed
    engine = GtpEngine(session.handlers(), stderr=stderr)
    engine.session = session  # type: ignore[attr-defined]
    return engine
