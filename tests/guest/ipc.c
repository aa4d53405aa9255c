/* System V shared memory, semaphores and message queues, POSIX message
 * queues and pidfds, compared with the native run.  Every object is
 * private or removed at the end; nothing printed depends on ids or pids. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "show.h"

/* How a child that touches memory ended. */
static void show_child(const char *what, pid_t pid)
{
    int st;
    waitpid(pid, &st, 0);
    if (WIFSIGNALED(st))
        printf("%s: killed by %s\n", what, sigabbrev_np(WTERMSIG(st)));
    else
        printf("%s: exit %d\n", what, WEXITSTATUS(st));
}

/* The /proc/self/maps line of the mapping at p: its permissions and name. */
static void show_map(const char *what, const void *p)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    bool found = false;
    while (f && fgets(line, sizeof(line), f)) {
        unsigned long lo, hi;
        char perms[8];
        int name_at = 0;
        if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %n", &lo, &hi, perms, &name_at) >= 3 &&
            lo == (unsigned long)p) {
            line[strcspn(line, "\n")] = 0;
            printf("%s: %s %lu pages %s\n", what, perms, (hi - lo) / 4096, line + name_at);
            found = true;
        }
    }
    if (f)
        fclose(f);
    if (!found)
        printf("%s: not mapped\n", what);
}

/* ------------------------------------------------------------ shm */

static void shm_tests(void)
{
    int id = shmget(IPC_PRIVATE, 10000, IPC_CREAT | 0600);
    show_ok("shmget private 10000", id);
    char *p = shmat(id, NULL, 0);
    show_ok("shmat anywhere", p == (void *)-1 ? -1 : 0);
    show_map("maps of the attach", p);
    strcpy(p, "parent wrote");
    strcpy(p + 9000, "far end");
    struct shmid_ds ds;
    show_ok("IPC_STAT", shmctl(id, IPC_STAT, &ds));
    printf("segsz %zu, nattch %lu, mode %o\n", ds.shm_segsz, (unsigned long)ds.shm_nattch,
           ds.shm_perm.mode & 0777);

    /* A fork child shares the attach; a child attaching again too. */
    pid_t pid = fork();
    if (pid == 0) {
        char *q = shmat(id, NULL, 0);
        printf("child sees: %s / %s / %s\n", p, p + 9000, q);
        strcpy(q + 100, "child wrote");
        _exit(0);
    }
    show_child("child", pid);
    printf("parent sees: %s\n", p + 100);

    /* Read-only: a write faults. */
    char *ro = shmat(id, NULL, SHM_RDONLY);
    show_map("maps of the read-only attach", ro);
    printf("read-only sees: %s\n", ro);
    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        ro[0] = 'x';
        _exit(0);
    }
    show_child("write to the read-only attach", pid);

    /* At an address: rounded with SHM_RND, refused over a mapping unless SHM_REMAP. */
    char *area = mmap(NULL, 8 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    errno = 0;
    show_ok("shmat over a mapping", shmat(id, area, 0) == (void *)-1 ? -1 : 0);
    show_ok("shmat unaligned without SHM_RND", shmat(id, area + 5, 0) == (void *)-1 ? -1 : 0);
    char *at = shmat(id, area + 5, SHM_RND | SHM_REMAP);
    printf("shmat SHM_RND|SHM_REMAP: %s\n", at == area ? "at the rounded address" : "elsewhere");
    printf("through it: %s\n", at == (void *)-1 ? "-" : at);
    show_map("maps after SHM_REMAP", area);
    show_map("maps after the segment", area + 3 * 4096);
    show_ok("shmat SHM_REMAP at NULL", shmat(id, NULL, SHM_REMAP) == (void *)-1 ? -1 : 0);

    show_ok("IPC_STAT again", shmctl(id, IPC_STAT, &ds));
    printf("nattch %lu\n", (unsigned long)ds.shm_nattch);
    show_ok("shmdt in the middle", shmdt(p + 4096));
    show_ok("shmdt of a plain mapping", shmdt(area + 3 * 4096));
    show_ok("shmdt", shmdt(p));
    show_ok("shmdt twice", shmdt(p));
    show_map("maps after shmdt", p);
    show_ok("shmdt read-only", shmdt(ro));
    show_ok("shmdt remapped", shmdt(at));
    show_ok("IPC_STAT after detaching", shmctl(id, IPC_STAT, &ds));
    printf("nattch %lu\n", (unsigned long)ds.shm_nattch);
    show_ok("IPC_RMID", shmctl(id, IPC_RMID, NULL));
    show_ok("shmat after IPC_RMID", shmat(id, NULL, 0) == (void *)-1 ? -1 : 0);
#ifdef __i386__
    /* A 32-bit size is zero-extended: 4 GiB - 1 is a real size (a segment
     * or ENOMEM, as the host's memory allows), not -1 (EINVAL). */
    id = shmget(IPC_PRIVATE, SIZE_MAX, IPC_CREAT | 0600);
    show_ok("shmget 4 GiB - 1", id);
    if (id >= 0)
        shmctl(id, IPC_RMID, NULL);
#else
    show_ok("shmget too big", shmget(IPC_PRIVATE, (size_t)1 << 62, IPC_CREAT | 0600));
#endif
#ifdef __i386__
    /* The 32-bit C library converts the structure itself: the kernel's
     * answer to a bad buffer only through the raw calls. */
    show_ok("shmctl bad buffer", syscall(SYS_shmctl, 0, IPC_STAT, (void *)8));
    show_ok("ipc shmctl bad buffer", syscall(SYS_ipc, 24, 0, IPC_STAT | 0x100, 0, (void *)8));
#else
    show_ok("shmctl bad buffer", shmctl(0, IPC_STAT, (void *)8));
#endif
    struct shminfo info;
    show_ok("IPC_INFO", shmctl(0, IPC_INFO, (struct shmid_ds *)&info));
}

