/* Memory operand forms and the lazy flags of rotates, compared with the
 * native run (x86_64 and ia32).
 *
 * elfemu has handlers specialised by the form of their memory operand
 * (cpu/mem.h: [base + disp], [base + index * scale + disp], per guest
 * bitness, and a generic form for segment overrides and the 0x67 prefix):
 * every form is run here with MOV loads and stores, MOVZX/MOVSX, LEA and
 * the ALU (reg <- mem, mem <- reg, mem <- imm), at every width, including
 * addresses that wrap at 4 GiB, FS/GS-relative TLS accesses and, in 64-bit
 * code, the address-size prefix.  Then faults through each form: the
 * signal, si_code, the fault address, the instruction the handler sees
 * and that neither the register, the flags nor the memory were changed.
 * Then ROL/ROR after a flag-setting operation, read by PUSHF, ADC and Jcc
 * (the rotate replaces CF and OF only; the other flags stay lazy), and
 * shifts, which replace all six lazily.  Last, CMOVcc r,r for every
 * condition (one handler each), IMUL's CF/OF, PUSH/POP of registers.
 *
 * Printed: values, flags (the six arithmetic ones) and offsets, never an
 * address. */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#define ARITH 0x8d5ul /* CF PF AF ZF SF OF */
/* RFLAGS into %[fl] (see REDZONE_SKIP) */
#define READ_FLAGS REDZONE_SKIP "pushf\n\tpop %[fl]" REDZONE_BACK

#ifdef __x86_64__
#define REG_A REG_RAX
#define REG_FL REG_EFL
#define REG_PC REG_RIP
#define SP "rsp"
/* pushes in inline asm must not overwrite the red zone below rsp */
#define REDZONE_SKIP "lea -128(%%rsp), %%rsp\n\t"
#define REDZONE_BACK "\n\tlea 128(%%rsp), %%rsp"
#else
#define REG_A REG_EAX
#define REG_FL REG_EFL
#define REG_PC REG_EIP
#define SP "esp"
#define REDZONE_SKIP
#define REDZONE_BACK
#endif

static uint64_t mem[64] __attribute__((aligned(64)));
static __thread uint32_t tls_words[8] = { 0x11111111, 0x22222222, 0x33333333, 0x44444444,
                                          0x55555555, 0x66666666, 0x77777777, 0x88888888 };

static void fill(void)
{
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (unsigned i = 0; i < 64; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        mem[i] = x;
    }
}

static uint64_t mem_sum(void)
{
    uint64_t s = 0;
    for (unsigned i = 0; i < 64; i++)
        s = s * 31 + mem[i];
    return s;
}

static void report(const char *what, unsigned long r, unsigned long fl)
{
    printf("%-34s r=%#lx fl=%#lx mem=%016llx\n", what, r, fl & ARITH,
           (unsigned long long)mem_sum());
}

/* One instruction sequence with the register operand %[r] (rAX), the base
 * %[b] (rCX) at &mem[8] and the index %[i] (rDX) = 3, then the flags (set
 * first by a CMP, for the instructions that leave them). */
#define T(what, insns)                                                                  \
    do {                                                                                \
        unsigned long r_ = (unsigned long)0x8899aabbccddeeffull, fl_;                   \
        asm volatile("cmp $0x7e, %b[i]\n\t" insns "\n\t" READ_FLAGS                     \
                     : [r] "+a"(r_), [fl] "=&r"(fl_)                                    \
                     : [b] "c"(&mem[8]), [i] "d"(3l)                                    \
                     : "memory", "cc");                                                 \
        report(what, r_, fl_);                                                          \
    } while (0)

