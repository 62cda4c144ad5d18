"""The projected 2-D GTP session: the 2-D command handlers and the link to the native engine.

Holds :class:`NativeEngine` (the native engine subprocess, on the client's GTP wire),
:class:`ProjectedSession` (the 2-D handlers: ``boardsize``, ``play``, ``genmove``, the
GoGui ruler commands..., each asking the engine what it needs) and :class:`ProxyEngine` (the GTP front end that
answers ``engine is not running`` once the engine is gone). The maths is in
:mod:`margo_gtp.gtp2d.projection`; the command line in :mod:`margo_gtp.commands.gtp2d`,
whose docstring is the reading guide.
"""

from __future__ import annotations

import json
import shlex
from typing import IO, TYPE_CHECKING, Callable, Sequence

from margo_gtp.gtp2d.projected_analysis import best_line_gfx, ownership_gfx, read_infos, winrates_gfx
from margo_gtp.gtp2d.projection import NativeView, board_rows, lift, project_vertex, top_view
from margo_gtp.client.process import ProcessTransport
from margo_gtp.client.wire import GtpWire, WireClosed, WireProtocolError, WireTimeout
from margo_gtp.options import parse_integer
from margo_gtp.protocol.gtp import GtpEngine, GtpError, GtpQuit, GtpStream
from margo_gtp.vertex import (
    InvalidVertexError, column_points, format_point_2d, parse_decimal, parse_point_2d, parse_vertex, project,
    projected_size,
)

if TYPE_CHECKING:
    from margo_gtp.gtp2d.engine_pair import EnginePair

#: Largest 2-D board: GTP vertices stop at 25 columns (A..Z without I), so N <= 13.
MAX_SIZE_2D = 25
#: Native commands not offered through the proxy: streaming results cannot be relayed line
#: by line, and margo-genmove_analyze would also play a move the proxy's board never sees
#: (the proxy plays the engine's moves through its own genmove).
HIDDEN_COMMANDS = frozenset({"margo-analyze", "margo-genmove_analyze"})
GAME_ID = "Margo"
#: GoGui analyze menu entries (type/label/command), see GoGui's analyze-command docs.
ANALYZE_COMMANDS = (
    "gfx/MarGo levels and zombies/gogui-rules_board_gfx",
    "string/MarGo 3-D board/showboard",
    "string/MarGo ball count now/margo-score",
    "string/MarGo rules/margo-get_rules",
    "gfx/MarGo win rates/margo-gfx_winrates %m",
    "gfx/MarGo best line/margo-gfx_best_line %m",
    "gfx/MarGo ownership/margo-gfx_ownership",
)


#: Seconds the proxy waits for any engine answer but the thinking commands' (--timeout).
DEFAULT_TIMEOUT = 60.0
#: Commands whose answer may take as long as the engine thinks: no proxy timeout.
UNTIMED_COMMANDS = frozenset({"genmove", "reg_genmove", "margo-analyze_snapshot", "margo-ownership"})


class EngineGone(Exception):
    """Raised when the native engine process has ended or broke the protocol"""


# ---------------------------------------------------------------------------------------
# The engine side


