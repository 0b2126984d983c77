/*
 * jitflush-emu (the runner): which file owns what is in
 * docs/ARCHITECTURE.md#two-programs. This header holds the runner's exit
 * statuses (runner_exit_statuses.def); each file's functions are declared
 * in its own header.
 */
#ifndef JITFLUSH_EMU_RUNNER_H
#define JITFLUSH_EMU_RUNNER_H

/* The runner's exit statuses, RUNNER_EXIT_USAGE (2) and the rest, one row each
 * in runner_exit_statuses.def (their meanings: docs/RIG.md, --help). */
enum {
#define RUNNER_EXIT(name, status, help) RUNNER_EXIT_##name = status,
#define RUNNER_EXIT_OTHER(label, doc_label, help)
#include "runner_exit_statuses.def"
#undef RUNNER_EXIT
#undef RUNNER_EXIT_OTHER
};

#endif /* JITFLUSH_EMU_RUNNER_H */
