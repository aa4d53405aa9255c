/**
 * @file elfemu.h
 * @brief The public embedding API of libelfemu.
 *
 * A VM holds one guest process: its address space, its CPU state and what
 * the loader built.  The life cycle is create -> load -> run -> destroy.
 * Tools (the elfemu CLI, elfemu-view, elfemu-difftest) use only this header.
 */
#ifndef ELFEMU_H
#define ELFEMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** An emulated process. */
typedef struct elfemu elfemu;

/** How a VM is set up; fill with elfemu_config_init() then change fields. */
typedef struct elfemu_config {
    /** Randomise the layout like Linux (stack top, stack gap, mmap and PIE bases). */
    bool aslr;
    /** When true, every random thing (AT_RANDOM, ASLR offsets) comes from @ref seed. */
    bool have_seed;
    /** The seed used when @ref have_seed is true. */
    uint64_t seed;
    /** Prefix for absolute interpreter and library paths (qemu's -L), or NULL. */
    const char *sysroot;
    /** Log unimplemented instructions and syscalls (on by default). */
    bool log_unimplemented;
    /** Trace every syscall in strace's style (--strace).  Process-wide:
     *  the first VM created with it decides where the lines go. */
    bool strace;
    /** Where the trace goes: NULL for stderr, else this file, created and
     *  truncated (or appended to when @ref trace_append is set). */
    const char *trace_file;
    /** Append to @ref trace_file (what a re-executed elfemu does after the
     *  guest's execve, so the whole process tree traces into one file). */
    bool trace_append;
    /**
     * How a guest execve() runs the new program under elfemu again, so that
     * the whole process tree stays emulated: the emulator's host path and its
     * option words (NULL-terminated; e.g. {"/usr/bin/elfemu", "-L", "/sysroot",
     * NULL}).  The library appends the internal options
     * `--execve -0 ARGV0 [--close-fd N] -- PATH ARGS...`, which the named
     * program must understand as the elfemu CLI does.  The guest's envp
     * becomes the new process's environment.  NULL: execve fails with ENOSYS.
     * The strings are copied by elfemu_create(); this is process-wide state.
     */
    const char *const *reexec_argv;
    /** Internal (--exec-rlimits, passed by execve): the emulated RLIMIT_AS
     *  and RLIMIT_DATA of the process that exec'd, "ascur:asmax:datacur:
     *  datamax".  NULL: the host process's own limits. */
    const char *exec_rlimits;
    /** Prefix every line with the pid from the start (a re-executed elfemu
     *  in a process tree that already has several processes). */
    bool trace_pids;
    /**
     * With @ref strace: hand each line to this function instead of writing
     * it (@ref trace_file is then unused): @p line is one whole line, its
     * '\n' included (@p len counts it; no NUL), exactly as --strace would
     * print it -- syscalls, `--- SIGNAL ---` and `+++ exited with N +++`.
     * It is called on the guest thread the line is about, when the line is
     * complete (a call's after it returned), one line at a time across
     * threads.  A program the guest execs is not traced (its elfemu cannot
     * call back here).  Process-wide like @ref strace.
     */
    void (*strace_line)(const char *line, size_t len, void *user);
    /** The last argument of @ref strace_line. */
    void *strace_line_user;
    /**
     * Keep the arithmetic flags exact at a fault that kills the guest, for
     * an embedder that reads the registers afterwards (elfemu_get_regs()).
     * Off by default: while the guest cannot catch a fault (no handler for
     * SIGSEGV, SIGBUS, SIGFPE, SIGILL or SIGTRAP, and one thread), elfemu
     * leaves out flag computations that only such a fault could show, so
     * rflags after a fatal fault may be those of an earlier instruction.
     * What the guest can see is exact either way; so is everything while a
     * hook is installed.
     */
    bool exact_fatal_faults;
} elfemu_config;

/** Fill @p cfg with the defaults: deterministic layout, host randomness, no sysroot. */
void elfemu_config_init(elfemu_config *cfg);

/** Create an empty VM; NULL (with errno set) when out of memory. */
elfemu *elfemu_create(const elfemu_config *cfg);

/** Free a VM and its guest address space. */
void elfemu_destroy(elfemu *vm);

/** Why elfemu_load() failed: a one-line message and the shell-like exit status. */
typedef struct elfemu_error {
    /** 126: not executable or invalid; 127: not found. */
    int status;
    /** "FILE: reason", without a trailing newline. */
    char message[512];
    /** The errno execve() would fail with (ENOENT, EACCES, ENOEXEC, ELOOP...). */
    int errnum;
} elfemu_error;

