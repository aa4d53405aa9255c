/* Clocks and the vDSO, compared with the native run: the vDSO named by
 * AT_SYSINFO_EHDR is a proper ELF image exporting what glibc looks up, its
 * functions called directly agree with the system calls, glibc's clock
 * functions agree with both, a bad pointer faults in the vDSO as it does
 * natively, and the sleeps behave.  Only relations and deterministic values
 * are printed, never times. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------ the image */

struct vdso {
    uintptr_t base;    /* load bias: the image is linked at 0 */
    const ElfW(Sym) *syms;
    const char *strs;
    uint32_t nsyms;
    const ElfW(Verdef) *verdef;
    const ElfW(Half) *versym;
};

/* Symbols in a DT_GNU_HASH table: past the highest bucket start, follow
 * the last chain to its end. */
static uint32_t gnu_hash_count(const uint32_t *h)
{
    uint32_t nbuckets = h[0], symoffset = h[1], bloom = h[2];
    const uint32_t *buckets = h + 4 + bloom * (sizeof(ElfW(Addr)) / 4);
    const uint32_t *chain = buckets + nbuckets;
    uint32_t last = 0;
    for (uint32_t i = 0; i < nbuckets; i++)
        if (buckets[i] > last)
            last = buckets[i];
    if (last < symoffset)
        return symoffset;
    while (!(chain[last - symoffset] & 1))
        last++;
    return last + 1;
}

static bool vdso_open(struct vdso *v)
{
    const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)getauxval(AT_SYSINFO_EHDR);
    if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
        return false;
    printf("vdso: ELF, class %s, type %s, machine %s\n",
           eh->e_ident[EI_CLASS] == ELFCLASS64 ? "64" : "other",
           eh->e_type == ET_DYN ? "ET_DYN" : "other",
           eh->e_machine == EM_X86_64 ? "x86_64" : "other");
    const ElfW(Phdr) *ph = (const ElfW(Phdr) *)((const char *)eh + eh->e_phoff);
    const ElfW(Dyn) *dyn = NULL;
    v->base = 0;
    bool have_load = false;
    for (int i = 0; i < eh->e_phnum; i++) {
        if (ph[i].p_type == PT_LOAD && !have_load) {
            v->base = (uintptr_t)eh + ph[i].p_offset - ph[i].p_vaddr;
            have_load = true;
        }
        if (ph[i].p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)((const char *)eh + ph[i].p_offset);
    }
    printf("vdso: PT_LOAD %s, PT_DYNAMIC %s\n", have_load ? "yes" : "no", dyn ? "yes" : "no");
    if (!dyn)
        return false;
    const uint32_t *hash = NULL, *gnu_hash = NULL;
    memset(&v->syms, 0, sizeof(*v) - sizeof(v->base));
    for (; dyn->d_tag != DT_NULL; dyn++) {
        uintptr_t p = v->base + dyn->d_un.d_ptr;
        switch (dyn->d_tag) {
        case DT_SYMTAB: v->syms = (const ElfW(Sym) *)p; break;
        case DT_STRTAB: v->strs = (const char *)p; break;
        case DT_HASH: hash = (const uint32_t *)p; break;
        case DT_GNU_HASH: gnu_hash = (const uint32_t *)p; break;
        case DT_VERDEF: v->verdef = (const ElfW(Verdef) *)p; break;
        case DT_VERSYM: v->versym = (const ElfW(Half) *)p; break;
        }
    }
    v->nsyms = hash ? hash[1] : gnu_hash ? gnu_hash_count(gnu_hash) : 0;
    printf("vdso: symbol table %s, string table %s, hash table %s, versions %s\n",
           v->syms ? "yes" : "no", v->strs ? "yes" : "no", v->nsyms ? "yes" : "no",
           v->verdef && v->versym ? "yes" : "no");
    return v->syms && v->strs && v->nsyms;
}

/* The name of version index idx in the image's Verdef list. */
static const char *version_name(const struct vdso *v, unsigned idx)
{
    const ElfW(Verdef) *d = v->verdef;
    while (d) {
        if ((d->vd_ndx & 0x7fff) == idx) {
            const ElfW(Verdaux) *aux = (const ElfW(Verdaux) *)((const char *)d + d->vd_aux);
            return v->strs + aux->vda_name;
        }
        d = d->vd_next ? (const ElfW(Verdef) *)((const char *)d + d->vd_next) : NULL;
    }
    return "?";
}

/* A defined function named name, with its version. */
static void *vdso_sym(const struct vdso *v, const char *name)
{
    for (uint32_t i = 0; i < v->nsyms; i++) {
        const ElfW(Sym) *s = &v->syms[i];
        if (s->st_shndx == SHN_UNDEF || strcmp(v->strs + s->st_name, name) != 0)
            continue;
        const char *ver = v->versym ? version_name(v, v->versym[i] & 0x7fff) : "none";
        printf("vdso: %s: %s, version %s\n", name,
               ELF64_ST_TYPE(s->st_info) == STT_FUNC ? "function" : "not a function", ver);
        return (void *)(v->base + s->st_value);
    }
    printf("vdso: %s: missing\n", name);
    return NULL;
}

