/* elfemu-view: the memory-map pane.  The bar of mapbar.c, highest address
 * at the top, coloured by permission; each mapping's label (start address,
 * name, permissions, size) is placed beside it, pushed apart so labels
 * never overlap, with a leader line to its band.  rip and rsp are marked
 * on the bar. */
#include <inttypes.h>
#include <stdio.h>
#include <sys/mman.h>

#include "tools/view/view.h"

static void human_size(uint64_t n, char *out, size_t size)
{
    static const char units[] = "KMGTP";
    double v = (double)n / 1024;
    int u = 0;
    while (v >= 1024 && u < 4)
        v /= 1024, u++;
    snprintf(out, size, v < 10 && v != (int)v ? "%.1f%c" : "%.0f%c", v, units[u]);
}

static void mark(struct view *v, const SDL_Rect *bar, uint64_t addr, const char *name, SDL_Color c)
{
    int i = mapbar_find(&v->bar, addr);
    if (i < 0)
        return;
    const struct mapbar_entry *e = &v->bar.e[i];
    /* Where in its band: the band's top is its end (high addresses up). */
    double frac = (double)(e->end - addr) / (double)(e->end - e->start);
    int y = bar->y + e->y0 + (int)(frac * (e->y1 - e->y0));
    draw_text(v, bar->x - 4 - 3 * v->font.w - 6, y - v->font.h / 2, c, name, -1);
    draw_arrow_head(v, bar->x - 2, y, 1, c);
}

void pane_map(struct view *v, SDL_Rect r)
{
    SDL_Rect in = draw_pane(v, r, "Memory map (log-scaled; colour = permissions)");
    /* The legend on the last line. */
    int legend_y = in.y + in.h - v->font.h;
    static const struct { int prot; const char *name; } legend[] = {
        { PROT_READ | PROT_EXEC, "r-x" }, { PROT_READ | PROT_WRITE, "rw-" }, { PROT_READ, "r--" },
        { 0, "---" },
    };
    int lx = in.x;
    for (unsigned i = 0; i < 4; i++) {
        draw_fill(v, (SDL_Rect){ lx, legend_y + 3, 10, v->font.h - 6 },
                  view_prot_colour(legend[i].prot, MAPBAR_PROGRAM));
        lx += 14 + draw_text(v, lx + 14, legend_y, COL_DIM, legend[i].name, -1) + 10;
    }
    in.h -= v->font.h + 4;

    SDL_Rect bar = { in.x + 4 * v->font.w + 4, in.y, 22, in.h };
    mapbar_layout(&v->bar, bar.h);
    int label_x = bar.x + bar.w + 16;
    int max_chars = (in.x + in.w - label_x) / v->font.w;
    /* Each label: "start prot size name" on one line, or the name on a
     * second line when it does not fit (a label may sit beside its band's
     * neighbours: its leader line says whose it is). */
    static char one[512][160], two[512][160];
    int nlines[512], hs[512], ys[512], n = (int)v->bar.n < 512 ? (int)v->bar.n : 512;
    int lh = v->font.h, need = 0;
    for (int i = 0; i < n; i++) {
        const struct mapbar_entry *e = &v->bar.e[i];
        char size[16], prot[4];
        human_size(e->end - e->start, size, sizeof(size));
        nlines[i] = 1;
        if (e->kind == MAPBAR_GAP) {
            snprintf(one[i], sizeof(one[i]), "  ... %s unmapped", size);
            hs[i] = lh;
        } else {
            mapbar_prot_str(e->prot, prot);
            int len = snprintf(one[i], sizeof(one[i]), "%" PRIx64 " %s %4s %s", e->start, prot,
                               size, e->label);
            snprintf(two[i], sizeof(two[i]), "%" PRIx64 " %s %4s", e->start, prot, size);
            if (len > max_chars)
                nlines[i] = 2;
            hs[i] = nlines[i] * lh;
        }
        need += hs[i];
    }
    /* More labels than room (a big program has a hundred mappings): one
     * line each, then no gap labels, then the smallest mappings lose
     * theirs (their bands stay; a click names them). */
    for (int i = 0; i < n && need > bar.h; i++)
        if (nlines[i] == 2)
            nlines[i] = 1, hs[i] = lh, need -= lh;
    for (int i = 0; i < n && need > bar.h; i++)
        if (v->bar.e[i].kind == MAPBAR_GAP)
            need -= hs[i], hs[i] = 0;
    while (need > bar.h) {
        int smallest = -1;
        for (int i = 0; i < n; i++)
            if (hs[i] && (smallest < 0 || v->bar.e[i].end - v->bar.e[i].start <
                                              v->bar.e[smallest].end - v->bar.e[smallest].start))
                smallest = i;
        if (smallest < 0)
            break;
        need -= hs[smallest];
        hs[smallest] = 0;
    }
    /* Placed at their band's middle, pushed down past the label above,
     * then back up where they would run off the bottom. */
    int next = bar.y;
    for (int i = 0; i < n; i++) {
        const struct mapbar_entry *e = &v->bar.e[i];
        int mid = bar.y + (e->y0 + e->y1) / 2 - hs[i] / 2;
        ys[i] = mid > next ? mid : next;
        next = ys[i] + hs[i];
    }
    int limit = bar.y + bar.h;
    for (int i = n; i-- > 0;) {
        if (ys[i] + hs[i] > limit)
            ys[i] = limit - hs[i];
        limit = ys[i];
    }
    for (int i = 0; i < n; i++) {
        const struct mapbar_entry *e = &v->bar.e[i];
        SDL_Rect band = { bar.x, bar.y + e->y0, bar.w, e->y1 - e->y0 };
        draw_fill(v, band, view_prot_colour(e->prot, e->kind));
        if (e->y1 - e->y0 > 2)
            draw_line(v, bar.x, band.y, bar.x + bar.w - 1, band.y, COL_PANE);
        if (i == v->map_selected)
            draw_outline(v, band, COL_ACCENT);
        view_add_hit(v, (SDL_Rect){ bar.x, band.y, label_x - bar.x + max_chars * v->font.w, band.h },
                     HIT_MAP_ENTRY, (uint64_t)i);
        if (hs[i] == 0)
            continue;
        SDL_Color c = e->kind == MAPBAR_GAP ? COL_DIM : COL_TEXT;
        draw_line(v, bar.x + bar.w, band.y + band.h / 2, label_x - 4, ys[i] + lh / 2,
                  e->kind == MAPBAR_GAP ? COL_DIM : view_prot_colour(e->prot, e->kind));
        draw_text(v, label_x, ys[i], c, nlines[i] == 2 ? two[i] : one[i], max_chars);
        if (nlines[i] == 2)
            draw_text(v, label_x + 2 * v->font.w, ys[i] + lh, COL_DIM, e->label, max_chars - 2);
    }
    mark(v, &bar, v->s->regs.rip, "rip", COL_ACCENT);
    mark(v, &bar, v->s->regs.gpr[ELFEMU_RSP], "rsp", COL_ARROW);
}