/**
 * Load @p path the way execve() would: #! scripts, the ELF image, its
 * interpreter, the vDSO, brk and the initial stack with @p argv, @p envp and
 * the auxiliary vector.  @p argv[0] is passed as given.
 * @return 0 on success, -1 with @p err filled in on failure.  A VM whose load
 *         failed must not be run.
 */
int elfemu_load(elfemu *vm, const char *path, char *const argv[], char *const envp[],
                elfemu_error *err);

/**
 * Find a program the way execvp() does: a name with a slash is used as it
 * is, a bare name is looked up in $PATH (executable files only).
 * @return a malloc'd path (the name itself when nothing matches), NULL when
 *         out of memory.
 */
char *elfemu_find_program(const char *name);

/**
 * The same with a foreign root (`-L`): each `$PATH` directory is searched
 * inside @p root first (as the guest would see it), then on the host.
 * @p root NULL or "" is elfemu_find_program().  The result is the guest's
 * path of the program, to be loaded with the same root.
 */
char *elfemu_find_program_in(const char *name, const char *root);

/** The guest's word size: 64 for x86_64, 32 for ia32 (0 before a load). */
int elfemu_bits(const elfemu *vm);

/** How the guest ended. */
typedef struct elfemu_exit {
    /** True when the guest was killed by a signal, false when it exited. */
    bool signaled;
    /** The exit status (0-255) or the signal number. */
    int code;
} elfemu_exit;

/**
 * Run the loaded guest until it exits or dies, or until elfemu_stop().
 * @return 0 when the guest ended (@p exit_out says how), 1 when
 *         elfemu_stop() stopped it (@p exit_out untouched; the guest is at
 *         a block boundary and elfemu_run() goes on from there), -1 on an
 *         emulator error.
 */
int elfemu_run(elfemu *vm, elfemu_exit *exit_out);

/**
 * Make elfemu_run() return 1 at the guest's next block boundary (the rest
 * of the block in progress runs first; a thread blocked in a syscall stops
 * once the call returns).  Callable from a hook or from another host
 * thread.  It stops the VM's own thread, the one elfemu_run() runs; other
 * guest threads run on.  Asked for while nothing runs, it takes effect at
 * the start of the next elfemu_run().
 */
void elfemu_stop(elfemu *vm);

/**
 * Execute exactly one instruction of the loaded guest.  A signal the host
 * queued for the guest is delivered first, as elfemu_run() delivers it at
 * an instruction boundary: when it runs a handler (or ends the guest, or
 * sends an interrupted call back to its SYSCALL) that is the step, and no
 * instruction runs; an ignored one leaves the instruction to run.
 * @return 0 while the guest runs on, 1 when it has stopped (then @p exit_out
 *         says how), -1 on emulator error.
 */
int elfemu_step(elfemu *vm, elfemu_exit *exit_out);

/** Copy guest memory at @p addr; 0 on success, -EFAULT when not readable. */
int elfemu_read(elfemu *vm, uint64_t addr, void *buf, size_t len);

/** Copy into guest memory at @p addr; 0 on success, -EFAULT when not mapped. */
int elfemu_write(elfemu *vm, uint64_t addr, const void *buf, size_t len);

/** The general registers, in the order of the x86 encoding, plus rip and rflags. */
typedef struct elfemu_regs {
    uint64_t gpr[16]; /**< rax rcx rdx rbx rsp rbp rsi rdi r8..r15 (ia32: low 32 bits) */
    uint64_t rip;     /**< instruction pointer */
    uint64_t rflags;  /**< flags as the guest would see them with pushf */
    uint64_t fs_base; /**< FS segment base (x86_64 TLS) */
    uint64_t gs_base; /**< GS segment base (ia32 TLS) */
} elfemu_regs;

/** Read the registers of the guest's (first) thread. */
void elfemu_get_regs(elfemu *vm, elfemu_regs *out);

/** Write the registers of the guest's (first) thread (rflags: user-changeable bits only). */
void elfemu_set_regs(elfemu *vm, const elfemu_regs *in);

/** The x87/MMX/SSE state as a 64-bit FXSAVE image (512 bytes). */
void elfemu_get_fpstate(elfemu *vm, uint8_t out[512]);

/** Load the x87/MMX/SSE state from a 64-bit FXSAVE image (512 bytes). */
void elfemu_set_fpstate(elfemu *vm, const uint8_t in[512]);

/** Instructions the guest has retired so far. */
uint64_t elfemu_icount(const elfemu *vm);

