/* --stats: what the run did, written when the program ends, built on the
 * public API only (include/elfemu.h).
 *
 * Instructions, blocks decoded and self-modifying-code invalidations are
 * the library's counters (elfemu_get_stats); everything else comes from
 * hooks installed only with --stats, so that a run without it pays
 * nothing:
 *  - a block hook counts each execution of a block in a table of the
 *    thread's own (no lock on the way: only the thread writes its table).
 *    The first time a thread meets a block, the block's instructions are
 *    decoded once with Zydis for their mnemonics and looked up once for
 *    their functions; the histograms are the per-block lists times the
 *    execution counts, added up when the report is made (or when the
 *    guest's code changed: elfemu_code_generation()).
 *  - syscall hooks count calls by name (before: exit and execve never
 *    return) and failures (after: results -4095..-1).
 * Wall time runs from the load to the end.
 *
 * Processes: the report covers one program image in one process.  A
 * forked child is a copy of the process, hooks included: it starts its
 * counters afresh at the fork and writes its own report (with its pid)
 * when it ends.  An execve ends the image (its report is written) and the
 * new program runs under a new elfemu, which reports on its own.
 * Threads: all threads of the process are counted together. */
#include <inttypes.h>
#include <stdarg.h>
#include <pthread.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <Zydis/Zydis.h>

#include "tools/outfile.h"
#include "tools/stats.h"
#include "tools/symbols.h"

#define TOP 20
#define NSYS 512

/* What a block is made of, found once per thread and block. */
struct binfo {
    uint64_t end;
    unsigned n;
    uint16_t *mnemonic;     /* ZydisMnemonic of each instruction */
    const char **function;  /* its function's name (NULL: no symbol) */
};

/* A thread's blocks by start address (open addressing). */
struct bent {
    uint64_t start;
    uint64_t execs;
    struct binfo *info;     /* NULL: a free slot */
};

struct ttab {
    pthread_mutex_t lock;   /* the owner's changes vs. the report */
    struct bent *v;
    size_t cap, n;
    uint64_t gen;           /* elfemu_code_generation() the entries belong to */
    uint64_t blocks;        /* block executions */
    struct ttab *next;
};

/* Function name -> instructions (open addressing on the name pointer,
 * which lives as long as the symbols). */
struct fent {
    const char *name;
    uint64_t count;
};

static struct {
    struct stats_options o;
    elfemu *vm;
    const char *program;
    int bits;
    int fd;
    pid_t pid;
    struct timespec t0;
    elfemu_stats base;      /* the counters when this report's span began */
    pthread_mutex_t lock;   /* symbols, histograms, the list of tables */
    struct syms *syms;
    ZydisDecoder dec;
    struct ttab *tables;
    uint64_t mnemonics[ZYDIS_MNEMONIC_MAX_VALUE + 1];
    struct fent *funcs;
    size_t fcap, fn;
    uint64_t no_symbol;     /* instructions outside every symbol */
    uint64_t calls[2][NSYS], errors[2][NSYS]; /* [0]: 64-bit numbers, [1]: i386 */
} S = { .fd = -1, .lock = PTHREAD_MUTEX_INITIALIZER };

static __thread struct ttab *mine;

/* ------------------------------------------------------------ histograms */

static void func_add(const char *name, uint64_t n)
{
    if (!name) {
        S.no_symbol += n;
        return;
    }
    if (2 * (S.fn + 1) > S.fcap) {
        size_t cap = S.fcap ? 2 * S.fcap : 1024;
        struct fent *v = calloc(cap, sizeof(*v));
        if (!v)
            return;
        for (size_t i = 0; i < S.fcap; i++)
            if (S.funcs[i].name) {
                size_t j = ((uintptr_t)S.funcs[i].name >> 3) & (cap - 1);
                while (v[j].name)
                    j = (j + 1) & (cap - 1);
                v[j] = S.funcs[i];
            }
        free(S.funcs);
        S.funcs = v;
        S.fcap = cap;
    }
    size_t j = ((uintptr_t)name >> 3) & (S.fcap - 1);
    while (S.funcs[j].name && S.funcs[j].name != name)
        j = (j + 1) & (S.fcap - 1);
    if (!S.funcs[j].name) {
        S.funcs[j].name = name;
        S.fn++;
    }
    S.funcs[j].count += n;
}

