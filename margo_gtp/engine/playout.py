"""The random playout of the pure-Python core, and the generator of seeded playouts.

:func:`random_playout` is the loop of :meth:`PythonCore.random_playout
<margo_gtp.engine.python_core.PythonCore.random_playout>` and ``seeded_playout``; the C
twin is ``rules_playout.c``, with the same draws, so one generator plays the same game on
both cores. :func:`splitmix64` is the generator of seeded playouts (MCTS's), bit for bit
the one in C; :data:`BOARD_CHANGED_DURING_PLAYOUT` is both cores' error when the
generator itself changed the board.
"""

from __future__ import annotations

from margo_gtp.engine.types import Move

#: random_playout's error when the generator's random() changed the board (both cores)
BOARD_CHANGED_DURING_PLAYOUT = (
    "board changed during random_playout (the generator's random() played or undid a move)")


def random_playout(core, rand, max_moves: int) -> int:
    """Play random moves on ``core`` (a :class:`~margo_gtp.engine.python_core.PythonCore`);
    ``rand()`` returns uniform floats in [0, 1). Returns the number of moves played.

    ``rand`` may be any Python callable; if it plays or undoes a move on this board, the
    candidate list describes a position that is gone, so the loop stops with
    RuntimeError (as a dict changed during iteration does), keeping the moves played."""
    playable = core._playable
    g = core._g
    allow_pass = core.rules.allow_pass
    cands: list[int] = []
    where = [-1] * g.count
    m = core._supported_empty & playable
    while m:
        low = m & -m
        m ^= low
        i = low.bit_length() - 1
        where[i] = len(cands)
        cands.append(i)
    resolve = core._resolve
    commit = core._commit
    points = g.points
    played = 0
    while played < max_moves and core._end is None:
        c = core._to_move
        k = len(cands)
        extra = 1 if allow_pass else 0
        if core._swap_legal(c):
            extra += 1
        chosen = None
        while k + extra:
            version = core._version
            r = int(rand() * (k + extra))
            if core._version != version:
                raise RuntimeError(BOARD_CHANGED_DURING_PLAYOUT)
            if r >= k:  # a pass or a swap, both always legal when offered
                chosen = Move.SWAP if (r == k and core._swap_legal(c)) else Move.PASS
                state = None
                break
            i = cands[r]
            state = resolve(i, c)
            if state is not None:
                chosen = i
                break
            k -= 1
            j = cands[k]
            cands[r], cands[k] = j, i
            where[j], where[i] = r, k
        if chosen is None:
            break  # the side to move has no legal move: game over (R17)
        before = core._supported_empty
        if isinstance(chosen, Move):
            commit(chosen, c, None)
        else:
            commit(Move(points[chosen]), c, state)
        played += 1
        diff = (before ^ core._supported_empty) & playable
        while diff:
            low = diff & -diff
            diff ^= low
            i = low.bit_length() - 1
            if where[i] < 0:
                where[i] = len(cands)
                cands.append(i)
            else:
                r = where[i]
                last = cands.pop()
                if last != i:
                    cands[r] = last
                    where[last] = r
                where[i] = -1
    return played


_MASK64 = (1 << 64) - 1


def splitmix64(seed: int):
    """A function returning uniform floats in [0, 1) from the splitmix64 sequence of
    ``seed`` (Steele, Lea and Flood 2014): each draw is the top 53 bits of the next 64-bit
    output times 2**-53. ``_native.c`` implements the same generator bit for bit."""
    state = seed & _MASK64

    def draw() -> float:
        nonlocal state
        state = (state + 0x9E3779B97F4A7C15) & _MASK64
        z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        return ((z ^ (z >> 31)) >> 11) * (1.0 / 9007199254740992.0)

    return draw

