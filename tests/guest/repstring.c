/* REP string instructions where the emulator takes its bulk paths and where
 * it must still behave element by element, compared with the CPU:
 *   - REP MOVS/STOS of every width, both directions (DF), long enough for
 *     the bulk copy, with the overlaps that replicate a pattern;
 *   - the 32-bit address size (0x67) in 64-bit code: ECX/ESI/EDI only;
 *   - a segment override on the source (FS on x86_64, GS on ia32: the TLS
 *     block, whose first word points at itself);
 *   - REPE/REPNE CMPS and SCAS stopping on the right element, flags;
 *   - faults in the middle (into an unmapped, an unreadable and a read-only
 *     page, forward and backward, an element straddling the boundary):
 *     rCX/rSI/rDI, si_addr and si_code as the CPU leaves them;
 *   - self-modifying code: REP STOS/MOVS over decoded code, also over the
 *     instructions right after the REP itself;
 *   - a SIGALRM (a 1 ms real-time timer, armed again until it lands in the
 *     REP: CPU-time timers tick too coarsely) in the middle of a long REP
 *     STOS (1 GiB through a 2 MiB memfd mapped again and again; 256 MiB on
 *     ia32) and REPE SCAS (64 MiB of zero pages): taken between iterations,
 *     with rip at the REP and rCX part-way, and the REP then finishes.
 * Prints offsets and counts, never addresses. */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <ucontext.h>
#include <unistd.h>

#ifdef __x86_64__
#define UC_CX REG_RCX
#define UC_SI REG_RSI
#define UC_DI REG_RDI
#define UC_IP REG_RIP
/* pushf below the red zone, which the compiler may be using */
#define READ_FLAGS "lea -128(%%rsp), %%rsp\n\tpushf\n\tpop %[fl]\n\tlea 128(%%rsp), %%rsp\n\t"
#else
#define UC_CX REG_ECX
#define UC_SI REG_ESI
#define UC_DI REG_EDI
#define UC_IP REG_EIP
#define READ_FLAGS "pushf\n\tpop %[fl]\n\t"
#endif
#define SHOWN_FLAGS 0x8d5ul /* CF PF AF ZF SF OF */

struct regs {
    unsigned long cx, si, di, ax, fl;
};

/* Run INSN with DF = df and the registers of *r; DF is cleared after. */
#define RUN(INSN, r, df)                                                                \
    __asm__ volatile("test %[d], %[d]\n\tjz 1f\n\tstd\n1:\n\t" INSN "\n\t" READ_FLAGS "cld" \
                     : "+c"((r)->cx), "+S"((r)->si), "+D"((r)->di), "+a"((r)->ax),     \
                       [fl] "=&r"((r)->fl)                                              \
                     : [d] "r"(df)                                                      \
                     : "memory", "cc")

static uint64_t hash(const void *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ ((const uint8_t *)p)[i]) * 1099511628211ull;
    return h;
}

static void fill_pattern(uint8_t *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(i * 7 + seed + (i >> 8));
}

static void show_regs(const char *what, const struct regs *r, const uint8_t *base, const void *mem,
                      size_t n)
{
    printf("%s: cx=%lu si=%+ld di=%+ld ax=%#lx fl=%#lx mem=%016llx\n", what, r->cx,
           (long)(r->si - (unsigned long)base), (long)(r->di - (unsigned long)base), r->ax,
           r->fl & SHOWN_FLAGS, (unsigned long long)hash(mem, n));
}

/* ------------------------------------------------------------ bulk moves and fills */
static uint8_t buf[3 << 16] __attribute__((aligned(64)));

#define MOVE_CASE(INSN, count, soff, doff, df)                                          \
    do {                                                                                \
        fill_pattern(buf, sizeof(buf), 3);                                              \
        struct regs r = { (count), (unsigned long)(buf + (soff)),                       \
                          (unsigned long)(buf + (doff)), (unsigned long)0x1122334455667788ull, 0 }; \
        RUN(INSN, &r, df);                                                              \
        char what[64];                                                                  \
        snprintf(what, sizeof(what), "%s %d %ld->%ld df=%d", INSN, (int)(count), (long)(soff), \
                 (long)(doff), df);                                                     \
        show_regs(what, &r, buf, buf, sizeof(buf));                                     \
    } while (0)

