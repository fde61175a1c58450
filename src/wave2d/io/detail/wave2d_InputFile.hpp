// Reading the files a scene is made of with bounds: regular files only, of a size that
// fits, so that a device, a FIFO or a huge file cannot make the reader hang or exhaust
// memory. Plain C++: no Kokkos.
#ifndef WAVE2D_IO_INPUT_FILE_HPP
#define WAVE2D_IO_INPUT_FILE_HPP

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace wave2d::detail {

// Throws SceneError("<path>: <what> needs ... of memory, more than the ... available")
// when `bytes` cannot be allocated on the host.
void check_host_memory(std::filesystem::path const& path, std::string_view what, double bytes);

// The whole file, which must be a regular file of at most `max_bytes`; `kind` names it in
// errors ("scene file"). Throws SceneError naming the path and the problem.
std::string read_input_file(std::filesystem::path const& path, std::string_view kind,
                            std::uint64_t max_bytes);

}  // namespace wave2d::detail

#endif
