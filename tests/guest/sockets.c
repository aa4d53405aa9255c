/* Sockets: AF_UNIX pairs and named sockets, fd and credential passing,
 * TCP and UDP on 127.0.0.1 (and ::1 when the host has it), sendmmsg and
 * recvmmsg, options, shutdown, netlink and the errno cases.  Prints facts
 * only (no pids, ports or paths), so the native run is the expected output. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <linux/filter.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "show.h"

static void unix_pairs(void)
{
    int sv[2];
    SHOW("socketpair stream", socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
    SHOW("write", write(sv[0], "ping", 4));
    char buf[64] = { 0 };
    SHOW("read", read(sv[1], buf, sizeof(buf)));
    printf("got: %s\n", buf);
    SHOW("send", send(sv[1], "pong!", 5, 0));
    memset(buf, 0, sizeof(buf));
    SHOW("recv MSG_PEEK", recv(sv[0], buf, 3, MSG_PEEK));
    SHOW("recv MSG_WAITALL", recv(sv[0], buf, 5, MSG_WAITALL));
    printf("got: %s\n", buf);
    SHOW("recv MSG_DONTWAIT on empty", recv(sv[0], buf, 5, MSG_DONTWAIT));
    int type = 0;
    socklen_t len = sizeof(type);
    SHOW("getsockopt SO_TYPE", getsockopt(sv[0], SOL_SOCKET, SO_TYPE, &type, &len));
    printf("type stream %d, len %u\n", type == SOCK_STREAM, (unsigned)len);
    struct ucred cred;
    len = sizeof(cred);
    SHOW("getsockopt SO_PEERCRED", getsockopt(sv[0], SOL_SOCKET, SO_PEERCRED, &cred, &len));
    printf("peer pid is ours %d, uid %d, gid %d, len %u\n", cred.pid == getpid(),
           cred.uid == getuid(), cred.gid == getgid(), (unsigned)len);
    /* A short optlen truncates the value and reports the bytes written. */
    unsigned char small[4] = { 0xaa, 0xaa, 0xaa, 0xaa };
    len = 2;
    SHOW("getsockopt SO_TYPE len 2", getsockopt(sv[0], SOL_SOCKET, SO_TYPE, small, &len));
    printf("len %u bytes %02x %02x %02x\n", (unsigned)len, small[0], small[1], small[2]);
    struct sockaddr_un sun;
    memset(&sun, 0xaa, sizeof(sun));
    len = sizeof(sun);
    SHOW("getsockname unnamed", getsockname(sv[0], (struct sockaddr *)&sun, &len));
    printf("family unix %d, len %u\n", sun.sun_family == AF_UNIX, (unsigned)len);
    close(sv[0]);
    close(sv[1]);

    SHOW("socketpair dgram", socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv));
    printf("cloexec %d\n", (fcntl(sv[0], F_GETFD) & FD_CLOEXEC) != 0);
    SHOW("send 1", send(sv[0], "first", 5, 0));
    SHOW("send 2", send(sv[0], "second datagram", 15, 0));
    memset(buf, 0, sizeof(buf));
    SHOW("recv 1", recv(sv[1], buf, sizeof(buf), 0));
    printf("got: %s\n", buf);
    /* A datagram larger than the buffer: truncated, MSG_TRUNC gives its size. */
    memset(buf, 0, sizeof(buf));
    SHOW("recv 2 MSG_TRUNC into 6", recv(sv[1], buf, 6, MSG_TRUNC));
    printf("got: %s\n", buf);
    SHOW("send 3", send(sv[0], "third datagram", 14, 0));
    struct iovec iov = { buf, 5 };
    struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
    memset(buf, 0, sizeof(buf));
    SHOW("recvmsg 3 into 5", recvmsg(sv[1], &mh, 0));
    printf("got: %s, MSG_TRUNC %d\n", buf, (mh.msg_flags & MSG_TRUNC) != 0);
    close(sv[0]);
    close(sv[1]);
}

/* SCM_RIGHTS: the read end of a pipe travels over a socketpair and the
 * receiver reads from the fd it got. */
