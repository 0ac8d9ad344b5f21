/* Running a model for vkc and vkrun (cli_common.h cli_run_model) through
 * the public C API: inputs bound from files or seeded random values, the
 * runs timed, outputs printed or written; the reports are cli_report.c's. */
#include "cli_run.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The random inputs' seed (--bench and --profile without --input). */
enum { RANDOM_SEED = 1 };

static bool name_matches(const char *binding, const char *name) {
  size_t n = (size_t)(strchr(binding, '=') - binding);
  if (binding[0] == '%') { binding++; n--; }
  return strlen(name) == n && !memcmp(binding, name, n);
}

/* xorshift64*: the random inputs, the same on every machine. */
static uint64_t rng_next(uint64_t *s) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 0x2545f4914f6cdd1dull;
}

static uint16_t f16_of(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000, mant = x & 0x7fffff;
  int exp = (int)((x >> 23) & 0xff) - 127 + 15;
  if (exp <= 0) return (uint16_t)sign; /* |f| < 2^-14: zero is close enough here */
  if (exp >= 31) return (uint16_t)(sign | 0x7c00);
  uint32_t h = sign | (uint32_t)exp << 10 | mant >> 13;
  if ((mant & 0x1fff) > 0x1000 || ((mant & 0x1fff) == 0x1000 && (h & 1))) h++;
  return (uint16_t)h;
}

/* Input t's memory filled with seeded values: floats uniform in [-1, 1),
 * integers in [0, 8), booleans either. */
static void fill_random(const vkml_tensor_info *t, void *data, uint64_t *s) {
  size_t n = 1;
  for (int d = 0; d < t->rank; d++) n *= (size_t)t->dims[d];
  for (size_t i = 0; i < n; i++) {
    uint64_t r = rng_next(s);
    float f = (float)((double)(r >> 11) * 0x1p-53 * 2 - 1);
    int64_t k = (int64_t)(r >> 61);
    switch (t->dtype) {
    case VKML_F32: ((float *)data)[i] = f; break;
    case VKML_F16: ((uint16_t *)data)[i] = f16_of(f); break;
    case VKML_I32: ((int32_t *)data)[i] = (int32_t)k; break;
    case VKML_I64: ((int64_t *)data)[i] = k; break;
    case VKML_U8: ((uint8_t *)data)[i] = (uint8_t)k; break;
    case VKML_I8: ((int8_t *)data)[i] = (int8_t)k; break;
    case VKML_BOOL: ((uint8_t *)data)[i] = (uint8_t)(k & 1); break;
    }
  }
}

static vkml_status bind_inputs(const runner *rn, const cli_run_opts *o) {
  int n = vkml_model_input_count(rn->m);
  for (int b = 0; b < o->n_inputs; b++) {
    bool known = false;
    for (int i = 0; i < n; i++) {
      vkml_tensor_info t;
      VKML_RETURN_IF_ERROR(vkml_model_input(rn->m, i, &t));
      known |= name_matches(o->input_names[b], t.name);
    }
    if (!known) {
      int len = (int)(strchr(o->input_names[b], '=') - o->input_names[b]);
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                              "--input %.*s: the graph has no input of that name", len,
                              o->input_names[b]);
    }
  }
  bool random = o->n_inputs == 0 && (o->bench > 0 || o->profile) && n > 0;
  if (random)
    fprintf(stderr, "%s: no --input: seeded random inputs (seed %d; floats uniform in [-1, 1), "
            "integers in [0, 8))\n", o->tool, RANDOM_SEED);
  uint64_t seed = 0x9e3779b97f4a7c15ull * RANDOM_SEED;
  for (int i = 0; i < n; i++) {
    vkml_tensor_info t;
    VKML_RETURN_IF_ERROR(vkml_model_input(rn->m, i, &t));
    if (random) {
      void *data;
      VKML_RETURN_IF_ERROR(vkml_input_memory(rn->inst, t.name, &data));
      fill_random(&t, data, &seed);
      continue;
    }
    const char *file = NULL;
    for (int b = 0; b < o->n_inputs; b++)
      if (name_matches(o->input_names[b], t.name)) file = o->input_files[b];
    if (!file) {
      char ty[160];
      cli_type_format(t.dtype, t.rank, t.dims, t.bounded_axis, ty, sizeof ty);
      return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "missing --input %s=FILE (%s)",
                              t.name, ty);
    }
    bool converted = false;
    VKML_RETURN_IF_ERROR(vkml_set_input_file(rn->inst, t.name, file, &converted));
    if (converted)
      fprintf(stderr, "%s: note: %s holds float64 values: converted to %s for input '%s'\n",
              o->tool, file, cli_dtype_name(t.dtype), t.name);
  }
  return VKML_OK;
}

