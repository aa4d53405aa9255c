/* bench helper: run a command once and print "<wall seconds> <peak RSS KiB>
 * <exit status>" on our own stdout; the command's stdout goes to OUTFILE,
 * its stdin comes from INFILE (default /dev/null, so no workload ever waits
 * on a terminal) and its stderr goes to ERRFILE (default: ours).  Wall time
 * from CLOCK_MONOTONIC, peak RSS from wait4()'s rusage, so nothing outside
 * Debian's base system is needed.  A signal death is reported as 128+N. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Open PATH with FLAGS onto descriptor FD in the child, or die with 126. */
static void redirect(const char *path, int flags, int fd)
{
    int f = open(path, flags, 0644);
    if (f < 0 || dup2(f, fd) < 0) {
        perror(path);
        _exit(126);
    }
    if (f != fd)
        close(f);
}

int main(int argc, char **argv)
{
    const char *in = "/dev/null", *out = NULL, *err = NULL;
    int c;
    while ((c = getopt(argc, argv, "+i:o:e:")) != -1) {
        switch (c) {
        case 'i': in = optarg; break;
        case 'o': out = optarg; break;
        case 'e': err = optarg; break;
        default: out = NULL; optind = argc; break;
        }
    }
    if (out == NULL || optind >= argc) {
        fprintf(stderr, "usage: measure [-i INFILE] -o OUTFILE [-e ERRFILE] COMMAND [ARGS...]\n");
        return 2;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid == 0) {
        redirect(in, O_RDONLY, 0);
        redirect(out, O_WRONLY | O_CREAT | O_TRUNC, 1);
        if (err != NULL)
            redirect(err, O_WRONLY | O_CREAT | O_TRUNC, 2);
        execvp(argv[optind], argv + optind);
        perror(argv[optind]);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &status, 0, &ru) < 0) {
        perror("measure");
        return 2;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("%.6f %ld %d\n", s, ru.ru_maxrss,
           WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    return 0;
}
