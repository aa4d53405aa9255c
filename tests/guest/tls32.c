/* The GDT TLS entries of an ia32 process across clone: every thread has
 * its own copy of the three entries (set_thread_area in one thread is not
 * seen by another), glibc's pthread_create gives each thread its own %gs
 * base through CLONE_SETTLS with a struct user_desc, a fork-like clone
 * with CLONE_SETTLS changes the child's entry only (and a segment register
 * holding its selector sees the new base at once), and the kernel's checks
 * of the descriptor fail the clone (clone and clone3).  Prints facts only,
 * so the native run is the expected output. */
#ifndef __i386__
#error "an ia32 program: build it with -m32"
#endif
#include <asm/ldt.h>
#include <asm/prctl.h>
#include <errno.h>
#include <linux/sched.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static unsigned gs_entry(void)
{
    unsigned short gs;
    __asm__ volatile("mov %%gs, %0" : "=r"(gs));
    return gs >> 3;
}

static uint32_t gs_word0(void)
{
    uint32_t v;
    __asm__ volatile("movl %%gs:0, %0" : "=r"(v));
    return v;
}

static int get_area(unsigned entry, struct user_desc *u)
{
    memset(u, 0, sizeof(*u));
    u->entry_number = entry;
    return (int)syscall(SYS_get_thread_area, u);
}

/* A usable data descriptor: 32-bit, 4 GiB limit in pages. */
static struct user_desc data_desc(unsigned entry, uint32_t base)
{
    struct user_desc u;
    memset(&u, 0, sizeof(u));
    u.entry_number = entry;
    u.base_addr = base;
    u.limit = 0xfffff;
    u.seg_32bit = 1;
    u.limit_in_pages = 1;
    u.useable = 1;
    return u;
}

static unsigned free_entry; /* a TLS entry glibc does not use */

/* ------------------------------------------------------------ threads */

static pthread_barrier_t bar;

static void *thread_fn(void *arg)
{
    struct user_desc u;
    /* The thread's %gs entry holds its own TCB: pthread_self(). */
    get_area(gs_entry(), &u);
    printf("thread: gs entry base is its pthread_self %d, main's differs %d\n",
           u.base_addr == (uint32_t)(uintptr_t)pthread_self(), u.base_addr != *(uint32_t *)arg);
    printf("thread: %%gs:0 is its TCB %d\n", gs_word0() == (uint32_t)(uintptr_t)pthread_self());
    /* An entry set here is the thread's only. */
    static uint32_t target[4] = { 0x5eed };
    struct user_desc d = data_desc(free_entry, (uint32_t)(uintptr_t)target);
    printf("thread: set_thread_area of the free entry %d\n", (int)syscall(SYS_set_thread_area, &d));
    get_area(free_entry, &d);
    printf("thread: it reads back its base %d, present %d\n",
           d.base_addr == (uint32_t)(uintptr_t)target, !d.seg_not_present);
    pthread_barrier_wait(&bar); /* main looks now */
    pthread_barrier_wait(&bar);
    return NULL;
}

static void threads(void)
{
    struct user_desc u;
    get_area(gs_entry(), &u);
    uint32_t main_base = u.base_addr;
    printf("main: gs entry base is its pthread_self %d\n",
           main_base == (uint32_t)(uintptr_t)pthread_self());
    pthread_barrier_init(&bar, NULL, 2);
    pthread_t t;
    pthread_create(&t, NULL, thread_fn, &main_base);
    pthread_barrier_wait(&bar);
    get_area(free_entry, &u);
    printf("main: the thread's entry is not set here: empty %d\n",
           u.base_addr == 0 && u.seg_not_present && u.read_exec_only);
    get_area(gs_entry(), &u);
    printf("main: its own gs entry is unchanged %d\n", u.base_addr == main_base);
    pthread_barrier_wait(&bar);
    pthread_join(t, NULL);
}

/* ------------------------------------------------------------ fork-like clones */

