/* fuzz_driver: a plain main() for fuzz_elf.c, for builds without libFuzzer.
 *
 *   fuzz_elf_driver [-seed=N] [-runs=N] [-max_len=N] [-only=K] [-v] FILES...
 *
 * Feeds each FILE once as it is, then -runs mutated copies to
 * LLVMFuzzerTestOneInput().  Every mutation is derived from -seed and the run
 * number only, so a run is reproducible: "-only=K" replays run K alone.  A
 * mutated input is one to four of:
 *   - a bit flip;
 *   - a byte set to 0, 0xff, 0x7f or 0x80;
 *   - a 16-, 32- or 64-bit little-endian field overwritten with a boundary
 *     value (0, 1, page sizes, 2^31, 2^32, 2^46, 2^63, -1, the file size...)
 *     or nudged by a small amount;
 *   - a truncation;
 *   - a program header copied over another, or inserted with e_phnum + 1;
 * at offsets drawn mostly from the first 512 bytes and the program header
 * table.  When an input aborts, crashes or takes more than 10 s, it is saved
 * as ./fuzz_elf_crash-SEED-RUN before the process dies. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern int fuzz_elf_last_status;
extern char fuzz_elf_last_message[];

#define INPUT_TIMEOUT 10 /* seconds */

/* ---------------------------------------------------------------- rng */

static uint64_t rng_state;

static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t below(uint64_t n) { return n ? rnd() % n : 0; }

/* ---------------------------------------------------------------- inputs */

struct buf {
    uint8_t *d;
    size_t n, cap;
};

static void reserve(struct buf *b, size_t n)
{
    if (n <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < n)
        cap *= 2;
    b->d = realloc(b->d, cap);
    if (!b->d) {
        fprintf(stderr, "fuzz_driver: out of memory\n");
        exit(1);
    }
    b->cap = cap;
}

static struct buf read_file(const char *path, size_t max_len)
{
    struct buf b = { 0 };
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "fuzz_driver: %s: %s\n", path, strerror(errno));
        exit(1);
    }
    for (;;) {
        reserve(&b, b.n + 65536);
        size_t got = fread(b.d + b.n, 1, b.cap - b.n, f);
        b.n += got;
        if (got == 0)
            break;
    }
    fclose(f);
    if (b.n > max_len)
        b.n = max_len;
    return b;
}

static uint64_t get_le(const struct buf *b, size_t off, unsigned size)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < size && off + i < b->n; i++)
        v |= (uint64_t)b->d[off + i] << (8 * i);
    return v;
}

static void put_le(struct buf *b, size_t off, unsigned size, uint64_t v)
{
    for (unsigned i = 0; i < size && off + i < b->n; i++)
        b->d[off + i] = (uint8_t)(v >> (8 * i));
}

/* Where the program header table seems to be (from the header as it is now). */
static bool phdr_table(const struct buf *b, size_t *off, unsigned *entsize, unsigned *num)
{
    if (b->n < 52)
        return false;
    bool b64 = b->d[4] == 2;
    *entsize = b64 ? 56 : 32;
    uint64_t phoff = b64 ? get_le(b, 32, 8) : get_le(b, 28, 4);
    *num = (unsigned)get_le(b, b64 ? 56 : 44, 2);
    if (phoff >= b->n || *num == 0)
        return false;
    *off = (size_t)phoff;
    return true;
}

/* An offset to mutate: mostly the first 512 bytes or the phdr table. */
static size_t pick_offset(const struct buf *b)
{
    size_t off;
    unsigned ent, num;
    uint64_t r = below(8);
    if (r < 2 && phdr_table(b, &off, &ent, &num)) {
        size_t len = (size_t)num * ent;
        if (off + len > b->n)
            len = b->n - off;
        return off + (size_t)below(len);
    }
    if (r < 6)
        return (size_t)below(b->n < 512 ? b->n : 512);
    return (size_t)below(b->n);
}

static uint64_t boundary(const struct buf *b, uint64_t old)
{
    static const uint64_t vals[] = {
        0, 1, 2, 3, 0x7f, 0x80, 0xff, 0x100, 0xfff, 0x1000, 0x1001, 0x7fff, 0x8000, 0xffff,
        0x10000, 0x200000, 0x7fffffff, 0x80000000, 0xfffff000, 0xffffffff, 0x100000000,
        0x3ffffffff000, 0x3fffffffffff, 0x400000000000, 0x800000000000, 0x7fffffffffffffff,
        0x8000000000000000, 0xfffffffffffff000, 0xffffffffffffffff,
    };
    switch (below(4)) {
    case 0:
        return b->n + below(3) - 1; /* the file size, +-1 */
    case 1:
        return old + below(33) - 16; /* a nudge */
    default:
        return vals[below(sizeof(vals) / sizeof(vals[0]))];
    }
}