static void pass_fds(void)
{
    int sv[2], p[2], q[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) || pipe(p) || pipe(q))
        return perror("setup");
    SHOW("write into pipe", write(p[1], "through a passed fd", 19));
    SHOW("write into pipe 2", write(q[1], "second fd", 9));
    union {
        char buf[CMSG_SPACE(2 * sizeof(int))];
        struct cmsghdr align;
    } ctl;
    memset(&ctl, 0, sizeof(ctl));
    struct iovec iov = { "x", 1 };
    struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
                         .msg_controllen = CMSG_SPACE(sizeof(int)) };
    struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cm), &p[0], sizeof(int));
    SHOW("sendmsg SCM_RIGHTS", sendmsg(sv[0], &mh, 0));
    close(p[0]);
    close(p[1]);

    char data[8];
    struct iovec riov = { data, sizeof(data) };
    memset(&ctl, 0, sizeof(ctl));
    struct msghdr rh = { .msg_iov = &riov, .msg_iovlen = 1, .msg_control = ctl.buf,
                         .msg_controllen = sizeof(ctl.buf) };
    SHOW("recvmsg SCM_RIGHTS", recvmsg(sv[1], &rh, MSG_CMSG_CLOEXEC));
    printf("controllen %zu (CMSG_SPACE(int) %zu), flags %#x\n", (size_t)rh.msg_controllen,
           (size_t)CMSG_SPACE(sizeof(int)), rh.msg_flags);
    cm = CMSG_FIRSTHDR(&rh);
    if (cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
        int fd;
        memcpy(&fd, CMSG_DATA(cm), sizeof(int));
        printf("cmsg_len %zu, cloexec %d\n", (size_t)cm->cmsg_len,
               (fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0);
        char buf[64] = { 0 };
        SHOW("read the passed fd", read(fd, buf, sizeof(buf)));
        printf("got: %s\n", buf);
        close(fd);
    } else {
        printf("no SCM_RIGHTS message\n");
    }

    /* Two fds into room for none: MSG_CTRUNC, and no fd is installed. */
    int two[2] = { q[0], q[0] };
    memset(&ctl, 0, sizeof(ctl));
    mh.msg_control = ctl.buf;
    mh.msg_controllen = CMSG_SPACE(2 * sizeof(int));
    cm = CMSG_FIRSTHDR(&mh);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(2 * sizeof(int));
    memcpy(CMSG_DATA(cm), two, sizeof(two));
    SHOW("sendmsg two fds", sendmsg(sv[0], &mh, 0));
    union {
        char buf[CMSG_SPACE(0) + 2];
        struct cmsghdr align;
    } tiny;
    memset(&tiny, 0, sizeof(tiny));
    rh.msg_control = tiny.buf;
    rh.msg_controllen = sizeof(tiny.buf);
    rh.msg_flags = 0;
    int before = dup(0);
    close(before);
    SHOW("recvmsg into a short control buffer", recvmsg(sv[1], &rh, 0));
    printf("MSG_CTRUNC %d, controllen %zu\n", (rh.msg_flags & MSG_CTRUNC) != 0,
           (size_t)rh.msg_controllen);
    int after = dup(0);
    printf("no fd leaked %d\n", after == before);
    close(after);

    /* One fd of two fits: the first arrives, MSG_CTRUNC tells of the rest. */
    memset(&ctl, 0, sizeof(ctl));
    cm = CMSG_FIRSTHDR(&mh);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(2 * sizeof(int));
    memcpy(CMSG_DATA(cm), two, sizeof(two));
    SHOW("sendmsg two fds again", sendmsg(sv[0], &mh, 0));
    memset(&ctl, 0, sizeof(ctl));
    rh.msg_control = ctl.buf;
    rh.msg_controllen = CMSG_LEN(sizeof(int));
    rh.msg_flags = 0;
    SHOW("recvmsg room for one fd", recvmsg(sv[1], &rh, 0));
    cm = CMSG_FIRSTHDR(&rh);
    printf("MSG_CTRUNC %d, cmsg_len %zu\n", (rh.msg_flags & MSG_CTRUNC) != 0,
           cm ? (size_t)cm->cmsg_len : (size_t)0);
    if (cm) {
        int fd;
        memcpy(&fd, CMSG_DATA(cm), sizeof(int));
        char buf[64] = { 0 };
        SHOW("read the second passed fd", read(fd, buf, sizeof(buf)));
        printf("got: %s\n", buf);
        close(fd);
    }
    close(q[0]);
    close(q[1]);
    close(sv[0]);
    close(sv[1]);
}

static void pass_credentials(void)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv))
        return perror("socketpair");
    int on = 1;
    SHOW("setsockopt SO_PASSCRED", setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)));
    SHOW("send", send(sv[0], "creds", 5, 0));
    char data[8];
    struct iovec iov = { data, sizeof(data) };
    union {
        char buf[CMSG_SPACE(sizeof(struct ucred))];
        struct cmsghdr align;
    } ctl;
    struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
                         .msg_controllen = sizeof(ctl.buf) };
    SHOW("recvmsg", recvmsg(sv[1], &mh, 0));
    struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
    if (cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_CREDENTIALS) {
        struct ucred u;
        memcpy(&u, CMSG_DATA(cm), sizeof(u));
        printf("SCM_CREDENTIALS: pid is ours %d, uid %d, gid %d\n", u.pid == getpid(),
               u.uid == getuid(), u.gid == getgid());
    } else {
        printf("no SCM_CREDENTIALS\n");
    }

    /* Sending our own credentials explicitly. */
    struct ucred u = { getpid(), getuid(), getgid() };
    mh.msg_controllen = CMSG_SPACE(sizeof(u));
    cm = CMSG_FIRSTHDR(&mh);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_CREDENTIALS;
    cm->cmsg_len = CMSG_LEN(sizeof(u));
    memcpy(CMSG_DATA(cm), &u, sizeof(u));
    iov.iov_len = 5;
    memcpy(data, "again", 5);
    SHOW("sendmsg SCM_CREDENTIALS", sendmsg(sv[0], &mh, 0));
    iov.iov_len = sizeof(data);
    mh.msg_controllen = sizeof(ctl.buf);
    SHOW("recvmsg", recvmsg(sv[1], &mh, 0));
    cm = CMSG_FIRSTHDR(&mh);
    printf("credentials again %d\n", cm && cm->cmsg_type == SCM_CREDENTIALS);
    /* Somebody else's pid is refused. */
    u.pid = 1;
    mh.msg_controllen = CMSG_SPACE(sizeof(u));
    cm = CMSG_FIRSTHDR(&mh);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_CREDENTIALS;
    cm->cmsg_len = CMSG_LEN(sizeof(u));
    memcpy(CMSG_DATA(cm), &u, sizeof(u));
    iov.iov_len = 5;
    if (getuid() != 0)
        SHOW("sendmsg forged pid", sendmsg(sv[0], &mh, 0));
    else
        printf("sendmsg forged pid: -1 %s\n", strerror(EPERM)); /* root may forge */
    close(sv[0]);
    close(sv[1]);
}

