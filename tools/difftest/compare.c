/* Comparing the two states after a step, and the mismatch report.
 *
 * Registers: rip, the 16 GPRs, the FS/GS bases and RFLAGS restricted to
 * CF PF AF ZF SF DF OF AC ID minus the flags the SDM leaves undefined for
 * the instruction.  FPU (every --fp-interval instructions): FCW, FSW
 * (without undefined condition bits), the abridged tag word, MXCSR, the x87
 * registers whose tag says valid, and the XMM registers; FOP, FIP, FDP and
 * the reserved areas are ignored.  Memory: the bytes the instruction wrote
 * (dt_check.mem), and at exit every readable mapping. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tools/difftest/difftest.h"
#include "tools/disasm.h"

#define HISTORY 12

static struct dt_insn history[HISTORY];
static unsigned nhistory;

void history_reset(void)
{
    nhistory = 0;
}

void history_push(const struct dt_insn *insn)
{
    history[nhistory++ % HISTORY] = *insn;
}

void dt_disasm(int bits, uint64_t rip, const uint8_t *bytes, unsigned len, char *buf, size_t size)
{
    struct disasm in;
    if (len && disasm_one(bits, false, rip, bytes, len, &in))
        snprintf(buf, size, "%s", in.text);
    else
        snprintf(buf, size, "(bad)");
}

static void print_insn(elfemu *vm, const char *prefix, const struct dt_insn *in)
{
    char text[128], hex[3 * 15 + 1] = "";
    for (unsigned i = 0; i < in->len && i < 15; i++)
        snprintf(hex + 3 * i, sizeof(hex) - 3 * i, "%02x ", in->bytes[i]);
    dt_disasm(elfemu_bits(vm), in->rip, in->bytes, in->len, text, sizeof(text));
    const char *sym = dt_sym_lookup(vm, in->rip);
    fprintf(stderr, "%s#%-7" PRIu64 " %#-14" PRIx64 " %-33s %-32s %s%s%s\n", prefix, in->n,
            in->rip, hex, text, sym[0] ? "<" : "", sym, sym[0] ? ">" : "");
}

void report_header(elfemu *vm, const char *what, const struct dt_insn *insn)
{
    fprintf(stderr, "difftest: %s\n", what);
    print_insn(vm, "  at ", insn);
}

void report_history(elfemu *vm)
{
    unsigned n = nhistory < HISTORY ? nhistory : HISTORY;
    if (n <= 1)
        return;
    fprintf(stderr, "the instructions before it:\n");
    for (unsigned i = n - 1; i >= 1; i--)
        print_insn(vm, "     ", &history[(nhistory - 1 - i) % HISTORY]);
}

static const char *const gpr_names64[16] = { "rax", "rcx", "rdx", "rbx", "rsp", "rbp",
                                             "rsi", "rdi", "r8",  "r9",  "r10", "r11",
                                             "r12", "r13", "r14", "r15" };
static const char *const gpr_names32[8] = { "eax", "ecx", "edx", "ebx",
                                            "esp", "ebp", "esi", "edi" };

static void flag_names(uint64_t f, char *buf, size_t size)
{
    static const struct { uint64_t bit; const char *name; } names[] = {
        { 0x1, "CF" }, { 0x4, "PF" }, { 0x10, "AF" }, { 0x40, "ZF" }, { 0x80, "SF" },
        { 0x100, "TF" }, { 0x200, "IF" }, { 0x400, "DF" }, { 0x800, "OF" },
        { 0x10000, "RF" }, { 0x40000, "AC" }, { 0x200000, "ID" },
    };
    buf[0] = 0;
    size_t len = 0;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if ((f & names[i].bit) && len + 4 < size)
            len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? " " : "", names[i].name);
}

void report_regs(const elfemu_regs *nat, const elfemu_regs *emu, uint64_t flag_mask, int bits)
{
    int w = bits == 64 ? 16 : 8;
    uint64_t m = bits == 64 ? ~0ull : 0xffffffffull;
    fprintf(stderr, "%-8s %-*s   %-*s\n", "register", w + 2, "native (CPU)", w + 2, "emulator");
    for (int i = 0; i < (bits == 64 ? 16 : 8); i++) {
        uint64_t a = nat->gpr[i] & m, b = emu->gpr[i] & m;
        fprintf(stderr, "%-8s 0x%0*" PRIx64 "   0x%0*" PRIx64 "%s\n",
                bits == 64 ? gpr_names64[i] : gpr_names32[i], w, a, w, b,
                a != b ? "   <-- differs" : "");
    }
    fprintf(stderr, "%-8s 0x%0*" PRIx64 "   0x%0*" PRIx64 "%s\n", bits == 64 ? "rip" : "eip", w,
            nat->rip & m, w, emu->rip & m, (nat->rip & m) != (emu->rip & m) ? "   <-- differs" : "");
    char fa[64], fb[64], fm[64];
    flag_names(nat->rflags, fa, sizeof(fa));
    flag_names(emu->rflags, fb, sizeof(fb));
    flag_names(flag_mask, fm, sizeof(fm));
    bool fd = ((nat->rflags ^ emu->rflags) & flag_mask) != 0;
    fprintf(stderr, "%-8s 0x%0*" PRIx64 "   0x%0*" PRIx64 "%s\n", "rflags", w, nat->rflags, w,
            emu->rflags, fd ? "   <-- differs" : "");
    fprintf(stderr, "%-8s [%s] vs [%s]; compared: %s\n", "", fa, fb, fm);
    if (bits == 64) {
        fprintf(stderr, "%-8s 0x%016" PRIx64 "   0x%016" PRIx64 "%s\n", "fs_base", nat->fs_base,
                emu->fs_base, nat->fs_base != emu->fs_base ? "   <-- differs" : "");
        fprintf(stderr, "%-8s 0x%016" PRIx64 "   0x%016" PRIx64 "%s\n", "gs_base", nat->gs_base,
                emu->gs_base, nat->gs_base != emu->gs_base ? "   <-- differs" : "");
    }
}

static bool regs_equal(const elfemu_regs *a, const elfemu_regs *b, uint64_t flag_mask, int bits)
{
    uint64_t m = bits == 64 ? ~0ull : 0xffffffffull;
    for (int i = 0; i < (bits == 64 ? 16 : 8); i++)
        if ((a->gpr[i] ^ b->gpr[i]) & m)
            return false;
    if ((a->rip ^ b->rip) & m)
        return false;
    if ((a->rflags ^ b->rflags) & flag_mask)
        return false;
    if (bits == 64 && (a->fs_base != b->fs_base || a->gs_base != b->gs_base))
        return false;
    return true;
}

/* ------------------------------------------------------------ FPU */
static uint16_t get16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static uint32_t get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }

