/*
 * A run's processes and files, removed even when the runner is killed
 * with SIGKILL (a harness's timeout, a CI job's cancel), which leaves the
 * runner no chance to do it itself.
 *
 * QEMU gets PR_SET_PDEATHSIG (runner_exec.c), but that signal is the
 * parent's alone: a process the guest forked is a fork of QEMU
 * (linux-user's do_fork), its parent is that QEMU, and prctl(2) says the
 * setting is cleared in a fork's child. Nor can a process group be used: the
 * runner shares its group with the harness that started it, and QEMU must
 * stay in the terminal's foreground group. What every process of the run
 * does share is QEMU's command line (fork keeps it), which names the run's
 * scratch folder in the plugin's options; that folder's name holds the
 * runner's pid and a random part, so no other process names it.
 *
 * So the runner forks a small cleaner before QEMU. It holds the read end
 * of a pipe whose write end only the runner holds (close-on-exec). A
 * runner that ends the run writes one byte, and the cleaner exits unused;
 * a runner that dies closes the pipe by dying, and the cleaner then kills
 * every process that names the folder and removes the folder, and exits.
 * It ignores the signals a terminal or a harness sends a whole process
 * group (INT, QUIT, TERM, HUP) so that it outlives them long enough to
 * clean; a SIGKILL of the whole group leaves the folder to the next run
 * (runner_scratch.c reclaims folders of runners that are gone).
 *
 * The environment the run keeps beside its report (REPORT.env,
 * runner_record.c) is the runner's to remove when no report came; a
 * killed runner cannot, so the cleaner does, once QEMU is gone and cannot
 * write the report any more (docs/FINDINGS.md#reruns: a secret-bearing
 * file is not left without the report it serves).
 */
#define _GNU_SOURCE
#include "runner_cleaner.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>

#include "runner_scratch.h"

#define CLEANER_DONE 'd'
/* Rounds of killing: a guest that forks in a loop makes new processes
 * while a round runs; each round kills what it finds. */
#define KILL_ROUNDS 50
#define KILL_ROUND_GAP_US 20000

/* Whether the command line of process PID names FOLDER ("DIR/", so that
 * jitflush-emu-1-abc does not match jitflush-emu-1-abcd). */
static bool names_folder(const char *pid, const char *folder)
{
  char path[sizeof "/proc//cmdline" + 256];
  snprintf(path, sizeof path, "/proc/%s/cmdline", pid);
  char *text = NULL;
  gsize len = 0;
  if (!g_file_get_contents(path, &text, &len, NULL)) {
    return false;
  }
  bool found = false;
  size_t flen = strlen(folder);
  for (gsize at = 0; at + flen <= len && !found; at++) {
    found = memcmp(text + at, folder, flen) == 0;
  }
  g_free(text);
  return found;
}

int runner_cleaner_kill_run(const char *scratch)
{
  char *folder = g_strconcat(scratch, "/", NULL);
  int killed = 0;
  for (int round = 0; round < KILL_ROUNDS; round++) {
    DIR *proc = opendir("/proc");
    if (!proc) {
      break;
    }
    int found = 0;
    struct dirent *e;
    while ((e = readdir(proc))) {
      if (!isdigit((unsigned char)e->d_name[0])) {
        continue;
      }
      pid_t pid = (pid_t)atol(e->d_name);
      if (pid != getpid() && names_folder(e->d_name, folder) && kill(pid, SIGKILL) == 0) {
        found++;
      }
    }
    closedir(proc);
    killed += found;
    if (!found) {
      break;
    }
    g_usleep(KILL_ROUND_GAP_US);
  }
  g_free(folder);
  return killed;
}

/* The cleaner's life: wait for the runner's word or its death. */
static G_GNUC_NORETURN void clean_after(int fd, const char *scratch, const char *report,
                                        const char *env)
{
  const int ignored[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGPIPE};
  for (size_t i = 0; i < G_N_ELEMENTS(ignored); i++) {
    signal(ignored[i], SIG_IGN);
  }
  prctl(PR_SET_NAME, "jitflush-clean");
  char byte = 0;
  ssize_t n;
  do {
    n = read(fd, &byte, 1);
  } while (n < 0 && errno == EINTR);
  if (n == 1 && byte == CLEANER_DONE) {
    _exit(0);
  }
  runner_cleaner_kill_run(scratch);
  runner_scratch_remove(scratch);
  if (env && !g_file_test(report, G_FILE_TEST_IS_REGULAR)) {
    unlink(env);
  }
  _exit(0);
}

bool runner_cleaner_start(const char *scratch, const char *report, const char *env,
                          struct runner_cleaner *c)
{
  *c = (struct runner_cleaner){.pid = -1, .fd = -1};
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) {
    return false;
  }
  pid_t pid = fork();
  if (pid < 0) {
    close(p[0]);
    close(p[1]);
    return false;
  }
  if (pid == 0) {
    /* Nothing of the runner's stays open here: a harness that reads the
     * runner's stdout or stderr to their end must not wait for the
     * cleaner. The pipe's end goes to fd 3, everything above is closed. */
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0) {
      dup2(null, STDIN_FILENO);
      dup2(null, STDOUT_FILENO);
      dup2(null, STDERR_FILENO);
    }
    if (dup2(p[0], 3) != 3) {
      _exit(1);
    }
    for (int fd = 4; fd < 1024; fd++) {
      close(fd);
    }
    clean_after(3, scratch, report, env);
  }
  close(p[0]);
  c->pid = pid;
  c->fd = p[1];
  return true;
}

void runner_cleaner_finish(struct runner_cleaner *c)
{
  if (c->fd >= 0) {
    char done = CLEANER_DONE;
    if (write(c->fd, &done, 1) != 1) {
      /* It is gone already; the wait below reaps it. */
    }
    close(c->fd);
    c->fd = -1;
  }
  if (c->pid > 0) {
    while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR) {
    }
    c->pid = -1;
  }
}
