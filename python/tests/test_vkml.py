"""The Python package against the NumPy and onnxruntime references: tinycnn
from its .vkir and smallnet from ONNX, on the default Vulkan device
(lavapipe in CI, validation on through VKML_VALIDATION) and on the CPU;
artifacts from vkc and from Model.save; every error a vkml.Error with the
library's message and code. Run by meson test (python/meson.build)."""
import ctypes
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import vkml
from vkml import _lib

ROOT = os.environ.get('VKML_SOURCE_ROOT',
                      os.path.join(os.path.dirname(__file__), '..', '..'))
TINY = os.path.join(ROOT, 'tests', 'models', 'tinycnn')
REAL = os.path.join(ROOT, 'tests', 'models', 'real')


def tiny_io():
    return (np.load(os.path.join(TINY, 'x.npy')), np.load(os.path.join(TINY, 'expected.npy')))


@pytest.fixture(scope='module')
def tiny():
    return vkml.compile(os.path.join(TINY, 'model.vkir'))


@pytest.fixture(scope='module')
def smallnet_io():
    return (np.load(os.path.join(REAL, 'smallnet_op13.input.npy')),
            np.load(os.path.join(REAL, 'smallnet_op13.ort.npy')))


@pytest.fixture(scope='module')
def smallnet(smallnet_io):
    x, _ = smallnet_io
    return vkml.compile(os.path.join(REAL, 'smallnet_op13.onnx'), input_shapes={'input': x.shape})


def test_tinycnn_vkir_on_the_default_device(tiny):
    x, want = tiny_io()
    assert tiny.inputs == (vkml.TensorInfo('x', np.dtype(np.float32), (1, 3, 17, 17)),)
    assert tiny.outputs == (vkml.TensorInfo('prob', np.dtype(np.float32), (1, 5)),)
    assert tiny.device != 'cpu'
    y = tiny.run({'x': x})
    assert list(y) == ['prob'] and y['prob'].dtype == np.float32 and y['prob'].shape == (1, 5)
    np.testing.assert_allclose(y['prob'], want, rtol=1e-4, atol=1e-6)
    assert tiny.memory()['lean']  # one submission: inputs written into device memory


def test_wait_modes_give_the_same_results(tmp_path):
    x, want = tiny_io()
    path = str(tmp_path / 'tiny.vkm')
    vkml.compile(os.path.join(TINY, 'model.vkir')).save(path)
    for wait in ('block', 'spin', 'hybrid'):
        with vkml.load(path, wait=wait) as m:
            for _ in range(3):  # hybrid sleeps for the last run's time
                np.testing.assert_allclose(m.run({'x': x})['prob'], want, rtol=1e-4, atol=1e-6)
    expect(lambda: vkml.load(path, wait='busy'), 'INVALID_ARGUMENT',
           "wait must be 'block', 'spin' or 'hybrid', given 'busy'")
    expect(lambda: vkml.compile(os.path.join(TINY, 'model.vkir'), wait=1), 'INVALID_ARGUMENT',
           "wait must be")


def test_tinycnn_on_the_cpu():
    x, want = tiny_io()
    with vkml.compile(os.path.join(TINY, 'model.vkir'), device='cpu') as m:
        assert m.device == 'cpu'
        np.testing.assert_allclose(m.run({'x': x})['prob'], want, rtol=1e-4, atol=1e-6)


def test_tinycnn_fp16(tiny):
    x, want = tiny_io()
    m = vkml.compile(os.path.join(TINY, 'model.vkir'), precision='fp16')
    np.testing.assert_allclose(m.run({'x': x})['prob'], want, rtol=2e-2, atol=2e-3)


def test_smallnet_onnx_matches_onnxruntime(smallnet, smallnet_io, tmp_path):
    x, want = smallnet_io
    assert [(t.name, t.shape) for t in smallnet.inputs] == [('input', x.shape)]
    got = smallnet.run({'input': x})['output']
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    # the same artifact on the CPU reference kernels
    smallnet.save(tmp_path / 'smallnet.vkm')
    cpu = vkml.load(tmp_path / 'smallnet.vkm', device='cpu')
    np.testing.assert_allclose(cpu.run({'input': x})['output'], want, rtol=1e-4, atol=1e-5)