/* Add a block's executions to the histograms (S.lock held). */
static void fold_entry(struct bent *e)
{
    uint64_t x = __atomic_load_n(&e->execs, __ATOMIC_RELAXED);
    const struct binfo *b = e->info;
    for (unsigned i = 0; x && i < b->n; i++) {
        S.mnemonics[b->mnemonic[i]] += x;
        func_add(b->function[i], x);
    }
    __atomic_store_n(&e->execs, 0, __ATOMIC_RELAXED);
}

/* Fold a whole table (S.lock and t->lock held); discard: empty it too,
 * which only its owner may do (the owner reads it without a lock). */
static void fold_table(struct ttab *t, bool discard)
{
    for (size_t i = 0; i < t->cap; i++)
        if (t->v[i].info) {
            fold_entry(&t->v[i]);
            if (discard) {
                free(t->v[i].info);
                t->v[i].info = NULL;
            }
        }
    if (discard)
        t->n = 0;
}

/* ------------------------------------------------------------ blocks */

/* Decode [start, end) for its mnemonics and functions (S.lock held). */
static struct binfo *describe(uint64_t start, uint64_t end, unsigned n)
{
    struct binfo *b = calloc(1, sizeof(*b) + n * (sizeof(uint16_t) + sizeof(char *)));
    if (!b)
        return NULL;
    b->end = end;
    b->n = n;
    b->function = (const char **)(b + 1);
    b->mnemonic = (uint16_t *)(b->function + n);
    uint8_t buf[64 * 15];
    size_t len = end - start < sizeof(buf) ? (size_t)(end - start) : sizeof(buf);
    if (elfemu_read(S.vm, start, buf, len) != 0)
        len = 0;
    size_t off = 0;
    for (unsigned i = 0; i < n; i++) {
        ZydisDecodedInstruction zi;
        uint64_t addr = start + off;
        if (off < len && ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&S.dec, NULL, buf + off,
                                                                    len - off, &zi))) {
            b->mnemonic[i] = (uint16_t)zi.mnemonic;
            off += zi.length;
        } else {
            b->mnemonic[i] = ZYDIS_MNEMONIC_INVALID;
            off = len;
        }
        const char *name;
        uint64_t ofs;
        b->function[i] = syms_find(S.syms, addr, &name, &ofs) ? name : NULL;
    }
    return b;
}

static struct ttab *my_table(void)
{
    if (mine)
        return mine;
    struct ttab *t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    pthread_mutex_init(&t->lock, NULL);
    t->gen = elfemu_code_generation(S.vm);
    pthread_mutex_lock(&S.lock);
    t->next = S.tables;
    S.tables = t;
    pthread_mutex_unlock(&S.lock);
    return mine = t;
}

static size_t slot_of(const struct ttab *t, uint64_t start)
{
    size_t j = (size_t)((start * 0x9e3779b97f4a7c15ull) >> 20) & (t->cap - 1);
    while (t->v[j].info && t->v[j].start != start)
        j = (j + 1) & (t->cap - 1);
    return j;
}

/* Room for one more entry (t->lock held). */
static bool grow(struct ttab *t)
{
    if (2 * (t->n + 1) <= t->cap)
        return true;
    size_t cap = t->cap ? 2 * t->cap : 4096;
    struct bent *old = t->v;
    size_t oldcap = t->cap;
    struct bent *v = calloc(cap, sizeof(*v));
    if (!v)
        return false;
    t->v = v;
    t->cap = cap;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].info)
            t->v[slot_of(t, old[i].start)] = old[i];
    free(old);
    return true;
}

