/* elfemu-view: the initial stack, drawn like the figure of the seed
 * article: one row per slot from the top of [stack] down, the groups named
 * in the left margin, the bands separated by dashed and dotted lines, and
 * an arrow from every pointer to the slot it points at, each arrow in a
 * lane of its own (the shortest nearest the text) so they nest instead of
 * crossing.  Rows scroll; a click on a pointer selects its target. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tools/view/view.h"

#define LANE_W 7

/* The margin's name for the group a slot starts (NULL: same group). */
static const char *group_name(const struct stackfig *f, size_t i)
{
    static const char *const names[] = {
        [SF_END_MARKER] = "", [SF_EXECFN] = "execfn", [SF_ENV_STRING] = "env",
        [SF_ARG_STRING] = "args", [SF_ALIGN_GAP] = "", [SF_PLATFORM] = "auxv data",
        [SF_RANDOM] = "auxv data", [SF_PADDING] = "auxv data", [SF_AUXV] = "auxv",
        [SF_ENVP] = "envp[]", [SF_ENVP_NULL] = "envp[]", [SF_ARGV] = "argv[]",
        [SF_ARGV_NULL] = "argv[]", [SF_ARGC] = "argc",
    };
    const char *n = names[f->slots[i].kind];
    if (i > 0 && !strcmp(names[f->slots[i - 1].kind], n))
        return NULL;
    return n;
}

/* A row's y inside the pane, or the edge it is beyond. */
static int row_y(int row, int top, const SDL_Rect *in, int rows, int lh, bool *visible)
{
    *visible = row >= top && row < top + rows;
    if (row < top)
        return in->y;
    if (row >= top + rows)
        return in->y + rows * lh;
    return in->y + (row - top) * lh + lh / 2;
}

void pane_stack(struct view *v, SDL_Rect r)
{
    char title[96];
    snprintf(title, sizeof(title), "Initial stack (as the loader built it, %d-byte words)",
             v->fig.bits / 8);
    SDL_Rect in = draw_pane(v, r, title);
    const struct stackfig *f = &v->fig;
    if (f->n == 0)
        return;
    int lh = v->font.h, fw = v->font.w;
    /* Rows: the top line, then one per slot. */
    int row_of[4096];
    int nrows = 1;
    for (size_t i = 0; i < f->n && i < 4096; i++)
        row_of[i] = nrows++;
    int rows = in.h / lh;
    if (v->fig_top > nrows - rows)
        v->fig_top = nrows - rows;
    if (v->fig_top < 0)
        v->fig_top = 0;
    int top = v->fig_top;

    /* Columns: margin, address, text, then the arrow lanes. */
    int margin_x = in.x, addr_x = in.x + 10 * fw;
    int addr_chars = f->bits == 64 ? 16 : 12;
    int text_x = addr_x + addr_chars * fw;
    int narrows = 0;
    for (size_t i = 0; i < f->n; i++)
        narrows += f->slots[i].target >= 0;
    /* The lanes take at most a quarter of the pane (a big environment has
     * dozens of arrows); beyond that, arrows share the outermost lane. */
    int lanes_w = (narrows + 1) * LANE_W;
    if (lanes_w > in.w / 4)
        lanes_w = in.w / 4;
    int text_chars = (in.x + in.w - text_x - lanes_w) / fw;
    if (text_chars < 20)
        text_chars = 20;
    int join_x = text_x + text_chars * fw + 4;  /* where arrows leave and arrive */

    if (top == 0)
        draw_textf(v, addr_x, in.y, COL_DIM, -1, "---------- top of [stack]: %#" PRIx64, f->top);
    uint64_t rsp = v->s->regs.gpr[ELFEMU_RSP];
    for (size_t i = 0; i < f->n && i < 4096; i++) {
        const struct stackfig_slot *s = &f->slots[i];
        int row = row_of[i];
        if (row < top || row >= top + rows)
            continue;
        int y = in.y + (row - top) * lh;
        /* A new band: a dashed line (strings | auxv data) or a dotted one,
         * as in the seed's figure. */
        if (i > 0 && s->band != f->slots[i - 1].band) {
            int dash = s->band == SF_BAND_AUXV_DATA ? 6 : 2;
            for (int x = addr_x; x < join_x; x += 2 * dash)
                draw_line(v, x, y, x + dash - 1, y, COL_DIM);
        }
        SDL_Rect line = { in.x, y, in.w, lh };
        if ((int)i == v->fig_selected)
            draw_fill(v, line, COL_SELECT);
        view_add_hit(v, line, HIT_STACK_SLOT, i);
        const char *g = group_name(f, i);
        if (g)
            draw_text(v, margin_x, y, COL_TITLE, g, 9);
        else
            draw_line(v, margin_x + 2, y, margin_x + 2, y + lh, COL_TITLE);
        draw_textf(v, addr_x, y, COL_DIM, -1, "%#" PRIx64 ":", s->addr);
        SDL_Color c = s->kind == SF_AUXV || s->kind == SF_ARGV || s->kind == SF_ENVP ||
                              s->kind == SF_ARGC ? COL_TEXT : COL_ACCENT;
        if (s->kind == SF_END_MARKER || s->kind == SF_ALIGN_GAP || s->kind == SF_PADDING ||
            s->kind == SF_ARGV_NULL || s->kind == SF_ENVP_NULL)
            c = COL_DIM;
        draw_text(v, text_x, y, c, s->text, text_chars);
        if (rsp >= s->addr && rsp < s->addr + s->size)
            draw_text(v, join_x + 2, y, COL_ARROW, "<- rsp", -1);
    }

    /* The arrows, shortest first, each in the first lane free over its span. */
    struct { int from, to, lo, hi; } a[512];
    int na = 0;
    for (size_t i = 0; i < f->n && i < 4096 && na < 512; i++) {
        int t = f->slots[i].target;
        if (t < 0)
            continue;
        int from = row_of[i], to = row_of[t];
        a[na++] = (typeof(a[0])){ from, to, from < to ? from : to, from < to ? to : from };
    }
    for (int i = 1; i < na; i++)    /* insertion sort by span */
        for (int k = i; k > 0 && a[k].hi - a[k].lo < a[k - 1].hi - a[k - 1].lo; k--) {
            typeof(a[0]) t = a[k];
            a[k] = a[k - 1];
            a[k - 1] = t;
        }
    int lane_of[512];
    int max_lane = (in.x + in.w - join_x) / LANE_W - 1;
    for (int i = 0; i < na; i++) {
        int lane = 0;
        for (bool clash = true; clash && lane < max_lane; ) {
            clash = false;
            for (int k = 0; k < i; k++)
                if (lane_of[k] == lane && a[k].lo <= a[i].hi && a[i].lo <= a[k].hi) {
                    clash = true;
                    lane++;
                    break;
                }
        }
        lane_of[i] = lane;
        bool vf, vt;
        int yf = row_y(a[i].from, top, &in, rows, lh, &vf);
        int yt = row_y(a[i].to, top, &in, rows, lh, &vt);
        if (!vf && !vt && (a[i].hi < top || a[i].lo >= top + rows))
            continue;
        int x = join_x + 8 + lane * LANE_W;
        if (vf)
            draw_line(v, join_x, yf, x, yf, COL_ARROW);
        draw_line(v, x, yf, x, yt, COL_ARROW);
        if (vt) {
            draw_line(v, join_x, yt, x, yt, COL_ARROW);
            draw_arrow_head(v, join_x, yt, -1, COL_ARROW);
        }
    }
}
