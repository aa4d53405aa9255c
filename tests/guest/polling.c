/* Waiting for descriptors and the event descriptors, compared with the
 * native run: poll, ppoll, select, pselect6, epoll (level and edge
 * triggered, one-shot, the data round trip, the errors), eventfd, timerfd,
 * signalfd and inotify.  Only results, never times or descriptor numbers. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/select.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "show.h"

static void revents(const char *what, const struct pollfd *p, int n)
{
    printf("%s:", what);
    for (int i = 0; i < n; i++)
        printf(" %s%s%s%s%s", p[i].revents & POLLIN ? "IN" : "", p[i].revents & POLLOUT ? "OUT" : "",
               p[i].revents & POLLHUP ? "HUP" : "", p[i].revents & POLLERR ? "ERR" : "",
               p[i].revents & POLLNVAL ? "NVAL" : "");
    printf("\n");
}

static volatile sig_atomic_t got_usr1;

static void on_usr1(int sig)
{
    (void)sig;
    got_usr1++;
}

/* Send SIGUSR1 to the parent after ms milliseconds, from a child. */
static pid_t usr1_later(int ms)
{
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        usleep((useconds_t)ms * 1000);
        kill(parent, SIGUSR1);
        _exit(0);
    }
    return pid;
}

/* ------------------------------------------------------------ poll */

static void poll_tests(void)
{
    int p[2];
    if (pipe(p) != 0)
        return;
    struct pollfd f[3] = { { p[0], POLLIN, 0 }, { p[1], POLLOUT, 0 }, { 999, POLLIN, 0 } };
    show("poll pipe, empty", poll(f, 3, 0));
    revents("  revents", f, 3);
    show("write", write(p[1], "x", 1));
    show("poll pipe, one byte", poll(f, 2, 0));
    revents("  revents", f, 2);
    close(p[1]);
    f[0].events = POLLIN;
    show("poll after the writer closed", poll(f, 1, 0));
    revents("  revents", f, 1);
    char ch;
    show("read", read(p[0], &ch, 1));
    show("poll at EOF", poll(f, 1, 0));
    revents("  revents", f, 1);
    close(p[0]);
    show("poll of a closed fd", poll(f, 1, 0));
    revents("  revents", f, 1);
    struct pollfd neg = { -1, POLLIN, 7 };
    show("poll of fd -1", poll(&neg, 1, 0));
    printf("  revents %d\n", neg.revents);
    show("poll nothing, 10 ms", poll(NULL, 0, 10));
    show("poll bad array", syscall(SYS_poll, BAD, 1, 0));
    show("poll too many", syscall(SYS_poll, f, 1u << 30, 0));

    /* A signal interrupts a poll (never restarted). */
    struct sigaction sa = { .sa_handler = on_usr1, .sa_flags = SA_RESTART };
    sigaction(SIGUSR1, &sa, NULL);
    int q[2];
    if (pipe(q) != 0)
        return;
    struct pollfd wait = { q[0], POLLIN, 0 };
    pid_t kid = usr1_later(30);
    show("poll interrupted by SIGUSR1 (SA_RESTART)", poll(&wait, 1, 5000));
    waitpid(kid, NULL, 0);
    printf("  handler ran %d\n", (int)got_usr1);

    /* ppoll: the timeout comes back reduced; a mask that lets SIGUSR1 in. */
    struct timespec ts = { 0, 20000000 };
    /* The raw call: the kernel writes the time left back (glibc's wrapper
     * passes a copy). */
    show("ppoll 20 ms", syscall(SYS_ppoll, &wait, 1, &ts, NULL, 8));
    printf("  time left %s\n", ts.tv_sec == 0 && ts.tv_nsec == 0 ? "zero" : "not zero");
    sigset_t block, let;
    sigemptyset(&block);
    sigaddset(&block, SIGUSR1);
    sigprocmask(SIG_BLOCK, &block, NULL);
    sigemptyset(&let);
    kid = usr1_later(30);
    got_usr1 = 0;
    show("ppoll with SIGUSR1 let through", ppoll(&wait, 1, NULL, &let));
    waitpid(kid, NULL, 0);
    printf("  handler ran %d\n", (int)got_usr1);
    sigset_t now;
    sigprocmask(SIG_BLOCK, NULL, &now);
    printf("  SIGUSR1 blocked again after: %s\n", sigismember(&now, SIGUSR1) ? "yes" : "no");
    /* Pending before the call: ppoll returns at once. */
    raise(SIGUSR1);
    got_usr1 = 0;
    show("ppoll with SIGUSR1 already pending", ppoll(&wait, 1, NULL, &let));
    printf("  handler ran %d\n", (int)got_usr1);
    show("ppoll bad sigset size", syscall(SYS_ppoll, &wait, 1, NULL, &let, 4));
    struct timespec bad_ts = { 0, 1000000000 };
    show("ppoll bad timeout", ppoll(&wait, 1, &bad_ts, NULL));
    show("ppoll bad timeout pointer", syscall(SYS_ppoll, &wait, 1, BAD, NULL, 8));
    sigprocmask(SIG_UNBLOCK, &block, NULL);
    close(q[0]);
    close(q[1]);
}