/** What elfemu_get_stats() reports: counters of the whole process. */
typedef struct elfemu_stats {
    /** Instructions retired by every thread of the process, the ended ones
     *  too (a REP string instruction counts once, however many
     *  iterations).  Counted per block: while hooks are on an instruction
     *  that faults ends the count of its block exactly; without hooks the
     *  instructions of a block cut short by a fault are not counted. */
    uint64_t instructions;
    /** Blocks the interpreter decoded, all threads (each thread decodes
     *  into its own cache; invalidated code is decoded again). */
    uint64_t blocks_decoded;
    /** Self-modifying code: code pages whose decoded blocks were dropped
     *  because the guest wrote to them (an instruction, or a syscall
     *  writing a buffer there). */
    uint64_t smc_invalidations;
} elfemu_stats;

/** Fill @p out with the counters so far; 0, or -1 before a load.  Safe
 *  from hooks and other threads (other threads' counts may be a block
 *  behind). */
int elfemu_get_stats(elfemu *vm, elfemu_stats *out);

/**
 * A number that changes whenever decoded code is dropped because guest
 * code may have changed (a write to a code page, munmap or mprotect of
 * one, a mapping over one).  A tool that keeps what it learned per block
 * address (from the block hook) starts afresh when it changes.  Cheap
 * (one load): meant to be called from every block hook.
 */
uint64_t elfemu_code_generation(const elfemu *vm);

/**
 * Keep one of the embedder's host descriptors (a trace file) away from the
 * guest, whose descriptors are the host process's own: the guest's close()
 * of it answers EBADF as for a descriptor that is not open, and a
 * close_range() over it (closefrom) closes around it.  A guest dup2() onto
 * its number is not refused (Linux would allow it): open it at a high
 * number.  Process-wide; at most 8 descriptors.
 * @return 0, or -1 with errno EBADF (fd < 0) or ENOSPC.
 */
int elfemu_reserve_fd(elfemu *vm, int fd);

/** The name of syscall @p nr of the ABI with word size @p bits (64: the
 *  x86_64 numbers, 32: the i386 ones), e.g. "openat"; NULL when unknown. */
const char *elfemu_syscall_name(int bits, uint64_t nr);

/** Index of a register in elfemu_regs::gpr. */
enum { ELFEMU_RAX, ELFEMU_RCX, ELFEMU_RDX, ELFEMU_RBX, ELFEMU_RSP, ELFEMU_RBP,
       ELFEMU_RSI, ELFEMU_RDI };

/** One mapping of the guest address space (like a line of /proc/self/maps). */
typedef struct elfemu_map {
    uint64_t start, end; /**< [start, end), page aligned */
    int prot;            /**< PROT_READ | PROT_WRITE | PROT_EXEC */
    uint64_t offset;     /**< file offset of start, 0 for anonymous */
    char name[256];      /**< file path, "[stack]", "[heap]", "[vdso]", or "" */
} elfemu_map;

/** Copy up to @p max mappings in address order; returns how many there are. */
size_t elfemu_maps(const elfemu *vm, elfemu_map *out, size_t max);

/** One PT_LOAD as the loader mapped it. */
typedef struct elfemu_segment {
    uint64_t file_off, file_size;  /**< p_offset, p_filesz */
    uint64_t vaddr, mem_size;      /**< p_vaddr + load bias, p_memsz */
    uint64_t map_start, map_end;   /**< page range mapped from the file */
    uint64_t bss_start, bss_end;   /**< zero-filled range [p_vaddr+filesz, p_vaddr+memsz) */
    int prot;                      /**< PROT_* from p_flags */
} elfemu_segment;

/** One ELF image the loader placed: the program or its interpreter. */
typedef struct elfemu_image {
    char path[4096];      /**< as opened (after the sysroot prefix) */
    int bits;             /**< 64 or 32 */
    int type;             /**< ET_EXEC or ET_DYN */
    int machine;          /**< EM_X86_64 or EM_386 */
    uint64_t entry;       /**< e_entry + load bias */
    uint64_t load_bias;   /**< 0 for ET_EXEC */
    uint64_t phdr_addr;   /**< guest address of the program headers (AT_PHDR) */
    unsigned phnum, phentsize;
    unsigned nsegments;
    elfemu_segment segments[16];
    uint64_t start, end;  /**< lowest and highest guest address of the image */
} elfemu_image;

/** One slot of the initial stack, for the figure of --explain and the viewer. */
typedef enum elfemu_slot_kind {
    ELFEMU_SLOT_ARGC, ELFEMU_SLOT_ARGV, ELFEMU_SLOT_ENVP, ELFEMU_SLOT_AUXV
} elfemu_slot_kind;

