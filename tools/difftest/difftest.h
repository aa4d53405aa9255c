/* elfemu-difftest: the emulator in lockstep with the real CPU.
 *
 * The emulator runs the guest through the public API (include/elfemu.h).
 * A native child process (a fork of this tool, stopped under ptrace before
 * the emulator reserves its guest space) is given the same process image at
 * the same addresses, and the two are single-stepped side by side:
 *
 *   mirror.c   the native child: spawn, inject system calls, read and write
 *              its memory and registers, build its image from the emulator's
 *   replay.c   system calls: the emulator executes them, their effects
 *              (result registers, written memory, mapping changes) are
 *              replayed into the child
 *   step.c     the lockstep loop: one instruction on both sides, special
 *              cases (syscall, CPUID, RDTSC, RDRAND, REP strings, faults)
 *   compare.c  state comparison (masking undefined flags) and the report
 *   insn.c     what an instruction writes, which flags it leaves undefined
 *   syms.c     symbol+offset for addresses, from the mapped ELF files
 *   fuzz.c     --fuzz: random instruction sequences in generated programs
 *   main.c     options
 *
 * Guest addresses lie below 2^46 (x86_64) or 2^32 (ia32); this tool and its
 * libraries live far above that, so the child can hold both images. */
#ifndef TOOLS_DIFFTEST_DIFFTEST_H
#define TOOLS_DIFFTEST_DIFFTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include <Zydis/Zydis.h>

#include "elfemu.h"

/* Exit statuses of elfemu-difftest. */
enum {
    DT_EXIT_OK = 0,            /* no mismatch */
    DT_EXIT_MISMATCH = 1,      /* the emulator and the CPU disagree */
    DT_EXIT_UNIMPLEMENTED = 2, /* the emulator does not implement an instruction */
    DT_EXIT_ERROR = 3,         /* difftest itself could not go on (ptrace, layout) */
    DT_EXIT_USAGE = 64,        /* bad command line (EX_USAGE) */
};

#define DT_FXSAVE_SIZE 512

struct dt_check;

/* ------------------------------------------------------------ options (main.c) */
struct dt_options {
    uint64_t fp_interval;   /* compare x87/SSE and written memory every N instructions; 0 never */
    uint64_t max;           /* stop after N instructions (0: no limit) */
    uint64_t start;         /* compare from instruction N on */
    bool quiet;             /* no summary line on success */
    bool full_sync;         /* after every syscall sync all writable memory */
    bool verbose;           /* log every replayed syscall */
    bool fuzz;              /* --fuzz: an unimplemented instruction is tallied, not reported */
    bool fp_all;            /* compare the FPU after every instruction, FPU-using or not */
    bool keep_going;        /* --fuzz: go on after a mismatching case */
};

/* ------------------------------------------------------------ the native child (mirror.c) */
struct native {
    pid_t pid;
    int memfd;              /* /proc/PID/mem */
    bool alive;
    int bits;               /* the guest's: 64 or 32 */
    struct user_regs_struct regs;   /* cached after each stop */
};

/* How a single step of the child ended. */
enum native_stop_kind { NS_STEPPED, NS_SIGNAL, NS_EXITED, NS_KILLED, NS_ERROR };
struct native_stop {
    enum native_stop_kind kind;
    int sig;                /* NS_SIGNAL / NS_KILLED: the signal; NS_EXITED: the status */
    int si_code;
    uint64_t fault_addr;
};

/* Fork the stub, stopped under ptrace; call before creating the VM (whose
 * reservation must not be inherited).  0 or -1 with a message printed. */
int native_spawn(struct native *n);
void native_kill(struct native *n);
int native_get_regs(struct native *n);
int native_set_regs(struct native *n);
int native_get_fp(struct native *n, uint8_t fx[DT_FXSAVE_SIZE]);
int native_set_fp(struct native *n, const uint8_t fx[DT_FXSAVE_SIZE]);
/* Single-step one instruction (and refresh n->regs when it stopped).  A
 * SIGTRAP is the step's own trap unless trap_may_be_signal (INT3 and
 * friends), when its si_code decides. */
int native_step(struct native *n, struct native_stop *out, bool trap_may_be_signal);
/* Run the child until it reaches @p addr (a breakpoint there), for long
 * REP string instructions; the stop is reported like a step's. */
int native_run_to(struct native *n, uint64_t addr, struct native_stop *out);
/* Execute a system call in the child (64-bit ABI) without disturbing its
 * registers; returns the kernel's result (-errno on failure). */
/* The same through int $0x80: the ia32 table, three arguments. */
long native_syscall32(struct native *n, long nr, uint32_t a0, uint32_t a1, uint32_t a2);
long native_syscall(struct native *n, long nr, uint64_t a0, uint64_t a1, uint64_t a2,
                    uint64_t a3, uint64_t a4, uint64_t a5);
/* Memory of the child through /proc/PID/mem: 0 or -1. */
int native_read(struct native *n, uint64_t addr, void *buf, size_t len);
int native_write(struct native *n, uint64_t addr, const void *buf, size_t len);

/* Registers: elfemu's layout <-> the child's. */
void native_to_emu_regs(const struct native *n, elfemu_regs *out);
void emu_to_native_regs(struct native *n, const elfemu_regs *in);

/* The child's image: every emulator mapping at the same address with the
 * same bytes and protection, then the registers and the FPU state. */
int mirror_build(struct native *n, elfemu *vm);
/* Replace the child's [start, end) by the emulator's mappings and bytes there. */
int mirror_range(struct native *n, elfemu *vm, uint64_t start, uint64_t end);
/* Copy the emulator's bytes in [start, end) into the child (already mapped). */
int mirror_copy(struct native *n, elfemu *vm, uint64_t start, uint64_t end);
/* Copy every page of the emulator's writable mappings that differs. */
int mirror_sync_writable(struct native *n, elfemu *vm);

