/* The native side: a stopped child under ptrace, and its process image made
 * identical to the emulator's.
 *
 * The child is a fork of this tool, taken before the emulator reserves its
 * guest space, so below 2^46 it holds nothing.  Its own code provides the
 * one instruction we need to change its address space: a `syscall; int3`
 * gadget at the same address as in the parent.  To make a system call in
 * the child we point its rip at the gadget, load the arguments, single-step
 * once, read rax, and put its registers back.  Memory is read and written
 * through /proc/PID/mem. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <elf.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/difftest/difftest.h"

/* The gadget, in this program's text: the child has it at the same address. */
__asm__(".pushsection .text\n"
        ".globl dt_syscall_gadget\n"
        ".type dt_syscall_gadget, @function\n"
        "dt_syscall_gadget:\n"
        "    syscall\n"
        "    int3\n"
        ".size dt_syscall_gadget, . - dt_syscall_gadget\n"
        ".globl dt_int80_gadget\n"
        ".type dt_int80_gadget, @function\n"
        "dt_int80_gadget:\n"
        "    int $0x80\n"
        "    int3\n"
        ".size dt_int80_gadget, . - dt_int80_gadget\n"
        ".popsection\n");
extern const char dt_syscall_gadget[], dt_int80_gadget[];

#define USER64_CS 0x33
#define USER32_CS 0x23
#define USER_DS 0x2b
#define PAGE 4096ull
#define CHUNK (64 * 1024)

static int fail(const char *what)
{
    fprintf(stderr, "elfemu-difftest: %s: %s\n", what, strerror(errno));
    return -1;
}

int native_spawn(struct native *n)
{
    memset(n, 0, sizeof(*n));
    n->memfd = -1;
    n->bits = 64;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return fail("fork");
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        setpgid(0, 0); /* the terminal's ^C is for difftest, not for the guest's CPU side */
        if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) != 0)
            _exit(126);
        raise(SIGSTOP);
        _exit(125); /* never reached: the parent redirects us or kills us */
    }
    n->pid = pid;
    int st;
    if (waitpid(pid, &st, 0) != pid)
        return fail("waitpid");
    if (!WIFSTOPPED(st) || WSTOPSIG(st) != SIGSTOP) {
        fprintf(stderr, "elfemu-difftest: the native child did not stop under ptrace "
                        "(is ptrace forbidden here?)\n");
        return -1;
    }
    n->alive = true;
    if (ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)(long)PTRACE_O_EXITKILL) != 0)
        return fail("PTRACE_SETOPTIONS");
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
    if ((n->memfd = open(path, O_RDWR | O_CLOEXEC)) < 0)
        return fail(path);
    return native_get_regs(n);
}

void native_kill(struct native *n)
{
    if (n->memfd >= 0)
        close(n->memfd);
    n->memfd = -1;
    if (n->alive && n->pid > 0) {
        kill(n->pid, SIGKILL);
        int st;
        waitpid(n->pid, &st, 0);
    }
    n->alive = false;
}

int native_get_regs(struct native *n)
{
    if (ptrace(PTRACE_GETREGS, n->pid, NULL, &n->regs) != 0)
        return fail("PTRACE_GETREGS");
    return 0;
}

int native_set_regs(struct native *n)
{
    /* Never let the kernel restart a "system call" behind our back. */
    n->regs.orig_rax = (unsigned long long)-1;
    if (ptrace(PTRACE_SETREGS, n->pid, NULL, &n->regs) != 0)
        return fail("PTRACE_SETREGS");
    return 0;
}

int native_get_fp(struct native *n, uint8_t fx[DT_FXSAVE_SIZE])
{
    if (ptrace(PTRACE_GETFPREGS, n->pid, NULL, fx) != 0)
        return fail("PTRACE_GETFPREGS");
    return 0;
}

int native_set_fp(struct native *n, const uint8_t fx[DT_FXSAVE_SIZE])
{
    if (ptrace(PTRACE_SETFPREGS, n->pid, NULL, fx) != 0)
        return fail("PTRACE_SETFPREGS");
    return 0;
}

