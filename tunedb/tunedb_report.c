/* The HTML report: one self-contained page (inline CSS and SVG, nothing
 * fetched) with a tuning curve per workload and the speedup of tuning per
 * device. Reads the database only. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tunedb/tunedb_internal.h"

static void html_text(FILE *f, const char *s) {
  for (; s && *s; s++) {
    switch (*s) {
    case '&': fputs("&amp;", f); break;
    case '<': fputs("&lt;", f); break;
    case '>': fputs("&gt;", f); break;
    case '"': fputs("&quot;", f); break;
    case '\'': fputs("&#39;", f); break;
    default: fputc(*s, f);
    }
  }
}

static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                      "#ff7f0e", "#17becf", "#8c564b", "#e377c2"};
enum { W = 560, H = 220, PAD_L = 70, PAD_R = 16, PAD_T = 12, PAD_B = 30 };

static bool usable(const tunedb_record *r) { return r->correct && !r->failed && r->median_ns > 0; }

/* One workload's SVG: per device, best time so far against its trial number. */
static void curve_svg(FILE *f, const tunedb_record_list *recs) {
  size_t max_trials = 1;
  double max_ns = 0, min_ns = INFINITY;
  for (size_t i = 0; i < recs->n; i++) {
    if (!usable(&recs->items[i])) continue;
    double t = recs->items[i].median_ns;
    if (t > max_ns) max_ns = t;
    if (t < min_ns) min_ns = t;
  }
  /* devices in order of first appearance; trials counted per device */
  const char *devs[64];
  size_t n_devs = 0;
  for (size_t i = 0; i < recs->n; i++) {
    size_t d = 0;
    while (d < n_devs && strcmp(devs[d], recs->items[i].device_key) != 0) d++;
    if (d == n_devs && n_devs < 64) devs[n_devs++] = recs->items[i].device_key;
  }
  for (size_t d = 0; d < n_devs; d++) {
    size_t t = 0;
    for (size_t i = 0; i < recs->n; i++) t += strcmp(recs->items[i].device_key, devs[d]) == 0;
    if (t > max_trials) max_trials = t;
  }
  /* log time axis: devices a hundred times apart share one plot */
  if (max_ns <= 0) max_ns = min_ns = 1;
  double log_lo = log(min_ns) - 0.05, log_span = log(max_ns) + 0.05 - log_lo;
  fprintf(f,
          "<svg width=\"%d\" height=\"%d\" "
          "viewBox=\"0 0 %d %d\" role=\"img\">\n",
          W, H, W, H);
  double pw = W - PAD_L - PAD_R, ph = H - PAD_T - PAD_B;
  fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%g\" height=\"%g\" fill=\"none\" stroke=\"#999\"/>\n",
          PAD_L, PAD_T, pw, ph);
  fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"end\">%.4g µs</text>\n",
          PAD_L - 4, PAD_T + 10, max_ns / 1e3);
  fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"end\">%.4g µs</text>\n",
          PAD_L - 4, H - PAD_B, min_ns / 1e3);
  fprintf(f, "<text x=\"12\" y=\"%g\" font-size=\"11\">log</text>\n", PAD_T + ph / 2);
  fprintf(f, "<text x=\"%g\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">trial (1..%zu)</text>\n",
          PAD_L + pw / 2, H - 8, max_trials);
  for (size_t d = 0; d < n_devs; d++) {
    const char *color = palette[d % (sizeof palette / sizeof palette[0])];
    fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", color);
    double best = INFINITY;
    size_t t = 0;
    for (size_t i = 0; i < recs->n; i++) {
      const tunedb_record *r = &recs->items[i];
      if (strcmp(r->device_key, devs[d]) != 0) continue;
      t++;
      if (usable(r) && r->median_ns < best) best = r->median_ns;
      if (!isfinite(best)) continue;
      double x = PAD_L + (max_trials > 1 ? pw * (double)(t - 1) / (double)(max_trials - 1) : 0);
      double y = PAD_T + ph * (1 - (log(best) - log_lo) / log_span);
      fprintf(f, "%.1f,%.1f ", x, y);
    }
    fprintf(f, "\"><title>");
    html_text(f, devs[d]);
    fprintf(f, "</title></polyline>\n<text x=\"%d\" y=\"%zu\" font-size=\"11\" fill=\"%s\">",
            PAD_L + 6, PAD_T + 14 + 13 * d, color);
    html_text(f, devs[d]);
    fputs("</text>\n", f);
  }
  fputs("</svg>\n", f);
}

