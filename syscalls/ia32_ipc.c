/* System V and POSIX IPC for i386 guests: the ipc (117) multiplexer, the
 * direct i386 calls whose structures differ, and the POSIX queue calls with
 * a 32-bit mq_attr, sigevent or timespec.
 *
 * As Linux's compat layer (ipc/compat.c, ipc/shm.c, sem.c, msg.c, mqueue.c):
 * - the *ctl calls come in two versions: the ipc() multiplexer takes the
 *   version from cmd's IPC_64 bit (glibc sets it), the direct calls are
 *   always IPC_64.  The old structures have 16-bit ids and modes and 32-bit
 *   times; the IPC_64 ones 32-bit ids and each time as two 32-bit halves;
 * - a message buffer starts with a 4-byte mtype, not the host's 8;
 * - ipc(SHMAT) returns the address through the pointer in its third
 *   argument, ipc(MSGRCV) of version 0 takes its buffer and type from a
 *   two-word "kludge" structure, ipc(SEMCTL) reads semun from a pointer;
 * - a time64 timespec of a compat task has a 32-bit tv_nsec (the upper
 *   half is padding the kernel drops).
 * Everything is then done by the host kernel with host structures. */
#include <errno.h>
#include <mqueue.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "syscalls/ia32_time.h"
#include "syscalls/syscalls.h"

#define IPC_64_ 0x100
#define OVERFLOW_ID 65534 /* the kernel's default overflowuid/overflowgid */

/* ------------------------------------------------------------ structures */

struct ipc_perm32 { /* compat_ipc_perm: the old version */
    int32_t key;
    uint16_t uid, gid, cuid, cgid, mode, seq;
};

struct ipc64_perm32 {
    int32_t key;
    uint32_t uid, gid, cuid, cgid;
    uint16_t mode, pad1, seq, pad2;
    uint32_t unused1, unused2;
};

struct shmid_ds32 {
    struct ipc_perm32 perm;
    int32_t segsz, atime, dtime, ctime;
    uint16_t cpid, lpid, nattch, unused;
    uint32_t unused2, unused3;
};

/* In the IPC_64 structures a time is two 32-bit halves, low then high. */
struct shmid64_ds32 {
    struct ipc64_perm32 perm;
    uint32_t segsz, atime[2], dtime[2], ctime[2];
    int32_t cpid, lpid;
    uint32_t nattch, unused4, unused5;
};

struct semid_ds32 {
    struct ipc_perm32 perm;
    int32_t otime, ctime;
    uint32_t base, pending, pending_last, undo;
    uint16_t nsems, pad;
};

struct semid64_ds32 {
    struct ipc64_perm32 perm;
    uint32_t otime[2], ctime[2], nsems, unused3, unused4;
};

struct msqid_ds32 {
    struct ipc_perm32 perm;
    uint32_t first, last;
    int32_t stime, rtime, ctime;
    uint32_t lcbytes, lqbytes;
    uint16_t cbytes, qnum, qbytes, lspid, lrpid, pad;
};

struct msqid64_ds32 {
    struct ipc64_perm32 perm;
    uint32_t stime[2], rtime[2], ctime[2], cbytes, qnum, qbytes;
    int32_t lspid, lrpid;
    uint32_t unused4, unused5;
};

struct shminfo32 {
    int32_t shmmax, shmmin, shmmni, shmseg, shmall;
};

struct shminfo64_32 {
    uint32_t shmmax, shmmin, shmmni, shmseg, shmall, unused[4];
};

struct shm_info32 {
    int32_t used_ids;
    uint32_t tot, rss, swp, swap_attempts, swap_successes;
};

struct mq_attr32 {
    int32_t flags, maxmsg, msgsize, curmsgs, reserved[4];
};

