/* Futexes: guest memory is host memory, so a guest futex word is a host
 * futex word at base + address, and the host kernel does the waiting and
 * waking (also between guest threads and processes sharing the mapping).
 * Every address and the timeout are checked before the host sees them. */
#include <errno.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "syscalls/syscalls.h"

int64_t sys_futex(struct cpu *c, const uint64_t a[6])
{
    int op = (int)a[1], cmd = op & FUTEX_CMD_MASK;
    uint32_t *uaddr = guest_buf(c, a[0], 4, PROT_READ);
    if (!uaddr || (a[0] & 3))
        return uaddr ? -EINVAL : -EFAULT;
    uint64_t arg4 = a[3];
    void *uaddr2 = NULL;
    switch (cmd) {
    case FUTEX_WAIT:
    case FUTEX_WAIT_BITSET:
    case FUTEX_LOCK_PI:
    case FUTEX_LOCK_PI2:
    case FUTEX_WAIT_REQUEUE_PI:
        /* The fourth argument is a timeout (or NULL). */
        if (a[3] && !(arg4 = (uint64_t)(uintptr_t)guest_buf(c, a[3], sizeof(struct timespec), PROT_READ)))
            return -EFAULT;
        if (cmd == FUTEX_WAIT_REQUEUE_PI && !(uaddr2 = guest_buf(c, a[4], 4, PROT_READ)))
            return -EFAULT;
        break;
    case FUTEX_WAKE:
    case FUTEX_WAKE_BITSET:
    case FUTEX_UNLOCK_PI:
    case FUTEX_TRYLOCK_PI:
        break;
    case FUTEX_REQUEUE:
    case FUTEX_CMP_REQUEUE:
    case FUTEX_WAKE_OP:
    case FUTEX_CMP_REQUEUE_PI:
        /* The fourth argument is a count, the fifth a second futex word. */
        if (!(uaddr2 = guest_buf(c, a[4], 4, PROT_READ | PROT_WRITE)))
            return -EFAULT;
        break;
    default:
        return -ENOSYS;
    }
    if (cmd == FUTEX_WAKE_OP || cmd == FUTEX_LOCK_PI || cmd == FUTEX_LOCK_PI2 ||
        cmd == FUTEX_UNLOCK_PI || cmd == FUTEX_TRYLOCK_PI) {
        /* These write the word: it must be writable for the guest too. */
        if (!guest_buf(c, a[0], 4, PROT_WRITE))
            return -EFAULT;
    }
    return host_ret(syscall(SYS_futex, uaddr, op, (uint32_t)a[2], arg4, uaddr2, (uint32_t)a[5]));
}

/* Guest threads are not served yet: the honest answer until they are. */
int64_t thread_clone(struct cpu *c, uint64_t flags, uint64_t stack, uint64_t ptid,
                     uint64_t ctid, uint64_t tls)
{
    (void)c, (void)flags, (void)stack, (void)ptid, (void)ctid, (void)tls;
    return -ENOSYS;
}