/** Everything the loader did, recorded for --explain, tests and the viewer. */
typedef struct elfemu_load_info {
    int bits;                   /**< 64 or 32 */
    unsigned nscripts;          /**< #! interpreters followed, outermost first */
    char scripts[5][4096];      /**< the script paths in the order they were read */
    elfemu_image program;       /**< the main program */
    bool has_interp;
    char interp_request[4096];  /**< PT_INTERP string as found in the program */
    elfemu_image interp;        /**< valid when has_interp */
    bool exec_stack;            /**< PT_GNU_STACK asked for PF_X (or no PT_GNU_STACK on ia32) */
    uint64_t vdso_base, vdso_size, vdso_sysinfo;
    uint64_t brk_start;
    uint64_t stack_top, stack_low;  /**< the [stack] mapping */
    uint64_t mmap_base;             /**< where top-down mmap allocation starts */
    /* The initial stack, from the top down. */
    uint64_t execfn_addr;           /**< AT_EXECFN string */
    uint64_t strings_low;           /**< lowest argument string */
    uint64_t platform_addr;         /**< AT_PLATFORM string */
    uint64_t random_addr;           /**< the 16 AT_RANDOM bytes */
    uint64_t auxv_addr;             /**< first auxv pair */
    unsigned nauxv;                 /**< pairs including AT_NULL */
    uint64_t auxv[32][2];           /**< the pairs as written */
    uint64_t argv_addr, envp_addr;  /**< argv[0] and envp[0] slots */
    unsigned argc, envc;
    uint64_t sp;                    /**< initial stack pointer (points at argc) */
    uint64_t entry;                 /**< where execution starts (interp or program) */
} elfemu_load_info;

/** What the loader did; valid after a successful elfemu_load(). */
const elfemu_load_info *elfemu_get_load_info(const elfemu *vm);

/** The AT_ name of an auxv type ("AT_PHDR"), or NULL when unknown. */
const char *elfemu_auxv_name(uint64_t type);

/** How many arguments syscall @p nr of the ABI with word size @p bits
 *  takes (as --strace shows them), or -1 when elfemu does not serve it;
 *  its name: elfemu_syscall_name(). */
int elfemu_syscall_nargs(int bits, uint64_t nr);

/**
 * Write the --explain narrative of the last load to @p out (a FILE *):
 * each step of the loader, then the initial stack drawn slot by slot.
 */
void elfemu_explain(elfemu *vm, void *out);

/**
 * @name Hooks
 * Callbacks on instructions, blocks, memory accesses and syscalls, added
 * and removed at any time (also from inside a hook).  They are process-wide:
 * every thread of the guest calls them, on its own host thread, so a hook
 * that keeps state must guard it (or keep it per thread).  A hook removed
 * while another thread is inside it may still be called by that thread
 * for the instruction it is at.
 *
 * Cost: with no instruction, block or memory hook installed, the
 * interpreter runs exactly as without hooks (no test per instruction);
 * installing the first one (or removing the last) drops every decoded
 * block, and blocks are decoded with a hook op before each instruction
 * until the last one is removed.  Syscall hooks cost one test per syscall.
 * @{
 */

/** A guest thread as hooks see it (valid during the callback). */
typedef struct elfemu_thread elfemu_thread;

/** The instruction about to run. */
typedef struct elfemu_insn {
    uint64_t addr;          /**< its guest address */
    unsigned len;           /**< its length in bytes */
    const uint8_t *bytes;   /**< the @ref len bytes that were decoded */
} elfemu_insn;

/** Called before each instruction. */
typedef void (*elfemu_insn_hook)(elfemu *vm, elfemu_thread *t, const elfemu_insn *insn,
                                 void *user);

/** Called before each block: [start, end), @p ninsns instructions, run in a
 *  row unless one faults (blocks end at control transfers). */
typedef void (*elfemu_block_hook)(elfemu *vm, elfemu_thread *t, uint64_t start, uint64_t end,
                                  unsigned ninsns, void *user);

/** One memory access of the guest's instructions. */
typedef struct elfemu_mem_access {
    uint64_t addr;          /**< guest address */
    uint32_t size;          /**< bytes accessed */
    bool write;             /**< a write (else a read) */
    uint64_t value;         /**< the first min(size, 8) bytes, little-endian */
    const uint8_t *data;    /**< the bytes (at most the first 1024) */
} elfemu_mem_access;

/**
 * Called for each memory access of an instruction, found from its
 * operands (explicit ones and implicit ones: the stack, string
 * instructions): a read before the instruction runs, with the value it
 * reads; a write once it has completed, with the value written (before the
 * next instruction's hooks).  A faulting instruction reports its reads
 * but no write; REP string instructions report each element after they
 * complete (reads then show the memory as it is then).
 */