_Static_assert(sizeof(struct ipc_perm32) == 16, "compat_ipc_perm");
_Static_assert(sizeof(struct ipc64_perm32) == 36, "compat_ipc64_perm");
_Static_assert(sizeof(struct shmid_ds32) == 48, "compat_shmid_ds");
_Static_assert(sizeof(struct shmid64_ds32) == 84, "compat_shmid64_ds");
_Static_assert(sizeof(struct semid_ds32) == 44, "compat_semid_ds");
_Static_assert(sizeof(struct semid64_ds32) == 64, "compat_semid64_ds");
_Static_assert(sizeof(struct msqid_ds32) == 56, "compat_msqid_ds");
_Static_assert(sizeof(struct msqid64_ds32) == 88, "compat_msqid64_ds");
_Static_assert(sizeof(struct mq_attr32) == 32, "compat_mq_attr");

/* high2lowuid(): an id that does not fit 16 bits is the overflow id. */
static uint16_t low_id(uint32_t id)
{
    return id & ~0xffffu ? OVERFLOW_ID : (uint16_t)id;
}

/* One field of an IPC structure in its three layouts: offset and width in
 * the host's structure, in the old i386 one and in the IPC_64 one (width 0:
 * not there).  A guest field is never wider than the host's, so a value
 * converts by its low bytes, as the kernel's assignments truncate (an
 * IPC_64 time, 8 bytes, is its low half then its high half).  id16: an old
 * uid or gid, through high2lowuid(); set: what IPC_SET takes. */
struct ipc_field {
    uint8_t host_off, host_len, old_off, old_len, new_off, new_len;
    bool id16, set;
};

#define AT(type, field) offsetof(struct type, field), sizeof(((struct type *)0)->field)
#define ABSENT 0, 0

/* The perm that begins every *_ds structure, in all three layouts. */
static const struct ipc_field perm_fields[] = {
    { AT(ipc_perm, __key), AT(ipc_perm32, key), AT(ipc64_perm32, key), false, false },
    { AT(ipc_perm, uid), AT(ipc_perm32, uid), AT(ipc64_perm32, uid), true, true },
    { AT(ipc_perm, gid), AT(ipc_perm32, gid), AT(ipc64_perm32, gid), true, true },
    { AT(ipc_perm, cuid), AT(ipc_perm32, cuid), AT(ipc64_perm32, cuid), true, false },
    { AT(ipc_perm, cgid), AT(ipc_perm32, cgid), AT(ipc64_perm32, cgid), true, false },
    { AT(ipc_perm, mode), AT(ipc_perm32, mode), AT(ipc64_perm32, mode), false, true },
    { AT(ipc_perm, __seq), AT(ipc_perm32, seq), AT(ipc64_perm32, seq), false, false },
};

static const struct ipc_field shm_fields[] = {
    { AT(shmid_ds, shm_segsz), AT(shmid_ds32, segsz), AT(shmid64_ds32, segsz), false, false },
    { AT(shmid_ds, shm_atime), AT(shmid_ds32, atime), AT(shmid64_ds32, atime), false, false },
    { AT(shmid_ds, shm_dtime), AT(shmid_ds32, dtime), AT(shmid64_ds32, dtime), false, false },
    { AT(shmid_ds, shm_ctime), AT(shmid_ds32, ctime), AT(shmid64_ds32, ctime), false, false },
    { AT(shmid_ds, shm_cpid), AT(shmid_ds32, cpid), AT(shmid64_ds32, cpid), false, false },
    { AT(shmid_ds, shm_lpid), AT(shmid_ds32, lpid), AT(shmid64_ds32, lpid), false, false },
    { AT(shmid_ds, shm_nattch), AT(shmid_ds32, nattch), AT(shmid64_ds32, nattch), false, false },
};

static const struct ipc_field sem_fields[] = {
    { AT(semid_ds, sem_otime), AT(semid_ds32, otime), AT(semid64_ds32, otime), false, false },
    { AT(semid_ds, sem_ctime), AT(semid_ds32, ctime), AT(semid64_ds32, ctime), false, false },
    { AT(semid_ds, sem_nsems), AT(semid_ds32, nsems), AT(semid64_ds32, nsems), false, false },
};

