/* SPIR-V from a plan is untrusted input (an artifact's checksums are no
 * signature): before the driver sees a module, SPIRV-Tools' validator checks
 * it against the rules of the device's Vulkan version (structure, types,
 * ids, the universal limits: an id bound past 0x3fffff is refused), and the
 * compute entry point's workgroup size against the device's limits. A
 * driver's SPIR-V parser trusts its input: a forged id bound of 0x7fffffff
 * crashed one inside vkCreateComputePipelines. */
#include <errno.h>
#include <fcntl.h>

#include "runtime/vk/spirv_val.h"
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ir/cache_dir.h"
#include "ir/sha256.h"
#include "vk_internal.h"

enum {
  OP_ENTRY_POINT = 15,
  OP_EXECUTION_MODE = 16,
  OP_EXECUTION_MODE_ID = 331,
  OP_DECORATE = 71,
  OP_CONSTANT = 43,
  OP_CONSTANT_COMPOSITE = 44,
  MODEL_GLCOMPUTE = 5,
  MODE_LOCAL_SIZE = 17,
  MODE_LOCAL_SIZE_ID = 38,
  DECORATION_BUILTIN = 11,
  DECORATION_BINDING = 33,
  DECORATION_DESCRIPTOR_SET = 34,
  BUILTIN_WORKGROUP_SIZE = 25,
};

/* The Vulkan minor version the modules are validated for. */
static int vulkan_minor(uint32_t api) {
  uint32_t minor = (api >> 12) & 0x3ffu;
  return (api >> 22) > 1 || minor >= 3 ? 3 : (int)minor;
}

static vkml_status bad(const char *name, const char *what) {
  return vkml_status_make(VKML_CODE_CORRUPT, "SPIR-V module %s: %s", name, what);
}

/* The literal of constant id (OpConstant), or false. */
static bool constant_of(const uint32_t *w, size_t n, uint32_t id, uint32_t *value) {
  for (size_t i = 5; i < n;) {
    uint32_t count = w[i] >> 16, op = w[i] & 0xffffu;
    if (op == OP_CONSTANT && count == 4 && w[i + 2] == id) {
      *value = w[i + 3];
      return true;
    }
    i += count;
  }
  return false;
}

/* The workgroup size of a WorkgroupSize built-in (it overrides LocalSize):
 * a constant composite of three literal constants, else false. */
static bool builtin_size(const uint32_t *w, size_t n, uint32_t id, uint32_t size[3]) {
  for (size_t i = 5; i < n;) {
    uint32_t count = w[i] >> 16, op = w[i] & 0xffffu;
    if (op == OP_CONSTANT_COMPOSITE && count == 6 && w[i + 2] == id) {
      for (int k = 0; k < 3; k++)
        if (!constant_of(w, n, w[i + 3 + k], &size[k])) return false;
      return true;
    }
    i += count;
  }
  return false; /* a specialization constant, or no constant */
}

/* The entry point "main" (GLCompute) and its workgroup size, given as
 * literals (as vkml's kernels give it). The module is valid SPIR-V already
 * (every instruction in bounds). */
static vkml_status check_entry(const ir_target *t, const uint32_t *w, size_t n,
                               const char *name) {
  uint32_t main_id = 0;
  bool has_size = false;
  uint32_t size[3] = {1, 1, 1};
  for (size_t i = 5; i < n;) {
    uint32_t count = w[i] >> 16, op = w[i] & 0xffffu;
    if (op == OP_ENTRY_POINT && count >= 4 && w[i + 1] == MODEL_GLCOMPUTE &&
        !memcmp(&w[i + 3], "main", 5))
      main_id = w[i + 2];
    i += count;
  }
  if (!main_id) return bad(name, "no GLCompute entry point named main");
  for (size_t i = 5; i < n;) {
    uint32_t count = w[i] >> 16, op = w[i] & 0xffffu;
    if ((op == OP_EXECUTION_MODE || op == OP_EXECUTION_MODE_ID) && count >= 3 &&
        w[i + 1] == main_id) {
      if (w[i + 2] == MODE_LOCAL_SIZE_ID || op == OP_EXECUTION_MODE_ID)
        return bad(name, "a workgroup size given by ids (vkml's kernels give it as literals)");
      if (w[i + 2] == MODE_LOCAL_SIZE && count == 6) {
        has_size = true;
        memcpy(size, &w[i + 3], sizeof size);
      }
    }
    i += count;
  }
  for (size_t i = 5; i < n;) {
    uint32_t count = w[i] >> 16, op = w[i] & 0xffffu;
    if (op == OP_DECORATE && count >= 4 && w[i + 2] == DECORATION_BUILTIN &&
        w[i + 3] == BUILTIN_WORKGROUP_SIZE) {
      if (!builtin_size(w, n, w[i + 1], size))
        return bad(name, "a WorkgroupSize built-in that is not a constant of literals");
      has_size = true;
    }
    i += count;
  }
  if (!has_size) return bad(name, "no workgroup size");
  uint64_t all = (uint64_t)size[0] * size[1] * size[2];
  for (int k = 0; k < 3; k++)
    if (!size[k] || size[k] > t->max_workgroup_size[k] || all > t->max_workgroup_invocations) {
      char what[200];
      snprintf(what, sizeof what,
               "workgroup size %u x %u x %u, past the device's limits (%u x %u x %u, %u "
               "invocations)",
               size[0], size[1], size[2], t->max_workgroup_size[0], t->max_workgroup_size[1],
               t->max_workgroup_size[2], t->max_workgroup_invocations);
      return bad(name, what);
    }
  return VKML_OK;
}


