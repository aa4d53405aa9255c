/* The IPC structures whose layout depends on the ABI (built for x86_64 and
 * with -m32): shmid_ds/semid_ds/msqid_ds through IPC_STAT and IPC_SET,
 * shminfo and shm_info, message buffers with their long mtype, mq_attr and
 * the POSIX queue timeouts.  On i386 the same calls are also made raw:
 * through ipc(2) with and without IPC_64 (the old structures), and through
 * the direct i386 numbers, with the time32 and time64 timeouts.
 * Prints facts only, so the native run is the expected output. */
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void show(const char *what, long r)
{
    printf("%s: %ld%s%s\n", what, r < 0 ? -1 : r, r < 0 ? " " : "", r < 0 ? strerror(errno) : "");
}

/* Whether a time is within a minute of now. */
static int recent(long long t)
{
    long long now = time(NULL);
    return t > now - 60 && t <= now + 1;
}

struct msgbuf_l {
    long type;
    char text[16];
};

static void portable(void)
{
    int shm = shmget(IPC_PRIVATE, 12345, IPC_CREAT | 0640);
    show("shmget", shm < 0 ? -1 : 0);
    void *p = shmat(shm, NULL, 0);
    struct shmid_ds ds;
    show("shm IPC_STAT", shmctl(shm, IPC_STAT, &ds));
    printf("  segsz %lu mode %o nattch %lu cuid ours %d cpid ours %d atime recent %d\n",
           (unsigned long)ds.shm_segsz, ds.shm_perm.mode & 0777, (unsigned long)ds.shm_nattch,
           ds.shm_perm.cuid == getuid(), ds.shm_cpid == getpid(), recent(ds.shm_atime));
    ds.shm_perm.mode = 0600;
    show("shm IPC_SET", shmctl(shm, IPC_SET, &ds));
    shmctl(shm, IPC_STAT, &ds);
    printf("  mode now %o\n", ds.shm_perm.mode & 0777);
    struct shminfo si;
    show("shm IPC_INFO >= 0", shmctl(0, IPC_INFO, (struct shmid_ds *)&si) >= 0);
    printf("  shmmni %lu shmmin %lu\n", (unsigned long)si.shmmni, (unsigned long)si.shmmin);
    shmdt(p);
    shmctl(shm, IPC_RMID, NULL);

    int sem = semget(IPC_PRIVATE, 4, IPC_CREAT | 0600);
    struct semid_ds sds;
    union {
        int val;
        struct semid_ds *buf;
    } arg = { .buf = &sds };
    show("sem IPC_STAT", semctl(sem, 0, IPC_STAT, arg));
    printf("  nsems %lu mode %o ctime recent %d otime %ld\n", (unsigned long)sds.sem_nsems,
           sds.sem_perm.mode & 0777, recent(sds.sem_ctime), (long)sds.sem_otime);
    sds.sem_perm.mode = 0640;
    show("sem IPC_SET", semctl(sem, 0, IPC_SET, arg));
    semctl(sem, 0, IPC_STAT, arg);
    printf("  mode now %o\n", sds.sem_perm.mode & 0777);
    semctl(sem, 0, IPC_RMID);

    int q = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
    struct msgbuf_l m = { 7, "seven" };
    show("msgsnd", msgsnd(q, &m, 6, 0));
    m.type = 3;
    strcpy(m.text, "three, longer");
    show("msgsnd", msgsnd(q, &m, 14, 0));
    struct msqid_ds mds;
    show("msg IPC_STAT", msgctl(q, IPC_STAT, &mds));
    printf("  qnum %lu cbytes %lu lspid ours %d stime recent %d\n", (unsigned long)mds.msg_qnum,
           (unsigned long)mds.__msg_cbytes, mds.msg_lspid == getpid(), recent(mds.msg_stime));
    mds.msg_qbytes = 1000;
    show("msg IPC_SET qbytes", msgctl(q, IPC_SET, &mds));
    msgctl(q, IPC_STAT, &mds);
    printf("  qbytes now %lu\n", (unsigned long)mds.msg_qbytes);
    struct msgbuf_l r;
    memset(&r, 0, sizeof(r));
    show("msgrcv type 7", msgrcv(q, &r, sizeof(r.text), 7, 0));
    printf("  type %ld text %s\n", r.type, r.text);
    show("msgrcv E2BIG", msgrcv(q, &r, 4, 0, 0));
    memset(&r, 0, sizeof(r));
    show("msgrcv MSG_NOERROR", msgrcv(q, &r, 4, -5, MSG_NOERROR));
    printf("  type %ld text %.4s\n", r.type, r.text);
    show("msgsnd type 0", msgsnd(q, &(struct msgbuf_l){ 0, "x" }, 1, 0));
    show("msgsnd negative size", msgsnd(q, &m, (size_t)-1, 0));
    msgctl(q, IPC_RMID, NULL);

    char name[64];
    snprintf(name, sizeof(name), "/elfemu-ipcabi-%d", getpid());
    struct mq_attr at = { .mq_maxmsg = 3, .mq_msgsize = 32 }, now;
    mqd_t mq = mq_open(name, O_CREAT | O_EXCL | O_RDWR, 0600, &at);
    show("mq_open", mq < 0 ? -1 : 0);
    struct mq_attr bad = { .mq_maxmsg = -1, .mq_msgsize = 32 };
    show("mq_open bad attr", mq_open(name, O_CREAT | O_RDWR, 0600, &bad));
    show("mq_getattr", mq_getattr(mq, &now));
    printf("  flags %ld maxmsg %ld msgsize %ld curmsgs %ld\n", now.mq_flags, now.mq_maxmsg,
           now.mq_msgsize, now.mq_curmsgs);
    struct mq_attr nb = { .mq_flags = O_NONBLOCK };
    show("mq_setattr", mq_setattr(mq, &nb, &now));
    printf("  old flags %ld\n", now.mq_flags);
    char buf[32];
    show("mq_receive nonblocking empty", mq_receive(mq, buf, sizeof(buf), NULL));
    show("mq_send", mq_send(mq, "abc", 4, 5));
    struct timespec ts = { 0, 2000000000 };
    show("mq_timedsend bad timeout", mq_timedsend(mq, "x", 2, 0, &ts));
    unsigned prio;
    clock_gettime(CLOCK_REALTIME, &ts);
    show("mq_timedreceive", mq_timedreceive(mq, buf, sizeof(buf), &prio, &ts));
    printf("  %s prio %u\n", buf, prio);
    mq_close(mq);
    mq_unlink(name);
}