/* The ALU with a memory operand in one form M (a string), every width. */
#define ALU_FORMS(M)                                                                    \
    T("add r32, " M, "add " M ", %k[r]");                                               \
    T("sub r16, " M, "sub " M ", %w[r]");                                               \
    T("cmp r8, " M, "cmp " M ", %b[r]");                                                \
    T("adc r32, " M, "stc\n\tadc " M ", %k[r]");                                        \
    T("xor " M ", r32", "xor %k[r], " M);                                               \
    T("and " M ", r8", "and %b[r], " M);                                                \
    T("sbb " M ", r16", "stc\n\tsbb %w[r], " M);                                        \
    T("or " M ", r32", "or %k[r], " M);                                                 \
    T("test " M ", r32", "test %k[r], " M);                                             \
    T("addl " M ", imm", "addl $0x7fffffff, " M);                                       \
    T("cmpw " M ", imm", "cmpw $-3, " M);                                               \
    T("subb " M ", imm", "subb $0x81, " M);                                             \
    T("andl " M ", imm", "andl $0xfff0f0ff, " M)

#define MOV_FORMS(M)                                                                    \
    T("mov r32, " M, "mov " M ", %k[r]");                                               \
    T("mov r16, " M, "mov " M ", %w[r]");                                               \
    T("mov r8, " M, "mov " M ", %b[r]");                                                \
    T("mov " M ", r32", "mov %k[r], " M);                                               \
    T("mov " M ", r16", "mov %w[r], " M);                                               \
    T("mov " M ", r8", "mov %b[r], " M);                                                \
    T("movl " M ", imm", "movl $0x12345678, " M);                                       \
    T("movw " M ", imm", "movw $0x9abc, " M);                                           \
    T("movb " M ", imm", "movb $0xde, " M);                                             \
    T("movzbl " M, "movzbl " M ", %k[r]");                                              \
    T("movzwl " M, "movzwl " M ", %k[r]");                                              \
    T("movsbl " M, "movsbl " M ", %k[r]");                                              \
    T("movswl " M, "movswl " M ", %k[r]");                                              \
    T("movzbw " M, "movzbw " M ", %w[r]");                                              \
    T("movsbw " M, "movsbw " M ", %w[r]");                                              \
    T("lea r32, " M, "lea " M ", %k[r]\n\tsub %k[b], %k[r]");                           \
    T("lea r16, " M, "lea " M ", %w[r]\n\tsub %w[b], %w[r]");                           \
    T("inc/neg " M, "incl " M "\n\tnegl " M)

#ifdef __x86_64__
#define WIDE_FORMS(M)                                                                   \
    T("mov r64, " M, "mov " M ", %q[r]");                                               \
    T("mov " M ", r64", "mov %q[r], " M);                                               \
    T("movq " M ", imm", "movq $-0x12345678, " M);                                      \
    T("movsbq " M, "movsbq " M ", %q[r]");                                              \
    T("movswq " M, "movswq " M ", %q[r]");                                              \
    T("movslq " M, "movslq " M ", %q[r]");                                              \
    T("movzbq " M, "movzbq " M ", %q[r]");                                              \
    T("add r64, " M, "add " M ", %q[r]");                                               \
    T("sub " M ", r64", "sub %q[r], " M);                                               \
    T("cmpq " M ", imm", "cmpq $-1, " M);                                               \
    T("lea r64, " M, "lea " M ", %q[r]\n\tsub %q[b], %q[r]")
#else
#define WIDE_FORMS(M)
#endif

#define ALL_FORMS(M) MOV_FORMS(M); ALU_FORMS(M); WIDE_FORMS(M)

static void forms(void)
{
    fill();
    /* [base + disp] */
    ALL_FORMS("(%[b])");
    ALL_FORMS("-20(%[b])");
    ALL_FORMS("100(%[b])");
    /* [base + index * scale + disp] */
    ALL_FORMS("(%[b],%[i])");
    ALL_FORMS("-6(%[b],%[i],2)");
    ALL_FORMS("4(%[b],%[i],4)");
    ALL_FORMS("-64(%[b],%[i],8)");
    /* [index * 1 + disp]: no base */
    ALL_FORMS("8(,%[b],1)");
#ifdef __x86_64__
    /* rip-relative */
    ALL_FORMS("mem+40(%%rip)");
#elif !defined(__PIC__)
    /* an absolute address */
    ALL_FORMS("mem+40");
#endif
}

/* ia32: addresses wrap at 4 GiB; x86_64 with the 0x67 prefix the same, on a
 * buffer below 4 GiB, and the upper half of the registers is ignored. */
