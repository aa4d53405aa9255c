/* Helpers shared by the socket calls (net.c) and the message calls
 * (net_msg.c).  x86_64 guests use the host's layouts for every socket
 * structure (sockaddr_*, msghdr, mmsghdr, cmsghdr, ucred, timeval, linger),
 * so the work here is translating guest pointers, never converting fields. */
#ifndef SYSCALLS_NET_H
#define SYSCALLS_NET_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/socket.h>
#include <time.h>

#include "syscalls/syscalls.h"

/* The host pointer to hand the host kernel for a guest buffer: NULL for a
 * guest NULL (several calls give NULL a meaning), else guest_ptr()'s.  The
 * host kernel then fails with EFAULT at exactly the step of its argument
 * checks where the native kernel would, after EBADF, ENOTSOCK, EINVAL and
 * the other checks it makes first. */
void *net_uptr(struct cpu *c, uint64_t addr, uint64_t len, int prot);

/* A socket address the call reads (bind, connect, sendto, msg_name of
 * sendmsg): *len is the guest's length.  Copies a valid address into *ss and
 * returns ss (an AF_UNIX path translated for the -L root, *len updated;
 * binding: for bind); otherwise returns what net_uptr gives, which the host
 * kernel rejects as it would natively (EINVAL for a bad length before
 * EFAULT).  NULL with *len = -errno when a path cannot be translated. */
const void *net_addr_in(struct cpu *c, uint64_t addr, int *len, struct sockaddr_storage *ss,
                        bool binding);

/* The kernel's move_addr_to_user(): give the guest the address the host
 * returned (klen bytes in ss) through its buffer uaddr and its in/out length
 * at ulen: the address is truncated to the guest's length, the length is
 * set to the full klen.  0, -EFAULT or -EINVAL (negative guest length). */
int net_addr_out(struct cpu *c, uint64_t uaddr, uint64_t ulen, const struct sockaddr_storage *ss,
                 socklen_t klen);

/* sendmmsg and recvmmsg for either ABI (net_msg.c, ia32_net.c), the first
 * step: a copy of the guest's array of vlen entries of size bytes at addr,
 * as far as the kernel takes them: while they can be written (msg_len goes
 * back), and one more that can only be read (still sent or received; its
 * write-back fails).  *n: how many were taken; *niov: the host iovecs they
 * need, iovs(entry) each.  Free it; NULL when out of memory. */
void *net_mmsg_take(struct cpu *c, uint64_t addr, uint64_t vlen, size_t size,
                    uint64_t (*iovs)(const void *entry), uint64_t *n, uint64_t *niov);

/* The host sendmmsg/recvmmsg of the n entries h built from the guest's array
 * at addr (vlen entries asked for; ts: recvmmsg's timeout).  With none
 * built, the guest's array itself is handed over, so the host fails it
 * with EFAULT after its own descriptor checks.  The host's result (-1 and
 * errno on failure). */
int64_t net_mmsg_host(struct cpu *c, bool recv, int fd, uint64_t addr, uint64_t vlen,
                      struct mmsghdr *h, uint64_t n, int flags, struct timespec *ts);

/* The x86_64 guest's message structures (identical to the host's; spelled
 * out so their layout is checked rather than assumed). */
struct guest_iovec {
    uint64_t base, len;
};

struct guest_msghdr {
    uint64_t name;
    int32_t namelen; /* the kernel reads it as an int */
    uint32_t pad0;
    uint64_t iov, iovlen;
    uint64_t control, controllen;
    uint32_t flags;
    uint32_t pad1;
};

struct guest_mmsghdr {
    struct guest_msghdr hdr;
    uint32_t len;
    uint32_t pad;
};

#endif
