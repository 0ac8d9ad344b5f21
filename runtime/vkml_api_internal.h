/* The public C API's objects (include/vkml.h), shared by vkml_api.c
 * (models, devices, instances, runs) and vkml_api_report.c (provenance,
 * steps, profiles, load times, tensor files), and the two constructors vkc
 * runs what it compiled through: not exported, not for applications. */
#ifndef RT_VKML_API_INTERNAL_H
#define RT_VKML_API_INTERNAL_H

#include <pthread.h>

#include "ir/artifact.h"
#include "ir/plan.h"
#include "runtime/cpu/threads.h"
#include "runtime/tensor.h"
#include "runtime/vk/vk_exec.h"
#include "runtime/vk/vk_peaks.h"
#include "vkml.h"

/* A device a model's instances run on: one context and the weights,
 * shared by the instances created with the same options. */
typedef struct api_device {
  struct api_device *next;
  vkml_device_kind kind;
  int index;
  bool validation;
  bool stats;         /* its pipelines capture the driver's statistics (profiled instances) */
  rt_vk_context *ctx; /* NULL on the CPU */
  rt_vk_weights *weights;
  int users;
  double context_s, weights_s; /* what creating them took */
  bool pcache_warm;            /* the pipeline cache file had data */
} api_device;

/* A compiled model's provenance (its artifact's section), parsed at load;
 * the strings live in text. */
typedef struct api_provenance {
  char *text; /* the section, its lines NUL-terminated */
  vkml_provenance p;
  /* by plan step: where a GPU step's schedule came from */
  const char **step_source; /* "default", "tuned", "nearest" */
  const char **step_device; /* the record's device key ("" for the default) */
  bool *step_confirmed;
} api_provenance;

struct vkml_model {
  ir_plan *plan;        /* graph only (n_steps 0) when cpu_only */
  bool cpu_only;        /* IR text, or vkc's graph for the CPU executor */
  const ir_node **nodes; /* the graph's live nodes in order: step i is nodes[i] */
  int n_nodes;
  api_provenance prov;
  const void *artifact; /* the bytes the plan was decoded from */
  size_t artifact_bytes;
  /* vkml_model_load_owned: the caller's bytes, released after the plan */
  void *owned;
  void (*release)(void *data, size_t bytes);
  pthread_mutex_t lock;
  api_device *devices;
  int n_instances;
  /* vkml_model_load: the weights' checksum, computed on a thread of its own
   * while the caller goes on (creating a device); joined by
   * rt_api_weights_verified before anything reads the weights */
  ir_artifact_deferred check;
  char *check_name;
  pthread_t check_thread;
  bool check_running;
  vkml_status check_status;
  pthread_mutex_t check_lock;
};

struct vkml_instance {
  vkml_model *m;
  api_device *dev;
  bool created_device;  /* this instance created dev (its load times count it) */
  rt_vk_exec *exec;     /* NULL on the CPU */
  rt_threads *cpu_pool; /* the CPU executor's threads (on the CPU; owned) */
  bool lean;
  bool ran;
  int64_t n_runs;       /* vkml_run calls that succeeded */
  bool profile;
  bool gpu_timed;       /* GPU steps carry timestamps */
  bool *in_set;         /* by input: given (vkml_set_input, vkml_input_memory) */
  rt_tensor *in, *out;  /* host tensors when not lean (owned) */
  void **in_mem;        /* by input: where its bytes live */
  void **out_mem;       /* by output */
  int64_t (*out_dims)[IR_MAX_RANK]; /* by output: the last run's dims */
  double *row_s;        /* profile: the last run's seconds by step */
  double *tmp;          /* profile: the executor's nanoseconds (steps, or node ids) */
  double pipelines_s;   /* rt_vk_exec_create */
  /* the device's peaks (profile, GPU): read when the instance was created */
  char *peaks_path;
  vkml_code peaks_code; /* VKML_CODE_OK, IO (no file) or CORRUPT */
  char *peaks_error;    /* CORRUPT: the message */
  rt_vk_peaks peaks;
};

/* INVALID_ARGUMENT naming the function and the argument. */
vkml_status rt_api_bad_arg(const char *fn, const char *what);
/* The index of name among the model's inputs (or outputs); the error lists them. */
vkml_status rt_api_find(const vkml_model *m, bool input, const char *name, int *index);
/* Parses the provenance section of m's artifact, and sets up m->nodes. */
vkml_status rt_api_model_index(vkml_model *m);
void rt_api_model_unindex(vkml_model *m);
/* Waits for the weights' deferred checksum (vkml_model_load) and returns its
 * verdict, a CORRUPT status for every caller after a mismatch; VKML_OK at
 * once for models loaded any other way. Thread-safe. */
vkml_status rt_api_weights_verified(const vkml_model *m);

/* The model of a plan built in this process (vkc run on a GPU), which it
 * takes over (destroyed on error too). */
vkml_status rt_api_model_from_plan(ir_plan *plan, vkml_model **out);
/* The model of a graph for the CPU executor (vkc run --device cpu), which it
 * takes over (destroyed on error too): VKML_DEVICE_CPU only. */
vkml_status rt_api_model_from_graph(ir_graph *g, vkml_model **out);

#endif