static void wrap(void)
{
    fill();
#ifdef __x86_64__
    uint64_t *low = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT,
                         -1, 0);
    if (low == MAP_FAILED) {
        printf("mmap MAP_32BIT failed\n");
        return;
    }
    memcpy(low, mem, 512);
    uint64_t b = (uint64_t)low + 64, hi = 0x1234567800000000ull;
    unsigned long r = 0, fl = 0;
#define TW(what, insns, base, idx)                                                      \
    do {                                                                                \
        r = 0x0123456789abcdefull;                                                      \
        asm volatile("test %k[r], %k[r]\n\t" insns "\n\t" READ_FLAGS                    \
                     : [r] "+a"(r), [fl] "=&r"(fl)                                      \
                     : [b] "c"(base), [i] "d"(idx)                                      \
                     : "memory", "cc");                                                 \
        printf("%-34s r=%#lx fl=%#lx low=%016llx\n", what, r, fl & ARITH,                \
               (unsigned long long)(low[8] ^ low[9] * 3 ^ low[10] * 7));                \
    } while (0)
    TW("addr32 mov, high bits ignored", "movl (%k[b]), %k[r]", b | hi, 0ul);
    TW("addr32 mov, base + index wraps", "movl 8(%k[b],%k[i],1), %k[r]", 0xfffffff0ul, b + 0x10);
    TW("addr32 add to memory", "addl %k[r], 4(%k[b],%k[i],2)", b | hi, 2ul);
    TW("addr32 movzx", "movzbl 3(%k[b],%k[i],2), %k[r]", b + 0x80000000ul, 0x40000000ul);
    TW("addr32 disp wraps", "movq -0x80000000(%k[b]), %q[r]", b + 0x80000000ul, 0ul);
    TW("addr32 lea", "lea -0x10(%k[b],%k[i],8), %q[r]", 0x12345678ffffff00ull, 0x20ul);
    TW("lea r32 of a 64-bit address", "lea 0x10(%q[b],%q[i],8), %k[r]", 0x12345678ffffff00ull,
       0x20ul);
    munmap(low, 4096);
#else
    uintptr_t b = (uintptr_t)&mem[8];
    unsigned long r = 0, fl = 0;
#define TW(what, insns, base, idx)                                                      \
    do {                                                                                \
        r = 0x89abcdeful;                                                               \
        asm volatile("test %k[r], %k[r]\n\t" insns "\n\t" READ_FLAGS                    \
                     : [r] "+a"(r), [fl] "=&r"(fl)                                      \
                     : [b] "c"(base), [i] "d"(idx)                                      \
                     : "memory", "cc");                                                 \
        report(what, r, fl);                                                            \
    } while (0)
    TW("base + index wraps", "movl 8(%[b],%[i],1), %[r]", 0xfffffff0ul, b + 0x10);
    TW("base + index * 2 wraps", "addl %[r], (%[b],%[i],2)", b + 0x80000000ul, 0x40000000ul);
    TW("base + disp wraps", "movl -0x80000000(%[b]), %[r]", b + 0x80000000ul, 0ul);
    TW("index + disp wraps", "movzwl 0x7ffffff0(,%[i],1), %[r]", 0ul, b + 0x80000010ul);
    TW("lea wraps", "lea 0x10(%[b],%[i],4), %[r]", 0xfffffff0ul, 0x40000000ul);
#endif
}

