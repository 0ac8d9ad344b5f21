/* The VkPipelineCache persisted per user and device:
 * <cache dir>/pipelines-<pipelineCacheUUID hex>.bin, where the cache dir is
 * the options' cache_dir, else $XDG_CACHE_HOME/vkml, else ~/.cache/vkml.
 *
 * File: a 48-byte vkml header (magic, payload size, FNV-1a of the payload,
 * the device's UUID, vendor and device ids) then the driver's cache data. A
 * corrupt, truncated or foreign file is ignored with a context warning: the
 * driver never sees bytes we did not write for this device. Writes are
 * atomic (temporary file in the same directory, then rename). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ir/cache_dir.h"
#include "ir/file.h"
#include "vk_internal.h"
#include "ir/util.h"

static const char MAGIC[8] = {'V', 'K', 'M', 'L', 'P', 'C', 0, 1};
#define HEADER_BYTES 48
#define MAX_FILE_BYTES (256u << 20)

static void put_u32(unsigned char *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static void put_u64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static uint32_t get_u32(const unsigned char *p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; i--) v = (v << 8) | p[i];
  return v;
}
static uint64_t get_u64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
  return v;
}

static char *cache_dir(const rt_vk_context_opts *o) {
  if (o->cache_dir && *o->cache_dir) return strdup(o->cache_dir);
  return ir_user_cache_dir(NULL);
}

/* Why a file's bytes cannot be used, or NULL if they can. */
static const char *check_file(const rt_vk_context *ctx, const unsigned char *d, size_t n) {
  const ir_target *t = &ctx->target;
  if (n < HEADER_BYTES || memcmp(d, MAGIC, 8)) return "not a vkml pipeline cache";
  uint64_t payload = get_u64(d + 8);
  if (payload != n - HEADER_BYTES) return "truncated or padded";
  if (get_u64(d + 16) != ir_fnv64(d + HEADER_BYTES, (size_t)payload, IR_FNV64_SEED))
    return "checksum mismatch";
  if (memcmp(d + 24, t->pipeline_cache_uuid, 16) || get_u32(d + 40) != t->vendor_id ||
      get_u32(d + 44) != t->device_id)
    return "made for another device or driver";
  /* the driver's own header (VkPipelineCacheHeaderVersionOne) */
  const unsigned char *v = d + HEADER_BYTES;
  if (payload < 32 || get_u32(v) < 32 || get_u32(v) > payload ||
      get_u32(v + 4) != VK_PIPELINE_CACHE_HEADER_VERSION_ONE || get_u32(v + 8) != t->vendor_id ||
      get_u32(v + 12) != t->device_id || memcmp(v + 16, t->pipeline_cache_uuid, 16))
    return "driver cache header does not match this device";
  return NULL;
}

/* Reads the file; *data NULL (and no warning) when it does not exist. */
static void read_file(rt_vk_context *ctx, unsigned char **data, size_t *n) {
  *data = NULL;
  *n = 0;
  if (access(ctx->pcache_path, F_OK) != 0 && errno == ENOENT) return;
  FILE *f;
  vkml_status e = ir_file_fopen(ctx->pcache_path, &f);
  if (e) { /* a FIFO or a device is refused, not waited on */
    rt_vk_warn(ctx, "pipeline cache ignored: %s", vkml_status_message(e));
    vkml_status_free(e);
    return;
  }
  long size = -1;
  if (!fseek(f, 0, SEEK_END)) size = ftell(f);
  if (size < 0 || size > (long)MAX_FILE_BYTES || fseek(f, 0, SEEK_SET)) {
    rt_vk_warn(ctx, "pipeline cache %s ignored: unreadable or too large", ctx->pcache_path);
    fclose(f);
    return;
  }
  unsigned char *d = malloc(size ? (size_t)size : 1);
  if (d && fread(d, 1, (size_t)size, f) == (size_t)size) {
    *data = d;
    *n = (size_t)size;
  } else {
    free(d);
    rt_vk_warn(ctx, "pipeline cache %s ignored: read failed", ctx->pcache_path);
  }
  fclose(f);
}

