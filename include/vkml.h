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
 * inputs and outputs. See vkml_instance_memory. */
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
} vkml_tensor_info;

typedef struct vkml_model vkml_model;
typedef struct vkml_instance vkml_instance;

/* Loads an artifact file: mapped, every section's checksum verified (a
 * corrupt or truncated file is refused naming the section, a newer format
 * naming both versions). */
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
 * the same model (vkml_compile's output saved). */
VKML_API vkml_status vkml_model_artifact(const vkml_model *m, const void **data, size_t *bytes);
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
 * (vkml_tensor_info.bytes), else INVALID_ARGUMENT naming it. */
VKML_API vkml_status vkml_get_output(vkml_instance *inst, const char *name, void *data,
                                     size_t bytes);

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

#ifdef __cplusplus
}
#endif
#endif
