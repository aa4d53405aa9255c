/* Sockets for i386 guests: the socketcall (102) multiplexer, the options
 * whose values hold a timeval or a pointer, and the message calls with the
 * 32-bit msghdr, mmsghdr and cmsghdr.
 *
 * Socket addresses, ints, ucred, linger and the byte buffers have the same
 * layout on both ABIs, so socket, bind, sendto, accept4... go to the x86_64
 * handlers (net.c).  What differs is done here as Linux's compat layer does
 * it (net/compat.c, net/socket.c):
 * - msghdr: 28 bytes of 32-bit fields; iovec: two 32-bit words;
 * - cmsghdr: 12 bytes, data and messages 4-byte aligned.  A sent control
 *   buffer is rebuilt in the host's layout (cmsghdr_from_user_compat_to_kern);
 *   a received one is taken by the host into a buffer big enough for all it
 *   has, then written to the guest message by message as put_cmsg_compat and
 *   scm_detach_fds_compat do: the old timestamps (SO_TIMESTAMP,
 *   SO_TIMESTAMPNS, SO_TIMESTAMPING) shrink to 32-bit timeval/timespec,
 *   truncation sets MSG_CTRUNC where the kernel does, and passed descriptors
 *   that do not fit the guest's buffer are closed again (the host installed
 *   them; the guest never sees them, as natively they are never installed);
 * - SO_RCVTIMEO/SO_SNDTIMEO take and give a 32-bit timeval, SO_ATTACH_FILTER
 *   an 8-byte sock_fprog, MCAST_JOIN_GROUP... a packed group_req;
 * - socketcall's RECVMMSG and recvmmsg (337) take a 32-bit timespec.
 * When a guest structure is bad, the host is handed something it refuses at
 * the same step (HOST_FAULT_ADDR), so the checks the kernel makes first
 * (EBADF, ENOTSOCK, the address, the iovec) still come first. */
#include <errno.h>
#include <limits.h>
#include <linux/filter.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "syscalls/ia32_time.h"
#include "syscalls/net.h"

#define MAX_IOV 1024 /* UIO_MAXIOV */

struct msghdr32 {
    uint32_t name;
    int32_t namelen;
    uint32_t iov, iovlen, control, controllen, flags;
};

struct mmsghdr32 {
    struct msghdr32 hdr;
    uint32_t len;
};

struct iovec32 {
    uint32_t base, len;
};

struct cmsghdr32 {
    uint32_t len;
    int32_t level, type;
};

struct timeval32 {
    int32_t sec, usec;
};

struct timespec32 {
    int32_t sec, nsec;
};

#define CMSG32_ALIGN(n) (((n) + 3u) & ~3u)
#define CMSG32_HDR ((uint32_t)sizeof(struct cmsghdr32))
#define MSG_CMSG_COMPAT_BIT 0x80000000u /* the kernel's internal compat flag */

/* The old SOL_SOCKET timestamp and timeout names (i386 and x86_64 agree). */
#define SO_TIMESTAMP_OLD_ 29
#define SO_TIMESTAMPNS_OLD_ 35
#define SO_TIMESTAMPING_OLD_ 37
#define SO_RCVTIMEO_OLD_ 20
#define SO_SNDTIMEO_OLD_ 21

_Static_assert(sizeof(struct msghdr32) == 28, "compat_msghdr");
_Static_assert(sizeof(struct mmsghdr32) == 32, "compat_mmsghdr");

/* ------------------------------------------------------------ options */

/* group_req and group_source_req: the i386 ones are packed (no padding
 * after the interface), 132 and 260 bytes instead of 136 and 264. */
#define GROUP_REQ32 (4 + 128)
#define GROUP_SOURCE_REQ32 (4 + 2 * 128)

static bool is_group_opt(int level, int name)
{
    return (level == SOL_IP || level == SOL_IPV6) &&
           (name == MCAST_JOIN_GROUP || name == MCAST_LEAVE_GROUP || name == MCAST_BLOCK_SOURCE ||
            name == MCAST_UNBLOCK_SOURCE || name == MCAST_JOIN_SOURCE_GROUP ||
            name == MCAST_LEAVE_SOURCE_GROUP);
}

