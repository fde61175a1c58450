// A Python module that carries its own copy of libstdc++ (linked -static-libstdc++, its
// symbols exported), as some binary wheels do: imported before wave2d, its GNU-unique
// symbols (the locale facets' ids) are the ones the whole process binds to. Formatting a
// float through a stream at import makes it use them first. Plain C API: no pybind11.
#include <Python.h>

#include <sstream>

namespace {

PyObject* format_float(PyObject*, PyObject*) {
  std::ostringstream text;
  text << 3.25;
  return PyUnicode_FromString(text.str().c_str());
}

PyMethodDef methods[] = {{"format_float", format_float, METH_NOARGS, "3.25 through a stream"},
                         {nullptr, nullptr, 0, nullptr}};

PyModuleDef module = {PyModuleDef_HEAD_INIT, "foreign_libstdcxx", nullptr, -1, methods};

}  // namespace

PyMODINIT_FUNC PyInit_foreign_libstdcxx() {
  std::ostringstream text;
  text << 2.5;
  return PyModule_Create(&module);
}
