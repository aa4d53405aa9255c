/* elfemu-view: the syscall log and the program's output, their last lines. */
#include <stdio.h>

#include "tools/view/view.h"

static void draw_log(struct view *v, SDL_Rect r, const char *title, const struct textlog *t,
                     const char *empty)
{
    SDL_Rect in = draw_pane(v, r, title);
    int lh = v->font.h, rows = in.h / lh, max = in.w / v->font.w;
    if (t->n == 0) {
        draw_text(v, in.x, in.y, COL_DIM, empty, max);
        return;
    }
    size_t first = t->n > (size_t)rows ? t->n - (size_t)rows : 0;
    for (size_t i = first; i < t->n; i++)
        draw_text(v, in.x, in.y + (int)(i - first) * lh, i + 1 == t->n ? COL_TEXT : COL_DIM,
                  textlog_line(t, i), max);
}

void pane_syslog(struct view *v, SDL_Rect r)
{
    char title[64];
    snprintf(title, sizeof(title), "System calls: --strace (%zu lines)", v->s->syslog->total);
    draw_log(v, r, title, v->s->syslog, "(none yet)");
}

void pane_output(struct view *v, SDL_Rect r)
{
    draw_log(v, r, "Program output (fd 1 and 2)", v->s->output, "(nothing written yet)");
}
