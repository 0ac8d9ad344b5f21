"""Models: vkml.compile and vkml.load, and Model over one vkml_model and one
vkml_instance (created on the first run). A run writes each input straight
into the instance's input memory (vkml_input_memory: one numpy copyto, no
intermediate), calls vkml_run with the GIL released, and copies each output
out of the instance's output memory once."""
import collections
import ctypes
import os
import threading
import time

import numpy as np

from . import _lib
from ._lib import Error

# vkml_dtype -> numpy, and the IR's names for messages (ir_dtype_name)
_DTYPES = (np.dtype(np.float32), np.dtype(np.float16), np.dtype(np.int32), np.dtype(np.int64),
           np.dtype(np.uint8), np.dtype(np.int8), np.dtype(np.bool_))
_IR_NAMES = ('f32', 'f16', 'i32', 'i64', 'u8', 'i8', 'bool')

TensorInfo = collections.namedtuple('TensorInfo', 'name dtype shape bounded_axis',
                                    defaults=(None,))
TensorInfo.__doc__ = '''A model input or output: name (str), dtype (numpy dtype), shape
(tuple); bounded_axis None, or the axis of a data-dependent size (NonZero,
NonMaxSuppression, TopK with a run-time k): shape holds its capacity there,
Model.run returns the run's size.'''

StepTime = collections.namedtuple('StepTime',
                                  'op output device kernel schedule ms flops bytes kernel_stats')
StepTime.__doc__ = '''Model.profile: one step of the plan, in run order. device: where it
ran ("gpu", "cpu", "copy"); kernel, schedule: a GPU step's ("" otherwise); ms:
the median of the profiled runs (GPU steps: timestamps, None on a device
without them; CPU steps: wall time with their copies); flops, bytes: per run
(0: not counted); kernel_stats: what the driver reported of a GPU step's
compiled kernel ("name=value, ...", e.g. its registers; "" where it gave
nothing).'''

Bench = collections.namedtuple('Bench', 'runs min_ms median_ms p90_ms mean_ms')
Bench.__doc__ = 'Model.bench: whole runs (Model.run, copies included), in milliseconds.'


def _bad(msg):
    return Error(msg, _lib.INVALID_ARGUMENT)


def _type_str(dtype, shape):
    dt = dtype.type
    name = next((_IR_NAMES[i] for i, d in enumerate(_DTYPES) if d.type is dt), str(dtype))
    return '%s[%s]' % (name, ','.join(str(d) for d in shape))


def _count(v, what, least):
    if not isinstance(v, int) or isinstance(v, bool) or v < least:
        raise _bad('%s must be a %s integer, given %r' % (
            what, 'positive' if least else 'non-negative', v))


def _device(device):
    """(vkml_device_kind, index) of Python's device argument."""
    if device is None:
        return _lib.DEVICE_DEFAULT, 0
    if isinstance(device, str) and device == 'cpu':
        return _lib.DEVICE_CPU, 0
    if isinstance(device, int) and not isinstance(device, bool) and device >= 0:
        return _lib.DEVICE_INDEX, device
    raise _bad("device must be None (the default Vulkan device), a Vulkan device number or "
               "'cpu', given %r" % (device,))


_WAITS = {'block': 0, 'spin': 1, 'hybrid': 2}  # vkml_wait


def _wait(wait):
    """vkml_wait of Python's wait argument."""
    if wait not in _WAITS:
        raise _bad("wait must be 'block', 'spin' or 'hybrid', given %r" % (wait,))
    return _WAITS[wait]


def _path(path, what):
    try:
        return os.fsencode(os.fspath(path))
    except TypeError:
        raise _bad('%s must be a path, given %r' % (what, path)) from None