def test_compile_options_reach_the_compiler(smallnet_io):
    x, want = smallnet_io
    onnx = os.path.join(REAL, 'smallnet_op13.onnx')
    # convs kept on the CPU: a mixed plan (not one submission), same values
    m = vkml.compile(onnx, input_shapes=[('input', x.shape)], cpu_ops=['Conv'], fallback='auto',
                     device=0)
    assert not m.memory()['lean']
    np.testing.assert_allclose(m.run({'input': x})['output'], want, rtol=1e-4, atol=1e-5)
    with pytest.raises(vkml.Error) as e:
        vkml.compile(onnx, input_shapes={'input': x.shape}, cpu_ops='Conv', fallback='never')
    assert e.value.code_name == 'UNSUPPORTED' and 'cannot run on the GPU' in str(e.value)


def test_load_an_artifact_from_vkc(tmp_path):
    x, want = tiny_io()
    art = tmp_path / 'tiny.vkm'
    subprocess.run([os.environ['VKML_VKC'], 'compile', os.path.join(TINY, 'model.vkir'),
                    '-o', str(art)], check=True)
    for device in (None, 'cpu'):
        m = vkml.load(str(art), device=device)
        np.testing.assert_allclose(m.run({'x': x})['prob'], want, rtol=1e-4, atol=1e-6)


def test_save_and_load_round_trip(tiny, tmp_path):
    x, _ = tiny_io()
    tiny.save(tmp_path / 'a.vkm')
    back = vkml.load(tmp_path / 'a.vkm')
    assert back.inputs == tiny.inputs and back.outputs == tiny.outputs
    np.testing.assert_array_equal(back.run({'x': x})['prob'], tiny.run({'x': x})['prob'])
    back.save(str(tmp_path / 'b.vkm'))
    assert (tmp_path / 'a.vkm').read_bytes() == (tmp_path / 'b.vkm').read_bytes()
    assert sorted(os.listdir(tmp_path)) == ['a.vkm', 'b.vkm']  # no temporary left


def test_inputs_go_straight_into_the_instance_memory(tiny):
    x, _ = tiny_io()
    tiny.run({'x': x})
    p = ctypes.c_void_p()
    _lib.check(_lib.runtime().vkml_input_memory(tiny._inst, b'x', ctypes.byref(p)))
    view = tiny._in_views[0]
    assert view.ctypes.data == p.value  # the numpy view is the instance's memory
    np.testing.assert_array_equal(view, x)


def test_outputs_are_the_callers_copies(tiny):
    x, _ = tiny_io()
    y1 = tiny.run({'x': x})['prob']
    keep = y1.copy()
    y2 = tiny.run({'x': x[:, ::-1].copy()})['prob']  # other values
    np.testing.assert_array_equal(y1, keep)
    assert not np.array_equal(y1, y2) and y1.flags.owndata and y1.flags.writeable


def test_non_contiguous_inputs(tiny):
    x, want = tiny_io()
    f = np.asfortranarray(x)
    assert not f.flags.c_contiguous
    np.testing.assert_allclose(tiny.run({'x': f})['prob'], want, rtol=1e-4, atol=1e-6)


def expect(fn, code_name, *parts):
    with pytest.raises(vkml.Error) as e:
        fn()
    assert isinstance(e.value, Exception)
    assert e.value.code_name == code_name, str(e.value)
    assert e.value.code == _lib.CODE_NAMES.index(code_name)
    for p in parts:
        assert p in str(e.value) and p in e.value.message, (p, str(e.value))


def test_run_errors(tiny):
    x, _ = tiny_io()
    expect(lambda: tiny.run({'x': x.astype(np.float64)}), 'INVALID_ARGUMENT',
           "input 'x': expected f32[1,3,17,17], given float64[1,3,17,17]")
    expect(lambda: tiny.run({'x': x[:, :2]}), 'INVALID_ARGUMENT',
           "input 'x': expected f32[1,3,17,17], given f32[1,2,17,17]")
    # the library's own message for a name the model lacks
    expect(lambda: tiny.run({'y': x}), 'INVALID_ARGUMENT', "no input named 'y'", "'x'")
    expect(lambda: tiny.run({}), 'INVALID_ARGUMENT', "input 'x' not given")
    expect(lambda: tiny.run({'x': x, 'y': x}), 'INVALID_ARGUMENT', "no input named 'y'")


