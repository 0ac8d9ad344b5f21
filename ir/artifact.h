/* The .vkm artifact: a compiled plan and the graph it runs in one file, what
 * `vkc compile` writes and `vkrun` loads (docs/architecture.md, Formats). Plain data
 * like ir_plan, so it lives in ir/: the compiler writes it, the runtime
 * reads it, neither needs the other.
 *
 * Layout (little-endian):
 *
 *   header, 64 bytes: magic "\x89VKM\r\n\x1a\n", u32 format version, u32
 *     section count, u64 file bytes, u64 checksum of the section table, 24
 *     zero bytes, u64 checksum of the header's first 56 bytes;
 *   section table: per section 48 bytes: name (16, NUL-padded), u64 offset,
 *     u64 bytes, u64 checksum, u64 zero;
 *   sections, each at a 64-byte aligned offset (the weights can be mapped
 *     and used in place), zero padding between them, the file ending where
 *     the last one does.
 *
 * Sections: "provenance" (key=value lines: tool, device, driver, precision),
 * "needs" (the device features the kernels need, ir_plan_needs), "graph"
 * (the IR text after all passes: placement, layouts, transfers), "steps"
 * (one record per plan step), "pools" (bindings, specialization constants,
 * push bytes, strings: each GPU step's workload key, template and schedule,
 * each CPU step's reason), "modules" (SPIR-V), "memplan" (the arena
 * layout), "weights" (the graph's weights blob). The header and table
 * checksums are FNV-1a 64 (ir_fnv64), the sections' ir_checksum64 (four
 * lanes of 64-bit words: memory speed on 100 MB of weights): every byte of
 * the file is covered by one, or must be zero.
 *
 * Identical plans give byte-identical files: nothing depends on the time,
 * the machine's caches or pointer values. */
#ifndef IR_ARTIFACT_H
#define IR_ARTIFACT_H

#include <stddef.h>
#include <stdint.h>

#include "plan.h"
#include "target.h"

/* 3: step flags (IR_STEP_*); 2: section checksums by ir_checksum64
 * (version 1: FNV-1a) */
#define IR_ARTIFACT_VERSION 3

/* A GPU step whose schedule a schedule database gave (the others' are the
 * defaults). */
typedef struct ir_artifact_schedule {
  int32_t step;           /* plan step */
  bool nearest;           /* the nearest device's record (not the target's) */
  const char *device_key; /* the record's device */
  bool confirmed;         /* a confirmation record (vktune's, against the default) */
} ir_artifact_schedule;

/* Who made the artifact, for its provenance section: key=value lines,
 * "format", "tool", "precision", "schedules"; with a target "device",
 * "vendor_id", "device_id", "driver_id", "driver_version", "api_version"
 * and "device_key"; then one "tuned=STEP tuned|nearest DEVICE_KEY
 * confirmed|unconfirmed" per entry of tuned. */
typedef struct ir_artifact_meta {
  const char *tool;         /* e.g. "vkc 0.1.0" */
  const ir_target *target;  /* the device it was compiled for (NULL: none) */
  const char *schedules;    /* where the schedules came from: "default", a database path */
  const char *device_key;   /* the target as the schedule database keys it (NULL: none) */
  int n_tuned;
  const ir_artifact_schedule *tuned;
} ir_artifact_meta;

/* The bytes of p's artifact (malloc'd, *out freed by the caller). */
vkml_status ir_artifact_encode(const ir_plan *p, const ir_artifact_meta *m, uint8_t **out,
                               size_t *bytes);
/* Writes p's artifact to path: a temporary file beside it, renamed over
 * path when complete (a failure leaves nothing half-written). */
vkml_status ir_artifact_write_file(const ir_plan *p, const ir_artifact_meta *m, const char *path);

/* Decodes an artifact. The plan's graph borrows its weights from bytes,
 * which must outlive the plan (unless the caller hands them over through
 * plan->backing). name is used in messages. A damaged or truncated file is
 * CORRUPT naming the section; another format version UNSUPPORTED naming
 * both. *out is freed with ir_plan_destroy. */
vkml_status ir_artifact_decode(const void *bytes, size_t n, const char *name, ir_plan **out);
/* Maps path and decodes it; the plan keeps the mapping (plan->backing) and
 * unmaps it when destroyed. */
vkml_status ir_artifact_load_file(const char *path, ir_plan **out);

/* The weights section's checksum, left for later by
 * ir_artifact_load_file_deferred. */
typedef struct ir_artifact_deferred {
  const void *data; /* the section in the plan's mapping */
  uint64_t bytes;
  uint64_t checksum; /* what the section table says */
} ir_artifact_deferred;

/* ir_artifact_load_file, but for the weights section's checksum: every other
 * check is made, the weights are not read (nor their pages mapped in). The
 * caller runs ir_artifact_deferred_check, e.g. on a thread while it creates a
 * device, and lets nothing read the weights before it has passed (decoding
 * never reads them: a forged blob cannot reach the decoders). */
vkml_status ir_artifact_load_file_deferred(const char *path, ir_plan **out,
                                           ir_artifact_deferred *check);
/* CORRUPT "NAME: checksum mismatch in section weights" where the weights
 * differ from their checksum. Reads only check->data (thread-safe). */
vkml_status ir_artifact_deferred_check(const ir_artifact_deferred *check, const char *name);

/* Section name of an artifact that decoded (its table was checked then):
 * *data and *size, or NULL and 0 when there is no such section. */
void ir_artifact_section(const void *bytes, size_t n, const char *name, const void **data,
                         uint64_t *size);

#endif
