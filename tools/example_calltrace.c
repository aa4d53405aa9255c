/* elfemu-calltrace: an example tracer built on the public embedding API
 * alone (include/elfemu.h; tools/symbols.c, which it links for names, uses
 * only that header too).  It runs a program and counts the calls to each
 * function, then prints the most called ones:
 *
 *   elfemu-calltrace [-n N] PROGRAM [ARGS...]
 *
 *   COUNT NAME      (to stderr, most called first, N lines, default 20)
 *
 * How: an instruction hook looks at the bytes of each instruction about to
 * run; after a CALL (E8 rel32, or FF /2 through a register or memory,
 * after any prefixes) the next instruction the same thread runs is the
 * callee's first, and that address is counted.  The counts are printed by
 * the end hook, which runs however the program ends (also when another
 * thread ends it).  A call whose target faults counts the signal handler's
 * first instruction instead; a tail jump is not a call. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elfemu.h"
#include "tools/symbols.h"

extern char **environ;

/* Call targets and their counts (open addressing, under the lock). */
struct target {
    uint64_t addr;
    uint64_t calls;
};

static struct {
    pthread_mutex_t lock;
    struct target *v;
    size_t cap, n;
    int bits;
    int top;
} C = { .lock = PTHREAD_MUTEX_INITIALIZER, .top = 20 };

/* The thread's last instruction was a call. */
static __thread bool after_call;

static bool is_call(const uint8_t *b, unsigned len, int bits)
{
    unsigned i = 0;
    static const uint8_t prefixes[] = { 0x66, 0x67, 0x2e, 0x36, 0x3e, 0x26, 0x64, 0x65, 0xf0,
                                        0xf2, 0xf3 };
    while (i < len && memchr(prefixes, b[i], sizeof(prefixes)))
        i++;
    if (bits == 64 && i < len && (b[i] & 0xf0) == 0x40) /* REX */
        i++;
    if (i >= len)
        return false;
    if (b[i] == 0xe8)
        return true;
    return b[i] == 0xff && i + 1 < len && ((b[i + 1] >> 3) & 7) == 2;
}

static size_t slot(uint64_t addr)
{
    size_t j = (size_t)((addr * 0x9e3779b97f4a7c15ull) >> 24) & (C.cap - 1);
    while (C.v[j].calls && C.v[j].addr != addr)
        j = (j + 1) & (C.cap - 1);
    return j;
}

static void count(uint64_t addr)
{
    pthread_mutex_lock(&C.lock);
    if (2 * (C.n + 1) > C.cap) {
        struct target *old = C.v;
        size_t oldcap = C.cap;
        C.cap = C.cap ? 2 * C.cap : 1024;
        C.v = calloc(C.cap, sizeof(*C.v));
        if (!C.v) {
            fprintf(stderr, "elfemu-calltrace: out of memory\n");
            exit(1);
        }
        for (size_t i = 0; i < oldcap; i++)
            if (old[i].calls)
                C.v[slot(old[i].addr)] = old[i];
        free(old);
    }
    struct target *t = &C.v[slot(addr)];
    if (!t->calls)
        C.n++;
    t->addr = addr;
    t->calls++;
    pthread_mutex_unlock(&C.lock);
}

static void on_insn(elfemu *vm, elfemu_thread *t, const elfemu_insn *in, void *user)
{
    (void)vm, (void)t, (void)user;
    if (after_call)
        count(in->addr);
    after_call = is_call(in->bytes, in->len, C.bits);
}

static int by_calls(const void *a, const void *b)
{
    const struct target *x = a, *y = b;
    if (x->calls != y->calls)
        return x->calls < y->calls ? 1 : -1;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void on_end(elfemu *vm, elfemu_thread *t, const elfemu_end *end, void *user)
{
    (void)t, (void)end, (void)user;
    pthread_mutex_lock(&C.lock);
    struct target *v = calloc(C.n + 1, sizeof(*v));
    size_t n = 0;
    for (size_t i = 0; v && i < C.cap; i++)
        if (C.v[i].calls)
            v[n++] = C.v[i];
    pthread_mutex_unlock(&C.lock);
    if (!v)
        return;
    qsort(v, n, sizeof(*v), by_calls);
    struct syms *s = syms_new(vm);
    for (size_t i = 0; i < n && i < (size_t)C.top; i++) {
        char name[256];
        if (!s || !syms_format(s, v[i].addr, name, sizeof(name)))
            snprintf(name, sizeof(name), "%#llx", (unsigned long long)v[i].addr);
        fprintf(stderr, "%10llu %s\n", (unsigned long long)v[i].calls, name);
    }
    fflush(stderr);
    syms_free(s);
    free(v);
}

int main(int argc, char **argv)
{
    int a = 1;
    if (a + 1 < argc && !strcmp(argv[a], "-n")) {
        C.top = atoi(argv[a + 1]);
        a += 2;
    }
    if (a >= argc || C.top <= 0) {
        fprintf(stderr, "usage: elfemu-calltrace [-n N] PROGRAM [ARGS...]\n");
        return 2;
    }
    char *path = elfemu_find_program(argv[a]);
    elfemu *vm = elfemu_create(NULL);
    if (!path || !vm) {
        fprintf(stderr, "elfemu-calltrace: out of memory\n");
        return 1;
    }
    elfemu_error err;
    if (elfemu_load(vm, path, argv + a, environ, &err) != 0) {
        fprintf(stderr, "elfemu-calltrace: %s\n", err.message);
        return err.status;
    }
    C.bits = elfemu_bits(vm);
    if (elfemu_hook_insn(vm, on_insn, NULL) < 0 || elfemu_hook_end(vm, on_end, NULL) < 0) {
        fprintf(stderr, "elfemu-calltrace: cannot install the hooks\n");
        return 1;
    }
    elfemu_exit x;
    if (elfemu_run(vm, &x) != 0) {
        fprintf(stderr, "elfemu-calltrace: the guest could not be run\n");
        return 1;
    }
    elfemu_destroy(vm);
    free(path);
    /* The guest's status; a guest killed by a signal as a shell shows it. */
    return x.signaled ? 128 + x.code : x.code;
}