/* ------------------------------------------------------------ select */

static void select_tests(void)
{
    int p[2];
    if (pipe(p) != 0)
        return;
    fd_set r, w;
    FD_ZERO(&r);
    FD_ZERO(&w);
    FD_SET(p[0], &r);
    FD_SET(p[1], &w);
    struct timeval tv = { 0, 0 };
    show("select, empty pipe", select(p[1] + 1, &r, &w, NULL, &tv));
    printf("  read set %d, write set %d\n", FD_ISSET(p[0], &r), FD_ISSET(p[1], &w));
    show("write", write(p[1], "yz", 2));
    FD_ZERO(&r);
    FD_SET(p[0], &r);
    show("select, two bytes", select(p[0] + 1, &r, NULL, NULL, NULL));
    printf("  read set %d\n", FD_ISSET(p[0], &r));
    tv.tv_sec = 0;
    tv.tv_usec = 20000;
    FD_ZERO(&r);
    int q[2];
    if (pipe(q) != 0)
        return;
    FD_SET(q[0], &r);
    show("select 20 ms on an empty pipe", select(q[0] + 1, &r, NULL, NULL, &tv));
    printf("  time left %s\n", tv.tv_sec == 0 && tv.tv_usec == 0 ? "zero" : "not zero");
    show("select negative nfds", select(-1, NULL, NULL, NULL, &tv));
    FD_ZERO(&r);
    FD_SET(q[0], &r);
    show("select bad set", select(q[0] + 1, BAD, NULL, NULL, NULL));
    fd_set closed;
    FD_ZERO(&closed);
    FD_SET(900, &closed);
    tv.tv_usec = 0;
    show("select of a closed fd", select(901, &closed, NULL, NULL, &tv));

    /* pselect6 with a mask letting SIGUSR1 through. */
    sigset_t block, let;
    sigemptyset(&block);
    sigaddset(&block, SIGUSR1);
    sigprocmask(SIG_BLOCK, &block, NULL);
    sigemptyset(&let);
    got_usr1 = 0;
    pid_t kid = usr1_later(30);
    FD_ZERO(&r);
    FD_SET(q[0], &r);
    show("pselect with SIGUSR1 let through", pselect(q[0] + 1, &r, NULL, NULL, NULL, &let));
    waitpid(kid, NULL, 0);
    printf("  handler ran %d\n", (int)got_usr1);
    struct timespec ts = { 0, 10000000 };
    FD_ZERO(&r);
    FD_SET(q[0], &r);
    show("pselect 10 ms", pselect(q[0] + 1, &r, NULL, NULL, &ts, NULL));
    struct {
        const sigset_t *ss;
        size_t len;
    } bad_sig = { &let, 4 };
    show("pselect6 bad sigset size", syscall(SYS_pselect6, 0, NULL, NULL, NULL, &ts, &bad_sig));
    show("pselect6 bad sig pointer", syscall(SYS_pselect6, 0, NULL, NULL, NULL, &ts, BAD));
    sigprocmask(SIG_UNBLOCK, &block, NULL);
    close(p[0]);
    close(p[1]);
    close(q[0]);
    close(q[1]);
}