static void show_wait(const char *what, long pid)
{
    int st = 0;
    if (pid > 0 && waitpid((pid_t)pid, &st, 0) == pid)
        printf("%s: child exited %d\n", what, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

/* clone(flags, stack, parent_tid, tls, child_tid): i386's order. */
static long raw_clone(unsigned long flags, void *tls)
{
    return syscall(SYS_clone, flags, 0, NULL, tls, NULL);
}

static long raw_clone3(uint64_t flags, void *tls)
{
    struct clone_args ca;
    memset(&ca, 0, sizeof(ca));
    ca.flags = flags;
    ca.exit_signal = SIGCHLD;
    ca.tls = (uint64_t)(uintptr_t)tls;
    return syscall(SYS_clone3, &ca, sizeof(ca));
}

static uint32_t child_target[4] = { 0xc0ffee };

/* The child of a CLONE_SETTLS clone: its entry is the new one, exit status
 * 1 + 2 * (base right) + 4 * (present). */
static void settls_child(unsigned entry)
{
    struct user_desc u;
    get_area(entry, &u);
    _exit(1 + 2 * (u.base_addr == (uint32_t)(uintptr_t)child_target) + 4 * !u.seg_not_present);
}

static void fork_like(int v3)
{
    const char *name = v3 ? "clone3" : "clone";
    char what[96];
    struct user_desc d = data_desc(free_entry, (uint32_t)(uintptr_t)child_target);
    long pid = v3 ? raw_clone3(CLONE_SETTLS, &d) : raw_clone(CLONE_SETTLS | SIGCHLD, &d);
    if (pid == 0)
        settls_child(free_entry);
    snprintf(what, sizeof(what), "%s CLONE_SETTLS of a free entry", name);
    show_wait(what, pid);
    struct user_desc u;
    get_area(free_entry, &u);
    printf("%s: the parent's entry stays empty %d\n", name, u.base_addr == 0 && u.seg_not_present);

    /* The entry %gs holds: the child's %gs base moves with it. */
    struct user_desc g = data_desc(gs_entry(), (uint32_t)(uintptr_t)child_target);
    struct user_desc orig;
    get_area(gs_entry(), &orig);
    pid = v3 ? raw_clone3(CLONE_SETTLS, &g) : raw_clone(CLONE_SETTLS | SIGCHLD, &g);
    if (pid == 0) {
        uint32_t w = gs_word0(); /* before anything else touches %gs */
        /* glibc's syscall() goes through %gs:0x10: back to the original
         * entry first, with int $0x80. */
        long r;
        __asm__ volatile("int $0x80" : "=a"(r) : "0"(SYS_set_thread_area), "b"(&orig) : "memory");
        (void)r;
        _exit(w == 0xc0ffee ? 10 : 11);
    }
    snprintf(what, sizeof(what), "%s CLONE_SETTLS of the %%gs entry (10: %%gs:0 reads the new base)",
             name);
    show_wait(what, pid);
    printf("%s: the parent's %%gs:0 is still its TCB %d\n", name,
           gs_word0() == (uint32_t)(uintptr_t)pthread_self());

    /* The descriptor is checked before any child exists. */
    struct {
        const char *what;
        struct user_desc u;
        int bad_pointer;
    } bad[] = {
        { "entry -1 (no free entry is picked)", data_desc((unsigned)-1, 0x1000), 0 },
        { "entry 5", data_desc(5, 0x1000), 0 },
        { "entry 15", data_desc(15, 0x1000), 0 },
        { "16-bit segment", data_desc(free_entry, 0x1000), 0 },
        { "code segment", data_desc(free_entry, 0x1000), 0 },
        { "not present", data_desc(free_entry, 0x1000), 0 },
        { "unreadable user_desc", data_desc(free_entry, 0x1000), 1 },
    };
    bad[3].u.seg_32bit = 0;
    bad[4].u.contents = 2;
    bad[5].u.seg_not_present = 1;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        void *p = bad[i].bad_pointer ? (void *)8 : &bad[i].u;
        errno = 0;
        pid = v3 ? raw_clone3(CLONE_SETTLS, p) : raw_clone(CLONE_SETTLS | SIGCHLD, p);
        if (pid == 0)
            _exit(0);
        int e = errno;
        printf("%s CLONE_SETTLS %s: %s\n", name, bad[i].what, pid < 0 ? strerror(e) : "a child");
        show_wait(bad[i].what, pid);
    }
    /* An empty descriptor clears the child's entry. */
    struct user_desc empty;
    memset(&empty, 0, sizeof(empty));
    empty.entry_number = free_entry;
    empty.read_exec_only = 1;
    empty.seg_not_present = 1;
    syscall(SYS_set_thread_area, &d); /* the parent's entry set... */
    pid = v3 ? raw_clone3(CLONE_SETTLS, &empty) : raw_clone(CLONE_SETTLS | SIGCHLD, &empty);
    if (pid == 0) {
        get_area(free_entry, &u);
        _exit(u.base_addr == 0 && u.seg_not_present ? 20 : 21);
    }
    snprintf(what, sizeof(what), "%s CLONE_SETTLS of an empty descriptor (20: cleared)", name);
    show_wait(what, pid);
    syscall(SYS_set_thread_area, &empty); /* ...and cleared again */
}

/* ------------------------------------------------------------ set_thread_area */

static void set_area_checks(void)
{
    struct {
        const char *what;
        struct user_desc u;
    } c[] = {
        { "data segment", data_desc(free_entry, 0x1000) },
        { "16-bit segment", data_desc(free_entry, 0x1000) },
        { "expand-down data", data_desc(free_entry, 0x1000) },
        { "code segment", data_desc(free_entry, 0x1000) },
        { "conforming code", data_desc(free_entry, 0x1000) },
        { "not present", data_desc(free_entry, 0x1000) },
        { "entry 11", data_desc(11, 0x1000) },
    };
    c[1].u.seg_32bit = 0;
    c[2].u.contents = 1;
    c[3].u.contents = 2;
    c[4].u.contents = 3;
    c[5].u.seg_not_present = 1;
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        errno = 0;
        int r = (int)syscall(SYS_set_thread_area, &c[i].u);
        printf("set_thread_area %s: %d %s\n", c[i].what, r, r < 0 ? strerror(errno) : "");
    }
    /* What an entry reads back: the 20-bit limit, the defined bits only. */
    struct user_desc w = data_desc(free_entry, 0x12345000);
    w.limit = 0x12345678;
    w.read_exec_only = 1;
    w.useable = 0;
    uint32_t word;
    memcpy(&word, (char *)&w + 12, 4);
    word |= 0xfff00000u;
    memcpy((char *)&w + 12, &word, 4);
    printf("set_thread_area with a wide limit and high bits: %d\n",
           (int)syscall(SYS_set_thread_area, &w));
    struct user_desc r;
    get_area(free_entry, &r);
    memcpy(&word, (char *)&r + 12, 4);
    printf("  reads back entry ok %d, base %#x, limit %#x, flags %#x\n",
           r.entry_number == free_entry, r.base_addr, r.limit, word);

    struct user_desc empty;
    memset(&empty, 0, sizeof(empty));
    empty.entry_number = free_entry;
    empty.read_exec_only = 1;
    empty.seg_not_present = 1;
    memcpy(&word, (char *)&empty + 12, 4);
    word |= 1u << 7; /* lm of the x86_64 kernel's struct user_desc */
    memcpy((char *)&empty + 12, &word, 4);
    errno = 0;
    int e = (int)syscall(SYS_set_thread_area, &empty);
    printf("set_thread_area empty with lm: %d %s\n", e, e < 0 ? strerror(errno) : "");
    word &= ~(1u << 7);
    memcpy((char *)&empty + 12, &word, 4);
    empty.useable = 1;
    errno = 0;
    e = (int)syscall(SYS_set_thread_area, &empty);
    printf("set_thread_area empty with useable: %d %s\n", e, e < 0 ? strerror(errno) : "");
    memset(&empty, 0, sizeof(empty));
    empty.entry_number = free_entry;
    printf("set_thread_area all-zero (clears): %d\n", (int)syscall(SYS_set_thread_area, &empty));
    get_area(free_entry, &r);
    memcpy(&word, (char *)&r + 12, 4);
    printf("  reads back base %#x, limit %#x, flags %#x\n", r.base_addr, r.limit, word);
    /* entry -1: a free entry is picked and written back. */
    struct user_desc any = data_desc((unsigned)-1, 0x1000);
    e = (int)syscall(SYS_set_thread_area, &any);
    printf("set_thread_area entry -1: %d, picked the free entry %d\n", e,
           any.entry_number == free_entry);
    empty.entry_number = any.entry_number;
    syscall(SYS_set_thread_area, &empty);
    /* entry -1 of an unacceptable descriptor: nothing picked. */
    any = data_desc((unsigned)-1, 0x1000);
    any.seg_32bit = 0;
    errno = 0;
    e = (int)syscall(SYS_set_thread_area, &any);
    printf("set_thread_area entry -1, 16-bit: %d %s, entry still -1 %d\n", e, strerror(errno),
           any.entry_number == (unsigned)-1);
    errno = 0;
    e = (int)syscall(SYS_set_thread_area, (void *)8);
    printf("set_thread_area unreadable: %d %s\n", e, strerror(errno));
    errno = 0;
    e = (int)syscall(SYS_get_thread_area, (void *)8);
    printf("get_thread_area unreadable: %d %s\n", e, strerror(errno));
    r.entry_number = 3;
    errno = 0;
    e = (int)syscall(SYS_get_thread_area, &r);
    printf("get_thread_area entry 3: %d %s\n", e, strerror(errno));
}