/* FS (x86_64) or GS (ia32) relative: the thread's TLS block. */
static void segments(void)
{
    uintptr_t tp;
#ifdef __x86_64__
    asm("mov %%fs:0, %0" : "=r"(tp));
#define SEG "%%fs:"
#define SEG_PREFIX ".byte 0x64"
#else
    asm("mov %%gs:0, %0" : "=r"(tp));
#define SEG "%%gs:"
#define SEG_PREFIX ".byte 0x65"
#endif
    long off = (long)((uintptr_t)tls_words - tp);
    unsigned long r = 0, fl = 0;
#define TS(what, insns)                                                                 \
    do {                                                                                \
        r = 0x5a5a5a5aul;                                                               \
        asm volatile("test %k[r], %k[r]\n\t" insns "\n\t" READ_FLAGS                    \
                     : [r] "+a"(r), [fl] "=&r"(fl)                                      \
                     : [b] "c"(off), [i] "d"(2l)                                        \
                     : "memory", "cc");                                                 \
        printf("%-34s r=%#lx fl=%#lx tls=%08x %08x %08x\n", what, r, fl & ARITH,         \
               tls_words[1], tls_words[2], tls_words[4]);                               \
    } while (0)
    TS("seg mov load", "movl " SEG "4(%[b]), %k[r]");
    TS("seg mov load, index", "movl " SEG "(%[b],%[i],4), %k[r]");
    TS("seg movzx", "movzbl " SEG "5(%[b]), %k[r]");
    TS("seg add to memory", "addl %k[r], " SEG "8(%[b])");
    TS("seg cmp imm", "cmpl $0x5a5a5a5a, " SEG "(%[b],%[i],8)");
    TS("seg store", "movw %w[r], " SEG "6(%[b])");
    /* (a prefix byte: gas would warn that the override does nothing) */
    TS("seg lea ignores the base", SEG_PREFIX "\n\tlea 16(%[b],%[i],4), %k[r]\n\tsub %k[b], %k[r]");
}

/* ------------------------------------------------------------ faults */
static sigjmp_buf env;
static uintptr_t page_bad, page_ro;

static void on_fault(int sig, siginfo_t *si, void *ctx)
{
    ucontext_t *uc = ctx;
    uintptr_t a = (uintptr_t)si->si_addr;
    const uint8_t *pc = (const uint8_t *)uc->uc_mcontext.gregs[REG_PC];
    const char *where = a - page_bad < 4096 ? "bad+" : a - page_ro < 4096 ? "ro+" : "";
    uintptr_t off = *where == 'b' ? a - page_bad : *where == 'r' ? a - page_ro : a;
    printf("  %s code %d at %s%#lx, insn %02x %02x %02x, r=%#lx fl=%#lx\n", strsignal(sig),
           si->si_code, where, (unsigned long)off, pc[0], pc[1], pc[2],
           (unsigned long)uc->uc_mcontext.gregs[REG_A],
           (unsigned long)uc->uc_mcontext.gregs[REG_FL] & ARITH);
    siglongjmp(env, 1);
}

/* An instruction that faults, after a CMP that sets known flags: the
 * handler must see them, and the register %[r] unchanged. */
#define TF(what, insns, base)                                                           \
    do {                                                                                \
        printf("%s\n", what);                                                           \
        if (sigsetjmp(env, 1) == 0) {                                                   \
            unsigned long r_ = 0x31415926ul;                                            \
            asm volatile("cmp $0x31415927, %k[r]\n\t" insns                             \
                         : [r] "+a"(r_)                                                 \
                         : [b] "c"(base), [i] "d"(5l)                                   \
                         : "memory", "cc");                                             \
            printf("  no fault, r=%#lx\n", r_);                                         \
        }                                                                               \
    } while (0)

static void faults(void)
{
#ifdef __x86_64__
    int low = MAP_32BIT; /* for the address-size prefix */
#else
    int low = 0;
#endif
    char *p = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | low, -1, 0);
    if (p == MAP_FAILED) {
        printf("mmap failed\n");
        return;
    }
    memset(p, 0x5c, 2 * 4096);
    mprotect(p, 4096, PROT_NONE);
    mprotect(p + 4096, 4096, PROT_READ);
    page_bad = (uintptr_t)p;
    page_ro = (uintptr_t)p + 4096;
    struct sigaction sa = { 0 };
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &sa, NULL);

    TF("load [base + disp]", "movl 12(%[b]), %k[r]", page_bad);
    TF("load [base + index * 4 + disp]", "movl -4(%[b],%[i],4), %k[r]", page_bad);
    TF("load [index + disp]", "movl 0x10(,%[b],1), %k[r]", page_bad);
    TF("movzx load", "movzwl 2(%[b],%[i],2), %k[r]", page_bad);
    TF("movsx load", "movsbl 7(%[b]), %k[r]", page_bad);
    TF("add r, [mem]", "add 8(%[b]), %k[r]", page_bad);
    TF("cmp [mem], imm", "cmpb $1, (%[b],%[i],1)", page_bad);
    TF("store [base + disp]", "mov %k[r], 16(%[b])", page_ro);
    TF("store [base + index * 8 + disp]", "mov %w[r], 2(%[b],%[i],8)", page_ro);
    TF("store imm", "movl $7, (%[b])", page_ro);
    TF("add [mem], r (read ok, write faults)", "add %k[r], 4(%[b])", page_ro);
    TF("sub [mem], imm (read ok, write faults)", "subl $1, 8(%[b],%[i],4)", page_ro);
    TF("and [mem], r8 (read ok, write faults)", "and %b[r], 0x20(%[b])", page_ro);
    TF("ro read is fine", "add 4(%[b]), %k[r]", page_ro);