/* Classic BPF socket filters: struct sock_fprog points at the program. */
static void filters(void)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv))
        return perror("socketpair");
    struct sock_filter drop[] = { BPF_STMT(BPF_RET | BPF_K, 0) };
    struct sock_filter four[] = { BPF_STMT(BPF_RET | BPF_K, 4) };
    struct sock_fprog prog = { 1, drop };
    SHOW("SO_ATTACH_FILTER drop all", setsockopt(sv[1], SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)));
    SHOW("send", send(sv[0], "dropped", 7, 0));
    char buf[16] = { 0 };
    SHOW("recv", recv(sv[1], buf, sizeof(buf), MSG_DONTWAIT));
    prog.filter = four;
    SHOW("SO_ATTACH_FILTER keep 4 bytes", setsockopt(sv[1], SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)));
    SHOW("send", send(sv[0], "truncated", 9, 0));
    SHOW("recv", recv(sv[1], buf, sizeof(buf), 0));
    printf("got: %s\n", buf);
    socklen_t len = 0;
    SHOW("SO_GET_FILTER length", getsockopt(sv[1], SOL_SOCKET, SO_GET_FILTER, NULL, &len));
    printf("instructions %u\n", (unsigned)len);
    struct sock_filter back[2];
    memset(back, 0, sizeof(back));
    len = 2;
    SHOW("SO_GET_FILTER", getsockopt(sv[1], SOL_SOCKET, SO_GET_FILTER, back, &len));
    printf("len %u, code %#x k %u\n", (unsigned)len, back[0].code, back[0].k);
    SHOW("SO_DETACH_FILTER", setsockopt(sv[1], SOL_SOCKET, SO_DETACH_FILTER, &len, sizeof(len)));
    prog.filter = bad_ptr();
    SHOW("SO_ATTACH_FILTER bad program", setsockopt(sv[1], SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)));
    prog.filter = four;
    /* Half a sock_fprog (8 bytes: the size of a 32-bit process's one when
     * the program is 64-bit). */
    SHOW("SO_ATTACH_FILTER short length",
         setsockopt(sv[1], SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog) / 2));
    SHOW("send", send(sv[0], "whole again", 11, 0));
    memset(buf, 0, sizeof(buf));
    SHOW("recv", recv(sv[1], buf, sizeof(buf), 0));
    printf("got: %s\n", buf);

    /* SO_PEERGROUPS with no room: ERANGE and the length needed when we
     * have supplementary groups, else an empty list (same host, same
     * answer natively). */
    int ss[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, ss);
    len = 0;
    errno = 0;
    int r = getsockopt(ss[0], SOL_SOCKET, SO_PEERGROUPS, NULL, &len);
    printf("SO_PEERGROUPS: %d %s, len %u\n", r, r < 0 ? strerror(errno) : "", (unsigned)len);
    close(ss[0]);
    close(ss[1]);
    close(sv[0]);
    close(sv[1]);
}

/* A named AF_UNIX socket in a temporary directory: the parent listens and
 * accepts, a forked child connects and talks. */
static void named_unix(void)
{
    char dir[] = "/tmp/elfemu-sockets-XXXXXX";
    if (!mkdtemp(dir))
        return perror("mkdtemp");
    struct sockaddr_un sun = { .sun_family = AF_UNIX };
    snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/sock", dir);
    socklen_t alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(sun.sun_path) + 1);
    int l = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
    SHOW("bind", bind(l, (struct sockaddr *)&sun, alen));
    SHOW("bind again", bind(socket(AF_UNIX, SOCK_STREAM, 0), (struct sockaddr *)&sun, alen));
    SHOW("listen", listen(l, 4));
    struct stat st;
    printf("socket file %d\n", stat(sun.sun_path, &st) == 0 && S_ISSOCK(st.st_mode));
    SHOW("accept nothing pending", accept(l, NULL, NULL));

    struct sockaddr_un got;
    socklen_t glen = sizeof(got);
    SHOW("getsockname", getsockname(l, (struct sockaddr *)&got, &glen));
    printf("same path %d, len matches %d\n", strcmp(got.sun_path, sun.sun_path) == 0, glen == alen);

    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        int s = socket(AF_UNIX, SOCK_STREAM, 0);
        if (connect(s, (struct sockaddr *)&sun, alen) != 0)
            _exit(1);
        char buf[32] = { 0 };
        if (write(s, "hello from the child", 20) != 20 || read(s, buf, sizeof(buf)) != 6 ||
            strcmp(buf, "thanks") != 0)
            _exit(2);
        _exit(0);
    }
    fcntl(l, F_SETFL, 0); /* blocking again */
    memset(&got, 0xaa, sizeof(got));
    glen = sizeof(got);
    int a = accept4(l, (struct sockaddr *)&got, &glen, SOCK_CLOEXEC);
    printf("accept4: %d, peer unnamed %d (len %u), cloexec %d\n", a >= 0,
           glen == sizeof(sa_family_t) && got.sun_family == AF_UNIX, (unsigned)glen,
           (fcntl(a, F_GETFD) & FD_CLOEXEC) != 0);
    char buf[32] = { 0 };
    ssize_t n = 0, r;
    while (n < 20 && (r = read(a, buf + n, sizeof(buf) - 1 - (size_t)n)) > 0)
        n += r;
    printf("server got: %s\n", buf);
    SHOW("write", write(a, "thanks", 6));
    int wst;
    waitpid(pid, &wst, 0);
    printf("child exit %d\n", WIFEXITED(wst) ? WEXITSTATUS(wst) : -1);
    glen = sizeof(got);
    SHOW("getpeername after the peer left", getpeername(a, (struct sockaddr *)&got, &glen));
    close(a);
    close(l);
    unlink(sun.sun_path);
    SHOW("connect to the removed path",
         connect(socket(AF_UNIX, SOCK_STREAM, 0), (struct sockaddr *)&sun, alen));
    rmdir(dir);

    /* The abstract namespace: a leading NUL, the length counts the name. */
    struct sockaddr_un abs = { .sun_family = AF_UNIX };
    snprintf(abs.sun_path + 1, sizeof(abs.sun_path) - 1, "elfemu-abstract-%d", (int)getpid());
    socklen_t ablen =
        (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(abs.sun_path + 1));
    int d1 = socket(AF_UNIX, SOCK_DGRAM, 0), d2 = socket(AF_UNIX, SOCK_DGRAM, 0);
    SHOW("bind abstract", bind(d1, (struct sockaddr *)&abs, ablen));
    SHOW("sendto abstract", sendto(d2, "abs", 3, 0, (struct sockaddr *)&abs, ablen));
    memset(buf, 0, sizeof(buf));
    SHOW("recv", recv(d1, buf, sizeof(buf), 0));
    printf("got: %s\n", buf);
    glen = sizeof(got);
    SHOW("getsockname abstract", getsockname(d1, (struct sockaddr *)&got, &glen));
    printf("len matches %d, name matches %d\n", glen == ablen,
           memcmp(got.sun_path, abs.sun_path, ablen - offsetof(struct sockaddr_un, sun_path)) == 0);
    close(d1);
    close(d2);
}

