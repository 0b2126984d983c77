/*
 * Userdata blocks handed to QEMU with a callback must live as long as the
 * translation that holds them, which in linux-user is until exit: a keeper
 * frees them all then.
 */
#ifndef JITFLUSH_EMU_KEEP_H
#define JITFLUSH_EMU_KEEP_H

struct plugin_keep;

struct plugin_keep *plugin_keep_new(void);
/* Frees every block kept. */
void plugin_keep_free(struct plugin_keep *keep);
/* Keeps BLOCK (g_malloc'd) until plugin_keep_free, and returns it. Any thread. */
void *plugin_keep_until_exit(struct plugin_keep *keep, void *block);

#endif /* JITFLUSH_EMU_KEEP_H */
