#include <wave2d/io/wave2d_SceneFile.hpp>

#include <wave2d/wave2d_Config.hpp>

#if defined(WAVE2D_HAVE_SCENE_FILES)

#include <wave2d/io/detail/wave2d_InputFile.hpp>
#include <wave2d/io/wave2d_MaskImage.hpp>
#include <wave2d/scene/wave2d_BuiltinScenes.hpp>

// toml++ 3.3 asserts on some malformed keys ("[#", found by tests/fuzz) that it then
// reports as parse errors: its assertions stay off in every build type, as in release.
#define TOML_ASSERT(expr) static_cast<void>(0)
#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace wave2d {

namespace {

// "<file>:<line>: <key path>: <problem>", without the parts that are unknown.
std::string located(std::filesystem::path const& file, std::uint32_t line,
                    std::string_view key_path, std::string_view problem) {
  std::string message = file.string();
  if (line > 0) message += ":" + std::to_string(line);
  message += ": ";
  if (!key_path.empty()) message.append(key_path).append(": ");
  message.append(problem);
  return message;
}

[[noreturn]] void fail_at(std::filesystem::path const& file, std::uint32_t line,
                          std::string_view key_path, std::string_view problem) {
  throw SceneError(located(file, line, key_path, problem));
}

std::string type_name(toml::node const& node) {
  switch (node.type()) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a floating-point number";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    case toml::node_type::none: break;
  }
  return "nothing";
}

// A table of the file with its key path ("sources[1]"): typed reads of its keys, each
// error naming the file, the line and the key.
class Table {
 public:
  // `where` locates errors about the table itself, such as a missing key: the table's
  // node, or null for the root and for tables the file does not have.
  Table(std::filesystem::path const& file, toml::table const& table, toml::node const* where,
        std::string path)
      : file_(&file), table_(&table), where_(where), path_(std::move(path)) {}

  std::string key_path(std::string_view key) const {
    return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  }

  bool has(std::string_view key) const { return table_->contains(key); }

  // A misspelled key must not go unnoticed: anything not in `known` is refused.
  void allow_only(std::initializer_list<std::string_view> known) const {
    for (auto const& [key, node] : *table_) {
      if (std::find(known.begin(), known.end(), key.str()) != known.end()) continue;
      std::string list;
      for (auto name : known) list.append(list.empty() ? "" : ", ").append(name);
      fail_at(*file_, node.source().begin.line, key_path(key.str()),
              "unknown key (expected one of: " + list + ")");
    }
  }

  // T is std::int64_t, float (from an integer or a floating-point value), std::string,
  // Table or std::vector<Table> (an array of tables).
  template <class T>
  std::optional<T> get(std::string_view key) const {
    toml::node const* node = table_->get(key);
    if (node == nullptr) return std::nullopt;
    if constexpr (std::is_same_v<T, std::int64_t>) {
      if (!node->is_integer()) wrong_type(key, "an integer");
      return node->as_integer()->get();
    } else if constexpr (std::is_same_v<T, float>) {
      if (!node->is_number()) wrong_type(key, "a number");
      double const value =
          node->is_integer() ? double(node->as_integer()->get()) : node->as_floating_point()->get();
      if (!std::isfinite(value)) fail(key, "must be finite");
      if (!std::isfinite(float(value))) fail(key, "is beyond single precision");
      if (value != 0.0 && float(value) == 0.0f) {
        fail(key, "underflows single precision to 0 (smallest magnitude 1.4e-45)");
      }
      return float(value);
    } else if constexpr (std::is_same_v<T, std::string>) {
      if (!node->is_string()) wrong_type(key, "a string");
      std::string const& text = node->as_string()->get();
      // TOML allows \u0000; names and paths end at it.
      if (text.find('\0') != std::string::npos) fail(key, "holds a NUL character (\\u0000)");
      return text;
    } else if constexpr (std::is_same_v<T, Table>) {
      if (!node->is_table()) wrong_type(key, "a table");
      return Table(*file_, *node->as_table(), node, key_path(key));
    } else {
      static_assert(std::is_same_v<T, std::vector<Table>>);
      if (!node->is_array()) wrong_type(key, "an array of tables");
      std::vector<Table> tables;
      for (auto const& element : *node->as_array()) {
        std::string element_path = key_path(key) + "[" + std::to_string(tables.size()) + "]";
        if (!element.is_table()) {
          fail_at(*file_, element.source().begin.line, element_path,
                  "expected a table, got " + type_name(element));
        }
        tables.emplace_back(*file_, *element.as_table(), &element, std::move(element_path));
      }
      return tables;
    }
  }