/* A block the thread has not met (or that changed): describe it. */
static __attribute__((noinline)) void new_block(struct ttab *t, uint64_t start, uint64_t end,
                                                unsigned n)
{
    pthread_mutex_lock(&S.lock);
    pthread_mutex_lock(&t->lock);
    size_t j = t->cap ? slot_of(t, start) : 0;
    if (t->cap && t->v[j].info) { /* the same start, other instructions */
        fold_entry(&t->v[j]);
        free(t->v[j].info);
        t->v[j].info = NULL;
        t->n--;
    }
    struct binfo *b = grow(t) ? describe(start, end, n) : NULL;
    if (b) {
        j = slot_of(t, start);
        t->v[j] = (struct bent){ start, 1, b };
        t->n++;
    }
    pthread_mutex_unlock(&t->lock);
    pthread_mutex_unlock(&S.lock);
}

static void on_block(elfemu *vm, elfemu_thread *th, uint64_t start, uint64_t end, unsigned n,
                     void *user)
{
    (void)th, (void)user;
    struct ttab *t = my_table();
    if (!t)
        return;
    __atomic_store_n(&t->blocks, t->blocks + 1, __ATOMIC_RELAXED);
    uint64_t gen = elfemu_code_generation(vm);
    if (gen != t->gen) {
        /* Code changed somewhere: what the table knows may be stale. */
        pthread_mutex_lock(&S.lock);
        pthread_mutex_lock(&t->lock);
        fold_table(t, true);
        t->gen = gen;
        pthread_mutex_unlock(&t->lock);
        pthread_mutex_unlock(&S.lock);
    }
    if (t->cap) {
        struct bent *e = &t->v[slot_of(t, start)];
        if (e->info && e->info->end == end && e->info->n == n) {
            __atomic_store_n(&e->execs, e->execs + 1, __ATOMIC_RELAXED);
            return;
        }
    }
    new_block(t, start, end, n);
}

/* ------------------------------------------------------------ syscalls and processes */

/* A new span: now, with nothing counted (S.lock held). */
static void restart(void)
{
    clock_gettime(CLOCK_MONOTONIC, &S.t0);
    elfemu_get_stats(S.vm, &S.base);
    memset(S.calls, 0, sizeof(S.calls));
    memset(S.errors, 0, sizeof(S.errors));
    memset(S.mnemonics, 0, sizeof(S.mnemonics));
    memset(S.funcs, 0, S.fcap * sizeof(*S.funcs));
    S.fn = 0;
    S.no_symbol = 0;
}

/* The first syscall return in a forked child: the parent's threads are
 * not here and their counts are the parent's; start afresh. */
static void forked(void)
{
    pthread_mutex_init(&S.lock, NULL);
    S.pid = getpid();
    for (struct ttab *t = S.tables; t; t = t->next) {
        pthread_mutex_init(&t->lock, NULL);
        for (size_t i = 0; i < t->cap; i++) {
            free(t->v[i].info);
            t->v[i].info = NULL;
        }
        t->n = 0;
        t->blocks = 0;
    }
    /* Another thread may have been reading symbols at the fork. */
    S.syms = syms_new(S.vm);
    restart();
}

static bool on_sys_before(elfemu *vm, elfemu_thread *t, elfemu_syscall *call, void *user)
{
    (void)vm, (void)t, (void)user;
    if (call->nr < NSYS)
        __atomic_fetch_add(&S.calls[call->bits == 32][call->nr], 1, __ATOMIC_RELAXED);
    /* A thread's exit: its blocks go into the histograms now. */
    if (mine && call->nr == (call->bits == 64 ? 60u : 1u)) {
        pthread_mutex_lock(&S.lock);
        pthread_mutex_lock(&mine->lock);
        fold_table(mine, true);
        pthread_mutex_unlock(&mine->lock);
        pthread_mutex_unlock(&S.lock);
    }
    return false;
}