#define MSG_QBYTES                                                                        \
    { AT(msqid_ds, msg_qbytes), AT(msqid_ds32, qbytes), AT(msqid64_ds32, qbytes), false, true }
static const struct ipc_field msg_fields[] = {
    { AT(msqid_ds, msg_stime), AT(msqid_ds32, stime), AT(msqid64_ds32, stime), false, false },
    { AT(msqid_ds, msg_rtime), AT(msqid_ds32, rtime), AT(msqid64_ds32, rtime), false, false },
    { AT(msqid_ds, msg_ctime), AT(msqid_ds32, ctime), AT(msqid64_ds32, ctime), false, false },
    { AT(msqid_ds, __msg_cbytes), AT(msqid_ds32, cbytes), AT(msqid64_ds32, cbytes), false,
      false },
    { AT(msqid_ds, msg_qnum), AT(msqid_ds32, qnum), AT(msqid64_ds32, qnum), false, false },
    MSG_QBYTES,
    { AT(msqid_ds, msg_lspid), AT(msqid_ds32, lspid), AT(msqid64_ds32, lspid), false, false },
    { AT(msqid_ds, msg_lrpid), AT(msqid_ds32, lrpid), AT(msqid64_ds32, lrpid), false, false },
};

/* A host *_ds structure and the guest's two versions of it: fields, and
 * how much of each version the kernel copies out (the old semid_ds and
 * msqid_ds without their tail padding). */
struct ipc_ds {
    const struct ipc_field *f;
    size_t n;
    size_t old_size, new_size;
};

#define FIELDS(t) t, sizeof(t) / sizeof(t[0])
static const struct ipc_ds shm_ds = { FIELDS(shm_fields), sizeof(struct shmid_ds32),
                                      sizeof(struct shmid64_ds32) };
static const struct ipc_ds sem_ds = { FIELDS(sem_fields), offsetof(struct semid_ds32, pad),
                                      sizeof(struct semid64_ds32) };
static const struct ipc_ds msg_ds = { FIELDS(msg_fields), offsetof(struct msqid_ds32, pad),
                                      sizeof(struct msqid64_ds32) };

static void fields_out(const struct ipc_field *f, size_t n, bool v64, const void *host,
                       uint8_t *guest)
{
    for (; n--; f++) {
        unsigned off = v64 ? f->new_off : f->old_off, len = v64 ? f->new_len : f->old_len;
        uint64_t v = 0;
        memcpy(&v, (const uint8_t *)host + f->host_off, f->host_len);
        if (f->id16 && !v64)
            v = low_id((uint32_t)v);
        memcpy(guest + off, &v, len);
    }
}

/* The *_STAT commands: the host's structure ds (result r) to the guest's
 * buffer at addr in the version asked for.  r or -EFAULT. */
static int64_t ds_out(struct cpu *c, uint64_t addr, const struct ipc_ds *l, const void *ds,
                      int version, int64_t r)
{
    uint8_t v[sizeof(struct msqid64_ds32)];
    bool v64 = version == IPC_64_;
    memset(v, 0, sizeof(v));
    fields_out(perm_fields, sizeof(perm_fields) / sizeof(perm_fields[0]), v64, ds, v);
    fields_out(l->f, l->n, v64, ds, v);
    return copy_to_guest(c, addr, v, v64 ? l->new_size : l->old_size) ? -EFAULT : r;
}

static void fields_in(const struct ipc_field *f, size_t n, bool v64, const uint8_t *guest,
                      void *host)
{
    for (; n--; f++) {
        if (!f->set)
            continue;
        uint64_t v = 0;
        memcpy(&v, guest + (v64 ? f->new_off : f->old_off), v64 ? f->new_len : f->old_len);
        memcpy((uint8_t *)host + f->host_off, &v, f->host_len);
    }
}

/* IPC_SET takes uid, gid and mode from the guest's structure (the whole
 * perm is read, as get_compat_ipc(64)_perm() does) into the zeroed host
 * structure ds.  0 or -EFAULT. */