#ifdef __i386__
/* The old structures through ipc(2) without IPC_64. */
struct ipc_perm_old {
    int32_t key;
    uint16_t uid, gid, cuid, cgid, mode, seq;
};

struct shmid_ds_old {
    struct ipc_perm_old perm;
    int32_t segsz, atime, dtime, ctime;
    uint16_t cpid, lpid, nattch, unused;
    uint32_t u2, u3;
};

struct msqid_ds_old {
    struct ipc_perm_old perm;
    uint32_t first, last;
    int32_t stime, rtime, ctime;
    uint32_t lcbytes, lqbytes;
    uint16_t cbytes, qnum, qbytes, lspid, lrpid;
};

struct semid_ds_old {
    struct ipc_perm_old perm;
    int32_t otime, ctime;
    uint32_t base, pending, pending_last, undo;
    uint16_t nsems;
};

static void raw32(void)
{
    int shm = shmget(IPC_PRIVATE, 5000, IPC_CREAT | 0600);
    uint32_t addr = 0;
    show("ipc SHMAT", syscall(SYS_ipc, 21, shm, 0, &addr, NULL));
    printf("  address given back %d\n", addr != 0);
    show("ipc SHMAT bad result pointer", syscall(SYS_ipc, 21, shm, 0, (void *)8, NULL));
    show("ipc SHMAT version 1", syscall(SYS_ipc, 21 | (1 << 16), shm, 0, &addr, NULL));
    struct shmid_ds_old o;
    memset(&o, 0xaa, sizeof(o));
    show("ipc SHMCTL old IPC_STAT", syscall(SYS_ipc, 24, shm, IPC_STAT, 0, &o));
    printf("  segsz %d mode %o nattch %u cuid ours %d cpid ours %d atime recent %d u2 %#x\n",
           o.segsz, o.perm.mode & 0777, o.nattch, o.perm.cuid == (getuid() & 0xffff),
           o.cpid == (getpid() & 0xffff), recent(o.atime), o.u2);
    o.perm.mode = 0604;
    show("ipc SHMCTL old IPC_SET", syscall(SYS_ipc, 24, shm, IPC_SET, 0, &o));
    struct shmid_ds ds;
    show("shmctl 396 IPC_STAT", syscall(SYS_shmctl, shm, IPC_STAT, &ds));
    printf("  mode %o nattch %lu\n", ds.shm_perm.mode & 0777, (unsigned long)ds.shm_nattch);
    show("shmctl 396 IPC_STAT|IPC_64", syscall(SYS_shmctl, shm, IPC_STAT | 0x100, &ds));
    int32_t info[9];
    show("ipc SHMCTL old IPC_INFO >= 0", syscall(SYS_ipc, 24, 0, IPC_INFO, 0, info) >= 0);
    show("ipc SHMCTL SHM_INFO >= 0", syscall(SYS_ipc, 24, 0, SHM_INFO | 0x100, 0, info) >= 0);
    show("ipc SHMDT", syscall(SYS_ipc, 22, 0, 0, 0, (void *)(uintptr_t)addr));
    show("ipc SHMCTL bad cmd", syscall(SYS_ipc, 24, shm, 99, 0, &o));
    show("ipc SHMCTL negative id", syscall(SYS_ipc, 24, -1, IPC_STAT, 0, &o));
    shmctl(shm, IPC_RMID, NULL);

    int q = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
    struct {
        int32_t type;
        char text[12];
    } m4 = { 9, "nine" }, r4;
    show("msgsnd 400", syscall(400, q, &m4, 5, 0));
    show("ipc MSGSND", syscall(SYS_ipc, 11, q, 5, 0, &m4));
    show("ipc MSGSND bad buffer", syscall(SYS_ipc, 11, q, 5, 0, (void *)8));
    struct msqid_ds_old mo;
    memset(&mo, 0xaa, sizeof(mo));
    show("ipc MSGCTL old IPC_STAT", syscall(SYS_ipc, 14, q, IPC_STAT, 0, &mo));
    printf("  qnum %u cbytes %u lspid ours %d lcbytes %#x\n", mo.qnum, mo.cbytes,
           mo.lspid == (getpid() & 0xffff), mo.lcbytes);
    mo.qbytes = 777;
    show("ipc MSGCTL old IPC_SET", syscall(SYS_ipc, 14, q, IPC_SET, 0, &mo));
    struct msqid_ds md;
    show("msgctl 402 IPC_STAT", syscall(402, q, IPC_STAT, &md));
    printf("  qbytes %lu qnum %lu\n", (unsigned long)md.msg_qbytes, (unsigned long)md.msg_qnum);
    memset(&r4, 0, sizeof(r4));
    show("msgrcv 401", syscall(401, q, &r4, sizeof(r4.text), 0, 0));
    printf("  type %d text %s\n", r4.type, r4.text);
    struct {
        void *msgp;
        int32_t type;
    } kludge = { &r4, 9 };
    memset(&r4, 0, sizeof(r4));
    show("ipc MSGRCV version 0", syscall(SYS_ipc, 12, q, sizeof(r4.text), 0, &kludge));
    printf("  type %d text %s\n", r4.type, r4.text);
    show("ipc MSGRCV version 0 NULL", syscall(SYS_ipc, 12, q, 8, 0, NULL));
    syscall(400, q, &m4, 5, 0);
    memset(&r4, 0, sizeof(r4));
    show("ipc MSGRCV version 1", syscall(SYS_ipc, 12 | (1 << 16), q, sizeof(r4.text), 0, &r4, 9));
    printf("  type %d text %s\n", r4.type, r4.text);
    syscall(400, q, &m4, 5, 0);
    show("msgrcv 401 bad buffer", syscall(401, q, (void *)8, 8, 0, 0));
    show("msgrcv 401 the message went", syscall(401, q, &r4, 8, 0, IPC_NOWAIT));
    show("msgrcv 401 negative size", syscall(401, q, &r4, -1, 0, 0));
    show("ipc unknown call", syscall(SYS_ipc, 99, 0, 0, 0, NULL));
    msgctl(q, IPC_RMID, NULL);

    int sem = semget(IPC_PRIVATE, 2, IPC_CREAT | 0600);
    struct semid_ds_old so;
    memset(&so, 0xaa, sizeof(so));
    uint32_t semun = (uint32_t)(uintptr_t)&so;
    show("ipc SEMCTL old IPC_STAT", syscall(SYS_ipc, 3, sem, 0, IPC_STAT, &semun));
    printf("  nsems %u mode %o base %#x\n", so.nsems, so.perm.mode & 0777, so.base);
    show("ipc SEMCTL NULL", syscall(SYS_ipc, 3, sem, 0, IPC_STAT, NULL));
    uint32_t val = 4;
    show("ipc SEMCTL SETVAL", syscall(SYS_ipc, 3, sem, 1, SETVAL, &val));
    show("semctl 394 GETVAL", syscall(394, sem, 1, GETVAL, 0));
    struct sembuf op = { 1, -5, IPC_NOWAIT };
    show("ipc SEMOP would block", syscall(SYS_ipc, 1, sem, 1, 0, &op));
    op.sem_flg = 0;
    struct {
        int32_t sec, nsec;
    } t32 = { 0, 10000000 };
    show("ipc SEMTIMEDOP times out", syscall(SYS_ipc, 4, sem, 1, 0, &op, &t32));
    t32.nsec = -1;
    show("ipc SEMTIMEDOP bad timeout", syscall(SYS_ipc, 4, sem, 1, 0, &op, &t32));
    struct {
        int64_t sec;
        int32_t nsec, pad;
    } t64 = { 0, 10000000, -1 };
    show("semtimedop_time64 padding ignored", syscall(420, sem, &op, 1, &t64));
    semctl(sem, 0, IPC_RMID);

    char name[64];
    snprintf(name, sizeof(name), "/elfemu-ipcabi32-%d", getpid());
    struct {
        int32_t flags, maxmsg, msgsize, curmsgs, res[4];
    } a32 = { 0, 2, 16, 0, { 0 } }, o32;
    /* The raw call takes the name without glibc's leading slash. */
    int mq = (int)syscall(277, name + 1, O_CREAT | O_RDWR, 0600, &a32);
    show("mq_open 277", mq < 0 ? -1 : 0);
    memset(&o32, 0xaa, sizeof(o32));
    show("mq_getsetattr 282", syscall(282, mq, NULL, &o32));
    printf("  maxmsg %d msgsize %d curmsgs %d res %d\n", o32.maxmsg, o32.msgsize, o32.curmsgs,
           o32.res[0]);
    t32.sec = 0;
    t32.nsec = 1000000000;
    show("mq_timedsend 279 bad timeout", syscall(279, mq, "m", 2, 1, &t32));
    show("mq_timedsend 279 bad timeout pointer", syscall(279, mq, "m", 2, 1, (void *)8));
    t64.nsec = 0;
    t64.sec = time(NULL) + 5;
    show("mq_timedsend_time64 padding ignored", syscall(418, mq, "m", 2, 1, &t64));
    t32.sec = (int32_t)time(NULL);
    t32.nsec = 0;
    char b[16];
    unsigned prio = 0;
    show("mq_timedreceive 280", syscall(280, mq, b, sizeof(b), &prio, &t32));
    printf("  %s prio %u\n", b, prio);
    show("mq_timedreceive 280 times out", syscall(280, mq, b, sizeof(b), &prio, &t32));
    t64.sec = time(NULL) - 1;
    show("mq_timedreceive_time64 times out", syscall(419, mq, b, sizeof(b), &prio, &t64));
    close(mq);
    mq_unlink(name);
}
#endif

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    portable();
#ifdef __i386__
    raw32();
#endif
    return 0;
}
