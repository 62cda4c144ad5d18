"""The search's settings in one shape: the tunables block and :class:`SearchConfig`.

Every setting of the MCTS search lives here once: a module constant of the tunables block
below is its default, and a :class:`SearchConfig` field (of the same meaning, in lower
case) carries it into a search. The spec reader (:mod:`.spec`, ``mcts:c=0.3,...``) fills a
config from text; Python callers pass the same names as keywords (``MctsPlayer(uct_c=0.3)``
or ``MctsPlayer(config=SearchConfig(uct_c=0.3))``). The config is frozen and checked once,
when it is made (:meth:`SearchConfig.__post_init__`); the searchers read it and never
change it.

Both searchers read the one config: the Python tree (:mod:`.python_tree`, the reference)
attribute by attribute, and the C tree (``_search.c``) by field name too -- the glue reads
``config.uct_c``, ``config.rave_k``, ... once per search into the plain C struct its hot loop
reads (``read_search_params``), so a field renamed here and not there is a ``TypeError``
naming the field, not a silently shifted tuple.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["SearchConfig", "SETTINGS", "TUNABLES"]

# ---------------------------------------------------------------------------------------
# Tunables (one block; each is the default of the SearchConfig field of the same name in
# lower case, see SearchConfig; the comments say why each has its value)
DEFAULT_SECONDS = 1.0         # thinking time per move when neither spec nor budget sets one
UCT_C = 0.2                   # exploration constant of the UCT term c * sqrt(ln N / n) (0.4 until
                              # the 9x9 runs of docs/strength.md: the search was too flat to read tactics)
RAVE_EQUIVALENCE = 300        # visits at which UCT and AMAF values weigh equally (Gelly-Silver k)
PRIOR_VISITS = 1              # virtual visits each new child starts with ...
PRIOR_VALUE = 0.5             # ... at this win rate (keeps unvisited children comparable)
EXPAND_VISITS = 2             # a leaf gets children on its this-many-th visit (1 = at once)
PLAYOUT_MOVES = 10            # random moves per playout before evaluating (0 = none, -1 = to the end)
PLAYOUT_CAP = 2000            # a playout "to the end" stops here (ko_rule=none games can cycle)
EVALUATOR = "heuristic"       # how a playout's last position is scored: heuristic | territory
PLAYOUT_POLICY = "light"      # how playout moves are chosen: light (uniform) | heavy (playout_policy.py)
HEAVY_TACTICS = 0.9           # heavy policy: chance of looking for a tactical reply at each move
EVAL_SCALE_MIN = 1.5          # heuristic margin (balls) worth one logistic unit on a full board ...
EVAL_SCALE_PER_POINT = 0.15   # ... plus this per empty board-plane point (early leads are less sure)
FREEDOM_VALUE = 0.3           # balls' worth of one freedom in the heuristic margin
SHORT_OF_FREEDOMS_LOSS = 0.25 # share of a group with two freedoms counted as lost (weak shape)
GROUP_COST = 0.5              # balls' worth of each separate group (connected shape is stronger)
MAX_LADDER_DEPTH = 8          # the deepest ladder reading a spec may ask for (ladder=N; the
                              # attacker tries both freedoms, so the work can double per atari)
LADDER_DEPTH = 0              # ataris the evaluator reads ahead to judge a group down to one or two
                              # freedoms (0: only the escape move itself, see evaluate.can_escape)
PRIOR_DEPTH = 1               # heuristic priors for nodes this deep (0 = root only, -1 = none)
PRIOR_HEURISTIC_VISITS = 10   # virtual visits of a heuristic prior
PRIOR_TEMPERATURE = 4.0       # heuristic score gap (a capture is 10) that divides the prior by e
PRIOR_LOW = 0.1               # prior win rate of the worst-looking moves ...
PRIOR_HIGH = 0.9              # ... and of the heuristic's favourite
PATTERNS = False              # learned move patterns in the priors (mcts:patterns=on; off: the 9x9 SPRT
                              # did not accept them, +10 Elo over 200 games, docs/patterns.md)
PATTERN_MIX = 0.25            # with patterns: prior = (1 - mix) * heuristic prior + mix * pattern prior
                              # (0.25 predicted held-out self-play moves best, docs/patterns.md)
RESIGN_THRESHOLD = 0.0        # resign when the best move's win rate is below this (0 = never, the
                              # default: on 9x9 against heuristic, 7 of 48 games that mcts won had
                              # 3 moves in a row below 0.5% first, one of them 33 moves in a row;
                              # MarGo's late mass captures overturn what the evaluator calls lost,
                              # docs/strength.md#resignation)
RESIGN_MIN_VISITS = 400       # ... and the root has at least this many visits (when resign > 0)
RESIGN_MOVES = 3              # ... at this many of the colour's moves in a row
EARLY_STOP = True             # stop when the most visited move can no longer be overtaken
DECIDED_CHECK_EVERY = 8       # simulations between early-stop checks (the clock is read every one)
PROGRESS_SECONDS = 0.1        # a stoppable search (pondering, analysis) reports progress this often
C_TREE_SHORTEST_INTERVAL = 1e-6  # seconds: the C tree's progress interval for 0, shorter than any
                              # simulation, so it reports before each of its first thread's ones
MAX_THREADS = 256             # search threads on the one C tree (mcts:threads=N)
# The smallest pool cap (mcts:max_nodes): the root and one child per move of the largest
# board (19x19: 2,470 points, swap, pass), so the root's children always fit.
MIN_MAX_NODES = 1 + 2470 + 2
MAX_MAX_NODES = 2**31 - 1     # node indices of 31 bits

#: The evaluators and playout policies a config may name (a Python caller may also give a
#: callable evaluator: only the Python tree runs it).
EVALUATOR_NAMES = ("heuristic", "territory")
POLICY_NAMES = ("light", "heavy")
CORE_NAMES = ("native", "python")


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value and abs(value) != float("inf")


@dataclass(frozen=True)
class Bounds:
    """What a field accepts: ``allows(value)``, and in ``words`` the bounds a refusal names
    (``FIELD must be WORDS: VALUE``; the words of the spec's refusals, which read the same
    fields from text first)."""

    allows: Callable[[object], bool]
    words: str

    @classmethod
    def between(cls, low: float | None, high: float | None, words: str, whole: bool = False) -> "Bounds":
        def allows(value: object) -> bool:
            if not (_whole(value) if whole else _number(value)):
                return False
            return (low is None or value >= low) and (high is None or value <= high)  # type: ignore[operator]
        return cls(allows, words)

    def or_none(self) -> "Bounds":
        """These bounds, or None (the field's "not set")."""
        return Bounds(lambda value: value is None or self.allows(value), self.words)


def _one_of(names: tuple[str, ...]) -> Bounds:
    return Bounds(lambda value: value in names, f"one of {', '.join(names)}")


# The bounds of the checked fields, each written once (most are shared).
FINITE_AT_LEAST_0 = Bounds.between(0, None, "a finite number >= 0")
FINITE_ABOVE_0 = Bounds(lambda value: _number(value) and value > 0, "a finite number > 0")  # type: ignore[operator]
WHOLE_AT_LEAST_0 = Bounds.between(0, None, "a whole number >= 0", whole=True)
WHOLE_AT_LEAST_1 = Bounds.between(1, None, "a whole number >= 1", whole=True)
MINUS_1_OR_WHOLE = Bounds.between(-1, None, "-1 or a whole number >= 0", whole=True)
SHARE = Bounds.between(0, 1, "between 0 and 1")
LADDER_DEPTHS = Bounds.between(0, MAX_LADDER_DEPTH, f"between 0 and {MAX_LADDER_DEPTH}", whole=True)
POOL_CAPS = Bounds.between(MIN_MAX_NODES, MAX_MAX_NODES, f"a whole number from {MIN_MAX_NODES} to {MAX_MAX_NODES}", whole=True)
EVALUATORS = Bounds(lambda value: value in EVALUATOR_NAMES or callable(value),
                    f"one of {', '.join(EVALUATOR_NAMES)} (or a callable)")
POLICIES = _one_of(POLICY_NAMES)
CORES = _one_of(CORE_NAMES)


def checked(default: Any, bounds: Bounds) -> Any:
    """A field whose value :meth:`SearchConfig.__post_init__` checks against ``bounds``."""
    return dataclasses.field(default=default, metadata={"bounds": bounds})


def at_least_1(default: int) -> Any:
    """A count of which less than 1 counts as 1 (a leaf expanded at its first visit, one move
    in a row, one thread)."""
    return dataclasses.field(default=default, metadata={"least": 1})


@dataclass(frozen=True)
class SearchConfig:
    """Every setting of one MCTS player's search (defaults: the tunables block above).

    The first group are the player's options, each a ``mcts:`` spec option (see
    :data:`.spec.OPTIONS` for the spec key of each); the second group are the tunables that
    have no spec option (tests, ``scripts/tune`` and callers may still set them). A config
    is checked when it is made: a value out of a field's :class:`Bounds` is a ``ValueError``
    of one line, ``FIELD must be BOUNDS: VALUE``; ``expand_visits``, ``resign_moves`` and
    ``threads`` below 1 count as 1. ``ladder_depth=None`` reads :data:`LADDER_DEPTH` at each
    evaluation (:attr:`ladder`). ``uct_c`` and ``rave_k`` are taken as they are (a negative ``rave_k``
    fails the search itself, which the tests use to reach its error path).
    """

    # -- the player's options (mcts:... spec keys)
    # the default thinking time per move (None: DEFAULT_SECONDS unless a playout budget is set)
    seconds: float | None = checked(None, FINITE_AT_LEAST_0.or_none())
    playouts: int | None = checked(None, WHOLE_AT_LEAST_1.or_none())
    uct_c: float = UCT_C
    rave_k: float = RAVE_EQUIVALENCE
    playout_moves: int = checked(PLAYOUT_MOVES, MINUS_1_OR_WHOLE)
    evaluator: str | Callable[..., float] = checked(EVALUATOR, EVALUATORS)
    playout_policy: str = checked(PLAYOUT_POLICY, POLICIES)
    heavy_tactics: float = checked(HEAVY_TACTICS, SHARE)
    ladder_depth: int | None = checked(None, LADDER_DEPTHS.or_none())
    expand_visits: int = at_least_1(EXPAND_VISITS)
    prior_depth: int = checked(PRIOR_DEPTH, MINUS_1_OR_WHOLE)
    prior_visits: int = checked(PRIOR_HEURISTIC_VISITS, WHOLE_AT_LEAST_0)
    prior_temp: float = checked(PRIOR_TEMPERATURE, FINITE_ABOVE_0)
    patterns: bool = PATTERNS
    pattern_mix: float = checked(PATTERN_MIX, SHARE)
    pattern_weights: str | None = None    # None: the shipped weights (with patterns on)
    resign: float = checked(RESIGN_THRESHOLD, SHARE)
    resign_min_visits: int = checked(RESIGN_MIN_VISITS, WHOLE_AT_LEAST_0)
    resign_moves: int = at_least_1(RESIGN_MOVES)
    reuse: bool = True
    early_stop: bool = EARLY_STOP
    threads: int = at_least_1(1)          # search threads of the C tree (the Python tree runs one)
    max_nodes: int | None = checked(None, POOL_CAPS.or_none())  # the C tree's pool cap (None: native_search.default_max_nodes())
    core: str | None = checked(None, CORES.or_none())  # search a copy on this rules core (None: the board's own)
    temperature: float = checked(0.0, FINITE_AT_LEAST_0)  # the move choice: 0 the most visited, above 0 drawn by visits ** (1/T) (levels.py)
    # -- tunables without a spec option
    uct_prior_visits: int = checked(PRIOR_VISITS, WHOLE_AT_LEAST_0)
    prior_value: float = PRIOR_VALUE
    prior_low: float = PRIOR_LOW
    prior_high: float = PRIOR_HIGH
    playout_cap: int = checked(PLAYOUT_CAP, WHOLE_AT_LEAST_1)
    decided_check_every: int = checked(DECIDED_CHECK_EVERY, WHOLE_AT_LEAST_1)
    default_seconds: float = checked(DEFAULT_SECONDS, FINITE_AT_LEAST_0)
    eval_scale_min: float = EVAL_SCALE_MIN
    eval_scale_per_point: float = EVAL_SCALE_PER_POINT
    freedom_value: float = FREEDOM_VALUE
    short_of_freedoms_loss: float = SHORT_OF_FREEDOMS_LOSS
    group_cost: float = GROUP_COST

    def __post_init__(self) -> None:
        for name, least in _LEAST.items():
            object.__setattr__(self, name, max(least, getattr(self, name)))
        for name, bounds in _BOUNDS.items():
            value = getattr(self, name)
            if not bounds.allows(value):
                raise ValueError(f"{name} must be {bounds.words}: {value!r}")

    @property
    def ladder(self) -> int:
        """The ataris the evaluator reads ahead: ``ladder_depth``, or :data:`LADDER_DEPTH` as
        it is now when that is None (the C evaluator reads this by name too)."""
        return LADDER_DEPTH if self.ladder_depth is None else self.ladder_depth

    def replace(self, **changes: Any) -> "SearchConfig":
        """A copy with ``changes`` (checked as a new config is)."""
        return dataclasses.replace(self, **changes)


#: The fields :meth:`SearchConfig.__post_init__` raises to a least value (:func:`at_least_1`)
#: and those it checks (:func:`checked`), in field order.
_LEAST: dict[str, int] = {field.name: field.metadata["least"] for field in dataclasses.fields(SearchConfig)
                          if "least" in field.metadata}
_BOUNDS: dict[str, Bounds] = {field.name: field.metadata["bounds"] for field in dataclasses.fields(SearchConfig)
                              if "bounds" in field.metadata}

#: The player's options (the fields a spec may set) and the tunables, by field name: the
#: tunables are the fields from ``uct_prior_visits`` on.
_NAMES = tuple(field.name for field in dataclasses.fields(SearchConfig))
SETTINGS = _NAMES[:_NAMES.index("uct_prior_visits")]
TUNABLES = _NAMES[_NAMES.index("uct_prior_visits"):]
