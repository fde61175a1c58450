/* A write-fault injector, preloaded (LD_PRELOAD) into a program under test: the Nth call
   that writes or commits a file under WAVE2D_FAULT_DIR fails, as a full or failing disk
   would make it fail. The calls counted: write, pwrite, writev, pwritev, ftruncate,
   fallocate, fsync and fdatasync on a regular file opened for writing (fsync on any regular
   file), close of such a file, rename. Environment:
     WAVE2D_FAULT_DIR      absolute folder whose files are counted (required)
     WAVE2D_FAULT_AT       the call that fails, counting from 1; unset or 0: none
     WAVE2D_FAULT_ERRNO    ENOSPC (default) or EIO
     WAVE2D_FAULT_PERSIST  1: every counted call from the Nth on fails (a disk left full)
     WAVE2D_FAULT_KILL     1: the Nth call kills the process instead (SIGKILL, as a power
                           cut or the OOM killer ends it: no handler runs, nothing is undone)
     WAVE2D_FAULT_RANK     the MPI rank that fails (OMPI_COMM_WORLD_RANK or PMI_RANK;
                           default 0); other ranks only count
     WAVE2D_FAULT_COUNT    a file where each process appends "<rank> <calls>" at exit
     WAVE2D_FAULT_LOG      a file where the failing process writes the failed call and file */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static char const* fault_dir = NULL;
static size_t fault_dir_length = 0;
static long fault_at = 0;
static int fault_errno = ENOSPC;
static int persist = 0;
static int kill_at = 0;
static int failing_rank = 1;  /* this process's rank is the one that fails */
static int rank = 0;
static long calls = 0;

static int env_int(char const* name, int otherwise) {
  char const* value = getenv(name);
  return value && *value ? atoi(value) : otherwise;
}

__attribute__((constructor)) static void start(void) {
  fault_dir = getenv("WAVE2D_FAULT_DIR");
  if (fault_dir) fault_dir_length = strlen(fault_dir);
  char const* at = getenv("WAVE2D_FAULT_AT");
  fault_at = at ? atol(at) : 0;
  char const* code = getenv("WAVE2D_FAULT_ERRNO");
  if (code && strcmp(code, "EIO") == 0) fault_errno = EIO;
  persist = env_int("WAVE2D_FAULT_PERSIST", 0);
  kill_at = env_int("WAVE2D_FAULT_KILL", 0);
  rank = env_int("OMPI_COMM_WORLD_RANK", env_int("PMI_RANK", 0));
  failing_rank = rank == env_int("WAVE2D_FAULT_RANK", 0);
}

__attribute__((destructor)) static void finish(void) {
  char const* log = getenv("WAVE2D_FAULT_COUNT");
  if (!log) return;
  int (*real_open)(char const*, int, ...) = dlsym(RTLD_NEXT, "open");
  int const fd = real_open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0) return;
  char line[64];
  int const length = snprintf(line, sizeof line, "%d %ld\n", rank, calls);
  ssize_t (*real_write)(int, void const*, size_t) = dlsym(RTLD_NEXT, "write");
  if (real_write(fd, line, (size_t)length) < 0) {
    /* nothing to do: the count is lost */
  }
  int (*real_close)(int) = dlsym(RTLD_NEXT, "close");
  real_close(fd);
}

static int in_fault_dir(char const* path) {
  return fault_dir && path && strncmp(path, fault_dir, fault_dir_length) == 0 &&
         (path[fault_dir_length] == '/' || path[fault_dir_length] == '\0');
}

static char counted_path[PATH_MAX];  /* the file of the last call counted */

/* Whether fd is a regular file under the folder, written (or, for a sync, any). */
static int counted_fd(int fd, int syncing) {
  if (!fault_dir || fd < 0) return 0;
  int const saved = errno;
  struct stat status;
  int counted = 0;
  if (fstat(fd, &status) == 0 && S_ISREG(status.st_mode)) {
    int const flags = fcntl(fd, F_GETFL);
    if (syncing || (flags >= 0 && (flags & O_ACCMODE) != O_RDONLY)) {
      char link[64];
      char path[PATH_MAX];
      snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
      ssize_t const length = readlink(link, path, sizeof path - 1);
      if (length > 0) {
        path[length] = '\0';
        counted = in_fault_dir(path);
        if (counted) memcpy(counted_path, path, (size_t)length + 1);
      }
    }
  }
  errno = saved;
  return counted;
}