/* FSW bits of C0..C3 for the Zydis FPU flag mask. */
static uint16_t fsw_cond_bits(uint32_t zydis_mask)
{
    uint16_t m = 0;
    if (zydis_mask & ZYDIS_FPUFLAG_C0) m |= 1u << 8;
    if (zydis_mask & ZYDIS_FPUFLAG_C1) m |= 1u << 9;
    if (zydis_mask & ZYDIS_FPUFLAG_C2) m |= 1u << 10;
    if (zydis_mask & ZYDIS_FPUFLAG_C3) m |= 1u << 14;
    return m;
}

uint16_t dt_fsw_undef_mask(uint32_t zydis_mask)
{
    return fsw_cond_bits(zydis_mask);
}

/* Compare two FXSAVE images; print the differences when print. */
static bool fp_equal(const uint8_t *a, const uint8_t *b, uint32_t fpu_undef, int bits, bool print)
{
    bool eq = true;
#define FIELD(name, va, vb, fmt)                                                               \
    do {                                                                                       \
        if ((va) != (vb)) {                                                                    \
            eq = false;                                                                        \
            if (print)                                                                         \
                fprintf(stderr, "%-8s " fmt "   " fmt "   <-- differs\n", name, va, vb);       \
        }                                                                                      \
    } while (0)
    uint16_t fswm = (uint16_t)~fsw_cond_bits(fpu_undef);
    FIELD("fcw", get16(a), get16(b), "0x%04x");
    FIELD("fsw", get16(a + 2) & fswm, get16(b + 2) & fswm, "0x%04x");
    FIELD("ftw", a[4], b[4], "0x%02x");
    FIELD("mxcsr", get32(a + 24), get32(b + 24), "0x%08x");
#undef FIELD
    unsigned top = (get16(a + 2) >> 11) & 7;
    for (int i = 0; i < 8; i++) {
        unsigned phys = (top + (unsigned)i) & 7;
        if (!(a[4] & (1u << phys)) && !(b[4] & (1u << phys)))
            continue; /* empty on both sides: contents are meaningless */
        const uint8_t *x = a + 32 + 16 * i, *y = b + 32 + 16 * i;
        if (memcmp(x, y, 10) == 0)
            continue;
        eq = false;
        if (print) {
            long double lx = 0, ly = 0;
            memcpy(&lx, x, 10);
            memcpy(&ly, y, 10);
            fprintf(stderr, "st(%d)    %04x:%016" PRIx64 " (%Lg)   %04x:%016" PRIx64
                            " (%Lg)   <-- differs\n",
                    i, get16(x + 8), *(const uint64_t *)(const void *)x, lx, get16(y + 8),
                    *(const uint64_t *)(const void *)y, ly);
        }
    }
    for (int i = 0; i < (bits == 64 ? 16 : 8); i++) {
        const uint8_t *x = a + 160 + 16 * i, *y = b + 160 + 16 * i;
        if (memcmp(x, y, 16) == 0)
            continue;
        eq = false;
        if (print) {
            uint64_t xq[2], yq[2];
            memcpy(xq, x, 16);
            memcpy(yq, y, 16);
            fprintf(stderr, "xmm%-5d %016" PRIx64 ":%016" PRIx64 "   %016" PRIx64 ":%016" PRIx64
                            "   <-- differs\n",
                    i, xq[1], xq[0], yq[1], yq[0]);
        }
    }
    return eq;
}

