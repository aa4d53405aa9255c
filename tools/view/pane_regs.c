/* elfemu-view: the register pane (general registers in two columns, rip
 * with its symbol, the flags decoded, the segment bases, the instruction
 * count), each field highlighted when it changed since the last stop, and
 * on demand the x87/SSE pane from the FXSAVE image. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tools/view/park.h"
#include "tools/view/view.h"

static const char *const names64[16] = { "rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
                                         "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15" };
static const char *const names32[8] = { "eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi" };
/* Shown in this order: the pairs of the two columns. */
static const int order64[16] = { 0, 8, 3, 9, 1, 10, 2, 11, 6, 12, 7, 13, 5, 14, 4, 15 };
static const int order32[8] = { 0, 3, 1, 2, 6, 7, 5, 4 };

static const struct { unsigned bit; const char *name; } flag_bits[] = {
    { 0, "CF" }, { 2, "PF" }, { 4, "AF" }, { 6, "ZF" }, { 7, "SF" },
    { 8, "TF" }, { 9, "IF" }, { 10, "DF" }, { 11, "OF" },
};

static struct reg_field *field(struct reg_field *out, int *n, const char *name, bool changed)
{
    struct reg_field *f = &out[(*n)++];
    memset(f, 0, sizeof(*f));
    snprintf(f->name, sizeof(f->name), "%s", name);
    f->changed = changed;
    return f;
}

int regs_fields(struct session *s, struct reg_field out[REG_FIELDS])
{
    int n = 0;
    bool w64 = s->bits == 64;
    const elfemu_regs *r = &s->regs, *p = &s->prev;
    for (int k = 0; k < (w64 ? 16 : 8); k++) {
        int i = w64 ? order64[k] : order32[k];
        struct reg_field *f = field(out, &n, w64 ? names64[i] : names32[i], r->gpr[i] != p->gpr[i]);
        f->value_u = w64 ? r->gpr[i] : (uint32_t)r->gpr[i];
        snprintf(f->value, sizeof(f->value), w64 ? "%016" PRIx64 : "%08" PRIx64, f->value_u);
        f->is_address = true;
    }
    struct reg_field *f = field(out, &n, w64 ? "rip" : "eip", r->rip != p->rip);
    char sym[48];
    if (syms_format(s->syms, r->rip, sym, sizeof(sym)))
        snprintf(f->value, sizeof(f->value), "%0*" PRIx64 " <%s>", w64 ? 16 : 8, r->rip, sym);
    else
        snprintf(f->value, sizeof(f->value), "%0*" PRIx64, w64 ? 16 : 8, r->rip);
    f->value_u = r->rip;
    f->is_address = true;
    f = field(out, &n, w64 ? "rflags" : "eflags", r->rflags != p->rflags);
    size_t k = (size_t)snprintf(f->value, sizeof(f->value), "%08" PRIx64 " [", r->rflags);
    for (unsigned i = 0; i < sizeof(flag_bits) / sizeof(flag_bits[0]); i++)
        if (r->rflags & (1ull << flag_bits[i].bit))
            k += (size_t)snprintf(f->value + k, sizeof(f->value) - k, " %s", flag_bits[i].name);
    snprintf(f->value + k, sizeof(f->value) - k, " ]");
    f = field(out, &n, w64 ? "fs_base" : "gs_base", w64 ? r->fs_base != p->fs_base
                                                       : r->gs_base != p->gs_base);
    f->value_u = w64 ? r->fs_base : r->gs_base;
    snprintf(f->value, sizeof(f->value), "%#" PRIx64, f->value_u);
    f = field(out, &n, "icount", false);
    snprintf(f->value, sizeof(f->value), "%" PRIu64 " instructions retired",
             s->shown_tid ? s->shown_icount : elfemu_icount(s->vm));
    /* Whose registers these are: the first thread (the one stepped) or a
     * parked one ('t' goes round them). */
    int nthreads = elfemu_thread_count(s->vm);
    if (nthreads > 1 || s->shown_tid) {
        f = field(out, &n, "thread", false);
        if (s->shown_tid)
            snprintf(f->value, sizeof(f->value), "tid %d of %d (%u parked; t: next)",
                     s->shown_tid, nthreads, park_count(s));
        else
            snprintf(f->value, sizeof(f->value), "the first of %d (%u parked; t: next)",
                     nthreads, park_count(s));
    }
    return n;
}

