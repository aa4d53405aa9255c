/* --trace: one line per executed instruction, built only on the public
 * hooks of include/elfemu.h.
 *
 *   SEQ [TID] ADDR <SYMBOL+OFF> BYTES  DISASSEMBLY  CHANGES
 *       read  SIZE @ ADDR = VALUE        (--trace=mem)
 *
 * An instruction's line is written when the thread reaches its next
 * instruction (or a syscall that ends the thread, or the end of the run):
 * only then are the registers and flags it changed known, and the values
 * it wrote (the memory hook reports writes after the instruction).  The
 * lines of all threads go through one buffer under one lock, written out
 * in whole lines when it fills, before every syscall (so that they come
 * before what the syscall does: a fork, an execve, --strace's line) and at
 * the end.  Disassembly and symbols are cached by address. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/disasm.h"
#include "tools/outfile.h"
#include "tools/symbols.h"
#include "tools/trace.h"

#define OUT_SIZE (256 * 1024)
#define CACHE_SIZE 16384

/* One cached instruction: its bytes, disassembly and symbol. */
struct cached {
    uint64_t addr;
    uint8_t len;
    uint8_t bytes[15];
    unsigned sym_gen;   /* the symbols' generation the text was made in */
    char text[96];
    char sym[160];
};

static struct {
    struct trace_options o;
    elfemu *vm;
    int bits;
    struct syms *syms;
    unsigned sym_gen;   /* bumped when the mappings change */
    int fd;
    char *out;
    size_t len;
    uint64_t seq;       /* instructions executed so far (all threads) */
    uint64_t lines;     /* instruction lines written */
    bool done;          /* --trace-count reached */
    int id_insn, id_mem, id_sys;
    uint64_t entries[64];  /* --trace-sym: where the function starts */
    size_t nentries;
    unsigned entries_gen;
    struct cached *cache;
    pthread_mutex_t lock;
} T = { .fd = -1, .lock = PTHREAD_MUTEX_INITIALIZER };

/* The thread's instruction whose line is not written yet. */
static __thread struct pending {
    bool have;
    uint64_t seq;
    struct cached *ins;     /* its cache slot (valid under the lock until replaced) */
    uint64_t addr;
    uint8_t len, bytes[15];
    elfemu_regs regs;
    uint8_t fp[512];
    char *mem;              /* its memory lines */
    size_t mlen, mcap;
    bool in_sym;            /* --trace-sym: inside the function */
    uint64_t sym_sp;        /* the stack pointer at its entry */
} P;

/* ------------------------------------------------------------ output */

static void out_flush(void)
{
    outfile_write(T.fd, T.out, T.len);
    T.len = 0;
}

static void out_put(const char *s, size_t n)
{
    if (T.len + n > OUT_SIZE)
        out_flush();
    if (n > OUT_SIZE) {
        (void)!write(T.fd, s, n);
        return;
    }
    memcpy(T.out + T.len, s, n);
    T.len += n;
}

/* ------------------------------------------------------------ one line */

static const char *const names64[16] = { "rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
                                         "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15" };
static const char *const names32[8] = { "eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi" };
static const struct { unsigned bit; const char *name; } flag_names[] = {
    { 0, "CF" }, { 2, "PF" }, { 4, "AF" }, { 6, "ZF" }, { 7, "SF" }, { 10, "DF" }, { 11, "OF" },
};

static struct cached *cached_insn(uint64_t addr, const uint8_t *bytes, unsigned len)
{
    struct cached *e = &T.cache[(addr ^ (addr >> 14)) % CACHE_SIZE];
    if (e->addr == addr && e->len == len && !memcmp(e->bytes, bytes, len) && e->sym_gen == T.sym_gen)
        return e;
    if (!(e->addr == addr && e->len == len && !memcmp(e->bytes, bytes, len))) {
        struct disasm d;
        bool ok = disasm_one(T.bits, T.o.att, addr, bytes, len, &d);
        snprintf(e->text, sizeof(e->text), "%s", ok ? d.text : "(bad)");
        e->addr = addr;
        e->len = (uint8_t)len;
        memcpy(e->bytes, bytes, len);
    }
    char s[sizeof(e->sym) - 3];
    if (syms_format(T.syms, addr, s, sizeof(s)))
        snprintf(e->sym, sizeof(e->sym), "<%s>", s);
    else
        e->sym[0] = 0;
    e->sym_gen = T.sym_gen;
    return e;
}