/* ------------------------------------------------------------ epoll */

static void show_events(const char *what, int n, const struct epoll_event *ev)
{
    printf("%s: %d", what, n);
    if (n < 0)
        printf(" %s", strerrorname_np(errno));
    for (int i = 0; i < n; i++)
        printf(" [data %#llx%s%s%s]", (unsigned long long)ev[i].data.u64,
               ev[i].events & EPOLLIN ? " IN" : "", ev[i].events & EPOLLOUT ? " OUT" : "",
               ev[i].events & EPOLLHUP ? " HUP" : "");
    printf("\n");
}

static void epoll_tests(void)
{
    int ep = epoll_create1(EPOLL_CLOEXEC);
    show("epoll_create1 cloexec", ep >= 0 ? fcntl(ep, F_GETFD) : -1);
    show("epoll_create 0", epoll_create(0));
    show("epoll_create1 bad flags", epoll_create1(1));
    int p[2];
    if (pipe(p) != 0)
        return;
    struct epoll_event ev = { .events = EPOLLIN, .data.u64 = 0x1122334455667788ull };
    show("EPOLL_CTL_ADD level", epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev));
    show("EPOLL_CTL_ADD again", epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev));
    show("EPOLL_CTL_ADD bad fd", epoll_ctl(ep, EPOLL_CTL_ADD, 999, &ev));
    show("EPOLL_CTL_ADD itself", epoll_ctl(ep, EPOLL_CTL_ADD, ep, &ev));
    show("EPOLL_CTL_MOD not added", epoll_ctl(ep, EPOLL_CTL_MOD, p[1], &ev));
    show("EPOLL_CTL_ADD bad event", epoll_ctl(ep, EPOLL_CTL_ADD, p[1], BAD));
    show("epoll_ctl bad op", epoll_ctl(ep, 99, p[0], &ev));
    int regular = open("/proc/self/exe", O_RDONLY);
    show("EPOLL_CTL_ADD a regular file", epoll_ctl(ep, EPOLL_CTL_ADD, regular, &ev));
    close(regular);

    struct epoll_event out[4];
    show_events("wait, empty", epoll_wait(ep, out, 4, 0), out);
    show("write", write(p[1], "ab", 2));
    show_events("wait, level", epoll_wait(ep, out, 4, 0), out);
    show_events("wait, level again", epoll_wait(ep, out, 4, 0), out);

    ev.events = EPOLLIN | EPOLLET;
    ev.data.u64 = 0xfeedfacecafebeefull;
    show("EPOLL_CTL_MOD edge", epoll_ctl(ep, EPOLL_CTL_MOD, p[0], &ev));
    show_events("wait, edge", epoll_wait(ep, out, 4, 0), out);
    show_events("wait, edge again", epoll_wait(ep, out, 4, 0), out);
    show("write", write(p[1], "c", 1));
    show_events("wait, edge after a write", epoll_wait(ep, out, 4, 0), out);

    ev.events = EPOLLIN | EPOLLONESHOT;
    ev.data.u64 = 7;
    show("EPOLL_CTL_MOD oneshot", epoll_ctl(ep, EPOLL_CTL_MOD, p[0], &ev));
    show_events("wait, oneshot", epoll_wait(ep, out, 4, 0), out);
    show_events("wait, oneshot again", epoll_wait(ep, out, 4, 0), out);

    ev.events = EPOLLOUT;
    ev.data.u64 = 9;
    show("EPOLL_CTL_ADD writer", epoll_ctl(ep, EPOLL_CTL_ADD, p[1], &ev));
    show_events("wait, writer", epoll_wait(ep, out, 4, 10), out);
    show("EPOLL_CTL_DEL", epoll_ctl(ep, EPOLL_CTL_DEL, p[1], NULL));
    show("EPOLL_CTL_DEL again", epoll_ctl(ep, EPOLL_CTL_DEL, p[1], NULL));
    show_events("wait 10 ms, nothing", epoll_wait(ep, out, 4, 10), out);
    show_events("wait bad maxevents", epoll_wait(ep, out, 0, 0), out);
    show_events("wait bad array", (int)syscall(SYS_epoll_wait, ep, BAD, 4, 0), out);
    show_events("wait not an epoll fd", epoll_wait(p[0], out, 4, 0), out);

    /* epoll_pwait lets SIGUSR1 in; epoll_wait is never restarted. */
    ev.events = EPOLLIN;
    ev.data.u64 = 1;
    show("EPOLL_CTL_MOD level", epoll_ctl(ep, EPOLL_CTL_MOD, p[0], &ev));
    char buf[8];
    show("read", read(p[0], buf, sizeof(buf)));
    sigset_t block, let;
    sigemptyset(&block);
    sigaddset(&block, SIGUSR1);
    sigprocmask(SIG_BLOCK, &block, NULL);
    sigemptyset(&let);
    got_usr1 = 0;
    pid_t kid = usr1_later(30);
    show_events("epoll_pwait with SIGUSR1 let through", epoll_pwait(ep, out, 4, 5000, &let), out);
    waitpid(kid, NULL, 0);
    printf("  handler ran %d\n", (int)got_usr1);
    sigprocmask(SIG_UNBLOCK, &block, NULL);
    /* epoll_pwait2 takes the 64-bit __kernel_timespec on every ABI. */
    struct { long long sec, nsec; } ts = { 0, 10000000 };
    show_events("epoll_pwait2 10 ms", (int)syscall(SYS_epoll_pwait2, ep, out, 4, &ts, NULL, 8), out);
    close(p[1]);
    show_events("wait after the writer closed", epoll_wait(ep, out, 4, 0), out);
    close(p[0]);
    close(ep);
}

