/* ioctls whose argument a 32-bit program lays out differently from a
 * 64-bit one, and the calls served for i386 guests late (nice, readdir,
 * ustat, the file-handle calls, cachestat), compared with the native run in both ABIs
 * (nice and readdir exist for i386 only).
 *
 * Every structure the kernel writes sits at the very end of a page that is
 * followed by an inaccessible one, so a conversion that writes the x86_64
 * size (8 bytes for a long, 40 for struct ifreq) where the i386 one is
 * smaller faults where the native run does not.  Values that differ from
 * one run to the next (inode generations, physical extents) are not shown. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
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
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/hdreg.h>

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

/* Likewise for a request that writes a long (4 bytes on i386). */
static void long_out(const char *what, int fd, unsigned long req)
{
    long *p = tail(2 * sizeof(long));
    long r = ioc(fd, req, p + 1);
    if (r < 0)
        printf("%s: -1 %s\n", what, strerror(errno));
    else
        printf("%s: %ld, value %ld, word before %#lx\n", what, r, p[1], (unsigned long)p[0]);
}

/* And for one that writes an unsigned short. */
static void short_out(const char *what, int fd, unsigned long req)
{
    uint16_t *p = tail(4);
    long r = ioc(fd, req, p + 1);
    if (r < 0)
        printf("%s: -1 %s\n", what, strerror(errno));
    else
        printf("%s: %ld, value %u, before %#x\n", what, r, p[1], p[0]);
}

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
    long_out("BLKRAGET", fd, BLKRAGET);
    long_out("BLKFRAGET", fd, BLKFRAGET);
    show("BLKRAGET, null pointer", ioc(fd, BLKRAGET, NULL));
    show("BLKRAGET, bad pointer", ioc(fd, BLKRAGET, bad_pointer));
    short_out("BLKSECTGET", fd, BLKSECTGET);
    short_out("BLKROTATIONAL", fd, BLKROTATIONAL);
    int_out("BLKALIGNOFF", fd, BLKALIGNOFF);
    int_out("BLKDISCARDZEROES", fd, BLKDISCARDZEROES);
    struct hd_geometry *geo = tail(sizeof(*geo));
    r = ioc(fd, HDIO_GETGEO, geo);
    printf("HDIO_GETGEO: %ld %s\n", r, r < 0 ? strerror(errno) : "");
    show("HDIO_GETGEO, null pointer", ioc(fd, HDIO_GETGEO, NULL));
    *(int *)tail(4) = 3;
    show("BLKBSZSET, 3 bytes", ioc(fd, BLKBSZSET, page + pagesz - 4));
    show("BLKBSZSET, bad pointer", ioc(fd, BLKBSZSET, bad_pointer));
    close(fd);
}

/* The struct ifreq member a request fills. */
enum ifr_field { IFR_NAME, IFR_FLAGS, IFR_INT, IFR_ADDR };

/* A disk (the first in /sys/block that is not a loop or RAM device), if
 * there is one to read: its geometry and sizes, where the block size in
 * use (4096 under a filesystem) and the logical one can differ. */
static int is_disk(const struct dirent *d)
{
    return d->d_name[0] != '.' && strncmp(d->d_name, "loop", 4) && strncmp(d->d_name, "ram", 3) &&
           strncmp(d->d_name, "zram", 4);
}

static void disk_ioctls(void)
{
    printf("-- disk\n");
    struct dirent **names;
    int n = scandir("/sys/block", &names, is_disk, alphasort);
    int fd = -1;
    for (int i = 0; i < n; i++) {
        char path[300];
        snprintf(path, sizeof(path), "/dev/%s", names[i]->d_name);
        if (fd < 0)
            fd = open(path, O_RDONLY | O_NONBLOCK);
        free(names[i]);
    }
    if (n > 0)
        free(names);
    if (fd < 0) {
        printf("no disk to read\n");
        return;
    }
    struct hd_geometry *geo = tail(sizeof(*geo));
    long r = ioc(fd, HDIO_GETGEO, geo);
    if (r < 0)
        printf("HDIO_GETGEO: -1 %s\n", strerror(errno));
    else
        printf("HDIO_GETGEO: %ld, %u heads, %u sectors, %u cylinders, start %lu\n", r, geo->heads,
               geo->sectors, geo->cylinders, geo->start);
    int_out("BLKGETSIZE (sectors, low word)", fd, BLKGETSIZE);
    int_out("BLKBSZGET", fd, BLKBSZGET);
    int_out("BLKSSZGET", fd, BLKSSZGET);
    uint64_t *size = tail(8);
    r = ioc(fd, BLKGETSIZE64, size);
    printf("BLKGETSIZE64: %ld, %llu\n", r, (unsigned long long)*size);
    close(fd);
}

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
    ifreq_call("SIOCGIFDSTADDR lo", s, SIOCGIFDSTADDR, "lo", 0, IFR_ADDR);
    ifreq_call("SIOCGIFMETRIC lo", s, SIOCGIFMETRIC, "lo", 0, IFR_INT);
    ifreq_call("SIOCGIFTXQLEN lo", s, SIOCGIFTXQLEN, "lo", 0, IFR_INT);
    ifreq_call("SIOCGIFPFLAGS lo", s, SIOCGIFPFLAGS, "lo", 0, IFR_FLAGS);
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

