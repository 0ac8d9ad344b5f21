/* vkml public C API: load a compiled artifact (.vkm, from `vkc compile` or
 * `vktune -o`) and run it on a Vulkan device or the CPU reference kernels.
 * Link with the runtime library only (pkg-config vkml); the Vulkan loader is
 * opened at run time.
 *
 *   vkml_model *m;        vkml_model_load("net.vkm", &m);
 *   vkml_instance *inst;  vkml_instance_create(m, NULL, &inst);
 *   vkml_set_input(inst, "x", VKML_F32, 4, dims, data);
 *   vkml_run(inst);
 *   vkml_get_output(inst, "y", out, sizeof out);
 *   vkml_instance_destroy(inst); vkml_model_free(m);
 *
 * Errors: every call that can fail returns a vkml_status (vkml_status.h):
 * NULL on success, else an error the caller frees, with a code and a message
 * naming the file, tensor or feature at fault.
 *
 * Threads: a model is read-only once loaded; any number of threads may
 * create instances from it at once. An instance belongs to one thread at a
 * time; instances of one model run concurrently from different threads.
 * Destroy every instance before freeing its model.
 *
 * Weights: the instances of one model on one device share a single device
 * copy of the weights (uploaded when the first instance is created on that
 * device, freed with the last); each instance adds its own activations,
 * inputs and outputs. See vkml_instance_memory.
 *
 * Reports (the end of this file): what a model holds (its provenance and
 * steps) and what an instance measured (per-step times with their roofs,
 * run statistics, load times): everything vkrun prints, vkrun being an
 * application of this header. Tensor files (.npy, .pb) in and out. Every
 * function refuses NULL or out-of-range arguments with
 * VKML_CODE_INVALID_ARGUMENT naming the function and the argument. */
#ifndef VKML_H
#define VKML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vkml_status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define VKML_VERSION_MAJOR 0
#define VKML_VERSION_MINOR 1
#define VKML_VERSION_PATCH 0

/* "MAJOR.MINOR.PATCH" of the linked runtime library. */
VKML_API const char *vkml_version(void);

/* Element types (the values match the IR's). */
typedef enum vkml_dtype {
  VKML_F32 = 0,
  VKML_F16,
  VKML_I32,
  VKML_I64,
  VKML_U8,
  VKML_I8,
  VKML_BOOL,
} vkml_dtype;

#define VKML_MAX_RANK 8

/* A model input or output. name is valid as long as the model. */
typedef struct vkml_tensor_info {
  const char *name;
  vkml_dtype dtype;
  int rank;
  int64_t dims[VKML_MAX_RANK];
  size_t bytes; /* dense size of the whole tensor */
  /* -1; or the axis of a data-dependent size (an output of NonZero,
   * NonMaxSuppression, TopK with a run-time k): dims[bounded_axis] is its
   * capacity, the run's size is vkml_output_shape's */
  int bounded_axis;
} vkml_tensor_info;

typedef struct vkml_model vkml_model;
typedef struct vkml_instance vkml_instance;

/* Loads an artifact file: mapped, every section's checksum verified (a
 * corrupt or truncated file is refused naming the section, a newer format
 * naming both versions). The weights' checksum runs on a thread of its own
 * while the caller goes on (typically creating a device); damaged weights
 * are reported by what first needs them, vkml_instance_create or
 * vkml_model_artifact, and nothing reads them before they pass. */
VKML_API vkml_status vkml_model_load(const char *path, vkml_model **out);
/* The same from memory. The bytes are used in place (weights are not
 * copied): they must stay valid and unchanged until vkml_model_free. */
VKML_API vkml_status vkml_model_load_memory(const void *data, size_t bytes, vkml_model **out);
/* The same, the model taking the bytes over: release(data, bytes) is
 * called once, when the model is freed or when loading fails (how
 * vkml_compile hands its artifact over). release may be NULL. */
VKML_API vkml_status vkml_model_load_owned(void *data, size_t bytes,
                                           void (*release)(void *data, size_t bytes),
                                           vkml_model **out);
/* The artifact the model was loaded from (its mapped file, its bytes):
 * *data stays valid until vkml_model_free. Written to a file, it loads as
 * the same model (vkml_compile's output saved). CORRUPT where the weights
 * of a loaded file failed their checksum. */
