# Every failure text the engine gives (gtp.md section 1; referees compare them literally).
# `cannot score` is never given: final_score always answers (an estimate mid-game).
# `internal error` needs a broken handler: see tests/test_gtp_framing.py.

1 xyzzy
#? [\? unknown command]
2 PROTOCOL_VERSION
#? [\? unknown command]
3 Play w a1
#? [\? unknown command]

10 boardsize x
#? [\? syntax error]
11 play w
#? [\? syntax error]
12 play red a1
#? [\? syntax error]
13 play w i5
#? [\? syntax error]
14 play w a10
#? [\? syntax error]
15 play w a1:10
#? [\? syntax error]
16 play w resign
#? [\? syntax error]
17 genmove
#? [\? syntax error]
18 komi six
#? [\? syntax error]
19 margo-setup w
#? [\? syntax error]
20 margo-set_rules swap=maybe
#? [\? syntax error]
21 margo-set_rules nonsense=1
#? [\? syntax error]
22 final_status_list zombie
#? [\? syntax error]
23 time_settings 1 2
#? [\? syntax error]
24 kgs-time_settings fischer 1 2
#? [\? syntax error]
25 name please
#? [\? syntax error]

30 boardsize 1
#? [\? unacceptable size]
31 boardsize 20
#? [\? unacceptable size]

40 undo
#? [\? cannot undo]

50 play w e5
#? []
51 play b e5
#? [\? illegal move]
52 play b e5:2
#? [\? illegal move]
53 play b pass
#? [\? illegal move]
54 play b swap
#? [\? illegal move]
55 margo-setup b e5
#? [\? illegal move]

60 margo-set_rules swap=on
#? [\? cannot change rules now]

70 loadsgf /nonexistent/game.sgf
#? [\? cannot load file]
71 printsgf /
#? [\? cannot save file]

# nothing above changed the position
80 margo-board
#? [\{"size":9,"to_move":"B","balls":\{"E5:1":"W"\},"zombies":\[\],"buried":\[\],"captured":\{"W":0,"B":0\},"moves":1,"over":false\}]
