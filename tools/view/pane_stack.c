/* elfemu-view: the initial stack, drawn like the figure of the seed
 * article: one row per slot from the top of [stack] down, the groups named
 * in the left margin, the bands separated by dashed and dotted lines, and
 * an arrow from every pointer to the slot it points at, each arrow in a
 * lane of its own (the shortest nearest the text) so they nest instead of
 * crossing.  A text too long for its column (the 16 random bytes) wraps
 * to a second line.  Rows scroll; a click on a pointer selects its target. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tools/view/view.h"

#define LANE_W 6        /* pixels between arrow lanes */
#define BAND_GAP 7      /* pixels between two bands, their line in the middle */
#define SLOT_LINES 3    /* a slot's text wraps to at most this many lines */
#define MAX_SLOTS 4096
#define MAX_ARROWS 512

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

/* Where the line of text starting at t ends when max characters fit: at
 * the last space (which is dropped), else at max ("random data:" and then
 * its 32 digits whole on the next line). */
static int wrap_at(const char *t, int max)
{
    int len = (int)strlen(t);
    if (len <= max)
        return len;
    for (int k = max; k > 0; k--)
        if (t[k] == ' ')
            return k;
    return max;
}

/* How many lines a slot's text takes: the first line text_chars wide, the
 * others indented by two (all 16 random bytes are shown, wrapped). */
static int text_lines(const char *t, int text_chars)
{
    int n = 1;
    for (int k = wrap_at(t, text_chars); t[k] && n < SLOT_LINES; n++) {
        t += k + (t[k] == ' ');
        k = wrap_at(t, text_chars - 2);
    }
    return n;
}