VKML_API vkml_status vkml_model_artifact(const vkml_model *m, const void **data, size_t *bytes);
/* IR text (.vkir, its weights in NAME.bin beside it) as a model for the
 * CPU reference kernels only (VKML_DEVICE_CPU; other devices are refused:
 * compile it with vkml_compile or vkc compile). The graph is verified. */
VKML_API vkml_status vkml_model_load_ir(const char *path, vkml_model **out);
/* Safe on NULL. All its instances must be destroyed first. */
VKML_API void vkml_model_free(vkml_model *m);

VKML_API int vkml_model_input_count(const vkml_model *m);
VKML_API int vkml_model_output_count(const vkml_model *m);
/* Input / output i (0-based); INVALID_ARGUMENT when out of range. */
VKML_API vkml_status vkml_model_input(const vkml_model *m, int i, vkml_tensor_info *out);
VKML_API vkml_status vkml_model_output(const vkml_model *m, int i, vkml_tensor_info *out);
/* By name; an unknown name is INVALID_ARGUMENT listing the model's names. */
VKML_API vkml_status vkml_model_find_input(const vkml_model *m, const char *name,
                                           vkml_tensor_info *out);
VKML_API vkml_status vkml_model_find_output(const vkml_model *m, const char *name,
                                            vkml_tensor_info *out);

typedef enum vkml_device_kind {
  VKML_DEVICE_DEFAULT = 0, /* the default Vulkan device (VKML_DEVICE, else the first
                              discrete GPU, else any) */
  VKML_DEVICE_INDEX,       /* Vulkan device number `index` (vulkaninfo order) */
  VKML_DEVICE_CPU,         /* the CPU reference kernels (no Vulkan needed) */
} vkml_device_kind;

typedef enum vkml_wait {
  VKML_WAIT_BLOCK = 0, /* sleep until the GPU is done (default) */
  VKML_WAIT_SPIN,      /* poll: lowest latency, one core busy while waiting */
  VKML_WAIT_HYBRID,    /* sleep 3/4 of the last run's time, then poll */
} vkml_wait;

/* Valid when zero-initialized (and NULL means zero-initialized). */
typedef struct vkml_instance_opts {
  vkml_device_kind device;
  int index;        /* with VKML_DEVICE_INDEX */
  vkml_wait wait;
  bool validation;  /* VK_LAYER_KHRONOS_validation; its errors fail the call */
  bool profile;     /* time every step of each run (vkml_instance_profile):
                       GPU timestamps where the device has them */
  bool staged_inputs; /* copy inputs in from staging even where the kernels
                         could read them where the host writes them
                         (comparisons; vkml_memory.staging_bytes grows) */
} vkml_instance_opts;

/* Creates an instance of m on a device. Errors name what is missing: no
 * Vulkan loader or device, a feature the artifact needs (fp16, cooperative
 * matrix, subgroup size, shared memory), or device memory (with the sizes).
 * Instances on one device share its weights (created on the first, which
 * also creates the device's context: instances created with the same
 * options share it). */
VKML_API vkml_status vkml_instance_create(vkml_model *m, const vkml_instance_opts *opts,
                                          vkml_instance **out);
/* Safe on NULL. */
VKML_API void vkml_instance_destroy(vkml_instance *inst);

/* Copies an input in. dtype, rank and dims must match the model's input: a
 * mismatch (or an unknown name) is INVALID_ARGUMENT naming the expected
 * one. Inputs keep their values across runs until set again. */
VKML_API vkml_status vkml_set_input(vkml_instance *inst, const char *name, vkml_dtype dtype,
                                    int rank, const int64_t *dims, const void *data);
/* Runs the model on the current inputs. */
VKML_API vkml_status vkml_run(vkml_instance *inst);
/* Copies the last run's output out; bytes must be its size
 * (vkml_tensor_info.bytes), else INVALID_ARGUMENT naming it. An output with
 * a bounded axis is written dense at the run's shape (vkml_output_shape):
 * its leading bytes, the rest of the capacity left as it was. */
VKML_API vkml_status vkml_get_output(vkml_instance *inst, const char *name, void *data,
                                     size_t bytes);
/* The shape of the last run's output: the model's (vkml_model_find_output),
 * but along a bounded axis the run's size, and bytes the run's. */
VKML_API vkml_status vkml_output_shape(const vkml_instance *inst, const char *name,
                                       vkml_tensor_info *out);

/* Tensor files: NumPy .npy (format 1 to 3, little-endian, C order) or ONNX
 * TensorProto .pb, by the name's extension. Errors name the file. */