/* ------------------------------------------------------------ sem */

union semun {
    int val;
    struct semid_ds *buf;
    unsigned short *array;
};

static void sem_tests(void)
{
    int id = semget(IPC_PRIVATE, 3, IPC_CREAT | 0600);
    show_ok("semget private 3", id);
    show("SETVAL 0 = 5", semctl(id, 0, SETVAL, (union semun){ .val = 5 }));
    show("GETVAL 0", semctl(id, 0, GETVAL));
    unsigned short vals[3] = { 1, 2, 3 }, got[3] = { 0 };
    show("SETALL 1 2 3", semctl(id, 0, SETALL, (union semun){ .array = vals }));
    show("GETALL", semctl(id, 0, GETALL, (union semun){ .array = got }));
    printf("values %u %u %u\n", got[0], got[1], got[2]);
    struct semid_ds ds;
    show("IPC_STAT", semctl(id, 0, IPC_STAT, (union semun){ .buf = &ds }));
    printf("nsems %lu\n", (unsigned long)ds.sem_nsems);
    struct sembuf ops[2] = { { 0, -1, 0 }, { 1, 2, 0 } };
    show("semop -1 +2", semop(id, ops, 2));
    show("GETVAL 0", semctl(id, 0, GETVAL));
    show("GETVAL 1", semctl(id, 1, GETVAL));
    struct sembuf take = { 2, -4, IPC_NOWAIT };
    show("semop would block", semop(id, &take, 1));
    struct timespec shortly = { 0, 20000000 };
    take.sem_flg = 0;
    show("semtimedop times out", semtimedop(id, &take, 1, &shortly));
    show("semop bad array", semop(id, (struct sembuf *)8, 1));

    /* A child blocks on the semaphore until the parent posts. */
    pid_t pid = fork();
    if (pid == 0) {
        struct sembuf wait = { 2, -4, 0 };
        _exit(semop(id, &wait, 1) == 0 ? 0 : 1); /* exit 0: it got the semaphore */
    }
    /* Wait until it sleeps on it (GETNCNT), then post. */
    for (int i = 0; i < 2000 && semctl(id, 2, GETNCNT) < 1; i++)
        usleep(1000);
    show("GETNCNT", semctl(id, 2, GETNCNT));
    struct sembuf post = { 2, 1, 0 };
    show("semop post", semop(id, &post, 1));
    show_child("waiting child", pid);
    show("GETVAL 2", semctl(id, 2, GETVAL));
    show("IPC_RMID", semctl(id, 0, IPC_RMID));
    show("semop after IPC_RMID", semop(id, &post, 1));
}

