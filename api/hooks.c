/* The public hooks (include/elfemu.h): a process-wide table of callbacks,
 * and the glue from the interpreter's hook ops (cpu/hook.h) and the
 * syscall dispatcher's hooked path (syscalls/syscalls.h) to them.
 *
 * The table is changed under a lock and read without one: every guest
 * thread walks it at each instruction, so an entry is published by storing
 * its kind last and retired by clearing it; an entry's slot is reused only
 * by a later add.  The interpreter is switched to hooked decoding while at
 * least one instruction, block or memory hook exists, and back when the
 * last one goes, so that an unhooked run pays nothing. */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "api/vm.h"
#include "cpu/cpu.h"
#include "cpu/flags.h"
#include "cpu/fpstate.h"
#include "cpu/hook.h"
#include "cpu/x87_host.h"
#include "syscalls/syscalls.h"
#include "syscalls/thread.h"

enum kind { K_FREE, K_INSN, K_BLOCK, K_MEM, K_SYSCALL, K_END };

struct entry {
    int kind;               /* enum kind; K_FREE: unused (read atomically) */
    int id;
    elfemu *vm;
    void *fn, *fn2;         /* the callbacks (fn2: a syscall's after hook) */
    void *user;
};

#define MAX_HOOKS 64
static struct entry table[MAX_HOOKS];
static unsigned used;       /* entries [0, used) may be live */
static int next_id = 1;
static unsigned counts[K_END + 1];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Live entries of a kind, in the order they were added. */
#define FOR_EACH(e, k)                                                                  \
    for (struct entry *e = table; e < table + __atomic_load_n(&used, __ATOMIC_ACQUIRE); e++) \
        if (__atomic_load_n(&e->kind, __ATOMIC_ACQUIRE) == (k))

static __thread int my_tid;

int elfemu_thread_tid(const elfemu_thread *t)
{
    (void)t; /* hooks run on the thread's own host thread */
    if (!my_tid)
        my_tid = (int)gettid();
    return my_tid;
}

/* ------------------------------------------------------------ from the interpreter */

/* Each entry first gives the host's x87 back (cpu/x87_host.h): a hook may do
 * x87 arithmetic of its own, which must neither run under the guest's control
 * word nor leave its flags in the guest's status word. */

static void on_insn(struct cpu *c, uint64_t addr, const uint8_t *bytes, unsigned len)
{
    cpu_x87_release(c);
    elfemu_insn in = { addr, len, bytes };
    FOR_EACH(e, K_INSN)
        ((elfemu_insn_hook)e->fn)(e->vm, (elfemu_thread *)c, &in, e->user);
}

static void on_block(struct cpu *c, uint64_t start, uint64_t end, unsigned n)
{
    cpu_x87_release(c);
    FOR_EACH(e, K_BLOCK)
        ((elfemu_block_hook)e->fn)(e->vm, (elfemu_thread *)c, start, end, n, e->user);
}

static void on_mem(struct cpu *c, uint64_t addr, unsigned size, const void *data, bool write)
{
    cpu_x87_release(c);
    elfemu_mem_access a = { addr, size, write, 0, data };
    memcpy(&a.value, data, size < 8 ? size : 8);
    FOR_EACH(e, K_MEM)
        ((elfemu_mem_hook)e->fn)(e->vm, (elfemu_thread *)c, &a, e->user);
}

/* Memory is described only while someone listens (it costs a read per access). */
static struct cpu_hook_ops cpu_ops = { on_insn, on_block, NULL };

static bool on_sys_before(struct cpu *c, uint64_t *nr, uint64_t a[6], int64_t *result)
{
    cpu_x87_release(c);
    elfemu_syscall call = { *nr, { a[0], a[1], a[2], a[3], a[4], a[5] }, 0, c->bits };
    bool skip = false;
    FOR_EACH(e, K_SYSCALL)
        if (e->fn && ((elfemu_syscall_before_hook)e->fn)(e->vm, (elfemu_thread *)c, &call, e->user)) {
            skip = true;
            break;
        }
    *nr = call.nr;
    memcpy(a, call.args, sizeof(call.args));
    *result = call.result;
    return skip;
}

static void on_sys_after(struct cpu *c, uint64_t nr, const uint64_t a[6], int64_t *result)
{
    cpu_x87_release(c);
    elfemu_syscall call = { nr, { a[0], a[1], a[2], a[3], a[4], a[5] }, *result, c->bits };
    FOR_EACH(e, K_SYSCALL)
        if (e->fn2)
            ((elfemu_syscall_after_hook)e->fn2)(e->vm, (elfemu_thread *)c, &call, e->user);
    *result = call.result;
}

static const struct sys_hook_ops sys_ops = { on_sys_before, on_sys_after };

static void on_end(struct cpu *c, int how, int code)
{
    if (c)
        cpu_x87_release(c);
    elfemu_end end = { how == GTHREAD_END_SIGNAL ? ELFEMU_END_SIGNAL
                       : how == GTHREAD_END_EXEC ? ELFEMU_END_EXEC
                                                 : ELFEMU_END_EXIT,
                       code };
    FOR_EACH(e, K_END)
        ((elfemu_end_hook)e->fn)(e->vm, (elfemu_thread *)c, &end, e->user);
}