int64_t sys_setsockopt_ia32(struct cpu *c, const uint64_t a[6])
{
    int fd = (int)a[0], level = (int)a[1], name = (int)a[2], len = (int)a[4];
    uint64_t b[6] = { a[0], a[1], a[2], a[3], a[4], 0 };
    if (level == SOL_SOCKET && (name == SO_RCVTIMEO_OLD_ || name == SO_SNDTIMEO_OLD_)) {
        /* sock_set_timeout(): at least a 32-bit timeval, then read. */
        struct timeval32 t32;
        if (len < (int)sizeof(t32) || copy_from_guest(c, &t32, a[3], sizeof(t32)) != 0)
            return sys_setsockopt(c, b); /* EINVAL or EFAULT, in the host's order */
        struct timeval tv = { t32.sec, t32.usec };
        return host_ret(syscall(SYS_setsockopt, fd, level, name, &tv, sizeof(tv)));
    }
    if ((level == SOL_SOCKET && (name == SO_ATTACH_FILTER || name == SO_ATTACH_REUSEPORT_CBPF)) ||
        (level == SOL_PACKET && name == 22 /* PACKET_FANOUT_DATA */)) {
        /* struct compat_sock_fprog: u16 len, a 32-bit pointer; any other
         * length is EINVAL (the host's own size must not pass). */
        uint32_t f32[2];
        if (len != 8 || copy_from_guest(c, f32, a[3], sizeof(f32)) != 0) {
            b[4] = len == (int)sizeof(struct sock_fprog) ? 8 : a[4];
            return sys_setsockopt(c, b);
        }
        struct sock_fprog prog = { (unsigned short)f32[0], NULL };
        prog.filter = net_uptr(c, f32[1], (uint64_t)prog.len * sizeof(struct sock_filter),
                               PROT_READ);
        return host_ret(syscall(SYS_setsockopt, fd, level, name, &prog, sizeof(prog)));
    }
    if (is_group_opt(level, name)) {
        /* compat_ip_mcast_join_leave() and co.: the interface, then one or
         * two sockaddr_storage at offset 4 instead of 8. */
        int need = name == MCAST_JOIN_GROUP || name == MCAST_LEAVE_GROUP ? GROUP_REQ32
                                                                          : GROUP_SOURCE_REQ32;
        size_t hlen = need == GROUP_REQ32 ? sizeof(struct group_req) : sizeof(struct group_source_req);
        /* IPv4's source calls want the exact size, the others at least it. */
        bool exact = level == SOL_IP && need == GROUP_SOURCE_REQ32;
        struct group_source_req g;
        unsigned char raw[GROUP_SOURCE_REQ32];
        if (len < need || (exact && len != need)) {
            b[4] = len < need ? a[4] : (uint64_t)need; /* the host's EINVAL */
            return sys_setsockopt(c, b);
        }
        if (copy_from_guest(c, raw, a[3], (uint64_t)need) != 0) {
            b[4] = hlen; /* the host's EFAULT */
            return sys_setsockopt(c, b);
        }
        memset(&g, 0, sizeof(g));
        memcpy(&g.gsr_interface, raw, 4);
        memcpy(&g.gsr_group, raw + 4, 128);
        if (need == GROUP_SOURCE_REQ32)
            memcpy(&g.gsr_source, raw + 4 + 128, 128);
        return host_ret(syscall(SYS_setsockopt, fd, level, name, &g, hlen));
    }
    if ((level == SOL_IP || level == SOL_IPV6) && name == MCAST_MSFILTER)
        return -EOPNOTSUPP; /* the packed group_filter is not converted */
    return sys_setsockopt(c, b);
}

int64_t sys_getsockopt_ia32(struct cpu *c, const uint64_t a[6])
{
    int fd = (int)a[0], level = (int)a[1], name = (int)a[2];
    if ((level == SOL_IP || level == SOL_IPV6) && (name == MCAST_MSFILTER || name == IP_PKTOPTIONS))
        return -EOPNOTSUPP; /* packed group_filter, compat cmsgs: not converted */
    if (level != SOL_SOCKET || (name != SO_RCVTIMEO_OLD_ && name != SO_SNDTIMEO_OLD_))
        return sys_getsockopt(c, a);
    int len;
    if (copy_from_guest(c, &len, a[4], sizeof(len)) != 0 || len < 0)
        return sys_getsockopt(c, a); /* EFAULT or EINVAL after the fd checks */
    struct timeval tv;
    socklen_t hlen = sizeof(tv);
    if (syscall(SYS_getsockopt, fd, level, name, &tv, &hlen) != 0)
        return -errno;
    /* sock_get_timeout(): a 32-bit timeval, cut to the guest's length. */
    struct timeval32 t32 = { (int32_t)tv.tv_sec, (int32_t)tv.tv_usec };
    if (len > (int)sizeof(t32))
        len = sizeof(t32);
    if (copy_to_guest(c, a[3], &t32, (uint64_t)len) != 0 ||
        copy_to_guest(c, a[4], &len, sizeof(len)) != 0)
        return -EFAULT;
    return 0;
}