static int perm_in(struct cpu *c, uint64_t addr, int version, void *ds)
{
    uint8_t p[sizeof(struct ipc64_perm32)];
    bool v64 = version == IPC_64_;
    if (copy_from_guest(c, p, addr, v64 ? sizeof(struct ipc64_perm32)
                                        : sizeof(struct ipc_perm32)) != 0)
        return -EFAULT;
    fields_in(perm_fields, sizeof(perm_fields) / sizeof(perm_fields[0]), v64, p, ds);
    return 0;
}

/* ------------------------------------------------------------ shm */

/* compat_ksys_shmctl() */
static int64_t shmctl32(struct cpu *c, int id, int cmd, uint64_t buf, int version)
{
    if (cmd < 0 || id < 0)
        return -EINVAL;
    switch (cmd) {
    case IPC_INFO: {
        struct shminfo si;
        int64_t r = host_ret(syscall(SYS_shmctl, id, cmd, &si));
        if (r < 0)
            return r;
        uint64_t max = si.shmmax > INT32_MAX ? INT32_MAX : si.shmmax;
        /* The old shminfo is the IPC_64 one without its unused tail. */
        struct shminfo64_32 v = { (uint32_t)max, (uint32_t)si.shmmin, (uint32_t)si.shmmni,
                                  (uint32_t)si.shmseg, (uint32_t)si.shmall, { 0 } };
        size_t n = version == IPC_64_ ? sizeof(v) : sizeof(struct shminfo32);
        return copy_to_guest(c, buf, &v, n) ? -EFAULT : r;
    }
    case SHM_INFO: {
        struct shm_info si;
        int64_t r = host_ret(syscall(SYS_shmctl, id, cmd, &si));
        if (r < 0)
            return r;
        struct shm_info32 v = { si.used_ids, (uint32_t)si.shm_tot, (uint32_t)si.shm_rss,
                                (uint32_t)si.shm_swp, (uint32_t)si.swap_attempts,
                                (uint32_t)si.swap_successes };
        return copy_to_guest(c, buf, &v, sizeof(v)) ? -EFAULT : r;
    }
    case IPC_STAT:
    case SHM_STAT:
    case SHM_STAT_ANY: {
        struct shmid_ds ds;
        int64_t r = host_ret(syscall(SYS_shmctl, id, cmd, &ds));
        if (r < 0)
            return r;
        return ds_out(c, buf, &shm_ds, &ds, version, r);
    }
    case IPC_SET: {
        struct shmid_ds ds;
        memset(&ds, 0, sizeof(ds));
        if (perm_in(c, buf, version, &ds) != 0)
            return -EFAULT;
        return host_ret(syscall(SYS_shmctl, id, cmd, &ds));
    }
    case IPC_RMID:
    case SHM_LOCK:
    case SHM_UNLOCK:
        return host_ret(syscall(SYS_shmctl, id, cmd, NULL));
    default:
        return -EINVAL;
    }
}

int64_t sys_shmctl_ia32(struct cpu *c, const uint64_t a[6])
{
    return shmctl32(c, (int)a[0], (int)a[1], a[2], IPC_64_);
}

/* ------------------------------------------------------------ sem */

/* compat_ksys_semctl(): the commands are told apart without IPC_64, but
 * the ones that check cmd further see it whole (an IPC_64 SEM_STAT is an
 * IPC_STAT then, as in the kernel). */