def test_file_errors(tmp_path):
    expect(lambda: vkml.load(tmp_path / 'nope.vkm'), 'IO', 'nope.vkm')
    expect(lambda: vkml.compile(tmp_path / 'nope.onnx'), 'IO', 'nope.onnx', 'No such file')
    cut = tmp_path / 'cut.vkm'
    vkml.compile(os.path.join(TINY, 'model.vkir')).save(cut)
    cut.write_bytes(cut.read_bytes()[:1000])
    with pytest.raises(vkml.Error) as e:
        vkml.load(cut)
    assert e.value.code_name in ('CORRUPT', 'PARSE') and 'cut.vkm' in str(e.value)
    expect(lambda: vkml.load(None), 'INVALID_ARGUMENT', 'load: path must be a path')
    m = vkml.compile(os.path.join(TINY, 'model.vkir'), device='cpu')
    expect(lambda: m.save(tmp_path / 'no' / 'dir.vkm'), 'IO', 'dir.vkm')


def test_option_errors(smallnet_io, tmp_path):
    x, _ = smallnet_io
    onnx = os.path.join(REAL, 'smallnet_op13.onnx')
    shape = {'input': x.shape}
    expect(lambda: vkml.compile(onnx, shape, precision='fp8'), 'INVALID_ARGUMENT',
           "precision must be 'fp32' or 'fp16', given 'fp8'")
    expect(lambda: vkml.compile(onnx, shape, fallback='maybe'), 'INVALID_ARGUMENT',
           "fallback must be 'auto' or 'never'")
    expect(lambda: vkml.compile(onnx, shape, device='gpu'), 'INVALID_ARGUMENT',
           "device must be None")
    expect(lambda: vkml.load(os.path.join(TINY, 'x.npy'), device=-1), 'INVALID_ARGUMENT',
           "device must be None")
    # refused by the library, its message kept
    expect(lambda: vkml.compile(onnx, shape, cpu_ops=['nosuchop']), 'INVALID_ARGUMENT',
           "cpu_ops: unknown op 'nosuchop'")
    expect(lambda: vkml.compile(onnx, {'input': x.shape, 'nope': (1,)}), 'INVALID_ARGUMENT',
           "no input 'nope'")
    expect(lambda: vkml.compile(onnx, {'input': (1, 3, -4, 4)}), 'INVALID_ARGUMENT',
           'dimension 2 is -4')
    expect(lambda: vkml.compile(onnx), 'INVALID_ARGUMENT', "symbolic dimension")
    expect(lambda: vkml.compile(onnx, shape, db=tmp_path / 'no.db'), 'IO',
           'no.db')
    expect(lambda: vkml.compile(onnx, {'input': (1,) * 9}), 'INVALID_ARGUMENT',
           'rank 9 is out of range')
    expect(lambda: vkml.compile(onnx, {'input': 'abc'}), 'INVALID_ARGUMENT', 'input_shapes')
    expect(lambda: vkml.compile(os.path.join(TINY, 'model.vkir'), device=2 ** 20), 'INVALID_ARGUMENT',
           'device index 1048576 out of range')


def test_bench(tiny):
    b = tiny.bench(20, warmup=2)
    assert isinstance(b, vkml.Bench) and b.runs == 20
    assert 0 < b.min_ms <= b.median_ms <= b.p90_ms < 10000 and b.min_ms <= b.mean_ms
    x, _ = tiny_io()
    assert tiny.bench(5, warmup=0, inputs={'x': x}).runs == 5
    expect(lambda: tiny.bench(0), 'INVALID_ARGUMENT', 'n must be a positive integer')


