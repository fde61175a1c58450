// The file driver of the HDF5 files wave2d writes: plain POSIX I/O that never fails HDF5 for
// the disk. A write, truncation or close the system refuses is recorded and reported to
// HDF5 as done, so that HDF5's state stays whole (in HDF5 1.10 a close that fails leaves a
// dangling file ID, on which the library crashes at exit); the writer asks for the recorded
// error after each step and abandons the file. Internal: wave2d_Hdf5*.cpp only.
#ifndef WAVE2D_HDF5_DRIVER_HPP
#define WAVE2D_HDF5_DRIVER_HPP

#include <hdf5.h>

namespace wave2d::detail {

// Sets the driver on a file access property list.
void use_recording_driver(hid_t access);

// The errno of this thread's last open the system refused since the last call, for a
// create HDF5 failed; 0 for none.
int take_refused_open();

// The errno of the first operation the system refused on `file` (opened with the driver),
// 0 when none.
int recorded_error(hid_t file);

// Where the driver puts the file's recorded error when HDF5 closes it, a close's own
// failure included: for the caller to read after H5Fclose.
void report_error_at_close(hid_t file, int* into);

}  // namespace wave2d::detail

#endif
