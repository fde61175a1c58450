// Writing results: NumPy arrays and images, each written to a temporary name and
// renamed into place, so that a failed run leaves no half-written file.
#ifndef WAVE2D_OUTPUT_HPP
#define WAVE2D_OUTPUT_HPP
#endif