/* ------------------------------------------------------------ msghdr */

/* A host msghdr built from a guest's 32-bit one, with its buffers. */
struct hmsg {
    struct msghdr h;
    struct sockaddr_storage name;
    unsigned char *ctl; /* malloc'ed host control buffer, or NULL */
};

/* cmsghdr_from_user_compat_to_kern(): the guest's 4-byte aligned control
 * messages (len bytes at addr) in the host's layout.  0 or -EINVAL/-EFAULT/
 * -ENOMEM; on success *out is a malloc'ed buffer of *outlen bytes. */
static int cmsgs_in(struct cpu *c, uint64_t addr, uint32_t len, unsigned char **out,
                    size_t *outlen)
{
    /* First pass: the size of the host's buffer; every header is read. */
    size_t klen = 0;
    for (uint32_t off = 0; len >= CMSG32_HDR && off <= len - CMSG32_HDR;) {
        uint32_t ulen;
        if (copy_from_guest(c, &ulen, addr + off, sizeof(ulen)) != 0)
            return -EFAULT;
        if (ulen < CMSG32_HDR || ulen > len - off)
            return -EINVAL;
        klen += CMSG_ALIGN(ulen - CMSG32_HDR + sizeof(struct cmsghdr));
        /* cmsg_compat_nxthdr(): the next header needs at least one byte. */
        uint64_t next = (uint64_t)off + CMSG32_ALIGN((uint64_t)ulen);
        if (next + 1 > len)
            break;
        off = (uint32_t)next;
    }
    if (klen == 0)
        return -EINVAL;
    unsigned char *k = calloc(1, klen);
    if (!k)
        return -ENOMEM;
    size_t koff = 0;
    for (uint32_t off = 0; off <= len - CMSG32_HDR;) {
        struct cmsghdr32 u;
        if (copy_from_guest(c, &u, addr + off, sizeof(u)) != 0)
            goto efault;
        /* The guest may have changed it since the first pass. */
        if (u.len < CMSG32_HDR || u.len > len - off)
            goto einval;
        size_t tmp = u.len - CMSG32_HDR + sizeof(struct cmsghdr);
        if (klen - koff < CMSG_ALIGN(tmp))
            goto einval;
        struct cmsghdr *kc = (struct cmsghdr *)(k + koff);
        kc->cmsg_len = tmp;
        kc->cmsg_level = u.level;
        kc->cmsg_type = u.type;
        if (copy_from_guest(c, CMSG_DATA(kc), addr + off + CMSG32_HDR, u.len - CMSG32_HDR) != 0)
            goto efault;
        koff += CMSG_ALIGN(tmp);
        uint64_t next = (uint64_t)off + CMSG32_ALIGN((uint64_t)u.len);
        if (next + 1 > len)
            break;
        off = (uint32_t)next;
    }
    if (koff != klen)
        goto einval;
    *out = k;
    *outlen = klen;
    return 0;
efault:
    free(k);
    return -EFAULT;
einval:
    free(k);
    return -EINVAL;
}

/* The room the host gets for control messages a guest receives into len
 * bytes: each 32-bit message grows at most to twice its size plus a little
 * in the host's layout (16-byte header, 8-byte alignment, 64-bit times). */
static size_t host_ctl_room(uint32_t len)
{
    size_t n = 2 * (size_t)len + 64;
    return n > 256 * 1024 ? 256 * 1024 : n;
}