static int64_t semctl32(struct cpu *c, int id, int num, int cmd, uint32_t arg, int version)
{
    if (id < 0)
        return -EINVAL;
    switch (cmd & ~IPC_64_) {
    case IPC_INFO:
    case SEM_INFO: /* struct seminfo: ints on both ABIs */
        return host_ret(syscall(SYS_semctl, id, num, cmd == SEM_INFO ? SEM_INFO : IPC_INFO,
                                guest_ptr(c, arg, sizeof(struct seminfo), PROT_WRITE)));
    case IPC_STAT:
    case SEM_STAT:
    case SEM_STAT_ANY: {
        int hcmd = cmd == SEM_STAT || cmd == SEM_STAT_ANY ? cmd : IPC_STAT;
        struct semid_ds ds;
        int64_t r = host_ret(syscall(SYS_semctl, id, num, hcmd, &ds));
        if (r < 0)
            return r;
        return ds_out(c, arg, &sem_ds, &ds, version, r);
    }
    case IPC_SET: {
        struct semid_ds ds;
        memset(&ds, 0, sizeof(ds));
        if (perm_in(c, arg, version, &ds) != 0)
            return -EFAULT;
        return host_ret(syscall(SYS_semctl, id, num, cmd, &ds));
    }
    default: {
        /* GETVAL..SETALL, SETVAL, IPC_RMID: the same on both ABIs. */
        const uint64_t b[6] = { (uint32_t)id, (uint32_t)num, (uint32_t)cmd, arg, 0, 0 };
        return sys_semctl(c, b);
    }
    }
}

/* semctl (394): the 32-bit semun is the fourth argument itself. */
int64_t sys_semctl_ia32(struct cpu *c, const uint64_t a[6])
{
    return semctl32(c, (int)a[0], (int)a[1], (int)a[2], (uint32_t)a[3], IPC_64_);
}

/* A time32 or compat time64 timeout for the host: NULL for none,
 * HOST_FAULT_ADDR when unreadable (the host's EFAULT in its order). */
static struct timespec *timeout_in(struct cpu *c, uint64_t addr, bool time64, struct timespec *ts)
{
    if (!addr)
        return NULL;
    return ia32_get_ts(c, addr, time64, ts) != 0 ? HOST_FAULT_ADDR : ts;
}

static int64_t semtimedop32(struct cpu *c, int id, uint64_t sops, uint32_t nsops, uint64_t tmo,
                            bool time64)
{
    struct timespec ts;
    struct timespec *t = timeout_in(c, tmo, time64, &ts);
    return host_ret(syscall(SYS_semtimedop, id,
                            guest_ptr(c, sops, (uint64_t)nsops * sizeof(struct sembuf), PROT_READ),
                            nsops, t));
}

/* semtimedop_time64 (420) */
int64_t sys_semtimedop_time64_ia32(struct cpu *c, const uint64_t a[6])
{
    return semtimedop32(c, (int)a[0], a[1], (uint32_t)a[2], a[3], true);
}

/* ------------------------------------------------------------ msg */

static int64_t msgctl32(struct cpu *c, int id, int cmd, uint64_t buf, int version)
{
    if (id < 0 || cmd < 0)
        return -EINVAL;
    switch (cmd & ~IPC_64_) {
    case IPC_INFO:
    case MSG_INFO: /* struct msginfo: ints on both ABIs */
        return host_ret(syscall(SYS_msgctl, id, cmd == MSG_INFO ? MSG_INFO : IPC_INFO,
                                guest_ptr(c, buf, sizeof(struct msginfo), PROT_WRITE)));
    case IPC_STAT:
    case MSG_STAT:
    case MSG_STAT_ANY: {
        int hcmd = cmd == MSG_STAT || cmd == MSG_STAT_ANY ? cmd : IPC_STAT;
        struct msqid_ds ds;
        int64_t r = host_ret(syscall(SYS_msgctl, id, hcmd, &ds));
        if (r < 0)
            return r;
        return ds_out(c, buf, &msg_ds, &ds, version, r);
    }
    case IPC_SET: {
        struct msqid_ds ds;
        memset(&ds, 0, sizeof(ds));
        if (perm_in(c, buf, version, &ds) != 0)
            return -EFAULT;
        /* and msg_qbytes, read on its own (compat's get_user()) */
        static const struct ipc_field qbytes[] = { MSG_QBYTES };
        uint8_t v[sizeof(struct msqid64_ds32)];
        unsigned off = version == IPC_64_ ? qbytes->new_off : qbytes->old_off;
        if (copy_from_guest(c, v + off, buf + off,
                            version == IPC_64_ ? qbytes->new_len : qbytes->old_len) != 0)
            return -EFAULT;
        fields_in(qbytes, 1, version == IPC_64_, v, &ds);
        return host_ret(syscall(SYS_msgctl, id, cmd, &ds));
    }
    case IPC_RMID:
        return host_ret(syscall(SYS_msgctl, id, cmd, NULL));
    default:
        return -EINVAL;
    }
}

