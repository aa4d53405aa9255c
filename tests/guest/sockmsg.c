/* Control messages and the option values whose layout depends on the ABI
 * (built for x86_64 and with -m32): SCM_RIGHTS into control buffers of every
 * size around the fit (MSG_CTRUNC, msg_controllen, how many descriptors
 * arrive), SCM_CREDENTIALS, SO_TIMESTAMP/SO_TIMESTAMPNS/SO_TIMESTAMPING
 * messages, malformed control buffers on send, SO_RCVTIMEO and
 * SO_ATTACH_FILTER values, mmsg calls with control messages and the
 * recvmmsg timeout.  On i386 the calls are also made directly through
 * socketcall(2) and the direct syscall numbers, whatever glibc picks.
 * Prints facts only, so the native run is the expected output. */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/net_tstamp.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "show.h"

/* The raw calls: on i386 through socketcall when asked, else direct. */
static int use_socketcall;

static long do_sendmsg(int fd, struct msghdr *m, int flags)
{
#ifdef __i386__
    if (use_socketcall) {
        unsigned long args[3] = { (unsigned long)fd, (unsigned long)m, (unsigned long)flags };
        return syscall(SYS_socketcall, 16, args);
    }
#endif
    return syscall(SYS_sendmsg, fd, m, flags);
}

static long do_recvmsg(int fd, struct msghdr *m, int flags)
{
#ifdef __i386__
    if (use_socketcall) {
        unsigned long args[3] = { (unsigned long)fd, (unsigned long)m, (unsigned long)flags };
        return syscall(SYS_socketcall, 17, args);
    }
#endif
    return syscall(SYS_recvmsg, fd, m, flags);
}

static long do_setsockopt(int fd, int level, int name, const void *v, socklen_t len)
{
#ifdef __i386__
    if (use_socketcall) {
        unsigned long args[5] = { (unsigned long)fd, (unsigned long)level, (unsigned long)name,
                                  (unsigned long)v, len };
        return syscall(SYS_socketcall, 14, args);
    }
#endif
    return syscall(SYS_setsockopt, fd, level, name, v, len);
}

static long do_getsockopt(int fd, int level, int name, void *v, socklen_t *len)
{
#ifdef __i386__
    if (use_socketcall) {
        unsigned long args[5] = { (unsigned long)fd, (unsigned long)level, (unsigned long)name,
                                  (unsigned long)v, (unsigned long)len };
        return syscall(SYS_socketcall, 15, args);
    }
#endif
    return syscall(SYS_getsockopt, fd, level, name, v, len);
}

/* A control buffer, aligned for either ABI's cmsghdr. */
static union {
    char buf[1024];
    struct cmsghdr align;
} ctl;

/* Every control message of a received msghdr. */
static void show_cmsgs(struct msghdr *m)
{
    printf("  controllen %zu, flags %#x\n", (size_t)m->msg_controllen, m->msg_flags);
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(m); cm; cm = CMSG_NXTHDR(m, cm)) {
        printf("  cmsg level %d type %d len %zu", cm->cmsg_level, cm->cmsg_type,
               (size_t)cm->cmsg_len);
        if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
            size_t n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            for (size_t i = 0; i < n; i++) {
                int fd;
                memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
                char b[16] = { 0 };
                /* Each passed fd is a pipe's read end holding its number. */
                printf(" fd%zu reads \"%s\"", i, read(fd, b, sizeof(b) - 1) > 0 ? b : "?");
                close(fd);
            }
        }
        printf("\n");
    }
}

/* SCM_RIGHTS of three descriptors received into buffers of each length
 * from 0 to beyond the full message. */
