/*
 * CPU hotplug during a run: the [hotplug] events of the config
 * (plugin_hotplug.c).
 */
#ifndef JITFLUSH_EMU_PLUGIN_HOTPLUG_H
#define JITFLUSH_EMU_PLUGIN_HOTPLUG_H

#include "rig.h"

struct jf_hotplug *jf_hotplug_new(const struct emu_config *cfg);
void jf_hotplug_free(struct jf_hotplug *h);
/* Applies the events that are due. Called WITHOUT the rig's lock, at the
 * scheduler's migration points and syscalls of VCPU. */
void jf_hotplug_poll(struct jf_rig *rig, unsigned vcpu);

#endif /* JITFLUSH_EMU_PLUGIN_HOTPLUG_H */
