#include <wave2d/plan/wave2d_PlanCache.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <span>
#include <system_error>

#include <unistd.h>

namespace wave2d {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view header = "wave2d plan 1";

// FNV-1a: the entry's file name, from the key's text.
std::string file_name(PlanKey const& key) {
  std::uint64_t hash = 14695981039346656037ull;
  for (unsigned char const c : key.text()) {
    hash = (hash ^ c) * 1099511628211ull;
  }
  char digits[17] = {};
  auto const [end, error] = std::to_chars(digits, digits + 16, hash, 16);
  (void)error;
  return std::string(digits, end) + ".plan";
}

// A space has a handful of backends: an entry rating more was not written by wave2d.
constexpr std::size_t max_cached_rates = 32;

bool is_backend_name(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (char const c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_')) return false;
  }
  return true;
}

// `text`'s parts between `separator`s, empty ones included.
std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    std::size_t const end = text.find(separator, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

// A rate as the writer writes it: the whole field a finite number above 0.
bool parse_rate(std::string_view field, double& gcells_per_second) {
  char const* const end = field.data() + field.size();
  auto const [last, error] = std::from_chars(field.data(), end, gcells_per_second);
  return error == std::errc() && last == end && std::isfinite(gcells_per_second) &&
         gcells_per_second > 0.0;
}

}  // namespace

std::optional<PlanMode> parse_plan_mode(std::string_view text) {
  if (text == "cached") return PlanMode::cached;
  if (text == "measure") return PlanMode::measure;
  if (text == "estimate") return PlanMode::estimate;
  return std::nullopt;
}

std::string_view plan_mode_name(PlanMode mode) {
  switch (mode) {
    case PlanMode::measure: return "measure";
    case PlanMode::estimate: return "estimate";
    case PlanMode::cached: break;
  }
  return "cached";
}

std::string PlanKey::text() const {
  return "device=" + device + "; space=" + space + "; threads=" + std::to_string(threads) +
         "; grid=" + std::to_string(nx) + "x" + std::to_string(ny) +
         (max_fused_steps > 0 ? "; halo=" + std::to_string(max_fused_steps) : "") +
         "; wave2d=" + version;
}

fs::path default_plan_cache_directory() {
  if (char const* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && xdg[0] == '/') {
    return fs::path(xdg) / "wave2d" / "plans";
  }
  if (char const* home = std::getenv("HOME"); home != nullptr && home[0] != '\0') {
    return fs::path(home) / ".cache" / "wave2d" / "plans";
  }
  return {};
}

fs::path plan_cache_file(fs::path const& directory, PlanKey const& key) {
  return directory / file_name(key);
}

std::optional<CachedPlan> read_cached_plan(fs::path const& directory, PlanKey const& key,
                                           std::vector<std::string>& notes) {
  if (directory.empty()) return std::nullopt;
  fs::path const path = directory / file_name(key);
  std::error_code error;
  if (!fs::exists(path, error)) return std::nullopt;
  auto const ignored = [&](std::string const& why) {
    notes.push_back("ignored the plan cache entry " + path.string() + ": " + why);
    return std::nullopt;
  };
  if (!fs::is_regular_file(path, error)) return ignored("not a regular file");
  if (auto const size = fs::file_size(path, error); error || size > 64 * 1024) {
    return ignored(error ? error.message() : "larger than an entry can be");
  }
  std::ifstream in(path);
  if (!in) return ignored(std::strerror(errno));
  std::string const text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) return ignored(std::strerror(errno));
  // As written: every line ended, one space between fields.
  std::string_view body = text;
  bool const ended = body.ends_with('\n');
  if (ended) body.remove_suffix(1);
  auto const lines = split(body, '\n');
  if (lines[0] != header) return ignored("not a wave2d plan");
  if (!ended) return ignored("cut off: its last line is not ended");
  if (lines.size() < 2 || lines[1] != "key " + key.text()) {
    return ignored("made for another device, grid or version");
  }
  auto const backend = lines.size() < 3 ? std::vector<std::string_view>() : split(lines[2], ' ');
  if (backend.empty() || backend[0] != "backend") return ignored("no backend line after its key");
  if (backend.size() != 2 || !is_backend_name(backend[1])) {
    return ignored("a malformed backend line");
  }
  CachedPlan plan;
  plan.backend = backend[1];
  for (std::string_view const line : std::span(lines).subspan(3)) {
    auto const fields = split(line, ' ');
    if (fields[0] == "backend") return ignored("two backend lines");
    if (fields[0] != "rate") return ignored("an unknown line");
    BackendRate rate;
    if (fields.size() != 3 || !is_backend_name(fields[1]) ||
        !parse_rate(fields[2], rate.gcells_per_second)) {
      return ignored("a malformed rate line");
    }
    rate.backend = fields[1];
    if (plan.ranking.size() == max_cached_rates) {
      return ignored("more rates than a space has backends");
    }
    if (std::ranges::any_of(plan.ranking,
                            [&](BackendRate const& r) { return r.backend == rate.backend; })) {
      return ignored("a backend rated twice");
    }
    plan.ranking.push_back(rate);
  }
  // The writer rates every candidate of the trial, its backend among them.
  if (std::ranges::none_of(plan.ranking,
                           [&](BackendRate const& r) { return r.backend == plan.backend; })) {
    return ignored(plan.ranking.empty() ? "no rates" : "no rate for its backend");
  }
  return plan;
}

std::optional<std::string> write_cached_plan(fs::path const& directory, PlanKey const& key,
                                             CachedPlan const& plan) {
  if (directory.empty()) return "no cache folder (neither XDG_CACHE_HOME nor HOME)";
  std::error_code error;
  fs::create_directories(directory, error);
  if (error) return "cannot make " + directory.string() + ": " + error.message();
  fs::path const path = directory / file_name(key);
  fs::path const temporary = path.string() + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::trunc);
    if (!out) return "cannot write in " + directory.string() + ": " + std::strerror(errno);
    errno = 0;
    out << header << "\nkey " << key.text() << "\nbackend " << plan.backend << "\n";
    for (auto const& rate : plan.ranking) {
      out << "rate " << rate.backend << " " << rate.gcells_per_second << "\n";
    }
    out.close();
    if (!out) {
      int const reason = errno;  // before the removal's own calls
      fs::remove(temporary, error);
      return "cannot write " + path.string() + ": " +
             (reason != 0 ? std::strerror(reason) : "an I/O error");
    }
  }
  fs::rename(temporary, path, error);
  if (error) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    return "cannot replace " + path.string() + ": " + error.message();
  }
  return std::nullopt;
}

bool write_cached_plan(fs::path const& directory, PlanKey const& key, CachedPlan const& plan,
                       std::vector<std::string>& notes) {
  auto const not_kept = write_cached_plan(directory, key, plan);
  if (not_kept) notes.push_back("the plan is not kept: " + *not_kept);
  return !not_kept;
}

std::string host_cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto const colon = line.find(':');
      if (colon != std::string::npos) {
        auto const start = line.find_first_not_of(" \t", colon + 1);
        if (start != std::string::npos) return line.substr(start);
      }
    }
  }
  return "unknown CPU";
}

}  // namespace wave2d