static void rights(void)
{
    int sv[2];
    socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
    for (size_t room = 0; room <= CMSG_SPACE(3 * sizeof(int)) + 4; room += 2) {
        int fds[3];
        for (int i = 0; i < 3; i++) {
            int p[2];
            pipe(p);
            char b[8];
            snprintf(b, sizeof(b), "p%d", i);
            write(p[1], b, strlen(b));
            close(p[1]);
            fds[i] = p[0];
        }
        memset(&ctl, 0, sizeof(ctl));
        struct iovec iov = { "d", 1 };
        struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
                            .msg_controllen = CMSG_SPACE(sizeof(fds)) };
        struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN(sizeof(fds));
        memcpy(CMSG_DATA(cm), fds, sizeof(fds));
        long r = do_sendmsg(sv[0], &m, 0);
        for (int i = 0; i < 3; i++)
            close(fds[i]);
        memset(&ctl, 0x55, sizeof(ctl));
        char d;
        struct iovec riov = { &d, 1 };
        struct msghdr rm = { .msg_iov = &riov, .msg_iovlen = 1, .msg_control = ctl.buf,
                             .msg_controllen = room };
        int before = dup(0);
        close(before);
        long n = do_recvmsg(sv[1], &rm, MSG_CMSG_CLOEXEC);
        printf("room %zu: sent %ld, received %ld\n", room, r, n);
        show_cmsgs(&rm);
        int after = dup(0);
        printf("  no descriptor left over %d\n", after == before);
        close(after);
    }
    /* A NULL control buffer with a length. */
    int p[2];
    pipe(p);
    char cbuf[CMSG_SPACE(sizeof(int))];
    struct iovec iov = { "d", 1 };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
                        .msg_controllen = sizeof(cbuf) };
    struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cm), &p[0], sizeof(int));
    SHOW("sendmsg one fd", do_sendmsg(sv[0], &m, 0));
    char d;
    struct iovec riov = { &d, 1 };
    struct msghdr rm = { .msg_iov = &riov, .msg_iovlen = 1, .msg_control = NULL,
                         .msg_controllen = 64 };
    SHOW("recvmsg NULL control", do_recvmsg(sv[1], &rm, 0));
    printf("  controllen %zu, MSG_CTRUNC %d\n", (size_t)rm.msg_controllen,
           (rm.msg_flags & MSG_CTRUNC) != 0);
    /* A control buffer that cannot be written: the fd is not passed. */
    SHOW("sendmsg one fd", do_sendmsg(sv[0], &m, 0));
    rm.msg_control = bad_ptr();
    rm.msg_controllen = 64;
    SHOW("recvmsg bad control", do_recvmsg(sv[1], &rm, 0));
    printf("  controllen %zu, MSG_CTRUNC %d\n", (size_t)rm.msg_controllen,
           (rm.msg_flags & MSG_CTRUNC) != 0);
    close(p[0]);
    close(p[1]);

    /* Malformed control buffers on send. */
    memset(cbuf, 0, sizeof(cbuf));
    m.msg_controllen = sizeof(cbuf);
    cm->cmsg_len = 4; /* shorter than a header */
    SHOW("sendmsg cmsg_len 4", do_sendmsg(sv[0], &m, 0));
    cm->cmsg_len = sizeof(cbuf) + 8; /* beyond the buffer */
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    SHOW("sendmsg cmsg_len too long", do_sendmsg(sv[0], &m, 0));
    m.msg_controllen = 8;
    SHOW("sendmsg controllen 8", do_sendmsg(sv[0], &m, 0));
    m.msg_control = bad_ptr();
    m.msg_controllen = 16;
    SHOW("sendmsg bad control", do_sendmsg(sv[0], &m, 0));
    SHOW("sendmsg bad control EBADF first", do_sendmsg(999, &m, 0));
    m.msg_control = cbuf;
    m.msg_controllen = 0x80000000u;
    SHOW("sendmsg controllen > INT_MAX", do_sendmsg(sv[0], &m, 0));
    SHOW("nothing was sent", recv(sv[1], &d, 1, MSG_DONTWAIT));
    close(sv[0]);
    close(sv[1]);
}

