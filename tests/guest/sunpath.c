/* sunpath PATH: an AF_UNIX datagram socket bound to PATH, its name as
 * getsockname() gives it, a datagram sent to PATH from a second socket
 * bound to PATH.peer, and the sender's name as recvfrom() gives it.  Used
 * by tests/e2e/sysroot.sh: under -L the paths are the guest's view. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static socklen_t name(struct sockaddr_un *a, const char *path)
{
    memset(a, 0, sizeof(*a));
    a->sun_family = AF_UNIX;
    snprintf(a->sun_path, sizeof(a->sun_path), "%s", path);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path) + 1);
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    char peer_path[200];
    snprintf(peer_path, sizeof(peer_path), "%s.peer", argv[1]);
    struct sockaddr_un a, p, got;
    socklen_t alen = name(&a, argv[1]), plen = name(&p, peer_path), glen = sizeof(got);
    int s = socket(AF_UNIX, SOCK_DGRAM, 0), t = socket(AF_UNIX, SOCK_DGRAM, 0);
    if (bind(s, (struct sockaddr *)&a, alen) != 0 || bind(t, (struct sockaddr *)&p, plen) != 0) {
        perror("bind");
        return 1;
    }
    if (getsockname(s, (struct sockaddr *)&got, &glen) != 0)
        return 1;
    printf("bound %s\n", got.sun_path);
    if (sendto(t, "hi", 2, 0, (struct sockaddr *)&a, alen) != 2) {
        perror("sendto");
        return 1;
    }
    char buf[8] = { 0 };
    glen = sizeof(got);
    if (recvfrom(s, buf, sizeof(buf) - 1, 0, (struct sockaddr *)&got, &glen) != 2)
        return 1;
    printf("received %s from %s\n", buf, got.sun_path);
    unlink(argv[1]);
    unlink(peer_path);
    return 0;
}