static void on_sys_after(elfemu *vm, elfemu_thread *t, elfemu_syscall *call, void *user)
{
    (void)vm, (void)t, (void)user;
    if (call->result < 0 && call->result >= -4095 && call->nr < NSYS)
        __atomic_fetch_add(&S.errors[call->bits == 32][call->nr], 1, __ATOMIC_RELAXED);
    if (getpid() != S.pid) {
        forked();
        return;
    }
    if (syms_maps_call(call->bits, call->nr) && call->result >= 0) {
        pthread_mutex_lock(&S.lock);
        syms_changed(S.syms);
        pthread_mutex_unlock(&S.lock);
    }
}

/* ------------------------------------------------------------ the report */

struct out {
    char *p;
    size_t len, cap;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct out *o, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(o->p + o->len, o->cap - o->len, fmt, ap);
        va_end(ap);
        if (n < 0)
            return;
        if ((size_t)n < o->cap - o->len) {
            o->len += (size_t)n;
            return;
        }
        size_t cap = 2 * (o->cap + (size_t)n);
        char *p = realloc(o->p, cap);
        if (!p)
            return;
        o->p = p;
        o->cap = cap;
    }
}

/* s as a JSON string. */
static void put_json_str(struct out *o, const char *s)
{
    put(o, "\"");
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            put(o, "\\%c", ch);
        else if (ch < 0x20)
            put(o, "\\u%04x", ch);
        else
            put(o, "%c", ch);
    }
    put(o, "\"");
}

struct ranked {
    const char *name;
    uint64_t count;
};