/* Build m->h from the guest's g: the address (read for a send), the
 * iovecs (iov: room for MAX_IOV), the control buffer (converted for a send,
 * room for the host for a receive).  What the guest got wrong before the
 * control buffer is left for the host to find.  Returns 0, -errno of an
 * AF_UNIX path that cannot be translated (*ctl_err stays 0), or 0 with
 * *ctl_err set when the control messages are bad: then the host is given a
 * control buffer it fails to read (EFAULT), so that after the host's own
 * checks the caller can give *ctl_err instead. */
static int msg32_in(struct cpu *c, const struct msghdr32 *g, bool recv, struct hmsg *m,
                    struct iovec *iov, int *ctl_err)
{
    struct msghdr *h = &m->h;
    memset(h, 0, sizeof(*h));
    m->ctl = NULL;
    *ctl_err = 0;
    h->msg_namelen = (socklen_t)g->namelen;
    if (g->name && !recv) {
        int len = g->namelen < (int)sizeof(m->name) ? g->namelen : (int)sizeof(m->name);
        int given = len;
        h->msg_name = (void *)net_addr_in(c, g->name, &len, &m->name, false);
        if (h->msg_name == &m->name && len != given)
            h->msg_namelen = (socklen_t)len;
        if (!h->msg_name && len < 0)
            return len;
    } else if (g->name) {
        h->msg_name = &m->name;
    }

    h->msg_iovlen = g->iovlen;
    h->msg_iov = HOST_FAULT_ADDR; /* a longer array is EMSGSIZE before it is read */
    if (g->iovlen <= MAX_IOV) {
        uint64_t size = (uint64_t)g->iovlen * sizeof(struct iovec32);
        const struct iovec32 *gi = guest_buf(c, g->iov, size, PROT_READ);
        h->msg_iov = gi ? iov : net_uptr(c, g->iov, size, PROT_READ);
        for (uint32_t i = 0; gi && i < g->iovlen; i++) {
            /* compat_ssize_t: a length negative as 32 bits is EINVAL. */
            int64_t l = (int32_t)gi[i].len;
            iov[i].iov_base = net_uptr(c, gi[i].base, gi[i].len, recv ? PROT_WRITE : PROT_READ);
            iov[i].iov_len = (size_t)l;
        }
    }

    h->msg_flags = (int)g->flags;
    h->msg_controllen = g->controllen;
    if (recv) {
        /* With no buffer the host sets MSG_CTRUNC itself, as Linux does. */
        if (!g->control || !g->controllen) {
            h->msg_control = g->control ? net_uptr(c, g->control, 0, PROT_WRITE) : NULL;
            return 0;
        }
        size_t room = host_ctl_room(g->controllen);
        m->ctl = calloc(1, room);
        if (!m->ctl)
            return -ENOMEM;
        h->msg_control = m->ctl;
        h->msg_controllen = room;
        return 0;
    }
    if (g->controllen > INT_MAX || g->controllen == 0) {
        /* ENOBUFS from the host, or nothing to convert. */
        h->msg_control = g->controllen ? HOST_FAULT_ADDR : net_uptr(c, g->control, 0, PROT_READ);
        return 0;
    }
    size_t klen = 0;
    int e = cmsgs_in(c, g->control, g->controllen, &m->ctl, &klen);
    if (e) {
        *ctl_err = e;
        h->msg_control = HOST_FAULT_ADDR;
        h->msg_controllen = 1;
        return 0;
    }
    h->msg_control = m->ctl;
    h->msg_controllen = klen;
    return 0;
}

/* Where put_cmsg_compat() writes: the guest's control buffer left. */
struct ctl_out {
    uint64_t at;
    uint32_t left;
    int flags;
};

