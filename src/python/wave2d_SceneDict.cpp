#include <python/wave2d_SceneDict.hpp>

#include <wave2d/io/wave2d_SceneFile.hpp>
#include <wave2d/wave2d_Config.hpp>

#if defined(WAVE2D_HAVE_SCENE_FILES)
#define TOML_HEADER_ONLY 1
#include <toml++/toml.h>
#endif

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace py = pybind11;
namespace fs = std::filesystem;

namespace wave2d::python {

namespace {

#if defined(WAVE2D_HAVE_SCENE_FILES)
[[noreturn]] void fail(std::string const& where, std::string const& problem) {
  throw SceneError("scene dict: " + (where.empty() ? "" : where + ": ") + problem);
}

// A Python value as TOML: dicts, lists and tuples, str, bool, int, float (NumPy scalars
// too), within the bounds of a scene file (io/wave2d_SceneFile.hpp): nesting, key
// length, and about as many bytes of TOML text. Containers are copied before they are
// read (an item's __index__ or __float__ may change them), and a container met again
// inside itself is refused: no input recurses without end or holds memory unbounded.
class Converter {
 public:
  toml::table table(py::handle dict, std::string const& where) {
    Open const open(*this, dict, PyDict_Size(dict.ptr()), where);
    py::list const items = py::reinterpret_steal<py::list>(PyDict_Items(dict.ptr()));
    if (!items) throw py::error_already_set();
    toml::table table;
    for (py::handle item : items) {
      py::handle const key = PyTuple_GET_ITEM(item.ptr(), 0);
      if (!py::isinstance<py::str>(key)) {
        throw py::type_error("scene dict: the keys of " + (where.empty() ? "it" : where) +
                             " must be strings");
      }
      std::string const name =
          text(key, where.empty() ? "a key" : where + ": a key", max_scene_file_key_length);
      std::string const path = where.empty() ? name : where + "." + name;
      convert(PyTuple_GET_ITEM(item.ptr(), 1), path, [&](auto&& value) {
        table.insert_or_assign(name, std::forward<decltype(value)>(value));
      });
    }
    return table;
  }

 private:
  // A container being converted: counted in the nesting, refused if met inside itself.
  class Open {
   public:
    Open(Converter& converter, py::handle container, Py_ssize_t size, std::string const& where)
        : converter_(converter) {
      auto& open = converter_.open_;
      if (std::find(open.begin(), open.end(), container.ptr()) != open.end()) {
        fail(where, "contains itself");
      }
      if (open.size() >= std::size_t(max_scene_file_nesting)) {
        fail(where, "nested more than " + std::to_string(max_scene_file_nesting) +
                        " dicts and lists deep");
      }
      converter_.spend(std::uint64_t(size) * 2, where);  // "1," at least per item
      open.push_back(container.ptr());
    }
    ~Open() { converter_.open_.pop_back(); }
    Open(Open const&) = delete;
    Open& operator=(Open const&) = delete;

   private:
    Converter& converter_;
  };

  template <class Put>
  void convert(py::handle value, std::string const& where, Put&& put) {
    if (py::isinstance<py::bool_>(value)) {
      spend(6, where);
      put(value.cast<bool>());
    } else if (py::isinstance<py::str>(value)) {
      put(text(value, where, max_scene_file_bytes));
    } else if (py::isinstance<py::dict>(value)) {
      put(table(value, where));
    } else if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
      put(array(value, where));
    } else if (py::object index = as_index(value)) {  // int, NumPy integers
      put(integer(index, where));
    } else if (auto const number = as_float(value)) {  // float, NumPy floats, 0-d arrays
      spend(24, where);
      put(*number);
    } else {
      throw py::type_error("scene dict: " + where + ": a " +
                           std::string(py::str(value.get_type().attr("__name__"))) +
                           " is not a TOML value");
    }
  }

  // The value as an int, if it is one (a NumPy array of several values has __index__ and
  // __float__, and converts by neither).
  static py::object as_index(py::handle value) {
    if (!py::hasattr(value, "__index__")) return {};
    auto index = py::reinterpret_steal<py::object>(PyNumber_Index(value.ptr()));
    if (!index) PyErr_Clear();
    return index;
  }
  static std::optional<double> as_float(py::handle value) {
    if (!py::hasattr(value, "__float__")) return std::nullopt;
    double const number = PyFloat_AsDouble(value.ptr());
    if (number == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      return std::nullopt;
    }
    return number;
  }

