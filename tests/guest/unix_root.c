/* AF_UNIX path names under -L ROOT (tests/e2e/net_root.sh): argv[1] is
 * ROOT's host path.  Sockets bound at host paths inside ROOT are reached by
 * the guest under their names below ROOT, and addresses the kernel returns
 * show those names. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static socklen_t name(struct sockaddr_un *sun, const char *a, const char *b)
{
    memset(sun, 0, sizeof(*sun));
    sun->sun_family = AF_UNIX;
    snprintf(sun->sun_path, sizeof(sun->sun_path), "%s%s", a, b);
    return (socklen_t)(sizeof(sa_family_t) + strlen(sun->sun_path) + 1);
}

static void show(const char *what, int fd, int peer)
{
    struct sockaddr_un sun;
    socklen_t len = sizeof(sun);
    memset(&sun, 0, sizeof(sun));
    int r = peer ? getpeername(fd, (struct sockaddr *)&sun, &len)
                 : getsockname(fd, (struct sockaddr *)&sun, &len);
    printf("%s: %d %s len %u\n", what, r, sun.sun_path, (unsigned)len);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    struct sockaddr_un sun;
    socklen_t len = name(&sun, argv[1], "/stream");
    int l = socket(AF_UNIX, SOCK_STREAM, 0);
    printf("bind at the host path: %d\n", bind(l, (struct sockaddr *)&sun, len));
    listen(l, 1);
    show("listener", l, 0);
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    len = name(&sun, "/stream", "");
    int r = connect(s, (struct sockaddr *)&sun, len);
    printf("connect /stream: %d\n", r);
    show("peer", s, 1);
    if (r == 0) /* else nothing is pending and accept would block */
        printf("accepted %d\n", accept(l, NULL, NULL) >= 0);

    int d1 = socket(AF_UNIX, SOCK_DGRAM, 0), d2 = socket(AF_UNIX, SOCK_DGRAM, 0);
    len = name(&sun, argv[1], "/dgram");
    bind(d1, (struct sockaddr *)&sun, len);
    len = name(&sun, argv[1], "/sender");
    bind(d2, (struct sockaddr *)&sun, len);
    len = name(&sun, "/dgram", "");
    printf("sendto /dgram: %zd\n", sendto(d2, "hi", 2, 0, (struct sockaddr *)&sun, len));
    char buf[8] = { 0 };
    struct sockaddr_un from;
    socklen_t flen = sizeof(from);
    memset(&from, 0, sizeof(from));
    ssize_t n = recvfrom(d1, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&from, &flen);
    printf("recvfrom: %zd %s from %s len %u\n", n, buf, from.sun_path, (unsigned)flen);

    struct iovec iov = { "msg", 3 };
    struct msghdr mh = { .msg_name = &sun, .msg_namelen = name(&sun, "/dgram", ""),
                         .msg_iov = &iov, .msg_iovlen = 1 };
    printf("sendmsg /dgram: %zd\n", sendmsg(d2, &mh, 0));
    memset(buf, 0, sizeof(buf));
    memset(&from, 0, sizeof(from));
    iov.iov_base = buf;
    iov.iov_len = sizeof(buf);
    mh.msg_name = &from;
    mh.msg_namelen = sizeof(from);
    n = recvmsg(d1, &mh, MSG_DONTWAIT);
    printf("recvmsg: %zd %s from %s len %u\n", n, buf, from.sun_path, (unsigned)mh.msg_namelen);

    /* Longer than a sockaddr_un: EINVAL, translated or not. */
    struct sockaddr_storage big;
    memset(&big, 0, sizeof(big));
    memcpy(&big, &sun, sizeof(sun));
    len = name((struct sockaddr_un *)&big, "/dgram", "");
    errno = 0;
    r = sendto(d2, "x", 1, 0, (struct sockaddr *)&big, sizeof(struct sockaddr_un) + 8);
    printf("sendto with a 118-byte address: %d %s\n", r, strerror(errno));

    len = name(&sun, "/missing", "");
    errno = 0;
    r = connect(socket(AF_UNIX, SOCK_STREAM, 0), (struct sockaddr *)&sun, len);
    printf("connect /missing: %d %s\n", r, strerror(errno));
    return 0;
}
