/* sendmsg, recvmsg, sendmmsg and recvmmsg for x86_64 guests.  The guest's
 * msghdr is rebuilt for the host with every pointer translated: the address
 * through a local sockaddr_storage, each iovec buffer, and the control
 * buffer.  Control messages (SCM_RIGHTS, SCM_CREDENTIALS, timestamps, IP
 * options...) have the same layout for an x86_64 guest as for the host and
 * guest fds are host fds, so the host kernel reads and writes them straight
 * in the checked guest buffer: it bounds them by msg_controllen, truncates
 * and sets MSG_CTRUNC exactly as natively.  (An ia32 guest would need them
 * converted; only x86_64 is served.)  After a receive, the address length,
 * msg_flags and msg_controllen go back to the guest in the kernel's order. */
#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "syscalls/net.h"

#define MAX_IOV 1024 /* UIO_MAXIOV: the kernel refuses longer iovec arrays */

static_assert(sizeof(struct guest_iovec) == sizeof(struct iovec), "iovec layout");
static_assert(sizeof(struct guest_msghdr) == 56, "msghdr layout");
static_assert(offsetof(struct guest_msghdr, namelen) == offsetof(struct msghdr, msg_namelen),
              "msghdr layout");
static_assert(offsetof(struct guest_msghdr, controllen) == offsetof(struct msghdr, msg_controllen),
              "msghdr layout");
static_assert(offsetof(struct guest_msghdr, flags) == offsetof(struct msghdr, msg_flags),
              "msghdr layout");
static_assert(sizeof(struct guest_mmsghdr) == sizeof(struct mmsghdr), "mmsghdr layout");
static_assert(offsetof(struct guest_mmsghdr, len) == offsetof(struct mmsghdr, msg_len),
              "mmsghdr layout");

/* The iovecs the host needs for a guest msghdr (0 when the kernel refuses
 * the array before reading it). */
static uint64_t iov_count(const struct guest_msghdr *g)
{
    return g->iovlen <= MAX_IOV ? g->iovlen : 0;
}

/* Build the host msghdr h for the guest's g.  Buffers need prot: PROT_READ
 * to send, PROT_WRITE to receive.  name is room for the address, iov for
 * iov_count(g) entries.  What the guest got wrong is left for the host
 * kernel to find, in its order (see net_uptr).  0, or the -errno of an
 * AF_UNIX path that cannot be translated. */
static int msg_in(struct cpu *c, const struct guest_msghdr *g, int prot, struct msghdr *h,
                  struct sockaddr_storage *name, struct iovec *iov)
{
    memset(h, 0, sizeof(*h));
    h->msg_namelen = (socklen_t)g->namelen;
    if (g->name && prot == PROT_READ) {
        /* sendmsg takes at most a sockaddr_storage of a longer address. */
        int len = g->namelen < (int)sizeof(*name) ? g->namelen : (int)sizeof(*name);
        int given = len;
        h->msg_name = (void *)net_addr_in(c, g->name, &len, name, false);
        if (h->msg_name == name && len != given)
            h->msg_namelen = (socklen_t)len; /* an AF_UNIX path translated for -L */
        /* An AF_UNIX path too long once translated: ENAMETOOLONG, as for
         * bind, connect and sendto. */
        if (!h->msg_name && len < 0)
            return len;
    } else if (g->name) {
        h->msg_name = name; /* filled by the host, given back by msg_out */
    }

    h->msg_iovlen = g->iovlen;
    h->msg_iov = HOST_FAULT_ADDR; /* a longer array is EMSGSIZE before it is read */
    if (g->iovlen <= MAX_IOV) {
        uint64_t size = g->iovlen * sizeof(struct guest_iovec);
        const struct guest_iovec *gi = guest_buf(c, g->iov, size, PROT_READ);
        h->msg_iov = gi ? iov : net_uptr(c, g->iov, size, PROT_READ);
        for (uint64_t i = 0; gi && i < g->iovlen; i++) {
            /* A length that is negative as ssize_t is the host's EINVAL. */
            iov[i].iov_base = net_uptr(c, gi[i].base, gi[i].len, prot);
            iov[i].iov_len = gi[i].len;
        }
    }