/* ------------------------------------------------------------ relations */

static long long ns(const struct timespec *t)
{
    return (long long)t->tv_sec * 1000000000LL + t->tv_nsec;
}

static const char *order3(long long a, long long b, long long c)
{
    return a <= b && b <= c ? "in order" : "OUT OF ORDER";
}

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);
typedef int (*clock_getres_fn)(clockid_t, struct timespec *);
typedef int (*gettimeofday_fn)(struct timeval *, struct timezone *);
typedef time_t (*time_fn)(time_t *);
typedef int (*getcpu_fn)(unsigned *, unsigned *, void *);

static const struct {
    clockid_t id;
    const char *name;
    bool monotonic;
} clocks[] = {
    { CLOCK_REALTIME, "REALTIME", false },
    { CLOCK_MONOTONIC, "MONOTONIC", true },
    { CLOCK_PROCESS_CPUTIME_ID, "PROCESS_CPUTIME_ID", true },
    { CLOCK_THREAD_CPUTIME_ID, "THREAD_CPUTIME_ID", true },
    { CLOCK_MONOTONIC_RAW, "MONOTONIC_RAW", true },
    { CLOCK_REALTIME_COARSE, "REALTIME_COARSE", false },
    { CLOCK_MONOTONIC_COARSE, "MONOTONIC_COARSE", true },
    { CLOCK_BOOTTIME, "BOOTTIME", true },
    { CLOCK_TAI, "TAI", false },
};

static void clock_checks(clock_gettime_fn vgettime, clock_getres_fn vgetres)
{
    for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++) {
        struct timespec a, b, c, d, r1, r2;
        int e1 = vgettime(clocks[i].id, &a);
        int e2 = (int)syscall(SYS_clock_gettime, clocks[i].id, &b);
        int e3 = clock_gettime(clocks[i].id, &c);
        int e4 = vgettime(clocks[i].id, &d);
        int g1 = vgetres(clocks[i].id, &r1);
        int g2 = (int)syscall(SYS_clock_getres, clocks[i].id, &r2);
        printf("%s: vdso %d, syscall %d, libc %d, vdso %d; ", clocks[i].name, e1, e2, e3, e4);
        if (clocks[i].monotonic)
            printf("%s; ", ns(&c) <= ns(&d) ? order3(ns(&a), ns(&b), ns(&c)) : "OUT OF ORDER");
        else /* REALTIME may be stepped: within a second of each other */
            printf("%s; ", ns(&d) - ns(&a) < 1000000000LL && ns(&d) >= ns(&a) - 1000000000LL
                               ? "close" : "FAR APART");
        printf("getres vdso %d, syscall %d, %s, %lld ns\n", g1, g2,
               ns(&r1) == ns(&r2) ? "equal" : "DIFFERENT", ns(&r2) < 1000000 ? 0 : ns(&r2));
    }
    struct timespec t;
    /* The vDSO returns the kernel's -errno itself; syscall() sets errno. */
    int rv = vgettime(77, &t);
    long rs = syscall(SYS_clock_gettime, 77, &t);
    int e = errno;
    printf("bad clock 77: vdso %d, syscall %ld (%s)\n", rv, rs, strerrorname_np(e));
    printf("vdso getres with NULL: %d\n", vgetres(CLOCK_MONOTONIC, NULL));
}

static void time_checks(gettimeofday_fn vgtod, time_fn vtime)
{
    struct timeval a, b, c;
    struct timezone tz;
    int r1 = vgtod(&a, &tz);
    int r2 = (int)syscall(SYS_gettimeofday, &b, NULL);
    int r3 = gettimeofday(&c, NULL);
    long long ua = a.tv_sec * 1000000LL + a.tv_usec, uc = c.tv_sec * 1000000LL + c.tv_usec;
    printf("gettimeofday: vdso %d, syscall %d, libc %d, %s\n", r1, r2, r3,
           uc - ua < 1000000 && uc >= ua - 1000000 ? "close" : "FAR APART");
    printf("gettimeofday: vdso with NULL, NULL: %d\n", vgtod(NULL, NULL));
    time_t t1 = 0, t0 = vtime(&t1);
    time_t t2 = (time_t)syscall(SYS_time, NULL), t3 = time(NULL);
    printf("time: vdso stored = returned %s, %s\n", t0 == t1 ? "yes" : "no",
           t3 - t0 <= 1 && t2 >= t0 - 1 ? "close" : "FAR APART");
}

static void cpu_checks(getcpu_fn vgetcpu)
{
    unsigned cpu = ~0u, node = ~0u;
    int r = vgetcpu(&cpu, &node, NULL);
    long n = sysconf(_SC_NPROCESSORS_CONF);
    printf("getcpu: vdso %d, cpu %s, node %s\n", r, (long)cpu < n ? "in range" : "OUT OF RANGE",
           node < 64 ? "in range" : "OUT OF RANGE");
    printf("getcpu: vdso with NULL, NULL: %d\n", vgetcpu(NULL, NULL, NULL));
    int s = sched_getcpu();
    printf("sched_getcpu: %s\n", s >= 0 && s < n ? "in range" : "OUT OF RANGE");
}