static void tcp_v4(void)
{
    int l = socket(AF_INET, SOCK_STREAM, 0);
    int on = 1, v = 0;
    socklen_t len = sizeof(v);
    SHOW("setsockopt SO_REUSEADDR", setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)));
    SHOW("getsockopt SO_REUSEADDR", getsockopt(l, SOL_SOCKET, SO_REUSEADDR, &v, &len));
    printf("SO_REUSEADDR %d len %u\n", v, (unsigned)len);
    struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    SHOW("bind 127.0.0.1:0", bind(l, (struct sockaddr *)&sin, sizeof(sin)));
    SHOW("listen", listen(l, 8));
    struct sockaddr_in me;
    len = sizeof(me);
    SHOW("getsockname", getsockname(l, (struct sockaddr *)&me, &len));
    printf("len %u, family inet %d, port chosen %d, addr %s\n", (unsigned)len,
           me.sin_family == AF_INET, me.sin_port != 0, inet_ntoa(me.sin_addr));

    int s = socket(AF_INET, SOCK_STREAM, 0);
    SHOW("connect", connect(s, (struct sockaddr *)&me, sizeof(me)));
    struct sockaddr_in peer;
    len = sizeof(peer);
    int a = accept(l, (struct sockaddr *)&peer, &len);
    struct sockaddr_in mine;
    socklen_t mlen = sizeof(mine);
    getsockname(s, (struct sockaddr *)&mine, &mlen);
    printf("accept: %d, peer len %u, peer is the client %d\n", a >= 0, (unsigned)len,
           peer.sin_port == mine.sin_port && peer.sin_addr.s_addr == mine.sin_addr.s_addr);
    len = sizeof(peer);
    SHOW("getpeername", getpeername(s, (struct sockaddr *)&peer, &len));
    printf("peer is the listener's port %d\n", peer.sin_port == me.sin_port);

    /* A truncated address: only the guest's length is written, the length
     * says what the full one was. */
    unsigned char raw[sizeof(struct sockaddr_in)];
    memset(raw, 0xaa, sizeof(raw));
    len = 4;
    SHOW("getpeername into 4 bytes", getpeername(s, (struct sockaddr *)raw, &len));
    printf("len %u, byte 4 untouched %d, family %d\n", (unsigned)len, raw[4] == 0xaa,
           raw[0] | raw[1] << 8);

    v = 0;
    len = sizeof(v);
    SHOW("setsockopt TCP_NODELAY", setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on)));
    SHOW("getsockopt TCP_NODELAY", getsockopt(s, IPPROTO_TCP, TCP_NODELAY, &v, &len));
    printf("TCP_NODELAY %d\n", v != 0);
    struct linger lg = { 1, 5 }, lg2;
    len = sizeof(lg2);
    SHOW("setsockopt SO_LINGER", setsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)));
    SHOW("getsockopt SO_LINGER", getsockopt(s, SOL_SOCKET, SO_LINGER, &lg2, &len));
    printf("linger %d %d len %u\n", lg2.l_onoff, lg2.l_linger, (unsigned)len);
    struct timeval tv = { 2, 500000 }, tv2;
    len = sizeof(tv2);
    SHOW("setsockopt SO_RCVTIMEO", setsockopt(a, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
    SHOW("getsockopt SO_RCVTIMEO", getsockopt(a, SOL_SOCKET, SO_RCVTIMEO, &tv2, &len));
    printf("rcvtimeo %ld.%06ld len %u\n", (long)tv2.tv_sec, (long)tv2.tv_usec, (unsigned)len);
    SHOW("setsockopt SO_RCVTIMEO short", setsockopt(a, SOL_SOCKET, SO_RCVTIMEO, &tv, 4));
    SHOW("setsockopt negative length", setsockopt(a, SOL_SOCKET, SO_REUSEADDR, &on, -1));

    const char msg[] = "data over tcp";
    SHOW("send", send(s, msg, sizeof(msg) - 1, 0));
    char buf[64] = { 0 };
    SHOW("recv MSG_WAITALL", recv(a, buf, sizeof(msg) - 1, MSG_WAITALL));
    printf("got: %s\n", buf);
    struct sockaddr_in from;
    len = sizeof(from);
    memset(&from, 0xaa, sizeof(from));
    SHOW("send", send(a, "reply", 5, 0));
    SHOW("recvfrom on tcp", recvfrom(s, buf, sizeof(buf), 0, (struct sockaddr *)&from, &len));
    printf("address length %u\n", (unsigned)len);

    /* Shutdown: the peer reads end of file, our writes fail with EPIPE. */
    SHOW("shutdown SHUT_WR", shutdown(s, SHUT_WR));
    SHOW("read after peer shutdown", read(a, buf, sizeof(buf)));
    SHOW("send after shutdown", send(s, "x", 1, MSG_NOSIGNAL));
    SHOW("the other way still works", send(a, "late", 4, 0));
    SHOW("recv", recv(s, buf, sizeof(buf), 0));
    SHOW("shutdown bad how", shutdown(s, 7));
    int err = -1;
    len = sizeof(err);
    SHOW("getsockopt SO_ERROR", getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &len));
    printf("SO_ERROR %d\n", err);
    close(a);
    close(s);

    /* A bound port with no listener refuses, blocking or not. */
    int b = socket(AF_INET, SOCK_STREAM, 0);
    sin.sin_port = 0;
    bind(b, (struct sockaddr *)&sin, sizeof(sin));
    struct sockaddr_in closed;
    len = sizeof(closed);
    getsockname(b, (struct sockaddr *)&closed, &len);
    int c = socket(AF_INET, SOCK_STREAM, 0);
    SHOW("connect to a closed port", connect(c, (struct sockaddr *)&closed, sizeof(closed)));
    close(c);
    c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    errno = 0;
    int r = connect(c, (struct sockaddr *)&closed, sizeof(closed));
    printf("non-blocking connect: %d, in progress or refused %d\n", r,
           errno == EINPROGRESS || errno == ECONNREFUSED);
    if (r < 0 && errno == ECONNREFUSED) {
        err = ECONNREFUSED; /* refused at once: the error was reported already */
    } else {
        /* The refusal arrives soon after (reading SO_ERROR clears it). */
        err = 0;
        for (int i = 0; i < 500 && err == 0; i++) {
            len = sizeof(err);
            getsockopt(c, SOL_SOCKET, SO_ERROR, &err, &len);
            if (err == 0)
                usleep(10000);
        }
    }
    printf("SO_ERROR after the refusal: %s\n", strerror(err));
    close(c);
    close(b);
    close(l);
}