#ifdef __x86_64__
    /* Beyond the guest space (elfemu's bound check), canonical and unmapped. */
    TF("load far above", "movl 8(%[b]), %k[r]", 0x500000000000ul);
    TF("load far above, index", "movq (%[b],%[i],8), %q[r]", 0x500000000000ul);
    TF("store far above", "movb %b[r], (%[b])", 0x500000000000ul);
    TF("add far above", "addq %q[r], 0x40(%[b])", 0x500000000000ul);
    TF("rip-relative is fine", "movl mem(%%rip), %k[r]", 0ul);
    TF("addr32 load", "movl 4(%k[b]), %k[r]", page_bad | 0xff00000000000000ul);
#endif
    uintptr_t tp;
#ifdef __x86_64__
    asm("mov %%fs:0, %0" : "=r"(tp));
    TF("fs: load", "movl %%fs:8(%[b]), %k[r]", page_bad - tp);
    TF("fs: store", "movl %k[r], %%fs:(%[b],%[i],4)", page_ro - tp);
#else
    asm("mov %%gs:0, %0" : "=r"(tp));
    TF("gs: load", "movl %%gs:8(%[b]), %k[r]", page_bad - tp);
    TF("gs: store", "movl %k[r], %%gs:(%[b],%[i],4)", page_ro - tp);
#endif
    munmap(p, 2 * 4096);
    signal(SIGSEGV, SIG_DFL);
}

/* ------------------------------------------------------------ rotates */
/* ROL/ROR replace CF and OF only: over a lazy ADD/SUB/AND the other four
 * come from that operation; read by PUSHF, by ADC (CF) and by JO/JS/JP. */