/* ------------------------------------------------------------ bad pointers */

/* A child makes the call; natively the vDSO stores into user memory
 * itself, so a bad pointer is a SIGSEGV, not an error code. */
static void bad_pointer(const char *what, int which, void *fn)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        long r = 0;
        void *bad = (void *)16;
        switch (which) {
        case 0: r = ((clock_gettime_fn)fn)(CLOCK_MONOTONIC, bad); break;
        case 1: r = ((clock_gettime_fn)fn)(CLOCK_PROCESS_CPUTIME_ID, bad); break;
        case 2: r = ((gettimeofday_fn)fn)(bad, NULL); break;
        case 3: r = ((gettimeofday_fn)fn)(NULL, bad); break;
        case 4: r = (long)((time_fn)fn)(bad); break;
        case 5: r = ((getcpu_fn)fn)(bad, NULL, NULL); break;
        case 6: r = ((clock_getres_fn)fn)(CLOCK_REALTIME, bad); break;
        case 7: r = ((clock_getres_fn)fn)(CLOCK_THREAD_CPUTIME_ID, bad); break;
        case 8: r = clock_gettime(CLOCK_REALTIME, bad); break;
        }
        printf("%s: returned %ld\n", what, r < 0 ? r : 0);
        fflush(stdout);
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    if (WIFSIGNALED(st))
        printf("%s: killed by %s\n", what, sigabbrev_np(WTERMSIG(st)));
}

/* ------------------------------------------------------------ sleeps */

static void sleep_checks(void)
{
    struct timespec before, after, req = { 0, 2000000 }, rem = { 7, 7 };
    clock_gettime(CLOCK_MONOTONIC, &before);
    int r = nanosleep(&req, &rem);
    clock_gettime(CLOCK_MONOTONIC, &after);
    printf("nanosleep 2 ms: %d, slept at least that long: %s\n", r,
           ns(&after) - ns(&before) >= 2000000 ? "yes" : "no");
    struct timespec past = { 1, 0 };
    printf("clock_nanosleep TIMER_ABSTIME in the past: %d\n",
           clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &past, NULL));
    struct timespec abs;
    clock_gettime(CLOCK_MONOTONIC, &abs);
    abs.tv_nsec += 3000000;
    if (abs.tv_nsec >= 1000000000) {
        abs.tv_sec++;
        abs.tv_nsec -= 1000000000;
    }
    r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &abs, NULL);
    clock_gettime(CLOCK_MONOTONIC, &after);
    printf("clock_nanosleep to 3 ms ahead: %d, woke after it: %s\n", r,
           ns(&after) >= ns(&abs) ? "yes" : "no");
    struct timespec bad = { 0, 1000000000 };
    printf("nanosleep tv_nsec = 1e9: %s\n", nanosleep(&bad, NULL) < 0 ? strerrorname_np(errno) : "ok");
    printf("clock_nanosleep on THREAD_CPUTIME: %s\n",
           strerrorname_np(clock_nanosleep(CLOCK_THREAD_CPUTIME_ID, 0, &req, NULL)));
}

int main(void)
{
    struct vdso v;
    if (!vdso_open(&v)) {
        printf("no usable vDSO\n");
        return 1;
    }
    clock_gettime_fn vgettime = (clock_gettime_fn)vdso_sym(&v, "__vdso_clock_gettime");
    gettimeofday_fn vgtod = (gettimeofday_fn)vdso_sym(&v, "__vdso_gettimeofday");
    time_fn vtime = (time_fn)vdso_sym(&v, "__vdso_time");
    getcpu_fn vgetcpu = (getcpu_fn)vdso_sym(&v, "__vdso_getcpu");
    clock_getres_fn vgetres = (clock_getres_fn)vdso_sym(&v, "__vdso_clock_getres");
    if (!vgettime || !vgtod || !vtime || !vgetcpu || !vgetres)
        return 1;
    clock_checks(vgettime, vgetres);
    time_checks(vgtod, vtime);
    cpu_checks(vgetcpu);
    bad_pointer("vdso clock_gettime(MONOTONIC, bad)", 0, (void *)vgettime);
    bad_pointer("vdso clock_gettime(PROCESS_CPUTIME_ID, bad)", 1, (void *)vgettime);
    bad_pointer("vdso gettimeofday(bad, NULL)", 2, (void *)vgtod);
    bad_pointer("vdso gettimeofday(NULL, bad)", 3, (void *)vgtod);
    bad_pointer("vdso time(bad)", 4, (void *)vtime);
    bad_pointer("vdso getcpu(bad, NULL, NULL)", 5, (void *)vgetcpu);
    bad_pointer("vdso clock_getres(REALTIME, bad)", 6, (void *)vgetres);
    bad_pointer("vdso clock_getres(THREAD_CPUTIME_ID, bad)", 7, (void *)vgetres);
    bad_pointer("libc clock_gettime(REALTIME, bad)", 8, NULL);
    sleep_checks();
    return 0;
}
