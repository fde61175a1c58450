#include <wave2d/io/detail/wave2d_Utf8.hpp>

#include <cstdint>

namespace wave2d::detail {

std::optional<Utf8Char> utf8_char_at(std::string_view text, std::size_t at) {
  auto const byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char const lead = byte(at);
  std::size_t const length = lead < 0x80                   ? 1
                             : lead >= 0xc2 && lead < 0xe0 ? 2
                             : lead >= 0xe0 && lead < 0xf0 ? 3
                             : lead >= 0xf0 && lead < 0xf5 ? 4
                                                           : 0;
  if (length == 0 || at + length > text.size()) return std::nullopt;
  std::uint32_t code = length == 1 ? lead : lead & (0x7fu >> length);
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(at + k) & 0xc0) != 0x80) return std::nullopt;
    code = code << 6 | (byte(at + k) & 0x3fu);
  }
  constexpr std::uint32_t shortest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (code < shortest[length] || code > 0x10ffff || (code >= 0xd800 && code < 0xe000)) {
    return std::nullopt;
  }
  return Utf8Char{char32_t(code), length};
}

}  // namespace wave2d::detail
