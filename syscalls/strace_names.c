/* Names for --strace: errno names and texts, signal names, si_code names.
 * The values are Linux's (the guest's and the host's are the same on an
 * x86_64 host), so the tables are indexed by the host's constants. */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>

#include "syscalls/strace_fmt.h"

/* Kernel-internal codes a syscall may return to a tracer while a signal
 * interrupts it (include/linux/errno.h); they never reach user space. */
enum { ERESTARTSYS = 512, ERESTARTNOINTR = 513, ERESTARTNOHAND = 514, ENOIOCTLCMD = 515,
       ERESTART_RESTARTBLOCK = 516 };

#define E(x) [x] = #x
static const char *const errno_names[] = {
    E(EPERM), E(ENOENT), E(ESRCH), E(EINTR), E(EIO), E(ENXIO), E(E2BIG), E(ENOEXEC),
    E(EBADF), E(ECHILD), E(EAGAIN), E(ENOMEM), E(EACCES), E(EFAULT), E(ENOTBLK), E(EBUSY),
    E(EEXIST), E(EXDEV), E(ENODEV), E(ENOTDIR), E(EISDIR), E(EINVAL), E(ENFILE), E(EMFILE),
    E(ENOTTY), E(ETXTBSY), E(EFBIG), E(ENOSPC), E(ESPIPE), E(EROFS), E(EMLINK), E(EPIPE),
    E(EDOM), E(ERANGE), E(EDEADLK), E(ENAMETOOLONG), E(ENOLCK), E(ENOSYS), E(ENOTEMPTY),
    E(ELOOP), E(ENOMSG), E(EIDRM), E(ECHRNG), E(EL2NSYNC), E(EL3HLT), E(EL3RST), E(ELNRNG),
    E(EUNATCH), E(ENOCSI), E(EL2HLT), E(EBADE), E(EBADR), E(EXFULL), E(ENOANO), E(EBADRQC),
    E(EBADSLT), E(EBFONT), E(ENOSTR), E(ENODATA), E(ETIME), E(ENOSR), E(ENONET), E(ENOPKG),
    E(EREMOTE), E(ENOLINK), E(EADV), E(ESRMNT), E(ECOMM), E(EPROTO), E(EMULTIHOP), E(EDOTDOT),
    E(EBADMSG), E(EOVERFLOW), E(ENOTUNIQ), E(EBADFD), E(EREMCHG), E(ELIBACC), E(ELIBBAD),
    E(ELIBSCN), E(ELIBMAX), E(ELIBEXEC), E(EILSEQ), E(ERESTART), E(ESTRPIPE), E(EUSERS),
    E(ENOTSOCK), E(EDESTADDRREQ), E(EMSGSIZE), E(EPROTOTYPE), E(ENOPROTOOPT),
    E(EPROTONOSUPPORT), E(ESOCKTNOSUPPORT), E(EOPNOTSUPP), E(EPFNOSUPPORT), E(EAFNOSUPPORT),
    E(EADDRINUSE), E(EADDRNOTAVAIL), E(ENETDOWN), E(ENETUNREACH), E(ENETRESET),
    E(ECONNABORTED), E(ECONNRESET), E(ENOBUFS), E(EISCONN), E(ENOTCONN), E(ESHUTDOWN),
    E(ETOOMANYREFS), E(ETIMEDOUT), E(ECONNREFUSED), E(EHOSTDOWN), E(EHOSTUNREACH),
    E(EALREADY), E(EINPROGRESS), E(ESTALE), E(EUCLEAN), E(ENOTNAM), E(ENAVAIL), E(EISNAM),
    E(EREMOTEIO), E(EDQUOT), E(ENOMEDIUM), E(EMEDIUMTYPE), E(ECANCELED), E(ENOKEY),
    E(EKEYEXPIRED), E(EKEYREVOKED), E(EKEYREJECTED), E(EOWNERDEAD), E(ENOTRECOVERABLE),
    E(ERFKILL), E(EHWPOISON),
    E(ERESTARTSYS), E(ERESTARTNOINTR), E(ERESTARTNOHAND), E(ENOIOCTLCMD),
    E(ERESTART_RESTARTBLOCK),
};
#undef E

const char *strace_errno_name(int err)
{
    if (err <= 0 || (size_t)err >= sizeof(errno_names) / sizeof(errno_names[0]))
        return NULL;
    return errno_names[err];
}

const char *strace_errno_text(int err)
{
    /* strace's own words for the codes the C library does not know. */
    switch (err) {
    case ERESTARTSYS: return "To be restarted if SA_RESTART is set";
    case ERESTARTNOINTR: return "To be restarted";
    case ERESTARTNOHAND: return "To be restarted if no handler";
    case ENOIOCTLCMD: return "ioctl not supported";
    case ERESTART_RESTARTBLOCK: return "Interrupted by signal";
    }
    /* The C library's text, untranslated and thread-safe (strerror() may
     * be neither); what strace prints. */
    const char *t = err > 0 && err < 512 ? strerrordesc_np(err) : NULL;
    return t ? t : "Unknown error";
}

