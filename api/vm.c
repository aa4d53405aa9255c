/* The public API (include/elfemu.h): a VM ties the address space, the
 * loader's record, and the CPU together. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/vm.h"
#include "cpu/cpu.h"
#include "cpu/flags.h"
#include "cpu/fpstate.h"
#include "loader/loader.h"
#include "loader/root.h"
#include "syscalls/strace.h"
#include "syscalls/paths.h"
#include "syscalls/procfs.h"
#include "syscalls/syscalls.h"
#include "syscalls/thread.h"

struct elfemu {
    elfemu_config cfg;
    char *sysroot;
    char *root;         /* sysroot made canonical by elfemu_load() */
    struct mm_space mm;
    bool loaded;
    struct ldr_rng rng;
    struct cpu cpu;
    elfemu_load_info info;
};

void elfemu_config_init(elfemu_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->log_unimplemented = true;
}

elfemu *elfemu_create(const elfemu_config *cfg)
{
    elfemu *vm = calloc(1, sizeof(*vm));
    if (!vm)
        return NULL;
    if (cfg)
        vm->cfg = *cfg;
    else
        elfemu_config_init(&vm->cfg);
    if (vm->cfg.sysroot && !(vm->sysroot = strdup(vm->cfg.sysroot))) {
        free(vm);
        return NULL;
    }
    vm->cfg.sysroot = vm->sysroot;
    const char *trace_file = vm->cfg.trace_file;
    vm->cfg.trace_file = NULL; /* not owned: used here only */
    if (vm->cfg.strace && !strace_on && vm->cfg.strace_line) {
        strace_open_sink(vm->cfg.strace_line, vm->cfg.strace_line_user, vm->cfg.trace_pids);
    } else if (vm->cfg.strace && !strace_on) {
        int r = strace_open(trace_file, vm->cfg.trace_append, vm->cfg.trace_pids);
        if (r < 0) {
            free(vm->sysroot);
            free(vm);
            errno = -r;
            return NULL;
        }
    }
    if (sys_set_exec_config(vm->cfg.reexec_argv, vm->cfg.sysroot) != 0) {
        free(vm->sysroot);
        free(vm);
        return NULL;
    }
    vm->cfg.reexec_argv = NULL; /* the copy lives in syscalls/exec.c */
    if (vm->cfg.exec_rlimits && sys_set_exec_rlimits(vm->cfg.exec_rlimits) != 0) {
        free(vm->sysroot);
        free(vm);
        errno = EINVAL;
        return NULL;
    }
    vm->cfg.exec_rlimits = NULL;
    ldr_rng_init(&vm->rng, vm->cfg.have_seed, vm->cfg.seed);
    return vm;
}

void elfemu_destroy(elfemu *vm)
{
    if (!vm)
        return;
    hooks_forget(vm);
    if (vm->loaded) {
        sig_release(&vm->cpu);
        cpu_destroy(&vm->cpu);
        mm_space_destroy(&vm->mm);
    }
    free(vm->sysroot);
    free(vm->root);
    free(vm);
}

