/*
 * --json: exactly the keys of docs/CLI.md, plus extra keys that
 * never rename them. Facts that are not known are null, never a guess.
 */
#include <inttypes.h>
#include <string.h>

#include "info_facts.h"
#include "info_output.h"
#include "json_string.h"

static void put_file(void *sink, const char *bytes, size_t len)
{
  fwrite(bytes, 1, len, sink);
}

static void json_string(FILE *out, const char *s)
{
  if (!s) {
    fputs("null", out);
    return;
  }
  jf_json_string(s, put_file, out);
}

static void json_hex(FILE *out, bool known, uint64_t value)
{
  if (known) {
    fprintf(out, "\"0x%08" PRIx64 "\"", value);
  } else {
    fputs("null", out);
  }
}

static void json_uint(FILE *out, bool known, unsigned value)
{
  if (known) {
    fprintf(out, "%u", value);
  } else {
    fputs("null", out);
  }
}

static void json_bool(FILE *out, bool known, bool value)
{
  fputs(!known ? "null" : value ? "true" : "false", out);
}

static void print_cpu(FILE *out, const struct jitflush_cpu_info *c)
{
  bool midr = info_midr_known(c);
  fprintf(out, "{\"cpu\":%d,\"online\":%s,\"midr\":", c->cpu, c->online ? "true" : "false");
  json_hex(out, midr, c->midr);
  fputs(",\"core\":", out);
  json_string(out, info_core_name(c));
  fputs(",\"ctr_el0\":", out);
  json_hex(out, info_ctr_known(c), c->ctr_el0);
  fputs(",\"iline\":", out);
  json_uint(out, info_line_known(c->iline_source), c->iline);
  fputs(",\"dline\":", out);
  json_uint(out, info_line_known(c->dline_source), c->dline);
  fputs(",\"idc\":", out);
  json_bool(out, info_idc_dic_known(c), c->idc);
  fputs(",\"dic\":", out);
  json_bool(out, info_idc_dic_known(c), c->dic);
  fputs(",\"sysfs_l1i_line\":", out);
  json_uint(out, c->sysfs_l1i_line != 0, c->sysfs_l1i_line);
  fputs(",\"sysfs_l1d_line\":", out);
  json_uint(out, c->sysfs_l1d_line != 0, c->sysfs_l1d_line);
  fputs(",\"source\":", out);
  json_string(out, jitflush_source_name(info_lines_source(c)));
  /* Extras: every number's own source and the decoded MIDR. */
  fprintf(out, ",\"observed\":%s", c->observed ? "true" : "false");
  fputs(",\"midr_source\":", out);
  json_string(out, jitflush_source_name(c->midr_source));
  fputs(",\"iline_source\":", out);
  json_string(out, jitflush_source_name(c->iline_source));
  fputs(",\"dline_source\":", out);
  json_string(out, jitflush_source_name(c->dline_source));
  fputs(",\"idc_dic_source\":", out);
  json_string(out, jitflush_source_name(c->idc_dic_source));
  fputs(",\"inferred_from\":", out);
  if (c->iline_source == JITFLUSH_SRC_CLUSTER) {
    fprintf(out, "%d", c->inferred_from);
  } else {
    fputs("null", out);
  }
  fputs(",\"l1ip\":", out);
  json_string(out, c->observed ? info_l1ip_name(c->l1ip) : NULL);
  fputs(",\"implementer\":", out);
  if (midr) {
    fprintf(out, "\"0x%02x\",\"part\":\"0x%03x\",\"variant\":%u,\"revision\":%u",
            jitflush_midr_implementer(c->midr), jitflush_midr_part(c->midr),
            jitflush_midr_variant(c->midr), jitflush_midr_revision(c->midr));
  } else {
    fputs("null,\"part\":null,\"variant\":null,\"revision\":null", out);
  }
  fputc('}', out);
}

static void print_global(FILE *out, const struct jitflush_info *info)
{
  /* On a platform that needs no maintenance the lines are 0: not a size. */
  fputs("{\"iline\":", out);
  json_uint(out, info->iline != 0, info->iline);
  fputs(",\"dline\":", out);
  json_uint(out, info->dline != 0, info->dline);
  fprintf(out, ",\"idc\":%s,\"dic\":%s,\"heterogeneous\":%s,\"complete\":%s",
          info->idc ? "true" : "false", info->dic ? "true" : "false",
          info->heterogeneous ? "true" : "false", info->complete ? "true" : "false");
  fputs(",\"iline_source\":", out);
  json_string(out, jitflush_source_name(info->iline_source));
  fputs(",\"dline_source\":", out);
  json_string(out, jitflush_source_name(info->dline_source));
  fprintf(out, ",\"per_call_guard\":%s,\"online_check\":%s,\"use_dc_civac\":%s,\"status\":%d}",
          info->per_call_guard ? "true" : "false", info->online_check ? "true" : "false",
          info->use_dc_civac ? "true" : "false", info->status);
}