static void mutate_once(struct buf *b)
{
    if (b->n == 0) {
        reserve(b, 1);
        b->d[0] = (uint8_t)rnd();
        b->n = 1;
        return;
    }
    static const uint8_t interesting[] = { 0, 0xff, 0x7f, 0x80 };
    size_t off;
    unsigned ent, num;
    switch (below(10)) {
    case 0: case 1: /* bit flip */
        off = pick_offset(b);
        b->d[off] ^= (uint8_t)(1u << below(8));
        break;
    case 2: case 3: /* interesting byte */
        off = pick_offset(b);
        b->d[off] = interesting[below(4)];
        break;
    case 4: case 5: case 6: { /* field overwrite */
        static const unsigned sizes[] = { 2, 4, 8 };
        unsigned size = sizes[below(3)];
        off = pick_offset(b);
        if (below(2))
            off &= ~(size_t)(size - 1);
        put_le(b, off, size, boundary(b, get_le(b, off, size)));
        break;
    }
    case 7: /* truncation */
        b->n = below(2) ? (size_t)below(b->n < 1024 ? b->n : 1024) : (size_t)below(b->n);
        break;
    default: /* copy or insert a program header */
        if (!phdr_table(b, &off, &ent, &num))
            break;
        {
            size_t src = off + (size_t)below(num) * ent;
            size_t dst = off + (size_t)below(num + 1) * ent;
            if (src + ent > b->n)
                break;
            uint8_t chunk[56];
            memcpy(chunk, b->d + src, ent);
            if (below(2)) { /* overwrite */
                if (dst + ent <= b->n)
                    memcpy(b->d + dst, chunk, ent);
            } else if (dst <= b->n) { /* insert, one more header */
                reserve(b, b->n + ent);
                memmove(b->d + dst + ent, b->d + dst, b->n - dst);
                memcpy(b->d + dst, chunk, ent);
                b->n += ent;
                put_le(b, b->d[4] == 2 ? 56 : 44, 2, num + 1);
            }
        }
        break;
    }
}

/* ---------------------------------------------------------------- crashes */

static const uint8_t *cur_data;
static size_t cur_size;
static char crash_name[64];

static void save_and_die(int sig)
{
    /* Only async-signal-safe calls here. */
    static const char msg[] = "fuzz_driver: saving the input as ";
    int fd = open(crash_name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        size_t done = 0;
        while (done < cur_size) {
            ssize_t n = write(fd, cur_data + done, cur_size - done);
            if (n <= 0)
                break;
            done += (size_t)n;
        }
        close(fd);
        ssize_t r = write(2, msg, sizeof(msg) - 1);
        r = write(2, crash_name, strlen(crash_name));
        r = write(2, "\n", 1);
        (void)r;
    }
    if (sig == SIGALRM) {
        static const char to[] = "fuzz_driver: the input took too long (a hang)\n";
        ssize_t r = write(2, to, sizeof(to) - 1);
        (void)r;
        sig = SIGABRT;
    }
    signal(sig, SIG_DFL);
    raise(sig);
    _exit(128 + sig);
}

static void catch_crashes(void)
{
    static const int sigs[] = { SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGALRM };
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = save_and_die;
        sa.sa_flags = SA_RESETHAND | SA_NODEFER;
        sigaction(sigs[i], &sa, NULL);
    }
}

static void feed(const struct buf *b, const char *name)
{
    cur_data = b->d;
    cur_size = b->n;
    snprintf(crash_name, sizeof(crash_name), "%s", name);
    alarm(INPUT_TIMEOUT);
    LLVMFuzzerTestOneInput(b->d, b->n);
    alarm(0);
}

/* ---------------------------------------------------------------- summary */

/* Reasons, with numbers and the input's own path blurred and control
 * characters shown as '?', and their counts. */
struct reason {
    char text[96];
    unsigned count;
};
static struct reason reasons[512];
static unsigned nreasons, reasons_dropped;

static void note_reason(const char *msg)
{
    /* Skip "/proc/self/fd/N: " (the input itself) when it leads the message. */
    const char *s = msg;
    if (strncmp(s, "/proc/self/fd/", 14) == 0 && strchr(s, ' '))
        s = strchr(s, ' ') + 1;
    char t[96];
    size_t n = 0;
    for (; *s && n + 1 < sizeof(t); s++) {
        if ((*s >= '0' && *s <= '9') || (*s == 'x' && n && t[n - 1] == '#')) {
            if (n == 0 || t[n - 1] != '#')
                t[n++] = '#';
            continue;
        }
        if (n && t[n - 1] == '#' && ((*s >= 'a' && *s <= 'f') || (*s >= 'A' && *s <= 'F')))
            continue;
        t[n++] = ((unsigned char)*s < 0x20 || *s == 0x7f) ? '?' : *s;
    }
    t[n] = '\0';
    for (unsigned i = 0; i < nreasons; i++)
        if (strcmp(reasons[i].text, t) == 0) {
            reasons[i].count++;
            return;
        }
    if (nreasons == sizeof(reasons) / sizeof(reasons[0])) {
        reasons_dropped++;
        return;
    }
    memcpy(reasons[nreasons].text, t, n + 1);
    reasons[nreasons++].count = 1;
}