static void udp_v4(void)
{
    int r = socket(AF_INET, SOCK_DGRAM, 0), s = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    SHOW("bind udp", bind(r, (struct sockaddr *)&sin, sizeof(sin)));
    struct sockaddr_in to;
    socklen_t len = sizeof(to);
    getsockname(r, (struct sockaddr *)&to, &len);
    SHOW("sendto", sendto(s, "datagram one", 12, 0, (struct sockaddr *)&to, sizeof(to)));
    struct sockaddr_in from, sender;
    socklen_t slen = sizeof(sender);
    getsockname(s, (struct sockaddr *)&sender, &slen);
    char buf[64] = { 0 };
    len = sizeof(from);
    SHOW("recvfrom", recvfrom(r, buf, sizeof(buf), 0, (struct sockaddr *)&from, &len));
    printf("got: %s, from the sender's port %d, from %s, len %u\n", buf,
           from.sin_port == sender.sin_port, inet_ntoa(from.sin_addr), (unsigned)len);
    int type = 0;
    len = sizeof(type);
    getsockopt(r, SOL_SOCKET, SO_TYPE, &type, &len);
    printf("type dgram %d\n", type == SOCK_DGRAM);

    /* The address truncated to the caller's length, the length is the full one. */
    SHOW("sendto", sendto(s, "two", 3, 0, (struct sockaddr *)&to, sizeof(to)));
    unsigned char raw[sizeof(struct sockaddr_in)];
    memset(raw, 0xaa, sizeof(raw));
    len = 2;
    SHOW("recvfrom address into 2 bytes", recvfrom(r, buf, sizeof(buf), 0, (struct sockaddr *)raw, &len));
    printf("len %u, family %d, byte 2 untouched %d\n", (unsigned)len, raw[0] | raw[1] << 8,
           raw[2] == 0xaa);
    SHOW("sendto", sendto(s, "three", 5, 0, (struct sockaddr *)&to, sizeof(to)));
    len = (socklen_t)-1;
    SHOW("recvfrom negative address length", recvfrom(r, buf, sizeof(buf), 0, (struct sockaddr *)&from, &len));
    SHOW("the datagram was consumed", recv(r, buf, sizeof(buf), MSG_DONTWAIT));

    /* connect() on UDP fixes the peer; send() without an address. */
    SHOW("connect udp", connect(s, (struct sockaddr *)&to, sizeof(to)));
    SHOW("send", send(s, "connected", 9, 0));
    memset(buf, 0, sizeof(buf));
    SHOW("recv", recv(r, buf, sizeof(buf), 0));
    printf("got: %s\n", buf);
    SHOW("sendto too long an address",
         sendto(s, "x", 1, 0, (struct sockaddr *)&to, sizeof(struct sockaddr_storage) + 1));

    /* sendmmsg then recvmmsg, with a timeout and with MSG_WAITFORONE. */
    char out[3][16] = { "alpha", "beta", "gamma delta" };
    struct iovec oiov[3];
    struct mmsghdr om[3];
    memset(om, 0, sizeof(om));
    for (int i = 0; i < 3; i++) {
        oiov[i].iov_base = out[i];
        oiov[i].iov_len = strlen(out[i]);
        om[i].msg_hdr.msg_iov = &oiov[i];
        om[i].msg_hdr.msg_iovlen = 1;
    }
    SHOW("sendmmsg", sendmmsg(s, om, 3, 0));
    printf("msg_len %u %u %u\n", om[0].msg_len, om[1].msg_len, om[2].msg_len);
    char in[4][16];
    struct iovec iiov[4];
    struct mmsghdr im[4];
    struct sockaddr_in names[4];
    memset(in, 0, sizeof(in));
    memset(im, 0, sizeof(im));
    for (int i = 0; i < 4; i++) {
        iiov[i].iov_base = in[i];
        iiov[i].iov_len = i == 2 ? 5 : sizeof(in[i]);
        im[i].msg_hdr.msg_iov = &iiov[i];
        im[i].msg_hdr.msg_iovlen = 1;
        im[i].msg_hdr.msg_name = &names[i];
        im[i].msg_hdr.msg_namelen = sizeof(names[i]);
    }
    struct timespec ts = { 5, 0 };
    SHOW("recvmmsg 3 with a timeout", recvmmsg(r, im, 3, 0, &ts));
    for (int i = 0; i < 3; i++)
        printf("  [%d] len %u \"%s\" namelen %u truncated %d\n", i, im[i].msg_len, in[i],
               (unsigned)im[i].msg_hdr.msg_namelen, (im[i].msg_hdr.msg_flags & MSG_TRUNC) != 0);
    printf("time left is sane %d\n", ts.tv_sec >= 0 && ts.tv_sec <= 5);
    SHOW("sendmmsg", sendmmsg(s, om, 2, 0));
    memset(in, 0, sizeof(in));
    SHOW("recvmmsg 2", recvmmsg(r, im, 2, 0, NULL));
    printf("  \"%s\" \"%s\"\n", in[0], in[1]);
    /* Blocks for the first message only, then takes what is there. */
    SHOW("sendmmsg", sendmmsg(s, om, 1, 0));
    SHOW("recvmmsg MSG_WAITFORONE", recvmmsg(r, im, 4, MSG_WAITFORONE, NULL));
    SHOW("recvmmsg on empty MSG_DONTWAIT", recvmmsg(r, im, 4, MSG_DONTWAIT, NULL));
    /* The bad timeouts raw: a 32-bit C library converts the timeout to
     * its 64-bit form itself (and faults on the bad pointer). */
    ts.tv_nsec = 2000000000;
    SHOW("recvmmsg bad timeout", syscall(SYS_recvmmsg, r, im, 4, MSG_DONTWAIT, &ts));
    SHOW("recvmmsg bad timeout pointer", syscall(SYS_recvmmsg, r, im, 4, MSG_DONTWAIT, bad_ptr()));
#ifdef SYS_recvmmsg_time64
    /* i386's time64 call: a 32-bit process's kernel takes the low 32 bits
     * of tv_nsec's 64-bit field, whatever lies above them. */
    struct {
        int64_t sec, nsec;
    } t64 = { 1, (int64_t)0x12345678 << 32 | 1000 };
    SHOW("recvmmsg_time64 junk above tv_nsec", syscall(SYS_recvmmsg_time64, r, im, 4, MSG_DONTWAIT, &t64));
    t64.nsec = 2000000000;
    SHOW("recvmmsg_time64 bad timeout", syscall(SYS_recvmmsg_time64, r, im, 4, MSG_DONTWAIT, &t64));
    SHOW("recvmmsg_time64 bad timeout pointer",
         syscall(SYS_recvmmsg_time64, r, im, 4, MSG_DONTWAIT, bad_ptr()));
#endif
    SHOW("sendmmsg vlen 0", sendmmsg(s, om, 0, 0));
    SHOW("sendmmsg bad array", sendmmsg(s, bad_ptr(), 2, 0));
    /* The second entry points at a bad buffer: one datagram goes out. */
    oiov[1].iov_base = bad_ptr();
    SHOW("sendmmsg second entry bad", sendmmsg(s, om, 3, 0));
    memset(in, 0, sizeof(in));
    SHOW("recvmmsg", recvmmsg(r, im, 4, MSG_WAITFORONE, NULL));
    printf("  \"%s\"\n", in[0]);
    close(r);
    close(s);
}

