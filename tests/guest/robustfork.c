/* A robust, process-shared mutex whose owner (a fork child) dies holding
 * it: the next lock gets EOWNERDEAD (the kernel walks the dead owner's robust
 * list at exit: elfemu does it for the guest, with the 32-bit layout for
 * ia32 guests), then pthread_mutex_consistent makes it usable again. */
#include <pthread.h>
#include <stdio.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
int main(void){
  pthread_mutex_t *m = mmap(0, 4096, PROT_READ|PROT_WRITE, MAP_SHARED|MAP_ANONYMOUS, -1, 0);
  pthread_mutexattr_t a; pthread_mutexattr_init(&a);
  pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
  pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
  pthread_mutex_init(m, &a);
  pid_t p = fork();
  if (!p) { pthread_mutex_lock(m); _exit(0); }
  waitpid(p, 0, 0);
  int r = pthread_mutex_lock(m);
  printf("lock after the owner died: %s\n", r == EOWNERDEAD ? "EOWNERDEAD" : strerror(r));
  printf("consistent: %d\n", pthread_mutex_consistent(m));
  printf("unlock: %d\n", pthread_mutex_unlock(m));
  return 0;
}
