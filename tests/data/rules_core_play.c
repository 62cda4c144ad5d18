/* A few moves on the plain C rules core (margo_gtp/engine/rules_*.c), built with no Python:
 * each step prints its name and the status the core answers. tests/test_plain_c_rules.py
 * compiles it with the system C compiler and reads the lines. */
#include <stdio.h>
#include "rules_core.h"

static int play(State *s, int code, int c) {
    Res r;
    int why = check_play(s, code, c, &r);
    return why != RULES_OK ? why : commit(s, code, c, code >= 0 ? &r : NULL);
}

static double failing_draw(void *unused) { (void)unused; return -1.0; }
static double undoing_draw(void *s) {
    if (((State *)s)->nstack) undo((State *)s);
    return 0.5;
}

static void rules_of(State *s, const Geometry *g, int top_level, int allow_pass) {
    memset(s, 0, sizeof(*s));
    s->geo = g;
    s->bridge_cutting = 1;
    s->single_pass = 1; /* own_freedomless_group="illegal" */
    s->top_level = top_level;
    s->allow_pass = allow_pass;
}

int main(void) {
    Geometry g;
    printf("geometry %d\n", geometry_init(&g, 3));
    printf("points %d\n", g.count);
    SplitMix keys = {12345};
    for (int i = 0; i < g.count; i++) {
        g.zob[0][i] = (uint64_t)(draw_sm(&keys) * 9007199254740992.0) * 2048 + 1;
        g.zob[1][i] = (uint64_t)(draw_sm(&keys) * 9007199254740992.0) * 2048 + 3;
    }
    g.ztm[0] = 5;
    g.ztm[1] = 7;
    State a, b, c;
    rules_of(&a, &g, 2, 1);
    printf("start %d\n", state_start(&a, 1));
    printf("black_b1 %d\n", play(&a, 1, 1));
    printf("white_on_b1 %d\n", play(&a, 1, 0));
    printf("white_unsupported %d\n", play(&a, 9, 0));
    printf("white_off_board %d\n", play(&a, 14, 0));
    printf("white_swap %d\n", play(&a, CODE_SWAP, 0));
    printf("white_c3 %d\n", play(&a, 8, 0));
    printf("black_a2 %d\n", play(&a, 3, 1));
    printf("white_suicide %d\n", play(&a, 0, 0));
    printf("white_pass %d\n", play(&a, CODE_PASS, 0));
    printf("black_pass %d\n", play(&a, CODE_PASS, 1));
    printf("white_after_end %d\n", play(&a, 2, 0));
    undo(&a);
    printf("black_passes_again %d\n", play(&a, CODE_PASS, 1));
    undo(&a);
    printf("copy %d\n", state_copy(&b, &a));
    printf("copy_plays %d\n", play(&b, 2, 0));
    printf("plies %d %d\n", (int)a.nstack, (int)b.nstack);
    SplitMix gen = {1};
    long played = playout(&b, draw_sm, &gen, 50);
    printf("playout %d\n", played > 0 && b.nstack == 5 + played);
    printf("failing_draw %ld\n", playout(&a, failing_draw, NULL, 10));
    printf("undoing_draw %ld\n", playout(&a, undoing_draw, &a, 10));
    rules_of(&c, &g, 0, 0);
    printf("start_low %d\n", state_start(&c, 0));
    W white[MAXW] = {0}, black[MAXW] = {0};
    SETB(white, 0);
    SETB(black, 0);
    printf("load_both %d\n", state_load(&c, white, black));
    memset(black, 0, sizeof(black));
    SETB(white, 9);
    printf("load_unsupported %d\n", state_load(&c, white, black));
    CLRB(white, 9);
    SETB(white, 3);
    SETB(black, 1);
    SETB(black, 4);
    printf("load %d\n", state_load(&c, white, black));
    printf("root %d\n", set_root(&c, 0));
    printf("white_pass_off %d\n", play(&c, CODE_PASS, 0));
    printf("white_above_top %d\n", play(&c, 9, 0));
    state_free(&a);
    state_free(&b);
    state_free(&c);
    geometry_free(&g);
    return 0;
}
