/* The hooks of the embedding API (include/elfemu.h): instruction and block
 * hooks count what elfemu_icount counts, memory hooks see a known sequence
 * of stores and loads, syscall hooks skip a call with a result, change a
 * result and change arguments, and hooks come and go at run time; a
 * single step delivers a queued signal; a loop of blocks that runs
 * chained (cpu/chain.h), with and without side exits, counts the same run
 * chained, hooked and stepped.  argv[1] is the folder of the guest programs
 * (tests/guest/trace_asm64.S, hello_asm64.S, hello_asm32.S,
 * x87flags_asm64.S, chain_asm64.S, sideexit_asm64.S,
 * selfloop_asm64.S, indirect_asm64.S).  Check runs each test in its own process:
 * hooks are process-wide. */
#include <check.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu/chain.h"
#include "cpu/hook.h"
#include "elfemu.h"

static const char *guest_dir;

static elfemu *load(const char *name)
{
    static char path[4096];
    snprintf(path, sizeof(path), "%s/%s", guest_dir, name);
    char *argv[] = { path, NULL };
    char *envp[] = { NULL };
    elfemu *vm = elfemu_create(NULL);
    ck_assert_ptr_nonnull(vm);
    elfemu_error err;
    ck_assert_msg(elfemu_load(vm, path, argv, envp, &err) == 0, "%s", err.message);
    return vm;
}

static int run(elfemu *vm)
{
    elfemu_exit x;
    ck_assert_int_eq(elfemu_run(vm, &x), 0);
    ck_assert(!x.signaled);
    return x.code;
}

/* ------------------------------------------------------------ counting */

static uint64_t ninsns, nblock_insns, nblocks;

static void count_insn(elfemu *vm, elfemu_thread *t, const elfemu_insn *in, void *user)
{
    (void)vm, (void)t;
    ck_assert_ptr_eq(user, &ninsns);
    ck_assert_uint_gt(in->len, 0);
    ninsns++;
}

static void count_block(elfemu *vm, elfemu_thread *t, uint64_t start, uint64_t end,
                        unsigned n, void *user)
{
    (void)vm, (void)t, (void)user;
    ck_assert_uint_lt(start, end);
    nblock_insns += n;
    nblocks++;
}

START_TEST(count_equals_icount)
{
    elfemu *vm = load("trace_asm64");
    ck_assert_int_gt(elfemu_hook_insn(vm, count_insn, &ninsns), 0);
    ck_assert_int_gt(elfemu_hook_block(vm, count_block, NULL), 0);
    ck_assert(cpu_hooks_enabled());
    ck_assert_int_eq(run(vm), 5);
    ck_assert_uint_eq(ninsns, 25); /* the 25 instructions of trace_asm64 */
    ck_assert_uint_eq(ninsns, elfemu_icount(vm));
    ck_assert_uint_eq(nblock_insns, ninsns);
    ck_assert_uint_eq(nblocks, 5); /* ended by 2 calls, 2 rets and the last syscall */
    elfemu_destroy(vm);
    ck_assert(!cpu_hooks_enabled());
}
END_TEST

START_TEST(count_ia32)
{
    elfemu *vm = load("hello_asm32");
    ck_assert_int_gt(elfemu_hook_insn(vm, count_insn, &ninsns), 0);
    int saved = dup(1), null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    ck_assert_int_eq(run(vm), 3);
    dup2(saved, 1);
    ck_assert_uint_eq(ninsns, 8);
    ck_assert_uint_eq(ninsns, elfemu_icount(vm));
    elfemu_destroy(vm);
}
END_TEST

/* Removing a hook from inside itself: exactly 10 calls, the guest runs on. */
static int self_id;
static void remove_after_10(elfemu *vm, elfemu_thread *t, const elfemu_insn *in, void *user)
{
    (void)t, (void)in, (void)user;
    if (++ninsns == 10)
        ck_assert_int_eq(elfemu_hook_remove(vm, self_id), 0);
}

START_TEST(remove_at_run_time)
{
    elfemu *vm = load("trace_asm64");
    self_id = elfemu_hook_insn(vm, remove_after_10, NULL);
    ck_assert_int_gt(self_id, 0);
    ck_assert_int_eq(run(vm), 5);
    ck_assert_uint_eq(ninsns, 10);
    ck_assert_uint_eq(elfemu_icount(vm), 25);
    ck_assert(!cpu_hooks_enabled()); /* back to the unhooked decoding */
    ck_assert_int_eq(elfemu_hook_remove(vm, self_id), -1);
    elfemu_destroy(vm);
}
END_TEST

