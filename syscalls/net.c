/* Sockets for x86_64 guests: creation, addresses, connections, datagrams
 * and options.  Guest fds are host fds and every socket structure has the
 * host's layout, so each call goes to the host kernel once its guest
 * pointers are translated (net_uptr).  Addresses the kernel returns pass
 * through a local sockaddr_storage so the guest's in/out length is honoured
 * exactly as the kernel's move_addr_to_user() does.  The msghdr calls are in
 * net_msg.c.  AF_UNIX, AF_INET, AF_INET6, AF_NETLINK and the rest pass
 * through unchanged. */
#include <errno.h>
#include <linux/filter.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "syscalls/net.h"
#include "syscalls/paths.h"

/* ------------------------------------------------------------ pointers */

void *net_uptr(struct cpu *c, uint64_t addr, uint64_t len, int prot)
{
    return addr ? guest_ptr(c, addr, len, prot) : NULL;
}

const void *net_addr_in(struct cpu *c, uint64_t addr, int *len, struct sockaddr_storage *ss,
                        bool binding)
{
    if (addr == 0 || *len <= 0 || *len > (int)sizeof(*ss))
        return net_uptr(c, addr, 0, PROT_READ); /* the host rejects or ignores it unread */
    if (copy_from_guest(c, ss, addr, (uint64_t)*len) != 0)
        return net_uptr(c, addr, (uint64_t)*len, PROT_READ);
    /* An AF_UNIX path is a guest path (the -L root). */
    int e = path_sockaddr_in(c, ss, len, binding);
    if (e) {
        *len = e;
        return NULL;
    }
    return ss;
}

int net_addr_out(struct cpu *c, uint64_t uaddr, uint64_t ulen, const struct sockaddr_storage *ss,
                 socklen_t klen)
{
    /* An AF_UNIX path inside the -L root is shown in the guest's view. */
    struct sockaddr_storage view = *ss;
    unsigned vlen = klen;
    path_sockaddr_out(&view, &vlen);
    ss = &view;
    klen = (socklen_t)vlen;
    int len;
    if (copy_from_guest(c, &len, ulen, sizeof(len)) != 0)
        return -EFAULT;
    if (len > (int)klen)
        len = (int)klen;
    if (len < 0)
        return -EINVAL;
    if (len > 0 && copy_to_guest(c, uaddr, ss, (uint64_t)len) != 0)
        return -EFAULT;
    /* "fromlen shall refer to the value before truncation" (POSIX.1g) */
    return copy_to_guest(c, ulen, &(int){ (int)klen }, sizeof(int));
}

/* ------------------------------------------------------------ creation */

int64_t sys_socket(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_socket, (int)a[0], (int)a[1], (int)a[2]));
}

int64_t sys_socketpair(struct cpu *c, const uint64_t a[6])
{
    /* The kernel creates both sockets, then copies the pair out (closing
     * them again if that fails), so the host does it all. */
    int *sv = net_uptr(c, a[3], 2 * sizeof(int), PROT_WRITE);
    return host_ret(syscall(SYS_socketpair, (int)a[0], (int)a[1], (int)a[2], sv));
}

/* ------------------------------------------------------------ connections */

int64_t sys_bind(struct cpu *c, const uint64_t a[6])
{
    struct sockaddr_storage ss;
    int len = (int)a[2];
    const void *sa = net_addr_in(c, a[1], &len, &ss, true);
    if (!sa && len < 0)
        return len;
    return host_ret(syscall(SYS_bind, (int)a[0], sa, len));
}

int64_t sys_connect(struct cpu *c, const uint64_t a[6])
{
    struct sockaddr_storage ss;
    int len = (int)a[2];
    const void *sa = net_addr_in(c, a[1], &len, &ss, false);
    if (!sa && len < 0)
        return len;
    return host_ret(syscall(SYS_connect, (int)a[0], sa, len));
}

int64_t sys_listen(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_listen, (int)a[0], (int)a[1]));
}

int64_t sys_shutdown(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_shutdown, (int)a[0], (int)a[1]));
}

int64_t sys_accept4(struct cpu *c, const uint64_t a[6])
{
    if (a[1] == 0)
        return host_ret(syscall(SYS_accept4, (int)a[0], NULL, NULL, (int)a[3]));
    struct sockaddr_storage ss;
    socklen_t klen = sizeof(ss);
    int fd = (int)syscall(SYS_accept4, (int)a[0], &ss, &klen, (int)a[3]);
    if (fd < 0)
        return -errno;
    /* Like the kernel, the connection is dropped when its address cannot be
     * given to the caller. */
    int e = net_addr_out(c, a[1], a[2], &ss, klen);
    if (e) {
        close(fd);
        return e;
    }
    return fd;
}

int64_t sys_accept(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { a[0], a[1], a[2], 0, 0, 0 };
    return sys_accept4(c, b);
}

/* getsockname and getpeername: the host fills a local address, then the
 * guest's length is read and updated, in the kernel's order. */
static int64_t sock_name(struct cpu *c, const uint64_t a[6], long nr)
{
    struct sockaddr_storage ss;
    socklen_t klen = sizeof(ss);
    if (syscall(nr, (int)a[0], &ss, &klen) < 0)
        return -errno;
    return net_addr_out(c, a[1], a[2], &ss, klen);
}

int64_t sys_getsockname(struct cpu *c, const uint64_t a[6])
{
    return sock_name(c, a, SYS_getsockname);
}

