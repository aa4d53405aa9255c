/* mmap, mprotect, munmap, mremap, mincore, msync, the mlock family and brk
 * at their edges, compared with the native run.  Addresses are never
 * printed: only relations ("same address", "moved"), contents, how a touch
 * ended (a signal and its si_code) and errno names. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "show.h"

#define PAGE 4096
#define FAILED(p) ((p) == MAP_FAILED)

static void show_map(const char *what, void *p)
{
    if (FAILED(p))
        printf("%s: MAP_FAILED %s\n", what, strerrorname_np(errno));
    else
        printf("%s: mapped\n", what);
}

/* ------------------------------------------------------------ touching */

static sigjmp_buf env;
static volatile int fault_sig, fault_code;
static volatile uintptr_t fault_addr;

static volatile int armed;

static void on_fault(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    if (!armed) { /* a fault outside touch(): die of it, loudly */
        signal(sig, SIG_DFL);
        return;
    }
    armed = 0;
    fault_sig = sig;
    fault_code = si->si_code;
    fault_addr = (uintptr_t)si->si_addr;
    siglongjmp(env, 1);
}

static const char *code_name(int sig, int code)
{
    if (sig == SIGSEGV)
        return code == SEGV_MAPERR ? "SEGV_MAPERR" : code == SEGV_ACCERR ? "SEGV_ACCERR" : "other";
    if (sig == SIGBUS)
        return code == BUS_ADRERR ? "BUS_ADRERR" : "other";
    return "other";
}

/* Read or write one byte at p, catching the fault. */
static void touch(const char *what, volatile char *p, bool write)
{
    fault_sig = 0;
    if (sigsetjmp(env, 1) == 0) {
        armed = 1;
        if (write)
            *p = 'w';
        else
            (void)*p;
        armed = 0;
        printf("%s: ok\n", what);
    } else {
        printf("%s: %s %s, si_addr %s\n", what, fault_sig == SIGSEGV ? "SIGSEGV" : "SIGBUS",
               code_name(fault_sig, fault_code),
               fault_addr == (uintptr_t)p ? "is the byte" : "ELSEWHERE");
    }
}

/* ------------------------------------------------------------ mmap */

