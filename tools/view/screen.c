/* elfemu-view: the window's layout.  At 1280x800: the memory map on the
 * left, the initial stack in the middle, registers over the code on the
 * right, the syscall log and the program's output along the bottom, then
 * the status line and the shortcuts.  Every size is a share of the window,
 * so any size the user drags it to works. */
#include <stdio.h>

#include "tools/view/view.h"

static const char *const SHORTCUTS =
    "s step  n step over  y to syscall  m to main  c/space run/pause  b breakpoint  f x87/SSE  "
    "l live stack  t thread  PgUp/PgDn scroll  click: pointer->target, code->breakpoint  q quit";

static void refresh_models(struct view *v)
{
    if (!v->have_bar || v->bar_gen != v->s->maps_gen) {
        mapbar_free(&v->bar);
        if (mapbar_build_vm(&v->bar, v->s->vm) == 0) {
            v->have_bar = true;
            v->bar_gen = v->s->maps_gen;
            if (v->map_selected >= (int)v->bar.n)
                v->map_selected = -1;
        }
    }
}

void view_draw(struct view *v)
{
    refresh_models(v);
    v->nhits = 0;
    SDL_SetRenderDrawColor(v->r, COL_BG.r, COL_BG.g, COL_BG.b, 255);
    SDL_RenderClear(v->r);
    int lh = v->font.h;
    int bottom_h = 2 * lh + 8;                  /* status + shortcuts */
    int logs_h = v->h * 18 / 100;
    int top_h = v->h - bottom_h - logs_h;
    int map_w = v->w * 28 / 100, stack_w = v->w * 42 / 100;
    /* The registers need two columns of "r10 " and 16 digits side by side
     * (a narrow window gives the map and the stack less instead). */
    int right_min = 2 * 21 * v->font.w + 16;
    if (v->w - map_w - stack_w < right_min && v->w > 2 * right_min) {
        map_w = (v->w - right_min) * 40 / 100;
        stack_w = v->w - right_min - map_w;
    }
    int right_x = map_w + stack_w, right_w = v->w - right_x;
    int regs_h = (v->s->bits == 64 ? 12 : 8) * lh + lh + 12;
    if (regs_h > top_h / 2)
        regs_h = top_h / 2;
    pane_map(v, (SDL_Rect){ 0, 0, map_w, top_h });
    if (v->show_live)
        pane_live(v, (SDL_Rect){ map_w, 0, stack_w, top_h });
    else
        pane_stack(v, (SDL_Rect){ map_w, 0, stack_w, top_h });
    pane_regs(v, (SDL_Rect){ right_x, 0, right_w, regs_h });
    if (v->show_fp)
        pane_fpregs(v, (SDL_Rect){ right_x, regs_h, right_w, top_h - regs_h });
    else
        pane_disasm(v, (SDL_Rect){ right_x, regs_h, right_w, top_h - regs_h });
    pane_syslog(v, (SDL_Rect){ 0, top_h, v->w * 60 / 100, logs_h });
    pane_output(v, (SDL_Rect){ v->w * 60 / 100, top_h, v->w - v->w * 60 / 100, logs_h });

    int y = top_h + logs_h + 3, max = v->w / v->font.w - 1;
    if (v->prompting) {
        draw_textf(v, 6, y, COL_ACCENT, max, "breakpoint at (address or symbol): %s_", v->prompt);
    } else {
        const char *state = v->s->exited                               ? "ended"
                            : v->s->goal != GOAL_NONE || v->s->posted ? "running"
                                                                      : "stopped";
        draw_textf(v, 6, y, COL_ACCENT, max, "[%s] %s", state, v->s->status);
    }
    draw_text(v, 6, y + lh + 2, COL_DIM, SHORTCUTS, max);
}