static void credentials(void)
{
    int sv[2], on = 1;
    socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
    SHOW("SO_PASSCRED", do_setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)));
    for (size_t room = 8; room <= CMSG_SPACE(sizeof(struct ucred)) + 4; room += 4) {
        send(sv[0], "c", 1, 0);
        memset(&ctl, 0, sizeof(ctl));
        char d;
        struct iovec iov = { &d, 1 };
        struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
                            .msg_controllen = room };
        SHOW("recvmsg credentials", do_recvmsg(sv[1], &m, 0));
        printf("  room %zu, controllen %zu, MSG_CTRUNC %d\n", room, (size_t)m.msg_controllen,
               (m.msg_flags & MSG_CTRUNC) != 0);
        struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
        if (cm && cm->cmsg_len >= CMSG_LEN(sizeof(struct ucred))) {
            struct ucred u;
            memcpy(&u, CMSG_DATA(cm), sizeof(u));
            printf("  type %d, ours %d\n", cm->cmsg_type,
                   u.pid == getpid() && u.uid == getuid() && u.gid == getgid());
        } else if (cm) {
            printf("  type %d, len %zu\n", cm->cmsg_type, (size_t)cm->cmsg_len);
        }
    }
    /* Explicit credentials with a second message after them. */
    struct ucred u = { getpid(), getuid(), getgid() };
    int p[2];
    pipe(p);
    write(p[1], "cr", 2);
    memset(&ctl, 0, sizeof(ctl));
    struct iovec iov = { "x", 1 };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
                        .msg_controllen = CMSG_SPACE(sizeof(u)) + CMSG_SPACE(sizeof(int)) };
    struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_CREDENTIALS;
    cm->cmsg_len = CMSG_LEN(sizeof(u));
    memcpy(CMSG_DATA(cm), &u, sizeof(u));
    cm = CMSG_NXTHDR(&m, cm);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cm), &p[0], sizeof(int));
    SHOW("sendmsg credentials and a fd", do_sendmsg(sv[0], &m, 0));
    close(p[0]);
    close(p[1]);
    memset(&ctl, 0, sizeof(ctl));
    char d;
    struct iovec riov = { &d, 1 };
    struct msghdr rm = { .msg_iov = &riov, .msg_iovlen = 1, .msg_control = ctl.buf,
                         .msg_controllen = sizeof(ctl.buf) };
    SHOW("recvmsg both", do_recvmsg(sv[1], &rm, 0));
    show_cmsgs(&rm);
    close(sv[0]);
    close(sv[1]);
}

/* A timestamp is shown as its message's size and whether it is within a
 * minute of now. */
