// UTF-8, as the text of the files wave2d writes needs it: XML (the XDMF sidecar) and PNG's
// iTXt chunks hold UTF-8 only. Plain C++: no Kokkos.
#ifndef WAVE2D_IO_UTF8_HPP
#define WAVE2D_IO_UTF8_HPP

#include <cstddef>
#include <optional>
#include <string_view>

namespace wave2d::detail {

struct Utf8Char {
  char32_t code = 0;
  std::size_t length = 0;  // in bytes
};

// The character that starts at text[at]; nothing where the bytes there are no UTF-8 (a
// longer form than needed, a surrogate, beyond U+10FFFF, cut short).
std::optional<Utf8Char> utf8_char_at(std::string_view text, std::size_t at);

}  // namespace wave2d::detail

#endif
