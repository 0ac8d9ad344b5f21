#!/usr/bin/env python3
"""Shrunken torchvision detectors for the end-to-end detection tests.

Each model is torchvision's own detection class (SSD, FasterRCNN, RetinaNet)
with its own anchors, heads, transform and post-processing -- the graph parts
that hold NonZero, GatherND, TopK, If, NonMaxSuppression, RoiAlign and
ScatterElements -- on a narrow backbone, so the files fit in tests/models and
run in seconds on lavapipe. Random, seeded weights: He-normal convolutions,
the heads' last layers scaled on the test image so that class logits spread
(no saturated or tied scores) and box deltas stay small (distinct boxes);
score thresholds lowered so detections exist. Exported as a user
would (torch.onnx.export, opset 11, TorchScript exporter, fixed image size),
with onnxruntime's CPU outputs on one random image each.

Run where torch, torchvision and onnxruntime exist (the GPU machine):
    python3 export_small_detectors.py OUTDIR [name ...]
Writes per model NAME.onnx, NAME.image.npy (u8[3,H,W]; the model's input is
it divided by 255, f32), NAME.ort.{boxes,scores,labels}.npy, all of them also
in OUTDIR/detectors.tar,
and prints sizes, detection counts, torch vs onnxruntime agreement and the
score gaps among the top detections (what the fp16 check can rely on)."""
import math, os, re, sys, tarfile, time
from collections import OrderedDict
import numpy as np
import torch, torchvision, onnxruntime as ort
from torch import nn
from torchvision.models.detection.faster_rcnn import FasterRCNN
from torchvision.models.detection.retinanet import RetinaNet
from torchvision.models.detection.ssd import SSD
from torchvision.models.detection.ssdlite import ssdlite320_mobilenet_v3_large
from torchvision.models.detection.anchor_utils import AnchorGenerator, DefaultBoxGenerator
from torchvision.models.detection.backbone_utils import BackboneWithFPN
from torchvision.models.detection.faster_rcnn import FastRCNNPredictor, TwoMLPHead
from torchvision.ops.feature_pyramid_network import LastLevelMaxPool, LastLevelP6P7

CLASSES = 21  # background + 20 (VOC-sized): the per-class post-processing stays, smaller heads


def conv(cin, cout, stride=1):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1), nn.ReLU())


class TinyVGG(nn.Module):
    """SSD300-VGG16's six feature maps (38, 19, 10, 5, 3, 1 at 300x300) from a
    narrow VGG-style stack: conv3x3+ReLU, ceil-mode max pools, conv4_3's
    L2 normalisation with a learned scale, a dilated fc6 and the extras."""

    def __init__(self, c=16):
        super().__init__()
        self.stage4 = nn.Sequential(conv(3, c), nn.MaxPool2d(2, 2), conv(c, c), nn.MaxPool2d(2, 2),
                                    conv(c, 2 * c), nn.MaxPool2d(2, 2, ceil_mode=True), conv(2 * c, 2 * c))
        self.scale = nn.Parameter(torch.rand(2 * c) * 10 + 5)
        self.fc = nn.Sequential(nn.MaxPool2d(2, 2), conv(2 * c, 2 * c),
                                nn.MaxPool2d(3, 1, 1), nn.Conv2d(2 * c, 4 * c, 3, padding=6, dilation=6),
                                nn.ReLU(), nn.Conv2d(4 * c, 4 * c, 1), nn.ReLU())
        self.extra = nn.ModuleList([
            nn.Sequential(nn.Conv2d(4 * c, c, 1), nn.ReLU(), nn.Conv2d(c, 2 * c, 3, 2, 1), nn.ReLU()),
            nn.Sequential(nn.Conv2d(2 * c, c, 1), nn.ReLU(), nn.Conv2d(c, 2 * c, 3, 2, 1), nn.ReLU()),
            nn.Sequential(nn.Conv2d(2 * c, c, 1), nn.ReLU(), nn.Conv2d(c, 2 * c, 3), nn.ReLU()),
            nn.Sequential(nn.Conv2d(2 * c, c, 1), nn.ReLU(), nn.Conv2d(c, 2 * c, 3), nn.ReLU()),
        ])

    def forward(self, x):
        x = self.stage4(x)
        out = [self.scale.view(1, -1, 1, 1) * nn.functional.normalize(x)]
        x = self.fc(x)
        out.append(x)
        for e in self.extra:
            x = e(x)
            out.append(x)
        return OrderedDict((str(i), v) for i, v in enumerate(out))


