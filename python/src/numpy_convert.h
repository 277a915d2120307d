// Tensors between NumPy and Systole: inputs and calibration data arrive as arrays of any numeric
// dtype and are cast to float32 (NumPy's casting rules); outputs leave as arrays that own a copy.
#pragma once

#include <string>
#include <vector>

#include <pybind11/numpy.h>

#include "systole/compiler/host_tensor.h"
#include "systole/isa/npy.h"

namespace systole::python {

namespace py = pybind11;

/// A float32, row-major copy of `array`.
NpyArray toNpyArray(const py::handle& array);

/// `array` as a float32 tensor of `shape`; throws Error naming input `name` if the shape differs.
compiler::HostTensor toHostTensor(const py::handle& array, const std::vector<int64_t>& shape, const std::string& name);

/// A new array holding a copy of `t`, with NumPy's dtype for its element type.
py::array toNumpy(const compiler::HostTensor& t);

}  // namespace systole::python