typedef void (*elfemu_mem_hook)(elfemu *vm, elfemu_thread *t, const elfemu_mem_access *access,
                                void *user);

/** A system call as the guest made it (ia32: i386 numbers, 32-bit args). */
typedef struct elfemu_syscall {
    uint64_t nr;            /**< the syscall number (a before hook may change it) */
    uint64_t args[6];       /**< the arguments (a before hook may change them) */
    int64_t result;         /**< result or -errno (set by a skipping before hook,
                                 and seen and changeable by after hooks) */
    int bits;               /**< 64 or 32: which ABI's numbers */
} elfemu_syscall;

/** Called before a syscall: return true to skip it, @c call->result then
 *  being its result (the other before hooks are not called then). */
typedef bool (*elfemu_syscall_before_hook)(elfemu *vm, elfemu_thread *t, elfemu_syscall *call,
                                           void *user);
/** Called after a syscall (also a skipped one): may change @c call->result.
 *  A call that does not return (exit, execve that succeeds) has no after. */
typedef void (*elfemu_syscall_after_hook)(elfemu *vm, elfemu_thread *t, elfemu_syscall *call,
                                          void *user);

/** Add a hook; returns its id (> 0), or -1 (errno ENOMEM, or EINVAL for a
 *  NULL function or an unloaded VM). */
int elfemu_hook_insn(elfemu *vm, elfemu_insn_hook fn, void *user);
int elfemu_hook_block(elfemu *vm, elfemu_block_hook fn, void *user);
int elfemu_hook_mem(elfemu *vm, elfemu_mem_hook fn, void *user);
/** Either function may be NULL (not both). */
int elfemu_hook_syscall(elfemu *vm, elfemu_syscall_before_hook before,
                        elfemu_syscall_after_hook after, void *user);

/** How the program ended (elfemu_end_hook). */
typedef enum elfemu_end_kind {
    ELFEMU_END_EXIT,    /**< the process exited: @c code is its status */
    ELFEMU_END_SIGNAL,  /**< it died of a signal: @c code is the signal */
    ELFEMU_END_EXEC,    /**< it replaced itself by execve (the new program
                             runs under a new elfemu): @c code is 0 */
} elfemu_end_kind;

/** The end of the program (elfemu_end_hook). */
typedef struct elfemu_end {
    elfemu_end_kind kind;
    int code;
} elfemu_end;

/**
 * Called once when the program ends, whichever way and on whichever
 * thread: the last thread's exit, exit_group from any thread, a fatal
 * signal, or an execve once it can no longer fail (a host execve that
 * fails after all calls it again at the real end).  It runs before
 * elfemu_run() returns -- or instead, when another thread ends the
 * process and elfemu_run() never returns -- while the other threads may
 * still be running.  @p t is the thread that ends the program, NULL when
 * the last thread to exit is already gone.  A forked child is a copy of
 * the process, hooks included: it calls the hook at its own end.
 */
typedef void (*elfemu_end_hook)(elfemu *vm, elfemu_thread *t, const elfemu_end *end,
                                void *user);
int elfemu_hook_end(elfemu *vm, elfemu_end_hook fn, void *user);

/** Remove a hook by id; 0, or -1 when there is no such hook. */
int elfemu_hook_remove(elfemu *vm, int id);

/** The guest's thread id of @p t (its host tid: guest threads are host threads). */
int elfemu_thread_tid(const elfemu_thread *t);

/** The VM's own thread: the guest thread that elfemu_run() runs on the
 *  calling host thread (valid after a load). */
elfemu_thread *elfemu_main_thread(elfemu *vm);

/** How many guest threads the process has now. */
int elfemu_thread_count(const elfemu *vm);

/** The registers of @p t (like elfemu_get_regs()). */
void elfemu_thread_get_regs(elfemu_thread *t, elfemu_regs *out);

/** Change the registers of @p t, except rip (the hooks run in the middle
 *  of decoded blocks: a jump elsewhere is not theirs to make). */
void elfemu_thread_set_regs(elfemu_thread *t, const elfemu_regs *in);

/** The x87/MMX/SSE state of @p t as a 64-bit FXSAVE image. */
void elfemu_thread_get_fpstate(elfemu_thread *t, uint8_t out[512]);

/** Instructions @p t has retired (counted per block: inside a block hook
 *  or an instruction hook the current block's are not counted yet). */
uint64_t elfemu_thread_icount(const elfemu_thread *t);

/** @} */

#ifdef __cplusplus
}
#endif
#endif