/* Element i of dense data of type t, as a double (floats) or int64. */
static double value_f(vkml_dtype t, const void *data, size_t i) {
  switch (t) {
  case VKML_F32: return ((const float *)data)[i];
  case VKML_F16: {
    uint16_t h = ((const uint16_t *)data)[i];
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m | 0x400, e - 25);
    return h & 0x8000 ? -v : v;
  }
  case VKML_I32: return ((const int32_t *)data)[i];
  case VKML_I64: return (double)((const int64_t *)data)[i];
  case VKML_U8: return ((const uint8_t *)data)[i];
  case VKML_I8: return ((const int8_t *)data)[i];
  case VKML_BOOL: return ((const uint8_t *)data)[i] != 0;
  }
  return 0;
}

static void print_value(FILE *f, vkml_dtype t, const void *data, size_t i) {
  if (t == VKML_F32 || t == VKML_F16) {
    double v = value_f(t, data, i);
    if (isnan(v)) fputs("NaN", f);
    else if (isinf(v)) fputs(v > 0 ? "Infinity" : "-Infinity", f);
    else fprintf(f, "%.9g", v);
  } else if (t == VKML_BOOL) {
    fputs(((const uint8_t *)data)[i] ? "true" : "false", f);
  } else if (t == VKML_I64) {
    fprintf(f, "%lld", (long long)((const int64_t *)data)[i]);
  } else {
    fprintf(f, "%lld", (long long)value_f(t, data, i));
  }
}

static vkml_status print_outputs(const runner *rn, bool json) {
  int n_out = vkml_model_output_count(rn->m);
  if (json) printf("\"outputs\": [");
  for (int o = 0; o < n_out; o++) {
    vkml_tensor_info m, t;
    const void *data;
    VKML_RETURN_IF_ERROR(vkml_model_output(rn->m, o, &m));
    VKML_RETURN_IF_ERROR(vkml_output_shape(rn->inst, m.name, &t));
    VKML_RETURN_IF_ERROR(vkml_output_memory(rn->inst, m.name, &data));
    size_t n = 1;
    for (int d = 0; d < t.rank; d++) n *= (size_t)t.dims[d];
    if (json) {
      printf("%s{\"name\": ", o ? ", " : "");
      cli_print_json_string(stdout, t.name);
      printf(", \"dtype\": \"%s\", \"shape\": [", cli_dtype_name(t.dtype));
      for (int d = 0; d < t.rank; d++) printf("%s%lld", d ? ", " : "", (long long)t.dims[d]);
      printf("], \"data\": [");
      for (size_t i = 0; i < n; i++) {
        if (i) printf(", ");
        print_value(stdout, t.dtype, data, i);
      }
      printf("]}");
      continue;
    }
    char name[1024], ty[160];
    cli_escape(t.name, name, sizeof name, false);
    cli_type_format(t.dtype, t.rank, t.dims, -1, ty, sizeof ty);
    printf("%%%s: %s", name, ty);
    if (n > 0 && t.dtype != VKML_BOOL) {
      double lo = INFINITY, hi = -INFINITY, sum = 0;
      for (size_t i = 0; i < n; i++) {
        double v = value_f(t.dtype, data, i);
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
        sum += v;
      }
      printf("  min %.6g max %.6g mean %.6g", lo, hi, sum / (double)n);
    }
    printf("\n  [");
    for (size_t i = 0; i < n && i < 16; i++) {
      if (i) printf(", ");
      print_value(stdout, t.dtype, data, i);
    }
    printf("%s]\n", n > 16 ? ", ..." : "");
  }
  if (json) printf("]");
  return VKML_OK;
}

/* One DIR/NAME.npy per output, all or nothing: names checked and targets
 * that cannot be replaced refused first, then every file under a temporary
 * name, renamed when all are written (on a failure the temporaries go). */
