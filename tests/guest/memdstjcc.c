/* SUB/ADD [m], imm followed by Jcc (cpu/ops_fused.c MEMDST_PAIRS, fused
 * as one op: CPython's reference counts, "subq $1, (%rdi); jne"),
 * compared with the native run: every condition class, 32- and 64-bit
 * operands, [base + disp], [base + index * 8 + disp] and rip-relative
 * forms, over edge values with CF set and clear before; per case one
 * checksum line of the branch taken, the memory and the flags read after
 * the pair on either path (PUSHF), and of the same with the flags
 * overwritten after the pair.  Then faults: the operand on a PROT_NONE
 * page (rip at the SUB, memory and flags as before it) and on a read-only
 * page (the load succeeds, the store faults: the same), and a SUB whose
 * store rewrites the Jcc right after it (JNE becomes JE: the new
 * instruction runs, as natively). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "edge_values.h"
#include "pair_faults.h"

#define ARITH 0x8d5ul /* CF PF AF ZF SF OF */
#define AF 0x10ul

/* A word a rip-relative operand reads and writes. */
uint64_t rip_word __attribute__((used));

/* The cases: the writer over the buffer %[m] (8 slots of 8 bytes; %[i]
 * is 0 or 1) and the Jcc after it. */
#define CASES(X)                                                                        \
    X(subq1_jne, "subq $1, 8(%[m])", "jne")                                             \
    X(subq1_je, "subq $1, 8(%[m])", "je")                                               \
    X(subq1_x_jne, "subq $1, 8(%[m],%[i],8)", "jne")                                    \
    X(subq1_rip_jne, "subq $1, rip_word(%%rip)", "jne")                                 \
    X(subl1_je, "subl $1, 12(%[m])", "je")                                              \
    X(subl1_x_jb, "subl $1, 4(%[m],%[i],8)", "jb")                                      \
    X(subq_jae, "subq $0x7fffffff, 16(%[m])", "jae")                                    \
    X(subq_jbe, "subq $0x80, 24(%[m])", "jbe")                                          \
    X(subq_ja, "subq $-1, 24(%[m])", "ja")                                              \
    X(subq_jl, "subq $-0x80000000, 32(%[m])", "jl")                                     \
    X(subl_jge, "subl $0x12345678, 36(%[m])", "jge")                                    \
    X(subq_x_jle, "subq $2, 40(%[m],%[i],8)", "jle")                                    \
    X(subl_jg, "subl $-2, 8(%[m])", "jg")                                               \
    X(subq_js, "subq $1, 16(%[m])", "js")                                               \
    X(subq_jns, "subq $0x7f, 16(%[m])", "jns")                                          \
    X(subl_jo, "subl $1, 20(%[m])", "jo")                                               \
    X(subq_jno, "subq $-0x80000000, 24(%[m])", "jno")                                   \
    X(subq_jp, "subq $3, 24(%[m])", "jp") /* parity: not fused */                       \
    X(addq1_jne, "addq $1, 8(%[m])", "jne")                                             \
    X(addq1_x_je, "addq $1, (%[m],%[i],8)", "je")                                       \
    X(addq_m1_jae, "addq $-1, 16(%[m])", "jae")                                         \
    X(addl_jb, "addl $0x7fffffff, 12(%[m])", "jb")                                      \
    X(addq_jbe, "addq $0x80, 32(%[m])", "jbe")                                          \
    X(addl_x_ja, "addl $1, 4(%[m],%[i],8)", "ja")                                       \
    X(addq_jl, "addq $1, 40(%[m])", "jl")                                               \
    X(addl_jge, "addl $-0x80000000, 44(%[m])", "jge")                                   \
    X(addq_jle, "addq $0x12345678, 48(%[m])", "jle")                                    \
    X(addq_jg, "addq $-2, 56(%[m])", "jg")                                              \
    X(addl_js, "addl $0x80, 8(%[m])", "js")                                             \
    X(addq_x_jo, "addq $1, 48(%[m],%[i],8)", "jo")                                      \
    X(addq_jno, "addq $-1, 8(%[m])", "jno")