class Model:
    """A compiled model (vkml.compile, vkml.load) and its instance on one
    device. Not created directly.

    inputs, outputs: tuples of TensorInfo. run, bench, save, memory,
    profile, close (or a with block). One run at a time per Model (a lock:
    an instance belongs to one thread at a time); other Python threads run
    while the device works."""

    def __init__(self, handle, device, wait='block'):
        self._rt = _lib.runtime()
        self._m = handle
        self._kind, self._index = _device(device)
        self._wait = _wait(wait)
        self._inst = None
        self._lock = threading.Lock()
        self.inputs = self._infos(self._rt.vkml_model_input_count, self._rt.vkml_model_input)
        self.outputs = self._infos(self._rt.vkml_model_output_count, self._rt.vkml_model_output)
        self._in_index = {t.name: i for i, t in enumerate(self.inputs)}

    def _infos(self, count, get):
        out = []
        for i in range(count(self._m)):
            t = _lib.CTensorInfo()
            _lib.check(get(self._m, i, ctypes.byref(t)))
            if not 0 <= t.dtype < len(_DTYPES):
                raise Error('tensor %s: unknown dtype %d' % (t.name, t.dtype),
                            _lib.CODE_NAMES.index('INTERNAL'))
            out.append(TensorInfo(t.name.decode(), _DTYPES[t.dtype], tuple(t.dims[:t.rank]),
                                  t.bounded_axis if t.bounded_axis >= 0 else None))
        return tuple(out)

    def _view(self, ptr, info, writable):
        """numpy array over the instance's memory at ptr (no copy)."""
        n = int(np.prod(info.shape, dtype=np.int64)) * info.dtype.itemsize
        if n == 0 or not ptr:
            return np.empty(info.shape, info.dtype)
        raw = np.frombuffer((ctypes.c_uint8 * n).from_address(ptr), dtype=np.uint8)
        v = raw.view(info.dtype).reshape(info.shape)
        v.flags.writeable = writable
        return v

    def _instance(self):
        """Creates the instance (under self._lock) and maps its memory."""
        if self._inst is not None:
            return
        if self._m is None:
            raise _bad('the model is closed')
        opts = _lib.InstanceOpts(device=self._kind, index=self._index, wait=self._wait)
        inst = ctypes.c_void_p()
        _lib.check(self._rt.vkml_instance_create(self._m, ctypes.byref(opts), ctypes.byref(inst)))
        try:
            ins, outs, in_ptrs = [], [], []
            for t in self.inputs:
                p = ctypes.c_void_p()
                _lib.check(self._rt.vkml_input_memory(inst, t.name.encode(), ctypes.byref(p)))
                ins.append(self._view(p.value, t, True))
                in_ptrs.append(p.value)
            for t in self.outputs:
                p = ctypes.c_void_p()
                _lib.check(self._rt.vkml_output_memory(inst, t.name.encode(), ctypes.byref(p)))
                outs.append(self._view(p.value, t, False))
        except Error:
            self._rt.vkml_instance_destroy(inst)
            raise
        self._in_views, self._out_views, self._in_ptrs = ins, outs, in_ptrs
        self._out_names = [t.name for t in self.outputs]
        self._bounded = [t.bounded_axis is not None for t in self.outputs]
        self._any_bounded = any(self._bounded)
        self._inst = inst

    def _unknown(self, name):
        """The library's own message for an input name the model lacks."""
        t = _lib.CTensorInfo()
        if not isinstance(name, str):
            return _bad('input names are strings, given %r' % (name,))
        _lib.check(self._rt.vkml_model_find_input(self._m, name.encode(), ctypes.byref(t)))
        return _bad('no input named %r' % name)  # not reached: the library refused it

    def run(self, feeds):
        """Runs the model on feeds ({input name: ndarray}, every input, each
        in the model's dtype and shape: no conversion) and returns
        {output name: ndarray} (copies, owned by the caller)."""
        # as little Python as can be between two runs: after a run that
        # waited asleep (VKML_WAIT_BLOCK) this code meets a cold core, and
        # each line costs microseconds (bench/python_run_variants.py)
        with self._lock:
            if self._inst is None:
                self._instance()
            if len(feeds) != len(self.inputs):
                missing = [t.name for t in self.inputs if t.name not in feeds]
                if missing:
                    raise _bad('run: input %s not given (the model\'s inputs: %s)' % (
                        ', '.join("'%s'" % m for m in missing),
                        ', '.join("'%s'" % t.name for t in self.inputs)))
            for name, a in feeds.items():
                i = self._in_index.get(name)
                if i is None:
                    raise self._unknown(name)
                view = self._in_views[i]
                if type(a) is not np.ndarray:  # pylint: disable=unidiomatic-typecheck
                    a = np.asarray(a)
                if a.dtype != view.dtype or a.shape != view.shape:
                    raise _bad("input '%s': expected %s, given %s" % (
                        name, _type_str(view.dtype, view.shape), _type_str(a.dtype, a.shape)))
                np.copyto(view, a, casting='no')  # one C call; gathers a strided array
            st = self._rt.vkml_run(self._inst)  # the GIL is released here
            if st:
                _lib.check(st)
            if not self._any_bounded:
                return {n: v.copy() for n, v in zip(self._out_names, self._out_views)}
            return {n: self._bounded_output(n, v) if b else v.copy()
                    for n, v, b in zip(self._out_names, self._out_views, self._bounded)}

    def _bounded_output(self, name, view):
        """A bounded output at the run's shape: the leading elements of its
        memory (vkml_output_shape; vkml_get_output's bytes)."""
        t = _lib.CTensorInfo()
        _lib.check(self._rt.vkml_output_shape(self._inst, name.encode(), ctypes.byref(t)))
        shape = tuple(t.dims[:t.rank])
        n = int(np.prod(shape, dtype=np.int64))
        return view.reshape(-1)[:n].reshape(shape).copy()

    def bench(self, n=100, warmup=10, inputs=None, seed=0):
        """Times n whole runs (Model.run, copies included) after warmup runs;
        inputs: {name: ndarray}, else seeded random ones (floats uniform in
        [-1, 1), integers in [0, 4), booleans half true)."""
        _count(n, 'bench: n', 1)
        _count(warmup, 'bench: warmup', 0)
        if inputs is None:
            inputs = random_inputs(self, seed)
        for _ in range(warmup):
            self.run(inputs)
        t = []
        for _ in range(n):
            t0 = time.perf_counter_ns()
            self.run(inputs)
            t.append((time.perf_counter_ns() - t0) * 1e-6)
        t.sort()
        return Bench(n, t[0], t[n // 2], t[(n * 9 + 9) // 10 - 1], sum(t) / n)

    def profile(self, n=10, warmup=2, inputs=None, seed=0):
        """Per-step times: n runs after warmup runs on a profiling instance
        of its own on the model's device (vkml_instance_opts.profile; the
        model's own instance runs untimed), inputs as in bench. A list of
        StepTime in run order, each step's median over the n runs."""
        _count(n, 'profile: n', 1)
        _count(warmup, 'profile: warmup', 0)
        if inputs is None:
            inputs = random_inputs(self, seed)
        rt = self._rt
        with self._lock:
            if self._m is None:
                raise _bad('the model is closed')
            opts = _lib.InstanceOpts(device=self._kind, index=self._index, profile=True)
            inst = ctypes.c_void_p()
            _lib.check(rt.vkml_instance_create(self._m, ctypes.byref(opts), ctypes.byref(inst)))
            try:
                self._set_inputs(inst, inputs)
                n_steps = rt.vkml_model_step_count(self._m)
                times = [[] for _ in range(n_steps)]
                where = [''] * n_steps
                p = _lib.StepProfile()
                for r in range(warmup + n):
                    _lib.check(rt.vkml_run(inst))
                    if r < warmup:
                        continue
                    for i in range(n_steps):
                        _lib.check(rt.vkml_instance_profile(inst, i, ctypes.byref(p)))
                        times[i].append(p.seconds * 1e3)
                        where[i] = p.device.decode()
                gpu_timed = rt.vkml_instance_gpu_timed(inst)
                stats = [rt.vkml_instance_kernel_stats(inst, i).decode() for i in range(n_steps)]
            finally:
                rt.vkml_instance_destroy(inst)
            out = []
            s = _lib.Step()
            for i in range(n_steps):
                _lib.check(rt.vkml_model_step(self._m, i, ctypes.byref(s)))
                ms = float(np.median(times[i]))
                if where[i] == 'gpu' and not gpu_timed:
                    ms = None
                gpu = where[i] == 'gpu'
                out.append(StepTime(s.op.decode(), s.output.decode(), where[i],
                                    s.kernel.decode() if gpu else '',
                                    s.schedule.decode() if gpu else '', ms, s.flops, s.bytes,
                                    stats[i]))
            return out

    def _set_inputs(self, inst, inputs):
        """Every input through vkml_set_input (a copy; for profile)."""
        for t in self.inputs:
            if t.name not in inputs:
                raise _bad("input '%s' not given" % t.name)
        for name, a in inputs.items():
            i = self._in_index.get(name)
            if i is None:
                raise self._unknown(name)
            t = self.inputs[i]
            a = np.ascontiguousarray(a)
            if a.dtype != t.dtype or a.shape != t.shape:
                raise _bad("input '%s': expected %s, given %s" % (
                    name, _type_str(t.dtype, t.shape), _type_str(a.dtype, a.shape)))
            dims = (ctypes.c_int64 * max(1, len(t.shape)))(*t.shape)
            code = next(k for k, d in enumerate(_DTYPES) if d == t.dtype)
            _lib.check(self._rt.vkml_set_input(inst, name.encode(), code, len(t.shape), dims,
                                               a.ctypes.data))

    def save(self, path):
        """Writes the artifact (.vkm) the model was loaded or compiled into;
        whole or not at all (a temporary file beside path, renamed)."""
        p = os.fsdecode(_path(path, 'save: path'))
        if self._m is None:
            raise _bad('the model is closed')
        data, n = ctypes.c_void_p(), ctypes.c_size_t()
        _lib.check(self._rt.vkml_model_artifact(self._m, ctypes.byref(data), ctypes.byref(n)))
        tmp = '%s.tmp.%d' % (p, os.getpid())
        try:
            with open(tmp, 'wb') as f:
                if n.value:
                    f.write(memoryview((ctypes.c_uint8 * n.value).from_address(data.value)))
            os.replace(tmp, p)
        except OSError as e:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise Error('%s: %s' % (p, e.strerror or e), _lib.CODE_NAMES.index('IO')) from None

    @property
    def device(self):
        """The device's name ("cpu" for the CPU); creates the instance."""
        with self._lock:
            self._instance()
            return self._rt.vkml_instance_device(self._inst).decode()

    def memory(self):
        """vkml_instance_memory as a dict (bytes; weights_users; lean)."""
        with self._lock:
            self._instance()
            m = _lib.Memory()
            _lib.check(self._rt.vkml_instance_memory(self._inst, ctypes.byref(m)))
            fields = _lib.Memory._fields_
            return {f: getattr(m, f) for f, _ in fields if not f.startswith('_')}

    def close(self):
        """Frees the instance and the model (also on garbage collection)."""
        with self._lock:
            if self._inst is not None:
                self._in_views = self._out_views = self._in_ptrs = ()
                self._rt.vkml_instance_destroy(self._inst)
                self._inst = None
            if self._m is not None:
                self._rt.vkml_model_free(self._m)
                self._m = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown: ctypes may be gone
            pass

    def __repr__(self):
        sig = lambda ts: ', '.join('%s: %s' % (t.name, _type_str(t.dtype, t.shape)) for t in ts)
        return '<vkml.Model (%s) -> (%s)>' % (sig(self.inputs), sig(self.outputs))


def random_inputs(model, seed=0):
    """Seeded random inputs for every input of model."""
    rng = np.random.default_rng(seed)
    out = {}
    for t in model.inputs:
        if t.dtype.kind == 'f':
            out[t.name] = rng.uniform(-1, 1, t.shape).astype(t.dtype)
        elif t.dtype.kind == 'b':
            out[t.name] = rng.random(t.shape) < 0.5
        else:
            out[t.name] = rng.integers(0, 4, t.shape).astype(t.dtype)
    return out


def load(path, device=None, wait='block'):
    """Loads an artifact (.vkm); it runs on device (None: the default Vulkan
    device, N: Vulkan device N, 'cpu': the CPU reference kernels). IR text
    (.vkir, its weights in NAME.bin beside it) loads for the CPU only
    (vkml_model_load_ir; vkml.compile makes it a model for a device).
    wait: how a run waits for the GPU (vkml_wait): 'block' (asleep), 'spin'
    (polling: the lowest latency, a core busy) or 'hybrid' (asleep for 3/4
    of the last run's time, then polling)."""
    p = _path(path, 'load: path')
    _device(device)
    _wait(wait)
    rt = _lib.runtime()
    m = ctypes.c_void_p()
    fn = rt.vkml_model_load_ir if p.endswith(b'.vkir') else rt.vkml_model_load
    _lib.check(fn(p, ctypes.byref(m)))
    return Model(m, device, wait)


def _shapes(input_shapes):
    if input_shapes is None:
        return []
    items = input_shapes.items() if isinstance(input_shapes, dict) else input_shapes
    out = []
    for item in items:
        try:
            name, dims = item
            dims = [int(d) for d in dims]
        except (TypeError, ValueError):
            raise _bad('input_shapes: {name: shape} or (name, shape) pairs, given %r' %
                       (item,)) from None
        if not isinstance(name, str):
            raise _bad('input_shapes: name %r is not a string' % (name,))
        if len(dims) > _lib.MAX_RANK:
            raise _bad('input shape %s: rank %d is out of range (0 to %d)' % (
                name, len(dims), _lib.MAX_RANK))
        out.append((name, dims))
    return out


def compile(path, input_shapes=None, precision='fp32', device=None, db=None, cpu_ops=(),
            fallback='auto', wait='block'):  # pylint: disable=redefined-builtin
    """Compiles an ONNX model (.onnx) or IR text (.vkir with its .bin) as
    `vkc compile` does (vkml_compile).

    input_shapes: {input name: shape}, fixing an ONNX model's symbolic
    dimensions. precision: 'fp32' or 'fp16'. device: None (the default
    Vulkan device), N (Vulkan device N) or 'cpu': a model is compiled for a
    Vulkan device, which decides its kernels, so 'cpu' compiles for the
    default Vulkan device and runs on the CPU reference kernels. db: a
    schedule database (vktune). cpu_ops: op names kept on the CPU (IR names
    or ONNX spellings). fallback: 'auto' (a node the GPU cannot run runs on
    the CPU) or 'never' (such a node fails the compile). wait: as in
    vkml.load."""
    p = _path(path, 'compile: path')
    kind, index = _device(device)
    _wait(wait)
    if precision not in _lib.PRECISIONS:
        raise _bad("compile: precision must be 'fp32' or 'fp16', given %r" % (precision,))
    if fallback not in _lib.FALLBACKS:
        raise _bad("compile: fallback must be 'auto' or 'never', given %r" % (fallback,))
    if isinstance(cpu_ops, str):
        cpu_ops = [cpu_ops] if cpu_ops else []
    try:
        ops = ','.join(cpu_ops)
    except TypeError:
        raise _bad('compile: cpu_ops must be op names, given %r' % (cpu_ops,)) from None
    shapes = _shapes(input_shapes)
    arr = (_lib.InputShape * max(1, len(shapes)))()
    names = [n.encode() for n, _ in shapes]  # alive during the call
    for i, (n, dims) in enumerate(shapes):
        arr[i].name, arr[i].rank = names[i], len(dims)
        for k, d in enumerate(dims):
            arr[i].dims[k] = d
    o = _lib.CompileOpts(
        precision=_lib.PRECISIONS[precision], n_input_shapes=len(shapes),
        input_shapes=arr if shapes else None, cpu_ops=ops.encode() if ops else None,
        fallback=_lib.FALLBACKS[fallback], db=_path(db, 'compile: db') if db is not None else None,
        device=_lib.DEVICE_DEFAULT if kind == _lib.DEVICE_CPU else kind, index=index)
    m = ctypes.c_void_p()
    _lib.check(_lib.compiler().vkml_compile(p, ctypes.byref(o), ctypes.byref(m)))
    return Model(m, device, wait)