  template <class T>
  T get_or(std::string_view key, T fallback) const {
    return get<T>(key).value_or(std::move(fallback));
  }

  template <class T>
  T require(std::string_view key) const {
    auto value = get<T>(key);
    if (!value) missing(key);
    return *std::move(value);
  }

  // The table `key`, empty where the file has none, so that its defaults apply.
  Table section(std::string_view key) const {
    if (has(key)) return require<Table>(key);
    static toml::table const empty;
    return Table(*file_, empty, nullptr, key_path(key));
  }

  // The line of `key`, else of the table itself; 0 when unknown.
  std::uint32_t line(std::string_view key) const {
    toml::node const* node = table_->get(key);
    return line_of(node != nullptr ? node : where_);
  }

  [[noreturn]] void fail(std::string_view key, std::string_view problem) const {
    fail_at(*file_, line(key), key_path(key), problem);
  }

  // The problem as fail() says it, for an error of another kind; with none, the prefix.
  std::string located_at(std::string_view key, std::string_view problem) const {
    return located(*file_, line(key), key_path(key), problem);
  }

  [[noreturn]] void fail_here(std::string_view problem) const {
    fail_at(*file_, line_of(where_), path_, problem);
  }

  [[noreturn]] void missing(std::string_view key, std::string_view hint = {}) const {
    fail_at(*file_, line_of(where_), key_path(key),
            hint.empty() ? "missing" : "missing (" + std::string(hint) + ")");
  }

 private:
  static std::uint32_t line_of(toml::node const* node) {
    return node != nullptr ? node->source().begin.line : 0;
  }

  [[noreturn]] void wrong_type(std::string_view key, std::string_view expected) const {
    fail(key, "expected " + std::string(expected) + ", got " + type_name(*table_->get(key)));
  }

  std::filesystem::path const* file_;
  toml::table const* table_;
  toml::node const* where_;
  std::string path_;
};

// A cell coordinate along an axis of n cells.
std::int32_t cell_coordinate(Table const& table, std::string_view key, std::int32_t n) {
  auto const value = table.require<std::int64_t>(key);
  if (value < 0 || value >= n) {
    table.fail(key,
               std::to_string(value) + " lies outside the grid (0.." + std::to_string(n - 1) + ")");
  }
  return std::int32_t(value);
}

std::int32_t grid_extent(Table const& grid, std::string_view key) {
  auto const value = grid.require<std::int64_t>(key);
  if (value <= 0) grid.fail(key, "must be positive, got " + std::to_string(value));
  if (value > std::numeric_limits<std::int32_t>::max()) {
    grid.fail(key, "must be at most 2147483647, got " + std::to_string(value));
  }
  return std::int32_t(value);
}

// As written in a file: "0.7", not std::to_string's "0.700000".
std::string number_text(double value) {
  std::ostringstream text;
  text << value;
  return text.str();
}

float positive(Table const& table, std::string_view key, float value) {
  if (!(value > 0.0f)) table.fail(key, "must be positive, got " + number_text(value));
  return value;
}

std::string cell_name(std::int32_t x, std::int32_t y) {
  return "(" + std::to_string(x) + ", " + std::to_string(y) + ")";
}

// " (U+00A0)" for the UTF-8 sequence that starts `text`, so that a no-break space or a
// curly quote pasted from elsewhere can be told from what it looks like; empty when the
// bytes are not UTF-8.
std::string code_point_text(std::string_view text) {
  auto const byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  std::size_t const length = byte(0) >= 0xF0 ? 4 : byte(0) >= 0xE0 ? 3 : byte(0) >= 0xC0 ? 2 : 0;
  if (length == 0 || text.size() < length) return {};
  std::uint32_t code = byte(0) & (0x7Fu >> length);
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xC0u) != 0x80u) return {};
    code = code << 6 | (byte(i) & 0x3Fu);
  }
  char hex[16];
  std::snprintf(hex, sizeof hex, "%04X", unsigned(code));
  return " (U+" + std::string(hex) + ")";
}

