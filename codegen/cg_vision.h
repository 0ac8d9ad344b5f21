/* Vision-op kernels (cg_vision.c): the scan template of the cumsum family
 * (glsl/scan.comp) and roi_align (glsl/roi_align.comp: one output element
 * per invocation step, the elementwise space) and topk (glsl/topk.comp: a
 * workgroup per row, radix select, collection, bitonic sort of the k
 * candidates in shared memory; a static k up to what shared memory holds).
 * non_max_suppression has no GPU kernel yet (UNSUPPORTED: it runs on the
 * CPU).
 *
 * scan knobs:
 *   WG_SIZE  invocations per workgroup {32..1024}
 *   R        elements per invocation in a blocked chunk {1,2,4,8,16}
 *   MODE     0: chosen from the shape; 1: one invocation per row, serial;
 *            2: one workgroup per row, blocked (register block, then a
 *            Hillis-Steele scan over the invocations' totals, then the
 *            add-back); 3: tiled (a workgroup per 32 neighbouring columns of
 *            a strided axis, segments along it: totals, offsets, rescan)
 * Default WG_SIZE=128, R=4, MODE=0 (valid on every device). */
#ifndef CG_VISION_H
#define CG_VISION_H

#include "codegen/cg_kernel.h"

extern const cg_template cg_scan_template;      /* scan.comp */
extern const cg_template cg_roi_align_template; /* roi_align.comp: WG_SIZE, EPI */
extern const cg_template cg_topk_template;      /* topk.comp: WG_SIZE */

enum { CG_SCAN_WG = 0, CG_SCAN_R = 1, CG_SCAN_MODE = 2 };

#endif