class TinyResNetBody(nn.Module):
    """ResNet-shaped body for the FPN: stem at stride 4, then layer1..layer4
    at strides 4, 8, 16, 32 with a residual block each."""

    def __init__(self, widths):
        super().__init__()
        self.stem = nn.Sequential(conv(3, widths[0], 2), nn.MaxPool2d(3, 2, 1))
        cin = widths[0]
        for i, w in enumerate(widths):
            setattr(self, "layer%d" % (i + 1), Block(cin, w, 1 if i == 0 else 2))
            cin = w

    def forward(self, x):
        x = self.stem(x)
        for i in range(4):
            x = getattr(self, "layer%d" % (i + 1))(x)
        return x


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.a = nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1), nn.BatchNorm2d(cout), nn.ReLU())
        self.b = nn.Sequential(nn.Conv2d(cout, cout, 3, 1, 1), nn.BatchNorm2d(cout))
        self.skip = nn.Sequential(nn.Conv2d(cin, cout, 1, stride), nn.BatchNorm2d(cout))

    def forward(self, x):
        return torch.relu(self.b(self.a(x)) + self.skip(x))


def ssdlite():
    # torchvision's SSDlite320-MobileNetV3-Large, its backbone at width 0.25
    return ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None, num_classes=CLASSES,
                                         width_mult=0.25, score_thresh=0.01), 320


def ssd300():
    # ssd300_vgg16's anchors, head, transform and post-processing
    anchors = DefaultBoxGenerator([[2], [2, 3], [2, 3], [2, 3], [2], [2]],
                                  scales=[0.07, 0.15, 0.33, 0.51, 0.69, 0.87, 1.05],
                                  steps=[8, 16, 32, 64, 100, 300])
    return SSD(TinyVGG(), anchors, (300, 300), CLASSES, image_mean=[0.48235, 0.45882, 0.40784],
               image_std=[1.0 / 255.0, 1.0 / 255.0, 1.0 / 255.0], score_thresh=0.01), 300