int elfemu_load(elfemu *vm, const char *path, char *const argv[], char *const envp[],
                elfemu_error *err)
{
    elfemu_error scratch;
    if (!err)
        err = &scratch;
    if (vm->loaded) {
        sig_release(&vm->cpu);
        cpu_destroy(&vm->cpu);
        mm_space_destroy(&vm->mm);
        vm->loaded = false;
    }
    /* The root the guest's paths resolve in: canonical, so that the host
     * paths found inside it can be recognised and shown without it. */
    free(vm->root);
    vm->root = NULL;
    if (vm->cfg.sysroot && *vm->cfg.sysroot) {
        /* A root that does not exist holds nothing: every path falls back
         * to the host's, as with qemu-user's -L. */
        vm->root = realpath(vm->cfg.sysroot, NULL);
        if (vm->root && !strcmp(vm->root, "/")) { /* -L / is no root at all */
            free(vm->root);
            vm->root = NULL;
        }
    }
    paths_init(vm->root);
    struct ldr_params p = { .sysroot = vm->root, .aslr = vm->cfg.aslr, .rng = &vm->rng };
    if (ldr_load(&vm->mm, &p, path, argv, envp, &vm->info, err) != 0)
        return -1;
    vm->loaded = true;
    char exe[PATH_MAX];
    sys_set_exe(realpath(vm->info.program.path, exe) ? exe : vm->info.program.path);
    procfs_set_image(&vm->mm, &vm->info);
    sys_set_comm(path);
    cpu_init(&vm->cpu, &vm->mm, vm->info.bits);
    vm->cpu.log_unimplemented = vm->cfg.log_unimplemented;
    if (vm->cfg.exact_fatal_faults)
        cpu_faults_observed(&vm->mm);
    vm->cpu.rip = vm->info.entry;
    vm->cpu.r[R_SP] = vm->info.sp;
    sig_init(&vm->cpu);
    return 0;
}

elfemu_thread *elfemu_main_thread(elfemu *vm)
{
    return (elfemu_thread *)&vm->cpu;
}

struct mm_space *vm_space(elfemu *vm)
{
    return vm->loaded ? &vm->mm : NULL;
}

struct cpu *vm_cpu(elfemu *vm)
{
    return &vm->cpu;
}

int elfemu_bits(const elfemu *vm)
{
    return vm->loaded ? vm->info.bits : 0;
}

/* --strace's last lines: how the process ended.  The signal code
 * (syscalls/signal.c) shows each signal as it acts on it; a fault before
 * it was set up (c->sigt still NULL) gets its line here, from the fault
 * record. */
static __attribute__((cold)) void strace_end(struct cpu *c)
{
    if (c->stop == CPU_EXITED) {
        strace_exited(c->stop_code);
        return;
    }
    if (!c->sigt && c->stop_code == c->fault_sig) {
        siginfo_t si;
        memset(&si, 0, sizeof(si));
        si.si_signo = c->fault_sig;
        si.si_code = c->fault_code;
        /* A fault the host MMU raised carries no code: the kernel's rule
         * is MAPERR where nothing is mapped, ACCERR where the protection
         * forbade the access. */
        if (si.si_code == 0 && c->fault_sig == SIGSEGV)
            si.si_code = mm_prot_at(c->mm, c->fault_addr) >= 0 ? SEGV_ACCERR : SEGV_MAPERR;
        else if (si.si_code == 0 && c->fault_sig == SIGBUS)
            si.si_code = BUS_ADRERR;
        si.si_addr = (void *)(uintptr_t)c->fault_addr;
        strace_signal(c, &si);
    }
    strace_killed(c->stop_code);
}

int elfemu_run(elfemu *vm, elfemu_exit *out)
{
    if (!vm->loaded)
        return -1;
    cpu_run(&vm->cpu);
    if (vm->cpu.stop == CPU_STOPPED)
        return 1; /* elfemu_stop(): the guest is where it was, ready to go on */
    gthread_run_ended(&vm->cpu);
    if (UNLIKELY(strace_on))
        strace_end(&vm->cpu);
    out->signaled = vm->cpu.stop == CPU_SIGNALED;
    out->code = vm->cpu.stop_code;
    return 0;
}

void elfemu_stop(elfemu *vm)
{
    cpu_attention_raise(&vm->cpu, CPU_ATTN_STOP);
}

int elfemu_read(elfemu *vm, uint64_t addr, void *buf, size_t len)
{
    return vm->loaded ? mm_read(&vm->mm, addr, buf, len) : -EFAULT;
}

int elfemu_write(elfemu *vm, uint64_t addr, const void *buf, size_t len)
{
    return vm->loaded ? mm_write(&vm->mm, addr, buf, len) : -EFAULT;
}

int elfemu_reserve_fd(elfemu *vm, int fd)
{
    (void)vm; /* guest descriptors are the process's: one set for all VMs */
    int r = sys_reserve_fd(fd);
    if (r < 0) {
        errno = -r;
        return -1;
    }
    return 0;
}