// Bounds the parser's work before it starts (see max_scene_file_nesting): a scan that
// knows TOML's comments and strings, and counts the brackets, braces and dotted parts
// outside them.
void check_toml_bounds(std::filesystem::path const& path, std::string_view text) {
  std::uint32_t line = 1;
  int depth = 0;
  int key_parts = 1;
  std::size_t key_length = 0;
  auto const end_key = [&] {
    key_parts = 1;
    key_length = 0;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    char const c = text[i];
    if (c == '\n') ++line;
    if (c == '#') {
      i = std::min(text.find('\n', i), text.size()) - 1;
      end_key();
    } else if (c == '"' || c == '\'') {
      // A string, maybe a quoted part of a key: skip it, escapes and all.
      bool const multiline = text.substr(i, 3) == std::string(3, c);
      std::string_view const close = multiline ? text.substr(i, 3) : text.substr(i, 1);
      std::size_t j = i + close.size();
      while (j < text.size() && text.substr(j, close.size()) != close) {
        if (text[j] == '\n') ++line;
        j += (c == '"' && text[j] == '\\') ? 2 : 1;
      }
      key_length += j - i;
      i = std::min(j + close.size(), text.size()) - 1;
    } else if (c == '.') {
      if (++key_parts > max_scene_file_key_parts) {
        fail_at(path, line, {},
                "a dotted key of more than " + std::to_string(max_scene_file_key_parts) + " parts");
      }
      ++key_length;
    } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-') {
      ++key_length;
    } else if (c == ' ' || c == '\t') {
    } else if (static_cast<unsigned char>(c) >= 0x80) {
      // TOML has none there, and toml++ 3.3 reaches undefined behaviour on some (tests/fuzz).
      fail_at(path, line, {},
              "a character that is not ASCII" + code_point_text(text.substr(i)) +
                  " outside a string or a comment");
    } else {
      if (c == '=' && key_length > max_scene_file_key_length) {
        fail_at(path, line, {},
                "a key longer than " + std::to_string(max_scene_file_key_length) + " characters");
      }
      end_key();
      if (c == '[' || c == '{') {
        if (++depth > max_scene_file_nesting) {
          fail_at(path, line, {},
                  "brackets and braces nested more than " + std::to_string(max_scene_file_nesting) +
                      " deep");
        }
      } else if ((c == ']' || c == '}') && depth > 0) {
        --depth;
      }
    }
  }
}

// A key of a table of the file, maybe one the file does not give.
struct Key {
  Table table;
  std::string_view name;
};

class SceneFileReader {
 public:
  SceneFileReader(std::filesystem::path const& path, SceneFileOptions const& options)
      : path_(path), directory_(path.parent_path()), options_(options) {}

  // The mask images read, in the order first read.
  std::vector<std::filesystem::path> const& masks_read() const { return masks_read_; }

  // Where the file sets what c·dt/dx comes from (SceneFile::time_step_key).
  SceneFileKey const& time_step_key() const { return time_step_key_; }

  Scene read(Table const& root) {
    root_ = &root;
    root.allow_only(
        {"name", "base", "grid", "time", "medium", "damping", "walls", "sources", "receivers"});
    // The tables' keys before any value: a key written under a header belongs to that
    // table (TOML), and is named there, not as a key the file then lacks.
    root.section("grid").allow_only({"nx", "ny", "dx"});
    root.section("time").allow_only({"dt", "steps", "t_end", "t0"});
    root.section("medium").allow_only({"c", "region"});
    root.section("damping").allow_only({"width", "strength"});
    Scene scene;
    auto const base = root.get<std::string>("base");
    if (base) {
      try {
        scene = builtin_scene(*base);
      } catch (SceneError const& e) {
        root.fail("base", e.what());
      }
    }
    scene.name = root.get_or<std::string>("name", path_.stem().string());
    // It names the outputs, whose names and temporaries must fit a file name's 255 bytes.
    constexpr std::size_t max_name = 128;
    if (root.get<std::string>("name") && scene.name.size() > max_name) {
      root.fail("name",
                "is longer than " + std::to_string(max_name) + " bytes (it names the outputs)");
    }
    read_grid(root, base.has_value(), scene);
    read_medium(root.section("medium"), scene);
    read_damping(root.section("damping"), scene);
    read_walls(root, scene);
    read_sources(root, scene);
    if (!root.has("sources")) check_base_sources(root, scene);
    read_receivers(root, scene);
    read_time(root.section("time"), base.has_value(), scene);
    std::int64_t const file_steps = scene.steps;
    if (options_.steps) scene.steps = *options_.steps;
    check_together(scene);
    scene.steps = file_steps;
    return scene;
  }

