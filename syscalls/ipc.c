/* Inter-process communication for x86_64 guests: System V shared memory,
 * semaphores and message queues, POSIX message queues and pidfds.
 *
 * Guest processes are host processes, so the objects are the host's and
 * every call goes to the host kernel.  The structures (shmid64_ds,
 * semid64_ds, msqid64_ds, sembuf, mq_attr, the message buffers) have the
 * host's layout; the guest's buffers are handed over with guest_ptr(), so
 * the host checks them in the kernel's order.  What needs translating:
 * - shmat/shmdt map a segment into the guest space: at a guest address the
 *   emulator picks (or the guest names), with the VMA recorded so
 *   /proc/self/maps, mprotect and munmap see it;
 * - semctl's fourth argument is a value or a pointer depending on cmd;
 * - mq_notify's SIGEV_THREAD carries a pointer to the notification cookie
 *   the kernel reads (glibc's helper thread uses it).
 * Notifications by signal are host signals to this process: elfemu's
 * handlers queue them for the guest like any other. */
#include <errno.h>
#include <inttypes.h>
#include <mqueue.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "syscalls/syscalls.h"

/* An optional pointer argument: a guest NULL stays NULL for the host. */
static void *opt_ptr(struct cpu *c, uint64_t addr, uint64_t len, int prot)
{
    return addr ? guest_ptr(c, addr, len, prot) : NULL;
}

/* ------------------------------------------------------------ shared memory */

int64_t sys_shmget(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_shmget, (key_t)a[0], (size_t)a[1], (int)a[2]));
}

/* Does any VMA overlap [start, end)?  (mm lock held) */
static bool range_used(const struct mm_space *mm, uint64_t start, uint64_t end)
{
    for (size_t i = 0; i < mm->vmas.n; i++)
        if (mm->vmas.v[i].start < end && mm->vmas.v[i].end > start)
            return true;
    return false;
}

/* The device and inode the host's /proc/self/maps shows for the mapping at
 * host address p (the shm filesystem's), so the guest's maps show the same. */
static void host_map_ids(const void *p, uint64_t *dev, uint64_t *ino)
{
    *dev = *ino = 0;
    FILE *f = fopen("/proc/self/maps", "re");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof(line), f)) {
        uint64_t lo, hi, off, inode;
        unsigned maj, min;
        if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64 " %x:%x %" SCNu64, &lo, &hi, &off,
                   &maj, &min, &inode) == 6 &&
            lo == (uint64_t)(uintptr_t)p) {
            *dev = makedev(maj, min);
            *ino = inode;
            break;
        }
    }
    fclose(f);
}

/* do_shmat(): the address rules, then the mapping. */
int64_t sys_shmat(struct cpu *c, const uint64_t a[6])
{
    int id = (int)a[0], flg = (int)a[2];
    uint64_t addr = a[1];
    if (addr & (SHMLBA - 1)) {
        if (!(flg & SHM_RND))
            return -EINVAL;
        addr &= ~(uint64_t)(SHMLBA - 1);
        if (!addr && (flg & SHM_REMAP))
            return -EINVAL;
    }
    if ((flg & SHM_REMAP) && !addr)
        return -EINVAL;
    /* The segment's size; a bad id or missing permission fails here as
     * shmat would (IPC_STAT needs read permission, which attaching needs). */
    struct shmid_ds ds;
    if (syscall(SYS_shmctl, id, IPC_STAT, &ds) != 0)
        return -errno;
    uint64_t len = mm_page_up(ds.shm_segsz);
    int prot = (flg & SHM_RDONLY) ? PROT_READ : PROT_READ | PROT_WRITE;
    if (flg & SHM_EXEC)
        prot |= PROT_EXEC;
    struct mm_space *mm = c->mm;
    mm_lock(mm);
    int64_t r;
    if (!addr) {
        addr = mm_find_free(mm, len, SHMLBA);
        r = addr ? 0 : -ENOMEM;
    } else if (len > mm->size || addr > mm->size - len) {
        r = -EINVAL;
    } else {
        /* Without SHM_REMAP an attach over an existing mapping is refused. */
        r = !(flg & SHM_REMAP) && range_used(mm, addr, addr + len) ? -EINVAL : 0;
    }
    if (r == 0) {
        cpu_invalidate(c, addr, addr + len);
        /* The reservation under the range is replaced, hence SHM_REMAP. */
        void *p = shmat(id, mm->base + addr, (flg & SHM_RDONLY) | SHM_REMAP);
        if (p == (void *)-1) {
            r = -errno;
        } else {
            char name[64];
            snprintf(name, sizeof(name), "/SYSV%08x (deleted)", (unsigned)ds.shm_perm.__key);
            struct mm_vma v = { .start = addr, .end = addr + len, .prot = prot,
                                .flags = MM_VMA_SHARED, .name = name };
            host_map_ids(p, &v.dev, &v.ino);
            r = mm_vmas_insert(&mm->vmas, &v);
            if (r) {
                shmdt(p);
                mm_unmap(mm, addr, len);
            } else {
                r = (int64_t)addr;
            }
        }
    }
    mm_unlock(mm);
    return r;
}