static int by_count(const void *a, const void *b)
{
    const struct reason *x = a, *y = b;
    return x->count != y->count ? (x->count < y->count ? 1 : -1) : strcmp(x->text, y->text);
}

static bool num_arg(const char *arg, const char *name, unsigned long long *out)
{
    size_t len = strlen(name);
    if (strncmp(arg, name, len) != 0)
        return false;
    char *end;
    errno = 0;
    *out = strtoull(arg + len, &end, 0);
    if (errno || end == arg + len || *end) {
        fprintf(stderr, "fuzz_driver: bad number in %s\n", arg);
        exit(2);
    }
    return true;
}

int main(int argc, char **argv)
{
    unsigned long long seed = 1, runs = 1000, max_len = 1 << 20, only = 0, v;
    bool verbose = false, have_only = false;
    int nfiles = 0;
    struct buf *seeds = calloc((size_t)argc, sizeof(*seeds));
    const char **names = calloc((size_t)argc, sizeof(*names));
    if (!seeds || !names)
        return 1;
    for (int i = 1; i < argc; i++) {
        if (num_arg(argv[i], "-seed=", &v))
            seed = v;
        else if (num_arg(argv[i], "-runs=", &v))
            runs = v;
        else if (num_arg(argv[i], "-max_len=", &v))
            max_len = v;
        else if (num_arg(argv[i], "-only=", &v))
            only = v, have_only = true;
        else if (strcmp(argv[i], "-v") == 0)
            verbose = true;
        else if (argv[i][0] == '-') {
            fprintf(stderr, "usage: %s [-seed=N] [-runs=N] [-max_len=N] [-only=K] [-v] "
                    "FILES...\n", argv[0]);
            return 2;
        } else
            names[nfiles++] = argv[i];
    }
    if (nfiles == 0) {
        fprintf(stderr, "fuzz_driver: no seed files\n");
        return 2;
    }
    for (int i = 0; i < nfiles; i++)
        seeds[i] = read_file(names[i], max_len);
    catch_crashes();

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    unsigned long long loaded = 0, st126 = 0, st127 = 0, execs = 0;
    struct buf in = { 0 };
    char cname[64];
    /* The seeds as they are (run numbers 0 .. nfiles-1 do not exist: the
     * mutated runs are numbered from 1). */
    for (int i = 0; i < nfiles && !have_only; i++) {
        snprintf(cname, sizeof(cname), "fuzz_elf_crash-seedfile-%d", i);
        feed(&seeds[i], cname);
        execs++;
        if (verbose)
            printf("seed %s: %s\n", names[i], fuzz_elf_last_status ? fuzz_elf_last_message
                                                                     : "loaded");
    }
    for (unsigned long long run = have_only ? only : 1; run <= (have_only ? only : runs); run++) {
        rng_state = seed * 0x9e3779b97f4a7c15ull ^ (run * 0xd1b54a32d192ed03ull);
        const struct buf *s = &seeds[below((uint64_t)nfiles)];
        reserve(&in, s->n + 1);
        memcpy(in.d, s->d, s->n);
        in.n = s->n;
        unsigned k = 1 + (unsigned)below(4);
        for (unsigned j = 0; j < k; j++)
            mutate_once(&in);
        snprintf(cname, sizeof(cname), "fuzz_elf_crash-%llu-%llu", seed, run);
        feed(&in, cname);
        execs++;
        if (fuzz_elf_last_status == 0)
            loaded++;
        else {
            st126 += fuzz_elf_last_status == 126;
            st127 += fuzz_elf_last_status == 127;
            note_reason(fuzz_elf_last_message);
        }
        if (verbose)
            printf("run %llu: %s\n", run, fuzz_elf_last_status ? fuzz_elf_last_message
                                                                : "loaded");
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;

    qsort(reasons, nreasons, sizeof(reasons[0]), by_count);
    printf("fuzz_driver: seed %llu, %llu inputs (%d seed files) in %.1f s (%.0f/s)\n", seed,
           execs, nfiles, secs, secs > 0 ? (double)execs / secs : 0.0);
    printf("fuzz_driver: mutated inputs: %llu loaded, %llu rejected with 126, %llu with 127; "
           "%u distinct reasons%s\n", loaded, st126, st127, nreasons,
           reasons_dropped ? " (more not counted)" : "");
    for (unsigned i = 0; i < nreasons && (verbose || i < 25); i++)
        printf("  %6u  %s\n", reasons[i].count, reasons[i].text);
    const char *relaxed = getenv("FUZZ_ELF_RELAXED");
    printf("fuzz_driver: no crash, no hang, no broken promise%s%s%s\n",
           relaxed ? " (not checked: FUZZ_ELF_RELAXED=" : "", relaxed ? relaxed : "",
           relaxed ? ")" : "");
    free(in.d);
    for (int i = 0; i < nfiles; i++)
        free(seeds[i].d);
    free(seeds);
    free(names);
    return 0;
}
