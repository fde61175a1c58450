// libFuzzer: Python values, as the module's scene dicts, through the converter
// (src/python/wave2d_SceneDict.cpp) and the scene loader, in an embedded interpreter.
// An input is a Python literal (ast.literal_eval), then optionally a line "---" and
// operations that no literal can express:
//   link I J   puts the J-th container (dicts and lists, depth first) into the I-th:
//              a dict or list that contains itself, or another's parent
//   wrap K N   nests the whole value N times (at most 40000), in {K: ...}, or in [...]
//              for K = "list"
// Refusing a value (SceneError, TypeError, ValueError) is fine; any other exception, a
// crash or a sanitizer report is a bug.
#include <python/wave2d_SceneDict.hpp>

#include <pybind11/embed.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iostream>

namespace py = pybind11;

namespace {

char const* const decoder = R"(
import ast
import warnings

warnings.simplefilter("ignore")  # literal_eval's SyntaxWarnings

def containers(root):
    seen, found, pending = set(), [], [root]
    while pending:
        value = pending.pop()
        if isinstance(value, (dict, list)) and id(value) not in seen:
            seen.add(id(value))
            found.append(value)
            pending.extend(value.values() if isinstance(value, dict) else value)
    return found

def operate(root, words):
    if words[0] == "link" and len(words) == 3:
        found = containers(root)
        if found:
            into, item = (found[int(word) % len(found)] for word in words[1:])
            if isinstance(into, dict):
                into["link"] = item
            else:
                into.append(item)
    elif words[0] == "wrap" and len(words) == 3:
        for _ in range(min(int(words[2]), 40000)):
            root = [root] if words[1] == "list" else {words[1]: root}
    return root

def make(data):
    literal, _, operations = data.decode("utf-8", "replace").partition("\n---\n")
    try:
        root = ast.literal_eval(literal)
        for line in operations.splitlines()[:64]:
            if line.split():
                root = operate(root, line.split())
    except Exception:
        return None
    return root
)";

py::object& make() {
  static py::object function;
  return function;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Python's own allocator keeps objects in arenas that LeakSanitizer does not scan: every
  // object they point to would look leaked.
  ::setenv("PYTHONMALLOC", "malloc", 1);
  static py::scoped_interpreter const interpreter;
  py::dict scope;
  py::exec(decoder, scope);
  make() = scope["make"];
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  py::object const value =
      make()(py::bytes(reinterpret_cast<char const*>(data), py::ssize_t(size)));
  if (!py::isinstance<py::dict>(value)) return 0;  // the module converts dicts alone
  // As the module does, with a bound that keeps the fuzzer's memory small.
  wave2d::SceneFileOptions const options{.check_grid = [](std::int32_t nx, std::int32_t ny) {
    if (std::int64_t(nx) * ny > (1 << 20)) throw wave2d::SceneError("grid too large");
  }};
  try {
    wave2d::Scene const scene = wave2d::python::scene_from_dict(value, options).scene;
    wave2d::validate(scene, {.allow_unstable = true});
  } catch (wave2d::SceneError const&) {
  } catch (py::builtin_exception const&) {  // TypeError, ValueError
  } catch (py::error_already_set const& e) {
    // What Python raises itself: a str that is not UTF-8, a failing __index__.
    if (!e.matches(PyExc_ValueError) && !e.matches(PyExc_TypeError)) {
      std::cerr << "unexpected Python exception: " << e.what() << "\n";
      std::abort();
    }
  }
  return 0;
}
