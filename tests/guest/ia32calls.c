/* ioctls whose argument a 32-bit program lays out differently from a
 * 64-bit one, and the calls served for i386 guests late (nice, readdir,
 * ustat, the file-handle calls), compared with the native run in both ABIs.
 *
 * Every structure the kernel writes sits at the very end of a page that is
 * followed by an inaccessible one, so a conversion that writes the x86_64
 * size (8 bytes for a long, 40 for struct ifreq) where the i386 one is
 * smaller faults where the native run does not.  Values that differ from
 * one run to the next (inode generations, physical extents) are not shown. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/fiemap.h>
#include <linux/fs.h>

/* The i386 numbers of the requests whose number holds the size of a long
 * (the x86_64 ones come from the headers in the 64-bit build); an i386
 * program is also given the x86_64 numbers, which Linux's compat code
 * serves or refuses request by request. */
#define REQ_GETFLAGS_64 0x80086601u
#define REQ_SETFLAGS_64 0x40086602u
#define REQ_GETVERSION_64 0x80087601u
#define REQ_BLKBSZGET_64 0x80081270u
#define REQ_BLKGETSIZE64_64 0x80081272u

static void *volatile bad_pointer = (void *)16;
static char *page; /* two pages: read-write, then inaccessible */
static long pagesz;

/* The last n bytes of the accessible page, filled with 0xaa. */
static void *tail(size_t n)
{
    memset(page + pagesz - n, 0xaa, n);
    return page + pagesz - n;
}

static void show(const char *what, long r)
{
    if (r < 0)
        printf("%s: -1 %s\n", what, strerror(errno));
    else
        printf("%s: %ld\n", what, r);
}

static long ioc(int fd, unsigned long req, void *arg)
{
    return syscall(SYS_ioctl, fd, req, arg);
}

/* A request that writes an int at the end of the page, and the word
 * before it (which must stay 0xaaaaaaaa). */
static void int_out(const char *what, int fd, unsigned long req)
{
    uint32_t *p = tail(8);
    long r = ioc(fd, req, p + 1);
    if (r < 0)
        printf("%s: -1 %s\n", what, strerror(errno));
    else
        printf("%s: %ld, value %u, word before %#x\n", what, r, p[1], p[0]);
}

/* Reported on an i386 build only: the x86_64 number of a request whose
 * i386 number differs. */
#ifdef __i386__
#define OTHER_ABI 1
#else
#define OTHER_ABI 0
#endif