int64_t sys_msgctl_ia32(struct cpu *c, const uint64_t a[6])
{
    return msgctl32(c, (int)a[0], (int)a[1], a[2], IPC_64_);
}

/* The host's msg_ctlmax (msgmax): sizes above it fail before the text is
 * read. */
static int64_t msg_max(void)
{
    struct msginfo mi;
    return syscall(SYS_msgctl, 0, IPC_INFO, &mi) < 0 ? 8192 : mi.msgmax;
}

/* compat_ksys_msgsnd(): the buffer is a 4-byte mtype, then the text. */
static int64_t msgsnd32(struct cpu *c, int id, uint64_t msgp, int32_t msgsz, int flg)
{
    int32_t mtype;
    if (copy_from_guest(c, &mtype, msgp, sizeof(mtype)) != 0)
        return -EFAULT;
    long head = mtype;
    if (msgsz < 0 || msgsz > msg_max())
        return host_ret(syscall(SYS_msgsnd, id, &head, (size_t)(long)msgsz, flg)); /* EINVAL */
    unsigned char *m = malloc(sizeof(long) + (size_t)msgsz);
    if (!m)
        return -ENOMEM;
    memcpy(m, &head, sizeof(head));
    int64_t r;
    if (copy_from_guest(c, m + sizeof(long), msgp + 4, (uint64_t)msgsz) != 0)
        r = id < 0 || mtype < 1 ? -EINVAL : -EFAULT; /* do_msgsnd()'s order */
    else
        r = host_ret(syscall(SYS_msgsnd, id, m, (size_t)msgsz, flg));
    free(m);
    return r;
}

/* compat_ksys_msgrcv(): received into a host buffer, then the 4-byte mtype
 * and the text to the guest (a message that cannot be stored is gone, as
 * natively). */
static int64_t msgrcv32(struct cpu *c, int id, uint64_t msgp, int32_t msgsz, int32_t msgtyp,
                        int flg)
{
    long small[2];
    if (msgsz < 0 || id < 0)
        return host_ret(syscall(SYS_msgrcv, id, small, (size_t)(long)msgsz, (long)msgtyp, flg));
    unsigned char *m = malloc(sizeof(long) + (size_t)msgsz);
    if (!m)
        return -ENOMEM;
    int64_t r = host_ret(syscall(SYS_msgrcv, id, m, (size_t)msgsz, (long)msgtyp, flg));
    if (r >= 0) {
        long type;
        memcpy(&type, m, sizeof(type));
        int32_t t32 = (int32_t)type;
        if (copy_to_guest(c, msgp, &t32, 4) != 0 ||
            copy_to_guest(c, msgp + 4, m + sizeof(long), (uint64_t)r) != 0)
            r = -EFAULT;
    }
    free(m);
    return r;
}

int64_t sys_msgsnd_ia32(struct cpu *c, const uint64_t a[6])
{
    return msgsnd32(c, (int)a[0], a[1], (int32_t)a[2], (int)a[3]);
}

int64_t sys_msgrcv_ia32(struct cpu *c, const uint64_t a[6])
{
    return msgrcv32(c, (int)a[0], a[1], (int32_t)a[2], (int32_t)a[3], (int)a[4]);
}

/* ------------------------------------------------------------ ipc() */

/* compat ipc(call, first, second, third, ptr, fifth): the version in the
 * upper half of call. */