static void rotates(void)
{
    static const unsigned long vals[][2] = {
        { 0x7fffffff, 1 }, { 0x80000000, 0x80000000 }, { 0x12345678, 0xedcba988 },
        { 0xffffffff, 0xffffffff }, { 1, 0x40000000 }, { 0xc0000001, 3 },
    };
    for (unsigned i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
        unsigned long a = vals[i][0], b = vals[i][1], x, fl, c1, j;
        asm volatile("mov %[a], %[x]\n\t"
                     "add %k[b], %k[x]\n\t"
                     "rol $7, %k[a]\n\t"
                     READ_FLAGS
                     : [x] "=&r"(x), [fl] "=&r"(fl), [a] "+r"(a)
                     : [b] "r"(b)
                     : "cc");
        printf("add; rol 7    a=%#lx x=%#lx fl=%#lx\n", a, x, fl & ARITH);
        a = vals[i][0];
        asm volatile("mov %[a], %[x]\n\t"
                     "sub %k[b], %k[x]\n\t"
                     "ror $1, %k[a]\n\t"
                     "ror $13, %k[a]\n\t"
                     "mov $0, %[c]\n\t"
                     "adc $0, %[c]\n\t"
                     READ_FLAGS
                     : [x] "=&r"(x), [fl] "=&r"(fl), [a] "+r"(a), [c] "=&r"(c1)
                     : [b] "r"(b)
                     : "cc");
        printf("sub; ror; ror; adc a=%#lx x=%#lx c=%lu fl=%#lx\n", a, x, c1, fl & ARITH);
        a = vals[i][0];
        asm volatile("mov %[a], %[x]\n\t"
                     "and %k[b], %k[x]\n\t"
                     "rolw $9, %w[a]\n\t"
                     "mov $0, %[j]\n\t"
                     "jno 1f\n\t"
                     "or $1, %[j]\n"
                     "1:\tjns 2f\n\t"
                     "or $2, %[j]\n"
                     "2:\tjnp 3f\n\t"
                     "or $4, %[j]\n"
                     "3:\tjnc 4f\n\t"
                     "or $8, %[j]\n"
                     "4:\tjnz 5f\n\t"
                     "or $16, %[j]\n"
                     "5:"
                     : [x] "=&r"(x), [a] "+r"(a), [j] "=&r"(j)
                     : [b] "r"(b)
                     : "cc");
        printf("and; rolw; jcc a=%#lx x=%#lx taken=%#lx\n", a, x, j);
        a = vals[i][0];
        asm volatile("mov %[a], %[x]\n\t"
                     "inc %k[x]\n\t"
                     "rorb $3, %b[a]\n\t"
                     "rol $0, %k[x]\n\t"
                     READ_FLAGS
                     : [x] "=&r"(x), [fl] "=&r"(fl), [a] "+q"(a)
                     :
                     : "cc");
        printf("inc; rorb; rol 0 a=%#lx x=%#lx fl=%#lx\n", a, x, fl & ARITH);
        /* Shifts replace all six, lazily too: PUSHF, Jcc, ADC, and a rotate
         * over a shift. */
        a = vals[i][0];
        asm volatile("mov %[a], %[x]\n\t"
                     "shr $1, %k[x]\n\t"
                     READ_FLAGS
                     : [x] "=&r"(x), [fl] "=&r"(fl)
                     : [a] "r"(a)
                     : "cc");
        printf("shr 1         x=%#lx fl=%#lx\n", x, fl & ARITH);
        asm volatile("mov %[a], %[x]\n\t"
                     "shl $3, %w[x]\n\t"
                     "mov $0, %[j]\n\t"
                     "jnbe 1f\n\t"
                     "or $1, %[j]\n"
                     "1:\tjnl 2f\n\t"
                     "or $2, %[j]\n"
                     "2:\tjnp 3f\n\t"
                     "or $4, %[j]\n"
                     "3:\tjno 4f\n\t"
                     "or $8, %[j]\n"
                     "4:"
                     : [x] "=&r"(x), [j] "=&r"(j)
                     : [a] "r"(a)
                     : "cc");
        printf("shlw 3; jcc   x=%#lx taken=%#lx\n", x, j);
        asm volatile("mov %[a], %[x]\n\t"
                     "sar $31, %k[x]\n\t"
                     "mov $0, %[c]\n\t"
                     "adc $0, %[c]\n\t"
                     "mov %[a], %[x]\n\t"
                     "shr $4, %k[x]\n\t"
                     "rol $1, %k[x]\n\t"
                     READ_FLAGS
                     : [x] "=&r"(x), [fl] "=&r"(fl), [c] "=&r"(c1)
                     : [a] "r"(a)
                     : "cc");
        printf("sar; adc; shr; rol x=%#lx c=%lu fl=%#lx\n", x, c1, fl & ARITH);
    }
}

/* ------------------------------------------------------------ CMOVcc, IMUL, PUSH/POP */
/* Every condition of CMOVcc r32 and r64 after a CMP (a MOV in between, so
 * that the pair is not fused): bit cc of the result is set when it moved;
 * a 32-bit CMOV zero-extends its destination either way. */
#define CMOV1(cc, bit, W, reg)                                                          \
    "mov %[ones], %[d]\n\t"                                                            \
    "cmov" cc " %" reg "[s], %" reg "[d]\n\t"                                           \
    "add %[d], %[z]\n\t"                                                               \
    "cmp %[ones], %" reg "[d]\n\t"                                                      \
    "je 1f\n\t"                                                                        \
    "or $" #bit ", %[m]\n"                                                             \
    "1:\tcmp %k[b], %k[a]\n\t"