static void file_ioctls(const char *dir)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/file", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    static char block[3 * 4096];
    memset(block, 'x', sizeof(block));
    if (write(fd, block, sizeof(block)) != (ssize_t)sizeof(block) || fsync(fd) != 0)
        printf("write failed\n");

    printf("-- regular file\n");
    int_out("FS_IOC_GETFLAGS", fd, FS_IOC_GETFLAGS);
    uint32_t *flags = tail(4);
    ioc(fd, FS_IOC_GETFLAGS, flags);
    uint32_t keep = *flags;
    show("FS_IOC_SETFLAGS, same flags", ioc(fd, FS_IOC_SETFLAGS, flags));
    show("FS_IOC_SETFLAGS, bad pointer", ioc(fd, FS_IOC_SETFLAGS, bad_pointer));
    show("FS_IOC_GETFLAGS, bad pointer", ioc(fd, FS_IOC_GETFLAGS, bad_pointer));
    show("FS_IOC_GETFLAGS, bad descriptor", ioc(-1, FS_IOC_GETFLAGS, flags));
    if (OTHER_ABI) {
        int_out("FS_IOC_GETFLAGS, x86_64 number", fd, REQ_GETFLAGS_64);
        *(uint32_t *)tail(4) = keep;
        show("FS_IOC_SETFLAGS, x86_64 number", ioc(fd, REQ_SETFLAGS_64, page + pagesz - 4));
    }
    *(uint32_t *)tail(4) = 1234;
    show("FS_IOC_SETVERSION", ioc(fd, FS_IOC_SETVERSION, page + pagesz - 4));
    show("FS_IOC_SETVERSION, bad pointer", ioc(fd, FS_IOC_SETVERSION, bad_pointer));
    int_out("FS_IOC_GETVERSION", fd, FS_IOC_GETVERSION);
    show("FS_IOC_GETVERSION, bad pointer", ioc(fd, FS_IOC_GETVERSION, bad_pointer));
    if (OTHER_ABI)
        int_out("FS_IOC_GETVERSION, x86_64 number", fd, REQ_GETVERSION_64);
    int_out("FIGETBSZ", fd, FIGETBSZ);
    int_out("FIONREAD", fd, FIONREAD);
    int64_t *q = tail(8);
    long r = ioc(fd, FIOQSIZE, q);
    printf("FIOQSIZE: %ld, %lld\n", r, (long long)*q);
    show("BLKGETSIZE on a file", ioc(fd, BLKGETSIZE, tail(8)));
    show("BLKBSZGET on a file", ioc(fd, BLKBSZGET, tail(8)));
    show("unknown request", ioc(fd, 0x12345u, tail(8)));

    /* FIEMAP: one layout for both ABIs; the extents' positions on the disk
     * differ from run to run, so only counts, lengths and flags are shown. */
    size_t fmsize = sizeof(struct fiemap) + 2 * sizeof(struct fiemap_extent);
    struct fiemap *fm = tail(fmsize);
    memset(fm, 0, fmsize);
    fm->fm_length = FIEMAP_MAX_OFFSET;
    fm->fm_flags = FIEMAP_FLAG_SYNC;
    fm->fm_extent_count = 2;
    r = ioc(fd, FS_IOC_FIEMAP, fm);
    if (r < 0)
        printf("FS_IOC_FIEMAP: %s\n", strerror(errno));
    else
        printf("FS_IOC_FIEMAP: %ld, %u extents, first %llu bytes flags %#x\n", r,
               fm->fm_mapped_extents, (unsigned long long)fm->fm_extents[0].fe_length,
               fm->fm_extents[0].fe_flags);
    fm = tail(sizeof(struct fiemap));
    memset(fm, 0, sizeof(*fm));
    fm->fm_length = FIEMAP_MAX_OFFSET;
    r = ioc(fd, FS_IOC_FIEMAP, fm);
    printf("FS_IOC_FIEMAP counting: %ld, %u extents\n", r, fm->fm_mapped_extents);
    show("FS_IOC_FIEMAP, bad pointer", ioc(fd, FS_IOC_FIEMAP, bad_pointer));
    close(fd);
    unlink(path);
}

/* An unbound loop device: size 0, but every request answers. */
static void block_ioctls(void)
{
    printf("-- block device\n");
    int fd = open("/dev/loop0", O_RDONLY);
    if (fd < 0) {
        printf("no /dev/loop0\n");
        return;
    }
    int_out("BLKGETSIZE", fd, BLKGETSIZE);
    show("BLKGETSIZE, bad pointer", ioc(fd, BLKGETSIZE, bad_pointer));
    int_out("BLKSSZGET", fd, BLKSSZGET);
    int_out("BLKBSZGET", fd, BLKBSZGET);
    uint64_t *size = tail(8);
    long r = ioc(fd, BLKGETSIZE64, size);
    printf("BLKGETSIZE64: %ld, %llu\n", r, (unsigned long long)*size);
    show("BLKGETSIZE64, bad pointer", ioc(fd, BLKGETSIZE64, bad_pointer));
    if (OTHER_ABI) {
        int_out("BLKBSZGET, x86_64 number", fd, REQ_BLKBSZGET_64);
        show("BLKGETSIZE64, x86_64 number", ioc(fd, REQ_BLKGETSIZE64_64, tail(8)));
    }
    *(int *)tail(4) = 3;
    show("BLKBSZSET, 3 bytes", ioc(fd, BLKBSZSET, page + pagesz - 4));
    show("BLKBSZSET, bad pointer", ioc(fd, BLKBSZSET, bad_pointer));
    close(fd);
}

