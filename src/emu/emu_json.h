/*
 * JSON text for the rig's reports (the plugin's report, findings, SARIF):
 * the one string escaper they share.
 */
#ifndef JITFLUSH_EMU_JSON_H
#define JITFLUSH_EMU_JSON_H

#include <glib.h>

/* Appends S to OUT as a JSON string literal (quotes included); NULL is
 * written as null. */
void emu_json_string(GString *out, const char *s);

#endif /* JITFLUSH_EMU_JSON_H */
