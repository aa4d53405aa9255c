/* The syscall list: SYSCALL(name, x86_64 number, i386 number, spec), -1
 * where an ABI lacks the call or elfemu does not serve it for that ABI yet.
 * It generates the handler declarations, both dispatch tables and the
 * --strace formats (syscalls/strace.c).  Handlers are sys_<name>.
 *
 * spec is "R:ARGS": one letter for the result, then one per argument.
 *   result: d  int, an error shown as -1 ENAME (text)
 *           x  address or hex value (mmap, brk); errors as for d
 *           o  octal (umask)
 *           n  does not return (exit): shown as "= ?" before the call
 *   args:   d int          l long (offsets)   u unsigned long (sizes)
 *           x hex          p pointer (NULL or hex)
 *           f fd           D dirfd (AT_FDCWD)
 *           s string (path, shown whole)       z string (not a path: 32 bytes shown)
 *           b buffer the call reads, its length is the next argument
 *           B buffer the call writes, its length is the result
 *           v iovec array read (count: next arg)      V iovec array written
 *           o open flags   m mode (octal; after o only with O_CREAT/O_TMPFILE)
 *           C descriptor flags: O_* bits without an access mode (pipe2, dup3,
 *             eventfd2, inotify_init1...), O_CLOEXEC|O_NONBLOCK or 0
 *           P mmap prot    M mmap flags   a AT_* flags   w lseek whence
 *           S signal       c clone flags  K access mode (F_OK, R_OK|W_OK)
 *           F fcntl cmd (the next argument is shown as the command wants it)
 *           I ioctl request (likewise)     k clock id     X futex op (the
 *             op decides which of the remaining arguments are shown)
 *           R arch_prctl code              e string array (argv)
 *           E environment array: its address and how many strings it holds
 *           t timespec read   T timespec written   h stat written
 *           A sigaction read  H sigaction written (old action)
 *           q sigset read     Q sigset written     g sigprocmask how
 *           y sockaddr read (length: next arg)
 *           Y sockaddr written (length: the socklen_t the next arg points to)
 *           N socket domain (AF_*)         G socket type (SOCK_*|SOCK_CLOEXEC)
 *           i int* read, shown [5]         U int* written, shown [5]
 *           j int[2] written (pipe, socketpair fds), shown [3, 4]
 *           W wait status written, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}]
 *           O wait options (WNOHANG|__WALL)
 *           r rlimit resource  Z struct rlimit read  L struct rlimit written
 * The socket calls show msghdr, mmsghdr, socket option levels and names,
 * MSG_* flags and shutdown's how as p, x and d: letters for them are still
 * to be added here and in strace.c.
 * Written arguments are formatted after the call (their address when it
 * failed).  strace.c shows letters it does not know as hex. */