 private:
  // validate()'s checks of what several values give together, each problem named at a
  // key that gave one of them. The stability bound is the caller's to check (it may
  // allow an unstable step): its key is kept for validate(SceneFile).
  void check_together(Scene const& scene) {
    at(time_axis_key(scene), [&] { validate_time_axis(scene); });
    auto const [c_min, c_max] =
        scene.speed.empty() ? std::pair{scene.c, scene.c}
                            : std::pair{*std::min_element(scene.speed.begin(), scene.speed.end()),
                                        *std::max_element(scene.speed.begin(), scene.speed.end())};
    // Past the checks of each value, κ fails by being too large for the fastest wave or
    // too small for the slowest.
    double const courant = courant_number(scene);
    at(kappa_key(std::isfinite(float(courant * courant)) ? c_min : c_max),
       [&] { validate_kappa(scene, {.allow_unstable = true}); });
    Key const kappa = kappa_key(c_max);
    if (!kappa.name.empty()) {
      time_step_key_ = {kappa.table.key_path(kappa.name), kappa.table.line(kappa.name)};
    }
    auto const entries = root_->get_or<std::vector<Table>>("sources", {});
    for (std::size_t i = 0; i < scene.sources.size(); ++i) {
      at(i < entries.size() ? waveform_key(entries[i], scene) : time_axis_key(scene),
         [&] { validate_source_values(scene, i); });
    }
  }

  template <class Check>
  static void at(Key const& key, Check check) {
    try {
      check();
    } catch (SceneError const& e) {
      key.table.fail(key.name, e.what());
    }
  }

  // The first of `keys` the file gives; else `base`, whose scene gave the values; else
  // none (the file as a whole).
  Key given(std::vector<Key> const& keys) const {
    for (auto const& key : keys) {
      if (key.table.has(key.name)) return key;
    }
    return {*root_, root_->has("base") ? "base" : ""};
  }

  // grid.dx, then medium.c and each region's c equal to `c`.
  std::vector<Key> dx_and_speed_keys(float c) const {
    std::vector<Key> keys = {{root_->section("grid"), "dx"}};
    Table const medium = root_->section("medium");
    if (medium.has("c") && medium.require<float>("c") == c) keys.push_back({medium, "c"});
    for (auto const& region : medium.get_or<std::vector<Table>>("region", {})) {
      if (region.require<float>("c") == c) keys.push_back({region, "c"});
    }
    return keys;
  }

  // κ of wave speed c: time.dt, grid.dx, then the keys that gave c.
  Key kappa_key(float c) const {
    std::vector<Key> keys = {{root_->section("time"), "dt"}};
    for (auto const& key : dx_and_speed_keys(c)) keys.push_back(key);
    return given(keys);
  }

  // t0 when it is what makes t large, else what makes the run long.
  Key time_axis_key(Scene const& scene) const {
    Table const time = root_->section("time");
    double const span = double(std::max<std::int64_t>(scene.steps, 1)) * scene.dt;
    if (std::fabs(scene.t0) >= span) {
      return given({{time, "t0"}, {time, "t_end"}, {time, "steps"}, {time, "dt"}});
    }
    return given({{time, "t_end"}, {time, "steps"}, {time, "dt"}, {time, "t0"}});
  }

  // The amplitude when it is too large; else a ricker's delay when it lies farther from 0
  // than the run's times; else the frequency.
  static Key waveform_key(Table const& entry, Scene const& scene) {
    if (std::fabs(entry.get_or<float>("amplitude", 1.0f)) > max_source_amplitude) {
      return {entry, "amplitude"};
    }
    double const t_max = std::max(std::fabs(double(scene.t0)),
                                  std::fabs(double(time_of_step(scene.t0, scene.dt, scene.steps))));
    bool const delay = std::fabs(entry.get_or<float>("delay", 0.0f)) > t_max;
    return {entry, delay ? "delay" : "frequency"};
  }