static void draw_wrapped(struct view *v, int x, int y, int bottom, SDL_Color c, const char *t,
                         int text_chars)
{
    int lh = v->font.h, k = wrap_at(t, text_chars);
    for (int line = 0; line < SLOT_LINES && y + lh <= bottom; line++, y += lh) {
        char part[160];
        snprintf(part, sizeof(part), "%s%.*s", line ? "  " : "", k, t);
        draw_text(v, x, y, c, part, text_chars);
        t += k;
        if (!*t)
            break;
        t += *t == ' ';
        k = wrap_at(t, text_chars - 2);
    }
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
    size_t n = f->n < MAX_SLOTS ? f->n : MAX_SLOTS;

    /* Columns: margin, address, text, then the arrow lanes. */
    int margin_x = in.x, addr_x = in.x + 10 * fw;
    int addr_chars = f->bits == 64 ? 16 : 12;
    int text_x = addr_x + addr_chars * fw;
    int narrows = 0;
    for (size_t i = 0; i < n; i++)
        narrows += f->slots[i].target >= 0;
    /* The lanes take at most a quarter of the pane (a big environment has
     * dozens of arrows); beyond that, arrows share the outermost lane. */
    int lanes_w = (narrows + 1) * LANE_W + 8;
    if (lanes_w > in.w / 4)
        lanes_w = in.w / 4;
    int text_chars = (in.x + in.w - text_x - lanes_w) / fw;
    if (text_chars < 20)
        text_chars = 20;
    int join_x = text_x + text_chars * fw + 4;  /* where arrows leave and arrive */

    /* Rows, in pixels from the top of the figure: the top line, then each
     * slot's lines; a new band starts BAND_GAP lower, its line in the gap
     * (clear of the text above and below). */
    static int y_of[MAX_SLOTS], lines_of[MAX_SLOTS];
    int total = lh;
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && f->slots[i].band != f->slots[i - 1].band)
            total += BAND_GAP;
        y_of[i] = total;
        lines_of[i] = text_lines(f->slots[i].text, text_chars);
        total += lines_of[i] * lh;
    }
    /* Scrolled by whole lines (PgUp/PgDn, the wheel); the end stays in view. */
    int max_top = total > in.h ? (total - in.h + lh - 1) / lh : 0;
    if (v->fig_top > max_top)
        v->fig_top = max_top;
    if (v->fig_top < 0)
        v->fig_top = 0;
    int scroll = v->fig_top * lh, bottom = in.y + in.h;

    if (scroll == 0)
        draw_textf(v, addr_x, in.y, COL_DIM, -1, "---------- top of [stack]: %#" PRIx64, f->top);
    uint64_t rsp = v->s->regs.gpr[ELFEMU_RSP];
    for (size_t i = 0; i < n; i++) {
        const struct stackfig_slot *s = &f->slots[i];
        int y = in.y + y_of[i] - scroll, h = lines_of[i] * lh;
        /* A new band: a dashed line (strings | auxv data) or a dotted one,
         * as in the seed's figure. */
        if (i > 0 && s->band != f->slots[i - 1].band) {
            int ly = y - BAND_GAP / 2 - 1, dash = s->band == SF_BAND_AUXV_DATA ? 6 : 2;
            if (ly >= in.y && ly < bottom)
                for (int x = addr_x; x < join_x; x += 2 * dash)
                    draw_line(v, x, ly, x + dash - 1, ly, COL_DIM);
        }
        if (y < in.y || y + lh > bottom)
            continue;
        SDL_Rect line = { in.x, y, in.w, h < bottom - y ? h : bottom - y };
        if ((int)i == v->fig_selected)
            draw_fill(v, line, COL_SELECT);
        view_add_hit(v, line, HIT_STACK_SLOT, i);
        const char *g = group_name(f, i);
        if (g)
            draw_text(v, margin_x, y, COL_TITLE, g, 9);
        /* The group goes on: a bar in the margin (across the band gap too). */
        int bar_top = g ? y + lh : y - (i > 0 && s->band != f->slots[i - 1].band ? BAND_GAP : 0);
        if (bar_top < in.y)
            bar_top = in.y;
        if (!g || (*g && lines_of[i] > 1))
            draw_line(v, margin_x + 2, bar_top, margin_x + 2, line.y + line.h, COL_TITLE);
        draw_textf(v, addr_x, y, COL_DIM, -1, "%#" PRIx64 ":", s->addr);
        SDL_Color c = s->kind == SF_AUXV || s->kind == SF_ARGV || s->kind == SF_ENVP ||
                              s->kind == SF_ARGC ? COL_TEXT : COL_ACCENT;
        if (s->kind == SF_END_MARKER || s->kind == SF_ALIGN_GAP || s->kind == SF_PADDING ||
            s->kind == SF_ARGV_NULL || s->kind == SF_ENVP_NULL)
            c = COL_DIM;
        draw_wrapped(v, text_x, y, bottom, c, s->text, text_chars);
        if (rsp >= s->addr && rsp < s->addr + s->size)
            draw_text(v, join_x + 2, y, COL_ARROW, "<- rsp", -1);
    }

    /* The arrows, shortest first, each in the first lane free over its
     * span, from the middle of a pointer's first line to its target's. */
    struct { int from, to, lo, hi; } a[MAX_ARROWS];
    int na = 0;
    for (size_t i = 0; i < n && na < MAX_ARROWS; i++) {
        int t = f->slots[i].target;
        if (t < 0 || (size_t)t >= n)
            continue;
        int from = y_of[i] + lh / 2, to = y_of[t] + lh / 2;
        a[na++] = (typeof(a[0])){ from, to, from < to ? from : to, from < to ? to : from };
    }
    for (int i = 1; i < na; i++)    /* insertion sort by span */
        for (int k = i; k > 0 && a[k].hi - a[k].lo < a[k - 1].hi - a[k - 1].lo; k--) {
            typeof(a[0]) t = a[k];
            a[k] = a[k - 1];
            a[k - 1] = t;
        }
    int lane_of[MAX_ARROWS];
    int max_lane = (in.x + in.w - join_x - 8) / LANE_W - 1;
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
        /* Ends out of view are cut at the pane's edge. */
        int yf = in.y + a[i].from - scroll, yt = in.y + a[i].to - scroll;
        bool vf = yf - lh / 2 >= in.y && yf + lh / 2 <= bottom;
        bool vt = yt - lh / 2 >= in.y && yt + lh / 2 <= bottom;
        int y0 = yf < in.y ? in.y : yf > bottom ? bottom : yf;
        int y1 = yt < in.y ? in.y : yt > bottom ? bottom : yt;
        if (y0 == y1 && !vf && !vt)
            continue;
        int x = join_x + 8 + lane * LANE_W;
        if (vf)
            draw_line(v, join_x, yf, x, yf, COL_ARROW);
        draw_line(v, x, y0, x, y1, COL_ARROW);
        if (vt) {
            draw_line(v, join_x, yt, x, yt, COL_ARROW);
            draw_arrow_head(v, join_x, yt, -1, COL_ARROW);
        }
    }
}