/* arch_prctl (i386 number 384): the FS/GS base options are 64-bit only. */
static void arch_prctl_checks(void)
{
    unsigned long long v = 0;
    const struct {
        const char *name;
        unsigned op;
    } ops[] = { { "ARCH_SET_FS", ARCH_SET_FS }, { "ARCH_GET_FS", ARCH_GET_FS },
                { "ARCH_SET_GS", ARCH_SET_GS }, { "ARCH_GET_GS", ARCH_GET_GS },
                { "ARCH_GET_CPUID", ARCH_GET_CPUID }, { "0x9999", 0x9999 } };
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        errno = 0;
        long r = syscall(SYS_arch_prctl, ops[i].op, &v);
        printf("arch_prctl %s: %ld %s\n", ops[i].name, r, r < 0 ? strerror(errno) : "");
    }
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    struct user_desc u;
    /* The first entry after glibc's %gs one that is empty. */
    for (unsigned e = 12; e < 15 && !free_entry; e++)
        if (e != gs_entry() && get_area(e, &u) == 0 && u.seg_not_present)
            free_entry = e;
    printf("a free TLS entry besides the %%gs one: %d\n", free_entry != 0);
    threads();
    fork_like(0);
    fork_like(1);
    set_area_checks();
    arch_prctl_checks();
    return 0;
}
