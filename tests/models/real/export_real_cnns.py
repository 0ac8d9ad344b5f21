#!/usr/bin/env python3
"""Exports real CNNs with dynamic input dimensions and records onnxruntime's
outputs on fixed inputs. Run where torch, torchvision and onnxruntime exist
(the GPU machine; see README there): python3 export_real_cnns.py OUTDIR

Produces, per model: NAME.onnx (dynamic batch/height/width), NAME.input.npy,
NAME.ort.npy (onnxruntime CPU output for that input), and prints versions."""
import sys, os
import numpy as np
import torch, torchvision, onnx, onnxruntime as ort

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
torch.manual_seed(0)


class SmallNet(torch.nn.Module):
    """Typical exported-model patterns: conv-bn-relu, depthwise separable with
    relu6, a residual add, hardswish, maxpool with ceil_mode, upsample,
    concat, adaptive pooling and x.view(x.size(0), -1) (a Shape/Gather/
    Concat/Reshape subgraph)."""

    def __init__(self):
        super().__init__()
        nn = torch.nn
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU())
        self.dw = nn.Sequential(nn.Conv2d(16, 16, 3, 1, 1, groups=16, bias=False), nn.BatchNorm2d(16), nn.ReLU6(),
                                nn.Conv2d(16, 16, 1, bias=False), nn.BatchNorm2d(16))
        self.pool = nn.MaxPool2d(3, 2, ceil_mode=True)
        self.c2 = nn.Sequential(nn.Conv2d(16, 24, 3, 1, 1), nn.Hardswish())
        self.head = nn.Linear(48, 10)

    def forward(self, x):
        x = self.stem(x)
        x = x + self.dw(x)
        y = self.c2(self.pool(x))
        z = torch.nn.functional.interpolate(y, scale_factor=2.0, mode="nearest")
        z = torch.nn.functional.adaptive_avg_pool2d(z, 1)
        y = torch.amax(y, dim=(2, 3), keepdim=True)
        h = torch.cat([y, z], dim=1)
        h = h.view(h.size(0), -1)
        return torch.softmax(self.head(h), dim=1)


def export(name, model, shape, opset):
    model.eval()
    for m in model.modules():  # non-trivial batchnorm statistics
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.uniform_(-0.2, 0.2)
            m.running_var.uniform_(0.5, 1.5)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.2, 0.2)
    x = torch.rand(*shape) * 2 - 1
    path = os.path.join(out, name + ".onnx")
    # dynamo=False: the TorchScript exporter, whose graphs (Shape/Gather/
    # Concat shape arithmetic) are what most exported models in the wild look like.
    torch.onnx.export(model, x, path, opset_version=opset, input_names=["input"], output_names=["output"],
                      dynamic_axes={"input": {0: "batch", 2: "height", 3: "width"}, "output": {0: "batch"}},
                      dynamo=False)
    onnx.checker.check_model(onnx.load(path))
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    y = sess.run(None, {"input": x.numpy()})[0]
    with torch.no_grad():
        yt = model(x).numpy()
    print(name, "opset", opset, "ort vs torch max abs diff", float(np.abs(y - yt).max()), "size", os.path.getsize(path))
    np.save(os.path.join(out, name + ".input.npy"), x.numpy())
    np.save(os.path.join(out, name + ".ort.npy"), y)


print("torch", torch.__version__, "torchvision", torchvision.__version__, "onnx", onnx.__version__,
      "onnxruntime", ort.__version__)
export("smallnet_op13", SmallNet(), (1, 3, 40, 48), 13)
export("squeezenet1_1_op11", torchvision.models.squeezenet1_1(weights=None), (1, 3, 224, 224), 11)
