"""vkml: compile ONNX models to Vulkan compute and run them, from Python.

    import numpy as np, vkml
    m = vkml.compile('net.onnx', input_shapes={'x': (1, 3, 224, 224)})
    y = m.run({'x': np.zeros((1, 3, 224, 224), np.float32)})
    m.save('net.vkm');  m2 = vkml.load('net.vkm', device='cpu')

Over the public C API only (include/vkml.h, include/vkml_compile.h) through
ctypes; errors raise vkml.Error with the library's message and code. See
python/README.md."""
from ._lib import Error
from ._model import (Bench, Model, StepTime, TensorInfo, compile, load,  # noqa: F401
                     random_inputs)

__all__ = ['Error', 'Bench', 'Model', 'StepTime', 'TensorInfo', 'compile', 'load',
           'random_inputs', 'version']


def version():
    """The linked runtime library's version ("MAJOR.MINOR.PATCH")."""
    from . import _lib
    return _lib.runtime().vkml_version().decode()