/* ------------------------------------------------------------ the table */

/* Make the interpreter's mode follow the table (lock held). */
static void update(elfemu *vm)
{
    static bool initialised;
    if (!initialised) {
        cpu_hooks_init(&cpu_ops);
        sys_hooks_init(&sys_ops);
        gthread_set_end_hook(on_end);
        initialised = true;
    }
    __atomic_store_n(&cpu_ops.mem, counts[K_MEM] ? on_mem : NULL, __ATOMIC_RELEASE);
    struct mm_space *mm = vm_space(vm);
    if (mm)
        cpu_hooks_switch(mm, counts[K_INSN] + counts[K_BLOCK] + counts[K_MEM] > 0);
    sys_hooks_switch(counts[K_SYSCALL] > 0);
}

static int add(elfemu *vm, int kind, void *fn, void *fn2, void *user)
{
    if (!vm || !vm_space(vm) || (!fn && !fn2)) {
        errno = EINVAL;
        return -1;
    }
    pthread_mutex_lock(&lock);
    struct entry *e = NULL;
    for (unsigned i = 0; i < MAX_HOOKS && !e; i++)
        if (table[i].kind == K_FREE)
            e = &table[i];
    if (!e) {
        pthread_mutex_unlock(&lock);
        errno = ENOMEM;
        return -1;
    }
    e->id = next_id++;
    e->vm = vm;
    e->fn = fn;
    e->fn2 = fn2;
    e->user = user;
    __atomic_store_n(&e->kind, kind, __ATOMIC_RELEASE);
    if ((unsigned)(e - table) + 1 > used)
        __atomic_store_n(&used, (unsigned)(e - table) + 1, __ATOMIC_RELEASE);
    counts[kind]++;
    update(vm);
    int id = e->id;
    pthread_mutex_unlock(&lock);
    return id;
}

int elfemu_hook_insn(elfemu *vm, elfemu_insn_hook fn, void *user)
{
    return add(vm, K_INSN, (void *)fn, NULL, user);
}

int elfemu_hook_block(elfemu *vm, elfemu_block_hook fn, void *user)
{
    return add(vm, K_BLOCK, (void *)fn, NULL, user);
}

int elfemu_hook_mem(elfemu *vm, elfemu_mem_hook fn, void *user)
{
    return add(vm, K_MEM, (void *)fn, NULL, user);
}

int elfemu_hook_syscall(elfemu *vm, elfemu_syscall_before_hook before,
                        elfemu_syscall_after_hook after, void *user)
{
    return add(vm, K_SYSCALL, (void *)before, (void *)after, user);
}

int elfemu_hook_end(elfemu *vm, elfemu_end_hook fn, void *user)
{
    return add(vm, K_END, (void *)fn, NULL, user);
}

/* Retire entry e (lock held). */
static void retire(struct entry *e)
{
    counts[e->kind]--;
    __atomic_store_n(&e->kind, K_FREE, __ATOMIC_RELEASE);
}

int elfemu_hook_remove(elfemu *vm, int id)
{
    pthread_mutex_lock(&lock);
    int r = -1;
    for (unsigned i = 0; i < used; i++)
        if (table[i].kind != K_FREE && table[i].id == id && table[i].vm == vm) {
            retire(&table[i]);
            update(vm);
            r = 0;
            break;
        }
    pthread_mutex_unlock(&lock);
    return r;
}

void hooks_forget(elfemu *vm)
{
    pthread_mutex_lock(&lock);
    bool any = false;
    for (unsigned i = 0; i < used; i++)
        if (table[i].kind != K_FREE && table[i].vm == vm) {
            retire(&table[i]);
            any = true;
        }
    if (any)
        update(vm);
    pthread_mutex_unlock(&lock);
}

/* ------------------------------------------------------------ threads */

int elfemu_thread_count(const elfemu *vm)
{
    (void)vm;
    return gthread_count();
}

void elfemu_thread_get_regs(elfemu_thread *t, elfemu_regs *out)
{
    struct cpu *c = (struct cpu *)t;
    memcpy(out->gpr, c->r, sizeof(out->gpr));
    out->rip = c->rip;
    out->rflags = cpu_flags(c);
    out->fs_base = c->seg_base[SEG_FS];
    out->gs_base = c->seg_base[SEG_GS];
}

void elfemu_thread_set_regs(elfemu_thread *t, const elfemu_regs *in)
{
    struct cpu *c = (struct cpu *)t;
    memcpy(c->r, in->gpr, sizeof(in->gpr));
    cpu_set_flags(c, in->rflags, ~0ull);
    c->seg_base[SEG_FS] = in->fs_base;
    c->seg_base[SEG_GS] = in->gs_base;
}

void elfemu_thread_get_fpstate(elfemu_thread *t, uint8_t out[512])
{
    cpu_fxsave_image((struct cpu *)t, out);
}

uint64_t elfemu_thread_icount(const elfemu_thread *t)
{
    return ((const struct cpu *)t)->icount;
}