static void timestamps(void)
{
    int r = socket(AF_INET, SOCK_DGRAM, 0), s = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof(sin);
    bind(r, (struct sockaddr *)&sin, sizeof(sin));
    getsockname(r, (struct sockaddr *)&sin, &len);
    int on = 1;
    /* Linux turns receive timestamps on for the whole system a moment
     * after the first socket asks (deferred work): a socket keeps them on
     * for the section, and a datagram to it shows when they are on. */
    int keep = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in ksin = sin;
    ksin.sin_port = 0;
    bind(keep, (struct sockaddr *)&ksin, sizeof(ksin));
    len = sizeof(ksin);
    getsockname(keep, (struct sockaddr *)&ksin, &len);
    setsockopt(keep, SOL_SOCKET, SO_TIMESTAMP, &on, sizeof(on));
    for (int i = 0; i < 400; i++) {
        sendto(s, "k", 1, 0, (struct sockaddr *)&ksin, sizeof(ksin));
        char d;
        struct iovec iov = { &d, 1 };
        struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
                            .msg_controllen = sizeof(ctl.buf) };
        if (recvmsg(keep, &m, 0) == 1 && CMSG_FIRSTHDR(&m) && CMSG_FIRSTHDR(&m)->cmsg_len > 0 &&
            ((struct timeval *)CMSG_DATA(CMSG_FIRSTHDR(&m)))->tv_sec != 0)
            break;
        usleep(5000);
    }
    int ts_flags = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
    struct {
        const char *name;
        int opt;
        const void *val;
    } kinds[] = { { "SO_TIMESTAMP", SO_TIMESTAMP, &on },
                  { "SO_TIMESTAMPNS", SO_TIMESTAMPNS, &on } };
    /* SO_TIMESTAMPING's receive timestamps come and go natively too: only
     * the option itself is compared. */
    SHOW("SO_TIMESTAMPING", do_setsockopt(r, SOL_SOCKET, SO_TIMESTAMPING, &ts_flags, sizeof(int)));
    int got = 0;
    socklen_t glen = sizeof(got);
    SHOW("get SO_TIMESTAMPING", do_getsockopt(r, SOL_SOCKET, SO_TIMESTAMPING, &got, &glen));
    printf("  flags %#x len %u\n", got, (unsigned)glen);
    ts_flags = 0;
    do_setsockopt(r, SOL_SOCKET, SO_TIMESTAMPING, &ts_flags, sizeof(int));
    for (int k = 0; k < 2; k++) {
        SHOW(kinds[k].name, do_setsockopt(r, SOL_SOCKET, kinds[k].opt, kinds[k].val, sizeof(int)));
        size_t rooms[] = { sizeof(ctl.buf), CMSG_SPACE(4), CMSG_LEN(0) + 2 };
        for (int i = 0; i < 3; i++) {
            sendto(s, "t", 1, 0, (struct sockaddr *)&sin, sizeof(sin));
            memset(&ctl, 0, sizeof(ctl));
            char d;
            struct iovec iov = { &d, 1 };
            struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
                                .msg_controllen = rooms[i] };
            long n = do_recvmsg(r, &m, 0);
            printf("%s room %zu: %ld, controllen %zu, MSG_CTRUNC %d\n", kinds[k].name, rooms[i], n,
                   (size_t)m.msg_controllen, (m.msg_flags & MSG_CTRUNC) != 0);
            struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
            if (!cm)
                continue;
            printf("  type %d len %zu", cm->cmsg_type, (size_t)cm->cmsg_len);
            time_t now = time(NULL), t = 0;
            if (cm->cmsg_type == SO_TIMESTAMP && cm->cmsg_len >= CMSG_LEN(sizeof(struct timeval))) {
                struct timeval tv;
                memcpy(&tv, CMSG_DATA(cm), sizeof(tv));
                t = tv.tv_sec;
                printf(" usec valid %d", tv.tv_usec >= 0 && tv.tv_usec < 1000000);
            } else if (cm->cmsg_len >= CMSG_LEN(sizeof(struct timespec))) {
                struct timespec ts;
                memcpy(&ts, CMSG_DATA(cm), sizeof(ts));
                t = ts.tv_sec;
                printf(" nsec valid %d", ts.tv_nsec >= 0 && ts.tv_nsec < 1000000000);
            }
            printf(" recent %d\n", t > now - 60 && t <= now + 1);
        }
        int off = 0;
        do_setsockopt(r, SOL_SOCKET, kinds[k].opt, &off, sizeof(off));
    }
    close(keep);
    close(r);
    close(s);
}

static void options(void)
{
    int sv[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    struct timeval tv = { 3, 250000 }, got;
    SHOW("SO_RCVTIMEO", do_setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
    SHOW("SO_RCVTIMEO 4 bytes", do_setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, 4));
    SHOW("SO_RCVTIMEO bad pointer", do_setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, bad_ptr(), sizeof(tv)));
    SHOW("SO_SNDTIMEO big", do_setsockopt(sv[0], SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv) + 8));
    socklen_t len = sizeof(got);
    memset(&got, 0, sizeof(got));
    SHOW("get SO_RCVTIMEO", do_getsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &got, &len));
    printf("  %ld.%06ld len %u\n", (long)got.tv_sec, (long)got.tv_usec, (unsigned)len);
    len = sizeof(got) + 8;
    SHOW("get SO_SNDTIMEO long", do_getsockopt(sv[0], SOL_SOCKET, SO_SNDTIMEO, &got, &len));
    printf("  %ld.%06ld len %u\n", (long)got.tv_sec, (long)got.tv_usec, (unsigned)len);
    unsigned char raw[16];
    memset(raw, 0xaa, sizeof(raw));
    len = 3;
    SHOW("get SO_RCVTIMEO 3 bytes", do_getsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, raw, &len));
    printf("  len %u, %02x %02x %02x %02x\n", (unsigned)len, raw[0], raw[1], raw[2], raw[3]);
    len = (socklen_t)-1;
    SHOW("get SO_RCVTIMEO negative", do_getsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, raw, &len));
    len = sizeof(got);
    SHOW("get SO_RCVTIMEO bad value", do_getsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, bad_ptr(), &len));
    SHOW("get SO_RCVTIMEO EBADF", do_getsockopt(999, SOL_SOCKET, SO_RCVTIMEO, &got, &len));
    /* The timeout works: a read with nothing to read waits and fails. */
    tv = (struct timeval){ 0, 20000 };
    do_setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    char c;
    SHOW("recv times out", recv(sv[0], &c, 1, 0));

    struct sock_filter four[] = { BPF_STMT(BPF_RET | BPF_K, 4) };
    struct sock_fprog prog = { 1, four };
    int d[2];
    socketpair(AF_UNIX, SOCK_DGRAM, 0, d);
    SHOW("SO_ATTACH_FILTER", do_setsockopt(d[1], SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)));
    SHOW("SO_ATTACH_FILTER length 16", do_setsockopt(d[1], SOL_SOCKET, SO_ATTACH_FILTER, &prog, 16));
    SHOW("SO_ATTACH_FILTER length 8", do_setsockopt(d[1], SOL_SOCKET, SO_ATTACH_FILTER, &prog, 8));
    send(d[0], "filtered", 8, 0);
    char buf[16] = { 0 };
    SHOW("recv", recv(d[1], buf, sizeof(buf), 0));
    printf("got: %s\n", buf);
    close(d[0]);
    close(d[1]);
    close(sv[0]);
    close(sv[1]);
}

