/* The flags a fault handler sees, when the code that faults ran before
 * there was a handler.  While no fault can be caught, elfemu decodes code
 * that may leave out the flags of a writer before a load (cpu/block.c
 * "Flags at a fault"); the first fault handler, or a second thread, must
 * make them exact again, also in code decoded before.  Each case: a flag
 * writer, an access that may fault, and a writer of every flag after it
 * (so the first one's flags are dead unless the access faults). */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#define ARITH 0x8d5ul /* CF PF AF ZF SF OF */

static sigjmp_buf back;
static volatile unsigned long seen_flags;
static volatile int seen_sig;

static void on_fault(int sig, siginfo_t *si, void *ctx)
{
    (void)si;
    ucontext_t *uc = ctx;
    seen_sig = sig;
    seen_flags = (unsigned long)uc->uc_mcontext.gregs[REG_EFL] & ARITH;
    siglongjmp(back, 1);
}

static void catch(int sig)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigaction(sig, &sa, NULL);
}

/* ADD, then a load from p, then CMP. */
__attribute__((noinline)) static long add_load(const long *p, long a, long b)
{
    long out;
    __asm__ volatile("add %2, %1\n\t"
                     "mov (%3), %0\n\t"
                     "cmp $1, %1\n\t"
                     : "=&r"(out), "+r"(a)
                     : "r"(b), "r"(p)
                     : "cc", "memory");
    return out + a;
}

/* SUB, then a store to p, then TEST. */
__attribute__((noinline)) static long sub_store(long *p, long a, long b)
{
    __asm__ volatile("sub %1, %0\n\t"
                     "mov %0, (%2)\n\t"
                     "test %0, %0\n\t"
                     : "+r"(a)
                     : "r"(b), "r"(p)
                     : "cc", "memory");
    return a;
}

/* NEG, then an unsigned division by d, then OR. */
__attribute__((noinline)) static unsigned long neg_div(unsigned long a, unsigned long d)
{
    unsigned long q, r = 0;
    __asm__ volatile("neg %0\n\t"
                     "div %3\n\t"
                     "or %1, %1\n\t"
                     : "+a"(a), "+d"(r), "=r"(q)
                     : "r"(d)
                     : "cc");
    q = a;
    return q + r;
}

static long cell;

/* Warm every case up (decoded while no fault can be caught): the sum shows
 * they computed as natively. */
static void warm(void)
{
    long sum = 0;
    for (int i = 0; i < 2000; i++) {
        sum += add_load(&cell, i, 3);
        sum += sub_store(&cell, i, 7);
        sum += (long)neg_div((unsigned long)i + 1, ~0ul);
    }
    printf("warm %ld\n", sum);
}

static void report(const char *what, int sig, int caught)
{
    printf("%s: %s, signal %d, flags %#lx\n", what, caught ? "caught" : "no fault", sig,
           seen_flags);
}

/* Each case faults once, with the writer's operands chosen so its flags
 * differ from those of the writer after the access. */
static void fault_all(void)
{
    long big = (long)(~0ul >> 1);
    seen_flags = 0;
    if (!sigsetjmp(back, 1)) {
        add_load(NULL, big, 1);        /* OF SF AF PF */
        report("add_load", 0, 0);
    } else
        report("add_load", seen_sig, 1);
    seen_flags = 0;
    if (!sigsetjmp(back, 1)) {
        sub_store(NULL, 0, 1);         /* CF SF AF PF */
        report("sub_store", 0, 0);
    } else
        report("sub_store", seen_sig, 1);
    seen_flags = 0;
    if (!sigsetjmp(back, 1)) {
        neg_div(~0ul >> 2, 0);         /* CF SF AF */
        report("neg_div", 0, 0);
    } else
        report("neg_div", seen_sig, 1);
}

static void *install(void *arg)
{
    (void)arg;
    catch(SIGSEGV);
    catch(SIGFPE);
    return NULL;
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    /* In a child: the handlers come from a second thread. */
    pid_t pid = fork();
    if (pid == 0) {
        warm();
        pthread_t t;
        pthread_create(&t, NULL, install, NULL);
        pthread_join(t, NULL);
        printf("child:\n");
        fault_all();
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    printf("child status %#x\n", st);
    /* Here: from this thread, after the same code ran without them. */
    warm();
    catch(SIGSEGV);
    catch(SIGFPE);
    printf("parent:\n");
    fault_all();
    return 0;
}