int64_t sys_ipc_ia32(struct cpu *c, const uint64_t a[6])
{
    uint32_t call = (uint32_t)a[0] & 0xffff, version = (uint32_t)a[0] >> 16;
    int first = (int)a[1], second = (int)a[2];
    uint32_t third = (uint32_t)a[3], ptr = (uint32_t)a[4], fifth = (uint32_t)a[5];
    switch (call) {
    case 1: /* SEMOP */
        return semtimedop32(c, first, ptr, (uint32_t)second, 0, false);
    case 4: /* SEMTIMEDOP: a 32-bit timespec */
        return semtimedop32(c, first, ptr, (uint32_t)second, fifth, false);
    case 2: { /* SEMGET */
        const uint64_t b[6] = { (uint32_t)first, (uint32_t)second, third, 0, 0, 0 };
        return sys_semget(c, b);
    }
    case 3: { /* SEMCTL: the union semun read through ptr */
        if (!ptr)
            return -EINVAL;
        uint32_t pad;
        if (copy_from_guest(c, &pad, ptr, sizeof(pad)) != 0)
            return -EFAULT;
        int cmd = (int)third;
        return semctl32(c, first, second, cmd & ~IPC_64_, pad, cmd & IPC_64_);
    }
    case 11: /* MSGSND */
        return msgsnd32(c, first, ptr, second, (int)third);
    case 12: /* MSGRCV */
        if (first < 0 || second < 0)
            return -EINVAL;
        if (!version) {
            /* struct compat_ipc_kludge { msgp, msgtyp } */
            if (!ptr)
                return -EINVAL;
            uint32_t k[2];
            if (copy_from_guest(c, k, ptr, sizeof(k)) != 0)
                return -EFAULT;
            return msgrcv32(c, first, k[0], second, (int32_t)k[1], (int)third);
        }
        return msgrcv32(c, first, ptr, second, (int32_t)fifth, (int)third);
    case 13: { /* MSGGET */
        const uint64_t b[6] = { (uint32_t)first, (uint32_t)second, 0, 0, 0, 0 };
        return sys_msgget(c, b);
    }
    case 14: /* MSGCTL */
        return msgctl32(c, first, second & ~IPC_64_, ptr, second & IPC_64_);
    case 21: { /* SHMAT: the address goes back through third */
        if (version == 1)
            return -EINVAL;
        const uint64_t b[6] = { (uint32_t)first, ptr, (uint32_t)second, 0, 0, 0 };
        int64_t r = sys_shmat(c, b);
        if (r < 0)
            return r;
        uint32_t addr = (uint32_t)r;
        return copy_to_guest(c, third, &addr, sizeof(addr)) ? -EFAULT : 0;
    }
    case 22: { /* SHMDT */
        const uint64_t b[6] = { ptr, 0, 0, 0, 0, 0 };
        return sys_shmdt(c, b);
    }
    case 23: { /* SHMGET */
        const uint64_t b[6] = { (uint32_t)first, (uint32_t)second, third, 0, 0, 0 };
        return sys_shmget(c, b);
    }
    case 24: /* SHMCTL */
        return shmctl32(c, first, second & ~IPC_64_, ptr, second & IPC_64_);
    default:
        return -ENOSYS;
    }
}

/* ------------------------------------------------------------ POSIX queues */

/* The guest's 32-bit mq_attr at addr as the host's.  0 or -EFAULT. */
static int mq_attr_in(struct cpu *c, uint64_t addr, struct mq_attr *to)
{
    struct mq_attr32 v;
    if (copy_from_guest(c, &v, addr, sizeof(v)) != 0)
        return -EFAULT;
    memset(to, 0, sizeof(*to));
    to->mq_flags = v.flags;
    to->mq_maxmsg = v.maxmsg;
    to->mq_msgsize = v.msgsize;
    to->mq_curmsgs = v.curmsgs;
    return 0;
}