static void mmsg(void)
{
    int sv[2], on = 1;
    socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
    setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &on, sizeof(on));
    struct iovec iov[3] = { { "one", 3 }, { "two", 3 }, { "three", 5 } };
    struct mmsghdr om[3];
    memset(om, 0, sizeof(om));
    for (int i = 0; i < 3; i++) {
        om[i].msg_hdr.msg_iov = &iov[i];
        om[i].msg_hdr.msg_iovlen = 1;
    }
    SHOW("sendmmsg", sendmmsg(sv[0], om, 3, 0));
    union {
        char b[CMSG_SPACE(sizeof(struct ucred))];
        struct cmsghdr align;
    } c3[3];
    char data[3][8];
    struct iovec riov[3];
    struct mmsghdr im[3];
    memset(im, 0, sizeof(im));
    memset(data, 0, sizeof(data));
    for (int i = 0; i < 3; i++) {
        riov[i] = (struct iovec){ data[i], sizeof(data[i]) };
        im[i].msg_hdr.msg_iov = &riov[i];
        im[i].msg_hdr.msg_iovlen = 1;
        im[i].msg_hdr.msg_control = c3[i].b;
        /* The second has no room for the credentials. */
        im[i].msg_hdr.msg_controllen = i == 1 ? 4 : sizeof(c3[i].b);
    }
    struct timespec ts = { 5, 0 };
    SHOW("recvmmsg with credentials", recvmmsg(sv[1], im, 3, 0, &ts));
    for (int i = 0; i < 3; i++) {
        struct cmsghdr *cm = CMSG_FIRSTHDR(&im[i].msg_hdr);
        printf("  %s len %u controllen %zu ctrunc %d cred %d\n", data[i], im[i].msg_len,
               (size_t)im[i].msg_hdr.msg_controllen, (im[i].msg_hdr.msg_flags & MSG_CTRUNC) != 0,
               cm && cm->cmsg_type == SCM_CREDENTIALS);
    }
    printf("  time left: %d\n", ts.tv_sec <= 5 && ts.tv_sec >= 4);
