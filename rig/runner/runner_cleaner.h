/* Nothing of a run outlives its runner (runner_cleaner.c). */
#ifndef JITFLUSH_EMU_RUNNER_CLEANER_H
#define JITFLUSH_EMU_RUNNER_CLEANER_H

#include <stdbool.h>
#include <sys/types.h>

struct runner_cleaner {
  pid_t pid; /* the cleaner process, or -1 */
  int fd;    /* the write end of its pipe, or -1 */
};

/* Starts the cleaner of the run whose scratch folder is SCRATCH. False
 * when it cannot be forked (the run goes on without it: the next run
 * reclaims the folder, runner_scratch.c). */
/* Starts the cleaner of the run whose scratch folder is SCRATCH. ENV, when
 * not NULL, is the environment recorded beside REPORT: removed too, should
 * the runner die, unless REPORT is a regular file by then. */
bool runner_cleaner_start(const char *scratch, const char *report, const char *env,
                          struct runner_cleaner *c);

/* The run ended and its folder is removed: the cleaner exits, unused. */
void runner_cleaner_finish(struct runner_cleaner *c);

/* Sends SIGKILL to every process of the run whose scratch folder is
 * SCRATCH (QEMU and the processes the guest forked), until none is left
 * or a few rounds have passed. Returns how many it signalled. */
int runner_cleaner_kill_run(const char *scratch);

#endif /* JITFLUSH_EMU_RUNNER_CLEANER_H */