/* " name=value" for every register, flag and FPU/SSE register that differs. */
static size_t changes(char *p, size_t size, const elfemu_regs *a, const elfemu_regs *b,
                      const uint8_t *fa, const uint8_t *fb)
{
    size_t n = 0;
#define ADD(...) n += (size_t)snprintf(p + n, n < size ? size - n : 0, __VA_ARGS__)
    unsigned ngpr = T.bits == 64 ? 16 : 8;
    for (unsigned i = 0; i < ngpr; i++) {
        uint64_t x = a->gpr[i], y = b->gpr[i];
        if (T.bits == 32)
            x = (uint32_t)x, y = (uint32_t)y;
        if (x != y)
            ADD(" %s=%#" PRIx64, T.bits == 64 ? names64[i] : names32[i], y);
    }
    for (size_t i = 0; i < sizeof(flag_names) / sizeof(flag_names[0]); i++) {
        uint64_t m = 1ull << flag_names[i].bit;
        if ((a->rflags ^ b->rflags) & m)
            ADD(" %s=%d", flag_names[i].name, (b->rflags & m) != 0);
    }
    if (a->fs_base != b->fs_base)
        ADD(" fs_base=%#" PRIx64, b->fs_base);
    if (a->gs_base != b->gs_base)
        ADD(" gs_base=%#" PRIx64, b->gs_base);
    /* FXSAVE image: FCW 0, FSW 2, MXCSR 24, ST(i) at 32 + 16i, XMMi at 160 + 16i. */
    uint16_t w0, w1;
    memcpy(&w0, fa, 2), memcpy(&w1, fb, 2);
    if (w0 != w1)
        ADD(" fcw=%#x", w1);
    memcpy(&w0, fa + 2, 2), memcpy(&w1, fb + 2, 2);
    if (w0 != w1)
        ADD(" fsw=%#x", w1);
    uint32_t m0, m1;
    memcpy(&m0, fa + 24, 4), memcpy(&m1, fb + 24, 4);
    if (m0 != m1)
        ADD(" mxcsr=%#x", m1);
    for (unsigned i = 0; i < 8; i++)
        if (memcmp(fa + 32 + 16 * i, fb + 32 + 16 * i, 10)) {
            long double v;
            memset(&v, 0, sizeof(v));
            memcpy(&v, fb + 32 + 16 * i, 10);
            ADD(" st%u=%.21Lg", i, v);
        }
    for (unsigned i = 0; i < (T.bits == 64 ? 16u : 8u); i++)
        if (memcmp(fa + 160 + 16 * i, fb + 160 + 16 * i, 16)) {
            uint64_t lo, hi;
            memcpy(&lo, fb + 160 + 16 * i, 8), memcpy(&hi, fb + 168 + 16 * i, 8);
            ADD(" xmm%u=0x%016" PRIx64 "%016" PRIx64, i, hi, lo);
        }
#undef ADD
    return n < size ? n : size - 1;
}

/* Write the pending line of this thread; t's registers are the state
 * after its instruction (lock held). */