/* ------------------------------------------------------------ memory */

struct access { int write; uint64_t addr; uint32_t size; uint64_t value; };
static struct access seen[64];
static unsigned nseen;

static void record_mem(elfemu *vm, elfemu_thread *t, const elfemu_mem_access *a, void *user)
{
    (void)vm, (void)t, (void)user;
    if (nseen < 64)
        seen[nseen++] = (struct access){ a->write, a->addr, a->size, a->value };
}

START_TEST(memory_accesses)
{
    elfemu *vm = load("trace_asm64");
    ck_assert_int_gt(elfemu_hook_mem(vm, record_mem, NULL), 0);
    elfemu_regs r;
    elfemu_get_regs(vm, &r);
    uint64_t sp = r.gpr[ELFEMU_RSP]; /* the stack slots are below it */
    ck_assert_int_eq(run(vm), 5);
    const struct access want[] = {
        { 1, 0x402000, 8, 0x1122334455667788 }, /* mov [rbx], rax */
        { 1, 0x402008, 4, 0xdeadbeef },         /* mov dword [rbx+8] */
        { 0, 0x402000, 8, 0x1122334455667788 }, /* mov rcx, [rbx] */
        { 0, 0x402008, 2, 0xbeef },             /* movzx edx, word [rbx+8] */
        { 0, 0x402010, 8, 0 },                  /* add [rbx+16], rcx */
        { 1, 0x402010, 8, 0x1122334455667788 },
        { 1, sp - 8, 8, 0x40102b },             /* call outer */
        { 1, sp - 16, 8, 0x401050 },            /* call inner */
        { 0, sp - 16, 8, 0x401050 },            /* ret */
        { 0, sp - 8, 8, 0x40102b },             /* ret */
        { 1, sp - 8, 8, 7 },                    /* push 7 */
        { 0, sp - 8, 8, 7 },                    /* pop rsi */
        { 0, 0x402000, 1, 0x88 }, { 1, 0x402020, 1, 0x88 }, /* rep movsb */
        { 0, 0x402001, 1, 0x77 }, { 1, 0x402021, 1, 0x77 },
        { 0, 0x402002, 1, 0x66 }, { 1, 0x402022, 1, 0x66 },
    };
    ck_assert_uint_eq(nseen, sizeof(want) / sizeof(want[0]));
    for (unsigned i = 0; i < nseen; i++) {
        ck_assert_msg(seen[i].write == want[i].write && seen[i].addr == want[i].addr &&
                      seen[i].size == want[i].size && seen[i].value == want[i].value,
                      "access %u: %s %u @ %#llx = %#llx", i, seen[i].write ? "write" : "read",
                      seen[i].size, (unsigned long long)seen[i].addr,
                      (unsigned long long)seen[i].value);
    }
    elfemu_destroy(vm);
}
END_TEST

/* ------------------------------------------------------------ syscalls */

static int64_t after_saw = -1;
static uint64_t rax_after_write = ~0ull;
static int64_t skip_with = -1, set_result = -1;
static int64_t exit_arg = -1;

static bool before(elfemu *vm, elfemu_thread *t, elfemu_syscall *call, void *user)
{
    (void)vm, (void)t, (void)user;
    ck_assert_int_eq(call->bits, 64);
    if (call->nr == 231 && exit_arg >= 0)
        call->args[0] = (uint64_t)exit_arg;
    if (call->nr == 1 && skip_with >= 0) {
        ck_assert_uint_eq(call->args[0], 1);
        ck_assert_uint_eq(call->args[2], 6);
        call->result = skip_with;
        return true;
    }
    return false;
}

static void after(elfemu *vm, elfemu_thread *t, elfemu_syscall *call, void *user)
{
    (void)vm, (void)t, (void)user;
    if (call->nr == 1) {
        after_saw = call->result;
        if (set_result >= 0)
            call->result = set_result;
    }
}

/* The guest's rax at the instruction after the write (hello_asm64). */
static void rax_watch(elfemu *vm, elfemu_thread *t, const elfemu_insn *in, void *user)
{
    (void)vm, (void)user;
    if (in->addr == 0x401018) {
        elfemu_regs r;
        elfemu_thread_get_regs(t, &r);
        rax_after_write = r.gpr[ELFEMU_RAX];
    }
}

