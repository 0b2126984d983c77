/*
 * The programs of "What Linux does for you" (docs/COHERENCE-MODEL.md):
 * code published with no dc or ic at all, only by what the arm64 kernel
 * does when it maps a page executable, and the cases where it does not.
 * Each writes "return N" and runs it; none executes dc, ic or isb. The
 * e2e test (tests/emu/runner/kernel_sync_e2e_test.cc) states which runs
 * the rig must judge stale.
 *
 *   kernel_sync_guest mprotect        a fresh anonymous RW page written,
 *                                     mprotect RX, run by a second thread:
 *                                     exits 42
 *   kernel_sync_guest mprotect-again  the same, then RW again, rewritten
 *                                     ("return 43"), RX again, run: exits 43
 *   kernel_sync_guest memfd           a memfd mapped RW and RX, written
 *                                     through RW, the RX view first touched
 *                                     after the write: exits 42
 *   kernel_sync_guest memfd-again     the same, then rewritten through RW
 *                                     and run again: exits 43
 *   kernel_sync_guest rwx             an RWX anonymous page written and
 *                                     run: exits 42
 *   kernel_sync_guest file            the code written into a file with
 *                                     write(2), then the file mapped RX:
 *                                     exits 42
 *   kernel_sync_guest proc-mem        the code written through
 *                                     /proc/self/mem into an RX mapping:
 *                                     exits 42
 *
 * Copy-on-write after fork: the parent waits for the child and exits with
 * its status.
 *
 *   kernel_sync_guest fork-rewrite    the parent's page published as in
 *                                     mprotect and run, made RW, then a
 *                                     fork; the child writes "return 43"
 *                                     (its copy), mprotect RX, runs it:
 *                                     exits 43
 *   kernel_sync_guest fork-unwritten  the same with a page the parent only
 *                                     mapped RX and RW again, never wrote:
 *                                     exits 43
 *   kernel_sync_guest fork-rwx        an RWX page the parent wrote
 *                                     "return 42" into and never ran; the
 *                                     child writes "return 43" 64 bytes
 *                                     further on, runs both: exits 43 when
 *                                     both returned their value
 * Exit 3 means a system call failed.
 */
#define _GNU_SOURCE /* memfd_create */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "a64_encode.h"
#include "guest_pages.h"

typedef int (*jit_fn)(void);

static void write_return(uint32_t *code, uint32_t value)
{
  code[0] = a64_movz_x0(value);
  code[1] = A64_RET;
}

static void *run_code(void *code)
{
  return (void *)(intptr_t)((jit_fn)(uintptr_t)code)();
}

/* Runs CODE in a thread that starts after the publication and executes no
 * isb of its own. */
static int run_in_thread(void *code)
{
  pthread_t t;
  void *result = NULL;
  if (pthread_create(&t, NULL, run_code, code) != 0 || pthread_join(t, &result) != 0)
    return 3;
  return (int)(intptr_t)result;
}

static int fresh_mprotect(int again)
{
  uint32_t *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (code == MAP_FAILED)
    return 3;
  write_return(code, 42);
  if (mprotect(code, 4096, PROT_READ | PROT_EXEC) != 0)
    return 3;
  int first = run_in_thread(code);
  if (!again || first != 42)
    return first;
  if (mprotect(code, 4096, PROT_READ | PROT_WRITE) != 0)
    return 3;
  write_return(code, 43);
  if (mprotect(code, 4096, PROT_READ | PROT_EXEC) != 0)
    return 3;
  return run_in_thread(code);
}

static int memfd_views(int again)
{
  uint32_t *rw;
  void *rx;
  if (!guest_memfd_views("kernel-sync", &rw, &rx))
    return 3;
  write_return(rw, 42);
  int first = ((jit_fn)(uintptr_t)rx)();
  if (!again || first != 42)
    return first;
  write_return(rw, 43);
  return ((jit_fn)(uintptr_t)rx)();
}

static int rwx(void)
{
  uint32_t *code = guest_rwx_page();
  if (!code)
    return 3;
  write_return(code, 42);
  return ((jit_fn)(uintptr_t)code)();
}

static int file_write(void)
{
  char path[] = "/tmp/kernel-sync-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0)
    return 3;
  unlink(path);
  uint32_t page[1024] = {0};
  write_return(page, 42);
  if (write(fd, page, sizeof(page)) != (ssize_t)sizeof(page))
    return 3;
  void *rx = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
  if (rx == MAP_FAILED)
    return 3;
  return ((jit_fn)(uintptr_t)rx)();
}

static int proc_mem(void)
{
  uint32_t *code = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  int fd = open("/proc/self/mem", O_RDWR);
  if (code == MAP_FAILED || fd < 0)
    return 3;
  uint32_t insns[2];
  write_return(insns, 42);
  if (pwrite(fd, insns, sizeof(insns), (off_t)(uintptr_t)code) != (ssize_t)sizeof(insns))
    return 3;
  return ((jit_fn)(uintptr_t)code)();
}

/* Forks; the child runs CHILD(CODE) and exits with its result, the parent
 * exits with the child's status. */
static int in_child(uint32_t *code, int (*child)(uint32_t *code))
{
  pid_t pid = fork();
  if (pid == 0)
    _exit(child(code));
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
    return 3;
  return WEXITSTATUS(status);
}

static int rewrite_and_run(uint32_t *code)
{
  write_return(code, 43);
  if (mprotect(code, 4096, PROT_READ | PROT_EXEC) != 0)
    return 3;
  return ((jit_fn)(uintptr_t)code)();
}

static int fork_rewrite(int written)
{
  uint32_t *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (code == MAP_FAILED)
    return 3;
  if (written)
    write_return(code, 42);
  if (mprotect(code, 4096, PROT_READ | PROT_EXEC) != 0)
    return 3;
  if (written && run_in_thread(code) != 42)
    return 1;
  if (mprotect(code, 4096, PROT_READ | PROT_WRITE) != 0)
    return 3;
  return in_child(code, rewrite_and_run);
}

static int write_beside_and_run_both(uint32_t *code)
{
  write_return(code + 16, 43);
  int first = ((jit_fn)(uintptr_t)code)();
  int second = ((jit_fn)(uintptr_t)(code + 16))();
  return first == 42 && second == 43 ? 43 : 1;
}

static int fork_rwx(void)
{
  uint32_t *code = guest_rwx_page();
  if (!code)
    return 3;
  write_return(code, 42);
  return in_child(code, write_beside_and_run_both);
}

int main(int argc, char **argv)
{
  const char *mode = argc == 2 ? argv[1] : "";
  if (strcmp(mode, "mprotect") == 0)
    return fresh_mprotect(0);
  if (strcmp(mode, "mprotect-again") == 0)
    return fresh_mprotect(1);
  if (strcmp(mode, "memfd") == 0)
    return memfd_views(0);
  if (strcmp(mode, "memfd-again") == 0)
    return memfd_views(1);
  if (strcmp(mode, "rwx") == 0)
    return rwx();
  if (strcmp(mode, "file") == 0)
    return file_write();
  if (strcmp(mode, "proc-mem") == 0)
    return proc_mem();
  if (strcmp(mode, "fork-rewrite") == 0)
    return fork_rewrite(1);
  if (strcmp(mode, "fork-unwritten") == 0)
    return fork_rewrite(0);
  if (strcmp(mode, "fork-rwx") == 0)
    return fork_rwx();
  fprintf(stderr, "usage: kernel_sync_guest mprotect|mprotect-again|memfd|memfd-again|rwx|file|"
                  "proc-mem|fork-rewrite|fork-unwritten|fork-rwx\n");
  return 2;
}