/* The struct ifreq member a request fills. */
enum ifr_field { IFR_NAME, IFR_FLAGS, IFR_INT, IFR_ADDR };

static void ifreq_call(const char *what, int fd, unsigned long req, const char *name, int index,
                       enum ifr_field field)
{
    struct ifreq *ifr = tail(sizeof(struct ifreq));
    memset(ifr, 0, sizeof(*ifr));
    if (name)
        strcpy(ifr->ifr_name, name);
    else
        ifr->ifr_ifindex = index;
    long r = ioc(fd, req, ifr);
    if (r < 0) {
        printf("%s: -1 %s\n", what, strerror(errno));
        return;
    }
    struct sockaddr_in *sin = (struct sockaddr_in *)&ifr->ifr_addr;
    printf("%s: %ld, name %s, ", what, r, ifr->ifr_name);
    switch (field) {
    case IFR_NAME: printf("(name only)\n"); break;
    case IFR_FLAGS: printf("flags %#x\n", (unsigned short)ifr->ifr_flags); break;
    case IFR_INT: printf("value %d\n", ifr->ifr_ifindex); break;
    case IFR_ADDR:
        printf("family %d, addr %s\n", sin->sin_family, inet_ntoa(sin->sin_addr));
        break;
    }
}

/* SIOCGIFCONF with room for len bytes of records right before the
 * struct ifconf at the end of the page (no buffer: a null ifc_buf). */
static void ifconf_call(const char *what, int fd, size_t len, int null_buf)
{
    struct ifconf *ifc = tail(sizeof(*ifc));
    struct ifreq *buf = (struct ifreq *)(page + pagesz - sizeof(*ifc) - len);
    memset(buf, 0xaa, len);
    ifc->ifc_len = (int)len;
    ifc->ifc_req = null_buf ? NULL : buf;
    long r = ioc(fd, SIOCGIFCONF, ifc);
    if (r < 0) {
        printf("%s: -1 %s\n", what, strerror(errno));
        return;
    }
    int n = ifc->ifc_len / (int)sizeof(struct ifreq);
    printf("%s: %ld, %d records (%s)\n", what, r, n,
           ifc->ifc_len % (int)sizeof(struct ifreq) ? "partial" : "whole");
    for (int i = 0; i < n && ifc->ifc_req; i++) {
        struct sockaddr_in *sin = (struct sockaddr_in *)&buf[i].ifr_addr;
        if (strcmp(buf[i].ifr_name, "lo") == 0)
            printf("  %s family %d addr %s\n", buf[i].ifr_name, sin->sin_family,
                   inet_ntoa(sin->sin_addr));
    }
}