static void moves(void)
{
    for (int df = 0; df <= 1; df++) {
        long back = df ? 70000 : 0; /* start high when going down */
        MOVE_CASE("rep movsb", 5000, 1000 + back, 90001 + back, df);
        MOVE_CASE("rep movsw", 3001, 2001 + back, 80000 + back, df);
        MOVE_CASE("rep movsl", 2000, 3 + back, 100005 + back, df);
        MOVE_CASE("rep movsb", 70000, 17 + back, 70100 + back, df);
        MOVE_CASE("rep stosb", 9999, 0, 1234 + back, df);
        MOVE_CASE("rep stosw", 4000, 0, 777 + back, df);
        MOVE_CASE("rep stosl", 3000, 0, 1001 + back, df);
        /* overlaps: forward with the destination just after the source
         * replicates the first bytes; backward mirrored */
        MOVE_CASE("rep movsb", 4000, 5000 + back, 5001 + back, df);
        MOVE_CASE("rep movsb", 4000, 5000 + back, 5003 + back, df);
        MOVE_CASE("rep movsl", 1000, 5000 + back, 5002 + back, df);
        MOVE_CASE("rep movsb", 4000, 5001 + back, 5000 + back, df);
        MOVE_CASE("rep movsb", 4000, 5100 + back, 5000 + back, df);
#ifdef __x86_64__
        MOVE_CASE("rep movsq", 1500, 40000 + back, 40008 + back, df);
        MOVE_CASE("rep movsq", 1500, 40008 + back, 40000 + back, df);
        MOVE_CASE("rep movsq", 2222, 9 + back, 120000 + back, df);
        MOVE_CASE("rep stosq", 2500, 0, 333 + back, df);
#endif
    }
}

/* ------------------------------------------------------------ compares and scans */
static void compares(void)
{
    static uint8_t a[8192], b[8192];
    const long stops[] = { 0, 1, 255, 4095, 6000, 8191, -1 };
    for (unsigned k = 0; k < sizeof(stops) / sizeof(stops[0]); k++)
        for (int df = 0; df <= 1; df++) {
            fill_pattern(a, sizeof(a), 1);
            memcpy(b, a, sizeof(b));
            if (stops[k] >= 0)
                b[stops[k]] ^= 0x40;
            unsigned long n = 8192, start = df ? 8191 : 0;
            struct regs r = { n, (unsigned long)(a + start), (unsigned long)(b + start), 0, 0 };
            RUN("repe cmpsb", &r, df);
            printf("repe cmpsb stop %ld df=%d: cx=%lu si=%+ld di=%+ld fl=%#lx\n", stops[k], df, r.cx,
                   (long)(r.si - (unsigned long)a), (long)(r.di - (unsigned long)b), r.fl & SHOWN_FLAGS);
            r = (struct regs){ n / 4, (unsigned long)(a + (df ? 8188 : 0)),
                               (unsigned long)(b + (df ? 8188 : 0)), 0, 0 };
            RUN("repe cmpsl", &r, df);
            printf("repe cmpsl stop %ld df=%d: cx=%lu si=%+ld fl=%#lx\n", stops[k], df, r.cx,
                   (long)(r.si - (unsigned long)a), r.fl & SHOWN_FLAGS);
            /* REPNE SCASB for the changed byte's value; REPE SCASB over a run */
            memset(a, 'x', sizeof(a));
            if (stops[k] >= 0)
                a[stops[k]] = 'y';
            r = (struct regs){ n, 0, (unsigned long)(a + start), 'y', 0 };
            RUN("repne scasb", &r, df);
            printf("repne scasb stop %ld df=%d: cx=%lu di=%+ld fl=%#lx\n", stops[k], df, r.cx,
                   (long)(r.di - (unsigned long)a), r.fl & SHOWN_FLAGS);
            r = (struct regs){ n, 0, (unsigned long)(a + start), 'x', 0 };
            RUN("repe scasb", &r, df);
            printf("repe scasb stop %ld df=%d: cx=%lu di=%+ld fl=%#lx\n", stops[k], df, r.cx,
                   (long)(r.di - (unsigned long)a), r.fl & SHOWN_FLAGS);
        }
}

