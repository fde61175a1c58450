// Wall masks from images: PGM always, PNG when built with libpng.
#ifndef WAVE2D_MASK_IMAGE_HPP
#define WAVE2D_MASK_IMAGE_HPP

#include <cstdint>
#include <filesystem>
#include <vector>

namespace wave2d {

// The dark pixels of an image, the cells a scene makes walls (or a medium region).
struct MaskImage {
  std::int32_t width = 0;
  std::int32_t height = 0;
  std::vector<std::uint8_t> dark;  // width * height, row-major, row 0 (the top) first; 1 = dark
};

struct MaskSize {
  std::int32_t width = 0;
  std::int32_t height = 0;
};

// Reads a binary or plain PGM (P5, P2; maxval up to 65535) or a PNG, recognized by its
// first bytes. A pixel is dark below half the maximum gray; a PNG is converted to gray
// and its fully transparent pixels count as light. Throws SceneError naming the file
// and the problem, also for a PNG in a build without libpng. The file must be a regular
// file, and the image must fit in the host's available memory before it is decoded.
MaskImage read_mask_image(std::filesystem::path const& path);

// The size an image's header gives, without decoding its pixels: to check it against
// the grid and the memory first.
MaskSize read_mask_size(std::filesystem::path const& path);

}  // namespace wave2d

#endif
