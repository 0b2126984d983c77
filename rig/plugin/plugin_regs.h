/*
 * Guest register access from execution callbacks: reading Xt, writing it
 * now (from a callback registered with QEMU_PLUGIN_CB_RW_REGS), or at the
 * vCPU's next TB start.
 */
#ifndef JITFLUSH_EMU_PLUGIN_REGS_H
#define JITFLUSH_EMU_PLUGIN_REGS_H

#include <stdbool.h>
#include <stdint.h>

#include "plugin_rig.h"

struct plugin_vcpu;

struct plugin_regs *plugin_regs_new(void);
void plugin_regs_free(struct plugin_regs *regs);
/* Learns the register handles (from a vCPU init callback: they are the
 * same for every vCPU of a target). */
void plugin_regs_vcpu_init(struct plugin_regs *regs);

/* Registers by number: X0 to X30 are 0 to 30. */
enum plugin_reg { PLUGIN_REG_SP = 31, PLUGIN_REG_PC = 32 };

/* REG (a number 0-30 or enum plugin_reg) of the calling vCPU into *VALUE,
 * from a callback registered with R_REGS; false when QEMU did not give
 * it. */
bool plugin_regs_read(const struct plugin_regs *regs, unsigned reg, uint64_t *value);
/* REG := VALUE on the calling vCPU (RW_REGS); false when QEMU refused. */
bool plugin_regs_write(const struct plugin_regs *regs, unsigned reg, uint64_t value);

/* X[REG] of the calling vCPU (from a callback registered with R_REGS);
 * 31 (xzr) reads 0. */
uint64_t plugin_regs_read_x(const struct plugin_regs *regs, unsigned reg);
/* X[REG] := VALUE on the calling vCPU (from a callback registered with
 * RW_REGS). */
void plugin_regs_write_x(const struct plugin_regs *regs, unsigned reg, uint64_t value);

/* Arms X[REG] := VALUE for VCPU's next TB start: the migration clock is
 * parked at PLUGIN_MIGRATE_DUE so that the TB's conditional callback fires,
 * and plugin_regs_apply_pending puts it back. */
void plugin_regs_defer_write(const struct plugin_rig *rig, unsigned vcpu, unsigned reg,
                             uint64_t value);
/* At a TB start whose clock is due: applies the pending write of the
 * calling vCPU, whose state is V, if any, and restores its clock. */
void plugin_regs_apply_pending(const struct plugin_regs *regs, struct plugin_vcpu *v);
/* VCPU starts a new thread: a write armed for the last one is dropped. */
void plugin_regs_forget_pending(const struct plugin_rig *rig, unsigned vcpu);

#endif /* JITFLUSH_EMU_PLUGIN_REGS_H */