    /* A length above INT_MAX is the host's ENOBUFS when sending. */
    h->msg_control = net_uptr(c, g->control, g->controllen, prot);
    h->msg_controllen = g->controllen;
    h->msg_flags = (int)g->flags;
    return 0;
}

/* After a receive: the address, msg_flags and msg_controllen (the bytes of
 * control messages the host wrote) go back to the guest's msghdr at addr,
 * in the order of the kernel's ___sys_recvmsg().  0 or -errno. */
static int msg_out(struct cpu *c, uint64_t addr, const struct guest_msghdr *g,
                   const struct msghdr *h, const struct sockaddr_storage *name)
{
    if (g->name) {
        int e = net_addr_out(c, g->name, addr + offsetof(struct guest_msghdr, namelen), name,
                             h->msg_namelen);
        if (e)
            return e;
    }
    uint32_t flags = (uint32_t)h->msg_flags;
    uint64_t controllen = h->msg_controllen;
    if (copy_to_guest(c, addr + offsetof(struct guest_msghdr, flags), &flags, sizeof(flags)) ||
        copy_to_guest(c, addr + offsetof(struct guest_msghdr, controllen), &controllen,
                      sizeof(controllen)))
        return -EFAULT;
    return 0;
}

int64_t sys_sendmsg(struct cpu *c, const uint64_t a[6])
{
    int fd = (int)a[0], flags = (int)a[2];
    struct guest_msghdr g;
    if (copy_from_guest(c, &g, a[1], sizeof(g)) != 0)
        return host_ret(syscall(SYS_sendmsg, fd, net_uptr(c, a[1], sizeof(g), PROT_READ), flags));
    struct msghdr h;
    struct sockaddr_storage name;
    struct iovec iov[MAX_IOV];
    int e = msg_in(c, &g, PROT_READ, &h, &name, iov);
    return e ? e : host_ret(syscall(SYS_sendmsg, fd, &h, flags));
}

int64_t sys_recvmsg(struct cpu *c, const uint64_t a[6])
{
    int fd = (int)a[0], flags = (int)a[2];
    struct guest_msghdr g;
    if (copy_from_guest(c, &g, a[1], sizeof(g)) != 0)
        return host_ret(syscall(SYS_recvmsg, fd, net_uptr(c, a[1], sizeof(g), PROT_READ), flags));
    struct msghdr h;
    struct sockaddr_storage name;
    struct iovec iov[MAX_IOV];
    (void)msg_in(c, &g, PROT_WRITE, &h, &name, iov); /* reads no address: cannot fail */
    int64_t n = syscall(SYS_recvmsg, fd, &h, flags);
    if (n < 0)
        return -errno;
    /* The data stays received when the header cannot be updated. */
    int e = msg_out(c, a[1], &g, &h, &name);
    return e ? e : n;
}

/* ------------------------------------------------------------ mmsg */

void *net_mmsg_take(struct cpu *c, uint64_t addr, uint64_t vlen, size_t size,
                    uint64_t (*iovs)(const void *entry), uint64_t *n, uint64_t *niov)
{
    char *g = calloc(vlen ? vlen : 1, size);
    if (!g)
        return NULL;
    *n = *niov = 0;
    for (; *n < vlen; ++*n) {
        uint64_t at = addr + *n * size;
        const void *p = guest_buf(c, at, size, PROT_WRITE);
        /* An entry the kernel can read but not update is still sent or
         * received; the batch ends with it, its write-back fails later. */
        const void *ro = p ? NULL : guest_buf(c, at, size, PROT_READ);
        if (!p && !ro)
            break;
        memcpy(g + *n * size, p ? p : ro, size);
        *niov += iovs(g + *n * size);
        if (ro) {
            ++*n;
            break;
        }
    }
    return g;
}