/* fs.c */
SYSCALL(read, 0, -1, "d:fBu")
SYSCALL(write, 1, 4, "d:fbu")
SYSCALL(close, 3, -1, "d:f")
SYSCALL(fstat, 5, -1, "d:fh")
SYSCALL(lseek, 8, -1, "d:flw")
SYSCALL(pread64, 17, -1, "d:fBul")
SYSCALL(pwrite64, 18, -1, "d:fbul")
SYSCALL(readv, 19, -1, "d:fVd")
SYSCALL(writev, 20, -1, "d:fvd")
SYSCALL(access, 21, -1, "d:sK")
SYSCALL(ioctl, 16, -1, "d:fIx")
SYSCALL(dup, 32, -1, "d:f")
SYSCALL(dup2, 33, -1, "d:ff")
SYSCALL(fcntl, 72, -1, "d:fFx")
SYSCALL(getcwd, 79, -1, "d:Bu")
SYSCALL(readlink, 89, -1, "d:sBu")
SYSCALL(openat, 257, -1, "d:Dsom")
SYSCALL(open, 2, -1, "d:som")
SYSCALL(newfstatat, 262, -1, "d:Dsha")
SYSCALL(readlinkat, 267, -1, "d:DsBu")
SYSCALL(faccessat, 269, -1, "d:DsK")
SYSCALL(faccessat2, 439, -1, "d:DsKa")
SYSCALL(getdents64, 217, -1, "d:fpu")
SYSCALL(pipe2, 293, -1, "d:jC")
SYSCALL(dup3, 292, -1, "d:ffC")
/* fs_paths.c */
SYSCALL(stat, 4, -1, "d:sh")
SYSCALL(lstat, 6, -1, "d:sh")
SYSCALL(statx, 332, -1, "d:Dsaxp")
SYSCALL(fadvise64, 221, -1, "d:flld")
SYSCALL(chdir, 80, -1, "d:s")
SYSCALL(fchdir, 81, -1, "d:f")
SYSCALL(mkdir, 83, -1, "d:sm")
SYSCALL(mkdirat, 258, -1, "d:Dsm")
SYSCALL(rmdir, 84, -1, "d:s")
SYSCALL(unlink, 87, -1, "d:s")
SYSCALL(unlinkat, 263, -1, "d:Dsa")
SYSCALL(rename, 82, -1, "d:ss")
SYSCALL(renameat, 264, -1, "d:DsDs")
SYSCALL(renameat2, 316, -1, "d:DsDsx")
SYSCALL(link, 86, -1, "d:ss")
SYSCALL(linkat, 265, -1, "d:DsDsa")
SYSCALL(symlink, 88, -1, "d:ss")
SYSCALL(symlinkat, 266, -1, "d:sDs")
SYSCALL(chmod, 90, -1, "d:sm")
SYSCALL(fchmod, 91, -1, "d:fm")
SYSCALL(fchmodat, 268, -1, "d:Dsm")
SYSCALL(fchown, 93, -1, "d:fdd")
SYSCALL(fchownat, 260, -1, "d:Dsdda")
SYSCALL(utimensat, 280, -1, "d:Dspa")
SYSCALL(umask, 95, -1, "o:m")
SYSCALL(fsync, 74, -1, "d:f")
SYSCALL(fdatasync, 75, -1, "d:f")
SYSCALL(ftruncate, 77, -1, "d:fl")
SYSCALL(truncate, 76, -1, "d:sl")
SYSCALL(fallocate, 285, -1, "d:fdll")
SYSCALL(getxattr, 191, -1, "d:szBu")
SYSCALL(lgetxattr, 192, -1, "d:szBu")
SYSCALL(fgetxattr, 193, -1, "d:fzBu")
SYSCALL(listxattr, 194, -1, "d:sBu")
SYSCALL(llistxattr, 195, -1, "d:sBu")
SYSCALL(flistxattr, 196, -1, "d:fBu")
SYSCALL(copy_file_range, 326, -1, "d:fpfpux")
/* net.c */
SYSCALL(socket, 41, -1, "d:NGd")
SYSCALL(socketpair, 53, -1, "d:NGdj")
SYSCALL(bind, 49, -1, "d:fyd")
SYSCALL(connect, 42, -1, "d:fyd")
SYSCALL(listen, 50, -1, "d:fd")
SYSCALL(accept, 43, -1, "d:fYU")
SYSCALL(accept4, 288, -1, "d:fYUx")
SYSCALL(shutdown, 48, -1, "d:fd")
SYSCALL(getsockname, 51, -1, "d:fYU")
SYSCALL(getpeername, 52, -1, "d:fYU")
SYSCALL(sendto, 44, -1, "d:fbuxyd")
SYSCALL(recvfrom, 45, -1, "d:fBuxYU")
SYSCALL(setsockopt, 54, -1, "d:fddbd")
SYSCALL(getsockopt, 55, -1, "d:fddpU")
/* net_msg.c */
SYSCALL(sendmsg, 46, -1, "d:fpx")
SYSCALL(recvmsg, 47, -1, "d:fpx")
SYSCALL(sendmmsg, 307, -1, "d:fpux")
SYSCALL(recvmmsg, 299, -1, "d:fpuxt")
/* fork.c */
SYSCALL(fork, 57, -1, "d:")
SYSCALL(vfork, 58, -1, "d:")
SYSCALL(clone, 56, -1, "d:cpppx")
SYSCALL(clone3, 435, -1, "d:pu")
/* exec.c */
SYSCALL(execve, 59, -1, "d:see")
SYSCALL(execveat, 322, -1, "d:Dseea")
/* wait.c */
SYSCALL(wait4, 61, -1, "d:dpdp")
SYSCALL(waitid, 247, -1, "d:ddpdp")
SYSCALL(kill, 62, -1, "d:dS")
SYSCALL(tkill, 200, -1, "d:dS")
SYSCALL(tgkill, 234, -1, "d:ddS")
SYSCALL(setpgid, 109, -1, "d:dd")
SYSCALL(getpgid, 121, -1, "d:d")
SYSCALL(getpgrp, 111, -1, "d:")
SYSCALL(setsid, 112, -1, "d:")
SYSCALL(getsid, 124, -1, "d:d")
/* mem.c */
SYSCALL(mmap, 9, -1, "x:puPMfx")
SYSCALL(mprotect, 10, -1, "d:puP")
SYSCALL(munmap, 11, -1, "d:pu")
SYSCALL(brk, 12, -1, "x:p")
SYSCALL(madvise, 28, -1, "d:pud")
/* proc.c */
SYSCALL(exit, 60, 1, "n:d")
SYSCALL(exit_group, 231, 252, "n:d")
SYSCALL(getpid, 39, -1, "d:")
SYSCALL(getppid, 110, -1, "d:")
SYSCALL(gettid, 186, -1, "d:")
SYSCALL(getuid, 102, -1, "d:")
SYSCALL(geteuid, 107, -1, "d:")
SYSCALL(getgid, 104, -1, "d:")
SYSCALL(getegid, 108, -1, "d:")
SYSCALL(uname, 63, -1, "d:p")
SYSCALL(arch_prctl, 158, -1, "d:Rx")
SYSCALL(set_tid_address, 218, -1, "d:p")
SYSCALL(set_robust_list, 273, -1, "d:pu")
SYSCALL(rseq, 334, -1, "d:pxxx")
SYSCALL(prlimit64, 302, -1, "d:drZL")
SYSCALL(getrandom, 318, -1, "d:Bux")
SYSCALL(sched_yield, 24, -1, "d:")
SYSCALL(sched_getaffinity, 204, -1, "d:dup")
SYSCALL(sysinfo, 99, -1, "d:p")
SYSCALL(statfs, 137, -1, "d:sp")
SYSCALL(fstatfs, 138, -1, "d:fp")
/* thread.c */
SYSCALL(futex, 202, -1, "d:pXdpxd")
/* time.c */
SYSCALL(clock_gettime, 228, -1, "d:kT")
SYSCALL(gettimeofday, 96, -1, "d:pp")
SYSCALL(time, 201, -1, "d:p")
SYSCALL(clock_getres, 229, -1, "d:kT")
SYSCALL(nanosleep, 35, -1, "d:tp")
SYSCALL(clock_nanosleep, 230, -1, "d:kxtp")