/* msghdr details over UDP: scatter/gather, the sender's address, control
 * messages other than SCM_* (IP_PKTINFO, SO_TIMESTAMP) and their
 * truncation, and headers the kernel can read but not update. */
static void udp_msghdr(void)
{
    int r = socket(AF_INET, SOCK_DGRAM, 0), s = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    bind(r, (struct sockaddr *)&sin, sizeof(sin));
    bind(s, (struct sockaddr *)&sin, sizeof(sin));
    struct sockaddr_in to, me;
    socklen_t len = sizeof(to);
    getsockname(r, (struct sockaddr *)&to, &len);
    len = sizeof(me);
    getsockname(s, (struct sockaddr *)&me, &len);
    int on = 1;
    SHOW("setsockopt IP_PKTINFO", setsockopt(r, IPPROTO_IP, IP_PKTINFO, &on, sizeof(on)));
    SHOW("setsockopt SO_TIMESTAMP", setsockopt(r, SOL_SOCKET, SO_TIMESTAMP, &on, sizeof(on)));

    char p1[] = "scat", p2[] = "ter/", p3[] = "gather";
    struct iovec out[3] = { { p1, 4 }, { p2, 4 }, { p3, 6 } };
    struct msghdr mh = { .msg_name = &to, .msg_namelen = sizeof(to), .msg_iov = out, .msg_iovlen = 3 };
    SHOW("sendmsg 3 iovecs", sendmsg(s, &mh, 0));
    char a[6] = { 0 }, b[16] = { 0 };
    struct iovec in[2] = { { a, 5 }, { b, sizeof(b) - 1 } };
    struct sockaddr_in from;
    memset(&from, 0, sizeof(from));
    union {
        char buf[256];
        struct cmsghdr align;
    } ctl;
    struct msghdr rh = { .msg_name = &from, .msg_namelen = sizeof(from), .msg_iov = in,
                         .msg_iovlen = 2, .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf) };
    SHOW("recvmsg 2 iovecs", recvmsg(r, &rh, 0));
    printf("\"%s\" + \"%s\", namelen %u, from the sender %d\n", a, b, (unsigned)rh.msg_namelen,
           from.sin_port == me.sin_port);
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(&rh); cm; cm = CMSG_NXTHDR(&rh, cm)) {
        if (cm->cmsg_level == IPPROTO_IP && cm->cmsg_type == IP_PKTINFO) {
            struct in_pktinfo pi;
            memcpy(&pi, CMSG_DATA(cm), sizeof(pi));
            printf("IP_PKTINFO len %zu, to %s, ifindex set %d\n", (size_t)cm->cmsg_len,
                   inet_ntoa(pi.ipi_addr), pi.ipi_ifindex > 0);
        } else if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_TIMESTAMP) {
            printf("SCM_TIMESTAMP len %zu\n", (size_t)cm->cmsg_len);
        } else {
            printf("cmsg level %d type %d\n", cm->cmsg_level, cm->cmsg_type);
        }
    }
    printf("controllen %zu, flags %#x\n", (size_t)rh.msg_controllen, rh.msg_flags);

    /* Room for the first control message only. */
    SHOW("sendmsg", sendmsg(s, &mh, 0));
    rh.msg_controllen = CMSG_SPACE(sizeof(struct timeval));
    rh.msg_namelen = sizeof(from);
    SHOW("recvmsg short control", recvmsg(r, &rh, 0));
    printf("controllen %zu, MSG_CTRUNC %d\n", (size_t)rh.msg_controllen,
           (rh.msg_flags & MSG_CTRUNC) != 0);
    /* A short name buffer: truncated, the length says 16. */
    SHOW("sendmsg", sendmsg(s, &mh, 0));
    rh.msg_control = NULL;
    rh.msg_controllen = 0;
    rh.msg_namelen = 3;
    SHOW("recvmsg short name", recvmsg(r, &rh, 0));
    printf("namelen %u, MSG_CTRUNC %d\n", (unsigned)rh.msg_namelen, (rh.msg_flags & MSG_CTRUNC) != 0);

    /* A header in read-only memory: the datagram is received, then EFAULT. */
    struct msghdr *ro = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    *ro = rh;
    ro->msg_name = NULL;
    mprotect(ro, 4096, PROT_READ);
    SHOW("sendmsg", sendmsg(s, &mh, 0));
    SHOW("recvmsg read-only msghdr", recvmsg(r, ro, 0));
    SHOW("the datagram was consumed", recv(r, a, 1, MSG_DONTWAIT));

    /* The same for the mmsg calls: the first message goes, then EFAULT. */
    struct mmsghdr *rom = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    rom[0].msg_hdr = mh;
    rom[1].msg_hdr = mh;
    mprotect(rom, 4096, PROT_READ);
    SHOW("sendmmsg read-only array", sendmmsg(s, rom, 2, 0));
    SHOW("one datagram arrived", recv(r, b, sizeof(b), 0));
    SHOW("only one", recv(r, b, sizeof(b), MSG_DONTWAIT));
    SHOW("sendmsg", sendmsg(s, &mh, 0));
    SHOW("sendmsg", sendmsg(s, &mh, 0));
    munmap(rom, 4096);
    rom = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    rom[0].msg_hdr = rh;
    rom[1].msg_hdr = rh;
    mprotect(rom, 4096, PROT_READ);
    SHOW("recvmmsg read-only array", recvmmsg(r, rom, 2, 0, NULL));
    SHOW("one datagram was left", recv(r, b, sizeof(b), 0));
    SHOW("only one", recv(r, b, sizeof(b), MSG_DONTWAIT));
    munmap(rom, 4096);
    munmap(ro, 4096);
    close(r);
    close(s);
}