int64_t net_mmsg_host(struct cpu *c, bool recv, int fd, uint64_t addr, uint64_t vlen,
                      struct mmsghdr *h, uint64_t n, int flags, struct timespec *ts)
{
    /* No readable entry at all: one the host fails to read gives the
     * kernel's EFAULT after its fd and pending-error checks. */
    void *arr = h;
    if (n == 0 && vlen > 0) {
        arr = net_uptr(c, addr, sizeof(*h), PROT_READ);
        n = 1;
    }
    return recv ? syscall(SYS_recvmmsg, fd, arr, (unsigned)n, flags, ts)
                : syscall(SYS_sendmmsg, fd, arr, (unsigned)n, flags);
}

static uint64_t mmsg_iov_count(const void *entry)
{
    return iov_count(&((const struct guest_mmsghdr *)entry)->hdr);
}

/* sendmmsg and recvmmsg: the guest's entries become one host array and one
 * host call, so the host keeps its own semantics (MSG_WAITFORONE, the
 * timeout checked between datagrams, an error after the first datagram
 * kept for the next call).  Entries are taken while the guest's array is
 * readable and writable (msg_len is written back); a bad entry ends the
 * batch where the kernel would stop.  vlen is capped at UIO_MAXIOV as the
 * kernel does for sendmmsg; recvmmsg, which the kernel does not cap, also
 * receives at most 1024 messages per call here. */
static int64_t mmsg(struct cpu *c, const uint64_t a[6], int recv)
{
    int fd = (int)a[0], flags = (int)a[3];
    uint64_t vlen = (uint32_t)a[2];
    if (vlen > MAX_IOV)
        vlen = MAX_IOV;

    struct timespec ts, *tsp = NULL;
    if (recv && a[4])
        tsp = copy_from_guest(c, &ts, a[4], sizeof(ts)) == 0 ? &ts : HOST_FAULT_ADDR;

    uint64_t n, niov;
    struct guest_mmsghdr *g = net_mmsg_take(c, a[1], vlen, sizeof(*g), mmsg_iov_count, &n, &niov);
    if (!g)
        return -ENOMEM;
    struct mmsghdr *h = calloc(n ? n : 1, sizeof(*h));
    struct sockaddr_storage *names = calloc(n ? n : 1, sizeof(*names));
    struct iovec *iov = calloc(niov ? niov : 1, sizeof(*iov));
    int64_t r = -ENOMEM;
    if (!h || !names || !iov)
        goto out;
    for (uint64_t i = 0, off = 0; i < n; i++) {
        int e = msg_in(c, &g[i].hdr, recv ? PROT_WRITE : PROT_READ, &h[i].msg_hdr, &names[i],
                       iov + off);
        if (e && i == 0) {
            r = e;
            goto out;
        }
        if (e)
            n = i; /* the kernel would stop at this entry */
        off += iov_count(&g[i].hdr);
    }

    r = net_mmsg_host(c, recv, fd, a[1], vlen, h, n, flags, tsp);
    if (r < 0) {
        r = -errno;
        goto out;
    }
    for (int64_t i = 0; i < r; i++) {
        uint64_t at = a[1] + (uint64_t)i * sizeof(*g);
        int e = recv ? msg_out(c, at, &g[i].hdr, &h[i].msg_hdr, &names[i]) : 0;
        if (!e)
            e = copy_to_guest(c, at + offsetof(struct guest_mmsghdr, len), &h[i].msg_len,
                              sizeof(h[i].msg_len));
        if (e) {
            /* The kernel would have stopped at this entry. */
            r = i ? i : e;
            goto out;
        }
    }
    /* The time left goes back only when messages were received. */
    if (tsp == &ts && r > 0 && copy_to_guest(c, a[4], &ts, sizeof(ts)) != 0)
        r = -EFAULT;
out:
    free(g);
    free(h);
    free(names);
    free(iov);
    return r;
}

int64_t sys_sendmmsg(struct cpu *c, const uint64_t a[6])
{
    return mmsg(c, a, 0);
}

int64_t sys_recvmmsg(struct cpu *c, const uint64_t a[6])
{
    return mmsg(c, a, 1);
}
