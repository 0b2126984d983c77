// The JSON string writer that jitflush-info and the rig share
// (common/json_string.h): what each of them writes for a string.
#include <gtest/gtest.h>

#include <string>

extern "C" {
#include "json_string.h"
}

static void Append(void *sink, const char *bytes, size_t len)
{
  static_cast<std::string *>(sink)->append(bytes, len);
}

static std::string Json(const char *text)
{
  std::string out;
  jf_json_string(text, Append, &out);
  return out;
}

TEST(JsonString, PlainTextIsQuotedAsItIs)
{
  EXPECT_EQ(Json(""), "\"\"");
  EXPECT_EQ(Json("Cortex-A53 /sys/devices"), "\"Cortex-A53 /sys/devices\"");
}

TEST(JsonString, QuotesBackslashesAndControlCharactersAreEscaped)
{
  EXPECT_EQ(Json("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(Json("\x01\t\n\x1f"), "\"\\u0001\\u0009\\u000a\\u001f\"");
  EXPECT_EQ(Json("\"\""), "\"\\\"\\\"\"");
}

// DEL and bytes past ASCII pass through: a caller whose text may not be
// UTF-8 makes it valid first (the runner's store records do).
TEST(JsonString, OtherBytesPassThrough)
{
  EXPECT_EQ(Json("\x7f\xc3\xa9"), "\"\x7f\xc3\xa9\"");
}
