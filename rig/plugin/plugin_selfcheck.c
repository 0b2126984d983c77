/*
 * The plugin API's self-check (plugin_selfcheck.h). It runs once, in an
 * execution callback of the first block, before its first instruction,
 * and asks QEMU for values that are known there by other means:
 *   - PC is the block's own address;
 *   - SP points at the start-up stack Linux (and QEMU's loader) lays out
 *     for a new program: argc, argv, NULL, envp, NULL, then the auxiliary
 *     vector, which holds a page size (AT_PAGESZ, a power of two of at
 *     least 4 KiB) and the program's entry point (AT_ENTRY) (System V ABI
 *     for AArch64, "Process initialization"; QEMU's linux-user/elfload.c,
 *     create_elf_tables). QEMU 10.2's qemu_plugin_entry_code() does not
 *     give the guest's AT_ENTRY, so the vector is checked on its own;
 *   - a register written reads back what was written (the rig writes
 *     registers to emulate CTR_EL0 and the affinity calls), and is put
 *     back as it was.
 * A register read that returns 0, or a write that does nothing, fails one
 * of these.
 */
#include "plugin_selfcheck.h"

#include <elf.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "plugin_findings.h"
#include "plugin_regs.h"
#include "rig_contract.h"

/* Bounds on the start-up stack: beyond them it is not one. */
#define MAX_ARGC (1u << 20)
#define MAX_ENVC (1u << 20)
#define MAX_AUXV 512
/* Flips every other bit of the register written and read back. */
#define WRITE_PATTERN UINT64_C(0x5a5a5a5a5a5a5a5a)

void plugin_selfcheck_refuse(const struct plugin_options *o, const char *why)
{
  fprintf(stderr, "jitflush plugin: refusing to run: %s\n", why);
  if (o->summary_path) {
    GString *text = g_string_new(RIG_SUMMARY_REFUSED);
    g_string_append_printf(text, "%s\n", why);
    plugin_write_file(o->summary_path, text);
    g_string_free(text, true);
  }
}

static bool read_u64(uint64_t addr, uint64_t *value)
{
  GByteArray *buf = g_byte_array_sized_new(sizeof(*value));
  bool ok = qemu_plugin_read_memory_vaddr(addr, buf, sizeof(*value)) && buf->len == sizeof(*value);
  if (ok) {
    uint64_t le;
    memcpy(&le, buf->data, sizeof(le));
    *value = GUINT64_FROM_LE(le);
  }
  g_byte_array_free(buf, true);
  return ok;
}

/* Where the NULL-terminated list of pointers at P ends (the address after
 * its NULL), counting at most MAX entries; 0 when it cannot be read. */
static uint64_t past_list(uint64_t p, unsigned max)
{
  for (unsigned i = 0; i <= max; i++, p += 8) {
    uint64_t word;
    if (!read_u64(p, &word)) {
      return 0;
    }
    if (word == 0) {
      return p + 8;
    }
  }
  return 0;
}

/* NULL when SP's value leads to an auxiliary vector with a page size and
 * an entry point; else what went wrong. */
static char *stack_problem(const struct plugin_regs *regs)
{
  uint64_t sp;
  if (!plugin_regs_read(regs, PLUGIN_REG_SP, &sp)) {
    return g_strdup("reading SP (qemu_plugin_read_register) failed");
  }
  uint64_t argc;
  if (sp == 0 || sp % 16 != 0 || !read_u64(sp, &argc)) {
    return g_strdup_printf("SP read as 0x%" PRIx64 ", which is not the guest's start-up stack", sp);
  }
  uint64_t envp = argc <= MAX_ARGC ? past_list(sp + 8, (unsigned)argc) : 0;
  uint64_t auxv = envp ? past_list(envp, MAX_ENVC) : 0;
  if (!auxv) {
    return g_strdup_printf("SP read as 0x%" PRIx64 ", where no argc, argv and envp are", sp);
  }
  uint64_t page_size = 0;
  uint64_t entry = 0;
  for (unsigned i = 0; i < MAX_AUXV; i++, auxv += 16) {
    uint64_t type;
    uint64_t value;
    if (!read_u64(auxv, &type) || !read_u64(auxv + 8, &value) || type == AT_NULL) {
      break;
    }
    page_size = type == AT_PAGESZ ? value : page_size;
    entry = type == AT_ENTRY ? value : entry;
  }
  if (page_size < 4096 || (page_size & (page_size - 1)) != 0 || entry == 0) {
    return g_strdup_printf("SP read as 0x%" PRIx64 ", under which the auxiliary vector has no "
                           "AT_PAGESZ and AT_ENTRY",
                           sp);
  }
  return NULL;
}

/* NULL when X0 can be written and read back; X0 is left as it was. */
static char *write_problem(const struct plugin_regs *regs)
{
  uint64_t was;
  uint64_t now;
  if (!plugin_regs_read(regs, 0, &was)) {
    return g_strdup("reading X0 (qemu_plugin_read_register) failed");
  }
  if (!plugin_regs_write(regs, 0, was ^ WRITE_PATTERN)) {
    return g_strdup("writing X0 (qemu_plugin_write_register) failed");
  }
  bool changed = plugin_regs_read(regs, 0, &now) && now == (was ^ WRITE_PATTERN);
  if (!plugin_regs_write(regs, 0, was) || !changed) {
    return g_strdup_printf("X0 written as 0x%" PRIx64 " read back as 0x%" PRIx64,
                           was ^ WRITE_PATTERN, now);
  }
  return NULL;
}

static char *api_problem(const struct plugin_rig *rig)
{
  uint64_t pc;
  if (!plugin_regs_read(rig->regs, PLUGIN_REG_PC, &pc)) {
    return g_strdup("reading PC (qemu_plugin_read_register) failed");
  }
  if (pc != rig->first_block) {
    return g_strdup_printf("PC read as 0x%" PRIx64
                           " in the first block, which starts at 0x%" PRIx64,
                           pc, rig->first_block);
  }
  char *why = stack_problem(rig->regs);
  return why ? why : write_problem(rig->regs);
}

static void on_first_block(unsigned int vcpu, void *udata)
{
  (void)vcpu;
  struct plugin_rig *rig = udata;
  char *why = api_problem(rig);
  if (why) {
    plugin_selfcheck_refuse(&rig->opts, why);
    g_free(why);
    /* Nothing of the guest has run: end QEMU before it does, without
     * the exit callback, which would write a summary over the reason. */
    _exit(1);
  }
}

void plugin_selfcheck_tb(struct plugin_rig *rig, struct qemu_plugin_tb *tb)
{
  bool was = false;
  if (G_LIKELY(atomic_load_explicit(&rig->selfcheck_armed, memory_order_relaxed)) ||
      !atomic_compare_exchange_strong(&rig->selfcheck_armed, &was, true)) {
    return;
  }
  rig->first_block = qemu_plugin_tb_vaddr(tb);
  qemu_plugin_register_vcpu_tb_exec_cb(tb, on_first_block, QEMU_PLUGIN_CB_RW_REGS, rig);
}