/* The pair with the flags read after it on either path. */
#define GEN_CASE(name, insn, jcc)                                                       \
    static unsigned long c_##name(void *m, uint64_t i, unsigned long cf, unsigned *taken) \
    {                                                                                   \
        unsigned long fl;                                                               \
        unsigned t;                                                                     \
        asm volatile("cmpq $1, %[cf]\n\t" insn "\n\t" jcc " 1f\n\t"                     \
                     "movl $0, %[t]\n\tjmp 2f\n1:\tmovl $1, %[t]\n2:\tpushf\n\tpop %[fl]" \
                     : [fl] "=&r"(fl), [t] "=&r"(t)                                     \
                     : [cf] "m"(cf), [m] "r"(m), [i] "r"(i)                             \
                     : "cc", "memory");                                                 \
        *taken = t;                                                                     \
        return fl;                                                                      \
    }                                                                                   \
    static unsigned long d_##name(void *m, uint64_t i, unsigned long cf, unsigned *taken) \
    {                                                                                   \
        unsigned t;                                                                     \
        asm volatile("cmpq $1, %[cf]\n\t" insn "\n\t" jcc " 1f\n\t"                     \
                     "movl $0, %[t]\n\tjmp 2f\n1:\tmovl $1, %[t]\n2:\ttest %[t], %[t]"  \
                     : [t] "=&r"(t)                                                     \
                     : [cf] "m"(cf), [m] "r"(m), [i] "r"(i)                             \
                     : "cc", "memory");                                                 \
        *taken = t;                                                                     \
        return 0;                                                                       \
    }
CASES(GEN_CASE)

typedef unsigned long case_fn(void *m, uint64_t i, unsigned long cf, unsigned *taken);
static const struct pair_case {
    const char *name;
    case_fn *flags_read, *flags_dead;
} cases[] = {
#define ROW_CASE(name, insn, jcc) { #name, c_##name, d_##name },
    CASES(ROW_CASE)
};

static uint64_t buf[8];

static uint64_t mix(uint64_t sum, uint64_t v) { return sum * 1000003 + v; }

static uint64_t run_case(case_fn *fn, unsigned x, unsigned y, unsigned long cf)
{
    for (unsigned s = 0; s < 8; s++)
        buf[s] = edge[(x * 3 + y + s) % NEDGE] ^ (s == (y & 7) ? 0 : s * 0x0101010101010101ull);
    rip_word = edge[(x + 5 * y) % NEDGE];
    unsigned taken;
    unsigned long fl = fn(buf, y & 1, cf, &taken);
    uint64_t sum = mix(fl & (ARITH & ~AF), taken);
    sum = mix(sum, rip_word);
    for (unsigned s = 0; s < 8; s++)
        sum = mix(sum, buf[s]);
    return sum;
}

static void run(void)
{
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        uint64_t sum = 0, dead = 0;
        for (unsigned x = 0; x < NEDGE; x++)
            for (unsigned y = 0; y < NEDGE; y++)
                for (unsigned long cf = 0; cf < 2; cf++) {
                    sum = mix(sum, run_case(cases[k].flags_read, x, y, cf));
                    dead = mix(dead, run_case(cases[k].flags_dead, x, y, cf));
                }
        printf("%s: %016llx %016llx\n", cases[k].name, (unsigned long long)sum,
               (unsigned long long)dead);
    }
}

/* ------------------------------------------------------------ faults
 * Each routine sets rax and rdx, writes flags (CF and SF set), then runs
 * the pair on its argument (rcx); it returns with rax = 7 when it did not
 * fault. */