void pane_regs(struct view *v, SDL_Rect r)
{
    SDL_Rect in = draw_pane(v, r, "Registers (changed since the last stop: highlighted)");
    struct reg_field f[REG_FIELDS];
    int n = regs_fields(v->s, f);
    int ngpr = v->s->bits == 64 ? 16 : 8;
    int lh = v->font.h, fw = v->font.w, col_w = in.w / 2;
    int vchars = v->s->bits == 64 ? 16 : 8;
    for (int i = 0; i < n; i++) {
        int x, y;
        if (i < ngpr) {
            x = in.x + (i % 2) * col_w;
            y = in.y + (i / 2) * lh;
        } else {
            x = in.x;
            y = in.y + (ngpr / 2 + i - ngpr) * lh;
        }
        int name_w = (i < ngpr ? 4 : 8) * fw;
        int len = (int)strlen(f[i].value);
        int max = i < ngpr ? vchars : (in.x + in.w - x - name_w) / fw;
        SDL_Rect val = { x + name_w - 2, y, (len < max ? len : max) * fw + 4, lh };
        if (f[i].changed)
            draw_fill(v, val, COL_CHANGED);
        draw_text(v, x, y, COL_DIM, f[i].name, -1);
        draw_text(v, x + name_w, y, f[i].changed ? COL_ACCENT : COL_TEXT, f[i].value, max);
        if (f[i].is_address)
            view_add_hit(v, val, HIT_ADDRESS, f[i].value_u);
    }
}

/* The x87 and SSE registers from the FXSAVE image (Intel SDM vol. 1,
 * 10.5.1: FCW at 0, FSW at 2, the abridged tag at 4, MXCSR at 24, ST(i)
 * at 32 + 16 i, XMMi at 160 + 16 i). */
void pane_fpregs(struct view *v, SDL_Rect r)
{
    SDL_Rect in = draw_pane(v, r, "x87 / SSE (f: back to the code)");
    const uint8_t *fp = v->s->fp, *pf = v->s->prev_fp;
    int lh = v->font.h, y = in.y, max = in.w / v->font.w;
    uint16_t fcw, fsw;
    uint32_t mxcsr;
    memcpy(&fcw, fp, 2);
    memcpy(&fsw, fp + 2, 2);
    memcpy(&mxcsr, fp + 24, 4);
    bool ctl_changed = memcmp(fp, pf, 8) != 0 || memcmp(fp + 24, pf + 24, 4) != 0;
    draw_textf(v, in.x, y, ctl_changed ? COL_ACCENT : COL_TEXT, max,
               "fcw %04x  fsw %04x (top %u)  ftw %02x  mxcsr %08x", fcw, fsw, (fsw >> 11) & 7,
               fp[4], mxcsr);
    y += lh;
    for (int i = 0; i < 8 && y + lh <= in.y + in.h; i++, y += lh) {
        long double x;
        memcpy(&x, fp + 32 + 16 * i, 10);
        bool ch = memcmp(fp + 32 + 16 * i, pf + 32 + 16 * i, 10) != 0;
        bool valid = fp[4] & (1u << ((i + ((fsw >> 11) & 7)) & 7));
        draw_textf(v, in.x, y, ch ? COL_ACCENT : valid ? COL_TEXT : COL_DIM, max,
                   "st(%d) %-24.17Lg %s", i, x, valid ? "" : "(empty)");
    }
    int nxmm = v->s->bits == 64 ? 16 : 8;
    for (int i = 0; i < nxmm && y + lh <= in.y + in.h; i++, y += lh) {
        const uint8_t *x = fp + 160 + 16 * i;
        char hex[40];
        for (int b = 0; b < 16; b++)
            snprintf(hex + 2 * b, 3, "%02x", x[15 - b]);
        bool ch = memcmp(x, pf + 160 + 16 * i, 16) != 0;
        draw_textf(v, in.x, y, ch ? COL_ACCENT : COL_TEXT, max, "xmm%-2d %s", i, hex);
    }
}