/* ------------------------------------------------------------ event fds */

static void eventfd_tests(void)
{
    int e = eventfd(3, EFD_NONBLOCK);
    uint64_t v = 0;
    show("eventfd read", read(e, &v, 8));
    printf("  value %llu\n", (unsigned long long)v);
    show("eventfd read empty", read(e, &v, 8));
    v = 5;
    show("eventfd write 5", write(e, &v, 8));
    v = 2;
    show("eventfd write 2", write(e, &v, 8));
    show("eventfd read", read(e, &v, 8));
    printf("  value %llu\n", (unsigned long long)v);
    show("eventfd short read", read(e, &v, 4));
    v = ~0ull;
    show("eventfd write ~0", write(e, &v, 8));
    close(e);
    int s = eventfd(2, EFD_SEMAPHORE | EFD_NONBLOCK);
    show("semaphore read", read(s, &v, 8));
    printf("  value %llu\n", (unsigned long long)v);
    show("semaphore read", read(s, &v, 8));
    show("semaphore read empty", read(s, &v, 8));
    struct pollfd f = { s, POLLIN | POLLOUT, 0 };
    show("poll the semaphore", poll(&f, 1, 0));
    revents("  revents", &f, 1);
    close(s);
    show("eventfd bad flags", eventfd(0, 12345));

    int t = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
    show("timerfd_create cloexec", t >= 0 ? fcntl(t, F_GETFD) : -1);
    struct itimerspec its = { .it_value = { 0, 5000000 } }, old;
    show("timerfd_settime 5 ms", timerfd_settime(t, 0, &its, &old));
    printf("  old value %lld\n", (long long)(old.it_value.tv_sec + old.it_value.tv_nsec));
    uint64_t n = 0;
    show("timerfd read (blocks until it fires)", read(t, &n, 8));
    printf("  expirations %s\n", n >= 1 ? ">= 1" : "0");
    struct itimerspec cur;
    show("timerfd_gettime", timerfd_gettime(t, &cur));
    printf("  disarmed %s\n", cur.it_value.tv_sec == 0 && cur.it_value.tv_nsec == 0 ? "yes" : "no");
    its.it_value.tv_nsec = 1000000000;
    show("timerfd_settime bad nsec", timerfd_settime(t, 0, &its, NULL));
    /* Raw calls: a 32-bit C library converts the structures itself. */
    show("timerfd_settime bad pointer", syscall(SYS_timerfd_settime, t, 0, BAD, NULL));
    show("timerfd_gettime bad pointer", syscall(SYS_timerfd_gettime, t, BAD));
    close(t);
    show("timerfd_create bad clock", timerfd_create(77, 0));
}