/* ------------------------------------------------------------ 0x67 and segments */
static void address_size_and_segments(void)
{
#ifdef __x86_64__
    /* Below 4 GiB, with junk in the upper halves of RCX/RSI/RDI. */
    uint8_t *low = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT,
                        -1, 0);
    if (low == MAP_FAILED || (uintptr_t)low >> 32) {
        printf("no memory below 4 GiB\n");
        return;
    }
    fill_pattern(low, 1 << 16, 9);
    unsigned long junk = 0xdead000000000000ul;
    struct regs r = { junk | 3000, junk | (unsigned long)(low + 100), junk | (unsigned long)(low + 40000),
                      0, 0 };
    RUN("addr32 rep movsb", &r, 0);
    printf("addr32 rep movsb: cx=%#lx si-hi=%#lx si=%+ld di=%+ld mem=%016llx\n", r.cx, r.si >> 32,
           (long)((r.si & 0xffffffff) - (unsigned long)low), (long)(r.di - (unsigned long)low),
           (unsigned long long)hash(low, 1 << 16));
    r = (struct regs){ junk | 5000, 0, junk | (unsigned long)(low + 60000), 0xab, 0 };
    RUN("addr32 rep stosb", &r, 1);
    printf("addr32 std rep stosb: cx=%#lx di=%+ld mem=%016llx\n", r.cx,
           (long)(r.di - (unsigned long)low), (unsigned long long)hash(low, 1 << 16));
    r = (struct regs){ junk | 4096, junk | (unsigned long)low, junk | (unsigned long)(low + 8192), 0, 0 };
    RUN("addr32 repe cmpsb", &r, 0);
    printf("addr32 repe cmpsb: cx=%#lx si=%+ld fl=%#lx\n", r.cx, (long)(r.si - (unsigned long)low),
           r.fl & SHOWN_FLAGS);
    munmap(low, 1 << 16);

    /* FS: the thread's TLS block, whose first word is its own address. */
    unsigned long base;
    __asm__("mov %%fs:0, %0" : "=r"(base));
#define SEG_MOVS "rep movsb %%fs:(%%rsi), %%es:(%%rdi)"
#define SEG_MOVSD "rep movsl %%fs:(%%rsi), %%es:(%%rdi)"
#define SEG_CMPS "repe cmpsb %%es:(%%rdi), %%fs:(%%rsi)"
#else
    unsigned long base;
    __asm__("mov %%gs:0, %0" : "=r"(base));
#define SEG_MOVS "rep movsb %%gs:(%%esi), %%es:(%%edi)"
#define SEG_MOVSD "rep movsl %%gs:(%%esi), %%es:(%%edi)"
#define SEG_CMPS "repe cmpsb %%es:(%%edi), %%gs:(%%esi)"
#endif
    /* The offsets from the base: positive for a source mapped above it (where
     * the hint is free), which the bulk copy can take; negative (wrapping)
     * for buf, which it must leave to the element loop. */
    uint8_t *above = mmap((void *)(base + (64ul << 20)), 1 << 16, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    fill_pattern(above, 1 << 16, 6);
    fill_pattern(buf, sizeof(buf), 5);
    struct regs s = { 30000, (unsigned long)(above + 5) - base, (unsigned long)(buf + 1), 0, 0 };
    RUN(SEG_MOVS, &s, 0);
    printf("segment rep movsb from above: cx=%lu si-moved=%ld di=%+ld mem=%016llx\n", s.cx,
           (long)(s.si + base - (unsigned long)(above + 5)), (long)(s.di - (unsigned long)buf),
           (unsigned long long)hash(buf, sizeof(buf)));
    munmap(above, 1 << 16);
    s = (struct regs){ 20000, (unsigned long)(buf + 7) - base, (unsigned long)(buf + 50001), 0, 0 };
    RUN(SEG_MOVS, &s, 0);
    printf("segment rep movsb: cx=%lu si-moved=%ld di=%+ld mem=%016llx\n", s.cx,
           (long)(s.si + base - (unsigned long)(buf + 7)), (long)(s.di - (unsigned long)buf),
           (unsigned long long)hash(buf, sizeof(buf)));
    s = (struct regs){ 300, (unsigned long)(buf + 10000) - base, (unsigned long)(buf + 120001), 0, 0 };
    RUN(SEG_MOVSD, &s, 1);
    printf("segment std rep movsl: cx=%lu mem=%016llx\n", s.cx, (unsigned long long)hash(buf, sizeof(buf)));
    memcpy(buf + 50000, buf + 70000, 4000);
    buf[50000 + 1234] ^= 1;
    s = (struct regs){ 4000, (unsigned long)(buf + 70000) - base, (unsigned long)(buf + 50000), 0, 0 };
    RUN(SEG_CMPS, &s, 0);
    printf("segment repe cmpsb: cx=%lu fl=%#lx\n", s.cx, s.fl & SHOWN_FLAGS);
}

