/*
 * CPU hotplug during a run: the [hotplug] events of the config
 * (plugin_hotplug.c).
 */
#ifndef JITFLUSH_EMU_PLUGIN_HOTPLUG_H
#define JITFLUSH_EMU_PLUGIN_HOTPLUG_H

#include "plugin_rig.h"

struct plugin_hotplug *plugin_hotplug_new(const struct rig_config *cfg);
void plugin_hotplug_free(struct plugin_hotplug *h);
/* Applies the events that are due. Called WITHOUT the rig's lock, at the
 * scheduler's migration points and syscalls of VCPU. */
void plugin_hotplug_poll(struct plugin_rig *rig, unsigned vcpu);

#endif /* JITFLUSH_EMU_PLUGIN_HOTPLUG_H */