static vkml_status write_outputs(const runner *rn, const char *dir) {
  if (mkdir(dir, 0777) != 0 && errno != EEXIST)
    return vkml_status_make(VKML_CODE_IO, "%s: cannot create directory: %s", dir, strerror(errno));
  vkml_status s = VKML_OK;
  int n = vkml_model_output_count(rn->m);
  char **paths = calloc((size_t)n + 1, sizeof *paths);
  const char **names = calloc((size_t)n + 1, sizeof *names);
  if (!paths || !names) {
    s = vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
    goto out;
  }
  for (int o = 0; o < n && !s; o++) {
    vkml_tensor_info t;
    s = vkml_model_output(rn->m, o, &t);
    if (s) break;
    names[o] = t.name;
    size_t len = strlen(dir) + strlen(t.name) + 8;
    char *clean = malloc(strlen(t.name) + 2);
    paths[o] = malloc(len);
    if (!clean || !paths[o]) {
      free(clean);
      s = vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
      break;
    }
    cli_sanitize_name(t.name, clean);
    snprintf(paths[o], len, "%s/%s.npy", dir, clean);
    free(clean);
    for (int p = 0; p < o && !s; p++)
      if (!strcmp(paths[p], paths[o]) && strcmp(names[p], names[o]))
        s = vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                             "outputs %%%s and %%%s would both be written to %s", names[p],
                             names[o], paths[o]);
  }
  for (int o = 0; o < n && !s; o++) {
    struct stat st;
    if (!stat(paths[o], &st) && !S_ISREG(st.st_mode))
      s = vkml_status_make(VKML_CODE_IO, "%s: exists and is not a file", paths[o]);
  }
  char tmp[4096];
  int written = 0;
  for (int o = 0; o < n && !s; o++, written++) {
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", paths[o], (long)getpid());
    s = vkml_write_output_file(rn->inst, names[o], tmp);
    if (s) remove(tmp);
  }
  for (int o = 0; o < written; o++) {
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", paths[o], (long)getpid());
    if (!s && rename(tmp, paths[o]))
      s = vkml_status_make(VKML_CODE_IO, "%s: %s", paths[o], strerror(errno));
    if (s) remove(tmp);
  }
out:
  for (int o = 0; paths && o < n; o++) free(paths[o]);
  free(paths);
  free(names);
  return s;
}

/* Runs `times` times (replay: the recorded kernels only); per-run seconds
 * go to secs (if non-NULL) and with a profile step i of run r to
 * row_secs[r * n_steps + i]. */
static vkml_status run_times(const runner *rn, int times, double *secs, double *row_secs,
                             bool replay) {
  for (int r = 0; r < times; r++) {
    double t0 = cli_now_seconds();
    VKML_RETURN_IF_ERROR(replay ? vkml_replay(rn->inst) : vkml_run(rn->inst));
    if (secs) secs[r] = cli_now_seconds() - t0;
    for (int i = 0; row_secs && i < rn->n_steps; i++) {
      vkml_step_profile p;
      VKML_RETURN_IF_ERROR(vkml_instance_profile(rn->inst, i, &p));
      row_secs[(size_t)r * rn->n_steps + i] = p.seconds;
    }
  }
  return VKML_OK;
}

/* Warm-up: one full run (the outputs), then more until `runs` runs and
 * `ms` milliseconds have passed; returns the number of runs made. */
static vkml_status warm_up(const runner *rn, int runs, int ms, bool replay, int *made,
                           double *first_s) {
  double t0 = cli_now_seconds();
  *made = 0;
  VKML_RETURN_IF_ERROR(run_times(rn, 1, first_s, NULL, false));
  for (*made = 1; *made < runs || cli_now_seconds() - t0 < 1e-3 * ms; ++*made)
    VKML_RETURN_IF_ERROR(run_times(rn, 1, NULL, NULL, replay));
  return VKML_OK;
}

static void print_bench(const runner *rn, const cli_run_opts *o, double *secs, int runs,
                        int warmup, double gpu_med) {
  cli_sort_doubles(secs, runs);
  double sum = 0;
  for (int r = 0; r < runs; r++) sum += secs[r];
  double med = runs % 2 ? secs[runs / 2] : 0.5 * (secs[runs / 2 - 1] + secs[runs / 2]);
  double p90 = secs[(runs * 9 + 9) / 10 - 1]; /* the ceil(0.9 runs)-th */
  if (o->json) {
    printf(", \"bench\": {\"runs\": %d, \"warmup\": %d, \"replay\": %s, \"min_ms\": %.6f, "
           "\"median_ms\": %.6f, \"p90_ms\": %.6f, \"mean_ms\": %.6f, \"max_ms\": %.6f",
           runs, warmup, o->replay ? "true" : "false", 1e3 * secs[0], 1e3 * med, 1e3 * p90,
           1e3 * sum / runs, 1e3 * secs[runs - 1]);
    if (gpu_med >= 0) printf(", \"gpu_median_ms\": %.6f", 1e3 * gpu_med);
    printf("}");
    return;
  }
  printf("bench (%s%s, %d %sruns after %d warm-up): min %.3f ms  median %.3f ms  "
         "p90 %.3f ms  mean %.3f ms  max %.3f ms\n",
         rn->gpu ? "gpu: " : "", rn->device, runs, o->replay ? "replayed " : "", warmup,
         1e3 * secs[0], 1e3 * med, 1e3 * p90, 1e3 * sum / runs, 1e3 * secs[runs - 1]);
  if (gpu_med >= 0)
    printf("GPU time (kernels' timestamps, median of the runs): %.3f ms\n", 1e3 * gpu_med);
}