/* ------------------------------------------------------------ faults */
static sigjmp_buf fault_jmp;
static volatile unsigned long f_cx, f_si, f_di, f_addr;
static volatile int f_code;

static void on_segv(int sig, siginfo_t *si, void *uc_)
{
    ucontext_t *uc = uc_;
    (void)sig;
    f_cx = (unsigned long)uc->uc_mcontext.gregs[UC_CX];
    f_si = (unsigned long)uc->uc_mcontext.gregs[UC_SI];
    f_di = (unsigned long)uc->uc_mcontext.gregs[UC_DI];
    f_addr = (unsigned long)si->si_addr;
    f_code = si->si_code;
    siglongjmp(fault_jmp, 1);
}

/* The region's pages: 0 RW, 1 none, 2 RW, 3 read-only, 4 RW, 5 unmapped.
 * Each case starts from the same bytes in the writable pages. */
enum { PAGES = 6 };

static void refill(uint8_t *region)
{
    for (int pg = 0; pg <= 4; pg += 2)
        fill_pattern(region + pg * 4096, 4096, 11 + pg);
}

static uint64_t hash_writable(const uint8_t *region)
{
    return hash(region, 4096) ^ 3 * hash(region + 2 * 4096, 4096) ^ 5 * hash(region + 4 * 4096, 4096);
}

#define FAULT_CASE(what, INSN, cnt, src, dst, df)                                       \
    do {                                                                                \
        refill(region);                                                                 \
        struct regs r = { (cnt), (unsigned long)(src), (unsigned long)(dst), 0x5a, 0 }; \
        if (sigsetjmp(fault_jmp, 1) == 0) {                                             \
            RUN(INSN, &r, df);                                                          \
            printf("%s: no fault\n", what);                                             \
        } else {                                                                        \
            __asm__ volatile("cld");                                                    \
            printf("%s: code %d addr %+ld cx=%lu si%+ld di%+ld mem=%016llx\n", what,    \
                   f_code, (long)(f_addr - (unsigned long)region), f_cx,                \
                   (long)(f_si - (unsigned long)(src)), (long)(f_di - (unsigned long)(dst)), \
                   (unsigned long long)hash_writable(region));                          \
        }                                                                               \
    } while (0)

