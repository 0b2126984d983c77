/*
 * conf_facts FILE: what ci/bench/counts.py needs of a qemu-configs .conf file,
 * read by the rig's own loader (rig/shared/rig_config.c) so that the bench
 * accepts exactly the files the rig runs. One line per cluster,
 *
 *   cluster FIRST_CPU CTR_EL0
 *
 * then "ctr-trap none|sanitize". Exit status: 0, or 2 with the loader's
 * message (file, line, key) on stderr.
 */
#include <inttypes.h>
#include <stdio.h>

#include "rig_config.h"

int main(int argc, char **argv)
{
  if (argc != 2) {
    fputs("usage: conf_facts FILE.conf\n", stderr);
    return 2;
  }
  GError *error = NULL;
  struct rig_config *cfg = rig_config_load(argv[1], &error);
  if (!cfg) {
    fprintf(stderr, "conf_facts: %s\n", error ? error->message : argv[1]);
    g_clear_error(&error);
    return 2;
  }
  for (unsigned k = 0; k < cfg->nclusters; k++) {
    for (unsigned cpu = 0; cpu < cfg->ncpus; cpu++) {
      if (cfg->cpus[cpu].cluster == (int)k) {
        printf("cluster %u 0x%" PRIx64 "\n", cpu, cfg->clusters[k].ctr);
        break;
      }
    }
  }
  printf("ctr-trap %s\n", cfg->ctr_trap == RIG_CTR_TRAP_SANITIZE ? "sanitize" : "none");
  rig_config_free(cfg);
  return 0;
}