/* Sets input name from the file at path. Its dtype and shape must be the
 * input's, except that float64 values (NumPy's default; vkml has no f64)
 * are converted to an f32 or f16 input's type, *converted (may be NULL) then
 * true; for an input of another type they are refused naming both types. */
VKML_API vkml_status vkml_set_input_file(vkml_instance *inst, const char *name,
                                         const char *path, bool *converted);
/* Writes the last run's output name as a .npy file at path (at the run's
 * shape), replacing it: written to a temporary file beside it, renamed
 * when complete. */
VKML_API vkml_status vkml_write_output_file(const vkml_instance *inst, const char *name,
                                            const char *path);

/* Zero copy: the memory an input is read from / an output is written to
 * (host-visible memory the GPU copies from and to within its one
 * submission, on plans whose every step runs on the GPU; host memory of the
 * instance otherwise). Dense, in the model's dtype and shape. The pointers
 * stay valid until the instance is destroyed: write inputs before
 * vkml_run, read outputs after it. */
VKML_API vkml_status vkml_input_memory(vkml_instance *inst, const char *name, void **data);
VKML_API vkml_status vkml_output_memory(vkml_instance *inst, const char *name, const void **data);

/* Memory an instance uses. */
typedef struct vkml_memory {
  uint64_t weights_bytes;   /* device bytes of the model's weights on this device */
  int weights_users;        /* instances sharing them now (this one included) */
  uint64_t instance_bytes;  /* device bytes of this instance's own: activations
                               arena, inputs, outputs */
  uint64_t arena_bytes;     /* of which the intermediates' arena */
  uint64_t staging_bytes;   /* host-visible bytes for inputs and outputs */
  uint64_t device_used_bytes; /* the device allocator's live bytes, every
                                 instance of the model on this device */
  bool lean;                /* runs are one submission (every step on the GPU) */
} vkml_memory;
VKML_API vkml_status vkml_instance_memory(const vkml_instance *inst, vkml_memory *out);

/* The device's name ("cpu" for VKML_DEVICE_CPU); valid for the instance's life. */
VKML_API const char *vkml_instance_device(const vkml_instance *inst);

/* ---- What a model holds (vkrun --info) --------------------------------------------- */

/* Where a compiled model came from: its artifact's provenance section.
 * Strings are valid as long as the model; "" where the artifact does not
 * say (a model from vkml_model_load_ir has no artifact). */
typedef struct vkml_provenance {
  int format;             /* artifact format version */
  const char *tool;       /* what compiled it, with its version ("vkc 0.1.0") */
  const char *precision;  /* "fp32" or "fp16" */
  const char *device;     /* the Vulkan device it was compiled for */
  /* that device as the schedule database keys it (vendor:device:driver
   * id:driver version, hex; vkdb devices) */
  const char *device_key;
  uint32_t vendor_id, device_id, driver_id, driver_version, api_version;
  const char *schedules;  /* "default", or the schedule database it read */
  int n_kernels;          /* GPU steps */
  int n_tuned;            /* of them, schedules tuned on the device compiled for */
  int n_nearest;          /* tuned on the nearest device with a record */
  int n_default;          /* the defaults */
  int n_confirmed;        /* tuned ones vktune confirmed against the default */
} vkml_provenance;
VKML_API vkml_status vkml_model_provenance(const vkml_model *m, vkml_provenance *out);

/* ---- Steps, profiles and load times (vkrun --bench and --profile) ------------------ */

/* A model runs as steps, one per node of its compiled graph, in order. What
 * step i is; strings valid as long as the model, "" where they do not
 * apply. */
typedef struct vkml_step {
  const char *op;          /* the IR op ("conv2d", "download") */
  const char *output;      /* its first output's name */
  vkml_dtype dtype;        /* and that output's type (dims: capacities) */
  int rank;
  int64_t dims[VKML_MAX_RANK];
  const char *device;      /* where the plan puts it: "gpu", "cpu", or "copy"
                              (a transfer between host and device) */
  const char *kernel;      /* GPU: the kernel's template */
  const char *schedule;    /* GPU: its schedule */
  const char *workload;    /* GPU: the workload key (vktune, vkdb) */
  /* GPU: where the schedule came from: "default", "tuned" (on the device
   * compiled for) or "nearest" (tuned on schedule_device) */
  const char *schedule_source;
  const char *schedule_device; /* the database's device key, with a tuned one */
  bool confirmed;          /* vktune confirmed it against the default */
  const char *note;        /* CPU: why it is not on the GPU; copy: "host to
                              device" or "device to host" */
  double flops;            /* arithmetic per run (2 per multiply-add; 0: not counted) */
  double bytes;            /* bytes read and written per run (a copy: once) */
} vkml_step;
VKML_API int vkml_model_step_count(const vkml_model *m);
VKML_API vkml_status vkml_model_step(const vkml_model *m, int i, vkml_step *out);