/* put_cmsg_compat() */
static void put_cmsg32(struct cpu *c, struct ctl_out *o, int level, int type, const void *data,
                       uint32_t len)
{
    struct timeval32 tv;
    struct timespec32 ts[3];
    if (!o->at || o->left < CMSG32_HDR) {
        o->flags |= MSG_CTRUNC;
        return;
    }
    if (level == SOL_SOCKET && type == SO_TIMESTAMP_OLD_ && len >= sizeof(struct timeval)) {
        const struct timeval *t = data;
        tv = (struct timeval32){ (int32_t)t->tv_sec, (int32_t)t->tv_usec };
        data = &tv;
        len = sizeof(tv);
    }
    if (level == SOL_SOCKET && (type == SO_TIMESTAMPNS_OLD_ || type == SO_TIMESTAMPING_OLD_)) {
        unsigned n = type == SO_TIMESTAMPNS_OLD_ ? 1 : 3;
        if (len >= n * sizeof(struct timespec)) {
            const struct timespec *t = data;
            for (unsigned i = 0; i < n; i++)
                ts[i] = (struct timespec32){ (int32_t)t[i].tv_sec, (int32_t)t[i].tv_nsec };
            data = ts;
            len = n * (uint32_t)sizeof(ts[0]);
        }
    }
    uint32_t cmlen = CMSG32_HDR + len;
    if (o->left < cmlen) {
        o->flags |= MSG_CTRUNC;
        cmlen = o->left;
    }
    struct cmsghdr32 hd = { cmlen, level, type };
    if (copy_to_guest(c, o->at, &hd, sizeof(hd)) != 0 ||
        copy_to_guest(c, o->at + CMSG32_HDR, data, cmlen - CMSG32_HDR) != 0)
        return;
    uint32_t space = CMSG32_HDR + CMSG32_ALIGN(len);
    if (o->left < space)
        space = o->left;
    o->at += space;
    o->left -= space;
}

/* scm_detach_fds_compat(): as many of the n descriptors as fit; the host
 * installed them all, the ones that do not fit are closed again. */
static void put_fds32(struct cpu *c, struct ctl_out *o, const int *fds, uint32_t n)
{
    uint32_t fit = o->at && o->left > CMSG32_HDR ? (o->left - CMSG32_HDR) / 4 : 0;
    uint32_t max = fit < n ? fit : n, i = 0;
    for (; i < max; i++)
        if (copy_to_guest(c, o->at + CMSG32_HDR + 4 * (uint64_t)i, &fds[i], 4) != 0)
            break;
    for (uint32_t j = i; j < n; j++)
        close(fds[j]);
    if (i > 0) {
        struct cmsghdr32 hd = { CMSG32_HDR + 4 * i, SOL_SOCKET, SCM_RIGHTS };
        if (copy_to_guest(c, o->at, &hd, sizeof(hd)) == 0) {
            uint32_t space = CMSG32_HDR + 4 * i;
            if (o->left < space)
                space = o->left;
            o->at += space;
            o->left -= space;
        }
    }
    if (i < n || (n && max == 0))
        o->flags |= MSG_CTRUNC;
}

/* After a receive: the host's control messages to the guest's buffer, then
 * the address, msg_flags and msg_controllen back into the guest's msghdr at
 * addr, in the order of ___sys_recvmsg().  0 or -errno. */
static int msg32_out(struct cpu *c, uint64_t addr, const struct msghdr32 *g, struct hmsg *m)
{
    struct msghdr *h = &m->h;
    struct ctl_out o = { g->control, g->controllen, h->msg_flags };
    if (m->ctl) {
        for (struct cmsghdr *cm = CMSG_FIRSTHDR(h); cm; cm = CMSG_NXTHDR(h, cm)) {
            if (cm->cmsg_len < sizeof(*cm))
                break;
            uint32_t dlen = (uint32_t)(cm->cmsg_len - CMSG_LEN(0));
            if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
                put_fds32(c, &o, (const int *)CMSG_DATA(cm), dlen / 4);
            else
                put_cmsg32(c, &o, cm->cmsg_level, cm->cmsg_type, CMSG_DATA(cm), dlen);
        }
    }
    if (g->name) {
        int e = net_addr_out(c, g->name, addr + offsetof(struct msghdr32, namelen), &m->name,
                             h->msg_namelen);
        if (e)
            return e;
    }
    uint32_t flags = (uint32_t)o.flags & ~MSG_CMSG_COMPAT_BIT;
    /* With no buffer converted the host's count stands (0 or its own). */
    uint32_t used = m->ctl ? g->controllen - o.left : (uint32_t)h->msg_controllen;
    if (copy_to_guest(c, addr + offsetof(struct msghdr32, flags), &flags, 4) ||
        copy_to_guest(c, addr + offsetof(struct msghdr32, controllen), &used, 4))
        return -EFAULT;
    return 0;
}

/* Descriptors the host passed into a control buffer that never reaches
 * the guest (a failed receive after all): closed. */
