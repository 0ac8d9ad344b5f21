"""The C API through ctypes: the two shared libraries found and loaded, the
public structs and prototypes of include/vkml.h and include/vkml_compile.h,
and statuses turned into vkml.Error. Nothing here but what those headers
export (nm -D on libvkml_runtime.so and libvkml_compiler.so).

Where the libraries are looked for, first found wins:
  1. $VKML_LIB_DIR (the build tree in the tests: VKML_LIB_DIR=build)
  2. the install's libdir, written into _config.py by meson at build time
  3. the dynamic linker's own search (ld.so.conf, LD_LIBRARY_PATH)

ctypes.CDLL releases the GIL during every foreign call, so a vkml_run lets
other Python threads go on while the device works."""
import ctypes
import os
import threading

try:
    from . import _config
except ImportError:  # the source tree, not installed: no generated config
    _config = None

MAX_RANK = 8
MAX_INPUT_SHAPES = 64
SOVERSION = '0'

# vkml_code (include/vkml_status.h), by value
CODE_NAMES = ('OK', 'INVALID_ARGUMENT', 'PARSE', 'INVALID_GRAPH', 'UNSUPPORTED', 'IO',
              'OUT_OF_MEMORY', 'DEVICE', 'CORRUPT', 'INTERNAL')
INVALID_ARGUMENT = 1

# vkml_device_kind, vkml_precision, vkml_fallback
DEVICE_DEFAULT, DEVICE_INDEX, DEVICE_CPU = 0, 1, 2
PRECISIONS = {'fp32': 0, 'fp16': 1}
FALLBACKS = {'auto': 0, 'never': 1}


class Error(Exception):
    """A vkml error: the library's message and code.

    code is the vkml_code number (1 = INVALID_ARGUMENT, ...), code_name its
    enumerator without the VKML_CODE_ prefix, message the library's text."""

    def __init__(self, message, code=INVALID_ARGUMENT):
        super().__init__(message)
        self.message = message
        self.code = code
        self.code_name = CODE_NAMES[code] if 0 <= code < len(CODE_NAMES) else str(code)

    def __str__(self):
        return self.message


# Every struct ends in a zeroed reserve: a library whose structs gained
# fields at their end (the API's way to grow) writes into the reserve
# rather than past the struct, and reads options it adds as zero, their
# defaults (options are valid when zero-initialized).
_RESERVE = ('_reserve', ctypes.c_uint8 * 256)


class CTensorInfo(ctypes.Structure):
    """vkml_tensor_info."""
    _fields_ = [('name', ctypes.c_char_p), ('dtype', ctypes.c_int), ('rank', ctypes.c_int),
                ('dims', ctypes.c_int64 * MAX_RANK), ('bytes', ctypes.c_size_t),
                ('bounded_axis', ctypes.c_int), _RESERVE]


class InstanceOpts(ctypes.Structure):
    """vkml_instance_opts."""
    _fields_ = [('device', ctypes.c_int), ('index', ctypes.c_int), ('wait', ctypes.c_int),
                ('validation', ctypes.c_bool), ('profile', ctypes.c_bool),
                ('staged_inputs', ctypes.c_bool), _RESERVE]


class InputShape(ctypes.Structure):
    """vkml_input_shape."""
    _fields_ = [('name', ctypes.c_char_p), ('rank', ctypes.c_int),
                ('dims', ctypes.c_int64 * MAX_RANK)]


class CompileOpts(ctypes.Structure):
    """vkml_compile_opts (enums as int, bool as c_bool: the C ABI's sizes)."""
    _fields_ = [('precision', ctypes.c_int), ('n_input_shapes', ctypes.c_int),
                ('input_shapes', ctypes.POINTER(InputShape)), ('cpu_ops', ctypes.c_char_p),
                ('fallback', ctypes.c_int), ('db', ctypes.c_char_p), ('device', ctypes.c_int),
                ('index', ctypes.c_int), ('layout', ctypes.c_int),
                ('memory_planner', ctypes.c_int), ('artifact_path', ctypes.c_char_p),
                _RESERVE]


class Memory(ctypes.Structure):
    """vkml_memory."""
    _fields_ = [('weights_bytes', ctypes.c_uint64), ('weights_users', ctypes.c_int),
                ('instance_bytes', ctypes.c_uint64), ('arena_bytes', ctypes.c_uint64),
                ('staging_bytes', ctypes.c_uint64), ('device_used_bytes', ctypes.c_uint64),
                ('lean', ctypes.c_bool), _RESERVE]


class Step(ctypes.Structure):
    """vkml_step."""
    _fields_ = [('op', ctypes.c_char_p), ('output', ctypes.c_char_p), ('dtype', ctypes.c_int),
                ('rank', ctypes.c_int), ('dims', ctypes.c_int64 * MAX_RANK),
                ('device', ctypes.c_char_p), ('kernel', ctypes.c_char_p),
                ('schedule', ctypes.c_char_p), ('workload', ctypes.c_char_p),
                ('schedule_source', ctypes.c_char_p), ('schedule_device', ctypes.c_char_p),
                ('confirmed', ctypes.c_bool), ('note', ctypes.c_char_p),
                ('flops', ctypes.c_double), ('bytes', ctypes.c_double), _RESERVE]