static void ipv6(void)
{
    int l = socket(AF_INET6, SOCK_STREAM, 0);
    struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
    if (l < 0 || bind(l, (struct sockaddr *)&sin6, sizeof(sin6)) != 0) {
        printf("ipv6: ::1 not available, skipped\n");
        if (l >= 0)
            close(l);
        return;
    }
    int on = 1, v = 0;
    socklen_t len = sizeof(v);
    int u = socket(AF_INET6, SOCK_DGRAM, 0);
    SHOW("setsockopt IPV6_V6ONLY", setsockopt(u, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof(on)));
    SHOW("getsockopt IPV6_V6ONLY", getsockopt(u, IPPROTO_IPV6, IPV6_V6ONLY, &v, &len));
    printf("v6only %d\n", v);
    close(u);
    SHOW("listen ::1", listen(l, 2));
    struct sockaddr_in6 me;
    len = sizeof(me);
    SHOW("getsockname", getsockname(l, (struct sockaddr *)&me, &len));
    char txt[INET6_ADDRSTRLEN];
    printf("len %u, addr %s, port chosen %d\n", (unsigned)len,
           inet_ntop(AF_INET6, &me.sin6_addr, txt, sizeof(txt)), me.sin6_port != 0);
    int s = socket(AF_INET6, SOCK_STREAM, 0);
    SHOW("connect ::1", connect(s, (struct sockaddr *)&me, sizeof(me)));
    struct sockaddr_in6 peer;
    len = sizeof(peer);
    int a = accept(l, (struct sockaddr *)&peer, &len);
    printf("accept %d, peer %s len %u\n", a >= 0, inet_ntop(AF_INET6, &peer.sin6_addr, txt, sizeof(txt)),
           (unsigned)len);
    SHOW("send", send(s, "over ipv6", 9, 0));
    char buf[32] = { 0 };
    SHOW("recv", recv(a, buf, 9, MSG_WAITALL));
    printf("got: %s\n", buf);
    /* A sockaddr_in6 into a sockaddr_in's room: truncated. */
    struct sockaddr_in small;
    len = sizeof(small);
    SHOW("getpeername into sockaddr_in", getpeername(a, (struct sockaddr *)&small, &len));
    printf("len %u\n", (unsigned)len);
    close(a);
    close(s);
    close(l);
}

/* Guest threads blocked in socket calls while another thread feeds them:
 * accept and recv in a server thread, two readers on one socketpair. */
static void *tcp_server(void *arg)
{
    int l = *(int *)arg;
    int a = accept(l, NULL, NULL);
    char buf[32] = { 0 };
    ssize_t n = recv(a, buf, 16, MSG_WAITALL);
    char reply[64];
    int k = snprintf(reply, sizeof(reply), "server got %zd: %s", n, buf);
    send(a, reply, (size_t)k, 0);
    close(a);
    return NULL;
}

static void *reader(void *arg)
{
    int fd = *(int *)arg;
    char buf[8] = { 0 };
    ssize_t n = read(fd, buf, 4);
    return (void *)(intptr_t)(n == 4 && buf[0] == 'w' ? 1 : 0);
}

