/* Reading back the rig's SARIF logs (rig_sarif_log.h). A member is read only
 * after json_object_has_member says it is there: json-glib's getters print
 * a critical warning for a missing one, and a log without it (one the rig
 * did not write) is to merge as no results, with nothing on stderr. */
#include "rig_sarif_log.h"

JsonArray *rig_sarif_results(JsonObject *log, JsonObject **run)
{
  JsonArray *runs =
      json_object_has_member(log, "runs") ? json_object_get_array_member(log, "runs") : NULL;
  JsonObject *first =
      runs && json_array_get_length(runs) ? json_array_get_object_element(runs, 0) : NULL;
  if (run) {
    *run = first;
  }
  return first && json_object_has_member(first, "results")
             ? json_object_get_array_member(first, "results")
             : NULL;
}