int native_step(struct native *n, struct native_stop *out, bool trap_may_be_signal)
{
    memset(out, 0, sizeof(*out));
    if (ptrace(PTRACE_SINGLESTEP, n->pid, NULL, NULL) != 0) {
        out->kind = NS_ERROR;
        return fail("PTRACE_SINGLESTEP");
    }
    int st;
    if (waitpid(n->pid, &st, 0) != n->pid) {
        out->kind = NS_ERROR;
        return fail("waitpid");
    }
    if (WIFEXITED(st)) {
        n->alive = false;
        out->kind = NS_EXITED;
        out->sig = WEXITSTATUS(st);
        return 0;
    }
    if (WIFSIGNALED(st)) {
        n->alive = false;
        out->kind = NS_KILLED;
        out->sig = WTERMSIG(st);
        return 0;
    }
    out->sig = WSTOPSIG(st);
    out->kind = NS_STEPPED;
    if (out->sig != SIGTRAP || trap_may_be_signal) {
        siginfo_t si;
        memset(&si, 0, sizeof(si));
        ptrace(PTRACE_GETSIGINFO, n->pid, NULL, &si);
        out->si_code = si.si_code;
        out->fault_addr = (uint64_t)(uintptr_t)si.si_addr;
        /* The trap of the single step itself; an int3 reports SI_KERNEL. */
        if (out->sig != SIGTRAP || si.si_code == SI_KERNEL)
            out->kind = NS_SIGNAL;
    }
    if (native_get_regs(n) != 0) {
        out->kind = NS_ERROR;
        return -1;
    }
    return 0;
}

int native_run_to(struct native *n, uint64_t addr, struct native_stop *out)
{
    memset(out, 0, sizeof(*out));
    out->kind = NS_ERROR;
    uint8_t orig, cc = 0xcc;
    if (native_read(n, addr, &orig, 1) != 0 || native_write(n, addr, &cc, 1) != 0)
        return -1;
    int st;
    if (ptrace(PTRACE_CONT, n->pid, NULL, NULL) != 0 || waitpid(n->pid, &st, 0) != n->pid) {
        native_write(n, addr, &orig, 1);
        return fail("PTRACE_CONT");
    }
    if (WIFEXITED(st) || WIFSIGNALED(st)) {
        n->alive = false;
        out->kind = WIFEXITED(st) ? NS_EXITED : NS_KILLED;
        out->sig = WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st);
        return 0;
    }
    native_write(n, addr, &orig, 1);
    if (native_get_regs(n) != 0)
        return -1;
    out->sig = WSTOPSIG(st);
    if (out->sig == SIGTRAP && n->regs.rip == addr + 1) {
        n->regs.rip = addr; /* back over the int3 */
        out->kind = NS_STEPPED;
        return native_set_regs(n);
    }
    siginfo_t si;
    memset(&si, 0, sizeof(si));
    ptrace(PTRACE_GETSIGINFO, n->pid, NULL, &si);
    out->kind = NS_SIGNAL;
    out->si_code = si.si_code;
    out->fault_addr = (uint64_t)(uintptr_t)si.si_addr;
    return 0;
}

/* Run the gadget (an instruction, then int3) in the child with the
 * registers set up in n->regs; the result from rax, the registers put back. */
static long inject(struct native *n, const char *gadget, long nr, struct user_regs_struct saved)
{
    n->regs.rax = (unsigned long long)nr;
    n->regs.rip = (uintptr_t)gadget;
    n->regs.cs = USER64_CS;
    long ret = -EIO;
    struct native_stop ns;
    if (native_set_regs(n) == 0 && native_step(n, &ns, false) == 0 && ns.kind == NS_STEPPED &&
        n->regs.rip == (uintptr_t)gadget + 2)
        ret = (long)n->regs.rax;
    else
        fprintf(stderr, "elfemu-difftest: injecting syscall %ld into the child failed\n", nr);
    n->regs = saved;
    if (n->alive)
        native_set_regs(n);
    return ret;
}

long native_syscall32(struct native *n, long nr, uint32_t a0, uint32_t a1, uint32_t a2)
{
    /* int $0x80 from 64-bit code reaches the ia32 table with ebx, ecx, edx. */
    struct user_regs_struct saved = n->regs;
    n->regs.rbx = a0;
    n->regs.rcx = a1;
    n->regs.rdx = a2;
    return (int32_t)inject(n, dt_int80_gadget, nr, saved);
}

long native_syscall(struct native *n, long nr, uint64_t a0, uint64_t a1, uint64_t a2,
                    uint64_t a3, uint64_t a4, uint64_t a5)
{
    struct user_regs_struct saved = n->regs;
    n->regs.rdi = a0;
    n->regs.rsi = a1;
    n->regs.rdx = a2;
    n->regs.r10 = a3;
    n->regs.r8 = a4;
    n->regs.r9 = a5;
    return inject(n, dt_syscall_gadget, nr, saved);
}

int native_read(struct native *n, uint64_t addr, void *buf, size_t len)
{
    ssize_t r = pread(n->memfd, buf, len, (off_t)addr);
    return r == (ssize_t)len ? 0 : -1;
}