/* Run hello_asm64 with its stdout in a pipe; what it wrote goes to out. */
static int run_hello(char *out, size_t size)
{
    elfemu *vm = load("hello_asm64");
    ck_assert_int_gt(elfemu_hook_syscall(vm, before, after, NULL), 0);
    ck_assert_int_gt(elfemu_hook_insn(vm, rax_watch, NULL), 0);
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    int saved = dup(1);
    dup2(p[1], 1);
    close(p[1]);
    int code = run(vm);
    dup2(saved, 1);
    fcntl(p[0], F_SETFL, O_NONBLOCK);
    ssize_t n = read(p[0], out, size - 1);
    out[n > 0 ? n : 0] = 0;
    close(p[0]);
    elfemu_destroy(vm);
    return code;
}

START_TEST(skip_a_syscall)
{
    char out[64];
    skip_with = 1234;
    ck_assert_int_eq(run_hello(out, sizeof(out)), 3);
    ck_assert_str_eq(out, ""); /* the write never happened */
    ck_assert_int_eq(after_saw, 1234);
    ck_assert_uint_eq(rax_after_write, 1234);
}
END_TEST

START_TEST(change_a_result)
{
    char out[64];
    set_result = 77;
    ck_assert_int_eq(run_hello(out, sizeof(out)), 3);
    ck_assert_str_eq(out, "hello\n"); /* the write happened */
    ck_assert_int_eq(after_saw, 6);
    ck_assert_uint_eq(rax_after_write, 77);
}
END_TEST

START_TEST(change_arguments)
{
    char out[64];
    exit_arg = 9;
    ck_assert_int_eq(run_hello(out, sizeof(out)), 9);
    ck_assert_str_eq(out, "hello\n");
    ck_assert_uint_eq(rax_after_write, 6);
}
END_TEST

/* A hook that does x87 arithmetic of its own (1/3 is inexact: PE) must not
 * leave a flag in the guest's status word, whatever the interpreter keeps
 * in the host's x87 between guest instructions. */
static void inexact_insn_hook(elfemu *vm, elfemu_thread *t, const elfemu_insn *in, void *user)
{
    (void)vm, (void)t, (void)in, (void)user;
    volatile long double one = 1, three = 3, q;
    q = one / three;
    (void)q;
}

START_TEST(hooks_keep_x87_flags)
{
    elfemu *vm = load("x87flags_asm64");
    ck_assert_int_gt(elfemu_hook_insn(vm, inexact_insn_hook, NULL), 0);
    ck_assert_int_eq(run(vm), 0); /* the status word's flags, as natively */
    elfemu_destroy(vm);
}
END_TEST

/* ------------------------------------------------------------ stop */

/* A block hook that stops the run in its second block: elfemu_run returns
 * 1 once that block has completed, with the guest at the third block, and
 * runs on to the end when called again. */
static uint64_t third_block;
static void stop_in_second(elfemu *vm, elfemu_thread *t, uint64_t start, uint64_t end,
                           unsigned n, void *user)
{
    (void)t, (void)user;
    nblocks++;
    if (nblocks <= 2)
        nblock_insns += n;
    if (nblocks == 2)
        elfemu_stop(vm);
    if (nblocks == 3)
        third_block = start;
    (void)end;
}

START_TEST(stop_from_a_hook)
{
    elfemu *vm = load("trace_asm64");
    ck_assert_int_gt(elfemu_hook_block(vm, stop_in_second, NULL), 0);
    elfemu_exit x = { true, -1 };
    ck_assert_int_eq(elfemu_run(vm, &x), 1);
    ck_assert(x.signaled && x.code == -1); /* untouched */
    ck_assert_uint_eq(nblocks, 2);
    ck_assert_uint_eq(elfemu_icount(vm), nblock_insns); /* both blocks, complete */
    elfemu_regs r;
    elfemu_get_regs(vm, &r);
    ck_assert_int_eq(run(vm), 5);
    ck_assert_uint_eq(r.rip, third_block); /* stopped at the next block boundary */
    ck_assert_uint_eq(nblocks, 5);
    ck_assert_uint_eq(elfemu_icount(vm), 25);
    elfemu_destroy(vm);
}
END_TEST

/* From another host thread: a guest that never ends (spin_asm64) is
 * stopped, and goes on counting when run again. */
static void *stop_later(void *arg)
{
    usleep(20000);
    elfemu_stop(arg);
    return NULL;
}

