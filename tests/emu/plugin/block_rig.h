/* The running block's word (rig/plugin/plugin_vcpu.h) for the C++ tests,
 * which cannot include the plugin's C11 headers. */
#ifndef JITFLUSH_TESTS_EMU_PLUGIN_BLOCK_RIG_H
#define JITFLUSH_TESTS_EMU_PLUGIN_BLOCK_RIG_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

uint64_t block_rig_word(uint64_t start, uint64_t insns);
uint64_t block_rig_start(uint64_t word);
uint64_t block_rig_end(uint64_t word);

#ifdef __cplusplus
}
#endif

#endif