/* ------------------------------------------------------------ memory */
static void hexdump_diff(uint64_t addr, const uint8_t *a, const uint8_t *b, size_t len)
{
    size_t first = 0;
    while (first < len && a[first] == b[first])
        first++;
    size_t from = first & ~(size_t)15, to = from + 32 < len ? from + 32 : len;
    fprintf(stderr, "memory at %#" PRIx64 " (first difference at %#" PRIx64 "):\n", addr + from,
            addr + first);
    fprintf(stderr, "  native  ");
    for (size_t i = from; i < to; i++)
        fprintf(stderr, "%02x%s", a[i], a[i] != b[i] ? "*" : " ");
    fprintf(stderr, "\n  emulator");
    for (size_t i = from; i < to; i++)
        fprintf(stderr, "%02x%s", b[i], a[i] != b[i] ? "*" : " ");
    fprintf(stderr, "\n");
}

/* Compare [addr, addr+len); prints when they differ. */
static bool mem_equal(struct native *n, elfemu *vm, uint64_t addr, uint64_t len, bool print)
{
    static uint8_t a[65536], b[65536];
    while (len) {
        size_t l = len < sizeof(a) ? (size_t)len : sizeof(a);
        int ea = native_read(n, addr, a, l), eb = elfemu_read(vm, addr, b, l);
        if (ea != 0 || eb != 0) {
            if ((ea == 0) != (eb == 0)) {
                if (print)
                    fprintf(stderr, "memory at %#" PRIx64 " (%zu bytes): readable %s only\n",
                            addr, l, ea == 0 ? "natively" : "in the emulator");
                return false;
            }
        } else if (memcmp(a, b, l) != 0) {
            if (print)
                hexdump_diff(addr, a, b, l);
            return false;
        }
        addr += l;
        len -= l;
    }
    return true;
}

bool compare_state(struct native *n, elfemu *vm, const struct dt_check *chk,
                   const struct dt_insn *insn)
{
    int bits = elfemu_bits(vm);
    elfemu_regs e, r;
    elfemu_get_regs(vm, &e);
    native_to_emu_regs(n, &r);
    uint64_t fmask = DT_FLAGS_COMPARED & ~chk->flag_undef;
    bool regs_ok = regs_equal(&r, &e, fmask, bits);
    uint8_t fa[DT_FXSAVE_SIZE], fb[DT_FXSAVE_SIZE];
    bool fp_ok = true, mem_ok = true;
    if (chk->fp) {
        if (native_get_fp(n, fa) != 0)
            return false;
        elfemu_get_fpstate(vm, fb);
        fp_ok = fp_equal(fa, fb, chk->fpu_undef, bits, false);
    }
    for (unsigned i = 0; i < chk->nmem; i++)
        mem_ok &= mem_equal(n, vm, chk->mem[i].addr, chk->mem[i].len, false);
    if (regs_ok && fp_ok && mem_ok)
        return true;

    char what[128];
    snprintf(what, sizeof(what), "MISMATCH after instruction %" PRIu64 " (%s%s%s differ)",
             insn->n, regs_ok ? "" : "registers", !regs_ok && (!fp_ok || !mem_ok) ? ", " : "",
             !fp_ok && !mem_ok ? "x87/SSE state, memory" : !fp_ok ? "x87/SSE state"
                                                          : !mem_ok ? "memory" : "");
    report_header(vm, what, insn);
    report_history(vm);
    report_regs(&r, &e, fmask, bits);
    if (!fp_ok) {
        fprintf(stderr, "x87/SSE state (native, emulator):\n");
        fp_equal(fa, fb, chk->fpu_undef, bits, true);
    }
    for (unsigned i = 0; i < chk->nmem; i++)
        mem_equal(n, vm, chk->mem[i].addr, chk->mem[i].len, true);
    return false;
}

bool compare_all_memory(struct native *n, elfemu *vm, const struct dt_insn *insn)
{
    struct dt_maps m;
    if (dt_maps_get(vm, &m) != 0)
        return false;
    bool ok = true;
    for (size_t i = 0; i < m.n && ok; i++) {
        if (!(m.v[i].prot & 1 /* PROT_READ */))
            continue;
        uint64_t end = dt_map_readable_end(&m.v[i]);
        if (end > m.v[i].start && !mem_equal(n, vm, m.v[i].start, end - m.v[i].start, false)) {
            char what[400];
            snprintf(what, sizeof(what),
                     "MISMATCH in memory at exit, in the mapping %#" PRIx64 "-%#" PRIx64 " %s",
                     m.v[i].start, m.v[i].end, m.v[i].name);
            report_header(vm, what, insn);
            report_history(vm);
            mem_equal(n, vm, m.v[i].start, end - m.v[i].start, true);
            ok = false;
        }
    }
    dt_maps_free(&m);
    return ok;
}
