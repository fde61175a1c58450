// Wall masks from images: PGM always, PNG when built with libpng.
#ifndef WAVE2D_MASK_IMAGE_HPP
#define WAVE2D_MASK_IMAGE_HPP
#endif