static int by_count(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* The mnemonics and functions, most executed first; *total: their sum. */
static struct ranked *ranked_mnemonics(size_t *n, uint64_t *total)
{
    struct ranked *v = calloc(ZYDIS_MNEMONIC_MAX_VALUE + 1, sizeof(*v));
    *n = 0;
    *total = 0;
    for (unsigned i = 0; v && i <= ZYDIS_MNEMONIC_MAX_VALUE; i++)
        if (S.mnemonics[i]) {
            const char *s = ZydisMnemonicGetString((ZydisMnemonic)i);
            v[(*n)++] = (struct ranked){ s ? s : "(invalid)", S.mnemonics[i] };
            *total += S.mnemonics[i];
        }
    if (v)
        qsort(v, *n, sizeof(*v), by_count);
    return v;
}

static struct ranked *ranked_functions(size_t *n, uint64_t *total)
{
    struct ranked *v = calloc(S.fn + 1, sizeof(*v));
    *n = 0;
    *total = S.no_symbol;
    for (size_t i = 0; v && i < S.fcap; i++)
        if (S.funcs[i].name && S.funcs[i].count) {
            v[(*n)++] = (struct ranked){ S.funcs[i].name, S.funcs[i].count };
            *total += S.funcs[i].count;
        }
    if (v && S.no_symbol)
        v[(*n)++] = (struct ranked){ "(no symbol)", S.no_symbol };
    if (v)
        qsort(v, *n, sizeof(*v), by_count);
    return v;
}

static const char *sys_name(int abi, unsigned nr, char *buf, size_t size)
{
    const char *s = elfemu_syscall_name(abi ? 32 : 64, nr);
    if (s)
        return s;
    snprintf(buf, size, "syscall_%u", nr);
    return buf;
}

static void report_text(struct out *o, const elfemu_end *end, const elfemu_stats *st,
                        uint64_t blocks, double secs)
{
    static const char *const how[] = { "exited with status", "killed by signal",
                                       "replaced by execve" };
    put(o, "--- elfemu --stats: pid %d, %s: %s", (int)S.pid, S.program, how[end->kind]);
    if (end->kind != ELFEMU_END_EXEC)
        put(o, " %d", end->code);
    put(o, " ---\n");
    uint64_t decoded = st->blocks_decoded;
    put(o, "instructions          %" PRIu64 "\n", st->instructions);
    put(o, "wall time             %.6f s\n", secs);
    put(o, "guest MIPS            %.2f\n", secs > 0 ? (double)st->instructions / secs / 1e6 : 0.0);
    put(o, "blocks decoded        %" PRIu64 "\n", decoded);
    put(o, "blocks executed       %" PRIu64 "\n", blocks);
    put(o, "block-cache hit rate  %.2f %%\n",
        blocks && blocks > decoded ? 100.0 * (double)(blocks - decoded) / (double)blocks : 0.0);
    put(o, "SMC invalidations     %" PRIu64 "\n", st->smc_invalidations);
    uint64_t calls = 0, errors = 0;
    for (int abi = 0; abi < 2; abi++)
        for (unsigned nr = 0; nr < NSYS; nr++)
            calls += S.calls[abi][nr], errors += S.errors[abi][nr];
    put(o, "syscalls              %" PRIu64 " (%" PRIu64 " failed)\n", calls, errors);
    for (int abi = 0; abi < 2; abi++)
        for (unsigned nr = 0; nr < NSYS; nr++)
            if (S.calls[abi][nr]) {
                char buf[32];
                put(o, "  %-20s%10" PRIu64, sys_name(abi, nr, buf, sizeof(buf)), S.calls[abi][nr]);
                if (S.errors[abi][nr])
                    put(o, "  (%" PRIu64 " failed)", S.errors[abi][nr]);
                put(o, "%s\n", abi != (S.bits == 32) ? (abi ? "  [i386]" : "  [x86_64]") : "");
            }
    for (int k = 0; k < 2; k++) {
        size_t n;
        uint64_t total;
        struct ranked *v = k ? ranked_functions(&n, &total) : ranked_mnemonics(&n, &total);
        put(o, "%s (%zu; the first %d)\n",
            k ? "functions, by the instructions in them" : "mnemonics", n, TOP);
        int width = 20;
        for (size_t i = 0; v && i < n && i < TOP; i++)
            if ((int)strlen(v[i].name) > width)
                width = strlen(v[i].name) < 60 ? (int)strlen(v[i].name) : 60;
        for (size_t i = 0; v && i < n && i < TOP; i++)
            put(o, "  %-*s %14" PRIu64 "  %6.2f %%\n", width, v[i].name, v[i].count,
                total ? 100.0 * (double)v[i].count / (double)total : 0.0);
        free(v);
    }
}

static void report_json(struct out *o, const elfemu_end *end, const elfemu_stats *st,
                        uint64_t blocks, double secs)
{
    static const char *const how[] = { "exit", "signal", "execve" };
    uint64_t decoded = st->blocks_decoded;
    put(o, "{\"pid\":%d,\"program\":", (int)S.pid);
    put_json_str(o, S.program);
    put(o, ",\"end\":\"%s\",\"code\":%d", how[end->kind], end->code);
    put(o, ",\"instructions\":%" PRIu64 ",\"wall_seconds\":%.6f,\"mips\":%.3f", st->instructions,
        secs, secs > 0 ? (double)st->instructions / secs / 1e6 : 0.0);
    put(o, ",\"blocks_decoded\":%" PRIu64 ",\"blocks_executed\":%" PRIu64, decoded, blocks);
    put(o, ",\"block_cache_hit_rate\":%.6f",
        blocks && blocks > decoded ? (double)(blocks - decoded) / (double)blocks : 0.0);
    put(o, ",\"smc_invalidations\":%" PRIu64 ",\"syscalls\":[", st->smc_invalidations);
    const char *sep = "";
    for (int abi = 0; abi < 2; abi++)
        for (unsigned nr = 0; nr < NSYS; nr++)
            if (S.calls[abi][nr]) {
                char buf[32];
                put(o, "%s{\"name\":\"%s\",\"nr\":%u,\"abi\":%d,\"calls\":%" PRIu64
                       ",\"errors\":%" PRIu64 "}",
                    sep, sys_name(abi, nr, buf, sizeof(buf)), nr, abi ? 32 : 64, S.calls[abi][nr],
                    S.errors[abi][nr]);
                sep = ",";
            }
    for (int k = 0; k < 2; k++) {
        size_t n;
        uint64_t total;
        struct ranked *v = k ? ranked_functions(&n, &total) : ranked_mnemonics(&n, &total);
        put(o, "],\"%s\":[", k ? "functions" : "mnemonics");
        for (size_t i = 0; v && i < n && i < TOP; i++) {
            put(o, "%s{\"name\":", i ? "," : "");
            put_json_str(o, v[i].name);
            put(o, ",\"count\":%" PRIu64 "}", v[i].count);
        }
        free(v);
    }
    put(o, "]}\n");
}

static void on_end(elfemu *vm, elfemu_thread *th, const elfemu_end *end, void *user)
{
    (void)th, (void)user;
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    elfemu_stats now;
    if (elfemu_get_stats(vm, &now) != 0)
        return;
    pthread_mutex_lock(&S.lock);
    /* Other threads may still be running: their tables are read, and
     * their counts taken and zeroed, but only their owners change them. */
    uint64_t blocks = 0;
    for (struct ttab *t = S.tables; t; t = t->next) {
        pthread_mutex_lock(&t->lock);
        fold_table(t, false);
        blocks += __atomic_exchange_n(&t->blocks, 0, __ATOMIC_RELAXED);
        pthread_mutex_unlock(&t->lock);
    }
    elfemu_stats st = { now.instructions - S.base.instructions,
                        now.blocks_decoded - S.base.blocks_decoded,
                        now.smc_invalidations - S.base.smc_invalidations };
    double secs = (double)(t1.tv_sec - S.t0.tv_sec) + (double)(t1.tv_nsec - S.t0.tv_nsec) / 1e9;
    struct out o = { NULL, 0, 0 };
    if (S.o.json)
        report_json(&o, end, &st, blocks, secs);
    else
        report_text(&o, end, &st, blocks, secs);
    /* One write: the reports of processes sharing the file do not mix. */
    if (o.p)
        outfile_write(S.fd, o.p, o.len);
    free(o.p);
    /* A failed host execve runs on: the next report starts from here. */
    restart();
    pthread_mutex_unlock(&S.lock);
}

/* ------------------------------------------------------------ start */

int stats_begin(elfemu *vm, const struct stats_options *o, const char *program)
{
    S.o = *o;
    S.vm = vm;
    S.program = program;
    S.bits = elfemu_bits(vm);
    S.pid = getpid();
    S.syms = syms_new(vm);
    if (!S.syms) {
        fprintf(stderr, "elfemu: out of memory\n");
        return -1;
    }
    ZydisDecoderInit(&S.dec, S.bits == 64 ? ZYDIS_MACHINE_MODE_LONG_64 : ZYDIS_MACHINE_MODE_LEGACY_32,
                     S.bits == 64 ? ZYDIS_STACK_WIDTH_64 : ZYDIS_STACK_WIDTH_32);
    S.fd = o->file ? outfile_open(o->file, o->append, "stats file") : 2;
    if (S.fd < 0)
        return -1;
    if (S.fd > 2 && elfemu_reserve_fd(vm, S.fd) != 0) {
        fprintf(stderr, "elfemu: cannot keep the stats file from the guest: %s\n", strerror(errno));
        return -1;
    }
    restart();
    if (elfemu_hook_block(vm, on_block, NULL) < 0 ||
        elfemu_hook_syscall(vm, on_sys_before, on_sys_after, NULL) < 0 ||
        elfemu_hook_end(vm, on_end, NULL) < 0) {
        fprintf(stderr, "elfemu: cannot install the stats hooks\n");
        return -1;
    }
    return 0;
}