static void write_pending(elfemu_thread *t)
{
    if (!P.have)
        return;
    P.have = false;
    char line[4096];
    size_t n = 0;
    n += (size_t)snprintf(line + n, sizeof(line) - n, "%" PRIu64 " ", P.seq);
    if (elfemu_thread_count(T.vm) > 1)
        n += (size_t)snprintf(line + n, sizeof(line) - n, "[%d] ", elfemu_thread_tid(t));
    struct cached *e = cached_insn(P.addr, P.bytes, P.len);
    n += (size_t)snprintf(line + n, sizeof(line) - n, "%#" PRIx64 " ", P.addr);
    if (e->sym[0])
        n += (size_t)snprintf(line + n, sizeof(line) - n, "%s ", e->sym);
    /* Columns, as far as the symbols allow. */
    while (n < 48 && n < sizeof(line) - 1)
        line[n++] = ' ';
    size_t col = n;
    for (unsigned i = 0; i < P.len; i++)
        n += (size_t)snprintf(line + n, sizeof(line) - n, "%02x ", P.bytes[i]);
    while (n < col + 3 * 10 && n < sizeof(line) - 1)
        line[n++] = ' ';
    n += (size_t)snprintf(line + n, sizeof(line) - n, "%-32s", e->text);
    elfemu_regs now;
    uint8_t fp[512];
    elfemu_thread_get_regs(t, &now);
    elfemu_thread_get_fpstate(t, fp);
    n += changes(line + n, sizeof(line) - n, &P.regs, &now, P.fp, fp);
    while (n > 0 && line[n - 1] == ' ')
        n--;
    line[n++] = '\n';
    out_put(line, n);
    if (P.mlen)
        out_put(P.mem, P.mlen);
    P.mlen = 0;
}

/* ------------------------------------------------------------ filters */

static void refresh_entries(void)
{
    if (T.entries_gen == T.sym_gen)
        return;
    T.entries_gen = T.sym_gen;
    T.nentries = syms_addresses(T.syms, T.o.sym, T.entries, 64);
}

/* Whether the instruction at addr (number seq) gets a line. */
static bool wanted(elfemu_thread *t, uint64_t addr, uint64_t seq, const elfemu_regs *r)
{
    if (T.o.sym) {
        /* Inside from the function's first instruction until the stack
         * pointer rises above the return address it was called with (a
         * ret, a longjmp out); recursion and callees stay inside. */
        if (P.in_sym && r->gpr[4] > P.sym_sp)
            P.in_sym = false;
        if (!P.in_sym) {
            refresh_entries();
            for (size_t i = 0; i < T.nentries && !P.in_sym; i++)
                if (T.entries[i] == addr) {
                    P.in_sym = true;
                    P.sym_sp = r->gpr[4];
                }
        }
        if (!P.in_sym)
            return false;
    }
    (void)t;
    if (seq < T.o.start)
        return false;
    if (T.o.have_range && (addr < T.o.range_lo || addr >= T.o.range_hi))
        return false;
    return true;
}

/* ------------------------------------------------------------ hooks */

static void stop_tracing(void)
{
    /* Everything asked for is written: the guest runs on at full speed. */
    if (T.id_insn > 0)
        elfemu_hook_remove(T.vm, T.id_insn);
    if (T.id_mem > 0)
        elfemu_hook_remove(T.vm, T.id_mem);
    T.id_insn = T.id_mem = 0;
}

static void on_insn(elfemu *vm, elfemu_thread *t, const elfemu_insn *in, void *user)
{
    (void)vm, (void)user;
    pthread_mutex_lock(&T.lock);
    uint64_t seq = ++T.seq;
    write_pending(t);
    if (T.done) {
        stop_tracing();
        pthread_mutex_unlock(&T.lock);
        return;
    }
    elfemu_regs r;
    elfemu_thread_get_regs(t, &r);
    if (wanted(t, in->addr, seq, &r)) {
        P.have = true;
        P.seq = seq;
        P.addr = in->addr;
        P.len = (uint8_t)in->len;
        memcpy(P.bytes, in->bytes, in->len);
        P.regs = r;
        elfemu_thread_get_fpstate(t, P.fp);
        P.mlen = 0;
        if (T.o.count && ++T.lines >= T.o.count)
            T.done = true;
    }
    pthread_mutex_unlock(&T.lock);
}