/* First usable record and best of one device in recs (in measurement order). */
static bool first_and_best(const tunedb_record_list *recs, const char *dev, double *first,
                           double *best) {
  *first = 0;
  *best = INFINITY;
  for (size_t i = 0; i < recs->n; i++) {
    const tunedb_record *r = &recs->items[i];
    if (strcmp(r->device_key, dev) != 0 || !usable(r)) continue;
    if (*first == 0) *first = r->median_ns;
    if (r->median_ns < *best) *best = r->median_ns;
  }
  return *first > 0;
}

vkml_status tunedb_report_write(tunedb *db, FILE *f) {
  char **keys = NULL;
  size_t n_keys = 0;
  tunedb_device_list devs = {0};
  VKML_RETURN_IF_ERROR(tunedb_workload_keys(db, &keys, &n_keys));
  vkml_status s = tunedb_devices_list(db, &devs);
  if (s != VKML_OK) goto out;
  /* per device: sum of log speedups and count, for the geometric mean */
  double *log_sum = calloc(devs.n + 1, sizeof *log_sum);
  int *n_sp = calloc(devs.n + 1, sizeof *n_sp);
  if (!log_sum || !n_sp) {
    free(log_sum);
    free(n_sp);
    s = vkml_status_make(VKML_CODE_OUT_OF_MEMORY, "%s: out of memory", db->path);
    goto out;
  }
  fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n"
        "<title>vkml tuning report</title>\n<style>body{font-family:sans-serif;margin:2em}"
        "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px;"
        "text-align:right}td:first-child{text-align:left}code{font-size:90%}</style>\n"
        "</head><body>\n<h1>vkml tuning report</h1>\n",
        f);
  fprintf(f, "<p>%zu workloads, %zu devices. Curves: best correct time so far against trial "
             "number, per device.</p>\n",
          n_keys, devs.n);
  for (size_t k = 0; k < n_keys && s == VKML_OK; k++) {
    tunedb_record_list recs = {0};
    s = tunedb_records_get(db, NULL, keys[k], &recs);
    if (s != VKML_OK) break;
    /* the curves and counts are the walk's trials; the confirmations (the
     * best measured again) set the best below, through the best view */
    size_t kept = 0;
    for (size_t i = 0; i < recs.n; i++) {
      if (recs.items[i].confirmation) tunedb_record_clear(&recs.items[i]);
      else recs.items[kept++] = recs.items[i];
    }
    recs.n = kept;
    fputs("<section class=\"workload\"><h2><code>", f);
    html_text(f, keys[k]);
    fprintf(f, "</code></h2>\n<p>%zu trials</p>\n", recs.n);
    curve_svg(f, &recs);
    fputs("<table><tr><th>device</th><th>first (µs)</th><th>best (µs)</th><th>speedup</th></tr>\n", f);
    for (size_t d = 0; d < devs.n; d++) {
      double first, best;
      if (!first_and_best(&recs, devs.items[d].key, &first, &best)) continue;
      tunedb_record_list b = {0};
      s = tunedb_best_get(db, devs.items[d].key, keys[k], &b);
      if (s != VKML_OK) break;
      if (b.n && b.items[0].median_ns > 0) best = b.items[0].median_ns;
      tunedb_record_list_free(&b);
      log_sum[d] += log(first / best);
      n_sp[d]++;
      fputs("<tr><td>", f);
      html_text(f, devs.items[d].key);
      fprintf(f, "</td><td>%.3f</td><td>%.3f</td><td>%.2f×</td></tr>\n", first / 1e3, best / 1e3,
              first / best);
    }
    fputs("</table></section>\n", f);
    tunedb_record_list_free(&recs);
  }
  if (s == VKML_OK) {
    fputs("<h2>Speedup of tuning per device</h2>\n<p>Best record over the first (default) "
          "record of each workload, geometric mean.</p>\n<table><tr><th>device</th><th>name"
          "</th><th>trials</th><th>workloads</th><th>geomean speedup</th></tr>\n",
          f);
    for (size_t d = 0; d < devs.n; d++) {
      fputs("<tr><td>", f);
      html_text(f, devs.items[d].key);
      fputs("</td><td>", f);
      html_text(f, devs.items[d].dev.name);
      fprintf(f, "</td><td>%lld</td><td>%d</td><td>", (long long)devs.items[d].n_records,
              n_sp[d]);
      if (n_sp[d])
        fprintf(f, "%.2f×", exp(log_sum[d] / n_sp[d]));
      else
        fputs("–", f);
      fputs("</td></tr>\n", f);
    }
    fputs("</table>\n</body></html>\n", f);
    if (fflush(f) != 0 || ferror(f))
      s = vkml_status_make(VKML_CODE_IO, "writing the report: write error");
  }
  free(log_sum);
  free(n_sp);
out:
  tunedb_strings_free(keys, n_keys);
  tunedb_device_list_free(&devs);
  return s;
}