  void read_grid(Table const& root, bool has_base, Scene& scene) {
    Table const grid = root.section("grid");
    // Where the size comes from ("file:line: key: "), for a grid too large for memory.
    std::string sized_at;
    if (has_base) {
      for (auto key : {"nx", "ny"}) {
        if (grid.has(key)) grid.fail(key, "a scene with a base keeps the base's grid size");
      }
    } else if (grid.has("nx") || grid.has("ny")) {
      scene.nx = grid_extent(grid, "nx");
      scene.ny = grid_extent(grid, "ny");
      sized_at = grid.located_at("nx", "");
    } else if (auto const sized = first_mask_size(root)) {
      scene.nx = sized->first.width;
      scene.ny = sized->first.height;
      sized_at = sized->second.located_at("mask", mask_path(sized->second).string() + ": ");
    } else {
      grid.missing("nx", "give grid.nx and grid.ny, or a mask image that sets the size");
    }
    if (options_.check_grid) {
      try {
        options_.check_grid(scene.nx, scene.ny);
      } catch (InsufficientMemory const& e) {
        throw InsufficientMemory(sized_at + e.what());
      }
    }
    if (auto const dx = grid.get<float>("dx")) {
      scene.dx = positive(grid, "dx", *dx);
    } else if (!has_base) {
      std::int32_t const n = std::max(scene.nx, scene.ny);
      if (n == 1) grid.missing("dx", "a grid of one cell has no default cell size");
      // The unit square's spacing along the longer side, as the reference scenes.
      scene.dx = 1.0f / float(n - 1);
    }
  }

  // The size of the first mask image of [[walls]] or [[medium.region]], from its header:
  // a file without a grid size takes that image's.
  std::optional<std::pair<MaskSize, Table>> first_mask_size(Table const& root) {
    auto entries = root.get_or<std::vector<Table>>("walls", {});
    auto const regions = root.section("medium").get_or<std::vector<Table>>("region", {});
    entries.insert(entries.end(), regions.begin(), regions.end());
    for (auto const& entry : entries) {
      if (entry.has("mask")) {
        auto const path = mask_path(entry);
        try {
          return std::pair{read_mask_size(path), entry};
        } catch (SceneError const& e) {
          entry.fail("mask", e.what());
        }
      }
    }
    return std::nullopt;
  }

  // Before a per-cell buffer of the grid is made.
  void check_memory(Scene const& scene, std::string_view buffer, double bytes_per_cell) const {
    detail::check_host_memory(path_,
                              "the " + std::to_string(scene.nx) + " x " + std::to_string(scene.ny) +
                                  " grid's " + std::string(buffer),
                              double(scene.cells()) * bytes_per_cell);
  }

  void read_medium(Table const& medium, Scene& scene) {
    if (auto const c = medium.get<float>("c")) scene.c = positive(medium, "c", *c);
    auto const regions = medium.get<std::vector<Table>>("region");
    if (!regions) return;
    scene.speed.clear();
    if (regions->empty()) return;
    check_memory(scene, "speed map", sizeof(float));
    scene.speed.assign(std::size_t(scene.cells()), scene.c);
    for (auto const& region : *regions) {
      region.allow_only({"c", "rect", "mask"});
      float const c = positive(region, "c", region.require<float>("c"));
      for_each_cell(region, scene, [&](std::int64_t i) { scene.speed[i] = c; });
    }
  }

  static void read_damping(Table const& damping, Scene& scene) {
    if (auto const width = damping.get<float>("width")) {
      if (!(*width >= 0.0f && *width <= 0.5f)) {
        damping.fail("width", "must lie in [0, 0.5] (a fraction of each side), got " +
                                  number_text_beside(*width, *width < 0.0f ? 0.0 : 0.5));
      }
      scene.damping.width = *width;
    }
    if (auto const strength = damping.get<float>("strength")) {
      if (!(*strength >= 0.0f && *strength < 1.0f)) {
        damping.fail("strength", "must lie in [0, 1), got " +
                                     number_text_beside(*strength, *strength < 0.0f ? 0.0 : 1.0));
      }
      scene.damping.strength = *strength;
    }
  }

  void read_walls(Table const& root, Scene& scene) {
    auto const walls = root.get<std::vector<Table>>("walls");
    if (!walls) return;
    scene.walls.clear();
    if (walls->empty()) return;
    check_memory(scene, "wall mask", 1.0);
    scene.walls.assign(std::size_t(scene.cells()), 0);
    for (auto const& wall : *walls) {
      wall.allow_only({"rect", "mask"});
      for_each_cell(wall, scene, [&](std::int64_t i) { scene.walls[i] = 1; });
    }
  }

