/* vkml public C API, the compiler: an ONNX model (or IR text) compiled for
 * a Vulkan device into a loaded model (vkml.h) and/or a .vkm artifact,
 * as `vkc compile` does. Link with libvkml_compiler and libvkml_runtime
 * (pkg-config vkml-compiler).
 *
 *   vkml_compile_opts o = {.precision = VKML_PRECISION_FP16};
 *   vkml_model *m;
 *   vkml_status s = vkml_compile("net.onnx", &o, &m);
 *   ... vkml_instance_create(m, NULL, &inst) as in vkml.h ...
 *
 * Compiling opens the Vulkan device it compiles for (its kernels and limits
 * decide the plan); the model then runs on that device or on the CPU
 * reference kernels (VKML_DEVICE_CPU), like any artifact. Errors name the
 * file, the option or the node at fault (an op the compiler does not know
 * is UNSUPPORTED naming it and a node). */
#ifndef VKML_COMPILE_H
#define VKML_COMPILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vkml.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum vkml_precision {
  VKML_PRECISION_FP32 = 0,
  VKML_PRECISION_FP16, /* f16 tensors inside the graph; inputs and outputs keep their types */
} vkml_precision;

typedef enum vkml_fallback {
  VKML_FALLBACK_AUTO = 0, /* a node the GPU cannot run runs on the CPU */
  VKML_FALLBACK_NEVER,    /* such a node fails the compile, naming it and why */
} vkml_fallback;

typedef enum vkml_layout {
  VKML_LAYOUT_DEFAULT = 0, /* as the model annotates, else (ONNX) channels last
                              where it pays: the fp16 tensor-core convs' regions
                              (vkc --layout auto) */
  VKML_LAYOUT_NC4HW4,      /* packed channels between the kernels that take them */
  VKML_LAYOUT_NHWC,        /* channels last between the kernels that take them */
  VKML_LAYOUT_ROWS,        /* as the model annotates, else row-major everywhere
                              (vkc --layout default) */
} vkml_layout;

typedef enum vkml_memory_planner {
  VKML_PLANNER_BEST = 0, /* offset packing by lifetime (never worse than the others) */
  VKML_PLANNER_NAIVE,    /* every intermediate its own space */
  VKML_PLANNER_GREEDY,   /* shared objects, closest size (TFLite-GPU) */
  VKML_PLANNER_MCFP,     /* shared objects by minimum-cost flow (TFLite-GPU) */
} vkml_memory_planner;

#define VKML_MAX_INPUT_SHAPES 64

/* A fixed shape for an input of an ONNX model (its symbolic dimensions). */
typedef struct vkml_input_shape {
  const char *name;
  int rank;
  int64_t dims[VKML_MAX_RANK];
} vkml_input_shape;

/* Valid when zero-initialized (and NULL means zero-initialized). Strings
 * and arrays are read during the call only. */
typedef struct vkml_compile_opts {
  vkml_precision precision;
  int n_input_shapes; /* at most VKML_MAX_INPUT_SHAPES */
  const vkml_input_shape *input_shapes;
  /* Ops kept on the CPU: comma-separated IR names or ONNX spellings
   * ("Conv,softmax"); NULL: none. */
  const char *cpu_ops;
  vkml_fallback fallback;
  /* Each GPU kernel's schedule from this schedule database (vktune): this
   * device's best, else the nearest device's, else the default. NULL: the
   * defaults. */
  const char *db;
  vkml_device_kind device; /* the device compiled for: DEFAULT or INDEX (not CPU) */
  int index;               /* with VKML_DEVICE_INDEX */
  vkml_layout layout;
  vkml_memory_planner memory_planner;
  /* Also write the artifact here (a .vkm; written whole or not at all). */
  const char *artifact_path;
} vkml_compile_opts;

/* Compiles the model at path (.onnx, or .vkir with its .bin beside it).
 * *out (may be NULL when opts->artifact_path is set: the file only) is
 * freed with vkml_model_free; vkml_model_artifact gives its bytes. */
VKML_API vkml_status vkml_compile(const char *path, const vkml_compile_opts *opts,
                                  vkml_model **out);
/* The same from bytes: an ONNX model (its weights inside it), or IR text
 * with inline constants. */
VKML_API vkml_status vkml_compile_memory(const void *data, size_t bytes,
                                         const vkml_compile_opts *opts, vkml_model **out);

/* "MAJOR.MINOR.PATCH" of the linked compiler library. */
VKML_API const char *vkml_compiler_version(void);

#ifdef __cplusplus
}
#endif
#endif