#define FAULT_ROUTINES(X)                                                               \
    X(subq_jne, "subq $1, 8(%rcx)\n jne 1f\n")                                          \
    X(subl_je, "subl $1, 12(%rcx)\n je 1f\n")                                           \
    X(addq_x_jo, "addq $1, (%rcx,%rdx,8)\n jo 1f\n")
#define DECLARE_FAULT(name, text) void f_##name(void *bad);
FAULT_ROUTINES(DECLARE_FAULT)
#define ASM_FAULT(name, text)                                                           \
    ".globl f_" #name "\nf_" #name ":\n mov %rdi, %rcx\n"                               \
    " mov $0x8000000000000001, %rax\n mov $2, %rdx\n cmp $2, %eax\n"                    \
    text "1: mov $7, %eax\n ret\n"
__asm__(".text\n" FAULT_ROUTINES(ASM_FAULT) ".text\n");

static const struct fault_routine routines[] = {
#define FAULT_ROW(name, text) { #name, f_##name },
    FAULT_ROUTINES(FAULT_ROW)
};

/* The routines on a PROT_NONE page (pair_faults.h), then on a read-only
 * one whose words they load but cannot store: the handler of
 * pair_faults.h, with the words printed after. */
static void faults(void)
{
    size_t n = sizeof(routines) / sizeof(routines[0]);
    run_pair_faults(routines, n, ~0ul);
    uint64_t *ro = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (ro == MAP_FAILED) {
        perror("mmap");
        return;
    }
    for (unsigned s = 0; s < 8; s++)
        ro[s] = edge[s + 5];
    mprotect(ro, 4096, PROT_READ);
    for (size_t k = 0; k < n; k++) {
        pf_rip = 0;
        if (!sigsetjmp(pf_back, 1))
            routines[k].fn(ro);
        printf("read-only %s: rip=routine+%ld addr=ro+%ld ax=%lx dx=%lx flags=%lx words", routines[k].name,
               (long)(pf_rip - (uintptr_t)routines[k].fn), (long)(pf_addr - (uintptr_t)ro), pf_ax,
               pf_dx, pf_fl & 0x8c5ul);
        for (unsigned s = 0; s < 8; s++)
            printf(" %llx", (unsigned long long)ro[s]);
        printf("\n");
    }
}

/* ------------------------------------------------------------ self-modifying
 * lea 6(%rip), %rcx (the JNE); xor %eax, %eax; subq $1, (%rcx); jne +6;
 * mov $1, %eax; ret; mov $2, %eax; ret.  The SUB turns the JNE (0x75)
 * into JE (0x74), which, ZF clear, falls through: 1 natively.  Run twice
 * (the second time from bytes already JE: 0x73, JAE, taken with CF clear:
 * 2), and a third time after the bytes are written back. */
static const uint8_t self_patch[] = {
    0x48, 0x8d, 0x0d, 0x06, 0x00, 0x00, 0x00, /* lea 6(%rip), %rcx */
    0x31, 0xc0,                               /* xor %eax, %eax */
    0x48, 0x83, 0x29, 0x01,                   /* subq $1, (%rcx) */
    0x75, 0x06,                               /* jne +6 */
    0xb8, 0x01, 0x00, 0x00, 0x00, 0xc3,       /* mov $1, %eax; ret */
    0xb8, 0x02, 0x00, 0x00, 0x00, 0xc3,       /* mov $2, %eax; ret */
};

static void self_modifying(void)
{
    uint8_t *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (code == MAP_FAILED) {
        perror("mmap");
        return;
    }
    memcpy(code, self_patch, sizeof(self_patch));
    int (*fn)(void) = (int (*)(void))(uintptr_t)code;
    int r1 = fn(), r2 = fn();
    memcpy(code, self_patch, sizeof(self_patch));
    int r3 = fn();
    printf("self-modifying: %d %d %d, jcc byte %02x\n", r1, r2, r3, code[13]);
}

int main(void)
{
    run();
    faults();
    self_modifying();
    return 0;
}