  static void read_sources(Table const& root, Scene& scene) {
    auto const sources = root.get<std::vector<Table>>("sources");
    if (!sources) return;
    scene.sources.clear();
    std::unordered_map<std::int64_t, std::size_t> source_of_cell;
    for (auto const& entry : *sources) {
      entry.allow_only({"x", "y", "waveform", "amplitude", "frequency", "delay"});
      Source source;
      source.x = cell_coordinate(entry, "x", scene.nx);
      source.y = cell_coordinate(entry, "y", scene.ny);
      // The update rule holds the border and the walls at 0: a source there would be silent.
      if (source.x == 0 || source.x == scene.nx - 1) {
        entry.fail("x", cell_name(source.x, source.y) + " lies on the border, held at 0");
      }
      if (source.y == 0 || source.y == scene.ny - 1) {
        entry.fail("y", cell_name(source.x, source.y) + " lies on the border, held at 0");
      }
      if (scene.is_wall(source.x, source.y)) {
        entry.fail_here(cell_name(source.x, source.y) + " lies on a wall, held at 0");
      }
      auto const [taken, added] =
          source_of_cell.emplace(scene.index(source.x, source.y), scene.sources.size());
      if (!added) {
        entry.fail_here(cell_name(source.x, source.y) + " is already the cell of sources[" +
                        std::to_string(taken->second) + "]");
      }
      source.waveform = read_waveform(entry);
      scene.sources.push_back(source);
    }
  }

  // The base's sources under the file's walls would be silent, as read_sources refuses.
  static void check_base_sources(Table const& root, Scene const& scene) {
    for (std::size_t i = 0; i < scene.sources.size(); ++i) {
      Source const& source = scene.sources[i];
      if (scene.is_wall(source.x, source.y)) {
        root.fail("walls", "a wall covers the base's source " + std::to_string(i) + " at " +
                               cell_name(source.x, source.y) + ", which it would hold at 0");
      }
    }
  }