/* shmdt(addr): the segment attached exactly at addr goes, with every piece
 * of it still mapped after addr (mprotect may have split it). */
int64_t sys_shmdt(struct cpu *c, const uint64_t a[6])
{
    uint64_t addr = a[0];
    if (addr & (MM_PAGE_SIZE - 1))
        return -EINVAL;
    struct mm_space *mm = c->mm;
    mm_lock(mm);
    const struct mm_vma *v = mm_find_vma(mm, addr);
    if (!v || v->start != addr || strncmp(v->name, "/SYSV", 5) != 0) {
        mm_unlock(mm);
        return -EINVAL;
    }
    uint64_t dev = v->dev, ino = v->ino, end = v->end;
    for (const struct mm_vma *n; (n = mm_find_vma(mm, end)) && n->start == end &&
                                 n->dev == dev && n->ino == ino && n->offset == end - addr;)
        end = n->end;
    cpu_invalidate(c, addr, end);
    int r = mm_unmap(mm, addr, end - addr);
    mm_unlock(mm);
    return r;
}

/* The *ctl commands' buffers: what each command reads or writes. */
static uint64_t ctl_len(int cmd, size_t ds_len, size_t info_len)
{
    switch (cmd) {
    case IPC_STAT:
    case IPC_SET:
    case SHM_STAT: /* == SEM_STAT == MSG_STAT */
    case SHM_STAT_ANY: /* == SEM_STAT_ANY == MSG_STAT_ANY */
        return ds_len;
    case IPC_INFO:
    case SHM_INFO: /* == SEM_INFO == MSG_INFO */
        return info_len;
    default:
        return 0;
    }
}

int64_t sys_shmctl(struct cpu *c, const uint64_t a[6])
{
    int cmd = (int)a[1];
    uint64_t len = ctl_len(cmd, sizeof(struct shmid_ds), sizeof(struct shminfo));
    if (cmd == SHM_INFO)
        len = sizeof(struct shm_info);
    void *buf = len ? guest_ptr(c, a[2], len, PROT_WRITE) : HOST_FAULT_ADDR;
    return host_ret(syscall(SYS_shmctl, (int)a[0], cmd, buf));
}

/* ------------------------------------------------------------ semaphores */

int64_t sys_semget(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_semget, (key_t)a[0], (int)a[1], (int)a[2]));
}

int64_t sys_semop(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_semop, (int)a[0],
                            guest_ptr(c, a[1], a[2] * sizeof(struct sembuf), PROT_READ), a[2]));
}

int64_t sys_semtimedop(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_semtimedop, (int)a[0],
                            guest_ptr(c, a[1], a[2] * sizeof(struct sembuf), PROT_READ), a[2],
                            opt_ptr(c, a[3], sizeof(struct timespec), PROT_READ)));
}

/* semctl(id, num, cmd, arg): arg is an int for SETVAL, a pointer for the
 * commands with a buffer or an array, and unused by the others. */
int64_t sys_semctl(struct cpu *c, const uint64_t a[6])
{
    int id = (int)a[0], cmd = (int)a[2];
    uint64_t len = ctl_len(cmd, sizeof(struct semid_ds), sizeof(struct seminfo));
    if (cmd == GETALL || cmd == SETALL) {
        /* The array holds one unsigned short per semaphore of the set. */
        struct semid_ds ds;
        len = syscall(SYS_semctl, id, 0, IPC_STAT, &ds) == 0 ? ds.sem_nsems * 2 : 2;
    }
    uint64_t arg;
    if (cmd == SETVAL)
        arg = a[3];
    else if (len)
        arg = (uint64_t)(uintptr_t)guest_ptr(c, a[3], len, PROT_WRITE);
    else
        arg = (uint64_t)(uintptr_t)HOST_FAULT_ADDR; /* never read by the host */
    return host_ret(syscall(SYS_semctl, id, (int)a[1], cmd, arg));
}

