/* The command line that reproduces a run (runner_reproduce.c). */
#ifndef JITFLUSH_EMU_RUNNER_REPRODUCE_H
#define JITFLUSH_EMU_RUNNER_REPRODUCE_H

#include "emu_config.h"
#include "runner_args.h"

/* The run of O and CFG as one shell-quoted jitflush-emu command line, every
 * default written out (freed with g_free). */
char *emu_reproduce_command(const struct emu_options *o, const struct emu_config *cfg);

#endif /* JITFLUSH_EMU_RUNNER_REPRODUCE_H */