/* ------------------------------------------------------------ msg */

struct msg {
    long type;
    char text[32];
};

static void msg_tests(void)
{
    int id = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
    show_ok("msgget private", id);
    struct msg m = { 2, "second type" };
    show("msgsnd type 2", msgsnd(id, &m, strlen(m.text) + 1, 0));
    m.type = 1;
    strcpy(m.text, "first type, a longer text");
    show("msgsnd type 1", msgsnd(id, &m, strlen(m.text) + 1, 0));
    struct msqid_ds ds;
    show("IPC_STAT", msgctl(id, IPC_STAT, &ds));
    printf("qnum %lu, cbytes %lu\n", (unsigned long)ds.msg_qnum, (unsigned long)ds.__msg_cbytes);
    struct msg r;
    memset(&r, 0, sizeof(r));
    show("msgrcv type 2", msgrcv(id, &r, sizeof(r.text), 2, 0));
    printf("got type %ld: %s\n", r.type, r.text);
    show("msgrcv too small", msgrcv(id, &r, 5, 0, 0));
    memset(&r, 0, sizeof(r));
    show("msgrcv MSG_NOERROR", msgrcv(id, &r, 5, 0, MSG_NOERROR));
    printf("got type %ld: %.5s\n", r.type, r.text);
    show("msgrcv empty IPC_NOWAIT", msgrcv(id, &r, sizeof(r.text), 0, IPC_NOWAIT));
    show("msgsnd bad buffer", msgsnd(id, (void *)8, 4, 0));
    show("msgsnd type 0", msgsnd(id, &(struct msg){ 0, "x" }, 2, 0));
    show("IPC_RMID", msgctl(id, IPC_RMID, NULL));
    show("msgrcv after IPC_RMID", msgrcv(id, &r, sizeof(r.text), 0, 0));
}

/* ------------------------------------------------------------ mq */

static volatile sig_atomic_t mq_signal_code, mq_signal_value;

static void on_usr1(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    mq_signal_code = si->si_code;
    mq_signal_value = si->si_value.sival_int;
}

static volatile int thread_notified;

static void on_notify(union sigval v)
{
    thread_notified = v.sival_int;
}

static void mq_tests(void)
{
    char name[64];
    snprintf(name, sizeof(name), "/elfemu-ipc-test-%d", getpid());
    struct mq_attr attr = { .mq_maxmsg = 4, .mq_msgsize = 64 };
    mqd_t q = mq_open(name, O_CREAT | O_EXCL | O_RDWR, 0600, &attr);
    show_ok("mq_open O_CREAT", q);
    show_ok("mq_open O_EXCL again", mq_open(name, O_CREAT | O_EXCL | O_RDWR, 0600, &attr));
    show_ok("mq_open bad name", mq_open("no-slash/x", O_RDWR));
    show("mq_send prio 1", mq_send(q, "low", 4, 1));
    show("mq_send prio 9", mq_send(q, "high", 5, 9));
    struct mq_attr now;
    show("mq_getattr", mq_getattr(q, &now));
    printf("maxmsg %ld, msgsize %ld, curmsgs %ld\n", now.mq_maxmsg, now.mq_msgsize, now.mq_curmsgs);
    char buf[64];
    unsigned prio = 0;
    show("mq_receive", mq_receive(q, buf, sizeof(buf), &prio));
    printf("got %s prio %u\n", buf, prio);
    show("mq_receive small buffer", mq_receive(q, buf, 8, &prio));
    show("mq_receive", mq_receive(q, buf, sizeof(buf), NULL));
    printf("got %s\n", buf);
    struct timespec soon;
    clock_gettime(CLOCK_REALTIME, &soon);
    soon.tv_nsec += 20000000;
    if (soon.tv_nsec >= 1000000000) {
        soon.tv_sec++;
        soon.tv_nsec -= 1000000000;
    }
    show("mq_timedreceive empty", mq_timedreceive(q, buf, sizeof(buf), NULL, &soon));
    show("mq_send bad buffer", mq_send(q, (void *)8, 4, 0));

    /* Notification by signal: the value and SI_MESGQ come through. */
    struct sigaction sa = { .sa_sigaction = on_usr1, .sa_flags = SA_SIGINFO };
    sigaction(SIGUSR1, &sa, NULL);
    struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR1,
                           .sigev_value.sival_int = 42 };
    show("mq_notify SIGEV_SIGNAL", mq_notify(q, &ev));
    show("mq_notify twice", mq_notify(q, &ev));
    show("mq_send", mq_send(q, "ping", 5, 0));
    for (int i = 0; i < 2000 && !mq_signal_code; i++)
        usleep(1000);
    printf("signal: code %s, value %d\n", mq_signal_code == SI_MESGQ ? "SI_MESGQ" : "other",
           (int)mq_signal_value);
    show("mq_receive", mq_receive(q, buf, sizeof(buf), NULL));

    /* Notification in a thread: glibc's helper uses SIGEV_THREAD's cookie. */
    struct sigevent tev = { .sigev_notify = SIGEV_THREAD, .sigev_notify_function = on_notify,
                            .sigev_value.sival_int = 7 };
    show("mq_notify SIGEV_THREAD", mq_notify(q, &tev));
    show("mq_send", mq_send(q, "pong", 5, 0));
    for (int i = 0; i < 2000 && !thread_notified; i++)
        usleep(1000);
    printf("thread notified with %d\n", thread_notified);
    show("mq_notify NULL", mq_notify(q, NULL));
    show("mq_close", mq_close(q));
    show("mq_unlink", mq_unlink(name));
    show("mq_unlink again", mq_unlink(name));
}

