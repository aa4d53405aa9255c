/* Helpers shared by the socket calls (net.c) and the message calls
 * (net_msg.c).  x86_64 guests use the host's layouts for every socket
 * structure (sockaddr_*, msghdr, mmsghdr, cmsghdr, ucred, timeval, linger),
 * so the work here is translating guest pointers, never converting fields. */
#ifndef SYSCALLS_NET_H
#define SYSCALLS_NET_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

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