vkml_status rt_vk_pcache_open(rt_vk_context *ctx, const rt_vk_context_opts *o) {
  unsigned char *data = NULL;
  size_t n = 0;
  if (!o->no_pipeline_cache) {
    char *dir = cache_dir(o);
    if (!dir) {
      rt_vk_warn(ctx, "pipeline cache disabled: neither XDG_CACHE_HOME nor HOME is set");
    } else {
      char hex[33];
      rt_vk_uuid_hex(ctx->target.pipeline_cache_uuid, hex);
      size_t len = strlen(dir) + 64;
      ctx->pcache_path = malloc(len);
      ctx->verdict_dir = malloc(len);
      if (ctx->pcache_path) snprintf(ctx->pcache_path, len, "%s/pipelines-%s.bin", dir, hex);
      if (ctx->verdict_dir) snprintf(ctx->verdict_dir, len, "%s/spirv-valid", dir);
      free(dir);
      if (!ctx->pcache_path || !ctx->verdict_dir)
        return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
      read_file(ctx, &data, &n);
      const char *why = data ? check_file(ctx, data, n) : NULL;
      if (why) {
        rt_vk_warn(ctx, "pipeline cache %s ignored: %s", ctx->pcache_path, why);
        free(data);
        data = NULL;
      }
    }
  }
  VkPipelineCacheCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO,
      .initialDataSize = data ? n - HEADER_BYTES : 0,
      .pInitialData = data ? data + HEADER_BYTES : NULL,
  };
  VkResult r = ctx->vk.vkCreatePipelineCache(ctx->device, &ci, NULL, &ctx->pcache);
  if (r != VK_SUCCESS && data) {
    /* the driver refused the data: start empty */
    rt_vk_warn(ctx, "pipeline cache %s ignored: the driver refused it (%s)", ctx->pcache_path,
               rt_vk_result_name(r));
    ci.initialDataSize = 0;
    ci.pInitialData = NULL;
    free(data);
    data = NULL;
    r = ctx->vk.vkCreatePipelineCache(ctx->device, &ci, NULL, &ctx->pcache);
  }
  if (r != VK_SUCCESS) {
    free(data);
    ctx->pcache = VK_NULL_HANDLE;
    return rt_vk_error(r, "vkCreatePipelineCache");
  }
  ctx->pcache_loaded_bytes = data ? n - HEADER_BYTES : 0;
  free(data);
  return VKML_OK;
}

vkml_status rt_vk_pcache_save(rt_vk_context *ctx) {
  if (!ctx->pcache_path || !ctx->pcache) return VKML_OK;
  size_t n = 0;
  VkResult r = ctx->vk.vkGetPipelineCacheData(ctx->device, ctx->pcache, &n, NULL);
  if (r != VK_SUCCESS) return rt_vk_error(r, "vkGetPipelineCacheData");
  if (n > MAX_FILE_BYTES - HEADER_BYTES)
    return vkml_status_make(VKML_CODE_UNSUPPORTED, "pipeline cache of %zu bytes is too large", n);
  unsigned char *d = malloc(HEADER_BYTES + n);
  if (!d) return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  r = ctx->vk.vkGetPipelineCacheData(ctx->device, ctx->pcache, &n, d + HEADER_BYTES);
  if (r != VK_SUCCESS) {
    free(d);
    return rt_vk_error(r, "vkGetPipelineCacheData");
  }
  memcpy(d, MAGIC, 8);
  put_u64(d + 8, n);
  put_u64(d + 16, ir_fnv64(d + HEADER_BYTES, n, IR_FNV64_SEED));
  memcpy(d + 24, ctx->target.pipeline_cache_uuid, 16);
  put_u32(d + 40, ctx->target.vendor_id);
  put_u32(d + 44, ctx->target.device_id);

  vkml_status s = VKML_OK;
  char *dir = strdup(ctx->pcache_path);
  char *tmp = malloc(strlen(ctx->pcache_path) + 64);
  if (!dir || !tmp) s = vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory");
  if (!s) {
    *strrchr(dir, '/') = '\0';
    if (!ir_mkdirs(dir))
      s = vkml_status_make(VKML_CODE_IO, "%s: cannot create directory: %s", dir, strerror(errno));
  }
  if (!s) {
    /* unique per process and context: concurrent savers never share a file */
    sprintf(tmp, "%s.tmp.%ld.%p", ctx->pcache_path, (long)getpid(), (void *)ctx);
    FILE *f = fopen(tmp, "wb");
    bool ok = f && fwrite(d, 1, HEADER_BYTES + n, f) == HEADER_BYTES + n;
    ok = (f && !fflush(f) && !fsync(fileno(f))) && ok;
    if (f && fclose(f)) ok = false;
    if (!ok || rename(tmp, ctx->pcache_path)) {
      s = vkml_status_make(VKML_CODE_IO, "%s: cannot write pipeline cache: %s",
                           ctx->pcache_path, strerror(errno));
      remove(tmp);
    }
  }
  if (!s) ctx->pcache_dirty = false;
  free(tmp);
  free(dir);
  free(d);
  return s;
}

void rt_vk_pcache_close(rt_vk_context *ctx) {
  if (ctx->pcache_dirty) {
    /* best effort: destroy cannot fail; rt_vk_pcache_save reports errors */
    vkml_status_free(rt_vk_pcache_save(ctx));
  }
  if (ctx->pcache) ctx->vk.vkDestroyPipelineCache(ctx->device, ctx->pcache, NULL);
  ctx->pcache = VK_NULL_HANDLE;
}

void rt_vk_pcache_info_get(rt_vk_context *ctx, rt_vk_pcache_info *out) {
  memset(out, 0, sizeof *out);
  out->path = ctx->pcache_path;
  out->loaded_bytes = ctx->pcache_loaded_bytes;
  out->n_created = ctx->pcache_created;
  if (ctx->pcache) ctx->vk.vkGetPipelineCacheData(ctx->device, ctx->pcache, &out->data_bytes, NULL);
}
