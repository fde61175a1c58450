#include <wave2d/run/wave2d_KokkosArguments.hpp>

#include <wave2d/detail/wave2d_KokkosCompat.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include <dlfcn.h>

namespace wave2d {

namespace {

#if defined(KOKKOS_ENABLE_OPENMP)
// The size of Kokkos' OpenMP thread pool: beyond it Kokkos crashes or hangs.
constexpr std::int64_t max_threads = Kokkos::Impl::OpenMPTraits::MAX_THREAD_COUNT;
#else
constexpr std::int64_t max_threads = std::numeric_limits<int>::max();
#endif

std::optional<std::int64_t> whole_number(std::string_view text) {
  std::int64_t value = 0;
  auto const [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return {};
  return value;
}

// As Kokkos reads a boolean variable: any case.
bool is_boolean(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
  for (char const* word : {"yes", "true", "1", "no", "false", "0"}) {
    if (lower == word) return true;
  }
  return false;
}

// `what` names the argument or variable in the error.
void check_thread_count(std::string const& what, std::string_view text) {
  auto const threads = whole_number(text);
  if (!threads || *threads < 1 || *threads > max_threads) {
    throw std::invalid_argument(what + ": the number of threads must be a whole number from 1 to " +
                                std::to_string(max_threads) + ", got '" + std::string(text) + "'");
  }
}

void check_device_id(std::string const& what, std::string_view text) {
  auto const id = whole_number(text);
  if (!id || *id < 0 || *id > std::numeric_limits<int>::max()) {
    throw std::invalid_argument(what +
                                ": the device id must be a non-negative whole number, got '" +
                                std::string(text) + "'");
  }
}

// Kokkos loads the first library of the ';'-separated list (which it hands to that tool),
// and goes on without it, saying so among its other output, when it does not load.
void check_tool_libraries(std::string const& what, std::string_view libraries) {
  std::string const first(libraries.substr(0, libraries.find(';')));
  if (first.empty()) return;
  void* const library = ::dlopen(first.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    char const* const reason = ::dlerror();
    throw std::invalid_argument(what + ": cannot load the tool library '" + first + "' (" +
                                (reason ? reason : "dlopen failed") + ")");
  }
  ::dlclose(library);
}

void check_argument(std::string_view argument) {
  auto const equals = argument.find('=');
  std::string_view const name = argument.substr(0, equals);
  std::string_view const value =
      equals == std::string_view::npos ? std::string_view() : argument.substr(equals + 1);
  std::string const what(argument);
  auto const flag = {"--kokkos-help", "--kokkos-disable-warnings", "--kokkos-print-configuration",
                     "--kokkos-tune-internals", "--kokkos-tools-help"};
  auto const with_text = {"--kokkos-tools-libs", "--kokkos-tools-library", "--kokkos-tools-args"};
  if (std::ranges::find(flag, name) != flag.end()) {
    if (equals != std::string_view::npos) throw std::invalid_argument(what + ": takes no value");
  } else if (name == "--kokkos-num-threads") {
    check_thread_count(what, value);
  } else if (name == "--kokkos-device-id") {
    check_device_id(what, value);
  } else if (name == "--kokkos-map-device-id-by") {
    if (value != "random" && value != "mpi_rank") {
      throw std::invalid_argument(what + ": expected random or mpi_rank");
    }
  } else if (std::ranges::find(with_text, name) != with_text.end()) {
    if (value.empty())
      throw std::invalid_argument(what + ": expected " + std::string(name) + "=VALUE");
    if (name != "--kokkos-tools-args") check_tool_libraries(what, value);
  } else if (name == "--kokkos-threads") {
    throw std::invalid_argument(what + ": Kokkos no longer takes it; use --kokkos-num-threads=N");
  } else {
    throw std::invalid_argument("unknown Kokkos argument '" + what +
                                "' (see --kokkos-help for the ones Kokkos takes)");
  }
}

// Kokkos takes the last of a setting given twice: a usage error here, as for wave2d's own
// options. The tool library has two spellings.
void check_not_repeated(std::vector<char*> const& arguments) {
  std::vector<std::pair<std::string_view, std::string_view>> settings;  // (setting, argument)
  for (std::size_t i = 1; i < arguments.size(); ++i) {
    std::string_view const argument = arguments[i];
    auto const equals = argument.find('=');
    if (equals == std::string_view::npos) continue;
    std::string_view setting = argument.substr(0, equals);
    if (setting == "--kokkos-tools-library") setting = "--kokkos-tools-libs";
    auto const earlier =
        std::ranges::find(settings, setting, &decltype(settings)::value_type::first);
    if (earlier != settings.end()) {
      throw std::invalid_argument(std::string(argument) + ": given after " +
                                  std::string(earlier->second) + "; give it once");
    }
    settings.emplace_back(setting, argument);
  }
}

}  // namespace

void check_kokkos_arguments(std::vector<char*> const& arguments) {
  for (std::size_t i = 1; i < arguments.size(); ++i) check_argument(arguments[i]);
  check_not_repeated(arguments);
  // Kokkos aborts on a variable it cannot read, an empty one included.
  if (char const* threads = std::getenv("KOKKOS_NUM_THREADS")) {
    check_thread_count("KOKKOS_NUM_THREADS=" + std::string(threads), threads);
  }
  if (char const* id = std::getenv("KOKKOS_DEVICE_ID")) {
    check_device_id("KOKKOS_DEVICE_ID=" + std::string(id), id);
  }
  for (char const* variable :
       {"KOKKOS_DISABLE_WARNINGS", "KOKKOS_PRINT_CONFIGURATION", "KOKKOS_TUNE_INTERNALS"}) {
    if (char const* value = std::getenv(variable); value && !is_boolean(value)) {
      throw std::invalid_argument(std::string(variable) + "=" + value +
                                  ": expected yes, true, 1, no, false or 0");
    }
  }
  if (char const* by = std::getenv("KOKKOS_MAP_DEVICE_ID_BY");
      by && std::string_view(by) != "random" && std::string_view(by) != "mpi_rank") {
    throw std::invalid_argument("KOKKOS_MAP_DEVICE_ID_BY=" + std::string(by) +
                                ": expected random or mpi_rank");
  }
  for (char const* variable : {"KOKKOS_TOOLS_LIBS", "KOKKOS_PROFILE_LIBRARY"}) {
    if (char const* libraries = std::getenv(variable); libraries && *libraries) {
      check_tool_libraries(std::string(variable) + "=" + libraries, libraries);
    }
  }
#if defined(KOKKOS_ENABLE_OPENMP)
  // Kokkos takes the first number of the list (one per level of nesting); libgomp
  // itself warns about, and ignores, a list that is not numbers.
  if (char const* omp = std::getenv("OMP_NUM_THREADS"); omp && *omp) {
    std::string_view const first = std::string_view(omp).substr(0, std::string_view(omp).find(','));
    if (auto const threads = whole_number(first); threads && *threads > max_threads) {
      check_thread_count("OMP_NUM_THREADS=" + std::string(omp), first);
    }
  }
#endif
}

bool asks_for_kokkos_help(std::vector<char*> const& arguments) {
  return std::ranges::any_of(arguments, [](char const* argument) {
    return std::string_view(argument) == "--kokkos-help";
  });
}

}  // namespace wave2d