/* Counts a call; whether it fails. The first failure is logged. */
static int fails(char const* call) {
  ++calls;
  if (!failing_rank || fault_at <= 0) return 0;
  if (calls == fault_at) {
    char const* log = getenv("WAVE2D_FAULT_LOG");
    if (log) {
      FILE* file = fopen(log, "w");
      if (file) {
        fprintf(file, "%s %s\n", call, counted_path);
        fclose(file);
      }
    }
    if (kill_at) raise(SIGKILL);
  }
  return calls == fault_at || (persist && calls > fault_at);
}

/* The C library's own function of this name. */
#define REAL(name)                       \
  static __typeof__(&name) real = NULL; \
  if (!real) real = (__typeof__(&name))dlsym(RTLD_NEXT, #name)

ssize_t write(int fd, void const* data, size_t bytes) {
  REAL(write);
  if (counted_fd(fd, 0) && fails("write")) return errno = fault_errno, -1;
  return real(fd, data, bytes);
}

ssize_t pwrite(int fd, void const* data, size_t bytes, off_t offset) {
  REAL(pwrite);
  if (counted_fd(fd, 0) && fails("pwrite")) return errno = fault_errno, -1;
  return real(fd, data, bytes, offset);
}

ssize_t pwrite64(int fd, void const* data, size_t bytes, off64_t offset) {
  REAL(pwrite64);
  if (counted_fd(fd, 0) && fails("pwrite64")) return errno = fault_errno, -1;
  return real(fd, data, bytes, offset);
}

ssize_t writev(int fd, struct iovec const* parts, int count) {
  REAL(writev);
  if (counted_fd(fd, 0) && fails("writev")) return errno = fault_errno, -1;
  return real(fd, parts, count);
}

ssize_t pwritev(int fd, struct iovec const* parts, int count, off_t offset) {
  REAL(pwritev);
  if (counted_fd(fd, 0) && fails("pwritev")) return errno = fault_errno, -1;
  return real(fd, parts, count, offset);
}

ssize_t pwritev64(int fd, struct iovec const* parts, int count, off64_t offset) {
  REAL(pwritev64);
  if (counted_fd(fd, 0) && fails("pwritev64")) return errno = fault_errno, -1;
  return real(fd, parts, count, offset);
}

int ftruncate(int fd, off_t length) {
  REAL(ftruncate);
  if (counted_fd(fd, 0) && fails("ftruncate")) return errno = fault_errno, -1;
  return real(fd, length);
}

int ftruncate64(int fd, off64_t length) {
  REAL(ftruncate64);
  if (counted_fd(fd, 0) && fails("ftruncate64")) return errno = fault_errno, -1;
  return real(fd, length);
}

int fallocate(int fd, int mode, off_t offset, off_t length) {
  REAL(fallocate);
  if (counted_fd(fd, 0) && fails("fallocate")) return errno = fault_errno, -1;
  return real(fd, mode, offset, length);
}

int fsync(int fd) {
  REAL(fsync);
  if (counted_fd(fd, 1) && fails("fsync")) return errno = fault_errno, -1;
  return real(fd);
}

int fdatasync(int fd) {
  REAL(fdatasync);
  if (counted_fd(fd, 1) && fails("fdatasync")) return errno = fault_errno, -1;
  return real(fd);
}

/* A failed close still closes the descriptor, as Linux's does. */
int close(int fd) {
  REAL(close);
  int const fail = counted_fd(fd, 0) && fails("close");
  int const status = real(fd);
  if (fail) return errno = fault_errno, -1;
  return status;
}

/* A rename's target as an absolute path (it may not exist yet). */
static char const* absolute(char const* path, char* out, size_t size) {
  if (realpath(path, out)) return out;
  if (path[0] == '/') return path;
  char here[PATH_MAX];
  if (!getcwd(here, sizeof here)) return path;
  snprintf(out, size, "%s/%s", here, path);
  return out;
}

int rename(char const* from, char const* to) {
  REAL(rename);
  char resolved[2 * PATH_MAX];
  char const* target = absolute(to, resolved, sizeof resolved);
  if (in_fault_dir(target)) {
    snprintf(counted_path, sizeof counted_path, "%s", to);
    if (fails("rename")) return errno = fault_errno, -1;
  }
  return real(from, to);
}

int renameat(int from_dir, char const* from, int to_dir, char const* to) {
  REAL(renameat);
  char resolved[2 * PATH_MAX];
  if (to_dir == AT_FDCWD && in_fault_dir(absolute(to, resolved, sizeof resolved))) {
    snprintf(counted_path, sizeof counted_path, "%s", to);
    if (fails("renameat")) return errno = fault_errno, -1;
  }
  return real(from_dir, from, to_dir, to);
}
