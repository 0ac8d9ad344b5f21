/* non_max_suppression's boxes and overlap test, shared by its CPU kernels
 * (k_vision.c) and those of its one-row GPU stages (k_nms_window.c).
 * Internal to runtime/cpu/. */
#ifndef RT_CPU_K_NMS_H
#define RT_CPU_K_NMS_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime/tensor.h"

typedef struct nms_box {
  float x_min, y_min, x_max, y_max;
} nms_box;

/* Box `at` (its first element) of boxes: corners in either order, or
 * [x_center, y_center, width, height] when center. */
nms_box rt_nms_load_box(const rt_tensor *boxes, int64_t at, bool center);
/* Whether kept box a suppresses b: their IoU in float (onnxruntime's
 * SuppressByIOU) above the threshold. */
bool rt_nms_suppress(const nms_box *a, const nms_box *b, float iou_threshold);

#endif