/* mq_open (277): the attributes are read only with O_CREAT. */
int64_t sys_mq_open_ia32(struct cpu *c, const uint64_t a[6])
{
    int oflag = (int)a[1];
    struct mq_attr attr, *p = NULL;
    if (a[3] && (oflag & O_CREAT)) {
        if (mq_attr_in(c, a[3], &attr) != 0)
            return -EFAULT;
        p = &attr;
    }
    return host_ret(syscall(SYS_mq_open, guest_ptr(c, a[0], 1, PROT_READ), oflag,
                            (mode_t)(uint16_t)a[2], p));
}

int64_t sys_mq_getsetattr_ia32(struct cpu *c, const uint64_t a[6])
{
    struct mq_attr nw, old, *pn = NULL;
    if (a[1]) {
        if (mq_attr_in(c, a[1], &nw) != 0)
            return -EFAULT;
        pn = &nw;
    }
    int64_t r = host_ret(syscall(SYS_mq_getsetattr, (int)a[0], pn, a[2] ? &old : NULL));
    if (r || !a[2])
        return r;
    struct mq_attr32 v = { (int32_t)old.mq_flags, (int32_t)old.mq_maxmsg,
                           (int32_t)old.mq_msgsize, (int32_t)old.mq_curmsgs, { 0 } };
    return copy_to_guest(c, a[2], &v, sizeof(v)) ? -EFAULT : 0;
}

/* Linux's NOTIFY_COOKIE_LEN: what SIGEV_THREAD's sival_ptr points at. */
#define MQ_COOKIE_LEN 32

/* mq_notify (281): the 32-bit sigevent (value, signo, notify, tid). */
int64_t sys_mq_notify_ia32(struct cpu *c, const uint64_t a[6])
{
    if (!a[1])
        return host_ret(syscall(SYS_mq_notify, (int)a[0], NULL));
    int32_t w[4];
    if (copy_from_guest(c, w, a[1], sizeof(w)) != 0)
        return -EFAULT;
    struct sigevent ev;
    memset(&ev, 0, sizeof(ev));
    ev.sigev_value.sival_int = w[0];
    ev.sigev_signo = w[1];
    ev.sigev_notify = w[2];
    ev._sigev_un._tid = w[3];
    if (ev.sigev_notify == SIGEV_THREAD)
        ev.sigev_value.sival_ptr = guest_ptr(c, (uint32_t)w[0], MQ_COOKIE_LEN, PROT_READ);
    return host_ret(syscall(SYS_mq_notify, (int)a[0], &ev));
}

static int64_t mq_send32(struct cpu *c, const uint64_t a[6], bool time64)
{
    struct timespec ts;
    struct timespec *t = timeout_in(c, a[4], time64, &ts);
    return host_ret(syscall(SYS_mq_timedsend, (int)a[0], guest_ptr(c, a[1], a[2], PROT_READ),
                            (size_t)a[2], (unsigned)a[3], t));
}

static int64_t mq_receive32(struct cpu *c, const uint64_t a[6], bool time64)
{
    struct timespec ts;
    struct timespec *t = timeout_in(c, a[4], time64, &ts);
    return host_ret(syscall(SYS_mq_timedreceive, (int)a[0], guest_ptr(c, a[1], a[2], PROT_WRITE),
                            (size_t)a[2], a[3] ? guest_ptr(c, a[3], 4, PROT_WRITE) : NULL, t));
}

int64_t sys_mq_timedsend_ia32(struct cpu *c, const uint64_t a[6])
{
    return mq_send32(c, a, false);
}

int64_t sys_mq_timedreceive_ia32(struct cpu *c, const uint64_t a[6])
{
    return mq_receive32(c, a, false);
}

int64_t sys_mq_timedsend_time64_ia32(struct cpu *c, const uint64_t a[6])
{
    return mq_send32(c, a, true);
}

int64_t sys_mq_timedreceive_time64_ia32(struct cpu *c, const uint64_t a[6])
{
    return mq_receive32(c, a, true);
}
