// The Linux kernel's own cache maintenance, end to end: the programs
// of guest/kernel_sync_guest.c under the real plugin-enabled QEMU, each
// judged as today's arm64 Linux runs it (docs/COHERENCE-MODEL.md, "What Linux
// does for you": exynos8890-6.x.conf), with --exec-map-sync none as a kernel
// that does nothing, and as the Galaxy S7's shipped 3.18 kernel runs it
// (exynos8890.conf, "Older kernels: anonymous pages were not synced").
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "run_process.h"

namespace
{

const std::string kRunner = JITFLUSH_EMU_RUNNER;
const std::string kGuest = JITFLUSH_EMU_KERNEL_GUEST;
const std::string kConfigs = JITFLUSH_QEMU_CONFIGS_DIR;

struct GuestRun {
  ProcessResult result;
  nlohmann::json report;
};

GuestRun Guest(const std::string &mode, std::vector<std::string> runner_args = {},
               const std::map<std::string, std::string> &env = {},
               const std::string &config = "exynos8890-6.x.conf")
{
  TempDir dir;
  std::vector<std::string> argv = {kRunner, "--config", kConfigs + "/" + config, "--seed",
                                   "1",     "--report", dir / "r.json"};
  argv.insert(argv.end(), runner_args.begin(), runner_args.end());
  argv.insert(argv.end(), {"--", kGuest, mode});
  GuestRun run{RunProcess(argv, env), nullptr};
  const std::string text = ReadFileOrEmpty(dir / "r.json");
  if (!text.empty())
    run.report = nlohmann::json::parse(text);
  return run;
}

long Stale(const GuestRun &run)
{
  return run.report.value("stale_fetches", -1L);
}

std::vector<std::string> Kinds(const GuestRun &run)
{
  std::vector<std::string> kinds;
  for (const auto &f : run.report["findings"])
    kinds.push_back(f["kind"].get<std::string>());
  return kinds;
}

// Row 1: fresh anonymous RW pages, written, mprotect RX, run with no dc, ic
// or isb by a second thread: the kernel synced the pages. The run gets a
// note naming the mprotect call, and keeps the program's status.
TEST(KernelSyncEndToEnd, CodePublishedByTheFirstMprotectIsCoherent)
{
  GuestRun run = Guest("mprotect");
  ASSERT_EQ(run.result.status, 42) << run.result.err;
  EXPECT_EQ(Stale(run), 0) << run.report.dump();
  ASSERT_EQ(run.report["kernel_sync_notes"].size(), 1u) << run.report.dump();
  const auto &note = run.report["kernel_sync_notes"][0];
  EXPECT_EQ(note["call"], "mprotect");
  EXPECT_EQ(note["pages"], 1);
  EXPECT_EQ(note["words"], 2);
  EXPECT_NE(note["site"]["pc"], "0x0");
  EXPECT_NE(note["note"].get<std::string>().find("not on macOS, Windows or the BSDs"),
            std::string::npos);
  EXPECT_EQ(run.report["exec_map_sync"], "linux");
  EXPECT_EQ(run.report["kernel"], "6.x");
  EXPECT_EQ(note["kernel"], "6.x");
  EXPECT_NE(run.result.err.find("==jitflush-emu== NOTE: 2 words of code on 1 page were published "
                                "only by the kernel (Linux 6.x) at mprotect"),
            std::string::npos)
      << run.result.err;
}

// Row 2: the same page made RW, rewritten and made RX again: the flag is
// set, the kernel does nothing, and only the rewrite is stale. Of its two
// words, "mov x0, #43" may run as the published "mov x0, #42"; "ret" was
// rewritten with the same bytes, so its stale fetch can only run "ret"
// (docs/COHERENCE-MODEL.md, "Rewrites with the same bytes").
TEST(KernelSyncEndToEnd, TheSecondMprotectOfThePageDoesNotPublishTheRewrite)
{
  GuestRun run = Guest("mprotect-again");
  EXPECT_EQ(run.result.status, 86) << run.result.err;
  EXPECT_EQ(Stale(run), 1) << run.report.dump();                         // the rewritten mov, once
  EXPECT_EQ(run.report["benign_stale_fetches"], 1) << run.report.dump(); // the ret
  EXPECT_EQ(Kinds(run), std::vector<std::string>{"not-cleaned"});
}

// Row 3: a memfd mapped RW and RX, the RX view first touched after the
// write: its fault synced the page.
TEST(KernelSyncEndToEnd, AMemfdsExecViewFaultedAfterTheWriteIsCoherent)
{
  GuestRun run = Guest("memfd");
  ASSERT_EQ(run.result.status, 42) << run.result.err;
  EXPECT_EQ(Stale(run), 0) << run.report.dump();
  ASSERT_EQ(run.report["kernel_sync_notes"].size(), 1u) << run.report.dump();
  EXPECT_EQ(run.report["kernel_sync_notes"][0]["call"], "mmap");
}

// Row 4: rewritten through RW and run again: stale.
TEST(KernelSyncEndToEnd, AMemfdRewrittenAfterItsFaultIsStale)
{
  GuestRun run = Guest("memfd-again");
  EXPECT_EQ(run.result.status, 86) << run.result.err;
  EXPECT_EQ(Stale(run), 2) << run.report.dump();
  EXPECT_EQ(Kinds(run), std::vector<std::string>{"not-cleaned"});
}

// Row 5: RWX memory is mapped executable before the code is written.
TEST(KernelSyncEndToEnd, CodeWrittenIntoRwxMemoryIsStale)
{
  GuestRun run = Guest("rwx");
  EXPECT_EQ(run.result.status, 86) << run.result.err;
  EXPECT_EQ(Kinds(run), std::vector<std::string>{"not-cleaned"});
  EXPECT_TRUE(run.report["kernel_sync_notes"].empty()) << run.report.dump();
}

// Rows 6 and 7: code the kernel wrote (write(2) into a file mapped RX
// afterwards, /proc/self/mem into an RX mapping) was never a user store.
TEST(KernelSyncEndToEnd, CodeTheKernelWroteIsCoherent)
{
  for (const char *mode : {"file", "proc-mem"}) {
    GuestRun run = Guest(mode);
    EXPECT_EQ(run.result.status, 42) << mode << ": " << run.result.err;
    EXPECT_EQ(Stale(run), 0) << mode;
  }
}

// exec-map-sync = none: what the kernel alone published is stale under a
// kind of its own, chosen by the option or its variable; what the program
// got wrong itself keeps its kind.
TEST(KernelSyncEndToEnd, WithoutTheKernelsHelpKernelPublishedCodeIsKernelSyncAssumed)
{
  for (const char *mode : {"mprotect", "memfd"}) {
    GuestRun run = Guest(mode, {"--exec-map-sync", "none"});
    EXPECT_EQ(run.result.status, 86) << mode << ": " << run.result.err;
    EXPECT_EQ(Kinds(run), std::vector<std::string>{"kernel-sync-assumed"}) << mode;
    EXPECT_TRUE(run.report["kernel_sync_notes"].empty()) << mode;
    EXPECT_EQ(run.report["exec_map_sync"], "none");
    EXPECT_NE(run.report["reproduce"].get<std::string>().find(" --exec-map-sync none "),
              std::string::npos)
        << run.report["reproduce"];
  }
  GuestRun env = Guest("mprotect", {}, {{"JITFLUSH_EMU_EXEC_MAP_SYNC", "none"}});
  EXPECT_EQ(Kinds(env), std::vector<std::string>{"kernel-sync-assumed"});
  GuestRun rwx = Guest("rwx", {"--exec-map-sync", "none"});
  EXPECT_EQ(Kinds(rwx), std::vector<std::string>{"not-cleaned"});
}

// Copy-on-write after fork: a child that writes a page it shares with its
// parent gets a copy whose flag is clear, so its own mprotect RX syncs its
// code, whether the parent had written and published the page or only
// mapped it executable.
TEST(KernelSyncEndToEnd, AForkedChildsCopyIsSyncedAtItsExecMapping)
{
  for (const char *mode : {"fork-rewrite", "fork-unwritten"}) {
    GuestRun run = Guest(mode);
    EXPECT_EQ(run.result.status, 43) << mode << ": " << run.result.err;
    EXPECT_EQ(Stale(run), 0) << mode << ": " << run.report.dump();
  }
}

// An RWX page: the child's write fault syncs the copy, the parent's
// unmaintained code with it, before the child's store lands; the child's
// own code is stale.
TEST(KernelSyncEndToEnd, AnRwxCopyIsSyncedBeforeTheChildsStore)
{
  GuestRun run = Guest("fork-rwx");
  EXPECT_EQ(run.result.status, 86) << run.result.err;
  EXPECT_EQ(Stale(run), 2) << run.report.dump(); // "return 43", not "return 42"
  EXPECT_EQ(Kinds(run), std::vector<std::string>{"not-cleaned"});
}

// [kernel] linux=3.18-anon-skip (exynos8890.conf, the Galaxy S7 with the
// kernel it shipped: Samsung's 3.18.14, whose __sync_icache_dcache returns
// early for anonymous pages, "if (!page_mapping(page)) return;" in
// arch/arm64/mm/flush.c, DevriesL/Exynos8890_ImageBreaker at 657affd49e50):
// code today's kernel publishes on a private page is stale there, fork or
// not, and a rewrite's earlier version was never published either; shared
// memory (a memfd), and code the kernel wrote, are synced as today. The
// report names the kernel.
TEST(KernelSyncEndToEnd, TheAnonSkipKernelSyncsNoPrivatePage)
{
  const std::string phone = "exynos8890.conf";
  GuestRun mprotect = Guest("mprotect", {}, {}, phone);
  EXPECT_EQ(mprotect.result.status, 86) << mprotect.result.err;
  EXPECT_EQ(Stale(mprotect), 2) << mprotect.report.dump();
  EXPECT_EQ(Kinds(mprotect), std::vector<std::string>{"not-cleaned"});
  EXPECT_TRUE(mprotect.report["kernel_sync_notes"].empty()) << mprotect.report.dump();
  EXPECT_EQ(mprotect.report["kernel"], "3.18-anon-skip");
  EXPECT_NE(mprotect.result.err.find("==jitflush-emu== kernel: Linux 3.18-anon-skip, whose arm64 "
                                     "__sync_icache_dcache returns early for anonymous pages"),
            std::string::npos)
      << mprotect.result.err;
  // Both versions of the rewritten function, its ret with them: the first
  // was never published, so the same-bytes ret may still see the zeros.
  GuestRun again = Guest("mprotect-again", {}, {}, phone);
  EXPECT_EQ(again.result.status, 86) << again.result.err;
  EXPECT_EQ(Stale(again), 4) << again.report.dump();
  EXPECT_EQ(again.report["benign_stale_fetches"], 0) << again.report.dump();
  // The child's copy is not synced: its code is stale (fork-rewrite: the
  // parent's published version too, a finding of its own).
  for (const char *mode : {"fork-unwritten", "fork-rewrite"}) {
    GuestRun child = Guest(mode, {}, {}, phone);
    EXPECT_EQ(child.result.status, 86) << mode << ": " << child.result.err;
    const std::vector<std::string> kinds = Kinds(child);
    EXPECT_FALSE(kinds.empty()) << mode;
    for (const auto &kind : kinds)
      EXPECT_EQ(kind, "not-cleaned") << mode;
  }
  // The copy of an RWX page is not synced at the child's write fault: the
  // parent's code is as stale as the child's.
  GuestRun rwx = Guest("fork-rwx", {}, {}, phone);
  EXPECT_EQ(rwx.result.status, 86) << rwx.result.err;
  EXPECT_EQ(Stale(rwx), 4) << rwx.report.dump();
  GuestRun memfd = Guest("memfd", {}, {}, phone);
  EXPECT_EQ(memfd.result.status, 42) << memfd.result.err;
  EXPECT_EQ(Stale(memfd), 0) << memfd.report.dump();
  EXPECT_EQ(memfd.report["kernel_sync_notes"].size(), 1u) << memfd.report.dump();
  for (const char *mode : {"file", "proc-mem"}) {
    GuestRun run = Guest(mode, {}, {}, phone);
    EXPECT_EQ(run.result.status, 42) << mode << ": " << run.result.err;
    EXPECT_EQ(Stale(run), 0) << mode;
  }
}

TEST(KernelSyncEndToEnd, ABadExecMapSyncIsAUsageError)
{
  GuestRun run = Guest("mprotect", {"--exec-map-sync", "macos"});
  EXPECT_EQ(run.result.status, 2);
  EXPECT_NE(run.result.err.find("--exec-map-sync: expected linux or none, got 'macos'"),
            std::string::npos)
      << run.result.err;
}

} // namespace