static void faults(void)
{
    struct sigaction sa = { 0 };
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &sa, NULL);
    uint8_t *region = mmap(NULL, PAGES * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    mprotect(region + 4096, 4096, PROT_NONE);
    fill_pattern(region + 3 * 4096, 4096, 17);
    mprotect(region + 3 * 4096, 4096, PROT_READ);
    munmap(region + 5 * 4096, 4096);
    FAULT_CASE("stosb into none", "rep stosb", 1000, 0, region + 4096 - 300, 0);
    FAULT_CASE("stosb into none, down", "rep stosb", 1000, 0, region + 2 * 4096 + 299, 1);
    FAULT_CASE("stosl straddling", "rep stosl", 300, 0, region + 4096 - 402, 0);
    FAULT_CASE("movsb from none", "rep movsb", 2000, region + 4096 - 700, region + 2 * 4096, 0);
    FAULT_CASE("movsb into read-only", "rep movsb", 3000, region, region + 3 * 4096 - 1000, 0);
    FAULT_CASE("movsl into unmapped", "rep movsl", 1000, region, region + 5 * 4096 - 2002, 0);
    FAULT_CASE("movsb from none, down", "rep movsb", 900, region + 2 * 4096 + 500, region + 3000, 1);
    FAULT_CASE("cmpsb into none", "repe cmpsb", 5000, region + 4096 - 100, region + 4096 - 100, 0);
    FAULT_CASE("scasb into none", "repne scasb", 5000, 0, region + 4096 - 10, 0);
#ifdef __x86_64__
    FAULT_CASE("stosq straddling", "rep stosq", 600, 0, region + 4096 - 803, 0);
    FAULT_CASE("movsq into none, down", "rep movsq", 400, region + 3000, region + 2 * 4096 + 1001, 1);
#endif
    signal(SIGSEGV, SIG_DFL);
    munmap(region, 5 * 4096);
}