#define S(x) [x] = #x
static const char *const signal_names[] = {
    S(SIGHUP), S(SIGINT), S(SIGQUIT), S(SIGILL), S(SIGTRAP), S(SIGABRT), S(SIGBUS), S(SIGFPE),
    S(SIGKILL), S(SIGUSR1), S(SIGSEGV), S(SIGUSR2), S(SIGPIPE), S(SIGALRM), S(SIGTERM),
    S(SIGSTKFLT), S(SIGCHLD), S(SIGCONT), S(SIGSTOP), S(SIGTSTP), S(SIGTTIN), S(SIGTTOU),
    S(SIGURG), S(SIGXCPU), S(SIGXFSZ), S(SIGVTALRM), S(SIGPROF), S(SIGWINCH), S(SIGIO),
    S(SIGPWR), S(SIGSYS),
};
#undef S

/* Real-time signals are named from the kernel's SIGRTMIN (32), not the C
 * library's (which reserves two for itself), as strace does. */
static const char *const rt_names[] = {
    "SIGRTMIN", "SIGRT_1", "SIGRT_2", "SIGRT_3", "SIGRT_4", "SIGRT_5", "SIGRT_6",
    "SIGRT_7", "SIGRT_8", "SIGRT_9", "SIGRT_10", "SIGRT_11", "SIGRT_12", "SIGRT_13",
    "SIGRT_14", "SIGRT_15", "SIGRT_16", "SIGRT_17", "SIGRT_18", "SIGRT_19", "SIGRT_20",
    "SIGRT_21", "SIGRT_22", "SIGRT_23", "SIGRT_24", "SIGRT_25", "SIGRT_26", "SIGRT_27",
    "SIGRT_28", "SIGRT_29", "SIGRT_30", "SIGRT_31", "SIGRT_32",
};

const char *strace_signal_name(int sig)
{
    if (sig > 0 && sig < 32)
        return signal_names[sig];
    if (sig >= 32 && sig <= 64)
        return rt_names[sig - 32];
    return NULL;
}

struct code_name {
    int code;
    const char *name;
};

#define C(x) { x, #x }
static const struct code_name generic_codes[] = {
    C(SI_USER), C(SI_KERNEL), C(SI_QUEUE), C(SI_TIMER), C(SI_MESGQ), C(SI_ASYNCIO),
    C(SI_SIGIO), C(SI_TKILL), C(SI_ASYNCNL), { -7, "SI_DETHREAD" }, { 0, NULL },
};
static const struct code_name segv_codes[] = {
    C(SEGV_MAPERR), C(SEGV_ACCERR), { 3, "SEGV_BNDERR" }, { 4, "SEGV_PKUERR" }, { 0, NULL },
};
static const struct code_name bus_codes[] = {
    C(BUS_ADRALN), C(BUS_ADRERR), C(BUS_OBJERR), C(BUS_MCEERR_AR), C(BUS_MCEERR_AO),
    { 0, NULL },
};
static const struct code_name ill_codes[] = {
    C(ILL_ILLOPC), C(ILL_ILLOPN), C(ILL_ILLADR), C(ILL_ILLTRP), C(ILL_PRVOPC), C(ILL_PRVREG),
    C(ILL_COPROC), C(ILL_BADSTK), { 0, NULL },
};
static const struct code_name fpe_codes[] = {
    C(FPE_INTDIV), C(FPE_INTOVF), C(FPE_FLTDIV), C(FPE_FLTOVF), C(FPE_FLTUND), C(FPE_FLTRES),
    C(FPE_FLTINV), C(FPE_FLTSUB), { 0, NULL },
};
static const struct code_name trap_codes[] = {
    C(TRAP_BRKPT), C(TRAP_TRACE), C(TRAP_BRANCH), C(TRAP_HWBKPT), { 0, NULL },
};
static const struct code_name chld_codes[] = {
    C(CLD_EXITED), C(CLD_KILLED), C(CLD_DUMPED), C(CLD_TRAPPED), C(CLD_STOPPED),
    C(CLD_CONTINUED), { 0, NULL },
};
static const struct code_name poll_codes[] = {
    C(POLL_IN), C(POLL_OUT), C(POLL_MSG), C(POLL_ERR), C(POLL_PRI), C(POLL_HUP), { 0, NULL },
};
#undef C

static const char *code_lookup(const struct code_name *t, int code)
{
    for (; t->name; t++)
        if (t->code == code)
            return t->name;
    return NULL;
}

const char *strace_si_code_name(int sig, int code)
{
    /* Codes <= 0 and SI_KERNEL mean the same for every signal; positive
     * ones are the signal's own. */
    if (code <= 0 || code == SI_KERNEL)
        return code_lookup(generic_codes, code);
    switch (sig) {
    case SIGSEGV: return code_lookup(segv_codes, code);
    case SIGBUS: return code_lookup(bus_codes, code);
    case SIGILL: return code_lookup(ill_codes, code);
    case SIGFPE: return code_lookup(fpe_codes, code);
    case SIGTRAP: return code_lookup(trap_codes, code);
    case SIGCHLD: return code_lookup(chld_codes, code);
    case SIGIO: return code_lookup(poll_codes, code);
    }
    return NULL;
}
