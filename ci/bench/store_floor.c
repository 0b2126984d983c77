/* A QEMU TCG plugin that registers only the store callbacks the rig cannot
 * do without, each returning at once, so that plain qemu-aarch64 with it
 * against plain qemu-aarch64 alone is the least any checker built on QEMU's
 * plugin API pays for seeing the guest's stores (docs/BENCHMARKS.md, "The
 * store floor"). It is not the rig: it models nothing and records nothing.
 *
 *   qemu-aarch64 -plugin store_floor.so PROGRAM...
 *
 * Why stores need a callback at all: QEMU reports a store's address only to
 * a memory callback (qemu-plugin.h: qemu_plugin_register_vcpu_mem_cb; the
 * inline memory operations carry no address), and its API has no memory
 * callback taken only on a condition. Which page a store lands on is not
 * known when its block is translated, and any page may later hold code, so
 * every storing instruction needs one. The rig already makes one callback
 * per group of stores through one base register (model_store_groups.h); this
 * plugin plans the same groups with the same code, so its callbacks are the
 * rig's, one for one, with nothing behind them. Built and run by
 * ci/bench/realjit.sh --floor.
 */
#include <glib.h>
#include <stdint.h>

#include <qemu-plugin.h>

#include "model_store_groups.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

static void on_store(unsigned vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
  (void)vcpu;
  (void)info;
  (void)vaddr;
  (void)udata;
}

static void on_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
  (void)id;
  size_t n = qemu_plugin_tb_n_insns(tb);
  uint32_t *words = g_new0(uint32_t, n);
  enum model_store_role *role = g_new(enum model_store_role, n);
  uint32_t *group_of = g_new(uint32_t, n);
  struct model_store_group *groups = g_new(struct model_store_group, n);
  for (size_t i = 0; i < n; i++) {
    qemu_plugin_insn_data(qemu_plugin_tb_get_insn(tb, i), &words[i], sizeof words[i]);
    role[i] = MODEL_STORE_OWN;
  }
  model_groups_plan(words, n, role, group_of, groups);
  for (size_t i = 0; i < n; i++) {
    /* QEMU calls a memory callback only when the instruction stores, so
     * every instruction but a group's members gets one, as in the rig. */
    if (role[i] != MODEL_STORE_MEMBER) {
      qemu_plugin_register_vcpu_mem_cb(qemu_plugin_tb_get_insn(tb, i), on_store,
                                       QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_W, NULL);
    }
  }
  g_free(words);
  g_free(role);
  g_free(group_of);
  g_free(groups);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
                                           char **argv)
{
  (void)argv;
  if (argc != 0 || g_strcmp0(info->target_name, "aarch64") != 0) {
    g_printerr("store_floor: takes no arguments and runs under qemu-aarch64\n");
    return -1;
  }
  qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb_trans);
  return 0;
}
