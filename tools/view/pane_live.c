/* elfemu-view: the live stack, word by word upwards from rsp: each word's
 * address and value, what the value points at (a symbol in code: most
 * likely a return address, which marks a frame; a stack address; a
 * string), and where rsp and rbp are.  Shares the middle column with the
 * initial stack (key l switches). */
#include <inttypes.h>
#include <stdio.h>
#include <sys/mman.h>

#include "tools/view/view.h"

/* Printable text at addr ("'abc'"), or false when it does not look like a string. */
static bool looks_like_string(struct session *s, uint64_t addr, char *out, size_t size)
{
    char buf[33];
    if (elfemu_read(s->vm, addr, buf, 32) != 0)
        return false;
    buf[32] = 0;
    int n = 0;
    while (n < 32 && buf[n] >= 32 && buf[n] < 127)
        n++;
    if (n < 3 || (n < 32 && buf[n] != 0))
        return false;
    snprintf(out, size, "'%.*s%s'", n, buf, n == 32 ? "..." : "");
    return true;
}

void pane_live(struct view *v, SDL_Rect r)
{
    struct session *s = v->s;
    SDL_Rect in = draw_pane(v, r, "Live stack from rsp up (l: the initial stack)");
    unsigned w = s->bits / 8;
    int lh = v->font.h, fw = v->font.w, rows = in.h / lh, max = in.w / fw;
    uint64_t rsp = s->regs.gpr[ELFEMU_RSP], rbp = s->regs.gpr[ELFEMU_RBP];
    if (w == 4)
        rsp = (uint32_t)rsp, rbp = (uint32_t)rbp;
    for (int row = 0; row < rows; row++) {
        uint64_t a = rsp + (uint64_t)row * w, val = 0;
        int y = in.y + row * lh;
        if (a >= s->li->stack_top || elfemu_read(s->vm, a, &val, w) != 0)
            break;
        const char *mark = a == rsp ? "rsp->" : a == rbp ? "rbp->" : "";
        char what[160] = "";
        const char *name;
        uint64_t off;
        int e = mapbar_find(&v->bar, val);
        if (e >= 0 && (v->bar.e[e].prot & PROT_EXEC) && syms_find(s->syms, val, &name, &off)) {
            snprintf(what, sizeof(what), "code %s+%#" PRIx64 " (a return address?)", name, off);
        } else if (e >= 0 && v->bar.e[e].kind == MAPBAR_STACK) {
            snprintf(what, sizeof(what), "-> stack (rsp%+" PRId64 ")", (int64_t)(val - rsp));
            char str[48];
            if (looks_like_string(s, val, str, sizeof(str)))
                snprintf(what, sizeof(what), "-> %s", str);
        } else if (e >= 0 && v->bar.e[e].kind != MAPBAR_GAP) {
            snprintf(what, sizeof(what), "-> %s", v->bar.e[e].label);
        }
        SDL_Color c = what[0] == 'c' ? COL_ACCENT : COL_TEXT;
        draw_text(v, in.x, y, COL_ARROW, mark, -1);
        draw_textf(v, in.x + 6 * fw, y, COL_DIM, -1, "%#" PRIx64 ":", a);
        int vx = in.x + (6 + (w == 8 ? 16 : 12)) * fw; /* after "rsp-> 0x...: " */
        draw_textf(v, vx, y, c, -1, "%0*" PRIx64, (int)(2 * w), val);
        draw_text(v, vx + (2 * (int)w + 2) * fw, y, COL_DIM, what,
                  max - (vx - in.x) / fw - 2 * (int)w - 2);
        view_add_hit(v, (SDL_Rect){ in.x, y, in.w, lh }, HIT_ADDRESS, val);
    }
}
