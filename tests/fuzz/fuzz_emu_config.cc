// The rig's config parser, rig_config_load (rig/shared/rig_config.c), on any
// text: written to a temporary file because the parser takes a path.
// Invariants (docs/RIG.md, "Syntax and errors": unknown keys, bad numbers
// and, by "[cluster NAME]", a CPU in two clusters are errors naming the file
// and the line):
// - it returns a config or an error, never both and never neither;
// - an error message starts with the file's path;
// - an accepted config is consistent: at least one CPU, every CPU in a
//   cluster that exists, lines that are powers of two, and its sanitised
//   CTR_EL0 no larger in IminLine/DminLine than any cluster's.
#include <glib.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "fuzz_check.h"

extern "C" {
#include "rig_config.h"
}

namespace
{
std::string TempPath()
{
  static std::string path;
  if (path.empty()) {
    char tmpl[] = "/tmp/jitflush-fuzz-conf-XXXXXX";
    int fd = mkstemp(tmpl);
    FUZZ_CHECK(fd >= 0);
    close(fd);
    path = tmpl;
    static struct Cleanup {
      ~Cleanup()
      {
        unlink(path.c_str());
      }
    } cleanup;
  }
  return path;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  const std::string path = TempPath();
  FILE *f = std::fopen(path.c_str(), "wb");
  FUZZ_CHECK(f != nullptr);
  FUZZ_CHECK(std::fwrite(data, 1, size, f) == size);
  std::fclose(f);

  GError *error = nullptr;
  rig_config *cfg = rig_config_load(path.c_str(), &error);
  FUZZ_CHECK((cfg == nullptr) != (error == nullptr));
  if (!cfg) {
    FUZZ_CHECK(error->message && std::strncmp(error->message, path.c_str(), path.size()) == 0);
    g_error_free(error);
    return 0;
  }
  FUZZ_CHECK(cfg->ncpus >= 1 && cfg->ncpus <= JF_MAX_CPUS);
  FUZZ_CHECK(cfg->nclusters >= 1 && cfg->clusters != nullptr);
  for (unsigned i = 0; i < cfg->ncpus; i++)
    FUZZ_CHECK(cfg->cpus[i].cluster >= 0 &&
               static_cast<unsigned>(cfg->cpus[i].cluster) < cfg->nclusters);
  unsigned san_i = 4u << (cfg->sanitized_ctr & 0xf),
           san_d = 4u << ((cfg->sanitized_ctr >> 16) & 0xf);
  for (unsigned c = 0; c < cfg->nclusters; c++) {
    const rig_cluster &cl = cfg->clusters[c];
    FUZZ_CHECK(cl.name != nullptr);
    FUZZ_CHECK(fuzz::PowerOfTwo(cl.l1i_line) && fuzz::PowerOfTwo(cl.l1d_line));
    FUZZ_CHECK(san_i <= (4u << (cl.ctr & 0xf)) && san_d <= (4u << ((cl.ctr >> 16) & 0xf)));
  }
  rig_config_free(cfg);
  return 0;
}