int native_write(struct native *n, uint64_t addr, const void *buf, size_t len)
{
    ssize_t r = pwrite(n->memfd, buf, len, (off_t)addr);
    return r == (ssize_t)len ? 0 : -1;
}

/* ------------------------------------------------------------ registers */
void native_to_emu_regs(const struct native *n, elfemu_regs *o)
{
    const struct user_regs_struct *r = &n->regs;
    const uint64_t g[16] = { r->rax, r->rcx, r->rdx, r->rbx, r->rsp, r->rbp, r->rsi, r->rdi,
                             r->r8,  r->r9,  r->r10, r->r11, r->r12, r->r13, r->r14, r->r15 };
    uint64_t m = n->bits == 32 ? 0xffffffffull : ~0ull;
    for (int i = 0; i < 16; i++)
        o->gpr[i] = g[i] & m;
    o->rip = r->rip & m;
    o->rflags = r->eflags;
    o->fs_base = r->fs_base;
    o->gs_base = r->gs_base;
}

void emu_to_native_regs(struct native *n, const elfemu_regs *in)
{
    struct user_regs_struct *r = &n->regs;
    unsigned long long *g[16] = { &r->rax, &r->rcx, &r->rdx, &r->rbx, &r->rsp, &r->rbp,
                                  &r->rsi, &r->rdi, &r->r8,  &r->r9,  &r->r10, &r->r11,
                                  &r->r12, &r->r13, &r->r14, &r->r15 };
    for (int i = 0; i < 16; i++)
        *g[i] = in->gpr[i];
    r->rip = in->rip;
    r->eflags = in->rflags;
    r->fs_base = in->fs_base;
    r->gs_base = in->gs_base;
    r->cs = n->bits == 32 ? USER32_CS : USER64_CS;
    if (n->bits == 32) /* compat mode uses DS/ES: a null selector would fault */
        r->ds = r->es = r->ss = USER_DS;
}

/* ------------------------------------------------------------ the image */
static bool all_zero(const uint8_t *p, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (p[i])
            return false;
    return true;
}

/* Copy [start, end) page by page; fresh: the child's pages are new zero
 * pages, so zero pages need no copy. */
static int copy_range(struct native *n, elfemu *vm, uint64_t start, uint64_t end, bool fresh)
{
    static uint8_t buf[CHUNK];
    for (uint64_t a = start; a < end;) {
        size_t len = end - a < CHUNK ? (size_t)(end - a) : CHUNK;
        if (elfemu_read(vm, a, buf, len) == 0) {
            if (!fresh || !all_zero(buf, len)) {
                for (size_t off = 0; off < len; off += PAGE) {
                    size_t pl = len - off < PAGE ? len - off : PAGE;
                    if ((fresh && all_zero(buf + off, pl)) ||
                        native_write(n, a + off, buf + off, pl) == 0)
                        continue;
                    fprintf(stderr, "elfemu-difftest: cannot write the child's memory at %#llx\n",
                            (unsigned long long)(a + off));
                    return -1;
                }
            }
            a += len;
            continue;
        }
        /* Not all readable in the emulator: page by page, skipping the rest. */
        size_t pl = PAGE - (a & (PAGE - 1));
        if (pl > end - a)
            pl = end - a;
        if (elfemu_read(vm, a, buf, pl) == 0 && native_write(n, a, buf, pl) != 0)
            return -1;
        a += pl;
    }
    return 0;
}

int mirror_copy(struct native *n, elfemu *vm, uint64_t start, uint64_t end)
{
    return copy_range(n, vm, start, end, false);
}

/* Map [s, e) of the emulator's mapping m in the child, with m's bytes and protection. */
static int map_one(struct native *n, elfemu *vm, const elfemu_map *m, uint64_t s, uint64_t e)
{
    int prot = m->prot;
    uint64_t re = dt_map_readable_end(m);
    long r = native_syscall(n, SYS_mmap, s, e - s, PROT_READ | PROT_WRITE,
                            MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, (uint64_t)-1, 0);
    if (r != (long)s) {
        fprintf(stderr, "elfemu-difftest: mmap(%#llx, %#llx) in the child failed: %s\n",
                (unsigned long long)s, (unsigned long long)(e - s),
                r < 0 && r > -4096 ? strerror((int)-r) : "wrong address");
        return -1;
    }
    if (copy_range(n, vm, s, e < re ? e : re, true) != 0)
        return -1;
    if (prot != (PROT_READ | PROT_WRITE)) {
        r = native_syscall(n, SYS_mprotect, s, e - s, (uint64_t)prot, 0, 0, 0);
        if (r != 0) {
            fprintf(stderr, "elfemu-difftest: mprotect(%#llx) in the child failed\n",
                    (unsigned long long)s);
            return -1;
        }
    }
    return 0;
}