static void mmap_tests(const char *dir)
{
    show_map("length 0", mmap(NULL, 0, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    show_map("unaligned offset", mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 5));
    show_map("neither private nor shared", mmap(NULL, PAGE, PROT_READ, MAP_ANONYMOUS, -1, 0));
    show_map("bad fd", mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, 999, 0));
#if __SIZEOF_SIZE_T__ == 8
    const size_t huge = (size_t)1 << 62;
#else
    const size_t huge = 0xf0000000u; /* more than a 32-bit address space has free */
#endif
    show_map("huge", mmap(NULL, huge, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));

    char *a = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    show_map("anonymous 4 pages", a);
    printf("zero filled: %s\n", a[0] == 0 && a[4 * PAGE - 1] == 0 ? "yes" : "no");
    memset(a, 'a', 4 * PAGE);
    char *b = mmap(a + PAGE, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    printf("MAP_FIXED over page 1: %s, contents %d, neighbours %c %c\n",
           b == a + PAGE ? "at the address" : "elsewhere", b[0], a[0], a[2 * PAGE]);
    touch("write to the new read-only page", b, true);
    errno = 0;
    char *c = mmap(a + 2 * PAGE, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
                   -1, 0);
    printf("MAP_FIXED_NOREPLACE over a mapping: %s\n", FAILED(c) ? strerrorname_np(errno) : "mapped");
    char *hint = mmap(a + PAGE, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    printf("a hint on a used page: %s\n", hint == a + PAGE ? "taken" : "elsewhere");
    munmap(hint, PAGE);

    /* munmap of the middle: both ends stay. */
    show("munmap the middle two pages", munmap(a + PAGE, 2 * PAGE));
    touch("read the first page", a, false);
    touch("read an unmapped middle page", a + PAGE, false);
    touch("read the last page", a + 3 * PAGE, false);
    show("munmap unaligned", munmap(a + 1, PAGE));
    show("munmap length 0", munmap(a, 0));
    show("munmap an unmapped range", munmap(a + PAGE, PAGE));
    munmap(a, 4 * PAGE);

    /* A file: shared writes reach the file, private ones do not. */
    char path[256];
    snprintf(path, sizeof(path), "%s/file", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (ftruncate(fd, PAGE + 100) != 0)
        return;
    char *sh = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    char *pr = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    show_map("file shared", sh);
    show_map("file private", pr);
    memcpy(sh, "shared!", 7);
    memcpy(pr + 10, "private", 7);
    char buf[20] = { 0 };
    show("pread", pread(fd, buf, 17, 0));
    printf("file starts: %.7s|%.7s (private write %s)\n", buf, buf + 10,
           buf[10] == 0 ? "not in the file" : "IN THE FILE");
    printf("the private mapping sees the shared write: %.7s\n", pr);
    show("pwrite", pwrite(fd, "from write", 10, 20));
    printf("the shared mapping sees write(): %.10s\n", sh + 20);
    printf("past EOF in the last page: %d\n", sh[PAGE + 200]);
    touch("past EOF beyond the last page", sh + PAGE + PAGE / 2 + PAGE / 2, false);
    show("msync MS_SYNC", msync(sh, 2 * PAGE, MS_SYNC));
    show("msync MS_ASYNC|MS_INVALIDATE", msync(sh, PAGE, MS_ASYNC | MS_INVALIDATE));
    show("msync both", msync(sh, PAGE, MS_ASYNC | MS_SYNC));
    show("msync bad flags", msync(sh, PAGE, 64));
    show("msync unaligned", msync(sh + 1, PAGE, MS_SYNC));
    show("msync length 0", msync(sh, 0, MS_SYNC));

    /* A shared anonymous page is shared with a fork child. */
    int *shared = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    int *priv = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    pid_t pid = fork();
    if (pid == 0) {
        *shared = 42;
        *priv = 42;
        _exit(0);
    }
    waitpid(pid, NULL, 0);
    printf("after the child wrote: shared %d, private %d\n", *shared, *priv);

    munmap(sh, 2 * PAGE);
    munmap(pr, 2 * PAGE);
    close(fd);
    show("mmap a write-only descriptor", (long)(intptr_t)mmap(NULL, PAGE, PROT_READ, MAP_SHARED,
                                                               open(path, O_WRONLY), 0) < 0 ? -1 : 0);
    unlink(path);
}

/* ------------------------------------------------------------ mprotect */

static void mprotect_tests(void)
{
    char *a = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    a[0] = 'x';
    show("mprotect the middle read-only", mprotect(a + PAGE, PAGE, PROT_READ));
    touch("write the read-only middle", a + PAGE, true);
    touch("write the first page", a, true);
    show("mprotect PROT_NONE", mprotect(a, PAGE, PROT_NONE));
    touch("read a PROT_NONE page", a, false);
    show("mprotect back to read-write", mprotect(a, PAGE, PROT_READ | PROT_WRITE));
    printf("contents kept: %c\n", a[0]);
    show("mprotect unaligned", mprotect(a + 1, PAGE, PROT_READ));
    show("mprotect bad prot", mprotect(a, PAGE, 0x100));
    munmap(a + PAGE, PAGE);
    show("mprotect over a hole", mprotect(a, 3 * PAGE, PROT_READ));
    show("mprotect length 0", mprotect(a, 0, PROT_READ));
    munmap(a, 3 * PAGE);
    touch("read an unmapped page", a, false);
}

/* ------------------------------------------------------------ mremap */

static void fill(char *p, size_t n, char base)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (char)(base + i % 26);
}

static bool same(const char *p, size_t n, char base)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != (char)(base + i % 26))
            return false;
    return true;
}

