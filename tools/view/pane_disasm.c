/* elfemu-view: the code around rip (or around an address a click chose),
 * disassembled with Zydis (tools/disasm.c: lowercase hex, as --trace),
 * symbols as headers and call targets named (`call ... <puts@plt>`), the
 * current instruction highlighted, breakpoints marked.  x86 code cannot be
 * decoded backwards, so the lines before rip are found by decoding forward
 * from the start of rip's function (when it is near), else rip is first. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tools/view/view.h"

#define MAX_BEFORE 64

/* Up to max instruction addresses just before at, found from its symbol. */
static int lines_before(struct session *s, uint64_t at, uint64_t *out, int max)
{
    const char *name;
    uint64_t off;
    if (max <= 0 || !syms_find(s->syms, at, &name, &off) || off == 0 || off > 16384)
        return 0;
    uint64_t ring[MAX_BEFORE];
    int n = 0;
    for (uint64_t a = at - off; a < at;) {
        char text[8];
        unsigned len;
        if (!session_disasm(s, a, text, sizeof(text), &len, NULL))
            return 0;
        ring[n++ % MAX_BEFORE] = a;
        a += len;
        if (a > at)
            return 0; /* not on an instruction boundary of this decoding */
    }
    int k = n < max ? n : max;
    for (int i = 0; i < k; i++)
        out[i] = ring[(n - k + i) % MAX_BEFORE];
    return k;
}

/* The file name of the program or interpreter whose entry point addr is,
 * or NULL. */
static const char *entry_point_of(const struct session *s, uint64_t addr)
{
    const elfemu_image *img = addr == s->li->program.entry                    ? &s->li->program
                              : s->li->has_interp && addr == s->li->interp.entry ? &s->li->interp
                                                                                : NULL;
    if (!img)
        return NULL;
    const char *slash = strrchr(img->path, '/');
    return slash ? slash + 1 : img->path;
}

int code_lines(struct session *s, uint64_t at, int rows, struct code_line *out)
{
    uint64_t addrs[MAX_BEFORE];
    int before = lines_before(s, at, addrs, rows / 3 < MAX_BEFORE ? rows / 3 : MAX_BEFORE);
    uint64_t a = before ? addrs[0] : at;
    int n = 0;
    while (n < rows) {
        const char *name;
        uint64_t off;
        struct code_line *l = &out[n];
        const char *entry_of = entry_point_of(s, a);
        bool named = syms_find(s->syms, a, &name, &off) && off == 0;
        if (named || entry_of) {
            *l = (struct code_line){ .header = true, .addr = a, .ok = true };
            if (named)
                snprintf(l->text, sizeof(l->text), "<%s>:", name);
            else /* ld.so has no symbol at its entry point (no .symtab) */
                snprintf(l->text, sizeof(l->text), "(the entry point of %s):", entry_of);
            if (++n >= rows)
                break;
            l = &out[n];
        }
        unsigned len;
        *l = (struct code_line){ .addr = a };
        l->ok = session_disasm(s, a, l->text, sizeof(l->text), &len, NULL);
        n++;
        if (!l->ok)
            break;
        a += len;
    }
    return n;
}

void pane_disasm(struct view *v, SDL_Rect r)
{
    struct session *s = v->s;
    uint64_t at = v->disasm_at ? v->disasm_at : s->regs.rip;
    char title[96];
    snprintf(title, sizeof(title), v->disasm_at ? "Code at %#" PRIx64 " (click rip to follow it)"
                                                : "Code around rip (click a line: breakpoint)",
             at);
    SDL_Rect in = draw_pane(v, r, title);
    int lh = v->font.h, fw = v->font.w, rows = in.h / lh;
    int max_chars = in.w / fw - 2;
    int aw = s->bits == 64 ? 12 : 8;
    struct code_line lines[256];
    int n = code_lines(s, at, rows < 256 ? rows : 256, lines);
    for (int row = 0; row < n; row++) {
        const struct code_line *l = &lines[row];
        int y = in.y + row * lh;
        if (l->header) {
            draw_text(v, in.x, y, COL_TITLE, l->text, max_chars);
            continue;
        }
        SDL_Rect line = { in.x, y, in.w, lh };
        bool current = l->addr == s->regs.rip && !s->exited;
        if (current)
            draw_fill(v, line, COL_CURRENT);
        if (session_is_breakpoint(s, l->addr))
            draw_fill(v, (SDL_Rect){ in.x + 2, y + lh / 2 - 4, 8, 8 }, COL_BREAK);
        if (current)
            draw_text(v, in.x + 12, y, COL_ACCENT, ">", -1);
        view_add_hit(v, line, HIT_DISASM_LINE, l->addr);
        draw_textf(v, in.x + 2 * fw + 4, y, COL_DIM, -1, "%0*" PRIx64, aw, l->addr);
        draw_text(v, in.x + (aw + 3) * fw + 4, y, l->ok ? COL_TEXT : COL_DIM,
                  l->ok ? l->text : "(unreadable)", max_chars - aw - 3);
    }
}
