#include <wave2d/wave2d_Config.hpp>

#if defined(WAVE2D_HAVE_HDF5)
#include <wave2d/io/detail/wave2d_Hdf5Driver.hpp>

#include <H5FDpublic.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <new>
#include <stdexcept>
#include <utility>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace wave2d::detail {

namespace {

// HDF5's public part first, as every driver's file is.
struct RecordingFile {
  H5FD_t pub;
  int fd = -1;
  haddr_t eoa = 0;
  haddr_t eof = 0;
  dev_t device = 0;
  ino_t inode = 0;
  int error = 0;          // the first refusal's errno
  int* report = nullptr;  // where close() puts it
};

thread_local int last_refused_open = 0;

RecordingFile* of(H5FD_t* file) { return reinterpret_cast<RecordingFile*>(file); }
RecordingFile const* of(H5FD_t const* file) { return reinterpret_cast<RecordingFile const*>(file); }

void record(RecordingFile* file, int error) {
  if (file->error == 0) file->error = error != 0 ? error : EIO;
}

H5FD_t* open_file(char const* name, unsigned flags, hid_t, haddr_t) {
  int mode = (flags & H5F_ACC_RDWR) ? O_RDWR : O_RDONLY;
  if (flags & H5F_ACC_TRUNC) mode |= O_TRUNC;
  if (flags & H5F_ACC_CREAT) mode |= O_CREAT;
  if (flags & H5F_ACC_EXCL) mode |= O_EXCL;
  int const fd = ::open(name, mode | O_CLOEXEC, 0666);
  if (fd < 0) {  // HDF5 fails the create: no file to leave behind
    last_refused_open = errno;
    return nullptr;
  }
  struct stat status {};
  auto* file = new (std::nothrow) RecordingFile{};
  if (file == nullptr || ::fstat(fd, &status) != 0) {
    delete file;
    ::close(fd);
    return nullptr;
  }
  file->fd = fd;
  file->eof = haddr_t(status.st_size);
  file->device = status.st_dev;
  file->inode = status.st_ino;
  return &file->pub;
}

herr_t close_file(H5FD_t* h5) {
  RecordingFile* file = of(h5);
  if (::close(file->fd) != 0) record(file, errno);
  if (file->report) *file->report = file->error;
  delete file;
  return 0;
}

int compare(H5FD_t const* a, H5FD_t const* b) {
  RecordingFile const* x = of(a);
  RecordingFile const* y = of(b);
  if (x->device != y->device) return x->device < y->device ? -1 : 1;
  if (x->inode != y->inode) return x->inode < y->inode ? -1 : 1;
  return 0;
}

herr_t query(H5FD_t const*, unsigned long* flags) {
  if (flags) {
    *flags = H5FD_FEAT_AGGREGATE_METADATA | H5FD_FEAT_ACCUMULATE_METADATA | H5FD_FEAT_DATA_SIEVE |
             H5FD_FEAT_AGGREGATE_SMALLDATA | H5FD_FEAT_POSIX_COMPAT_HANDLE |
             H5FD_FEAT_DEFAULT_VFD_COMPATIBLE;
  }
  return 0;
}

haddr_t get_eoa(H5FD_t const* file, H5FD_mem_t) { return of(file)->eoa; }
herr_t set_eoa(H5FD_t* file, H5FD_mem_t, haddr_t address) {
  of(file)->eoa = address;
  return 0;
}
haddr_t get_eof(H5FD_t const* file, H5FD_mem_t) { return of(file)->eof; }

herr_t get_handle(H5FD_t* file, hid_t, void** handle) {
  *handle = &of(file)->fd;
  return 0;
}

// Reads past the end of the file give zeros, as HDF5 expects of a driver.
herr_t read(H5FD_t* h5, H5FD_mem_t, hid_t, haddr_t address, std::size_t size, void* buffer) {
  RecordingFile* file = of(h5);
  auto* at = static_cast<char*>(buffer);
  while (size > 0) {
    ssize_t const got = ::pread(file->fd, at, size, off_t(address));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return -1;
    if (got == 0) {
      std::memset(at, 0, size);
      break;
    }
    at += got;
    address += haddr_t(got);
    size -= std::size_t(got);
  }
  return 0;
}

herr_t write(H5FD_t* h5, H5FD_mem_t, hid_t, haddr_t address, std::size_t size, void const* buffer) {
  RecordingFile* file = of(h5);
  haddr_t const end = address + size;
  auto const* at = static_cast<char const*>(buffer);
  while (size > 0 && file->error == 0) {
    ssize_t const put = ::pwrite(file->fd, at, size, off_t(address));
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) {
      record(file, errno);
      break;
    }
    at += put;
    address += haddr_t(put);
    size -= std::size_t(put);
  }
  if (end > file->eof) file->eof = end;
  return 0;
}

herr_t truncate(H5FD_t* h5, hid_t, hbool_t) {
  RecordingFile* file = of(h5);
  if (file->eoa != file->eof) {
    if (file->error == 0 && ::ftruncate(file->fd, off_t(file->eoa)) != 0) record(file, errno);
    file->eof = file->eoa;
  }
  return 0;
}

H5FD_class_t make_class() {
  H5FD_class_t driver{};
  driver.name = "wave2d";
  driver.maxaddr = haddr_t((std::uint64_t(1) << 63) - 1);
  driver.fc_degree = H5F_CLOSE_WEAK;
  driver.open = open_file;
  driver.close = close_file;
  driver.cmp = compare;
  driver.query = query;
  driver.get_eoa = get_eoa;
  driver.set_eoa = set_eoa;
  driver.get_eof = get_eof;
  driver.get_handle = get_handle;
  driver.read = read;
  driver.write = write;
  driver.truncate = truncate;
  H5FD_mem_t const map[] = H5FD_FLMAP_DICHOTOMY;  // as HDF5's own POSIX driver
  std::copy(std::begin(map), std::end(map), std::begin(driver.fl_map));
  return driver;
}

hid_t driver_id() {
  static H5FD_class_t const driver = make_class();
  static hid_t id = H5I_INVALID_HID;
  // HDF5 forgets its drivers when it is closed and opened again (H5close).
  if (id < 0 || H5Iis_valid(id) <= 0) id = H5FDregister(&driver);
  if (id < 0) throw std::runtime_error("cannot register wave2d's HDF5 file driver");
  return id;
}

RecordingFile* file_of(hid_t file) {
  void* handle = nullptr;
  if (H5Fget_vfd_handle(file, H5P_FILE_ACCESS_DEFAULT, &handle) < 0 || handle == nullptr) {
    throw std::runtime_error("a file not opened with wave2d's HDF5 file driver");
  }
  return reinterpret_cast<RecordingFile*>(static_cast<char*>(handle) - offsetof(RecordingFile, fd));
}

}  // namespace

void use_recording_driver(hid_t access) {
  if (H5Pset_driver(access, driver_id(), nullptr) < 0) {
    throw std::runtime_error("cannot use wave2d's HDF5 file driver");
  }
}

int recorded_error(hid_t file) { return file_of(file)->error; }

int take_refused_open() { return std::exchange(last_refused_open, 0); }

void report_error_at_close(hid_t file, int* into) { file_of(file)->report = into; }

}  // namespace wave2d::detail

#endif