/* ------------------------------------------------------------ self-modifying code */
static void self_modifying(void)
{
    uint8_t *code = mmap(NULL, 8192, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    static const uint8_t ret1[] = { 0xb8, 1, 0, 0, 0, 0xc3 }, ret3[] = { 0xb8, 3, 0, 0, 0, 0xc3 };
    memset(code, 0xcc, 8192);
    memcpy(code, ret1, 6);
    memcpy(code + 3000, ret3, 6);
    int (*f)(void) = (int (*)(void))(void *)code;
    int before = f();
    /* REP STOS of NOPs over the decoded function: it now slides to ret3 */
    struct regs r = { 3000, 0, (unsigned long)code, 0x90, 0 };
    RUN("rep stosb", &r, 0);
    int after_stos = f();
    /* REP MOVS of a whole page image over it */
    static uint8_t image[4096];
    memset(image, 0xcc, sizeof(image));
    memcpy(image, (const uint8_t[]){ 0xb8, 2, 0, 0, 0, 0xc3 }, 6);
    r = (struct regs){ 4096, (unsigned long)image, (unsigned long)code, 0, 0 };
    RUN("rep movsb", &r, 0);
    int after_movs = f();
    /* A REP STOS over the instructions right after it, in its own block:
     *   push %edi; mov $0x90, %al; mov T, %edi (lea T(%rip), %rdi);
     *   mov $7, %ecx; rep stosb;
     *   T: mov $1, %eax; pop %edi; ret;  mov $5, %eax; pop %edi; ret */
    uint8_t *p = code + 4096, *q = p;
    *q++ = 0x57;
    *q++ = 0xb0, *q++ = 0x90;
#ifdef __x86_64__
    *q++ = 0x48, *q++ = 0x8d, *q++ = 0x3d;
    int32_t rel = 5 + 2; /* from the end of the LEA to T */
    memcpy(q, &rel, 4), q += 4;
#else
    *q++ = 0xbf;
    uint32_t abs = (uint32_t)(uintptr_t)(q + 4 + 5 + 2);
    memcpy(q, &abs, 4), q += 4;
#endif
    *q++ = 0xb9, *q++ = 7, *q++ = 0, *q++ = 0, *q++ = 0;
    *q++ = 0xf3, *q++ = 0xaa;
    static const uint8_t tail[] = { 0xb8, 1, 0, 0, 0, 0x5f, 0xc3, 0xb8, 5, 0, 0, 0, 0x5f, 0xc3 };
    memcpy(q, tail, sizeof(tail));
    int own = ((int (*)(void))(void *)p)();
    printf("smc: before %d, after rep stos %d, after rep movs %d, own block %d\n", before, after_stos,
           after_movs, own);
    munmap(code, 8192);
}

/* ------------------------------------------------------------ signals in a long REP */
static volatile int sig_inside, sig_outside, sig_consistent;
static volatile unsigned long sig_count, sig_size;
static volatile uintptr_t sig_start;
static const uint8_t *volatile sig_insn;
static volatile unsigned sig_insn_len;

static void on_timer(int sig, siginfo_t *si, void *uc_)
{
    ucontext_t *uc = uc_;
    (void)sig;
    (void)si;
    const uint8_t *ip = (const uint8_t *)uc->uc_mcontext.gregs[UC_IP];
    unsigned long cx = (unsigned long)uc->uc_mcontext.gregs[UC_CX];
    uintptr_t di = (uintptr_t)uc->uc_mcontext.gregs[UC_DI];
    if (memcmp(ip, (const void *)sig_insn, sig_insn_len) == 0 && cx > 0 && cx < sig_count) {
        sig_inside++;
        sig_consistent += di - sig_start == (sig_count - cx) * sig_size;
    } else {
        /* Not inside the REP yet (or any more): try again soon. */
        sig_outside++;
        if (sig_inside == 0) {
            struct itimerval t = { { 0, 0 }, { 0, 1000 } };
            setitimer(ITIMER_REAL, &t, NULL);
        }
    }
}

static void long_reps(void)
{
    struct sigaction sa = { 0 };
    sa.sa_sigaction = on_timer;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);

    /* 1 GiB (256 MiB for ia32) of virtual memory on 2 MiB of memory: one
     * memfd mapped again and again. */
    const size_t piece = 2 << 20, total = (size_t)(sizeof(long) == 8 ? 1024 : 256) << 20;
    int fd = memfd_create("repstring", 0);
    uint8_t *big = mmap(NULL, total + piece, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (fd < 0 || ftruncate(fd, piece) != 0 || big == MAP_FAILED) {
        printf("no memfd or address space\n");
        return;
    }
    big = (uint8_t *)(((uintptr_t)big + piece - 1) & ~(uintptr_t)(piece - 1));
    for (size_t off = 0; off < total; off += piece)
        if (mmap(big + off, piece, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
            printf("mmap failed\n");
            return;
        }
#ifdef __x86_64__
    static const uint8_t stos[] = { 0xf3, 0x48, 0xab }; /* rep stosq */
    sig_size = 8;
#define LONG_STOS "rep stosq"
#else
    static const uint8_t stos[] = { 0xf3, 0xab }; /* rep stosl */
    sig_size = 4;
#define LONG_STOS "rep stosl"
#endif
    sig_insn = stos, sig_insn_len = sizeof(stos);
    sig_count = total / sig_size, sig_start = (uintptr_t)big;
    struct regs r = { sig_count, 0, (unsigned long)big, (unsigned long)0x0101010101010101ull, 0 };
    struct itimerval t = { { 0, 0 }, { 0, 1000 } };
    setitimer(ITIMER_REAL, &t, NULL);
    RUN(LONG_STOS, &r, 0);
    printf("long rep stos: interrupted inside %s, registers consistent %s, then cx=%lu di=%+ld, "
           "last byte %d\n", sig_inside ? "yes" : "no", sig_consistent == sig_inside ? "yes" : "no", r.cx,
           (long)(r.di - (uintptr_t)big), big[total - 1]);
    munmap(big, total);
    close(fd);

    /* REPE SCASB over 64 MiB of zero pages (never written: no memory). */
    const size_t zn = 64 << 20;
    uint8_t *zero = mmap(NULL, zn, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    static const uint8_t scas[] = { 0xf3, 0xae };
    sig_inside = sig_consistent = 0;
    sig_insn = scas, sig_insn_len = sizeof(scas);
    sig_count = zn, sig_start = (uintptr_t)zero, sig_size = 1;
    r = (struct regs){ zn, 0, (unsigned long)zero, 0, 0 };
    setitimer(ITIMER_REAL, &t, NULL);
    RUN("repe scasb", &r, 0);
    printf("long repe scasb: interrupted inside %s, registers consistent %s, then cx=%lu di=%+ld "
           "fl=%#lx\n", sig_inside ? "yes" : "no", sig_consistent == sig_inside ? "yes" : "no", r.cx,
           (long)(r.di - (uintptr_t)zero), r.fl & SHOWN_FLAGS);
    munmap(zero, zn);
    signal(SIGALRM, SIG_IGN);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    moves();
    compares();
    address_size_and_segments();
    faults();
    self_modifying();
    long_reps();
    return 0;
}