int mirror_range(struct native *n, elfemu *vm, uint64_t start, uint64_t end)
{
    if (start >= end)
        return 0;
    if (native_syscall(n, SYS_munmap, start, end - start, 0, 0, 0, 0) != 0)
        return -1;
    struct dt_maps m;
    if (dt_maps_get(vm, &m) != 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < m.n && rc == 0; i++) {
        uint64_t s = m.v[i].start > start ? m.v[i].start : start;
        uint64_t e = m.v[i].end < end ? m.v[i].end : end;
        if (s < e)
            rc = map_one(n, vm, &m.v[i], s, e);
    }
    dt_maps_free(&m);
    return rc;
}

int mirror_sync_writable(struct native *n, elfemu *vm)
{
    static uint8_t a[PAGE], b[PAGE];
    struct dt_maps m;
    if (dt_maps_get(vm, &m) != 0)
        return -1;
    for (size_t i = 0; i < m.n; i++) {
        if ((m.v[i].prot & (PROT_READ | PROT_WRITE)) != (PROT_READ | PROT_WRITE))
            continue;
        uint64_t end = dt_map_readable_end(&m.v[i]);
        for (uint64_t p = m.v[i].start; p < end; p += PAGE) {
            if (elfemu_read(vm, p, a, PAGE) != 0)
                continue;
            if (native_read(n, p, b, PAGE) == 0 && memcmp(a, b, PAGE) == 0)
                continue;
            if (native_write(n, p, a, PAGE) != 0) {
                dt_maps_free(&m);
                return -1;
            }
        }
    }
    dt_maps_free(&m);
    return 0;
}

/* The child must have nothing where the guest lives.  What a sanitizer
 * runtime put there (ASan's shadow) is unmapped: the child never runs this
 * program's code again, only the gadget. */
static int clear_guest_space(struct native *n, uint64_t limit)
{
    char path[64], line[512];
    snprintf(path, sizeof(path), "/proc/%d/maps", (int)n->pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return fail(path);
    uint64_t gadget = (uintptr_t)dt_syscall_gadget;
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof(line), f)) {
        unsigned long long s, e;
        if (sscanf(line, "%llx-%llx", &s, &e) != 2 || s >= limit)
            continue;
        if (gadget >= s && gadget < e) {
            fprintf(stderr, "elfemu-difftest: this program is loaded inside the guest space "
                            "(build it as a PIE): %s", line);
            rc = -1;
        } else if (native_syscall(n, SYS_munmap, s, (e < limit ? e : limit) - s, 0, 0, 0, 0) != 0) {
            fprintf(stderr, "elfemu-difftest: cannot clear the guest space in the child: %s", line);
            rc = -1;
        }
    }
    fclose(f);
    return rc;
}

int mirror_build(struct native *n, elfemu *vm)
{
    n->bits = elfemu_bits(vm);
    if (clear_guest_space(n, n->bits == 64 ? 1ull << 46 : 1ull << 32) != 0)
        return -1;
    struct dt_maps m;
    if (dt_maps_get(vm, &m) != 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < m.n && rc == 0; i++)
        rc = map_one(n, vm, &m.v[i], m.v[i].start, m.v[i].end);
    dt_maps_free(&m);
    if (rc != 0)
        return -1;
    elfemu_regs r;
    elfemu_get_regs(vm, &r);
    emu_to_native_regs(n, &r);
    if (native_set_regs(n) != 0 || native_get_regs(n) != 0)
        return -1;
    /* Extended state (AVX, AVX-512...) this process used before the fork goes
     * back to its initial configuration: the guest starts with none. */
    static uint8_t xs[64 * 1024];
    struct iovec iov = { xs, sizeof(xs) };
    if (ptrace(PTRACE_GETREGSET, n->pid, (void *)NT_X86_XSTATE, &iov) == 0 && iov.iov_len >= 576) {
        uint64_t bv;
        memcpy(&bv, xs + 512, 8);
        bv &= 3; /* x87 and SSE */
        memcpy(xs + 512, &bv, 8);
        if (ptrace(PTRACE_SETREGSET, n->pid, (void *)NT_X86_XSTATE, &iov) != 0)
            return fail("PTRACE_SETREGSET NT_X86_XSTATE");
    }
    uint8_t fx[DT_FXSAVE_SIZE];
    elfemu_get_fpstate(vm, fx);
    return native_set_fp(n, fx);
}
