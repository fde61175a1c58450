// probe_output and probe_new_folder: an output that cannot be written is found before the
// work, and the probe says what the write itself would meet: each refusal is checked
// against a real write.
#include <wave2d/io/wave2d_Output.hpp>
#include <wave2d_TestFiles.hpp>
#include <wave2d_TestUsers.hpp>

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace wave2d::test {
namespace {

namespace fs = std::filesystem;

// probe_output's message, empty when it lets the path through.
std::string probe(fs::path const& path) {
  try {
    probe_output(path);
    return {};
  } catch (OutputError const& e) {
    return e.what();
  }
}

// What a real atomic write of the path meets: empty when it succeeds.
std::string write(fs::path const& path) {
  std::vector<float> const one(1, 0.5f);
  try {
    write_npy(path, one, one, 1, 1);
    return {};
  } catch (OutputError const& e) {
    return e.what();
  }
}

bool contains(std::string const& text, std::string const& part) {
  return text.find(part) != std::string::npos;
}

TEST(ProbeOutput, LetsAWritableFileThroughAndLeavesNothing) {
  TemporaryDirectory directory;
  write_text(directory.path() / "old.npy", "old");
  EXPECT_EQ(probe(directory.path() / "new.npy"), "");
  EXPECT_EQ(probe(directory.path() / "old.npy"), "");
  EXPECT_EQ(read_file(directory.path() / "old.npy"), "old");
  EXPECT_EQ(directory.contents(), std::vector<std::string>{"old.npy"});
  EXPECT_EQ(probe("/dev/null"), "");  // written through, never replaced
}

// A process with no controlling terminal cannot open /dev/tty: found as the write finds it.
TEST(ProbeOutput, RefusesADeviceThatCannotBeOpened) {
  pid_t const pid = ::fork();
  if (pid == 0) {
    ::setsid();  // no controlling terminal
    std::string const probed = probe("/dev/tty");
    std::string const written = write("/dev/tty");
    ::_exit(!probed.empty() && probed == written && probed.starts_with("cannot write '/dev/tty': ")
                ? 0
                : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST(ProbeOutput, SaysAnEmptyPathIsEmpty) {
  EXPECT_EQ(probe(""), "cannot write '': the path is empty");
}

// The folder the file needs, links followed: a link into a missing folder is refused
// now, where the write would have failed after the work.
TEST(ProbeOutput, RefusesAMissingFolderAlsoBehindALink) {
  TemporaryDirectory directory;
  fs::path const link = directory.path() / "l.npy";
  fs::create_symlink("nodir/sub/x.npy", link);
  EXPECT_EQ(probe(link), "cannot write '" + link.string() + "': the folder '" +
                             (directory.path() / "nodir/sub").string() + "' does not exist");
  EXPECT_NE(write(link), "");
  fs::path const missing = directory.path() / "a" / "b.npy";
  EXPECT_EQ(probe(missing), "cannot write '" + missing.string() + "': the folder '" +
                                (directory.path() / "a").string() + "' does not exist");
  EXPECT_NE(write(missing), "");
  EXPECT_EQ(directory.contents(), std::vector<std::string>{"l.npy"});
}

// A path the system cannot look up is refused with the system's reason, not as an odd kind
// of file: a folder in a loop of links, a file taken as a folder, a name too long.
TEST(ProbeOutput, SaysWhyAPathCannotBeLookedUp) {
  TemporaryDirectory directory;
  fs::create_symlink("l2", directory.path() / "l1");
  fs::create_symlink("l1", directory.path() / "l2");
  write_text(directory.path() / "file", "");
  fs::path const looped = directory.path() / "l1" / "a.npy";
  fs::path const under_a_file = directory.path() / "file" / "a.npy";
  fs::path const long_name = directory.path() / (std::string(300, 'a') + ".npy");
  std::vector<std::pair<fs::path, std::string>> const cases{
      {looped, "Too many levels of symbolic links"},
      {under_a_file, "'" + under_a_file.parent_path().string() + "' is not a directory"},
      {long_name, "File name too long"}};
  for (auto const& [path, reason] : cases) {
    EXPECT_EQ(probe(path), "cannot write '" + path.string() + "': " + reason);
    EXPECT_NE(write(path), "");
  }
  std::vector<std::string> names;  // not recursive: the loop has no end
  for (auto const& entry : fs::directory_iterator(directory.path())) {
    names.push_back(entry.path().filename().string());
  }
  std::ranges::sort(names);
  EXPECT_EQ(names, (std::vector<std::string>{"file", "l1", "l2"}));
}

TEST(ProbeOutput, RefusesImmutableAndAppendOnlyFiles) {
  TemporaryDirectory directory;
  fs::path const file = directory.path() / "kept.npy";
  write_text(file, "kept");
  {
    InodeFlag const immutable(file, FS_IMMUTABLE_FL);
    if (!immutable.set()) GTEST_SKIP() << InodeFlag::why_not();
    EXPECT_TRUE(contains(probe(file), "it is immutable (chattr +i), so it cannot be replaced"))
        << probe(file);
    EXPECT_NE(write(file), "") << "the write should fail as the probe says";
  }
  {
    InodeFlag const append_only(file, FS_APPEND_FL);
    ASSERT_TRUE(append_only.set());
    EXPECT_TRUE(contains(probe(file), "it is append-only (chattr +a)")) << probe(file);
    EXPECT_NE(write(file), "");
  }
  {
    // Files can be made in an append-only folder, but none renamed or removed: the
    // probe must not leave its temporary there.
    InodeFlag const append_only(directory.path(), FS_APPEND_FL);
    ASSERT_TRUE(append_only.set());
    EXPECT_TRUE(contains(probe(directory.path() / "new.npy"),
                         "the folder '" + directory.path().string() + "' is append-only"));
    EXPECT_EQ(directory.contents(), std::vector<std::string>{"kept.npy"});
  }
  EXPECT_EQ(read_file(file), "kept");
}

// A folder of root's, read-only to others. Root itself passes the permission check, and
// the probe lets it through, as the write does.
TEST(ProbeOutput, RefusesAFolderTheUserCannotWrite) {
  TemporaryDirectory directory;
  fs::path const folder = directory.path() / "read-only";
  fs::create_directory(folder);
  fs::permissions(directory.path(), fs::perms::owner_all | fs::perms::others_exec);
  fs::permissions(folder, fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);
  fs::path const file = folder / "f.npy";
  if (::geteuid() != 0) {
    fs::permissions(folder, fs::perms::owner_write, fs::perm_options::remove);
    EXPECT_TRUE(contains(probe(file),
                         "cannot create files in '" + folder.string() + "': Permission denied"))
        << probe(file);
    EXPECT_NE(write(file), "");
    fs::permissions(folder, fs::perms::owner_write, fs::perm_options::add);
    return;
  }
  std::string const as_other = as_user(other_user, [&] {
    std::string const probed = probe(file);
    return probed + (write(file).empty() ? " | written" : " | not written");
  });
  EXPECT_EQ(as_other, "cannot write '" + file.string() + "': cannot create files in '" +
                          folder.string() + "': Permission denied | not written");
  EXPECT_EQ(probe(file), "");
  EXPECT_EQ(write(file), "");
}

// /tmp-like: in a sticky folder only a file's owner (or the folder's, or CAP_FOWNER)
// may replace it. The probe applies that rule; each verdict is checked by a real write.
TEST(ProbeOutput, RefusesAnotherUsersFileInAStickyFolder) {
  if (::geteuid() != 0) GTEST_SKIP() << needs_root;
  TemporaryDirectory directory;
  fs::permissions(directory.path(), fs::perms::owner_all | fs::perms::others_exec);
  fs::path const sticky = directory.path() / "tmp";
  fs::create_directory(sticky);
  fs::permissions(sticky, fs::perms::all | fs::perms::sticky_bit);
  fs::path const theirs = sticky / "theirs.npy";
  fs::path const mine = sticky / "mine.npy";
  for (auto const& [file, owner] : {std::pair(theirs, third_user), std::pair(mine, other_user)}) {
    write_text(file, "old");
    ASSERT_EQ(::chown(file.c_str(), owner, owner), 0);
  }
  std::string const as_other = as_user(other_user, [&] {
    std::string result;
    for (auto const& file : {theirs, mine}) {
      result += probe(file) + (write(file).empty() ? " | written\n" : " | not written\n");
    }
    return result;
  });
  EXPECT_EQ(as_other, "cannot write '" + theirs.string() + "': it belongs to another user (uid " +
                          std::to_string(third_user) + ") in the sticky folder '" +
                          sticky.string() + "', where only they can replace it | not written\n" +
                          " | written\n");
  EXPECT_EQ(read_file(theirs), "old");
  // Root has CAP_FOWNER: the rule lets it through, and the write succeeds.
  EXPECT_EQ(probe(theirs), "");
  EXPECT_EQ(write(theirs), "");
}

// probe_new_folder's message, empty when it finds the folder can be made.
std::string probe_folder(fs::path const& folder) {
  try {
    probe_new_folder(folder);
    return {};
  } catch (OutputError const& e) {
    return e.what();
  }
}

// A folder not there yet is probed in one of the process's own beside it, then nothing is
// left; its name and the folder above are checked as the folder's own.
TEST(ProbeNewFolder, FindsWhetherAFolderCanBeMadeAndLeavesNothing) {
  TemporaryDirectory directory;
  fs::path const folder = directory.path() / "new";
  EXPECT_EQ(probe_folder(folder), "");
  EXPECT_EQ(probe_folder(fs::path(folder) += "/"), "");
  EXPECT_TRUE(directory.contents().empty());
  fs::path const deeper = directory.path() / "a" / "b";
  EXPECT_EQ(probe_folder(deeper), "cannot make the folder '" + deeper.string() + "': the folder '" +
                                      (directory.path() / "a").string() + "' does not exist");
  fs::path const long_name = directory.path() / std::string(256, 'n');
  EXPECT_TRUE(contains(probe_folder(long_name), "is longer than the 255 bytes a name may have"))
      << probe_folder(long_name);
  EXPECT_TRUE(directory.contents().empty());
}

TEST(ProbeNewFolder, RefusesAFolderInAnAppendOnlyOne) {
  TemporaryDirectory directory;
  fs::path const folder = directory.path() / "new";
  {
    InodeFlag const append_only(directory.path(), FS_APPEND_FL);
    if (!append_only.set()) GTEST_SKIP() << InodeFlag::why_not();
    EXPECT_TRUE(contains(probe_folder(folder), "is append-only (chattr +a)"))
        << probe_folder(folder);
  }
  EXPECT_TRUE(directory.contents().empty());
}

// Processes probing one new folder at once (ranks of a distributed run, runs of a sweep)
// never meet: each probes in a folder of its own.
TEST(ProbeNewFolder, ProcessesProbingAtOnceNeverMeet) {
  TemporaryDirectory directory;
  fs::path const folder = directory.path() / "shared";
  std::vector<pid_t> children;
  for (int child = 0; child < 6; ++child) {
    pid_t const pid = ::fork();
    if (pid == 0) {
      for (int i = 0; i < 100; ++i) {
        if (!probe_folder(folder).empty()) ::_exit(1);
      }
      ::_exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a probe failed";
  }
  EXPECT_TRUE(directory.contents().empty());
}

TEST(ProbeNewFolder, RefusesAFolderTheUserCannotWriteIn) {
  if (::geteuid() != 0) GTEST_SKIP() << needs_root;
  TemporaryDirectory directory;
  fs::permissions(directory.path(), fs::perms::owner_all | fs::perms::others_exec);
  fs::path const folder = directory.path() / "new";
  EXPECT_EQ(as_user(other_user, [&] { return probe_folder(folder); }),
            "cannot make the folder '" + folder.string() + "': Permission denied");
  EXPECT_TRUE(directory.contents().empty());
}

}  // namespace
}  // namespace wave2d::test