START_TEST(stop_from_another_thread)
{
    elfemu *vm = load("spin_asm64");
    for (int round = 0; round < 2; round++) {
        pthread_t th;
        ck_assert_int_eq(pthread_create(&th, NULL, stop_later, vm), 0);
        elfemu_exit x;
        ck_assert_int_eq(elfemu_run(vm, &x), 1);
        pthread_join(th, NULL);
        elfemu_regs r;
        elfemu_get_regs(vm, &r);
        /* One block: inc rax; jmp.  Stopped at its start, rax = its runs. */
        ck_assert_uint_gt(r.gpr[ELFEMU_RAX], 0);
        ck_assert_uint_eq(elfemu_icount(vm), 1 + 2 * r.gpr[ELFEMU_RAX]);
    }
    elfemu_destroy(vm);
}
END_TEST

/* Asked for before the run: the run returns before the first instruction. */
START_TEST(stop_before_the_run)
{
    elfemu *vm = load("trace_asm64");
    elfemu_stop(vm);
    elfemu_exit x;
    ck_assert_int_eq(elfemu_run(vm, &x), 1);
    ck_assert_uint_eq(elfemu_icount(vm), 0);
    ck_assert_int_eq(run(vm), 5);
    ck_assert_uint_eq(elfemu_icount(vm), 25);
    elfemu_destroy(vm);
}
END_TEST

/* elfemu_step delivers a signal the host queued for the guest at the
 * step it arrives before, as elfemu_run does at a block boundary: a guest
 * in a loop without syscalls dies of SIGUSR1 at the very next step; and a
 * SYSCALL met with a signal queued (under --strace even SIGCHLD, whose
 * default is to be ignored, is queued) runs once the signal is delivered,
 * instead of the step staying on it. */
static void drop_line(const char *line, size_t len, void *user)
{
    (void)line, (void)len, (void)user;
}

START_TEST(step_delivers_queued_signals)
{
    elfemu *vm = load("spin_asm64");
    elfemu_exit x;
    for (int i = 0; i < 10; i++)
        ck_assert_int_eq(elfemu_step(vm, &x), 0);
    raise(SIGUSR1);
    ck_assert_int_eq(elfemu_step(vm, &x), 1);
    ck_assert(x.signaled);
    ck_assert_int_eq(x.code, SIGUSR1);
    ck_assert_uint_eq(elfemu_icount(vm), 10);
    elfemu_destroy(vm);

    elfemu_config cfg;
    elfemu_config_init(&cfg);
    cfg.strace = true;
    cfg.strace_line = drop_line;
    vm = elfemu_create(&cfg);
    ck_assert_ptr_nonnull(vm);
    char path[4096];
    snprintf(path, sizeof(path), "%s/hello_asm64", guest_dir);
    char *argv[] = { path, NULL }, *envp[] = { NULL };
    elfemu_error err;
    ck_assert_msg(elfemu_load(vm, path, argv, envp, &err) == 0, "%s", err.message);
    raise(SIGCHLD);
    int r = 0, steps = 0;
    while (steps < 100 && (r = elfemu_step(vm, &x)) == 0)
        steps++;
    ck_assert_int_eq(r, 1);
    ck_assert(!x.signaled);
    ck_assert_int_eq(x.code, 3);
    ck_assert_uint_eq(elfemu_icount(vm), 8);
    elfemu_destroy(vm);
}
END_TEST

/* A guest run chained, hooked (every instruction seen on its own: hooked
 * blocks neither chain nor have side exits) and stepped retires the same
 * known number of instructions. */
static void counts_chained_hooked_stepped(const char *guest, uint64_t insns, int status)
{
    elfemu *vm = load(guest);
    ck_assert_int_eq(run(vm), status);
    ck_assert_uint_eq(elfemu_icount(vm), insns);
    elfemu_destroy(vm);

    vm = load(guest);
    ninsns = 0;
    ck_assert_int_gt(elfemu_hook_insn(vm, count_insn, &ninsns), 0);
    ck_assert_int_eq(run(vm), status);
    ck_assert_uint_eq(ninsns, insns);
    ck_assert_uint_eq(elfemu_icount(vm), insns);
    elfemu_destroy(vm);

    vm = load(guest);
    elfemu_exit x;
    uint64_t steps = 0;
    int r;
    while ((r = elfemu_step(vm, &x)) == 0)
        steps++;
    ck_assert_int_eq(r, 1);
    ck_assert(!x.signaled);
    ck_assert_int_eq(x.code, status);
    ck_assert_uint_eq(steps + 1, insns); /* the last step exits */
    ck_assert_uint_eq(elfemu_icount(vm), insns);
    elfemu_destroy(vm);
}