class StepProfile(ctypes.Structure):
    """vkml_step_profile."""
    _fields_ = [('seconds', ctypes.c_double), ('device', ctypes.c_char_p),
                ('dispatched', ctypes.c_bool), ('roof_gflops', ctypes.c_double),
                ('roof_gbs', ctypes.c_double), _RESERVE]


_status = ctypes.c_void_p
_p = ctypes.c_void_p
_RUNTIME = {
    'vkml_version': (ctypes.c_char_p, []),
    'vkml_status_code': (ctypes.c_int, [_status]),
    'vkml_status_message': (ctypes.c_char_p, [_status]),
    'vkml_status_free': (None, [_status]),
    'vkml_model_load': (_status, [ctypes.c_char_p, ctypes.POINTER(_p)]),
    'vkml_model_artifact': (_status, [_p, ctypes.POINTER(_p), ctypes.POINTER(ctypes.c_size_t)]),
    'vkml_model_free': (None, [_p]),
    'vkml_model_input_count': (ctypes.c_int, [_p]),
    'vkml_model_output_count': (ctypes.c_int, [_p]),
    'vkml_model_input': (_status, [_p, ctypes.c_int, ctypes.POINTER(CTensorInfo)]),
    'vkml_model_output': (_status, [_p, ctypes.c_int, ctypes.POINTER(CTensorInfo)]),
    'vkml_model_find_input': (_status, [_p, ctypes.c_char_p, ctypes.POINTER(CTensorInfo)]),
    'vkml_model_load_ir': (_status, [ctypes.c_char_p, ctypes.POINTER(_p)]),
    'vkml_instance_create': (_status, [_p, ctypes.POINTER(InstanceOpts), ctypes.POINTER(_p)]),
    'vkml_instance_destroy': (None, [_p]),
    'vkml_run': (_status, [_p]),
    'vkml_input_memory': (_status, [_p, ctypes.c_char_p, ctypes.POINTER(_p)]),
    'vkml_output_memory': (_status, [_p, ctypes.c_char_p, ctypes.POINTER(_p)]),
    'vkml_instance_memory': (_status, [_p, ctypes.POINTER(Memory)]),
    'vkml_instance_device': (ctypes.c_char_p, [_p]),
    'vkml_set_input': (_status, [_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_int,
                                 ctypes.POINTER(ctypes.c_int64), _p]),
    'vkml_output_shape': (_status, [_p, ctypes.c_char_p, ctypes.POINTER(CTensorInfo)]),
    'vkml_model_step_count': (ctypes.c_int, [_p]),
    'vkml_model_step': (_status, [_p, ctypes.c_int, ctypes.POINTER(Step)]),
    'vkml_instance_profile': (_status, [_p, ctypes.c_int, ctypes.POINTER(StepProfile)]),
    'vkml_instance_gpu_timed': (ctypes.c_bool, [_p]),
    'vkml_instance_kernel_stats': (ctypes.c_char_p, [_p, ctypes.c_int]),
}
_COMPILER = {
    'vkml_compile': (_status, [ctypes.c_char_p, ctypes.POINTER(CompileOpts), ctypes.POINTER(_p)]),
    'vkml_compiler_version': (ctypes.c_char_p, []),
}

_lock = threading.Lock()
_libs = {}


def _candidates(stem):
    names = ['lib%s.so.%s' % (stem, SOVERSION), 'lib%s.so' % stem]
    dirs = []
    if os.environ.get('VKML_LIB_DIR'):
        dirs.append(os.environ['VKML_LIB_DIR'])
    if _config is not None and getattr(_config, 'LIBDIR', ''):
        dirs.append(_config.LIBDIR)
    paths = [os.path.join(d, n) for d in dirs for n in names]
    return [p for p in paths if os.path.exists(p)] + names  # bare names: ld.so's search


def _open(stem, protos):
    with _lock:
        if stem in _libs:
            return _libs[stem]
        tried = []
        for path in _candidates(stem):
            try:
                lib = ctypes.CDLL(path)
            except OSError as e:
                tried.append(str(e))
                continue
            missing = [n for n in protos if not hasattr(lib, n)]
            if missing:
                raise Error('%s lacks %s: a library older than this package (reinstall vkml, '
                            'or point VKML_LIB_DIR at a matching build)' % (
                                path, ', '.join(missing)), CODE_NAMES.index('UNSUPPORTED'))
            for name, (res, args) in protos.items():
                fn = getattr(lib, name)
                fn.restype, fn.argtypes = res, args
            _libs[stem] = lib
            return lib
        raise Error('cannot load lib%s (set VKML_LIB_DIR to the folder holding it, or install '
                    'vkml): %s' % (stem, '; '.join(tried)), CODE_NAMES.index('IO'))


def runtime():
    """libvkml_runtime (vkml.h)."""
    return _open('vkml_runtime', _RUNTIME)


def compiler():
    """libvkml_compiler (vkml_compile.h); opened by the first compile only, so
    that loading and running artifacts needs the runtime library alone."""
    runtime()  # its dependency, found the same way
    return _open('vkml_compiler', _COMPILER)


def check(status):
    """Raises Error for a non-OK status (freeing it)."""
    if status:
        lib = runtime()
        code = lib.vkml_status_code(status)
        msg = lib.vkml_status_message(status).decode('utf-8', 'replace')
        lib.vkml_status_free(status)
        raise Error(msg, code)