/* The time of a socket's last packet: the old requests store the ABI's
 * timeval/timespec (32-bit fields on i386), the new ones 64-bit fields. */
#define REQ_SIOCGSTAMP_OLD 0x8906u
#define REQ_SIOCGSTAMPNS_OLD 0x8907u
#define REQ_SIOCGSTAMP_NEW 0x80108906u
#define REQ_SIOCGSTAMPNS_NEW 0x80108907u

static void stamp_call(const char *what, int fd, unsigned long req, size_t field, long unit)
{
    char *p = tail(2 * field);
    long r = ioc(fd, req, p);
    if (r < 0) {
        printf("%s: -1 %s\n", what, strerror(errno));
        return;
    }
    long long sec = field == 4 ? *(int32_t *)p : *(int64_t *)p;
    long long frac = field == 4 ? *(int32_t *)(p + 4) : *(int64_t *)(p + 8);
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    printf("%s: %ld, %s, fraction %s\n", what, r,
           sec <= now.tv_sec && sec > now.tv_sec - 60 ? "within the last minute" : "wrong time",
           frac >= 0 && frac < unit ? "in range" : "out of range");
}

static void socket_ioctls(void)
{
    printf("-- socket\n");
    int a = socket(AF_INET, SOCK_DGRAM, 0), b = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof(sin);
    bind(b, (struct sockaddr *)&sin, sizeof(sin));
    getsockname(b, (struct sockaddr *)&sin, &len);
    size_t tv = sizeof(long); /* the old requests' field size */
    stamp_call("SIOCGSTAMP before a packet", b, REQ_SIOCGSTAMP_OLD, tv, 1000000);
    if (sendto(a, "x", 1, 0, (struct sockaddr *)&sin, sizeof(sin)) != 1)
        printf("sendto failed\n");
    char c;
    if (recv(b, &c, 1, 0) != 1)
        printf("recv failed\n");
    stamp_call("SIOCGSTAMP", b, REQ_SIOCGSTAMP_OLD, tv, 1000000);
    stamp_call("SIOCGSTAMPNS", b, REQ_SIOCGSTAMPNS_OLD, tv, 1000000000);
    stamp_call("SIOCGSTAMP_NEW", b, REQ_SIOCGSTAMP_NEW, 8, 1000000);
    stamp_call("SIOCGSTAMPNS_NEW", b, REQ_SIOCGSTAMPNS_NEW, 8, 1000000000);
    show("SIOCGSTAMP, bad pointer", ioc(b, REQ_SIOCGSTAMP_OLD, bad_pointer));
    show("SIOCGSTAMP, null pointer", ioc(b, REQ_SIOCGSTAMP_OLD, NULL));
    int f = open("/dev/null", O_RDONLY);
    show("SIOCGSTAMP on /dev/null", ioc(f, REQ_SIOCGSTAMP_OLD, tail(16)));
    close(f);
    *(int *)tail(4) = getpid();
    show("FIOSETOWN", ioc(b, FIOSETOWN, page + pagesz - 4));
    int *owner = tail(4);
    long r = ioc(b, FIOGETOWN, owner);
    printf("FIOGETOWN: %ld, %s\n", r, *owner == getpid() ? "this process" : "another");
    *(int *)tail(4) = -getpgrp();
    show("SIOCSPGRP", ioc(b, SIOCSPGRP, page + pagesz - 4));
    owner = tail(4);
    r = ioc(b, SIOCGPGRP, owner);
    printf("SIOCGPGRP: %ld, %s\n", r, *owner == -getpgrp() ? "this group" : "another");
    show("FIOSETOWN, bad pointer", ioc(b, FIOSETOWN, bad_pointer));
    close(a);
    close(b);
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

/* ustat: the filesystem of /tmp by its device number.  Its counts change
 * while other programs write, so only their being there is shown; the
 * structure ends at the page's end (20 bytes for i386, 32 for x86_64). */
struct ustat_abi {
    int f_tfree;
    unsigned long f_tinode;
    char f_fname[6], f_fpack[6];
};

static void ustat_calls(const char *dir)
{
    printf("-- ustat\n");
    struct stat st;
    stat(dir, &st);
    struct ustat_abi *u = tail(sizeof(*u));
    long r = syscall(SYS_ustat, (unsigned)st.st_dev, u);
    if (r < 0)
        printf("ustat: -1 %s\n", strerror(errno));
    else
        printf("ustat: %ld, free blocks %s, free inodes %s, names \"%.6s\" \"%.6s\"\n", r,
               u->f_tfree != (int)0xaaaaaaaa ? "set" : "untouched",
               u->f_tinode != (unsigned long)0xaaaaaaaaaaaaaaaaull ? "set" : "untouched",
               u->f_fname, u->f_fpack);
    show("ustat, bad pointer", syscall(SYS_ustat, (unsigned)st.st_dev, bad_pointer));
    show("ustat, no such device", syscall(SYS_ustat, 0xfff00u, u));
}

/* name_to_handle_at and open_by_handle_at on a file of dir (they need
 * CAP_DAC_READ_SEARCH: EPERM otherwise, in both runs alike). */
static void handle_calls(const char *dir)
{
    printf("-- file handles\n");
    char path[256];
    snprintf(path, sizeof(path), "%s/handled", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (write(fd, "handled\n", 8) != 8)
        printf("write failed\n");
    close(fd);
    struct file_handle *fh = tail(sizeof(*fh) + MAX_HANDLE_SZ);
    int *mount_id = (int *)page;
    fh->handle_bytes = 0;
    long r = syscall(SYS_name_to_handle_at, AT_FDCWD, path, fh, mount_id, 0);
    printf("name_to_handle_at, no room: %ld %s, %u bytes wanted\n", r, r < 0 ? strerror(errno) : "",
           fh->handle_bytes);
    fh->handle_bytes = MAX_HANDLE_SZ;
    r = syscall(SYS_name_to_handle_at, AT_FDCWD, path, fh, mount_id, 0);
    printf("name_to_handle_at: %ld %s, %u bytes, type %d\n", r, r < 0 ? strerror(errno) : "",
           fh->handle_bytes, fh->handle_type);
    show("name_to_handle_at, bad handle", syscall(SYS_name_to_handle_at, AT_FDCWD, path, bad_pointer,
                                                  mount_id, 0));
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    fd = (int)syscall(SYS_open_by_handle_at, dfd, fh, O_RDONLY);
    if (fd < 0) {
        printf("open_by_handle_at: -1 %s\n", strerror(errno));
    } else {
        char buf[16] = { 0 };
        ssize_t n = read(fd, buf, sizeof(buf) - 1);
        /* O_LARGEFILE shows: x86_64 adds it, i386 does not. */
        printf("open_by_handle_at: read %zd \"%.7s\", flags %#o\n", n, buf, fcntl(fd, F_GETFL));
        close(fd);
    }
    fd = (int)syscall(SYS_open_by_handle_at, dfd, fh, O_RDONLY | O_LARGEFILE);
    printf("open_by_handle_at, O_LARGEFILE: flags %#o\n", fd < 0 ? 0 : fcntl(fd, F_GETFL));
    if (fd >= 0)
        close(fd);
    show("open_by_handle_at, bad handle", syscall(SYS_open_by_handle_at, dfd, bad_pointer, O_RDONLY));
    show("open_by_handle_at, bad descriptor", syscall(SYS_open_by_handle_at, -1, fh, O_RDONLY));
    fh->handle_bytes = MAX_HANDLE_SZ + 1;
    show("open_by_handle_at, handle too long", syscall(SYS_open_by_handle_at, dfd, fh, O_RDONLY));
    close(dfd);
    unlink(path);
}

/* cachestat (451 on both ABIs, one layout): the page cache of a file
 * just written and synced; its 40-byte result ends at the page's end. */
static void cachestat_calls(const char *dir)
{
    printf("-- cachestat\n");
    char path[256];
    snprintf(path, sizeof(path), "%s/cached", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    static char data[3 * 4096];
    if (write(fd, data, sizeof(data)) != (ssize_t)sizeof(data) || fsync(fd) != 0)
        printf("write failed\n");
    uint64_t range[2] = { 0, 0 };
    uint64_t *cs = tail(5 * sizeof(uint64_t));
    long r = syscall(451, fd, range, cs, 0);
    if (r < 0)
        printf("cachestat: -1 %s\n", strerror(errno));
    else
        printf("cachestat: %ld, %llu pages cached, %llu dirty\n", r, (unsigned long long)cs[0],
               (unsigned long long)cs[1]);
    uint64_t one_page[2] = { 4096, 4096 };
    r = syscall(451, fd, one_page, cs, 0);
    printf("cachestat of one page: %ld, %llu cached\n", r, (unsigned long long)cs[0]);
    show("cachestat, bad flags", syscall(451, fd, range, cs, 1));
    show("cachestat, bad range", syscall(451, fd, bad_pointer, cs, 0));
    show("cachestat, bad result", syscall(451, fd, range, bad_pointer, 0));
    show("cachestat, result one byte short", syscall(451, fd, range, page + pagesz - 39, 0));
    show("cachestat, closed descriptor", syscall(451, 999, range, cs, 0));
    close(fd);
    unlink(path);
}

#ifdef __i386__
/* nice(2) of i386 (x86_64 has no such call): the value as getpriority
 * shows it, the clamping of the increment and of the result, and its
 * -EPERM when lowering past RLIMIT_NICE without CAP_SYS_NICE (in a child
 * that gives the capability up). */
static void nice_step(const char *what, int inc)
{
    errno = 0;
    long r = syscall(SYS_nice, inc);
    int err = errno;
    printf("nice(%s): %ld %s, now %d\n", what, r, r < 0 ? strerror(err) : "",
           getpriority(PRIO_PROCESS, 0));
}

static void nice_calls(void)
{
    printf("-- nice\n");
    pid_t pid = fork();
    if (pid == 0) {
        nice_step("0", 0);
        nice_step("3", 3);
        nice_step("-2", -2);
        nice_step("100", 100);
        nice_step("0 at 19", 0);
        nice_step("-100", -100);
        nice_step("-1 at -20", -1);
        /* Without CAP_SYS_NICE only RLIMIT_NICE lets the value go down:
         * to 4 with a limit of 16, if elfemu may raise it (not without
         * CAP_SYS_RESOURCE: then the limit stays as it is, often 0). */
        struct rlimit rl = { 16, 16 };
        printf("setrlimit(RLIMIT_NICE, 16): %d\n", setrlimit(RLIMIT_NICE, &rl));
        struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
        struct __user_cap_data_struct d[2];
        syscall(SYS_capget, &h, d);
        d[0].effective &= ~(1u << CAP_SYS_NICE);
        printf("capset: %ld\n", syscall(SYS_capset, &h, d));
        nice_step("-1 at -20", -1); /* setpriority(-20) would pass */
        nice_step("0 at -20", 0);
        nice_step("30 at -20", 30);
        nice_step("-5 at 10", -5);
        nice_step("-3", -3);
        nice_step("-100", -100);
        nice_step("7", 7);
        fflush(stdout);
        _exit(0);
    }
    int status;
    waitpid(pid, &status, 0);
}

/* The old readdir: one entry a call, 1 and 0 at the end, each with its
 * own position, which must be a 32-bit caller's. */
struct old_dirent32 {
    uint32_t d_ino, d_offset;
    uint16_t d_namlen;
    char d_name[256];
};

static void readdir_calls(const char *dir)
{
    printf("-- readdir\n");
    char path[300];
    for (int i = 0; i < 5; i++) {
        snprintf(path, sizeof(path), "%s/entry%d", dir, i);
        close(open(path, O_WRONLY | O_CREAT, 0600));
    }
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    long r;
    struct old_dirent32 d;
    /* The filesystem's order and positions (ext4 hashes, 32-bit ones for
     * a 32-bit caller): the same in both runs. */
    while ((r = syscall(SYS_readdir, fd, &d, 1)) == 1)
        printf("  %.*s (%u bytes) at %#x, then %#llx\n", d.d_namlen, d.d_name,
               (unsigned)strlen(d.d_name), d.d_offset, (long long)lseek(fd, 0, SEEK_CUR));
    printf("readdir at the end: %ld\n", r);
    /* An entry that does not fit the end of the page: -EFAULT, and the
     * directory stays before it. */
    lseek(fd, 0, SEEK_SET);
    r = syscall(SYS_readdir, fd, &d, 1);
    printf("readdir after rewinding: %ld, %s at %#x\n", r, d.d_name, d.d_offset);
    r = syscall(SYS_readdir, fd, tail(11), 1);
    printf("readdir into 11 bytes: %ld %s\n", r, r < 0 ? strerror(errno) : "");
    r = syscall(SYS_readdir, fd, &d, 1);
    printf("then: %ld, %s at %#x\n", r, d.d_name, d.d_offset);
    show("readdir, bad pointer", syscall(SYS_readdir, fd, bad_pointer, 1));
    close(fd);
    show("readdir, closed descriptor", syscall(SYS_readdir, fd, &d, 1));
    fd = open("/dev/null", O_RDONLY);
    show("readdir, not a directory", syscall(SYS_readdir, fd, &d, 1));
    close(fd);
    for (int i = 0; i < 5; i++) {
        snprintf(path, sizeof(path), "%s/entry%d", dir, i);
        unlink(path);
    }
}
#endif

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
    disk_ioctls();
    net_ioctls();
    socket_ioctls();
    tty_ioctls();
    ustat_calls(dir);
    handle_calls(dir);
    cachestat_calls(dir);
#ifdef __i386__
    nice_calls();
    readdir_calls(dir);
#endif
    rmdir(dir);
    return 0;
}