class NativeEngine:
    """The proxy's link to the native engine subprocess, on the one GTP wire
    (:class:`~margo_gtp.client.wire.GtpWire` over a
    :class:`~margo_gtp.client.process.ProcessTransport`; commands go without ids, and the
    engine's stderr goes straight to the proxy's, where GoGui shows it).

    Every answer is awaited at most ``timeout`` seconds, except the answers to the
    thinking commands (:data:`UNTIMED_COMMANDS`), which take as long as the engine's
    clock says. The engine is checked at start (``protocol_version`` must get a GTP
    answer within ``timeout``). A silent engine, one that is not GTP (``cat``), or one
    that exits (``false``) is stopped and marked gone: from then on every command that
    needs it answers ``? engine is not running``, and :attr:`failure` says why (written
    once to ``report``). Raises OSError when the engine cannot be started.
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
        report: IO[str] | None = None,
    ) -> None:
        self.argv = list(argv)
        self.timeout = timeout
        self.failure: str | None = None
        self._report = report  # where the one line saying why the engine is gone goes
        self._transport = ProcessTransport(self.argv, capture_stderr=False)
        self._wire = GtpWire(self._transport, ids=False)

    @property
    def running(self) -> bool:
        return self.failure is None and self._transport.returncode is None

    def check(self) -> bool:
        """The start-up check: the engine answers ``protocol_version`` as a GTP engine."""
        try:
            self.send("protocol_version")
        except EngineGone:
            return False
        return True

    def send(self, command: str) -> tuple[bool, str]:
        """Send one command line; returns ``(ok, result text)``, the text in the shape
        the engine wrote it (a leading line break kept). Raises EngineGone."""
        if self.failure is not None or self._transport.returncode is not None:
            raise EngineGone(self._gone(self.failure or self._end_reason()))
        name, *args = command.split(" ")
        timeout = None if name in UNTIMED_COMMANDS else self.timeout
        try:
            answer = self._wire.command(name, args, timeout=timeout)
        except WireClosed:
            raise EngineGone(self._gone(self._end_reason())) from None
        except WireTimeout:
            raise EngineGone(self._gone(f"no answer to {command!r} within {self.timeout:g} s")) from None
        except WireProtocolError as error:
            if error.reason == "garbage":
                reason = f"it is not a GTP engine: it answered {command!r} with {error.line[:80]!r}"
            else:
                reason = f"it answered {command!r} with {error}"
            raise EngineGone(self._gone(reason)) from None
        return answer.ok, answer.verbatim

    def _end_reason(self) -> str:
        """Why a process that stopped talking did: its exit code, or a closed output."""
        code = self._transport.wait(5)
        return "it closed its output" if code is None else f"it exited with code {code}"

    def _gone(self, reason: str) -> str:
        """Record why the engine is unusable (the first reason), stop it; the error text."""
        if self.failure is None:
            self.failure = reason
            self._transport.kill()
            if self._report is not None:
                self._report.write(f"margo-gtp-2d: engine {shlex.join(self.argv)!r} is not usable: {reason}\n")
                self._report.flush()
        return "engine is not running"

    def close(self) -> None:
        """Ask the engine to quit, then wait for it (killing it if it hangs)."""
        if self._transport.returncode is None:
            if self.failure is None:
                try:
                    self.send("quit")
                except EngineGone:
                    pass
            if self._transport.wait(10) is None:
                self._transport.kill()
        self._transport.close_pipes()


# ---------------------------------------------------------------------------------------
# The 2-D session


_COLOURS = {"b": "B", "black": "B", "w": "W", "white": "W"}


def _colour(text: str) -> str:
    colour = _COLOURS.get(text.lower())
    if colour is None:
        raise GtpError("syntax error")
    return colour


class ProjectedSession:
    """The 2-D command handlers, talking to a :class:`NativeEngine`.

    ``hole`` is the character ``gogui-rules_board`` writes for 2-D points that can never
    hold a ball: ``?`` by default, which GoGui reads as a removed point since 1.6.0;
    pass ``hole='.'`` for older GoGui, whose board parser counts only ``X``, ``O`` and
    ``.`` (it skips any other character, so a hole must be one of ``?`` ``.`` for GoGui).
    """

    def __init__(self, engine: NativeEngine | EnginePair, *, hole: str = "?") -> None:
        self.engine = engine
        self.hole = hole

    # -- plumbing ----------------------------------------------------------------------

    def ask(self, command: str) -> str:
        """Send a command the proxy needs; engine failures become GtpError."""
        try:
            ok, text = self.engine.send(command)
        except EngineGone as error:
            raise GtpError(str(error)) from None
        if not ok:
            raise GtpError(text)
        return text

    def view(self) -> NativeView:
        text = self.ask("margo-board")
        try:
            return NativeView.from_json(text)
        except (ValueError, KeyError, TypeError) as error:
            raise GtpError(f"engine sent a bad margo-board answer: {error}") from None

    def forwarder(self, name: str) -> Callable[[list[str]], str]:
        def forward(args: list[str]) -> str:
            return self.ask(" ".join([name, *args]))

        forward.__name__ = f"forward_{name}"
        return forward

    def engine_commands(self) -> list[str]:
        try:
            ok, text = self.engine.send("list_commands")
        except EngineGone:
            return []
        return [line.strip() for line in text.splitlines() if ok and line.strip()]

    def handlers(self) -> dict[str, Callable[[list[str]], str | None]]:
        own: dict[str, Callable[[list[str]], str | None]] = {
            "quit": self.cmd_quit,
            "boardsize": self.cmd_boardsize,
            "play": self.cmd_play,
            "genmove": self.cmd_genmove,
            "reg_genmove": self.cmd_reg_genmove,
            "final_status_list": self.cmd_final_status_list,
            "komi": self.cmd_komi,
            "gogui-rules_game_id": self.cmd_rules_game_id,
            "gogui-rules_board_size": self.cmd_rules_board_size,
            "gogui-rules_board": self.cmd_rules_board,
            "gogui-rules_legal_moves": self.cmd_rules_legal_moves,
            "gogui-rules_side_to_move": self.cmd_rules_side_to_move,
            "gogui-rules_final_result": self.cmd_rules_final_result,
            "gogui-rules_captured_count": self.cmd_rules_captured_count,
            "gogui-rules_board_gfx": self.cmd_rules_board_gfx,
            "gogui-analyze_commands": self.cmd_analyze_commands,
            "margo-gfx_winrates": self.cmd_gfx_winrates,
            "margo-gfx_best_line": self.cmd_gfx_best_line,
            "margo-gfx_ownership": self.cmd_gfx_ownership,
        }
        passed = {
            name: self.forwarder(name)
            for name in self.engine_commands()
            if name not in own and name not in HIDDEN_COMMANDS
            and name not in ("protocol_version", "known_command", "list_commands")
        }
        return {**passed, **own}

    # -- standard commands ---------------------------------------------------------------

    def cmd_quit(self, args: list[str]) -> None:
        self.engine.close()
        raise GtpQuit()

    def cmd_boardsize(self, args: list[str]) -> None:
        if len(args) != 1:
            raise GtpError("syntax error")
        try:
            side = parse_integer(args[0])  # GTP integers: no '+17', no '1_7'
        except ValueError:
            raise GtpError("syntax error") from None
        if side % 2 == 0 or not 3 <= side <= MAX_SIZE_2D:
            raise GtpError("unacceptable size")
        self.ask(f"boardsize {(side + 1) // 2}")

    def cmd_play(self, args: list[str]) -> None:
        if len(args) != 2:
            raise GtpError("syntax error")
        colour = _colour(args[0])
        if args[1].lower() == "pass":
            if self.view().over:
                return  # a 2-D referee echoing the end-of-game passes
            self.ask(f"play {colour} pass")
            return
        if args[1].lower() == "swap":  # no 2-D point: relayed as the word, as genmove answers it
            self.ask(f"play {colour} swap")
            return
        view = self.view()
        try:
            col, row = parse_point_2d(args[1], projected_size(view.size))
        except InvalidVertexError:
            raise GtpError("syntax error") from None
        point = lift(col, row, view.size, view.balls)
        if point is None:
            raise GtpError("illegal move")
        self.ask(f"play {colour} {point.gtp()}")

    def _generate(self, name: str, args: list[str]) -> str:
        if len(args) != 1:
            raise GtpError("syntax error")
        colour = _colour(args[0])
        view = self.view()
        if view.over:
            return "pass"
        answer = self.ask(f"{name} {colour}")
        try:
            return project_vertex(answer, view.size)
        except InvalidVertexError:
            raise GtpError(f"engine answered an unreadable move: {answer!r}") from None

    def cmd_genmove(self, args: list[str]) -> str:
        return self._generate("genmove", args)

    def cmd_reg_genmove(self, args: list[str]) -> str:
        return self._generate("reg_genmove", args)

    def cmd_final_status_list(self, args: list[str]) -> str:
        size = self.view().size
        answer = self.ask(" ".join(["final_status_list", *args]))
        points: list[str] = []
        for token in answer.split():
            try:
                point = project_vertex(token, size)
            except InvalidVertexError:
                continue
            if point not in points:
                points.append(point)
        return " ".join(points)

    def cmd_komi(self, args: list[str]) -> None:
        """Komi is the engine's rule: a Go tool may only confirm it (GoGui's ruler, a
        second copy of the proxy, never hears ``komi``, so changing it here would make the
        player and the ruler score differently). Changes nothing either way."""
        if len(args) != 1:
            raise GtpError("syntax error")
        try:
            komi = parse_decimal(args[0])
        except ValueError:
            raise GtpError("syntax error") from None
        try:
            fixed = float(json.loads(self.ask("margo-get_rules"))["komi"])
        except (ValueError, KeyError, TypeError) as error:
            raise GtpError(f"engine sent a bad margo-get_rules answer: {error}") from None
        if komi != fixed:
            raise GtpError(f"komi is fixed at {fixed:g}")

    # -- GoGui ruler commands ------------------------------------------------------------

    def cmd_rules_game_id(self, args: list[str]) -> str:
        return GAME_ID

    def cmd_rules_board_size(self, args: list[str]) -> str:
        return str(projected_size(self.view().size))

    def cmd_rules_board(self, args: list[str]) -> str:
        view = self.view()
        return "\n" + "\n".join(board_rows(view.size, view.balls, self.hole))

    def cmd_rules_legal_moves(self, args: list[str]) -> str:
        view = self.view()
        if view.over:
            return ""
        answer = self.ask("margo-legal_moves")
        points: list[tuple[int, int]] = []
        can_pass = False
        for token in answer.split():
            word = token.lower()
            if word == "pass":
                can_pass = True
            elif word != "swap":
                points.append(project(parse_vertex(token, view.size)))
        moves = [format_point_2d(col, row) for col, row in sorted(set(points), key=lambda p: (p[1], p[0]))]
        return " ".join(moves + (["pass"] if can_pass else []))

    def cmd_rules_side_to_move(self, args: list[str]) -> str:
        return "black" if self.view().to_move == "B" else "white"

    def cmd_rules_final_result(self, args: list[str]) -> str:
        if not self.view().over:
            return "unknown"
        return self.ask("final_score")

    def cmd_rules_captured_count(self, args: list[str]) -> str:
        # GoGui reads "<white stones captured> <black stones captured>"; the engine counts
        # balls captured *by* each colour, so White's losses are Black's captures.
        captured = self.view().captured
        return f"{captured.get('B', 0)} {captured.get('W', 0)}"

    def cmd_rules_board_gfx(self, args: list[str]) -> str:
        view = self.view()
        shown = top_view(view.balls)
        labels = []
        zombies = []
        for (col, row), (point, _) in sorted(shown.items(), key=lambda item: (item[0][1], item[0][0])):
            name = format_point_2d(col, row)
            if point.level > 0:
                labels.append(f"{name} {point.level + 1}")
            if point in view.zombies:
                zombies.append(name)
        holes = [
            format_point_2d(col, row)
            for row in range(projected_size(view.size))
            for col in range(projected_size(view.size))
            if not column_points(col, row, view.size)
        ]
        lines = []
        if labels:
            lines.append("LABEL " + " ".join(labels))
        if zombies:
            lines.append("COLOR red " + " ".join(zombies))
        if holes:  # GoGui 1.6 draws removed points like empty ones: grey them out
            lines.append("COLOR gray " + " ".join(holes))
        to_move = "Black" if view.to_move == "B" else "White"
        state = "game over" if view.over else f"{to_move} to move"
        lines.append(
            f"TEXT {state}; captured by White {view.captured.get('W', 0)}, "
            f"by Black {view.captured.get('B', 0)}; zombies {len(view.zombies)}"
        )
        return "\n".join(lines)

    # -- analysis drawn on the 2-D board (margo_gtp.gtp2d.projected_analysis) --------------

    def _draw_snapshot(self, args: list[str], draw: Callable[[list[dict], str, int], str]) -> str:
        """Ask the engine ``margo-analyze_snapshot C [cs]``; ``draw(candidates, colour, size)``."""
        if not 1 <= len(args) <= 2:
            raise GtpError("syntax error")
        colour = _colour(args[0])
        size = self.view().size
        answer = self.ask(" ".join(["margo-analyze_snapshot", colour, *args[1:]]))
        try:
            return draw(read_infos(answer), colour, size)
        except ValueError as error:  # InvalidVertexError too
            raise GtpError(f"engine sent a bad margo-analyze_snapshot answer: {error}") from None

    def cmd_gfx_winrates(self, args: list[str]) -> str:
        return self._draw_snapshot(args, winrates_gfx)

    def cmd_gfx_best_line(self, args: list[str]) -> str:
        return self._draw_snapshot(args, best_line_gfx)

    def cmd_gfx_ownership(self, args: list[str]) -> str:
        if len(args) > 1:
            raise GtpError("syntax error")
        size = self.view().size
        answer = self.ask(" ".join(["margo-ownership", *args]))
        try:  # what the values are; an engine without the command counts balls (its meaning before)
            ok, kind = self.engine.send("margo-ownership_kind")
        except EngineGone as error:
            raise GtpError(str(error)) from None
        try:
            return ownership_gfx(answer, size, kind.strip() if ok else "balls")
        except ValueError as error:  # InvalidVertexError too
            raise GtpError(f"engine sent a bad margo-ownership answer: {error}") from None

    def cmd_analyze_commands(self, args: list[str]) -> str:
        return "\n".join(ANALYZE_COMMANDS)


class ProxyEngine(GtpEngine):
    """The proxy's GTP front end: once the native engine is gone, a command the proxy
    does not know itself answers ``engine is not running`` (it may be the engine's), not
    ``unknown command``."""

    def __init__(self, session: ProjectedSession, *, stderr: IO[str] | None = None) -> None:
        super().__init__(session.handlers(), stderr=stderr, program="margo-gtp-2d")
        self.session = session

    def run_command(self, name: str, args: list[str]) -> tuple[bool, str | GtpStream, bool]:
        if name not in self.handlers and not self.session.engine.running:
            return True, "engine is not running", False
        return super().run_command(name, args)


def build_engine(session: ProjectedSession, *, stderr: IO[str] | None = None) -> GtpEngine:
    """The GTP front end: protocol commands + the session's handlers + passthroughs."""
    return ProxyEngine(session, stderr=stderr)