static void on_mem(elfemu *vm, elfemu_thread *t, const elfemu_mem_access *a, void *user)
{
    (void)vm, (void)t, (void)user;
    if (!P.have)
        return;
    char line[64 + 2 * 1024];
    int n = snprintf(line, sizeof(line), "    %-5s %u @ %#" PRIx64 " = ", a->write ? "write" : "read",
                     a->size, a->addr);
    unsigned shown = a->size < 1024 ? a->size : 1024;
    if (a->size <= 8) {
        n += snprintf(line + n, sizeof(line) - (size_t)n, "0x%0*" PRIx64, 2 * (int)a->size, a->value);
    } else {
        /* Bytes in memory order. */
        for (unsigned i = 0; i < shown; i++)
            n += snprintf(line + n, sizeof(line) - (size_t)n, "%02x", a->data[i]);
    }
    line[n++] = '\n';
    if (P.mlen + (size_t)n > P.mcap) {
        size_t cap = P.mcap ? P.mcap * 2 : 4096;
        while (cap < P.mlen + (size_t)n)
            cap *= 2;
        char *m = realloc(P.mem, cap);
        if (!m)
            return;
        P.mem = m;
        P.mcap = cap;
    }
    memcpy(P.mem + P.mlen, line, (size_t)n);
    P.mlen += (size_t)n;
}

/* Syscalls that end the thread. */
static bool exit_call(int bits, uint64_t nr)
{
    return bits == 64 ? nr == 60 || nr == 231 : nr == 1 || nr == 252;
}

static bool on_sys_before(elfemu *vm, elfemu_thread *t, elfemu_syscall *call, void *user)
{
    (void)vm, (void)user;
    pthread_mutex_lock(&T.lock);
    if (exit_call(call->bits, call->nr))
        write_pending(t); /* no next instruction will write it */
    out_flush();
    pthread_mutex_unlock(&T.lock);
    return false;
}

static void on_sys_after(elfemu *vm, elfemu_thread *t, elfemu_syscall *call, void *user)
{
    (void)vm, (void)t, (void)user;
    if (syms_maps_call(call->bits, call->nr) && call->result >= 0) {
        pthread_mutex_lock(&T.lock);
        syms_changed(T.syms);
        T.sym_gen++;
        pthread_mutex_unlock(&T.lock);
    }
}

/* ------------------------------------------------------------ start and end */

int trace_begin(elfemu *vm, const struct trace_options *o)
{
    T.o = *o;
    T.vm = vm;
    T.bits = elfemu_bits(vm);
    T.syms = syms_new(vm);
    T.out = malloc(OUT_SIZE);
    T.cache = calloc(CACHE_SIZE, sizeof(*T.cache));
    T.sym_gen = 1;
    if (!T.syms || !T.out || !T.cache) {
        fprintf(stderr, "elfemu: out of memory\n");
        return -1;
    }
    T.fd = o->file ? outfile_open(o->file, o->append, "trace file") : 2;
    if (T.fd < 0)
        return -1;
    if (T.fd > 2 && elfemu_reserve_fd(vm, T.fd) != 0) {
        fprintf(stderr, "elfemu: cannot keep the trace file from the guest: %s\n", strerror(errno));
        return -1;
    }
    T.id_insn = elfemu_hook_insn(vm, on_insn, NULL);
    T.id_mem = o->mem ? elfemu_hook_mem(vm, on_mem, NULL) : 0;
    T.id_sys = elfemu_hook_syscall(vm, on_sys_before, on_sys_after, NULL);
    if (T.id_insn < 0 || T.id_mem < 0 || T.id_sys < 0) {
        fprintf(stderr, "elfemu: cannot install the trace hooks\n");
        return -1;
    }
    return 0;
}

void trace_end(elfemu *vm)
{
    if (!T.out)
        return;
    /* This thread ran elfemu_run(): its last instruction's line is
     * written with the registers as the guest left them. */
    pthread_mutex_lock(&T.lock);
    write_pending(elfemu_main_thread(vm));
    out_flush();
    pthread_mutex_unlock(&T.lock);
    stop_tracing();
    if (T.id_sys > 0)
        elfemu_hook_remove(vm, T.id_sys);
    T.id_sys = 0;
    if (T.fd > 2)
        close(T.fd);
    T.fd = -1;
    syms_free(T.syms);
    free(T.out);
    free(T.cache);
    free(P.mem);
    T.syms = NULL;
    T.out = NULL;
    T.cache = NULL;
    P.mem = NULL;
}
