// Double- and triple-mapped pages for the model tests: the canonical
// address of a virtual address when 4 KiB views map one page, as the
// plugin's alias tracking (plugin_alias.c) gives the model through
// model_views.
#ifndef JITFLUSH_TESTS_EMU_MODEL_PAGE_VIEWS_H
#define JITFLUSH_TESTS_EMU_MODEL_PAGE_VIEWS_H

#include <cstdint>
#include <initializer_list>

namespace pageviews
{

constexpr uint64_t kPage = 4096;

// One view: the page at VIEW maps the page whose canonical address is CANON.
struct View {
  uint64_t view, canon;
};

inline bool InPage(uint64_t va, uint64_t page)
{
  return va >= page && va < page + kPage;
}

// VA's canonical address: the same offset in its view's canonical page
// when VA lies in one of VIEWS, else VA itself.
inline uint64_t Canon(uint64_t va, std::initializer_list<View> views)
{
  for (const View &v : views)
    if (InPage(va, v.view))
      return va - v.view + v.canon;
  return va;
}

} // namespace pageviews

#endif
