// What a test needs to check permissions as the kernel applies them: another user (root
// passes every permission check), and the inode flags chattr sets.
#ifndef WAVE2D_TEST_USERS_HPP
#define WAVE2D_TEST_USERS_HPP

#include <filesystem>
#include <functional>
#include <string>

#include <fcntl.h>
#include <grp.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace wave2d::test {

// Users with no file of their own here: 65534 is nobody on Debian.
inline constexpr uid_t other_user = 65534;
inline constexpr uid_t third_user = 65533;

inline constexpr char const* needs_root = "only root can act as another user or give a file to one";

// Runs `body` in a child process as `user` (and its group of the same number): what the
// body returns, or a line saying why it could not run.
inline std::string as_user(uid_t user, std::function<std::string()> const& body) {
  int pipe_ends[2];
  if (::pipe(pipe_ends) != 0) return "pipe failed";
  pid_t const pid = ::fork();
  if (pid < 0) return "fork failed";
  if (pid == 0) {
    ::close(pipe_ends[0]);
    std::string result;
    if (::setgroups(0, nullptr) != 0 || ::setgid(user) != 0 || ::setuid(user) != 0) {
      result = "cannot become uid " + std::to_string(user);
    } else {
      result = body();
    }
    (void)!::write(pipe_ends[1], result.data(), result.size());
    ::_exit(0);
  }
  ::close(pipe_ends[1]);
  std::string result;
  char buffer[512];
  for (ssize_t n; (n = ::read(pipe_ends[0], buffer, sizeof(buffer))) > 0;) {
    result.append(buffer, std::size_t(n));
  }
  ::close(pipe_ends[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return result;
}

// Sets (chattr +i, +a) or clears an inode flag: false where the file system keeps no such
// flags or the process may not change them.
inline bool set_inode_flag(std::filesystem::path const& path, int flag, bool on) {
  int const fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return false;
  int flags = 0;
  bool done = ::ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0;
  if (done) {
    flags = on ? flags | flag : flags & ~flag;
    done = ::ioctl(fd, FS_IOC_SETFLAGS, &flags) == 0;
  }
  ::close(fd);
  return done;
}

// An inode flag set for the object's life, so that the test's folder can be removed after.
class InodeFlag {
 public:
  InodeFlag(std::filesystem::path path, int flag)
      : path_(std::move(path)), flag_(flag), set_(set_inode_flag(path_, flag_, true)) {}
  ~InodeFlag() {
    if (set_) set_inode_flag(path_, flag_, false);
  }
  InodeFlag(InodeFlag const&) = delete;
  InodeFlag& operator=(InodeFlag const&) = delete;

  bool set() const { return set_; }
  static char const* why_not() {
    return "this file system or process cannot set inode flags (chattr +i, +a need ext4, "
           "XFS or Btrfs and CAP_LINUX_IMMUTABLE)";
  }

 private:
  std::filesystem::path path_;
  int flag_;
  bool set_;
};

}  // namespace wave2d::test

#endif
