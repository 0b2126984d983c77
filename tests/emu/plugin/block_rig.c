/* block_rig.h: plugin_vcpu.h's inline functions, as the plugin compiles them. */
#include "block_rig.h"

#include "plugin_vcpu.h"

uint64_t block_rig_word(uint64_t start, uint64_t insns)
{
  return plugin_vcpu_block_word(start, insns);
}

uint64_t block_rig_start(uint64_t word)
{
  return plugin_vcpu_block_start(word);
}

uint64_t block_rig_end(uint64_t word)
{
  return plugin_vcpu_block_end(word);
}