#define CMOVS(W, reg)                                                                   \
    CMOV1("o", 0x1, W, reg) CMOV1("no", 0x2, W, reg) CMOV1("b", 0x4, W, reg)            \
    CMOV1("ae", 0x8, W, reg) CMOV1("e", 0x10, W, reg) CMOV1("ne", 0x20, W, reg)         \
    CMOV1("be", 0x40, W, reg) CMOV1("a", 0x80, W, reg) CMOV1("s", 0x100, W, reg)        \
    CMOV1("ns", 0x200, W, reg) CMOV1("p", 0x400, W, reg) CMOV1("np", 0x800, W, reg)     \
    CMOV1("l", 0x1000, W, reg) CMOV1("ge", 0x2000, W, reg) CMOV1("le", 0x4000, W, reg)  \
    CMOV1("g", 0x8000, W, reg)

static void cmov_imul_stack(void)
{
    static const unsigned long pairs[][2] = {
        { 5, 5 }, { 5, 7 }, { 7, 5 }, { 0x80000000, 1 }, { 0x7fffffff, 0xffffffff }, { 0, 0x80 },
    };
    for (unsigned i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
        unsigned long a = pairs[i][0], b = pairs[i][1], m = 0, z = 0, d;
        asm volatile("cmp %k[b], %k[a]\n\t" CMOVS(32, "k")
                     : [m] "+r"(m), [z] "+r"(z), [d] "=&r"(d)
                     : [a] "r"(a), [b] "r"(b), [s] "r"(0x1234ul), [ones] "i"(-1)
                     : "cc");
        printf("cmov32 %#lx, %#lx: moved %#lx sum %#lx\n", a, b, m, z);
#ifdef __x86_64__
        m = z = 0;
        asm volatile("cmp %k[b], %k[a]\n\t" CMOVS(64, "q")
                     : [m] "+r"(m), [z] "+r"(z), [d] "=&r"(d)
                     : [a] "r"(a), [b] "r"(b), [s] "r"(0x123456789ul), [ones] "i"(-1)
                     : "cc");
        printf("cmov64 %#lx, %#lx: moved %#lx sum %#lx\n", a, b, m, z);
#endif
        /* IMUL sets CF and OF (the others are undefined: not compared) over
         * a lazy ADD; read by PUSHF, JO and ADC. */
        unsigned long p, fl, j, cy;
        asm volatile("mov %[a], %[p]\n\t"
                     "add %[b], %[p]\n\t"
                     "imul $0x10001, %k[b], %k[p]\n\t"
                     READ_FLAGS "\n\t"
                     "mov $0, %[j]\n\t"
                     "jno 1f\n\t"
                     "mov $1, %[j]\n"
                     "1:\tmov $0, %[c]\n\t"
                     "adc $0, %[c]"
                     : [p] "=&r"(p), [fl] "=&r"(fl), [j] "=&r"(j), [c] "=&r"(cy)
                     : [a] "r"(a), [b] "r"(b)
                     : "cc");
        printf("add; imul     p=%#lx cf/of=%#lx jo=%lu adc=%lu\n", p, fl & 0x801, j, cy);
    }
    /* PUSH and POP of registers (ia32's own 4-byte slots), POP of the
     * stack pointer itself. */
    unsigned long o0, o1, moved;
    asm volatile(REDZONE_SKIP
                 "push %[a]\n\t"
                 "push %[b]\n\t"
                 "pop %[o0]\n\t"
                 "pop %[o1]\n\t"
                 "mov %%" SP ", %[x]\n\t"
                 "push %%" SP "\n\t"
                 "pop %%" SP "\n\t"
                 "sub %%" SP ", %[x]\n\t"
                 REDZONE_BACK
                 : [x] "=&r"(moved), [o0] "=&r"(o0), [o1] "=&r"(o1)
                 : [a] "r"(0x11223344ul), [b] "r"(0x55667788ul)
                 : "memory", "cc");
    printf("push/pop %#lx %#lx, pop sp moved it by %ld\n", o0, o1, (long)moved);
}

int main(void)
{
    forms();
    wrap();
    segments();
    faults();
    rotates();
    cmov_imul_stack();
    printf("opforms done\n");
    return 0;
}