static void mremap_tests(void)
{
    char *a = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    fill(a, 4 * PAGE, 'a');
    /* Make room after it so it can grow in place. */
    munmap(a + 2 * PAGE, 2 * PAGE);
    char *g = mremap(a, 2 * PAGE, 4 * PAGE, 0);
    printf("grow in place: %s, contents %s, new pages zero %s\n",
           g == a ? "same address" : FAILED(g) ? strerrorname_np(errno) : "moved",
           same(a, 2 * PAGE, 'a') ? "kept" : "LOST", a[3 * PAGE] == 0 ? "yes" : "no");
    char *s = mremap(a, 4 * PAGE, PAGE, 0);
    printf("shrink: %s, contents %s\n", s == a ? "same address" : "moved",
           same(a, PAGE, 'a') ? "kept" : "LOST");
    touch("read the page cut off", a + PAGE, false);

    /* Growing with a neighbour in the way: ENOMEM without MREMAP_MAYMOVE. */
    char *wall = mmap(a + PAGE, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    errno = 0;
    g = mremap(a, PAGE, 3 * PAGE, 0);
    printf("grow into a mapping: %s\n", FAILED(g) ? strerrorname_np(errno) : "grew");
    g = mremap(a, PAGE, 3 * PAGE, MREMAP_MAYMOVE);
    printf("grow with MREMAP_MAYMOVE: %s, contents %s\n",
           FAILED(g) ? strerrorname_np(errno) : g == a ? "same address" : "moved",
           !FAILED(g) && same(g, PAGE, 'a') ? "kept" : "LOST");
    touch("read the old address", a, false);
    munmap(wall, PAGE);

    /* MREMAP_FIXED to a chosen place, replacing what is there. */
    char *dst = mmap(NULL, 2 * PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    char *f = mremap(g, 3 * PAGE, 2 * PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, dst);
    printf("MREMAP_FIXED: %s, contents %s, writable %s\n",
           f == dst ? "at the address" : FAILED(f) ? strerrorname_np(errno) : "elsewhere",
           !FAILED(f) && same(f, PAGE, 'a') ? "kept" : "LOST", "-");
    touch("write after MREMAP_FIXED", f, true);
    touch("read the source", g, false);

    /* MREMAP_DONTUNMAP itself is not compared: the host kernel used for
     * the tests (6.18) refuses it with EINVAL for some private anonymous
     * mappings (a fresh one, one moved before) and not others, a rule of
     * its own that earlier kernels do not have; elfemu moves them all. */
    char *m = MAP_FAILED;
    errno = 0;
    printf("MREMAP_DONTUNMAP with a new size: %s\n",
           FAILED(mremap(f, 2 * PAGE, 3 * PAGE, MREMAP_MAYMOVE | MREMAP_DONTUNMAP))
               ? strerrorname_np(errno) : "done");

    /* The errors. */
    errno = 0;
    printf("unaligned: %s\n", FAILED(mremap(f + 1, PAGE, PAGE, 0)) ? strerrorname_np(errno) : "done");
    errno = 0;
    printf("new size 0: %s\n", FAILED(mremap(f, PAGE, 0, 0)) ? strerrorname_np(errno) : "done");
    errno = 0;
    printf("bad flags: %s\n", FAILED(mremap(f, PAGE, PAGE, 8)) ? strerrorname_np(errno) : "done");
    errno = 0;
    printf("MREMAP_FIXED without MAYMOVE: %s\n",
           FAILED(mremap(f, PAGE, PAGE, MREMAP_FIXED, dst)) ? strerrorname_np(errno) : "done");
    errno = 0;
    printf("overlapping MREMAP_FIXED: %s\n",
           FAILED(mremap(f, 2 * PAGE, 2 * PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, f + PAGE))
               ? strerrorname_np(errno) : "done");
    munmap(f, 2 * PAGE);
    errno = 0;
    printf("unmapped source: %s\n", FAILED(mremap(f, PAGE, 2 * PAGE, MREMAP_MAYMOVE))
                                        ? strerrorname_np(errno) : "done");
    char *one = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    errno = 0;
    printf("source longer than its mapping: %s\n",
           FAILED(mremap(one, 3 * PAGE, 4 * PAGE, MREMAP_MAYMOVE)) ? strerrorname_np(errno) : "done");
    munmap(one, PAGE);
    if (!FAILED(m))
        munmap(m, 2 * PAGE);

    /* A shared file mapping moves with its file. */
    char tmpl[] = "/tmp/elfemu-mmapedge-XXXXXX";
    int fd = mkstemp(tmpl);
    unlink(tmpl);
    if (ftruncate(fd, 3 * PAGE) != 0)
        return;
    /* Two pages reserved: the file's page in the first, the second (still
     * PROT_NONE) keeps it from growing in place. */
    char *region = mmap(NULL, 2 * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    char *fm = mmap(region, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, PAGE);
    strcpy(fm, "page one of the file");
    char *blocker = region + PAGE;
    char *moved = mremap(fm, PAGE, 2 * PAGE, MREMAP_MAYMOVE);
    printf("shared file mapping grown and moved: %s\n", FAILED(moved) ? strerrorname_np(errno) : "ok");
    if (!FAILED(moved)) {
        printf("  still the file's page one: %s\n", moved);
        strcpy(moved + PAGE, "page two");
        char buf[16] = { 0 };
        pread(fd, buf, 8, 2 * PAGE);
        printf("  a write to the new page reaches the file: %s\n", buf);
        munmap(moved, 2 * PAGE);
    }
    munmap(blocker, PAGE);
    close(fd);
}

/* ------------------------------------------------------------ mincore, mlock, brk */

static void misc_tests(void)
{
    char *a = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    a[0] = 1;
    a[2 * PAGE] = 1;
    unsigned char vec[4] = { 9, 9, 9, 9 };
    show("mincore", mincore(a, 4 * PAGE, vec));
    printf("resident: %d %d %d %d\n", vec[0] & 1, vec[1] & 1, vec[2] & 1, vec[3] & 1);
    show("mincore unaligned", mincore(a + 1, PAGE, vec));
    show("mincore bad vector", mincore(a, PAGE, (unsigned char *)16));
    munmap(a + 3 * PAGE, PAGE);
    show("mincore over a hole", mincore(a, 4 * PAGE, vec));
    show("mincore length 0", mincore(a, 0, vec));

    show("mlock", mlock(a + 10, 100));
    show("munlock", munlock(a, PAGE));
    show("mlock over a hole", mlock(a, 4 * PAGE));
    show("mlock2 MLOCK_ONFAULT", syscall(SYS_mlock2, a, PAGE, 1));
    show("mlock2 bad flags", syscall(SYS_mlock2, a, PAGE, 2));
    show("mlock length 0", mlock(a, 0));
    show("mlockall bad flags", mlockall(0));
    show("mlockall MCL_ONFAULT alone", mlockall(MCL_ONFAULT));
    show("munlockall", munlockall());
    munmap(a, 3 * PAGE);

    char *start = sbrk(0);
    show("brk up 3 pages", brk(start + 3 * PAGE));
    start[3 * PAGE - 1] = 'z';
    printf("the heap's last byte: %c\n", start[3 * PAGE - 1]);
    show("brk back down", brk(start));
    touch("read above the lowered break", start + 2 * PAGE, false);
    printf("sbrk(0) back where it was: %s\n", sbrk(0) == start ? "yes" : "no");
    show("brk below the start", brk((char *)start - (1 << 30)));
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    struct sigaction sa = { .sa_sigaction = on_fault, .sa_flags = SA_SIGINFO | SA_NODEFER };
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    char dir[] = "/tmp/elfemu-mmapedge-XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    mmap_tests(dir);
    mprotect_tests();
    mremap_tests();
    misc_tests();
    rmdir(dir);
    return 0;
}
