/*
 * Before the guest's first instruction: does QEMU's plugin API do what the
 * rig relies on? A QEMU whose API reads registers as zero still runs the
 * guest, and the rig would then print a summary whose verdicts are wrong
 * (every dc/ic address, every cpy/set size, every LR read as 0). The rig
 * refuses to run instead (docs/RIG.md, "Which QEMU"): the summary file
 * then holds RIG_SUMMARY_REFUSED and the reason, and the runner exits with
 * its own status.
 */
#ifndef JITFLUSH_EMU_PLUGIN_SELFCHECK_H
#define JITFLUSH_EMU_PLUGIN_SELFCHECK_H

#include <stdbool.h>

#include "plugin_rig.h"

/* From the translation callback: arms the check on the first block QEMU
 * translates, which is the first the guest runs. */
void plugin_selfcheck_tb(struct plugin_rig *rig, struct qemu_plugin_tb *tb);

/* Says why the rig refuses to run: on stderr and in the summary file of
 * O (when the runner gave one). */
void plugin_selfcheck_refuse(const struct plugin_options *o, const char *why);

#endif /* JITFLUSH_EMU_PLUGIN_SELFCHECK_H */
