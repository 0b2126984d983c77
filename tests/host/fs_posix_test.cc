// The production file seam (lib/fs_posix.c) against a real folder: regular
// files read as they are; a FIFO reads as empty at once, never waited on.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>

extern "C" {
#include "fs.h"
}

namespace
{

struct Folder {
  Folder()
  {
    char tmpl[] = "/tmp/jitflush-fs-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~Folder()
  {
    std::string cmd = "rm -rf '" + path + "'";
    EXPECT_EQ(std::system(cmd.c_str()), 0);
  }
  std::string path;
};

TEST(FsPosix, ReadsARegularFile)
{
  Folder dir;
  const std::string file = dir.path + "/online";
  int w = open(file.c_str(), O_WRONLY | O_CREAT, 0644);
  ASSERT_GE(w, 0);
  ASSERT_EQ(write(w, "0-7\n", 4), 4);
  close(w);
  int fd = jf_fs_open(file.c_str());
  ASSERT_GE(fd, 0);
  char buf[16] = {};
  EXPECT_EQ(jf_fs_read(fd, buf, sizeof buf - 1), 4);
  EXPECT_STREQ(buf, "0-7\n");
  jf_fs_close(fd);
}

// A FIFO with no writer used to block the probe (and the guest's
// jitflush-info under the rig) until killed.
TEST(FsPosix, AFifoWithoutAWriterReadsEmptyAtOnce)
{
  Folder dir;
  const std::string fifo = dir.path + "/online";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  const auto start = std::chrono::steady_clock::now();
  int fd = jf_fs_open(fifo.c_str());
  ASSERT_GE(fd, 0);
  char buf[16];
  EXPECT_EQ(jf_fs_read(fd, buf, sizeof buf), 0) << "no content, so the parsers refuse it";
  jf_fs_close(fd);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(FsPosix, AFolderAndAMissingFileGiveNothing)
{
  Folder dir;
  EXPECT_EQ(jf_fs_open((dir.path + "/missing").c_str()), -1);
  int fd = jf_fs_open(dir.path.c_str());
  char buf[16];
  EXPECT_TRUE(fd < 0 || jf_fs_read(fd, buf, sizeof buf) < 0);
  if (fd >= 0)
    jf_fs_close(fd);
}

} // namespace