def frcnn():
    # fasterrcnn_mobilenet_v3_large_320_fpn: MobileNetV3-Large (width 0.25)
    # features, FPN over its last two stages plus a max-pool level, its RPN
    # settings at 320, a narrow box head
    feats = torchvision.models.mobilenet_v3_large(weights=None, width_mult=0.25).features
    with torch.no_grad():
        x, strides = torch.zeros(1, 3, 320, 320), []
        for i, f in enumerate(feats):
            x = f(x)
            strides.append((i, 320 // x.shape[-1], x.shape[1]))
    c4 = max(i for i, s, _ in strides if s == 16)
    c5 = len(feats) - 1
    body = BackboneWithFPN(feats, {str(c4): "0", str(c5): "1"}, [strides[c4][2], strides[c5][2]], 32,
                           extra_blocks=LastLevelMaxPool())
    anchors = AnchorGenerator(((32, 64, 128, 256, 512),) * 3, ((0.5, 1.0, 2.0),) * 3)
    return FasterRCNN(body, None, rpn_anchor_generator=anchors, min_size=320, max_size=320,
                      rpn_pre_nms_top_n_test=150, rpn_post_nms_top_n_test=150, rpn_score_thresh=0.05,
                      box_head=TwoMLPHead(32 * 7 * 7, 64), box_predictor=FastRCNNPredictor(64, CLASSES),
                      box_score_thresh=0.01), 320


def retinanet():
    # retinanet_resnet50_fpn: FPN over C3..C5 plus P6/P7, its anchors, head
    # and per-level top-k post-processing; a narrow ResNet-shaped body, 256 px
    body = TinyResNetBody([8, 16, 32, 64])
    backbone = BackboneWithFPN(body, {"layer2": "0", "layer3": "1", "layer4": "2"}, [16, 32, 64], 16,
                               extra_blocks=LastLevelP6P7(16, 16))
    return RetinaNet(backbone, CLASSES, min_size=256, max_size=256, score_thresh=0.01), 256


MODELS = {"ssdlite": ssdlite, "ssd300": ssd300, "frcnn": frcnn, "retinanet": retinanet}


def reinit(model):
    """He-normal convolutions and linears with small random biases, batch
    norms with non-trivial statistics."""
    for m in model.modules():
        if isinstance(m, (nn.Conv2d, nn.Linear)):
            nn.init.normal_(m.weight, 0.0, math.sqrt(2.0 / m.weight[0].numel()))
            if m.bias is not None:
                nn.init.uniform_(m.bias, -0.1, 0.1)
        elif isinstance(m, nn.BatchNorm2d):
            m.running_mean.uniform_(-0.1, 0.1)
            m.running_var.uniform_(0.8, 1.2)


FINAL = [(re.compile(r".*cls_logits$"), 0.7),  # sigmoid scores (RetinaNet, the RPN)
         (re.compile(r".*(cls_score|classification_head\.module_list\.\d+(\.1)?)$"), 1.5),
         (re.compile(r".*(bbox_reg|bbox_pred|regression_head\.module_list\.\d+(\.1)?)$"), 0.3)]


def calibrate(model, x):
    """Scales the heads' last layers so that class logits have a standard
    deviation of 1.5 (softmax) or 0.7 (sigmoid) on this image (scores spread
    instead of saturating or tying) and box deltas 0.3 (boxes stay distinct
    and mostly inside)."""
    layers = [(m, std) for name, m in model.named_modules() for pat, std in FINAL
              if isinstance(m, (nn.Conv2d, nn.Linear)) and pat.match(name)]
    for _ in range(3):
        seen = {}
        hooks = [m.register_forward_hook(lambda m, i, o: seen.setdefault(m, []).append(o.flatten()))
                 for m, _ in layers]
        with torch.no_grad():
            model([x])
        for h in hooks:
            h.remove()
        with torch.no_grad():
            for m, std in layers:
                if m in seen:
                    k = std / float(torch.cat(seen[m]).std().clamp_min(1e-12))
                    m.weight.mul_(k)
                    if m.bias is not None:
                        m.bias.mul_(k)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name in sys.argv[2:] or list(MODELS):
        torch.manual_seed(0)
        model, size = MODELS[name]()
        reinit(model)
        model.eval()
        image = torch.randint(0, 256, (3, size, size), dtype=torch.uint8)
        x = image.float() / 255.0
        calibrate(model, x)
        with torch.no_grad():
            ref = model([x])[0]
        keys = list(ref)  # the outputs in the model's order (Faster R-CNN: boxes, labels, scores)
        path = os.path.join(out, name + ".onnx")
        t0 = time.time()
        torch.onnx.export(model, ([x],), path, opset_version=11, input_names=["image"],
                          output_names=keys, dynamo=False)
        sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        ys = sess.run(None, {sess.get_inputs()[0].name: x.numpy()})
        np.save(os.path.join(out, name + ".image.npy"), image.numpy())
        for k, y in zip(keys, ys):
            np.save(os.path.join(out, "%s.ort.%s.npy" % (name, k)), y)
        ys = [ys[keys.index(k)] for k in ("boxes", "scores", "labels")]
        n = len(ys[0])
        same = n == len(ref["boxes"]) and np.array_equal(ys[2], ref["labels"].numpy())
        box = float(np.abs(ys[0] - ref["boxes"].numpy()).max()) if same and n else float("nan")
        s = ys[1]
        gaps = np.abs(np.diff(s[:11])) / np.maximum(s[1:11], 1e-30) if n > 1 else np.zeros(0)
        print("%s: %d bytes, %.1f s; ort %d detections (torch %d, labels %s, boxes max|diff| %.2g); "
              "scores %.3g..%.3g, smallest relative gap among the top 11 %.3g; labels %s" %
              (name, os.path.getsize(path), time.time() - t0, n, len(ref["boxes"]),
               "equal" if same else "DIFFER", box, s.max() if n else 0, s.min() if n else 0,
               gaps.min() if len(gaps) else 0, np.bincount(ys[2].astype(np.int64), minlength=CLASSES).tolist()))
    with tarfile.open(os.path.join(out, "detectors.tar"), "w") as t:
        for f in sorted(os.listdir(out)):
            if f != "detectors.tar":
                t.add(os.path.join(out, f), f)
    print("torch", torch.__version__, "torchvision", torchvision.__version__, "onnxruntime", ort.__version__)


if __name__ == "__main__":
    main()
