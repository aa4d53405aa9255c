#!/bin/sh
# build.sh ELFEMU: the toolchain under elfemu, compared with its native run
# (stdout, exit status, stderr; see lib.sh). The gcc driver execs cpp/cc1, as
# and collect2/ld, each re-entering elfemu, and the programs it builds then run
# under elfemu too; the sha256 of every file produced is part of the output,
# so the emulated compiler must write exactly the bytes the native one writes.
. "$(dirname "$0")/lib.sh"
need gcc g++ as ld ar nm objdump readelf strip make sha256sum sh
need_run "a C and C++ toolchain with headers" -- sh -c 'printf "#include <stdio.h>\nint main(void) { return ferror(stdout); }\n" >n.c &&
    gcc -O2 n.c -o n && ./n && printf "#include <cstdio>\nint main() { try { throw 1; } catch (int) {} }\n" >n.cc && g++ n.cc -o n && ./n'

sources() {
    cat >hello.c <<'EOF'
#include <stdio.h>
int main(void) { printf("hello %d\n", 6 * 7); return 0; }
EOF
    cat >main.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include "gen.h"
double mean(const int *v, int n);
int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }
int main(int argc, char **argv)
{
    int v[N];
    for (int i = 0; i < N; i++) v[i] = (i * 7919) % 101;
    qsort(v, N, sizeof v[0], cmp);
    printf("%s: min %d max %d mean %.4f\n", argc > 1 ? argv[1] : "-", v[0], v[N - 1], mean(v, N));
    return v[0] == 0 ? 0 : 5;
}
EOF
    cat >mean.c <<'EOF'
double mean(const int *v, int n) { double s = 0; for (int i = 0; i < n; i++) s += v[i]; return s / n; }
EOF
    cat >bad.c <<'EOF'
int main(void) { return undeclared + 1; }
EOF
    # Light on headers: cc1plus parsing <iostream> or <map> costs 10-20 s of
    # emulated CPU.
    cat >poly.cc <<'EOF'
#include <cstdio>
struct Shape { virtual ~Shape() {} virtual double area() const = 0; };
struct Sq : Shape { double s; explicit Sq(double s) : s(s) {} double area() const override { return s * s; } };
template <typename T, int N> struct Box { T v[N]; T sum() const { T s{}; for (auto &x : v) s += x; return s; } };
struct Oops { int code; };
static void thrower(int c) { if (c > 2) throw Oops{c}; }
int main()
{
    Shape *v[4];
    for (int i = 0; i < 4; i++) v[i] = new Sq(i + 1);
    Box<double, 4> b;
    for (int i = 0; i < 4; i++) b.v[i] = v[i]->area();
    std::printf("areas sum %g\n", b.sum());
    for (auto *p : v) delete p;
    try { for (int i = 0; i < 5; i++) thrower(i); } catch (const Oops &e) { std::printf("caught %d\n", e.code); }
}
EOF
    printf '.globl _start\n_start:\n mov $60, %%eax\n mov $9, %%edi\n syscall\n' >exit9.s
    cat >Makefile <<'EOF'
CC = gcc
CFLAGS = -O1 -Wall
all: prog
	./prog made
prog: main.o libmean.a
	$(CC) -o $@ main.o -L. -lmean
lib%.a: %.o
	ar rcs $@ $<
main.o: gen.h
gen.h:
	echo '#define N 50' >$@
fail:
	false
clean:
	rm -f prog *.o *.a gen.h
.PHONY: all fail clean
EOF
}
fixture sources

same "sh -c 'gcc -O2 hello.c -o hello && ./hello'" -- sh -c \
    'gcc -O2 hello.c -o hello && ./hello && sha256sum hello'
same "gcc -c, ar, link, run" -- sh -c 'echo "#define N 1000" >gen.h &&
    gcc -O2 -Wall -c main.c mean.c && ar rcs libm2.a mean.o && gcc -o p main.o -L. -lm2 &&
    ./p built; echo "status $?"; sha256sum main.o mean.o p; ar t libm2.a'
same "gcc -E" -- sh -c 'echo "#define N 3" >gen.h && gcc -E -P main.c | tail -5'
same "gcc with a compile error" -- gcc -c bad.c
same "g++ -O2 (virtuals, templates, exceptions)" -- sh -c 'g++ -O2 poly.cc -o poly && ./poly && sha256sum poly'
same "as and ld" -- sh -c 'as exit9.s -o exit9.o && ld exit9.o -o exit9 && ./exit9; echo "status $?"; sha256sum exit9'
same "binutils on an object" -- sh -c 'gcc -O1 -c mean.c && nm mean.o && objdump -d mean.o | tail -n +3 &&
    readelf -h -S mean.o && strip -o s.o mean.o && sha256sum s.o'
# make runs every recipe through sh -c (fork and execve under elfemu), a
# pattern rule, a generated header, parallel jobs and a failing recipe.
same "make" -- make
same "make twice, make -q, make -n" -- sh -c 'make -s >/dev/null; make; make -q; echo "-q $?"; make -n clean'
same "make -j2 -s" -- sh -c 'make -j2 -s && make clean'
same "make with a failing recipe" -- make fail
same "make -k with a failing target" -- sh -c 'make -k fail all; echo "status $?"'
finish