static void net_ioctls(void)
{
    printf("-- interfaces\n");
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    ifreq_call("SIOCGIFFLAGS lo", s, SIOCGIFFLAGS, "lo", 0, IFR_FLAGS);
    ifreq_call("SIOCGIFINDEX lo", s, SIOCGIFINDEX, "lo", 0, IFR_INT);
    ifreq_call("SIOCGIFMTU lo", s, SIOCGIFMTU, "lo", 0, IFR_INT);
    ifreq_call("SIOCGIFADDR lo", s, SIOCGIFADDR, "lo", 0, IFR_ADDR);
    ifreq_call("SIOCGIFNETMASK lo", s, SIOCGIFNETMASK, "lo", 0, IFR_ADDR);
    ifreq_call("SIOCGIFBRDADDR lo", s, SIOCGIFBRDADDR, "lo", 0, IFR_ADDR);
    ifreq_call("SIOCGIFHWADDR lo", s, SIOCGIFHWADDR, "lo", 0, IFR_ADDR);
    ifreq_call("SIOCGIFNAME 1", s, SIOCGIFNAME, NULL, 1, IFR_NAME);
    ifreq_call("SIOCGIFFLAGS nosuch0", s, SIOCGIFFLAGS, "nosuch0", 0, IFR_FLAGS);
    show("SIOCGIFFLAGS, bad pointer", ioc(s, SIOCGIFFLAGS, bad_pointer));
    /* Only the ABI's sizeof(struct ifreq) - 1 bytes readable. */
    struct ifreq *short_ifr = (struct ifreq *)(page + pagesz - sizeof(struct ifreq) + 1);
    show("SIOCGIFINDEX, one byte short", ioc(s, SIOCGIFINDEX, short_ifr));
    int f = open("/dev/null", O_RDONLY);
    show("SIOCGIFINDEX on /dev/null", ioc(f, SIOCGIFINDEX, tail(sizeof(struct ifreq))));

    size_t one = sizeof(struct ifreq);
    ifconf_call("SIOCGIFCONF, no buffer", s, 0, 1);
    ifconf_call("SIOCGIFCONF, no buffer, a length", s, 3 * one, 1);
    ifconf_call("SIOCGIFCONF, 16 records", s, 16 * one, 0);
    ifconf_call("SIOCGIFCONF, 1 record", s, one, 0);
    ifconf_call("SIOCGIFCONF, 1.5 records", s, one + one / 2, 0);
    ifconf_call("SIOCGIFCONF, 0 records", s, 0, 0);
    ifconf_call("SIOCGIFCONF, half a record", s, one / 2, 0);
    struct ifconf *ifc = tail(sizeof(*ifc));
    ifc->ifc_len = 4 * (int)sizeof(struct ifreq);
    ifc->ifc_req = bad_pointer;
    show("SIOCGIFCONF, bad buffer", ioc(s, SIOCGIFCONF, ifc));
    show("SIOCGIFCONF, bad ifconf", ioc(s, SIOCGIFCONF, bad_pointer));
    show("SIOCGIFCONF on /dev/null", ioc(f, SIOCGIFCONF, tail(sizeof(*ifc))));
    close(f);
    close(s);
}

static void tty_ioctls(void)
{
    printf("-- pty\n");
    int m = posix_openpt(O_RDWR | O_NOCTTY);
    if (m < 0) {
        printf("no pty\n");
        return;
    }
    unlockpt(m);
    uint32_t *n = tail(4);
    printf("TIOCGPTN: %ld\n", ioc(m, TIOCGPTN, n));
    long peer = syscall(SYS_ioctl, m, TIOCGPTPEER, O_RDWR | O_NOCTTY);
    printf("TIOCGPTPEER: %s\n", peer >= 0 ? "a descriptor" : strerror(errno));
    if (peer >= 0) {
        if (write((int)peer, "abc", 3) != 3)
            printf("write failed\n");
        struct pollfd p = { .fd = m, .events = POLLIN };
        poll(&p, 1, -1); /* the line discipline passes it on */
        int_out("FIONREAD on the master", m, FIONREAD);
        int_out("FIONREAD on the peer", (int)peer, FIONREAD);
        close((int)peer);
    }
    struct winsize *ws = tail(sizeof(*ws));
    ws->ws_row = 24;
    ws->ws_col = 80;
    show("TIOCSWINSZ", ioc(m, TIOCSWINSZ, ws));
    ws = tail(sizeof(*ws));
    show("TIOCGWINSZ", ioc(m, TIOCGWINSZ, ws));
    printf("  %u rows, %u columns\n", ws->ws_row, ws->ws_col);
    close(m);
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    pagesz = sysconf(_SC_PAGESIZE);
    page = mmap(NULL, 2 * (size_t)pagesz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    mprotect(page + pagesz, (size_t)pagesz, PROT_NONE);
    char dir[] = "/tmp/ia32calls.XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    file_ioctls(dir);
    block_ioctls();
    net_ioctls();
    tty_ioctls();
    rmdir(dir);
    return 0;
}