void elfemu_get_regs(elfemu *vm, elfemu_regs *out)
{
    memcpy(out->gpr, vm->cpu.r, sizeof(out->gpr));
    out->rip = vm->cpu.rip;
    out->rflags = cpu_flags(&vm->cpu);
    out->fs_base = vm->cpu.seg_base[SEG_FS];
    out->gs_base = vm->cpu.seg_base[SEG_GS];
}

void elfemu_set_regs(elfemu *vm, const elfemu_regs *in)
{
    memcpy(vm->cpu.r, in->gpr, sizeof(in->gpr));
    vm->cpu.rip = in->rip;
    cpu_set_flags(&vm->cpu, in->rflags, ~0ull);
    vm->cpu.seg_base[SEG_FS] = in->fs_base;
    vm->cpu.seg_base[SEG_GS] = in->gs_base;
}

void elfemu_get_fpstate(elfemu *vm, uint8_t out[512])
{
    cpu_fxsave_image(&vm->cpu, out);
}

void elfemu_set_fpstate(elfemu *vm, const uint8_t in[512])
{
    cpu_fxrstor_image(&vm->cpu, in);
}

uint64_t elfemu_icount(const elfemu *vm)
{
    return vm->cpu.icount;
}

int elfemu_step(elfemu *vm, elfemu_exit *out)
{
    if (!vm->loaded)
        return -1;
    cpu_step(&vm->cpu);
    if (vm->cpu.stop == CPU_RUNNING)
        return 0;
    if (UNLIKELY(strace_on) && vm->cpu.stop != CPU_STOPPED)
        strace_end(&vm->cpu); /* as elfemu_run() ends: the last lines */
    out->signaled = vm->cpu.stop == CPU_SIGNALED;
    out->code = vm->cpu.stop_code;
    return 1;
}

size_t elfemu_maps(const elfemu *vm, elfemu_map *out, size_t max)
{
    if (!vm->loaded)
        return 0;
    /* Other guest threads may be changing the list (hooks call this). */
    mm_lock(&vm->mm);
    for (size_t i = 0; i < vm->mm.vmas.n && i < max; i++) {
        const struct mm_vma *v = &vm->mm.vmas.v[i];
        out[i].start = v->start;
        out[i].end = v->end;
        out[i].prot = v->prot;
        out[i].offset = v->offset;
        snprintf(out[i].name, sizeof(out[i].name), "%s", v->name);
    }
    size_t n = vm->mm.vmas.n;
    mm_unlock(&vm->mm);
    return n;
}

const elfemu_load_info *elfemu_get_load_info(const elfemu *vm)
{
    return vm->loaded ? &vm->info : NULL;
}

char *elfemu_find_program(const char *prog)
{
    return elfemu_find_program_in(prog, NULL);
}

/* An executable regular file at the guest path cand: inside root first. */
static bool runnable(const char *cand, const char *root)
{
    char full[PATH_MAX];
    struct stat st;
    if (root && cand[0] == '/' && ldr_root_lookup(root, cand, true, full, sizeof(full)) == 0)
        return stat(full, &st) == 0 && S_ISREG(st.st_mode) && access(full, X_OK) == 0;
    return stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0;
}

char *elfemu_find_program_in(const char *prog, const char *root)
{
    if (strchr(prog, '/'))
        return strdup(prog);
    char *canon = root && *root ? realpath(root, NULL) : NULL;
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    for (;;) {
        const char *colon = strchr(path, ':');
        size_t len = colon ? (size_t)(colon - path) : strlen(path);
        char *cand;
        if (asprintf(&cand, "%.*s%s%s", (int)len, path, len ? "/" : "", prog) < 0) {
            free(canon);
            return NULL;
        }
        if (runnable(cand, canon)) {
            free(canon);
            return cand;
        }
        free(cand);
        if (!colon) {
            free(canon);
            return strdup(prog);
        }
        path = colon + 1;
    }
}