/* ------------------------------------------------------------ signalfd */

static void signalfd_tests(void)
{
    sigset_t m;
    sigemptyset(&m);
    sigaddset(&m, SIGUSR2);
    sigaddset(&m, SIGRTMIN + 2);
    sigprocmask(SIG_BLOCK, &m, NULL);
    int sfd = signalfd(-1, &m, SFD_NONBLOCK | SFD_CLOEXEC);
    show("signalfd", sfd >= 0 ? 0 : -1);
    struct signalfd_siginfo si;
    show("read, nothing pending", read(sfd, &si, sizeof(si)));
    raise(SIGUSR2);
    union sigval val = { .sival_int = 1234 };
    sigqueue(getpid(), SIGRTMIN + 2, val);
    struct pollfd f = { sfd, POLLIN, 0 };
    show("poll the signalfd", poll(&f, 1, 0));
    revents("  revents", &f, 1);
    for (int i = 0; i < 2; i++) {
        memset(&si, 0, sizeof(si));
        show("read", read(sfd, &si, sizeof(si)));
        printf("  signo %s, code %s, pid is mine %s, int %d\n",
               si.ssi_signo == SIGUSR2 ? "SIGUSR2" : si.ssi_signo == (unsigned)SIGRTMIN + 2 ? "SIGRTMIN+2" : "?",
               si.ssi_code == SI_TKILL ? "SI_TKILL" : si.ssi_code == SI_QUEUE ? "SI_QUEUE" : "other",
               si.ssi_pid == (uint32_t)getpid() ? "yes" : "no", si.ssi_int);
    }
    show("read, short buffer", read(sfd, &si, 10));
    show("signalfd bad size", syscall(SYS_signalfd4, -1, &m, 4, 0));
    show("signalfd bad mask", syscall(SYS_signalfd4, -1, BAD, 8, 0));
    show("signalfd not a signalfd", signalfd(0, &m, 0));
    close(sfd);
    sigprocmask(SIG_UNBLOCK, &m, NULL);
}

/* The daemon pattern: SIGCHLD blocked and read through a signalfd that sits
 * in an epoll set next to a pipe, the wait blocking until another process
 * acts (the child writes, then exits with a status). */
