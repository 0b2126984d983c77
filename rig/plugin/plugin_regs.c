/* Guest register access (plugin_regs.h). */
#include <stdio.h>
#include <string.h>

#include "plugin_regs.h"
#include "plugin_vcpu.h"

#define NUM_XREGS 31

struct plugin_regs {
  struct qemu_plugin_register *x[NUM_XREGS];
  struct qemu_plugin_register *sp;
  struct qemu_plugin_register *pc;
  bool ready;
};

/* Callbacks of one vCPU run in its own host thread: a scratch buffer per
 * host thread, not shared state. */
static _Thread_local GByteArray *reg_buf;

struct plugin_regs *plugin_regs_new(void)
{
  return g_new0(struct plugin_regs, 1);
}

void plugin_regs_free(struct plugin_regs *regs)
{
  g_free(regs);
}

void plugin_regs_vcpu_init(struct plugin_regs *regs)
{
  if (regs->ready) {
    return;
  }
  GArray *list = qemu_plugin_get_registers();
  for (guint i = 0; i < list->len; i++) {
    qemu_plugin_reg_descriptor *d = &g_array_index(list, qemu_plugin_reg_descriptor, i);
    unsigned n;
    char tail;
    if (sscanf(d->name, "x%u%c", &n, &tail) == 1 && n < NUM_XREGS) {
      regs->x[n] = d->handle;
    } else if (strcmp(d->name, "sp") == 0) {
      regs->sp = d->handle;
    } else if (strcmp(d->name, "pc") == 0) {
      regs->pc = d->handle;
    }
  }
  g_array_free(list, true);
  regs->ready = true;
}

static GByteArray *buffer(void)
{
  if (!reg_buf) {
    reg_buf = g_byte_array_sized_new(16);
  }
  return reg_buf;
}

/* The handle of REG (enum plugin_reg), or NULL. */
static struct qemu_plugin_register *handle(const struct plugin_regs *regs, unsigned reg)
{
  if (reg < NUM_XREGS) {
    return regs->x[reg];
  }
  return reg == PLUGIN_REG_SP ? regs->sp : reg == PLUGIN_REG_PC ? regs->pc : NULL;
}

bool plugin_regs_read(const struct plugin_regs *regs, unsigned reg, uint64_t *value)
{
  struct qemu_plugin_register *h = handle(regs, reg);
  GByteArray *buf = buffer();
  if (!h || !plugin_qemu_read_register(h, buf, sizeof(*value))) {
    return false;
  }
  uint64_t le;
  memcpy(&le, buf->data, sizeof(le)); /* target order: little-endian */
  *value = GUINT64_FROM_LE(le);
  return true;
}

bool plugin_regs_write(const struct plugin_regs *regs, unsigned reg, uint64_t value)
{
  struct qemu_plugin_register *h = handle(regs, reg);
  if (!h) {
    return false;
  }
  GByteArray *buf = buffer();
  uint64_t le = GUINT64_TO_LE(value);
  g_byte_array_set_size(buf, 0);
  g_byte_array_append(buf, (const guint8 *)&le, sizeof(le));
  return plugin_qemu_write_register(h, buf);
}

uint64_t plugin_regs_read_x(const struct plugin_regs *regs, unsigned reg)
{
  uint64_t value = 0;
  if (reg >= NUM_XREGS || !plugin_regs_read(regs, reg, &value)) {
    return 0; /* xzr */
  }
  return value;
}

void plugin_regs_write_x(const struct plugin_regs *regs, unsigned reg, uint64_t value)
{
  if (reg < NUM_XREGS) {
    plugin_regs_write(regs, reg, value);
  }
}

void plugin_regs_defer_write(const struct plugin_rig *rig, unsigned vcpu, unsigned reg,
                             uint64_t value)
{
  struct plugin_vcpu *v = plugin_vcpu(rig, vcpu);
  v->reg.index = reg;
  v->reg.value = value;
  if (!v->reg.pending) {
    /* Park the migration clock where the next TB's add makes the TB's
     * conditional callback fire; plugin_regs_apply_pending puts it back. */
    v->clock.parked = v->clock.now;
    plugin_vcpu_set_clock(v, PLUGIN_MIGRATE_DUE);
    v->reg.pending = 1;
  }
}

void plugin_regs_apply_pending(const struct plugin_regs *regs, struct plugin_vcpu *v)
{
  if (!v->reg.pending) {
    return;
  }
  /* The clock counted this TB from the parked PLUGIN_MIGRATE_DUE. */
  plugin_vcpu_set_clock(v, v->clock.parked + (v->clock.now - PLUGIN_MIGRATE_DUE));
  v->reg.pending = 0;
  plugin_regs_write_x(regs, (unsigned)v->reg.index, v->reg.value);
}

void plugin_regs_forget_pending(const struct plugin_rig *rig, unsigned vcpu)
{
  plugin_vcpu(rig, vcpu)->reg.pending = 0;
}