static void threads(void)
{
    int l = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    bind(l, (struct sockaddr *)&sin, sizeof(sin));
    listen(l, 1);
    socklen_t len = sizeof(sin);
    getsockname(l, (struct sockaddr *)&sin, &len);
    pthread_t t;
    if (pthread_create(&t, NULL, tcp_server, &l) != 0)
        return perror("pthread_create");
    usleep(20000); /* let it block in accept (not needed for the result) */
    int s = socket(AF_INET, SOCK_STREAM, 0);
    SHOW("connect to the server thread", connect(s, (struct sockaddr *)&sin, sizeof(sin)));
    SHOW("send", send(s, "0123456789abcdef", 16, 0));
    char buf[64] = { 0 };
    ssize_t n = 0, r;
    while ((r = recv(s, buf + n, sizeof(buf) - 1 - (size_t)n, 0)) > 0)
        n += r;
    printf("reply: %s\n", buf);
    pthread_join(t, NULL);
    close(s);
    close(l);

    int sv[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    pthread_t r1, r2;
    pthread_create(&r1, NULL, reader, &sv[1]);
    pthread_create(&r2, NULL, reader, &sv[1]);
    usleep(20000);
    SHOW("write for the readers", write(sv[0], "wxyzwxyz", 8));
    void *a1, *a2;
    pthread_join(r1, &a1);
    pthread_join(r2, &a2);
    printf("both readers got 4 bytes: %d\n", (intptr_t)a1 + (intptr_t)a2 == 2);
    close(sv[0]);
    close(sv[1]);
}

static void netlink(void)
{
    int n = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (n < 0) {
        printf("netlink: unavailable\n");
        return;
    }
    struct sockaddr_nl nl = { .nl_family = AF_NETLINK };
    SHOW("bind netlink", bind(n, (struct sockaddr *)&nl, sizeof(nl)));
    socklen_t len = sizeof(nl);
    SHOW("getsockname netlink", getsockname(n, (struct sockaddr *)&nl, &len));
    printf("family netlink %d, len %u, port id set %d\n", nl.nl_family == AF_NETLINK, (unsigned)len,
           nl.nl_pid != 0);
    close(n);
    /* glibc asks the kernel over netlink (sendto + recvmsg). */
    struct if_nameindex *ifs = if_nameindex();
    int lo = 0;
    for (struct if_nameindex *i = ifs; i && i->if_index; i++)
        lo |= strcmp(i->if_name, "lo") == 0;
    printf("if_nameindex: %d, has lo %d\n", ifs != NULL, lo);
    if (ifs)
        if_freenameindex(ifs);
}

static void errors(void)
{
    char path[] = "/tmp/elfemu-sockets-file-XXXXXX";
    int f = mkstemp(path);
    unlink(path);
    struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof(sin);
    int v;
    SHOW("socket bad family", socket(12345, SOCK_STREAM, 0));
    SHOW("socket bad type", socket(AF_INET, 77, 0));
    SHOW("socket bad protocol", socket(AF_INET, SOCK_STREAM, IPPROTO_UDP));
    SHOW("socketpair inet", socketpair(AF_INET, SOCK_STREAM, 0, (int[2]){ 0, 0 }));
    SHOW("socketpair bad pointer", socketpair(AF_UNIX, SOCK_STREAM, 0, bad_ptr()));
    SHOW("getsockname EBADF", getsockname(999, (struct sockaddr *)&sin, &len));
    SHOW("getsockname ENOTSOCK", getsockname(f, (struct sockaddr *)&sin, &len));
    SHOW("sendto EBADF", sendto(-1, "x", 1, 0, NULL, 0));
    SHOW("recv ENOTSOCK", recv(f, &v, sizeof(v), 0));
    SHOW("getsockopt ENOTSOCK", getsockopt(f, SOL_SOCKET, SO_TYPE, &v, &len));
    SHOW("listen ENOTSOCK", listen(f, 1));
    SHOW("shutdown EBADF", shutdown(999, SHUT_RDWR));
    SHOW("accept EBADF", accept(999, NULL, NULL));
    /* The fd is checked before the pointer, as natively. */
    SHOW("bind EBADF and bad pointer", bind(999, bad_ptr(), sizeof(sin)));
    SHOW("connect ENOTSOCK and bad pointer", connect(f, bad_ptr(), sizeof(sin)));
    SHOW("sendmsg EBADF and bad msghdr", sendmsg(999, bad_ptr(), 0));

    int s = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in me;
    SHOW("bind", bind(s, (struct sockaddr *)&sin, sizeof(sin)));
    len = sizeof(me);
    SHOW("getsockname", getsockname(s, (struct sockaddr *)&me, &len));
    SHOW("bind bad pointer", bind(s, bad_ptr(), sizeof(sin)));
    SHOW("bind NULL", bind(s, NULL, sizeof(sin)));
    SHOW("bind too long", bind(s, (struct sockaddr *)&sin, 129));
    SHOW("bind too short", bind(s, (struct sockaddr *)&sin, 4));
    SHOW("connect bad pointer", connect(s, bad_ptr(), sizeof(sin)));
    SHOW("getsockname bad address", getsockname(s, bad_ptr(), &len));
    SHOW("getsockname bad length", getsockname(s, (struct sockaddr *)&sin, bad_ptr()));
    len = (socklen_t)-5;
    SHOW("getsockname negative length", getsockname(s, (struct sockaddr *)&sin, &len));
    len = sizeof(v);
    SHOW("getsockopt bad value", getsockopt(s, SOL_SOCKET, SO_TYPE, bad_ptr(), &len));
    SHOW("getsockopt bad length", getsockopt(s, SOL_SOCKET, SO_TYPE, &v, bad_ptr()));
    SHOW("getsockopt unknown option", getsockopt(s, SOL_SOCKET, 9999, &v, &len));
    SHOW("setsockopt bad value", setsockopt(s, SOL_SOCKET, SO_REUSEADDR, bad_ptr(), sizeof(int)));
    SHOW("setsockopt unknown level", setsockopt(s, 9999, 1, &v, sizeof(v)));
    SHOW("sendto bad buffer", sendto(s, bad_ptr(), 10, 0, (struct sockaddr *)&me, sizeof(me)));
    SHOW("sendto bad address", sendto(s, "x", 1, 0, bad_ptr(), sizeof(me)));
    SHOW("sendmsg bad msghdr", sendmsg(s, bad_ptr(), 0));
    SHOW("recvmsg bad msghdr", recvmsg(s, bad_ptr(), MSG_DONTWAIT));
    struct iovec iov = { bad_ptr(), 10 };
    struct msghdr mh = { .msg_name = &me, .msg_namelen = sizeof(me), .msg_iov = &iov, .msg_iovlen = 1 };
    SHOW("sendmsg bad iov buffer", sendmsg(s, &mh, 0));
    mh.msg_iov = bad_ptr();
    SHOW("sendmsg bad iov array", sendmsg(s, &mh, 0));
    mh.msg_iovlen = 5000;
    SHOW("sendmsg too many iovecs", sendmsg(s, &mh, 0));
    iov.iov_base = &v;
    iov.iov_len = (size_t)-1;
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1;
    SHOW("sendmsg negative iov_len", sendmsg(s, &mh, 0));
    iov.iov_len = sizeof(v);
    mh.msg_control = bad_ptr();
    mh.msg_controllen = 32;
    SHOW("sendmsg bad control", sendmsg(s, &mh, 0));
#ifdef __i386__
    mh.msg_controllen = (size_t)INT_MAX + 1;
#else
    mh.msg_controllen = (size_t)1 << 40;
#endif
    SHOW("sendmsg huge control", sendmsg(s, &mh, 0));

    /* A datagram to ourselves, then received into a read-only page. */
    sendto(s, "ro", 2, 0, (struct sockaddr *)&me, sizeof(me));
    void *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    SHOW("recv into a read-only page", recv(s, ro, 16, 0));
    munmap(ro, 4096);
    SHOW("accept on udp", accept(s, NULL, NULL));
    SHOW("listen on udp", listen(s, 1));
    close(s);

    int t = socket(AF_INET, SOCK_STREAM, 0);
    SHOW("accept not listening", accept(t, NULL, NULL));
    SHOW("accept4 bad flags", accept4(t, NULL, NULL, 0x12345));
    SHOW("send not connected", send(t, "x", 1, MSG_NOSIGNAL));
    SHOW("getpeername not connected", getpeername(t, (struct sockaddr *)&sin, &len));
    SHOW("shutdown not connected", shutdown(t, SHUT_RD));
    close(t);
    close(f);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    unix_pairs();
    pass_fds();
    pass_credentials();
    filters();
    named_unix();
    tcp_v4();
    udp_v4();
    udp_msghdr();
    ipv6();
    netlink();
    threads();
    errors();
    return 0;
}