static void sigchld_epoll_tests(void)
{
    sigset_t m;
    sigemptyset(&m);
    sigaddset(&m, SIGCHLD);
    sigprocmask(SIG_BLOCK, &m, NULL);
    int sfd = signalfd(-1, &m, SFD_NONBLOCK);
    int p[2];
    if (sfd < 0 || pipe(p) != 0)
        return;
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = { .events = EPOLLIN, .data.u64 = 0x1122334455667788ull };
    show("add the signalfd", epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &ev));
    ev.data.u64 = 0xa5a5a5a5deadbeefull;
    show("add the pipe", epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev));
    pid_t pid = fork();
    if (pid == 0) {
        usleep(20000);
        if (write(p[1], "x", 1) != 1)
            _exit(1);
        usleep(20000);
        _exit(7);
    }
    close(p[1]);
    bool got_pipe = false, got_sig = false;
    while (!got_sig) {
        struct epoll_event out[2];
        int n = epoll_wait(ep, out, 2, 10000);
        if (n <= 0) {
            show("epoll_wait", n);
            break;
        }
        for (int i = 0; i < n; i++) {
            if (out[i].data.u64 == 0xa5a5a5a5deadbeefull && !got_pipe) {
                char ch;
                got_pipe = read(p[0], &ch, 1) == 1;
                printf("pipe event, read %c\n", got_pipe ? ch : '?');
            } else if (out[i].data.u64 == 0x1122334455667788ull) {
                struct signalfd_siginfo si;
                show("signalfd read", read(sfd, &si, sizeof(si)));
                printf("  signo %s, code %s, pid is the child %s, status %d\n",
                       si.ssi_signo == SIGCHLD ? "SIGCHLD" : "?",
                       si.ssi_code == CLD_EXITED ? "CLD_EXITED" : "other",
                       si.ssi_pid == (uint32_t)pid ? "yes" : "no", si.ssi_status);
                got_sig = true;
            }
        }
    }
    int st = 0;
    show("waitpid", waitpid(pid, &st, 0) == pid ? 0 : -1);
    printf("  exit status %d\n", WEXITSTATUS(st));
    close(ep);
    close(p[0]);
    close(sfd);
    sigprocmask(SIG_UNBLOCK, &m, NULL);
}

/* ------------------------------------------------------------ inotify */

static void show_inotify(int fd)
{
    char buf[4096] __attribute__((aligned(8)));
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0) {
        printf("  read: -1 %s\n", strerrorname_np(errno));
        return;
    }
    for (char *p = buf; p < buf + n;) {
        struct inotify_event *e = (struct inotify_event *)p;
        printf("  event%s%s%s%s%s %s\n", e->mask & IN_CREATE ? " CREATE" : "",
               e->mask & IN_MODIFY ? " MODIFY" : "", e->mask & IN_CLOSE_WRITE ? " CLOSE_WRITE" : "",
               e->mask & IN_DELETE ? " DELETE" : "", e->mask & IN_ISDIR ? " ISDIR" : "",
               e->len ? e->name : "(self)");
        p += sizeof(*e) + e->len;
    }
}

static void inotify_tests(void)
{
    char dir[] = "/tmp/elfemu-polling-XXXXXX";
    if (!mkdtemp(dir))
        return;
    int in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    show("inotify_init1", in >= 0 ? 0 : -1);
    int wd = inotify_add_watch(in, dir, IN_CREATE | IN_MODIFY | IN_CLOSE_WRITE | IN_DELETE);
    show("inotify_add_watch", wd >= 0 ? 0 : -1);
    show("inotify_add_watch missing", inotify_add_watch(in, "/nonexistent/x", IN_CREATE));
    show("inotify_add_watch bad path", inotify_add_watch(in, BAD, IN_CREATE));
    show("inotify_add_watch no events", inotify_add_watch(in, dir, 0));
    char path[64];
    snprintf(path, sizeof(path), "%s/file", dir);
    int fd = open(path, O_CREAT | O_WRONLY, 0600);
    show("write", write(fd, "hello", 5));
    close(fd);
    snprintf(path, sizeof(path), "%s/sub", dir);
    mkdir(path, 0700);
    rmdir(path);
    snprintf(path, sizeof(path), "%s/file", dir);
    unlink(path);
    struct pollfd f = { in, POLLIN, 0 };
    show("poll the inotify fd", poll(&f, 1, 0));
    show_inotify(in);
    show_inotify(in);
    show("inotify_rm_watch", inotify_rm_watch(in, wd));
    show("inotify_rm_watch again", inotify_rm_watch(in, wd));
    close(in);
    rmdir(dir);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    poll_tests();
    select_tests();
    epoll_tests();
    eventfd_tests();
    signalfd_tests();
    sigchld_epoll_tests();
    inotify_tests();
    return 0;
}