/* The guests counted chained, hooked and stepped: loops longer than a
 * chain (CHAIN_MAX_INSNS, 1024), so that chains also end at their budget
 * inside them, of known instruction counts and exit statuses.
 *  - chain_asm64: short blocks (CALL and RET, fused branches both ways, JMP);
 *  - sideexit_asm64: blocks that side exits leave early (fused and plain Jcc,
 *    JRCXZ, LOOP: chain_miss takes off what the block did not run): 24001
 *    instructions in 3000 rounds (7, 8, 8 and 9 by path), 2 before, 3 after;
 *  - selfloop_asm64: loops of one block each (a fused Jcc that is a side
 *    exit and a LOOP that ends its block, both back to their block's start);
 *  - indirect_asm64: CALL through a register to four targets in turn, JMP
 *    through a register and through memory (cpu/chain.h chain_indirect). */
static const struct counted_guest {
    const char *name;
    uint64_t insns;
    int status;
} counted_guests[] = {
    { "chain_asm64", 8505, 252 },
    { "sideexit_asm64", 24006, 5 },
    { "selfloop_asm64", 13006, 204 },
    { "indirect_asm64", 28506, 76 },
};
#define N_COUNTED (sizeof(counted_guests) / sizeof(counted_guests[0]))

START_TEST(chained_hooked_stepped_count_every_instruction)
{
    const struct counted_guest *g = &counted_guests[_i];
    ck_assert_msg(g->insns > 8 * CHAIN_MAX_INSNS, "%s runs longer than a chain", g->name);
    counts_chained_hooked_stepped(g->name, g->insns, g->status);
}
END_TEST

/* exact_fatal_faults: the flags of the ADD before the load that kills the
 * guest (faultflags_asm64), as the kernel would have them in a core dump. */
START_TEST(exact_flags_after_a_fatal_fault)
{
    static char path[4096];
    snprintf(path, sizeof(path), "%s/faultflags_asm64", guest_dir);
    char *argv[] = { path, NULL };
    char *envp[] = { NULL };
    elfemu_config cfg;
    elfemu_config_init(&cfg);
    cfg.exact_fatal_faults = true;
    elfemu *vm = elfemu_create(&cfg);
    ck_assert_ptr_nonnull(vm);
    elfemu_error err;
    ck_assert_msg(elfemu_load(vm, path, argv, envp, &err) == 0, "%s", err.message);
    elfemu_exit x;
    ck_assert_int_eq(elfemu_run(vm, &x), 0);
    ck_assert(x.signaled);
    ck_assert_int_eq(x.code, SIGSEGV);
    elfemu_regs r;
    elfemu_get_regs(vm, &r);
    ck_assert_uint_eq(r.rflags & 0x8d5, 0x894); /* OF SF AF PF, after 2^63 - 1 + 1 */
    ck_assert_uint_eq(r.gpr[0], 0x8000000000000000ull);
    elfemu_destroy(vm);
}
END_TEST

START_TEST(bad_arguments)
{
    elfemu *vm = load("hello_asm64");
    ck_assert_int_eq(elfemu_hook_insn(vm, NULL, NULL), -1);
    ck_assert_int_eq(elfemu_hook_syscall(vm, NULL, NULL, NULL), -1);
    ck_assert_int_eq(elfemu_hook_remove(vm, 12345), -1);
    elfemu *unloaded = elfemu_create(NULL);
    ck_assert_int_eq(elfemu_hook_insn(unloaded, count_insn, NULL), -1);
    elfemu_destroy(unloaded);
    elfemu_destroy(vm);
}
END_TEST

int main(int argc, char **argv)
{
    guest_dir = argc > 1 ? argv[1] : "tests/guest";
    Suite *s = suite_create("hooks");
    TCase *t = tcase_create("hooks");
    tcase_add_test(t, count_equals_icount);
    tcase_add_test(t, count_ia32);
    tcase_add_test(t, remove_at_run_time);
    tcase_add_test(t, memory_accesses);
    tcase_add_test(t, skip_a_syscall);
    tcase_add_test(t, change_a_result);
    tcase_add_test(t, change_arguments);
    tcase_add_test(t, stop_from_a_hook);
    tcase_add_test(t, stop_from_another_thread);
    tcase_add_test(t, stop_before_the_run);
    tcase_add_test(t, bad_arguments);
    tcase_add_test(t, step_delivers_queued_signals);
    tcase_add_test(t, hooks_keep_x87_flags);
    tcase_add_loop_test(t, chained_hooked_stepped_count_every_instruction, 0, N_COUNTED);
    tcase_add_test(t, exact_flags_after_a_fatal_fault);
    suite_add_tcase(s, t);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
