/* Chained replays (vk_exec.h rt_vk_exec_replay_chained): each segment's
 * dispatches recorded several times in a row, each after a cache flush, and
 * timed by GPU timestamps, as the tuner measures a kernel inside a stream of
 * work. */
#include "vk_exec_internal.h"

/* Records segment sg's commands `repeat` times into sg->chain, each time
 * after a fill of e->chain_flush when there is one. */
static vkml_status record_chain(rt_vk_exec *e, segment *sg, int repeat) {
  rt_vk_program_destroy(e->ctx, sg->chain);
  sg->chain = NULL;
  sg->chain_cmds = 0;
  if (!sg->prog) return VKML_OK;
  for (int r = 0; r < repeat; r++) {
    if (e->chain_flush) {
      if (!sg->chain)
        VKML_RETURN_IF_ERROR(rt_vk_program_create(e->ctx, e->opts.timestamps, &sg->chain));
      VKML_RETURN_IF_ERROR(rt_vk_program_fill(sg->chain, e->chain_flush));
    }
    VKML_RETURN_IF_ERROR(rt_vk_exec_record_dispatches(e, sg->first, sg->last, &sg->chain, false));
  }
  VKML_RETURN_IF_ERROR(rt_vk_program_finish(sg->chain));
  rt_vk_program_stats ps;
  rt_vk_program_stats_get(sg->chain, &ps);
  sg->chain_cmds = ps.n_dispatches / repeat;
  return VKML_OK;
}

static vkml_status prepare_chains(rt_vk_exec *e, int repeat, const rt_vk_buffer *flush) {
  if (e->chain_repeat == repeat && e->chain_flush == flush) return VKML_OK;
  e->chain_repeat = 0;
  e->chain_flush = flush;
  int most = 0;
  for (int k = 0; k < e->n_segs; k++) {
    VKML_RETURN_IF_ERROR(record_chain(e, &e->segs[k], repeat));
    if (e->segs[k].chain_cmds > most) most = e->segs[k].chain_cmds;
  }
  free(e->chain_ns);
  free(e->chain_t);
  e->chain_ns = calloc((size_t)most * (size_t)repeat + 1, sizeof *e->chain_ns);
  e->chain_t = calloc((size_t)repeat, sizeof *e->chain_t);
  if (!e->chain_ns || !e->chain_t) return ir_oom("chained replays");
  e->chain_repeat = repeat;
  return VKML_OK;
}

static int cmp_ns(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

/* One chained segment submitted; each of its steps' time: the median over
 * repeats 1.. of the step's commands' timestamp intervals. */
static vkml_status run_chain(rt_vk_exec *e, const segment *sg, int repeat, double *step_ns) {
  if (!sg->chain) return VKML_OK;
  VKML_RETURN_IF_ERROR(rt_vk_exec_submit_segment(e, sg, sg->chain, "chained "));
  if (!step_ns) return VKML_OK;
  double total;
  VKML_RETURN_IF_ERROR(
      rt_vk_program_timings(sg->chain, e->chain_ns, sg->chain_cmds * repeat, &total));
  for (int k = sg->first; k <= sg->last; k++) {
    int d = e->step_disp[k];
    if (d < 0) continue;
    for (int r = 1; r < repeat; r++) {
      const double *t = e->chain_ns + (size_t)r * (size_t)sg->chain_cmds + d + !!e->chain_flush;
      e->chain_t[r - 1] = *t + rt_vk_exec_copy_ns(e, k, t);
    }
    qsort(e->chain_t, (size_t)repeat - 1, sizeof *e->chain_t, cmp_ns);
    int m = repeat - 1;
    step_ns[k] = m % 2 ? e->chain_t[m / 2] : 0.5 * (e->chain_t[m / 2 - 1] + e->chain_t[m / 2]);
  }
  return VKML_OK;
}

vkml_status rt_vk_exec_replay_chained(rt_vk_exec *e, int repeat, const rt_vk_buffer *flush,
                                      double *step_ns) {
  if (repeat < 2)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "a chained replay needs 2 or more repeats");
  if (e->stats.n_runs == 0)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "replay needs a complete run first (the device buffers hold its data)");
  if (step_ns && !e->opts.timestamps)
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT, "chained timings need timestamps");
  for (int i = 0; step_ns && i < e->plan->n_steps; i++) step_ns[i] = 0;
  VKML_RETURN_IF_ERROR(prepare_chains(e, repeat, flush));
  VKML_RETURN_IF_ERROR(rt_vk_errors_reset(e->ctx, e->errors));
  for (int k = 0; k < e->n_segs; k++)
    VKML_RETURN_IF_ERROR(run_chain(e, &e->segs[k], repeat, step_ns));
  e->stats.n_replays++;
  return VKML_OK;
}