static void drop_fds(struct msghdr *h)
{
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(h); cm; cm = CMSG_NXTHDR(h, cm)) {
        if (cm->cmsg_len < sizeof(*cm))
            break;
        if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
            for (size_t i = 0; i < (cm->cmsg_len - CMSG_LEN(0)) / 4; i++)
                close(((int *)CMSG_DATA(cm))[i]);
    }
}

int64_t sys_sendmsg_ia32(struct cpu *c, const uint64_t a[6])
{
    int fd = (int)a[0], flags = (int)((uint32_t)a[2] & ~MSG_CMSG_COMPAT_BIT);
    struct msghdr32 g;
    if (copy_from_guest(c, &g, a[1], sizeof(g)) != 0)
        return host_ret(syscall(SYS_sendmsg, fd, net_uptr(c, a[1], sizeof(g), PROT_READ), flags));
    struct hmsg m;
    struct iovec iov[MAX_IOV];
    int ce, e = msg32_in(c, &g, false, &m, iov, &ce);
    int64_t r = e ? e : host_ret(syscall(SYS_sendmsg, fd, &m.h, flags));
    free(m.ctl);
    return ce && r == -EFAULT ? ce : r;
}

int64_t sys_recvmsg_ia32(struct cpu *c, const uint64_t a[6])
{
    int fd = (int)a[0], flags = (int)((uint32_t)a[2] & ~MSG_CMSG_COMPAT_BIT);
    struct msghdr32 g;
    if (copy_from_guest(c, &g, a[1], sizeof(g)) != 0)
        return host_ret(syscall(SYS_recvmsg, fd, net_uptr(c, a[1], sizeof(g), PROT_READ), flags));
    struct hmsg m;
    struct iovec iov[MAX_IOV];
    int ce, e = msg32_in(c, &g, true, &m, iov, &ce);
    if (e)
        return e;
    int64_t n = host_ret(syscall(SYS_recvmsg, fd, &m.h, flags));
    /* The data stays received when the header cannot be updated. */
    if (n >= 0) {
        e = msg32_out(c, a[1], &g, &m);
        if (e)
            n = e;
    }
    free(m.ctl);
    return n;
}

/* ------------------------------------------------------------ mmsg */

static uint64_t mmsg32_iov_count(const void *entry)
{
    const struct mmsghdr32 *g = entry;
    return g->hdr.iovlen <= MAX_IOV ? g->hdr.iovlen : 0;
}

/* sendmmsg and recvmmsg with 32-bit mmsghdrs: one host call for the whole
 * batch, as net_msg.c does for x86_64 guests (the host keeps its own
 * MSG_WAITFORONE, timeout and error semantics).  ts: the timeout already
 * read (NULL: none; HOST_FAULT_ADDR: unreadable, the host's EFAULT). */
static int64_t mmsg32(struct cpu *c, const uint64_t a[6], bool recv, struct timespec *ts)
{
    int fd = (int)a[0], flags = (int)((uint32_t)a[3] & ~MSG_CMSG_COMPAT_BIT);
    uint64_t vlen = (uint32_t)a[2];
    if (vlen > MAX_IOV)
        vlen = MAX_IOV;
    uint64_t n, niov;
    struct mmsghdr32 *g = net_mmsg_take(c, a[1], vlen, sizeof(*g), mmsg32_iov_count, &n, &niov);
    if (!g)
        return -ENOMEM;
    struct mmsghdr *h = calloc(n ? n : 1, sizeof(*h));
    struct hmsg *m = calloc(n ? n : 1, sizeof(*m));
    struct iovec *iov = calloc(niov ? niov : 1, sizeof(*iov));
    int64_t r = -ENOMEM;
    uint64_t built = 0;
    if (!h || !m || !iov)
        goto out;
    int first_ce = 0;
    for (uint64_t off = 0; built < n; built++) {
        int ce, e = msg32_in(c, &g[built].hdr, recv, &m[built], iov + off, &ce);
        h[built].msg_hdr = m[built].h;
        if ((e || ce) && built > 0) {
            free(m[built].ctl);
            break; /* the kernel would stop at this entry */
        }
        if (e) {
            free(m[built].ctl);
            r = e;
            goto out;
        }
        if (ce) {
            first_ce = ce; /* sent as a probe the host fails at the control */
            built++;
            break;
        }
        off += g[built].hdr.iovlen <= MAX_IOV ? g[built].hdr.iovlen : 0;
    }
    r = net_mmsg_host(c, recv, fd, a[1], vlen, h, built, flags, ts);
    if (r < 0) {
        r = first_ce && errno == EFAULT ? first_ce : -errno;
        goto out;
    }
    for (int64_t i = 0; i < r; i++) {
        uint64_t at = a[1] + (uint64_t)i * sizeof(*g);
        m[i].h = h[i].msg_hdr;
        int e = recv ? msg32_out(c, at, &g[i].hdr, &m[i]) : 0;
        if (!e)
            e = copy_to_guest(c, at + offsetof(struct mmsghdr32, len), &h[i].msg_len, 4);
        if (e) {
            /* The kernel would have stopped at this entry. */
            for (int64_t j = i + 1; recv && j < r; j++) {
                m[j].h = h[j].msg_hdr;
                if (m[j].ctl)
                    drop_fds(&m[j].h);
            }
            r = i ? i : e;
            break;
        }
    }
out:
    for (uint64_t i = 0; m && i < built; i++)
        free(m[i].ctl);
    free(g);
    free(h);
    free(m);
    free(iov);
    return r;
}