static void print_verdict(FILE *out, const struct info_verdict *v)
{
  fputs("{\"kind\":", out);
  json_string(out, info_kind_name(v->kind));
  fprintf(out, ",\"stride_safe\":%s,\"problem\":", v->stride_safe ? "true" : "false");
  json_string(out, v->problem[0] ? v->problem : NULL);
  fprintf(out, ",\"lines_differ\":%s,\"kernel_sanitises_ctr\":%s,\"sanitise_evidence\":",
          v->lines_differ ? "true" : "false", v->kernel_sanitises_ctr ? "true" : "false");
  json_string(out, v->sanitise_why);
  fprintf(out, ",\"possible_unknown\":%s,\"unlisted_incomplete\":%s",
          v->possible_unknown ? "true" : "false", v->unlisted_incomplete ? "true" : "false");
  fputs(",\"unseen\":", out);
  json_string(out, v->unseen);
  fputs(",\"unseen_offline\":", out);
  json_string(out, v->unseen_offline);
  fputs(",\"unseen_online\":", out);
  json_string(out, v->unseen_online);
  fputs(",\"inferred\":", out);
  json_string(out, v->inferred);
  fputs(",\"inferred_why\":", out);
  json_string(out, v->inferred_why[0] ? v->inferred_why : NULL);
  fputs(",\"strategies\":{", out);
  for (int i = 0; i < INFO_NSTRATEGIES; i++) {
    const struct info_strategy *s = &v->strategies[i];
    fprintf(out, "%s\"%s\":{\"name\":", i ? "," : "", s->key);
    json_string(out, s->name);
    fputs(",\"safety\":", out);
    json_string(out, info_safety_name(s->safety));
    fputs(",\"why\":", out);
    json_string(out, s->why);
    fputc('}', out);
  }
  fputs("}}", out);
}

static void print_cpu_bits(FILE *out, const uint64_t *bits)
{
  fputc('[', out);
  bool first = true;
  for (int cpu = 0; cpu < INFO_SELFTEST_CPU_BITS; cpu++) {
    if ((bits[cpu / 64] >> (cpu % 64)) & 1) {
      fprintf(out, "%s%d", first ? "" : ",", cpu);
      first = false;
    }
  }
  fputc(']', out);
}

static void print_selftest(FILE *out, const struct info_selftest_result *st)
{
  fprintf(out, "{\"ran\":%s,\"passed\":%s,\"error\":", st->ran ? "true" : "false",
          st->ran && st->wrong == 0 && st->verified > 0 ? "true" : "false");
  json_string(out, st->error[0] ? st->error : NULL);
  fprintf(out,
          ",\"seconds\":%.3f,\"elapsed\":%.3f,\"written\":%lu,\"flushed\":%lu,"
          "\"verified\":%lu,\"wrong\":%lu,\"first_wrong\":",
          st->seconds, st->elapsed, st->written, st->flushed, st->verified, st->wrong);
  json_string(out, st->first_wrong[0] ? st->first_wrong : NULL);
  fputs(",\"phases\":[", out);
  for (unsigned i = 0; i < st->nphases; i++) {
    const struct info_selftest_phase *p = &st->phases[i];
    fputs(i ? ",{\"cpu\":" : "{\"cpu\":", out);
    if (p->cpu >= 0) {
      fprintf(out, "%d", p->cpu);
    } else {
      fputs("null", out);
    }
    fprintf(out,
            ",\"pinned\":%s,\"pin_refused\":%s,\"written\":%lu,\"flushed\":%lu,"
            "\"verified\":%lu,\"wrong\":%lu,\"ran_on\":",
            p->cpu >= 0 ? "true" : "false", p->pin_refused ? "true" : "false", p->written,
            p->flushed, p->verified, p->wrong);
    print_cpu_bits(out, p->ran_on);
    fputc('}', out);
  }
  fputs("]}", out);
}

void info_print_json(FILE *out, const struct jitflush_info *info,
                     const struct info_verdict *verdict,
                     const struct info_selftest_result *selftest)
{
  fputs("{\"cpus\":[", out);
  for (unsigned i = 0; i < info->ncpus; i++) {
    if (i) {
      fputc(',', out);
    }
    print_cpu(out, &info->cpus[i]);
  }
  fputs("],\"global\":", out);
  print_global(out, info);
  fputs(",\"version\":", out);
  json_string(out, JITFLUSH_VERSION_STRING);
  fputs(",\"platform\":", out);
  json_string(out, info->platform);
  fputs(",\"method\":", out);
  json_string(out, info->method);
  fprintf(out, ",\"ncpus_possible\":%u,\"truncated\":%s,\"verdict\":", info->ncpus_possible,
          info->truncated ? "true" : "false");
  print_verdict(out, verdict);
  if (selftest) {
    fputs(",\"selftest\":", out);
    print_selftest(out, selftest);
  }
  fputs("}\n", out);
}
