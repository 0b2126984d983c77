/* The rig of plugin_turns_test.cc (turns_rig.h). */
#include <glib.h>
#include <json-glib/json-glib.h>

#include "plugin_rig.h"
#include "plugin_turns.h"
#include "turns_rig.h"
#include "plugin_vcpu.h"

struct plugin_rig *turns_rig_new(uint64_t seed, uint64_t quantum, bool on)
{
  /* One cluster of a Cortex-A53's CTR_EL0: the schedule does not look at
   * the caches. */
  const uint64_t ctr = UINT64_C(0x84448004);
  struct plugin_rig *r = plugin_rig_new(&ctr, 1);
  r->turns = plugin_turns_new(seed, quantum, on);
  return r;
}

void turns_rig_free(struct plugin_rig *r)
{
  plugin_turns_free(r->turns);
  plugin_rig_free(r);
}

struct plugin_turns *turns_rig_turns(struct plugin_rig *r)
{
  return r->turns;
}

uint64_t turns_rig_quantum_left(struct plugin_rig *r, unsigned vcpu)
{
  const struct plugin_vcpu_clock *c = &plugin_vcpu(r, vcpu)->clock;
  if (c->until_handover == UINT64_MAX) {
    return UINT64_MAX;
  }
  /* The current stretch is on the clock (it counts up to PLUGIN_MIGRATE_DUE);
   * the migration is further off than any turn in these tests. */
  return c->until_handover + ((PLUGIN_MIGRATE_DUE - c->now) >> PLUGIN_CLOCK_INSN_SHIFT);
}

char *turns_rig_report(struct plugin_rig *r)
{
  JsonObject *report = json_object_new();
  plugin_turns_report(r->turns, report);
  JsonNode *node = json_node_alloc();
  json_node_init_object(node, json_object_get_object_member(report, "schedule"));
  char *text = json_to_string(node, false);
  json_node_free(node);
  json_object_unref(report);
  return text;
}