def test_profile(smallnet, smallnet_io):
    x, _ = smallnet_io
    for m in (smallnet, vkml.compile(os.path.join(REAL, 'smallnet_op13.onnx'),
                                     input_shapes={'input': x.shape}, device='cpu')):
        steps = m.profile(3, warmup=1, inputs={'input': x})
        assert all(isinstance(s, vkml.StepTime) for s in steps) and len(steps) > 5
        on_cpu = m.device == 'cpu'
        assert {s.device for s in steps} == ({'cpu'} if on_cpu else {'gpu'})
        convs = [s for s in steps if s.op == 'conv2d']
        assert convs and all(s.flops > 0 and s.bytes > 0 for s in convs)
        assert all(s.ms is None or s.ms >= 0 for s in steps)
        assert sum(s.ms or 0 for s in steps) > 0
        assert all(bool(s.kernel) != on_cpu for s in convs)  # a GPU step names its kernel
    # the model's own instance is not the profiled one, and still runs
    np.testing.assert_allclose(smallnet.run({'input': x})['output'], smallnet_io[1], rtol=1e-4,
                               atol=1e-5)
    expect(lambda: smallnet.profile(0), 'INVALID_ARGUMENT', 'n must be a positive integer')
    expect(lambda: smallnet.profile(1, inputs={}), 'INVALID_ARGUMENT', "input 'input' not given")


def test_bounded_outputs_at_the_runs_size(tmp_path):
    nz = tmp_path / 'nz.vkir'
    nz.write_text('vkir 1\ngraph @nz(%x: i64[6]) -> (%y: i64[1,<=6]) {\n'
                  '  %y = non_zero %x : i64[1,<=6]\n  return %y\n}\n')
    cpu = vkml.load(nz, device='cpu')  # IR text: the CPU only
    assert cpu.outputs == (vkml.TensorInfo('y', np.dtype(np.int64), (1, 6), 1),)
    assert cpu.inputs[0].bounded_axis is None
    for m in (cpu, vkml.compile(nz)):
        for x, want in (([0, 5, 0, 7, 9, 0], [[1, 3, 4]]), ([1, 5, 0, 0, 0, 0], [[0, 1]]),
                        ([0] * 6, np.zeros((1, 0), np.int64))):
            y = m.run({'x': np.array(x, np.int64)})['y']
            assert y.dtype == np.int64
            np.testing.assert_array_equal(y, want)
    expect(lambda: vkml.load(nz).run({'x': np.zeros(6, np.int64)}), 'INVALID_ARGUMENT',
           'IR text runs on the CPU reference kernels only')


def test_threads_run_models_at_once():
    # the GIL is released in the foreign calls: ctypes.CDLL, not PyDLL
    assert type(_lib.runtime()) is ctypes.CDLL
    x, want = tiny_io()
    models = [vkml.compile(os.path.join(TINY, 'model.vkir'), device=d) for d in (None, 'cpu')]
    errors = []

    def work(m):
        try:
            for _ in range(20):
                np.testing.assert_allclose(m.run({'x': x})['prob'], want, rtol=1e-4, atol=1e-6)
        except Exception as e:  # reported by the main thread
            errors.append(e)

    ts = [threading.Thread(target=work, args=(m,)) for m in models + models]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors, errors


def test_closed_model(tmp_path):
    m = vkml.compile(os.path.join(TINY, 'model.vkir'), device='cpu')
    m.close()
    m.close()
    expect(lambda: m.run({}), 'INVALID_ARGUMENT', 'closed')
    expect(lambda: m.save(tmp_path / 'x.vkm'), 'INVALID_ARGUMENT', 'closed')


def test_example_prints_what_the_c_example_prints(tmp_path):
    """examples/run_model.py against examples/run_model.c on one artifact."""
    art = tmp_path / 't.vkm'
    vkml.compile(os.path.join(TINY, 'model.vkir')).save(art)
    script = os.path.join(ROOT, 'examples', 'run_model.py')
    for flag in ([], ['--cpu']):
        c = subprocess.run([os.environ['VKML_RUN_MODEL'], str(art)] + flag, check=True,
                           capture_output=True, text=True).stdout.splitlines()
        py = subprocess.run([sys.executable, script, str(art), '--runs', '3'] + flag,
                            check=True, capture_output=True, text=True).stdout.splitlines()
        assert py[:2] == c[:2] and py[-1] == c[-1], (py, c)  # device, outputs, memory
        assert py[2].startswith('3 runs: best ')
    bad = subprocess.run([sys.executable, script, str(tmp_path / 'nope.vkm')],
                         capture_output=True, text=True)
    assert bad.returncode == 1 and 'run_model: ' in bad.stderr and 'nope.vkm' in bad.stderr
    assert subprocess.run([sys.executable, script], capture_output=True).returncode == 2


def test_version():
    assert vkml.version().count('.') == 2