/* Step i of the instance's last vkml_run or vkml_replay. */
typedef struct vkml_step_profile {
  double seconds;       /* GPU steps: their timestamps (0 where the device has
                           none); CPU steps: wall time, with their copies */
  const char *device;   /* where it ran: "gpu", "cpu", "copy" (on a
                           VKML_DEVICE_CPU instance every step is "cpu") */
  bool dispatched;      /* false: a GPU view that shares its input's bytes
                           (no kernel runs) */
  /* The roofs of a GPU step from the device's measured peaks (vkml-peaks;
   * 0: unknown): GFLOP/s for its kind of arithmetic (the cooperative-matrix
   * rate of its accumulator type, else the FMA rate of its output type) and
   * the copy bandwidth in GB/s. */
  double roof_gflops, roof_gbs;
} vkml_step_profile;
/* Needs vkml_instance_opts.profile (else INVALID_ARGUMENT) and a run. */
VKML_API vkml_status vkml_instance_profile(const vkml_instance *inst, int i,
                                           vkml_step_profile *out);
/* What the driver reported of step i's compiled kernel on a profiled
 * instance (VK_KHR_pipeline_executable_properties, where the device has
 * it): "name=value, ..." in the driver's own names (NVIDIA: the registers
 * per invocation and their kin), e.g. to see a kernel that spills. ""
 * otherwise (no such step, a CPU or copy step, an instance without
 * vkml_instance_opts.profile, a driver without the extension). Valid for
 * the instance's life. */
VKML_API const char *vkml_instance_kernel_stats(const vkml_instance *inst, int i);
/* Whether GPU steps are timed: false on a device without compute
 * timestamps (their seconds are 0) and on VKML_DEVICE_CPU. */
VKML_API bool vkml_instance_gpu_timed(const vkml_instance *inst);
/* The device's measured peaks file (written by vkml-peaks into the vkml
 * cache directory, keyed by the device's pipeline cache UUID): its path
 * (NULL with no cache directory; valid for the instance's life) and whether
 * it was read: VKML_OK, IO when there is none, CORRUPT naming the key. */
VKML_API vkml_status vkml_instance_peaks(const vkml_instance *inst, const char **path);

/* Re-submits the GPU kernels the last vkml_run recorded, without input
 * copies, CPU steps or output copies: kernels back to back, for
 * benchmarks. The outputs keep the last run's values. INVALID_ARGUMENT on
 * VKML_DEVICE_CPU or before a run. */
VKML_API vkml_status vkml_replay(vkml_instance *inst);

/* How an instance runs (totals over its life). */
typedef struct vkml_run_stats {
  int64_t runs;            /* vkml_run calls that succeeded */
  int n_segments;          /* recorded GPU programs */
  int n_cpu_steps, n_transfer_steps;
  int n_direct_inputs;     /* lean: inputs the host writes where the kernels read */
  double host_copy_seconds;   /* lean runs: the host's copies in and out */
  double submit_wait_seconds; /* lean runs: submit to fence signalled */
} vkml_run_stats;
VKML_API vkml_status vkml_instance_stats(const vkml_instance *inst, vkml_run_stats *out);

/* Where vkml_instance_create's time went, in seconds. The device's (its
 * context and weights) is 0 where the instance shares one another instance
 * of the model created. */
typedef struct vkml_load_times {
  double device;          /* the Vulkan context, in all; of which: */
  double loader, vk_instance, vk_device, pipeline_cache_file;
  double weights;         /* the weights' upload */
  double pipelines;       /* pipelines, buffers and recorded commands */
  bool pipeline_cache_warm; /* the pipeline cache file had data */
  bool device_shared;     /* the context and weights were another instance's */
  bool weights_in_place;  /* written straight into mapped device memory (a
                             resizable BAR, an integrated or CPU device), not
                             through staging */
} vkml_load_times;
VKML_API vkml_status vkml_instance_load_times(const vkml_instance *inst,
                                              vkml_load_times *out);

#ifdef __cplusplus
}
#endif
#endif
