/* Shared CLI plumbing (see cli_common.h): options, messages, names. */
#include "cli_common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char cli_run_opts_help[] =
    "  --input NAME=FILE   bind a graph input to a .npy or ONNX TensorProto .pb file\n"
    "                      (float64 .npy converted for f32 and f16 inputs; vkc: its\n"
    "                      shape fixes the ONNX input's symbolic dimensions); none\n"
    "                      with --bench or --profile: seeded random inputs\n"
    "  --output DIR        write one DIR/NAME.npy per graph output\n"
    "  --device N|cpu      Vulkan device index, or the CPU executor (vkrun: .vkir\n"
    "                      runs on the CPU only)\n"
    "  --bench N           time N runs and print latency statistics\n"
    "  --warmup N          untimed runs before --bench (default 2)\n"
    "  --warmup-ms MS      and warm up for at least MS ms (default: GPU 200, CPU 0;\n"
    "                      an idle GPU runs at lower clocks)\n"
    "  --replay            GPU: timed runs re-submit the recorded kernels only (no\n"
    "                      uploads, downloads or CPU steps): kernel times back to back\n"
    "  --wait block|spin|hybrid\n"
    "                      GPU: sleep on the fence (default), poll it (lowest\n"
    "                      latency, a core busy while the GPU runs), or sleep 3/4\n"
    "                      of the last run's time and then poll\n"
    "  --inputs direct|staged\n"
    "                      GPU, all steps on the GPU: write inputs into device-local\n"
    "                      host-visible memory the kernels read, where the device\n"
    "                      has it (default), or into staging copied in by the run\n"
    "  --profile           per-op time table (median over the timed runs): output\n"
    "                      shape, GFLOP/s and GB/s from each op's work and traffic;\n"
    "                      with the device's peaks file (vkml-peaks) each GPU op's\n"
    "                      % of the nearer roof (cooperative-matrix rate for its\n"
    "                      kernels, FMA rate otherwise, copy bandwidth); and the\n"
    "                      driver's statistics of each GPU kernel where it reports\n"
    "                      them (VK_KHR_pipeline_executable_properties: registers,\n"
    "                      spills)\n"
    "  --peak GFLOPS,GBS   roofs for every op instead of the peaks file\n"
    "  --json              machine-readable output\n";

/* Length of the valid UTF-8 sequence at p that is not a C1 control
 * (U+0080..U+009F, which some terminals obey), else 0. */
static int utf8_printable(const unsigned char *p) {
  int n = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 ? 2 : 0;
  if (p[0] >= 0xf5) n = 0;
  for (int i = 1; i < n; i++)
    if ((p[i] & 0xc0) != 0x80) return 0;
  if (n == 2 && p[0] == 0xc2 && p[1] < 0xa0) return 0;
  if (n == 3 && p[0] == 0xe0 && p[1] < 0xa0) return 0; /* overlong */
  if (n == 4 && p[0] == 0xf0 && p[1] < 0x90) return 0;
  return n;
}

size_t cli_escape(const char *in, char *out, size_t cap, bool one_line) {
  size_t o = 0;
  const unsigned char *p = (const unsigned char *)in;
  while (*p && o + 5 < cap) {
    int n;
    if (*p == '\n' && one_line) {
      if (p[1] && o + 3 < cap) o += (size_t)snprintf(out + o, cap - o, " | ");
      p++;
    } else if (*p == '\r' && one_line) {
      p++;
    } else if (*p >= 0x20 && *p < 0x7f) {
      out[o++] = (char)*p++;
    } else if (*p >= 0x80 && (n = utf8_printable(p)) > 0) {
      if (o + (size_t)n >= cap) break;
      memcpy(out + o, p, (size_t)n);
      o += (size_t)n;
      p += n;
    } else {
      o += (size_t)snprintf(out + o, cap - o, "\\x%02x", *p++);
    }
  }
  out[o] = '\0';
  return o;
}

int cli_fail(const char *tool, vkml_status s) {
  /* One line, whatever the message quotes (a shader compiler's output can
   * span several: line breaks become " | "), and no byte a model file put
   * there reaches the terminal as a control character (\xNN instead). */
  const char *m = vkml_status_message(s);
  size_t cap = 4 * strlen(m) + 8;
  char *e = malloc(cap);
  if (e) cli_escape(m, e, cap, true);
  fprintf(stderr, "%s: %s\n", tool, e ? e : "out of memory (printing an error)");
  free(e);
  vkml_status_free(s);
  return 1;
}

static bool parse_int(const char *s, int *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end || v < 0 || v > 1000000) return false;
  *out = (int)v;
  return true;
}

