# The worked examples of /work/shared/positions.md, set up with margo-setup and
# then played. Each example starts from a fresh board of its size (boardsize clears).
# Expectations check the answer to the move and the whole ball map after it. Moves the
# rules forbid are shown absent from margo-legal_moves here; that `play` refuses them
# with `? illegal move` is in positions.errors (gogui-regress fails every `?` answer).

# T1: simple capture at board level
boardsize 5
margo-setup w B1:1 b A1:1
101 play w A2:1
#? []
102 margo-board
#? [.*"balls":\{"B1:1":"W","A2:1":"W"\},"zombies":\[\],"buried":\[\],"captured":\{"W":1,"B":0\},"moves":1,.*]

# T2: a stacked ball links the group to a board-level freedom
boardsize 4
margo-setup w B2:1 w C1:1 b A1:1 b B1:1 b B1:2 b C2:1
201 play w A2:1
#? []
202 margo-board
#? [.*"balls":\{"A1:1":"B","B1:1":"B","C1:1":"W","A2:1":"W","B2:1":"W","C2:1":"B","B1:2":"B"\},"zombies":\[\].*]

# T3: the stacked link leads nowhere: the stacked ball is captured too
boardsize 4
margo-setup w B2:1 w C1:1 w C2:1 b A1:1 b B1:1 b B1:2
301 play w A2:1
#? []
302 margo-board
#? [.*"balls":\{"C1:1":"W","A2:1":"W","B2:1":"W","C2:1":"W"\},"zombies":\[\],"buried":\[\],"captured":\{"W":3,"B":0\}.*]

# T4: the captured ball under the enemy ball stays; once A1:1 is lifted it has a
# freedom again (A1:1), so it is an ordinary ball, not a zombie (rules.md R15)
boardsize 4
margo-setup w B1:2 w B2:1 w C1:1 w C2:1 b A1:1 b B1:1
401 play w A2:1
#? []
402 margo-board
#? [.*"balls":\{"B1:1":"B","C1:1":"W","A2:1":"W","B2:1":"W","C2:1":"W","B1:2":"W"\},"zombies":\[\],.*"captured":\{"W":1,"B":0\}.*]
403 showboard
#? [Level 2\n.*  1 \. O \. 1\n.*Level 1\n.*  2 O O O \. 2\n  1 \. X O \. 1\n.*]

# Z1 (ours): a freedomless group pinned by a ball resting on it stays as zombies
boardsize 4
margo-setup b A1:1 b A2:1 w B1:1 w B2:1 w A1:2
411 play w A3:1
#? []
412 margo-board
#? [.*"balls":\{"A1:1":"B","B1:1":"W","A2:1":"B","B2:1":"W","A3:1":"W","A1:2":"W"\},"zombies":\["A1:1","A2:1"\],.*"captured":\{"W":0,"B":0\}.*]
413 final_status_list dead
#? [A1:1 A2:1]
414 final_status_list alive
#? [B1:1 B2:1 A3:1 A1:2]
415 showboard
#? [.*  2 x O \. \. 2\n  1 x O \. \. 1\n.*Zombies \(o x\): A1:1 A2:1.*]
416 margo-score
#? [W 4 B 2]

# T6: over/under cut splits a group; one half is captured
boardsize 4
margo-setup w B2:1 w C2:1 w D1:1 w D2:1 b B1:1 b B1:2 b B2:2 b B3:1 b C1:1 b C3:1
margo-to_move b
601 play b D3:1
#? []
602 margo-board
#? [.*"to_move":"W","balls":\{"B1:1":"B","C1:1":"B","B2:1":"W","C2:1":"W","B3:1":"B","C3:1":"B","D3:1":"B","B1:2":"B","B2:2":"B"\},.*]

# T6b: a single crossing ball does not cut
boardsize 4
margo-setup w B2:1 w C2:1 w D1:1 w D2:1 b B1:1 b B1:2 b B3:1 b C1:1 b C3:1
margo-to_move b
651 play b D3:1
#? []
652 margo-board
#? [.*"balls":\{"B1:1":"B","C1:1":"B","D1:1":"W","B2:1":"W","C2:1":"W","D2:1":"W","B3:1":"B","C3:1":"B","D3:1":"B","B1:2":"B"\},.*]

# T10a: stacking needs a full 2x2 support
boardsize 4
margo-setup b A1:1 b A2:1 b B1:1
margo-to_move b
1001 margo-legal_moves b
#? [!.*A1:2.*]
1002 margo-board
#? [.*"to_move":"B","balls":\{"A1:1":"B","B1:1":"B","A2:1":"B"\},.*"moves":0,.*]

# T11: suicide is forbidden
boardsize 4
margo-setup b A2:1 b B1:1
1101 margo-legal_moves w
#? [!.*A1:1.*]
1102 margo-board
#? [.*"to_move":"W","balls":\{"B1:1":"B","A2:1":"B"\},.*"moves":0,.*]

# T12: looks like suicide but captures
boardsize 4
margo-setup w A3:1 w B2:1 w C1:1 b A2:1 b B1:1
1201 play w A1:1
#? []
1202 margo-board
#? [.*"balls":\{"A1:1":"W","C1:1":"W","B2:1":"W","A3:1":"W"\},.*"captured":\{"W":2,"B":0\}.*]

# T14: simple ko: immediate recapture repeats the position
boardsize 4
margo-setup w A1:1 w B2:1 b B1:1 b C2:1 b D1:1
1401 play w C1:1
#? []
1402 margo-legal_moves b
#? [!.*B1:1.*]
1403 margo-board
#? [.*"to_move":"B","balls":\{"A1:1":"W","C1:1":"W","D1:1":"B","B2:1":"W","C2:1":"B"\},.*"moves":1,.*]