/* ------------------------------------------------------------ message queues */

int64_t sys_msgget(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_msgget, (key_t)a[0], (int)a[1]));
}

/* struct msgbuf: a long mtype, then msgsz bytes of text. */
int64_t sys_msgsnd(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_msgsnd, (int)a[0], guest_ptr(c, a[1], a[2] + 8, PROT_READ),
                            (size_t)a[2], (int)a[3]));
}

int64_t sys_msgrcv(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_msgrcv, (int)a[0], guest_ptr(c, a[1], a[2] + 8, PROT_WRITE),
                            (size_t)a[2], (long)a[3], (int)a[4]));
}

int64_t sys_msgctl(struct cpu *c, const uint64_t a[6])
{
    int cmd = (int)a[1];
    uint64_t len = ctl_len(cmd, sizeof(struct msqid_ds), sizeof(struct msginfo));
    void *buf = len ? guest_ptr(c, a[2], len, PROT_WRITE) : HOST_FAULT_ADDR;
    return host_ret(syscall(SYS_msgctl, (int)a[0], cmd, buf));
}

/* ------------------------------------------------------------ POSIX queues */

/* Queue names live in the mqueue filesystem, not in the guest's file
 * tree: the -L root does not apply to them. */
int64_t sys_mq_open(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_mq_open, guest_ptr(c, a[0], 1, PROT_READ), (int)a[1],
                            (mode_t)a[2], opt_ptr(c, a[3], sizeof(struct mq_attr), PROT_READ)));
}

int64_t sys_mq_unlink(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_mq_unlink, guest_ptr(c, a[0], 1, PROT_READ)));
}

int64_t sys_mq_timedsend(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_mq_timedsend, (int)a[0], guest_ptr(c, a[1], a[2], PROT_READ),
                            (size_t)a[2], (unsigned)a[3],
                            opt_ptr(c, a[4], sizeof(struct timespec), PROT_READ)));
}

int64_t sys_mq_timedreceive(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_mq_timedreceive, (int)a[0], guest_ptr(c, a[1], a[2], PROT_WRITE),
                            (size_t)a[2], opt_ptr(c, a[3], sizeof(unsigned), PROT_WRITE),
                            opt_ptr(c, a[4], sizeof(struct timespec), PROT_READ)));
}

/* Linux's NOTIFY_COOKIE_LEN: what SIGEV_THREAD's sival_ptr points at. */
#define MQ_COOKIE_LEN 32

int64_t sys_mq_notify(struct cpu *c, const uint64_t a[6])
{
    if (!a[1])
        return host_ret(syscall(SYS_mq_notify, (int)a[0], NULL));
    struct sigevent ev;
    if (copy_from_guest(c, &ev, a[1], sizeof(ev)) != 0)
        return -EFAULT;
    if (ev.sigev_notify == SIGEV_THREAD)
        ev.sigev_value.sival_ptr = guest_ptr(c, (uint64_t)(uintptr_t)ev.sigev_value.sival_ptr,
                                             MQ_COOKIE_LEN, PROT_READ);
    return host_ret(syscall(SYS_mq_notify, (int)a[0], &ev));
}

int64_t sys_mq_getsetattr(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_mq_getsetattr, (int)a[0],
                            opt_ptr(c, a[1], sizeof(struct mq_attr), PROT_READ),
                            opt_ptr(c, a[2], sizeof(struct mq_attr), PROT_WRITE)));
}

/* ------------------------------------------------------------ pidfds */

int64_t sys_pidfd_open(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_pidfd_open, (pid_t)a[0], (unsigned)a[1]));
}

/* A signal to this very process arrives through elfemu's host handlers
 * and is queued for the guest, with the siginfo given. */
int64_t sys_pidfd_send_signal(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_pidfd_send_signal, (int)a[0], (int)a[1],
                            opt_ptr(c, a[2], sizeof(siginfo_t), PROT_READ), (unsigned)a[3]));
}

int64_t sys_pidfd_getfd(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_pidfd_getfd, (int)a[0], (int)a[1], (unsigned)a[2]));
}
