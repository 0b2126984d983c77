// The libraries the plugin and the runner load at their first use
// (rig/lazy/lazy_lib.h), linked here as the plugin links them: through the
// lazy units, never json-glib or libdw themselves.
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstdlib>
#include <string>

#include "report_demangle.h"
#include "rig_json.h"
#include "lazy_lib.h"
#include "report_symbols.h"

namespace
{

bool Loaded(const char *soname)
{
  void *h = dlopen(soname, RTLD_NOW | RTLD_NOLOAD);
  if (h)
    dlclose(h);
  return h != nullptr;
}

// The whole test of json-glib in one: before the first JSON call nothing
// of it is mapped; the first call loads it; the one writer's text is
// what the real library builds.
TEST(LazyLibraries, JsonGlibIsLoadedByTheFirstJsonCallAndWritesTheSameText)
{
  ASSERT_FALSE(Loaded("libjson-glib-1.0.so.0")) << "json-glib was loaded before any JSON call";
  ASSERT_FALSE(Loaded("libgio-2.0.so.0")) << "GIO came with something else";
  JsonObject *o = json_object_new();
  EXPECT_TRUE(Loaded("libjson-glib-1.0.so.0"));
  json_object_set_int_member(o, "pid", 42);
  rig_json_set_hex(o, "pc", 0x400580);
  JsonArray *a = json_array_new();
  json_array_add_object_element(a, json_object_new());
  json_object_set_array_member(o, "processes", a);
  json_object_set_null_member(o, "crash");
  GString *text = rig_json_write_object(o);
  EXPECT_EQ(std::string(text->str),
            "{\n  \"pid\": 42,\n  \"pc\": \"0x400580\",\n  \"processes\": [\n    {}\n  ],\n"
            "  \"crash\": null\n}\n");
  g_string_free(text, TRUE);
}

TEST(LazyLibraries, LibdwIsLoadedByTheFirstSymbolTable)
{
  ASSERT_FALSE(Loaded("libdw.so.1")) << "libdw was loaded before any guest symbol was asked for";
  struct report_symbols *s =
      report_symbols_new("00400000-00401000 r-xp 00000000 00:00 0 /nonexistent\n");
  EXPECT_TRUE(Loaded("libdw.so.1"));
  struct report_frame_names names = {};
  report_symbols_lookup(0x1000, &names, s);
  EXPECT_EQ(names.module, nullptr) << "an empty map names no module";
  report_symbols_free(s);
}

// The demangler is libiberty's, linked into the rig: no lazy unit stands
// in for it, and a Rust name needs no library of its own.
TEST(LazyLibraries, TheDemanglerIsLinkedIn)
{
  char *plain = report_demangle("_RNvCs15kBYyAo9fc_7mycrate7example");
  ASSERT_NE(plain, nullptr);
  EXPECT_EQ(std::string(plain), "mycrate::example");
  g_free(plain);
}

// A library that is not installed ends the process with one line that
// names it and what it was for, and the dynamic loader's status.
TEST(LazyLibraries, AMissingLibraryEndsTheProcessNamingIt)
{
  static const char *const names[] = {"json_object_new", nullptr};
  static lazy_fn fns[1];
  static struct lazy_lib missing = {"libjitflush-not-installed.so.0", "to test its message", names,
                                    fns, 0};
  EXPECT_EXIT(lazy_load(&missing), testing::ExitedWithCode(127),
              "^jitflush: cannot load libjitflush-not-installed.so.0, which the rig needs to test "
              "its message: libjitflush-not-installed.so.0: cannot open shared object file");
}

TEST(LazyLibraries, AMissingFunctionEndsTheProcessNamingIt)
{
  static const char *const names[] = {"json_object_new", "json_no_such_function", nullptr};
  static lazy_fn fns[2];
  static struct lazy_lib lib = {"libjson-glib-1.0.so.0", "to test its message", names, fns, 0};
  EXPECT_EXIT(lazy_load(&lib), testing::ExitedWithCode(127),
              "^jitflush: cannot load libjson-glib-1.0.so.0, which the rig needs to test its "
              "message: .*json_no_such_function");
}

} // namespace