  // Any cell, border and walls included (they read 0); names as validate() wants them.
  static void read_receivers(Table const& root, Scene& scene) {
    auto const receivers = root.get<std::vector<Table>>("receivers");
    if (!receivers) return;
    if (receivers->size() > max_receivers) {
      root.fail("receivers", std::to_string(receivers->size()) + " receivers, more than the " +
                                 std::to_string(max_receivers) + " a scene may have");
    }
    scene.receivers.clear();
    std::unordered_map<std::string, std::size_t> index_of_name;
    for (auto const& entry : *receivers) {
      entry.allow_only({"x", "y", "name"});
      Receiver receiver;
      receiver.x = cell_coordinate(entry, "x", scene.nx);
      receiver.y = cell_coordinate(entry, "y", scene.ny);
      std::optional<std::string> const given = entry.get<std::string>("name");
      receiver.name = given.value_or("");
      scene.receivers.push_back(receiver);
      // Given, it is the name (an empty one is refused); else receiver_name's r<index>.
      std::string const name = given ? *given : receiver_name(scene, scene.receivers.size() - 1);
      bool const plain = !name.empty() && name.size() <= max_receiver_name &&
                         std::all_of(name.begin(), name.end(), [](char c) {
                           return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                                  (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
                         });
      if (!plain) {
        entry.fail("name", "must be 1 to " + std::to_string(max_receiver_name) +
                               " ASCII letters, digits, '_', '-' or '.'");
      }
      if (is_trace_column(name)) {
        entry.fail("name", "'" + name + "' is a column the receivers' CSV file has already");
      }
      auto const [taken, added] = index_of_name.emplace(name, scene.receivers.size() - 1);
      if (!added) {
        entry.fail_here("the name '" + name + "' is already receivers[" +
                        std::to_string(taken->second) + "]'s");
      }
    }
  }

  static Waveform read_waveform(Table const& entry) {
    Waveform waveform;
    auto const shape = entry.get_or<std::string>("waveform", "sine");
    if (shape == "sine") {
      waveform.shape = Waveform::Shape::sine;
      if (entry.has("delay")) entry.fail("delay", "only a ricker waveform has a delay");
    } else if (shape == "ricker") {
      waveform.shape = Waveform::Shape::ricker;
      waveform.delay = entry.get_or<float>("delay", 0.0f);
    } else {
      entry.fail("waveform", "unknown waveform '" + shape + "' (sine or ricker)");
    }
    waveform.amplitude = entry.get_or<float>("amplitude", 1.0f);
    waveform.frequency = positive(entry, "frequency", entry.require<float>("frequency"));
    return waveform;
  }

  // The reference scenes' dt = dx/4 for the fastest wave, named at the key that made it
  // 0 or infinite in single precision.
  float default_time_step(Scene const& scene) const {
    float const c_max =
        scene.speed.empty() ? scene.c : *std::max_element(scene.speed.begin(), scene.speed.end());
    float const dt = 0.25f * scene.dx / c_max;
    if (dt > 0.0f && std::isfinite(dt)) return dt;
    Key const key = given(dx_and_speed_keys(c_max));
    key.table.fail(
        key.name,
        "dx = " + number_text(scene.dx) + " and c = " + number_text(c_max) +
            " make the time step dt = dx/(4c) = " + number_text(0.25 * double(scene.dx) / c_max) +
            (dt == 0.0f ? ", 0 in single precision (underflow)" : ", beyond single precision") +
            "; give time.dt, or another dx or c");
  }

  void read_time(Table const& time, bool has_base, Scene& scene) const {
    scene.t0 = time.get_or<float>("t0", scene.t0);
    if (auto const dt = time.get<float>("dt")) {
      scene.dt = positive(time, "dt", *dt);
    } else if (!has_base) {
      scene.dt = default_time_step(scene);
    }
    auto const steps = time.get<std::int64_t>("steps");
    auto const t_end = time.get<float>("t_end");
    if (steps && t_end) time.fail("t_end", "give either steps or t_end, not both");
    if (steps) {
      if (*steps < 0) time.fail("steps", "must not be negative, got " + std::to_string(*steps));
      scene.steps = *steps;
    } else if (t_end) {
      if (!(*t_end >= scene.t0)) time.fail("t_end", "must not come before t0");
      // In float, as the reference scenes count their steps.
      float const n = (*t_end - scene.t0) / scene.dt;
      if (!(n < float(std::numeric_limits<std::int64_t>::max()))) {
        time.fail("t_end", "gives more steps than wave2d can count");
      }
      scene.steps = std::int64_t(n);
    } else if (!has_base) {
      time.missing("steps", "give steps or t_end");
    }
  }

  // Calls mark(cell index) for each cell of a [[walls]] or [[medium.region]] entry:
  // those of the inclusive rectangle `rect`, or the dark pixels of the image `mask`.
  template <class Mark>
  void for_each_cell(Table const& entry, Scene const& scene, Mark mark) {
    bool const has_rect = entry.has("rect");
    if (has_rect && entry.has("mask")) entry.fail("mask", "give either a rect or a mask, not both");
    if (has_rect) {
      Table const rect = entry.require<Table>("rect");
      rect.allow_only({"x0", "y0", "x1", "y1"});
      std::int32_t const x0 = cell_coordinate(rect, "x0", scene.nx);
      std::int32_t const y0 = cell_coordinate(rect, "y0", scene.ny);
      std::int32_t const x1 = cell_coordinate(rect, "x1", scene.nx);
      std::int32_t const y1 = cell_coordinate(rect, "y1", scene.ny);
      if (x1 < x0) rect.fail("x1", "must not be less than x0 (the bounds are inclusive)");
      if (y1 < y0) rect.fail("y1", "must not be less than y0 (the bounds are inclusive)");
      for (std::int32_t y = y0; y <= y1; ++y) {
        for (std::int32_t x = x0; x <= x1; ++x) mark(scene.index(x, y));
      }
    } else if (entry.has("mask")) {
      MaskImage const& image = mask(entry, scene);
      for (std::size_t i = 0; i < image.dark.size(); ++i) {
        if (image.dark[i]) mark(std::int64_t(i));
      }
    } else {
      entry.fail_here("give a rect = { x0, y0, x1, y1 } or a mask = \"image file\"");
    }
  }

  std::filesystem::path mask_path(Table const& entry) const {
    return directory_ / entry.require<std::string>("mask");
  }

  // The image named by the entry's `mask`, relative to the scene file; each file is read
  // once, and its pixels decoded only when its header gives the grid's size.
  MaskImage const& mask(Table const& entry, Scene const& scene) {
    auto const image_path = mask_path(entry);
    auto found = masks_.find(image_path);
    if (found == masks_.end()) {
      auto const reading = [&](auto read) {
        try {
          return read(image_path);
        } catch (SceneError const& e) {
          entry.fail("mask", e.what());
        }
      };
      MaskSize const size = reading(read_mask_size);
      if (size.width != scene.nx || size.height != scene.ny) {
        entry.fail("mask", "the image is " + std::to_string(size.width) + " x " +
                               std::to_string(size.height) + " pixels, the grid " +
                               std::to_string(scene.nx) + " x " + std::to_string(scene.ny) +
                               " cells");
      }
      found = masks_.emplace(image_path, reading(read_mask_image)).first;
      masks_read_.push_back(image_path);
    }
    return found->second;
  }

  std::filesystem::path const& path_;
  std::filesystem::path directory_;
  SceneFileOptions const& options_;
  Table const* root_ = nullptr;
  SceneFileKey time_step_key_;
  std::map<std::filesystem::path, MaskImage> masks_;
  std::vector<std::filesystem::path> masks_read_;
};

}  // namespace

