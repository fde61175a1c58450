#include <python/wave2d_SceneDict.hpp>

#include <wave2d/io/wave2d_SceneFile.hpp>
#include <wave2d/wave2d_Config.hpp>

#if defined(WAVE2D_HAVE_SCENE_FILES)
#define TOML_HEADER_ONLY 1
#include <toml++/toml.h>
#endif

#include <cstdint>
#include <filesystem>
#include <sstream>
#include <string>

namespace py = pybind11;
namespace fs = std::filesystem;

namespace wave2d::python {

namespace {

#if defined(WAVE2D_HAVE_SCENE_FILES)
// A Python value as a TOML node: dicts, lists and tuples, str, bool, int, float (NumPy
// scalars too). toml++ writes the TOML text that the library's scene loader reads.
void insert_value(toml::table& table, std::string const& key, py::handle value,
                  std::string const& where);

toml::array to_array(py::handle sequence, std::string const& where) {
  toml::array array;
  std::size_t i = 0;
  for (py::handle item : sequence) {
    std::string const here = where + "[" + std::to_string(i++) + "]";
    toml::table holder;
    insert_value(holder, "v", item, here);
    array.push_back(std::move(*holder.get("v")));
  }
  return array;
}

toml::table to_table(py::dict const& dict, std::string const& where) {
  toml::table table;
  for (auto const& [key, value] : dict) {
    if (!py::isinstance<py::str>(key)) {
      throw py::type_error("scene dict: the keys of " + (where.empty() ? "it" : where) +
                           " must be strings");
    }
    std::string const name = key.cast<std::string>();
    insert_value(table, name, value, where.empty() ? name : where + "." + name);
  }
  return table;
}

void insert_value(toml::table& table, std::string const& key, py::handle value,
                  std::string const& where) {
  if (py::isinstance<py::bool_>(value)) {
    table.insert_or_assign(key, value.cast<bool>());
  } else if (py::isinstance<py::str>(value)) {
    table.insert_or_assign(key, value.cast<std::string>());
  } else if (py::isinstance<py::dict>(value)) {
    table.insert_or_assign(key, to_table(value.cast<py::dict>(), where));
  } else if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    table.insert_or_assign(key, to_array(value, where));
  } else if (py::hasattr(value, "__index__")) {  // int, NumPy integers
    table.insert_or_assign(
        key, py::int_(py::reinterpret_borrow<py::object>(value)).cast<std::int64_t>());
  } else if (py::hasattr(value, "__float__")) {  // float, NumPy floats
    table.insert_or_assign(key, value.cast<double>());
  } else {
    throw py::type_error("scene dict: " + where + ": a " +
                         std::string(py::str(value.get_type().attr("__name__"))) +
                         " is not a TOML value");
  }
}
#endif

}  // namespace

Scene scene_from_dict(py::dict const& dict) {
#if defined(WAVE2D_HAVE_SCENE_FILES)
  std::ostringstream text;
  text << to_table(dict, "");
  // Masks are found relative to the working directory.
  return read_scene_text(text.str(), fs::path("<dict>")).scene;
#else
  (void)dict;
  throw SceneError("this build of wave2d has no scene-file support (toml++ was not found)");
#endif
}

}  // namespace wave2d::python
