/* Calls into the host's i386 ABI: see host_ia32.h for why. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "syscalls/host_ia32.h"

int64_t host_ia32_call(uint32_t nr, uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3,
                       uint32_t a4)
{
    int64_t r;
    /* The kernel clears r8-r11 on this path; the result is the 64-bit
     * value the compat handler returned. */
    __asm__ volatile("int $0x80"
                     : "=a"(r)
                     : "a"((uint64_t)nr), "b"((uint64_t)a0), "c"((uint64_t)a1),
                       "d"((uint64_t)a2), "S"((uint64_t)a3), "D"((uint64_t)a4)
                     : "memory", "cc", "r8", "r9", "r10", "r11");
    return r;
}

/* A kernel without IA32 emulation (or with ia32_emulation=0) kills a
 * process doing int $0x80 with SIGSEGV, so the question is asked by a
 * child: a fork-like clone without an exit signal (the guest's wait()
 * and SIGCHLD never see it), which tries getpid (i386 number 20). */
static bool probe(void)
{
    long pid = syscall(SYS_clone, 0L, 0L, 0L, 0L, 0L);
    if (pid < 0)
        return false;
    if (pid == 0) {
        signal(SIGSEGV, SIG_DFL);
        int64_t r = host_ia32_call(20, 0, 0, 0, 0, 0);
        syscall(SYS_exit_group, r == syscall(SYS_getpid) ? 0 : 1);
    }
    int status;
    while (waitpid((pid_t)pid, &status, __WALL) < 0)
        if (errno != EINTR)
            return false;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

bool host_ia32_available(void)
{
    /* 0: not asked yet, 1: yes, 2: no.  Two threads asking at once both
     * probe and store the same answer. */
    static int known;
    int k = __atomic_load_n(&known, __ATOMIC_ACQUIRE);
    if (k == 0) {
        int errno_saved = errno;
        k = probe() ? 1 : 2;
        errno = errno_saved;
        __atomic_store_n(&known, k, __ATOMIC_RELEASE);
    }
    return k == 1;
}

static pthread_key_t bounce_key;
static pthread_once_t bounce_once = PTHREAD_ONCE_INIT;

static void bounce_free(void *p)
{
    munmap(p, HOST_IA32_BOUNCE);
}

static void bounce_key_init(void)
{
    pthread_key_create(&bounce_key, bounce_free);
}

void *host_ia32_bounce(void)
{
    static __thread void *bounce;
    if (bounce)
        return bounce;
    pthread_once(&bounce_once, bounce_key_init);
    /* MAP_32BIT: below 2 GiB, where an i386 pointer can reach. */
    void *p = mmap(NULL, HOST_IA32_BOUNCE, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    bounce = p;
    pthread_setspecific(bounce_key, p);
    return p;
}

int64_t host_ia32_openat(int dirfd, const char *path, int flags, unsigned mode)
{
    size_t len = strlen(path) + 1;
    char *b = host_ia32_available() ? host_ia32_bounce() : NULL;
    if (!b || len > HOST_IA32_BOUNCE)
        return -ENOSYS;
    memcpy(b, path, len);
    /* i386 openat is 295. */
    return host_ia32_call(295, (uint32_t)dirfd, (uint32_t)(uintptr_t)b, (uint32_t)flags, mode, 0);
}