SceneFile read_scene_file(std::filesystem::path const& path, SceneFileOptions const& options) {
  return read_scene_text(detail::read_input_file(path, "scene file", max_scene_file_bytes), path,
                         options);
}

SceneFile read_scene_text(std::string_view text, std::filesystem::path const& path,
                          SceneFileOptions const& options) {
  if (text.size() > max_scene_file_bytes) {
    throw SceneError(path.string() + ": longer than the " + std::to_string(max_scene_file_bytes) +
                     " bytes a scene file may have");
  }
  // What editors write: a byte order mark before UTF-8 text (toml++ skips it too, but the
  // bounds scan would see bytes that are not ASCII), CRLF line ends (TOML's own). UTF-16
  // is not TOML.
  constexpr std::string_view utf8_bom = "\xEF\xBB\xBF";
  if (text.starts_with(utf8_bom)) text.remove_prefix(utf8_bom.size());
  if (text.starts_with("\xFF\xFE") || text.starts_with("\xFE\xFF")) {
    throw SceneError(path.string() + ": is UTF-16 text; a scene file is UTF-8 (save it as UTF-8)");
  }
  check_toml_bounds(path, text);
  toml::table document;
  try {
    document = toml::parse(text, path.string());
  } catch (toml::parse_error const& e) {
    fail_at(path, e.source().begin.line, {}, e.description());
  }
  SceneFileReader reader(path, options);
  SceneFile file{reader.read(Table(path, document, nullptr, "")), {path}, reader.time_step_key()};
  file.time_step_key.file = path;
  file.files.insert(file.files.end(), reader.masks_read().begin(), reader.masks_read().end());
  // Absolute: a caller that changes its working folder still knows them (and refuses to
  // write over them).
  for (auto& input : file.files) {
    std::error_code error;
    auto absolute = std::filesystem::absolute(input, error);
    if (!error) input = std::move(absolute);
  }
  return file;
}

Scene load_scene_file(std::filesystem::path const& path, SceneFileOptions const& options) {
  return read_scene_file(path, options).scene;
}

void validate(Scene const& scene, SceneFileKey const& key,
              std::vector<std::filesystem::path> const& files, ValidationOptions const& options) {
  try {
    validate(scene, options);
  } catch (UnstableTimeStep const& e) {
    if (key.path.empty() || files.empty()) throw;
    throw UnstableTimeStep(
        located(key.file.empty() ? files.front() : key.file, key.line, key.path, e.what()),
        e.courant(), e.bound());
  }
}

}  // namespace wave2d

#else

namespace wave2d {

SceneFile read_scene_file(std::filesystem::path const&, SceneFileOptions const&) {
  throw SceneError(no_scene_files_reason);
}

SceneFile read_scene_text(std::string_view, std::filesystem::path const&, SceneFileOptions const&) {
  throw SceneError(no_scene_files_reason);
}

Scene load_scene_file(std::filesystem::path const& path, SceneFileOptions const& options) {
  return read_scene_file(path, options).scene;
}

void validate(Scene const& scene, SceneFileKey const&, std::vector<std::filesystem::path> const&,
              ValidationOptions const& options) {
  validate(scene, options);
}

}  // namespace wave2d

#endif

namespace wave2d {

void validate(SceneFile const& file, ValidationOptions const& options) {
  validate(file.scene, file.time_step_key, file.files, options);
}

}  // namespace wave2d