/* ------------------------------------------------------------ syscalls (replay.c) */
struct dt_maps {
    elfemu_map *v;
    size_t n;
};
int dt_maps_get(elfemu *vm, struct dt_maps *m);
void dt_maps_free(struct dt_maps *m);
/* The end of what can be read of a mapping: a file mapping's pages beyond
 * the end of its file raise SIGBUS (in the emulator too), so stop there. */
uint64_t dt_map_readable_end(const elfemu_map *m);

/* How the guest entered the kernel. */
enum dt_gate {
    GATE_SYSCALL,   /* x86_64 SYSCALL */
    GATE_INT80,     /* ia32 int $0x80 */
    GATE_SYSENTER,  /* ia32 SYSENTER (the vDSO's __kernel_vsyscall) */
};

/* After the emulator executed the syscall whose arguments were in @p before:
 * make the child's registers, mappings and memory show its effects. */
int replay_syscall(struct native *n, elfemu *vm, const struct dt_options *o,
                   const elfemu_regs *before, const struct dt_maps *maps_before,
                   enum dt_gate gate, unsigned insn_len);

/* ------------------------------------------------------------ instructions (insn.c) */
/* Writes whose address is known only after the step. */
struct dt_pending {
    unsigned stack_size;   /* push-like: the bytes at the new rsp */
    unsigned string_size;  /* stos/movs: the bytes between rdi before and after */
    bool enter;            /* ENTER: the saved rbp at the new rbp */
};

/* The index in elfemu_regs.gpr of a general register (any width), or -1. */
int insn_gpr(int bits, ZydisRegister reg);
/* The mask of an address of @p width bits (64-bit guests: 16, 32 or 64). */
uint64_t insn_addr_mask(int bits, unsigned width);
/* The linear address of a memory operand with the registers @p g. */
uint64_t insn_mem_addr(int bits, const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *op,
                       const elfemu_regs *g);
/* The memory the instruction writes: explicit operands now (registers
 * before the step), stack and string writes after it. */
void insn_writes_before(int bits, const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *zo,
                        const elfemu_regs *g, struct dt_check *c, struct dt_pending *p);
void insn_writes_after(int bits, const struct dt_pending *p, const elfemu_regs *pre,
                       const elfemu_regs *post, struct dt_check *c);
/* RFLAGS bits the SDM leaves undefined for this instruction with these operands. */
uint64_t insn_undefined_flags(const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *zo,
                              const elfemu_regs *g);
/* Whether the instruction can change the x87/MMX/SSE state. */
bool insn_uses_fp(const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *zo);
bool insn_is_rep_string(const ZydisDecodedInstruction *zi);
bool insn_is_xsave(ZydisMnemonic mn);

/* ------------------------------------------------------------ lockstep (step.c) */
/* Run the loaded guest on both sides until it ends or they disagree;
 * returns the exit status of elfemu-difftest. */
int dt_run(struct native *n, elfemu *vm, const struct dt_options *o);
/* About the last dt_run(): its last instruction, how many it ran, and
 * whether it ended with the same fault on both sides. */
const struct dt_insn *dt_last_insn(void);
uint64_t dt_last_count(void);
bool dt_last_fault(void);

/* ------------------------------------------------------------ fuzzing (fuzz.c) */
/* Run COUNT random programs of LEN instructions from SEED; exit status. */
int dt_fuzz(uint64_t seed, uint64_t count, unsigned len, const struct dt_options *o);

/* ------------------------------------------------------------ symbols (syms.c) */
/* "name+0x12" for a guest address, or "" when unknown; the string is static. */
const char *dt_sym_lookup(elfemu *vm, uint64_t addr);
void dt_syms_free(void);

/* ------------------------------------------------------------ comparison (compare.c) */
/* One retired instruction, kept for the report. */
struct dt_insn {
    uint64_t n;             /* 1-based instruction number */
    uint64_t rip;
    uint8_t bytes[15];
    uint8_t len;
};

/* What a step leaves for comparison. */
struct dt_check {
    uint64_t flag_undef;    /* RFLAGS bits the SDM leaves undefined here */
    uint32_t fpu_undef;     /* FSW condition bits (C0..C3) left undefined here */
    bool fp;                /* compare x87/SSE state now */
    unsigned nmem;          /* memory ranges written by the instruction */
    struct { uint64_t addr, len; } mem[4];
};

/* The RFLAGS bits compared at all (user-visible, deterministic). */
#define DT_FLAGS_COMPARED 0x240cd5ull /* CF PF AF ZF SF DF OF AC ID */

void dt_disasm(int bits, uint64_t rip, const uint8_t *bytes, unsigned len, char *buf,
               size_t size);

/* Compare registers (and, when asked, FPU state and memory) after a step;
 * true when equal.  On a difference prints the report. */
bool compare_state(struct native *n, elfemu *vm, const struct dt_check *chk,
                   const struct dt_insn *insn);
/* Compare every readable mapping byte for byte (at exit). */
bool compare_all_memory(struct native *n, elfemu *vm, const struct dt_insn *insn);

/* The FSW bits of the x87 condition codes in a Zydis FPU flag mask. */
uint16_t dt_fsw_undef_mask(uint32_t zydis_mask);

/* The report's parts. */
void report_header(elfemu *vm, const char *what, const struct dt_insn *insn);
void report_history(elfemu *vm);
void report_regs(const elfemu_regs *native, const elfemu_regs *emu, uint64_t flag_mask,
                 int bits);
void history_push(const struct dt_insn *insn);
void history_reset(void);

#endif