#ifdef __i386__
    /* The time32 recvmmsg (337) and socketcall's RECVMMSG take a 32-bit
     * timespec, and update it. */
    struct {
        int32_t sec, nsec;
    } t32 = { 0, 20000000 };
    SHOW("recvmmsg time32 nothing there", syscall(337, sv[1], im, 3, MSG_DONTWAIT, &t32));
    sendmmsg(sv[0], om, 2, 0);
    t32.sec = 7;
    t32.nsec = 0;
    SHOW("recvmmsg time32", syscall(337, sv[1], im, 3, MSG_WAITFORONE, &t32));
    printf("  time left: %d\n", t32.sec <= 7 && t32.sec >= 6);
    t32.nsec = 2000000000;
    SHOW("recvmmsg time32 bad nsec", syscall(337, sv[1], im, 3, 0, &t32));
    SHOW("recvmmsg time32 bad pointer", syscall(337, sv[1], im, 3, 0, bad_ptr()));
    sendmmsg(sv[0], om, 1, 0);
    t32.sec = 3;
    t32.nsec = 0;
    unsigned long args[5] = { (unsigned long)sv[1], (unsigned long)im, 3, MSG_WAITFORONE,
                              (unsigned long)&t32 };
    SHOW("socketcall recvmmsg", syscall(SYS_socketcall, 19, args));
    printf("  time left: %d\n", t32.sec <= 3 && t32.sec >= 2);
    unsigned long sargs[4] = { (unsigned long)sv[0], (unsigned long)om, 3, 0 };
    SHOW("socketcall sendmmsg", syscall(SYS_socketcall, 20, sargs));
    /* time64: a 64-bit tv_sec; the word after tv_nsec is padding. */
    struct {
        int64_t sec;
        int32_t nsec, pad;
    } t64 = { 9, 0, -1 };
    SHOW("recvmmsg time64", syscall(417, sv[1], im, 3, 0, &t64));
    printf("  time left: %d, pad %d\n", t64.sec <= 9 && t64.sec >= 8, t64.pad);
    t64.nsec = -1;
    SHOW("recvmmsg time64 negative nsec", syscall(417, sv[1], im, 3, 0, &t64));
#else
    SHOW("recvmmsg bad timeout pointer", syscall(SYS_recvmmsg, sv[1], im, 3, 0, bad_ptr()));
#endif
    close(sv[0]);
    close(sv[1]);
}

#ifdef __i386__
/* socketcall itself: its call numbers and its argument array. */
static void socketcall_edges(void)
{
    unsigned long args[6] = { AF_UNIX, SOCK_STREAM, 0, 0, 0, 0 };
    SHOW("socketcall 0", syscall(SYS_socketcall, 0, args));
    SHOW("socketcall 21", syscall(SYS_socketcall, 21, args));
    SHOW("socketcall -1", syscall(SYS_socketcall, -1, args));
    SHOW("socketcall bad args", syscall(SYS_socketcall, 1, bad_ptr()));
    SHOW("socketcall NULL args", syscall(SYS_socketcall, 4, NULL));
    long fd = syscall(SYS_socketcall, 1, args);
    printf("socketcall socket: %d\n", fd >= 0);
    /* The array read ends exactly where the call's arguments end. */
    char *page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(page + 4096, 4096);
    unsigned long *tail = (unsigned long *)(page + 4096 - 2 * sizeof(long));
    tail[0] = (unsigned long)fd;
    tail[1] = 1;
    SHOW("socketcall listen at a page end", syscall(SYS_socketcall, 4, tail));
    tail = (unsigned long *)(page + 4096 - sizeof(long));
    tail[0] = (unsigned long)fd;
    SHOW("socketcall listen past the page", syscall(SYS_socketcall, 4, tail));
    munmap(page, 4096);
    int sv[2];
    unsigned long pair[4] = { AF_UNIX, SOCK_DGRAM, 0, (unsigned long)sv };
    SHOW("socketcall socketpair", syscall(SYS_socketcall, 8, pair));
    unsigned long snd[4] = { (unsigned long)sv[0], (unsigned long)"sc", 2, 0 };
    SHOW("socketcall send", syscall(SYS_socketcall, 9, snd));
    char b[4] = { 0 };
    unsigned long rcv[4] = { (unsigned long)sv[1], (unsigned long)b, sizeof(b), 0 };
    SHOW("socketcall recv", syscall(SYS_socketcall, 10, rcv));
    printf("got: %s\n", b);
    unsigned long sh[2] = { (unsigned long)sv[0], 7 };
    SHOW("socketcall shutdown bad how", syscall(SYS_socketcall, 13, sh));
    close(sv[0]);
    close(sv[1]);
    close((int)fd);
}
#endif

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (use_socketcall = 0; use_socketcall < 2; use_socketcall++) {
#ifndef __i386__
        if (use_socketcall)
            break;
#endif
        printf("== %s\n", use_socketcall ? "socketcall" : "direct");
        rights();
        credentials();
        timestamps();
        options();
    }
    mmsg();
#ifdef __i386__
    socketcall_edges();
#endif
    return 0;
}
