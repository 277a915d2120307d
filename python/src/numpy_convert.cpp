#include "numpy_convert.h"

#include <cstring>

#include "systole/compiler/graph.h"
#include "systole/isa/diagnostic.h"

namespace systole::python {

namespace {

using FloatArray = py::array_t<float, py::array::c_style | py::array::forcecast>;

std::vector<int64_t> shapeOf(const FloatArray& a) { return {a.shape(), a.shape() + a.ndim()}; }

py::dtype dtypeOf(compiler::ElemType t) {
  switch (t) {
    case compiler::ElemType::Float32: return py::dtype::of<float>();
    case compiler::ElemType::Int8: return py::dtype::of<int8_t>();
    case compiler::ElemType::Int16: return py::dtype::of<int16_t>();
    case compiler::ElemType::Int32: return py::dtype::of<int32_t>();
    case compiler::ElemType::Int64: return py::dtype::of<int64_t>();
    case compiler::ElemType::Bool: return py::dtype::of<bool>();
  }
  throw Error("internal: a tensor of an unknown element type");
}

}  // namespace

NpyArray toNpyArray(const py::handle& array) {
  const auto a = FloatArray::ensure(array);
  if (!a) throw Error("expected a numeric array (anything numpy.asarray turns into numbers)");
  NpyArray out;
  out.dtype = isa::DType::Float32;
  out.shape = shapeOf(a);
  out.bytes.resize(static_cast<size_t>(a.nbytes()));
  if (!out.bytes.empty()) std::memcpy(out.bytes.data(), a.data(), out.bytes.size());
  return out;
}

compiler::HostTensor toHostTensor(const py::handle& array, const std::vector<int64_t>& shape, const std::string& name) {
  NpyArray a = toNpyArray(array);
  if (a.shape != shape)
    throw Error("input '" + name + "' has shape " + compiler::shapeText(a.shape) + "; the model expects " +
                compiler::shapeText(shape));
  compiler::HostTensor t(compiler::ElemType::Float32, shape);
  t.bytes = std::move(a.bytes);
  return t;
}

py::array toNumpy(const compiler::HostTensor& t) {
  py::array out(dtypeOf(t.type), std::vector<py::ssize_t>(t.shape.begin(), t.shape.end()));
  if (!t.bytes.empty()) std::memcpy(out.mutable_data(), t.bytes.data(), t.bytes.size());
  return out;
}

}  // namespace systole::python