static vkml_status run_with(const runner *rn, const cli_run_opts *o) {
  vkml_status s = VKML_OK;
  int n = rn->n_steps, runs = o->bench > 0 ? o->bench : 1;
  double *secs = calloc((size_t)runs, sizeof *secs);
  double *row_all = calloc((size_t)runs * n + 1, sizeof *row_all);
  double *row_secs = calloc((size_t)n + 1, sizeof *row_secs);
  double *tmp = calloc((size_t)(runs > n ? runs : n) + 1, sizeof *tmp);
  if (!secs || !row_all || !row_secs || !tmp) {
    s = vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
    goto out;
  }
  s = bind_inputs(rn, o);
  if (s) goto out;
  int warmup = o->bench > 0 ? (o->warmup >= 0 ? o->warmup : 2) : 0;
  /* drivers may compile pipelines at their first dispatch: keep that out of
   * a GPU profile */
  if (rn->gpu && o->profile && o->bench <= 0) warmup = o->warmup >= 0 ? o->warmup : 1;
  int warm_ms = o->warmup_ms >= 0 ? o->warmup_ms : rn->gpu ? 200 : 0;
  if (!warmup && !o->replay) warm_ms = 0;
  double first_s = -1;
  if (warmup || o->replay) s = warm_up(rn, warmup, warm_ms, o->replay, &warmup, &first_s);
  if (!s) s = run_times(rn, runs, secs, o->profile ? row_all : NULL, o->replay);
  if (s) goto out;
  if (first_s < 0) first_s = secs[0];
  /* the GPU time of each run: its GPU steps' timestamps (with --profile) */
  double gpu_med = -1;
  if (o->profile && rn->gpu) {
    for (int r = 0; r < runs; r++) tmp[r] = 0;
    for (int i = 0; i < n && !s; i++) {
      vkml_step_profile p;
      s = vkml_instance_profile(rn->inst, i, &p);
      for (int r = 0; !s && r < runs && !strcmp(p.device, "gpu"); r++)
        tmp[r] += row_all[(size_t)r * n + i];
    }
    if (s) goto out;
    gpu_med = cli_median_of(tmp, runs);
  }
  for (int i = 0; o->profile && i < n; i++) {
    for (int r = 0; r < runs; r++) tmp[r] = row_all[(size_t)r * n + i];
    row_secs[i] = cli_median_of(tmp, runs);
  }
  if (o->output_dir) {
    s = write_outputs(rn, o->output_dir);
    if (s) goto out;
  }
  if (o->json) {
    printf("{\"device\": \"%s\"", rn->gpu ? "gpu" : "cpu");
    if (rn->gpu) {
      printf(", \"device_name\": ");
      cli_print_json_string(stdout, rn->device);
    }
  }
  if (!o->output_dir) {
    if (o->json) printf(", ");
    s = print_outputs(rn, o->json);
    if (s) goto out;
  }
  if (o->bench > 0) print_bench(rn, o, secs, runs, warmup, gpu_med);
  if (o->bench > 0 && rn->gpu) {
    if (o->json) printf(", ");
    cli_print_device_memory(rn, o->json);
  }
  if (o->bench > 0 && o->load_s >= 0 && rn->gpu) {
    if (o->json) printf(", ");
    cli_print_load(rn, o->load_s, first_s, o->json);
  }
  if (o->profile) {
    if (o->json) printf(", ");
    cli_print_profile(rn, row_secs, o);
  }
  if (o->extra) {
    if (o->json) printf(", ");
    o->extra(o->extra_user, o->json);
  }
  if (o->json) printf("}\n");
  if (o->profile && rn->gpu && !vkml_instance_gpu_timed(rn->inst) && !o->json)
    printf("(%s has no compute timestamps: GPU steps show 0)\n", rn->device);
out:
  free(secs);
  free(row_all);
  free(row_secs);
  free(tmp);
  return s;
}

vkml_status cli_run_model(vkml_model *m, const cli_run_opts *o) {
  vkml_instance_opts io = {.wait = o->wait, .profile = o->profile,
                           .staged_inputs = o->staged_inputs};
  VKML_RETURN_IF_ERROR(cli_device_parse(o->device, &io.device, &io.index));
  if (o->replay && io.device == VKML_DEVICE_CPU)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "--replay needs a GPU run (--device N)");
  runner rn = {.m = m, .gpu = io.device != VKML_DEVICE_CPU, .n_steps = vkml_model_step_count(m)};
  VKML_RETURN_IF_ERROR(vkml_instance_create(m, &io, &rn.inst));
  rn.device = vkml_instance_device(rn.inst);
  vkml_status s = run_with(&rn, o);
  vkml_instance_destroy(rn.inst);
  return s;
}