static vkml_status validate(const ir_target *t, const uint32_t *words, size_t bytes,
                            const char *name) {
  /* the validator's first line says what is wrong; the rest is context */
  char what[400] = "";
  int rc = vkml_spirv_validate(words, bytes / 4, vulkan_minor(t->api_version), what, 360);
  if (rc < 0) return vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "out of host memory (SPIR-V validator)");
  if (rc) return bad(name, what);
  return check_entry(t, words, bytes / 4, name);
}

/* The verdict file of a module: SHA-256 over the words and everything the
 * verdict depends on (the validator, the target environment, the limits
 * check_entry compares with), so that no other input can claim it. */
static void verdict_path(const rt_vk_context *ctx, const uint32_t *words, size_t bytes,
                         char *out, size_t n) {
  const ir_target *t = &ctx->target;
  char what[256];
  snprintf(what, sizeof what, "vkml spirv verdict 1|%s|%d|%u,%u,%u,%u", vkml_spirv_tools_version(),
           vulkan_minor(t->api_version), t->max_workgroup_size[0], t->max_workgroup_size[1],
           t->max_workgroup_size[2], t->max_workgroup_invocations);
  ir_sha256 h;
  ir_sha256_init(&h);
  ir_sha256_update(&h, what, strlen(what) + 1);
  ir_sha256_update(&h, words, bytes);
  uint8_t d[32];
  char hex[65];
  ir_sha256_final(&h, d);
  ir_sha256_hex(d, hex);
  snprintf(out, n, "%s/%s", ctx->verdict_dir, hex);
}

vkml_status rt_vk_spirv_check(const rt_vk_context *ctx, const uint32_t *words, size_t bytes,
                              const char *name) {
  if (!name) name = "(unnamed)";
  if (!words || bytes < 20 || bytes % 4 || words[0] != 0x07230203u)
    return bad(name, "not a SPIR-V module");
  char path[4200] = "";
  if (ctx->verdict_dir) {
    verdict_path(ctx, words, bytes, path, sizeof path);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) return VKML_OK;
  }
  VKML_RETURN_IF_ERROR(validate(&ctx->target, words, bytes, name));
  /* remembered best-effort: a cache that cannot be written only costs a
   * validation next time */
  if (path[0] && ir_mkdirs(ctx->verdict_dir)) {
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) close(fd);
  }
  return VKML_OK;
}

vkml_status rt_vk_spirv_check_bindings(const uint32_t *words, size_t bytes, int n_buffers,
                                       const char *name) {
  if (!name) name = "(unnamed)";
  size_t n = bytes / 4;
  for (size_t i = 5; i < n;) {
    uint32_t count = words[i] >> 16, op = words[i] & 0xffffu;
    if (!count || count > n - i) return bad(name, "an instruction past the module's end");
    if (op == OP_DECORATE && count >= 4) {
      uint32_t dec = words[i + 2], v = words[i + 3];
      char what[160];
      if (dec == DECORATION_DESCRIPTOR_SET && v != 0) {
        snprintf(what, sizeof what, "descriptor set %u (vkml's kernels use set 0 only)", v);
        return bad(name, what);
      }
      if (dec == DECORATION_BINDING && (int64_t)v >= n_buffers) {
        snprintf(what, sizeof what, "binding %u, past the step's %d buffers", v, n_buffers);
        return bad(name, what);
      }
    }
    i += count;
  }
  return VKML_OK;
}