int64_t sys_getpeername(struct cpu *c, const uint64_t a[6])
{
    return sock_name(c, a, SYS_getpeername);
}

/* ------------------------------------------------------------ datagrams */

int64_t sys_sendto(struct cpu *c, const uint64_t a[6])
{
    const void *buf = net_uptr(c, a[1], a[2], PROT_READ);
    struct sockaddr_storage ss;
    /* With no address the kernel ignores the length. */
    int len = (int)a[5];
    const void *sa = a[4] ? net_addr_in(c, a[4], &len, &ss, false) : NULL;
    if (a[4] && !sa && len < 0)
        return len;
    return host_ret(syscall(SYS_sendto, (int)a[0], buf, a[2], (int)a[3], sa, len));
}

int64_t sys_recvfrom(struct cpu *c, const uint64_t a[6])
{
    void *buf = net_uptr(c, a[1], a[2], PROT_WRITE);
    if (a[4] == 0)
        return host_ret(syscall(SYS_recvfrom, (int)a[0], buf, a[2], (int)a[3], NULL, NULL));
    struct sockaddr_storage ss;
    socklen_t klen = sizeof(ss);
    int64_t n = syscall(SYS_recvfrom, (int)a[0], buf, a[2], (int)a[3], &ss, &klen);
    if (n < 0)
        return -errno;
    /* The data stays received when the address cannot be returned. */
    int e = net_addr_out(c, a[4], a[5], &ss, klen);
    return e ? e : n;
}

/* ------------------------------------------------------------ options */

/* Options whose value holds a pointer into user memory the kernel follows.
 * The ones with a translation are handled below; these have none (netfilter
 * table replacement, zero-copy TCP receive into an mmap) and are refused
 * with EOPNOTSUPP rather than hand the host an untranslated guest address. */
static int unserved_opt(int level, int name, int set)
{
    if (level == SOL_IP && set)
        return name == 64 /* IPT_SO_SET_REPLACE */ || name == 96 /* ARPT_SO_SET_REPLACE */ ||
               name == 128 /* EBT_SO_SET_ENTRIES */ || name == 129 /* EBT_SO_SET_COUNTERS */;
    if (level == SOL_IP)
        return name >= 128 && name <= 131; /* EBT_SO_GET_(INIT_)INFO/ENTRIES */
    if (level == SOL_IPV6 && set)
        return name == 64; /* IP6T_SO_SET_REPLACE */
    if (level == SOL_TCP && !set)
        return name == TCP_ZEROCOPY_RECEIVE;
    return 0;
}

/* A classic BPF program (SO_ATTACH_FILTER, SO_ATTACH_REUSEPORT_CBPF,
 * PACKET_FANOUT_DATA): struct sock_fprog points at the instructions. */
static int is_fprog_opt(int level, int name)
{
    return (level == SOL_SOCKET && (name == SO_ATTACH_FILTER || name == SO_ATTACH_REUSEPORT_CBPF)) ||
           (level == SOL_PACKET && name == 22 /* PACKET_FANOUT_DATA */);
}

int64_t sys_setsockopt(struct cpu *c, const uint64_t a[6])
{
    int fd = (int)a[0], level = (int)a[1], name = (int)a[2], len = (int)a[4];
    if (unserved_opt(level, name, 1))
        return -EOPNOTSUPP;
    /* A negative length is the kernel's EINVAL, after its fd checks. */
    const void *val = net_uptr(c, a[3], len > 0 ? (uint64_t)len : 0, PROT_READ);
    struct sock_fprog prog;
    if (is_fprog_opt(level, name) && len == (int)sizeof(prog) && val &&
        copy_from_guest(c, &prog, a[3], sizeof(prog)) == 0) {
        /* The kernel rejects any other length before it reads the program. */
        uint64_t insns = (uint64_t)(uintptr_t)prog.filter;
        prog.filter = net_uptr(c, insns, (uint64_t)prog.len * sizeof(struct sock_filter), PROT_READ);
        val = &prog;
    }
    return host_ret(syscall(SYS_setsockopt, fd, level, name, val, len));
}

int64_t sys_getsockopt(struct cpu *c, const uint64_t a[6])
{
    int fd = (int)a[0], level = (int)a[1], name = (int)a[2];
    if (unserved_opt(level, name, 0))
        return -EOPNOTSUPP;
    int len;
    if (copy_from_guest(c, &len, a[4], sizeof(len)) != 0) {
        /* EFAULT, but only after the checks the kernel makes first. */
        return host_ret(syscall(SYS_getsockopt, fd, level, name, NULL,
                                net_uptr(c, a[4], sizeof(len), PROT_READ)));
    }
    /* The host reads and updates a local copy of the length, so the guest
     * cannot change it under the host; at most len bytes of the checked
     * buffer are written. */
    socklen_t hlen = (socklen_t)len;
    void *val = net_uptr(c, a[3], len > 0 ? (uint64_t)len : 0, PROT_WRITE);
    int64_t r = host_ret(syscall(SYS_getsockopt, fd, level, name, val, &hlen));
    /* Some failures tell the size needed (ERANGE of SO_PEERGROUPS and
     * SO_PEERSEC): the length goes back whenever the host changed it. */
    if (r < 0 && hlen == (socklen_t)len)
        return r;
    return copy_to_guest(c, a[4], &hlen, sizeof(hlen)) ? -EFAULT : r;
}
