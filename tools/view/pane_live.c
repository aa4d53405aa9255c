/* elfemu-view: the live stack, word by word upwards from rsp: each word's
 * address and value, what the value points at (code: a return address
 * when a call instruction ends just before it, which marks a frame, else
 * a function or code pointer; a stack address; a string; a mapping), and
 * where rsp and rbp are.  Shares the middle column with the
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

/* Does a call instruction end just before addr (then addr is the return
 * address it pushed)?  The forms compilers emit: E8 rel32, and FF /2 with
 * a register, [reg+disp8], [reg+disp32] or [rip+disp32] (also with a SIB). */
static bool after_call(struct session *s, uint64_t addr)
{
    uint8_t b[7];
    if (addr < 7 || elfemu_read(s->vm, addr - 7, b, 7) != 0)
        return false;
    if (b[2] == 0xe8)
        return true;
    for (int len = 2; len <= 7; len++) {
        const uint8_t *p = b + 7 - len;
        if (p[0] != 0xff || ((p[1] >> 3) & 7) != 2)
            continue;
        int mod = p[1] >> 6, rm = p[1] & 7, sib = mod != 3 && rm == 4;
        int disp = mod == 1 ? 1 : mod == 2 ? 4 : (mod == 0 && rm == 5) ? 4 : 0;
        if (2 + sib + disp == len)
            return true;
    }
    return false;
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
            if (after_call(s, val))
                snprintf(what, sizeof(what), "return address: %s+%#" PRIx64, name, off);
            else if (off == 0)
                snprintf(what, sizeof(what), "-> function %s", name);
            else
                snprintf(what, sizeof(what), "-> code %s+%#" PRIx64, name, off);
        } else if (e >= 0 && v->bar.e[e].kind == MAPBAR_STACK) {
            snprintf(what, sizeof(what), "-> stack (rsp%+" PRId64 ")", (int64_t)(val - rsp));
            char str[48];
            if (looks_like_string(s, val, str, sizeof(str)))
                snprintf(what, sizeof(what), "-> %s", str);
        } else if (e >= 0 && v->bar.e[e].kind != MAPBAR_GAP) {
            snprintf(what, sizeof(what), "-> %s", v->bar.e[e].label);
        }
        SDL_Color c = what[0] == 'r' ? COL_ACCENT : COL_TEXT;
        draw_text(v, in.x, y, COL_ARROW, mark, -1);
        draw_textf(v, in.x + 6 * fw, y, COL_DIM, -1, "%#" PRIx64 ":", a);
        int vx = in.x + (6 + (w == 8 ? 16 : 12)) * fw; /* after "rsp-> 0x...: " */
        draw_textf(v, vx, y, c, -1, "%0*" PRIx64, (int)(2 * w), val);
        draw_text(v, vx + (2 * (int)w + 2) * fw, y, COL_DIM, what,
                  max - (vx - in.x) / fw - 2 * (int)w - 2);
        view_add_hit(v, (SDL_Rect){ in.x, y, in.w, lh }, HIT_ADDRESS, val);
    }
}