  toml::array array(py::handle sequence, std::string const& where) {
    bool const tuple = py::isinstance<py::tuple>(sequence);
    Open const open(*this, sequence,
                    tuple ? PyTuple_GET_SIZE(sequence.ptr()) : PyList_GET_SIZE(sequence.ptr()),
                    where);
    // A tuple's items cannot change; a list is copied, its storage read directly (not
    // through a subclass's __iter__, which may never end).
    py::object const items = tuple ? py::reinterpret_borrow<py::object>(sequence)
                                   : py::reinterpret_steal<py::object>(PyList_GetSlice(
                                         sequence.ptr(), 0, PyList_GET_SIZE(sequence.ptr())));
    if (!items) throw py::error_already_set();
    toml::array array;
    Py_ssize_t const size = PySequence_Fast_GET_SIZE(items.ptr());
    for (Py_ssize_t i = 0; i < size; ++i) {
      convert(PySequence_Fast_GET_ITEM(items.ptr(), i), where + "[" + std::to_string(i) + "]",
              [&](auto&& value) { array.push_back(std::forward<decltype(value)>(value)); });
    }
    return array;
  }

  std::int64_t integer(py::handle index, std::string const& where) {
    spend(20, where);
    int overflow = 0;
    long long const number = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
    if (overflow != 0) fail(where, "an integer beyond 64 bits");
    if (number == -1 && PyErr_Occurred()) throw py::error_already_set();
    return number;
  }

  // A str of at most `max_bytes` bytes of UTF-8 (its length is checked first: UTF-8
  // takes 1 to 4 bytes a character).
  std::string text(py::handle value, std::string const& where, std::uint64_t max_bytes) {
    std::string const too_long = "a string longer than " + std::to_string(max_bytes) + " bytes";
    if (std::uint64_t(PyUnicode_GetLength(value.ptr())) > max_bytes) fail(where, too_long);
    Py_ssize_t size = 0;
    char const* const utf8 = PyUnicode_AsUTF8AndSize(value.ptr(), &size);
    if (utf8 == nullptr) {  // a lone surrogate
      PyErr_Clear();
      fail(where, "a string that UTF-8 cannot hold");
    }
    if (std::uint64_t(size) > max_bytes) fail(where, too_long);
    spend(std::uint64_t(size) + 3, where);
    return std::string(utf8, std::size_t(size));
  }

  // Counts `bytes` more of TOML text against what a scene file may have.
  void spend(std::uint64_t bytes, std::string const& where) {
    bytes_ += bytes;
    if (bytes_ > max_scene_file_bytes) {
      fail(where, "more than a scene file may hold (" + std::to_string(max_scene_file_bytes) +
                      " bytes of TOML)");
    }
  }

  std::vector<PyObject*> open_;  // the containers being converted, outermost first
  std::uint64_t bytes_ = 0;
};

// The loader names "<dict>" and a line of the TOML text made from the dict, which the
// user never saw: the key path alone says where ("sources[1].frequency: ...").
template <class Error>
Error without_line(Error const& error, std::string_view name) {
  std::string_view message = error.what();
  if (!message.starts_with(name)) return error;
  message.remove_prefix(name.size());
  if (message.starts_with(":")) {  // ":12": a line, which a key of a missing table has not
    std::size_t digits = 1;
    while (digits < message.size() && std::isdigit(static_cast<unsigned char>(message[digits]))) {
      ++digits;
    }
    if (digits > 1) message.remove_prefix(digits);
  }
  if (message.starts_with(": ")) message.remove_prefix(2);
  return Error("scene dict: " + std::string(message));
}
#endif

}  // namespace

SceneFile scene_from_dict(py::handle dict, SceneFileOptions const& options) {
#if defined(WAVE2D_HAVE_SCENE_FILES)
  std::ostringstream text;
  // Strings as basic strings, every control character escaped: toml++'s literal and
  // multi-line forms let a string holding ''' end early and its rest read as keys.
  text << toml::toml_formatter(Converter().table(dict, ""),
                               toml::format_flags::allow_unicode_strings);
  // Masks are found relative to the working directory.
  std::string const name = "<dict>";
  SceneFile file;
  try {
    file = read_scene_text(text.str(), fs::path(name), options);
  } catch (SceneError const& e) {
    throw without_line(e, name);
  } catch (InsufficientMemory const& e) {  // the grid's size, at grid.nx
    throw without_line(e, name);
  }
  file.files.erase(file.files.begin());
  file.time_step_key = {};
  return file;
#else
  (void)dict;
  (void)options;
  throw SceneError(no_scene_files_reason);
#endif
}

}  // namespace wave2d::python