int64_t sys_sendmmsg_ia32(struct cpu *c, const uint64_t a[6])
{
    return mmsg32(c, a, false, NULL);
}

/* recvmmsg with an old_timespec32 (337) or a __kernel_timespec (417,
 * tv_nsec its low 32 bits): read before anything else and given back
 * with the time left once messages were received. */
static int64_t recvmmsg32(struct cpu *c, const uint64_t a[6], bool time64)
{
    if (!a[4])
        return mmsg32(c, a, true, NULL);
    struct timespec ts;
    if (ia32_get_ts(c, a[4], time64, &ts) != 0)
        return mmsg32(c, a, true, HOST_FAULT_ADDR);
    int64_t r = mmsg32(c, a, true, &ts);
    if (r > 0 && ia32_put_ts(c, a[4], time64, &ts) != 0)
        r = -EFAULT;
    return r;
}

int64_t sys_recvmmsg_ia32(struct cpu *c, const uint64_t a[6])
{
    return recvmmsg32(c, a, false);
}

int64_t sys_recvmmsg_time64_ia32(struct cpu *c, const uint64_t a[6])
{
    return recvmmsg32(c, a, true);
}

/* ------------------------------------------------------------ socketcall */

/* compat_sys_socketcall(): call 1..20 with its arguments in an array of
 * 32-bit words, as many as the call takes (read all at once). */
int64_t sys_socketcall_ia32(struct cpu *c, const uint64_t a[6])
{
    static const unsigned char nargs[21] = { 0, 3, 3, 3, 2, 3, 3, 3, 4, 4, 4,
                                             6, 6, 2, 5, 5, 3, 3, 4, 5, 4 };
    int call = (int)a[0];
    if (call < 1 || call > 20)
        return -EINVAL;
    uint32_t w[6] = { 0 };
    if (copy_from_guest(c, w, a[1], nargs[call] * 4u) != 0)
        return -EFAULT;
    uint64_t b[6] = { w[0], w[1], w[2], w[3], w[4], w[5] };
    switch (call) {
    case 1: return sys_socket(c, b);
    case 2: return sys_bind(c, b);
    case 3: return sys_connect(c, b);
    case 4: return sys_listen(c, b);
    case 5: return sys_accept(c, b);
    case 6: return sys_getsockname(c, b);
    case 7: return sys_getpeername(c, b);
    case 8: return sys_socketpair(c, b);
    case 9: /* send(fd, buf, len, flags) */
        b[4] = b[5] = 0;
        return sys_sendto(c, b);
    case 10: /* recv(fd, buf, len, flags) */
        b[4] = b[5] = 0;
        return sys_recvfrom(c, b);
    case 11: return sys_sendto(c, b);
    case 12: return sys_recvfrom(c, b);
    case 13: return sys_shutdown(c, b);
    case 14: return sys_setsockopt_ia32(c, b);
    case 15: return sys_getsockopt_ia32(c, b);
    case 16: return sys_sendmsg_ia32(c, b);
    case 17: return sys_recvmsg_ia32(c, b);
    case 18: return sys_accept4(c, b);
    case 19: return sys_recvmmsg_ia32(c, b); /* the time32 timespec */
    default: return sys_sendmmsg_ia32(c, b);
    }
}