/* ------------------------------------------------------------ pidfd */

static volatile sig_atomic_t self_signalled;

static void on_usr2(int sig)
{
    (void)sig;
    self_signalled = 1;
}

static void pidfd_tests(void)
{
    int pipefd[2];
    if (pipe(pipefd) != 0)
        return;
    pid_t pid = fork();
    if (pid == 0) {
        close(pipefd[0]);
        pause();
        _exit(0);
    }
    close(pipefd[1]);
    int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
    show_ok("pidfd_open child", pfd);
    show_ok("pidfd_open bad flags", syscall(SYS_pidfd_open, pid, 12345));
    int theirs = (int)syscall(SYS_pidfd_getfd, pfd, pipefd[1] /* same number in the child */, 0);
    show_ok("pidfd_getfd", theirs);
    if (theirs >= 0)
        printf("it is a pipe's write end: %s\n", write(theirs, "", 0) == 0 ? "yes" : "no");
    show_ok("pidfd_send_signal SIGTERM", syscall(SYS_pidfd_send_signal, pfd, SIGTERM, NULL, 0));
    siginfo_t si;
    memset(&si, 0, sizeof(si));
    show_ok("waitid P_PIDFD", waitid(P_PIDFD, (id_t)pfd, &si, WEXITED));
    printf("child: code %s, status %s\n", si.si_code == CLD_KILLED ? "CLD_KILLED" : "other",
           sigabbrev_np(si.si_status));
    show_ok("pidfd_send_signal bad flags", syscall(SYS_pidfd_send_signal, pfd, SIGTERM, NULL, 9));
    close(pfd);

    signal(SIGUSR2, on_usr2);
    int me = (int)syscall(SYS_pidfd_open, getpid(), 0);
    show_ok("pidfd_send_signal to self", syscall(SYS_pidfd_send_signal, me, SIGUSR2, NULL, 0));
    for (int i = 0; i < 2000 && !self_signalled; i++)
        usleep(1000);
    printf("handler ran: %s\n", self_signalled ? "yes" : "no");
    show_ok("pidfd_send_signal bad siginfo", syscall(SYS_pidfd_send_signal, me, SIGUSR2, 8, 0));
    close(me);
    if (theirs >= 0)
        close(theirs);
    close(pipefd[0]);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    shm_tests();
    sem_tests();
    msg_tests();
    mq_tests();
    pidfd_tests();
    return 0;
}
