# Every command of gtp.md sections 3 and 4 (except margo-analyze), succeeding.
# Vertex answers are upper case with the level; colours answer W/B.

1 protocol_version
#? [2]
2 name
#? [margo-gtp]
3 version
#? [\d+\.\d+\.\d+]
4 known_command margo-setup
#? [true]
5 known_command xyzzy
#? [false]
7 cputime
#? [[0-9]+\.[0-9]{3}]
6 list_commands
#? [boardsize\nclear_board\ncputime\nfinal_score\nfinal_status_list\ngenmove\ngogui-analyze_commands\nkgs-time_settings\nknown_command\nkomi\nlist_commands\nloadsgf\nmargo-analyze\nmargo-analyze_snapshot\nmargo-board\nmargo-genmove_analyze\nmargo-get_rules\nmargo-legal_moves\nmargo-level\nmargo-ownership\nmargo-ownership_kind\nmargo-score\nmargo-set_limit\nmargo-set_rules\nmargo-setup\nmargo-to_move\nname\nplay\nprintsgf\nprotocol_version\nquit\nreg_genmove\nshowboard\ntime_left\ntime_settings\nundo\nversion]

10 boardsize 3
#? []
11 margo-get_rules
#? [\{"size":3,"first_player":"white",.*"max_level":2,.*"komi":0\.0\}]
12 komi 0.5
#? []
13 margo-get_rules
#? [.*"komi":0\.5\}]
14 margo-set_rules ko_rule=simple scoring=territory
#? []
15 margo-get_rules
#? [.*"ko_rule":"simple","ko_position":"full","scoring":"territory",.*]
16 margo-set_rules scoring=balls
#? []

# play (any colour, any order, any case), then look at the position
20 play w b2
#? []
21 play B a1:1
#? []
22 play b A2
#? []
23 margo-to_move
#? [W]
24 margo-board
#? [\{"size":3,"to_move":"W","balls":\{"A1:1":"B","A2:1":"B","B2:1":"W"\},"zombies":\[\],"buried":\[\],"captured":\{"W":0,"B":0\},"moves":3,"over":false\}]
25 margo-legal_moves
#? [B1:1 C1:1 C2:1 A3:1 B3:1 C3:1]
26 margo-legal_moves b
#? [B1:1 C1:1 C2:1 A3:1 B3:1 C3:1]
27 margo-score
#? [W 1 B 2]
28 final_score
#? [B\+0\.5]
29 final_status_list alive
#? [A1:1 A2:1 B2:1]
30 final_status_list dead
#? []
31 final_status_list seki
#? []
32 showboard
#? [Level 1\n    A B C\n  3 \. \. \. 3\n  2 X O \. 2\n  1 X \. \. 1\n    A B C\nWhite to move; moves played: 3\nBalls: White \(O\) 1, Black \(X\) 2\nCaptured by: White 0, Black 0]

# undo takes back one move at a time
40 undo
#? []
41 margo-board
#? [.*"to_move":"W","balls":\{"A1:1":"B","B2:1":"W"\},.*"moves":2,.*]

# genmove plays a legal move and answers it; reg_genmove only answers
50 reg_genmove b
#? [[A-C][1-3]:1]
51 margo-score
#? [W 1 B 1]
52 genmove b
#? [[A-C][1-3]:1]
53 margo-score
#? [W 1 B 2]

# a stacked ball (level 2) and its picture
60 clear_board
#? []
61 margo-setup w a1 w b1 b a2 b b2
#? []
62 play w a1:2
#? []
63 showboard
#? [Level 2\n    A B\n  2 \. \. 2\n  1 O \. 1\n    A B\nLevel 1\n.*White \(O\) 3, Black \(X\) 2.*]
64 margo-to_move b
#? []
65 margo-to_move
#? [B]

# a full 3x3 pyramid: the top ball A1:3 buries B2:1 (straight below it, two levels down);
# no empty board point is left, so every other ball is a zombie and the game is over
66 clear_board
#? []
67 margo-setup w a1 b b1 w c1 b a2 w b2 b c2 w a3 b b3 w c3 w a1:2 b b1:2 b a2:2 w b2:2 w a1:3
#? []
68 showboard
#? [Level 3\n    A\n  1 O 1\n    A\nLevel 2\n    A B\n  2 x o 2\n  1 o x 1\n    A B\nLevel 1\n    A B C\n  3 o x o 3\n  2 x O x 2\n  1 o x o 1\n.*Zombies \(o x\): A1:1 B1:1 C1:1 A2:1 C2:1 A3:1 B3:1 C3:1 A1:2 B1:2 A2:2 B2:2\nBuried: B2:1\nGame over: W\+2\.5]
69 margo-board
#? [.*"buried":\["B2:1"\],.*"over":true\}]
690 final_score
#? [W\+2\.5]

# clocks are accepted and stored
70 time_settings 300 30 5
#? []
71 time_left white 120 0
#? []
72 kgs-time_settings byoyomi 600 30 5
#? []
73 kgs-time_settings canadian 600 300 25
#? []
74 kgs-time_settings absolute 600
#? []
75 kgs-time_settings none
#? []

80 gogui-analyze_commands
#? [string/Board \(JSON\)/margo-board\n.*]
81 printsgf
#? [\(;FF\[4\].*GM\[77\].*SZ\[3\].*\)]