int cli_run_opts_parse(const char *tool, int argc, char **argv, int *i,
                       cli_run_opts *o) {
  const char *a = argv[*i];
  bool takes_value = !strcmp(a, "--input") || !strcmp(a, "--output") ||
                     !strcmp(a, "--device") || !strcmp(a, "--bench") ||
                     !strcmp(a, "--warmup") || !strcmp(a, "--warmup-ms") ||
                     !strcmp(a, "--wait") || !strcmp(a, "--peak") ||
                     !strcmp(a, "--inputs");
  if (!takes_value) {
    if (!strcmp(a, "--profile")) o->profile = true;
    else if (!strcmp(a, "--replay")) o->replay = true;
    else if (!strcmp(a, "--json")) o->json = true;
    else return 0;
    return 1;
  }
  if (*i + 1 >= argc) {
    fprintf(stderr, "%s: %s needs a value\n", tool, a);
    return -1;
  }
  const char *v = argv[++*i];
  if (!strcmp(a, "--input")) {
    const char *eq = strchr(v, '=');
    if (!eq || eq == v || !eq[1]) {
      fprintf(stderr, "%s: --input expects NAME=FILE, got '%s'\n", tool, v);
      return -1;
    }
    if (o->n_inputs == 64) {
      fprintf(stderr, "%s: more than 64 --input options\n", tool);
      return -1;
    }
    size_t len = (size_t)(eq - v);
    for (int k = 0; k < o->n_inputs; k++)
      if (!strncmp(o->input_names[k], v, len) && o->input_names[k][len] == '=') {
        fprintf(stderr, "%s: --input %.*s given twice\n", tool, (int)len, v);
        return -1;
      }
    o->input_names[o->n_inputs] = v; /* NAME ends at '=' */
    o->input_files[o->n_inputs++] = eq + 1;
  } else if (!strcmp(a, "--output")) {
    o->output_dir = v;
  } else if (!strcmp(a, "--device")) {
    o->device = v;
  } else if (!strcmp(a, "--peak")) {
    char *end;
    o->peak_gflops = strtod(v, &end);
    o->peak_gbs = *end == ',' ? strtod(end + 1, &end) : -1;
    if (*end || !(o->peak_gflops >= 0) || !(o->peak_gbs >= 0)) {
      fprintf(stderr, "%s: --peak expects GFLOPS,GBS (e.g. 60000,3000), got '%s'\n", tool, v);
      return -1;
    }
  } else if (!strcmp(a, "--wait")) {
    if (strcmp(v, "block") && strcmp(v, "spin") && strcmp(v, "hybrid")) {
      fprintf(stderr, "%s: --wait expects block, spin or hybrid, got '%s'\n", tool, v);
      return -1;
    }
    o->wait = !strcmp(v, "spin")     ? VKML_WAIT_SPIN
              : !strcmp(v, "hybrid") ? VKML_WAIT_HYBRID
                                     : VKML_WAIT_BLOCK;
  } else if (!strcmp(a, "--inputs")) {
    if (strcmp(v, "direct") && strcmp(v, "staged")) {
      fprintf(stderr, "%s: --inputs expects direct or staged, got '%s'\n", tool, v);
      return -1;
    }
    o->staged_inputs = !strcmp(v, "staged");
  } else if (!parse_int(v, !strcmp(a, "--bench")       ? &o->bench
                          : !strcmp(a, "--warmup-ms") ? &o->warmup_ms
                                                      : &o->warmup)) {
    fprintf(stderr, "%s: %s expects a non-negative integer, got '%s'\n", tool, a, v);
    return -1;
  }
  return 1;
}

void cli_sanitize_name(const char *in, char *out) {
  size_t n = 0;
  bool only_dots = true;
  for (const char *p = in; *p; p++) {
    char c = *p;
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    out[n++] = ok ? c : '_';
    if (c != '.') only_dots = false;
  }
  out[n] = 0;
  if (n == 0 || only_dots) strcpy(out, "_");
}

double cli_now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

bool cli_device_is_cpu(const cli_run_opts *o) { return o->device && !strcmp(o->device, "cpu"); }

vkml_status cli_device_parse(const char *device, vkml_device_kind *kind, int *index) {
  *kind = VKML_DEVICE_DEFAULT;
  *index = 0;
  if (!device) return VKML_OK;
  if (!strcmp(device, "cpu")) {
    *kind = VKML_DEVICE_CPU;
    return VKML_OK;
  }
  if (!parse_int(device, index))
    return vkml_status_make(VKML_CODE_INVALID_ARGUMENT,
                            "--device expects a device index or 'cpu', got '%s'", device);
  *kind = VKML_DEVICE_INDEX;
  return VKML_OK;
}

void cli_run_opts_init(cli_run_opts *o, const char *tool) {
  *o = (cli_run_opts){.warmup = -1, .warmup_ms = -1, .tool = tool, .load_s = -1};
}

const char *cli_dtype_name(vkml_dtype t) {
  static const char *const names[] = {"f32", "f16", "i32", "i64", "u8", "i8", "bool"};
  return (int)t >= 0 && t <= VKML_BOOL ? names[t] : "?";
}

void cli_type_format(vkml_dtype t, int rank, const int64_t *dims, int bounded_axis, char *buf,
                     size_t bytes) {
  size_t k = (size_t)snprintf(buf, bytes, "%s[", cli_dtype_name(t));
  for (int d = 0; d < rank && k < bytes; d++)
    k += (size_t)snprintf(buf + k, bytes - k, "%s%s%lld", d ? "," : "",
                          d == bounded_axis ? "<=" : "", (long long)dims[d]);
  if (k < bytes) snprintf(buf + k, bytes - k, "]");
}

void cli_print_json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}
