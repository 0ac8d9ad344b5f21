/* A device's measured ceilings: the file's path, its reader and the roof
 * of a kernel (vk_peaks.h). */
#include "vk_peaks.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/cache_dir.h"
#include "ir/file.h"

char *rt_vk_peaks_path(const ir_target *t) {
  char *dir = ir_user_cache_dir(NULL);
  if (!dir) return NULL;
  char hex[33];
  for (int i = 0; i < 16; i++) snprintf(hex + 2 * i, 3, "%02x", t->pipeline_cache_uuid[i]);
  size_t n = strlen(dir) + 64;
  char *p = malloc(n);
  if (p) snprintf(p, n, "%s/peaks-%s.json", dir, hex);
  free(dir);
  return p;
}

/* The number after "key": in text; false when absent. */
static bool number_of(const char *text, const char *key, double *v, bool *bad) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\":", key);
  const char *p = strstr(text, pat);
  if (!p) return false;
  p += strlen(pat);
  while (*p == ' ') p++;
  char *end;
  double x = strtod(p, &end);
  if (end == p || !isfinite(x) || x < 0) *bad = true;
  *v = x;
  return true;
}

vkml_status rt_vk_peaks_read(const char *path, rt_vk_peaks *out) {
  memset(out, 0, sizeof *out);
  void *data;
  size_t n;
  VKML_RETURN_IF_ERROR(ir_file_read(path, &data, &n));
  char *text = realloc(data, n + 1);
  if (!text) {
    free(data);
    return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "%s: out of memory", path);
  }
  text[n] = 0;
  static const char *const KEYS[] = {"fma_f32_gflops", "fma_f16_gflops", "coopmat_f16_gflops",
                                     "coopmat_f32_gflops", "copy_gbs"};
  double *dst[] = {&out->fma_f32_gflops, &out->fma_f16_gflops, &out->coopmat_f16_gflops,
                   &out->coopmat_f32_gflops, &out->copy_gbs};
  vkml_status s = VKML_OK;
  for (int i = 0; i < 5 && !s; i++) {
    bool bad = false;
    if (number_of(text, KEYS[i], dst[i], &bad) && bad)
      s = vkml_status_make(VKML_CODE_CORRUPT, "%s: \"%s\" is not a non-negative number", path,
                           KEYS[i]);
  }
  if (!s && out->fma_f32_gflops <= 0 && out->copy_gbs <= 0)
    s = vkml_status_make(VKML_CODE_CORRUPT, "%s: no fma_f32_gflops or copy_gbs", path);
  free(text);
  return s;
}

void rt_vk_peaks_roofs(const rt_vk_peaks *pk, const char *tmpl, const char *schedule,
                       ir_dtype out_dtype, double *gflops, double *gbs) {
  if (strstr(tmpl, "coopmat"))
    *gflops = strstr(schedule, "ACC=16") ? pk->coopmat_f16_gflops : pk->coopmat_f32_gflops;
  else if (out_dtype == IR_F16 && pk->fma_f16_gflops > 0)
    *gflops = pk->fma_f16_gflops;
  else
    *gflops = pk->fma_f32_gflops;
  *gbs = pk->copy_gbs;
}
