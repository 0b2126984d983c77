/* The run's output files, copied into place (runner_output.c). */
#ifndef JITFLUSH_EMU_RUNNER_OUTPUT_H
#define JITFLUSH_EMU_RUNNER_OUTPUT_H

/* Writes the file FROM into TO (nothing when TO is NULL or FROM cannot be
 * read); a failure is named on stderr. */
void runner_output_copy(const char *from, const char *to);
/* The checkpoint's summary file in SCRATCH (NULL: none), after copying its
 * report and SARIF log to REPORT and SARIF (g_free). */
char *runner_output_adopt_checkpoint(const char *scratch, const char *report, const char *sarif);

#endif /* JITFLUSH_EMU_RUNNER_OUTPUT_H */
