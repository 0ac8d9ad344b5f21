/* A device's measured ceilings (bench/peaks.c, vkml-peaks, writes them; a
 * profiled instance reads them, vkml_instance_profile's roofs): one small
 * JSON object per device in the vkml cache, peaks-<pipelineCacheUUID
 * hex>.json, beside the pipeline cache:
 *
 *   {"device": "NVIDIA H100 80GB HBM3", "driver": "580.159.4",
 *    "fma_f32_gflops": 51000.0, "fma_f16_gflops": ..., "coopmat_f16_gflops": ...,
 *    "coopmat_f32_gflops": ..., "copy_gbs": 2900.0, "tool": "vkml-peaks 0.1.0"}
 *
 * A peak the device lacks (no fp16 arithmetic, no cooperative matrices) is
 * absent or 0. */
#ifndef RT_VK_PEAKS_H
#define RT_VK_PEAKS_H

#include <stddef.h>

#include "ir/graph.h"
#include "ir/target.h"
#include "vkml_status.h"

typedef struct rt_vk_peaks {
  double fma_f32_gflops;     /* fp32 fused multiply-adds, 2 flops each */
  double fma_f16_gflops;     /* fp16 (packed where the device packs them) */
  double coopmat_f16_gflops; /* cooperative matrices, fp16 x fp16 -> fp16 */
  double coopmat_f32_gflops; /* fp16 x fp16 -> fp32 */
  double copy_gbs;           /* a device-local copy: bytes read + written */
} rt_vk_peaks;

/* The peaks file of device t (malloc'd; NULL when there is no cache
 * directory or out of memory). */
char *rt_vk_peaks_path(const ir_target *t);

/* Reads path: every value finite and non-negative, else CORRUPT naming the
 * file and the key; a missing file is IO. */
vkml_status rt_vk_peaks_read(const char *path, rt_vk_peaks *out);

/* The roofs of a GPU kernel: a cooperative-matrix template's multiply-add
 * rate for its accumulator (schedule ACC=16: fp16, else fp32), another
 * kernel's FMA rate of its output type; the copy bandwidth. 0: unknown. */
void rt_vk_peaks_roofs(const rt_vk_peaks *pk, const char *tmpl, const char *schedule,
                       ir_dtype out_dtype, double *gflops, double *gbs);

#endif
