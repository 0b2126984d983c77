/* An aarch64 program that links the flush routine the way any user would,
 * so the static check reads the code users actually get. */
#include "jitflush.h"

int main(int argc, char **argv)
{
  (void)argc;
  jitflush_clear_cache(argv, argv + 1);
  return 0;
}
