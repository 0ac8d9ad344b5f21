/* vkrun: run a model and print or write its outputs, with latency statistics
 * and a per-step profile; or print what an artifact holds (--info). Through
 * the runtime library's public API (include/vkml.h) and nothing else, as an
 * application would. */
#include <stdio.h>
#include <string.h>

#include "cli_common.h"
#include "vkml.h"

static const char usage[] =
    "usage: vkrun MODEL [options]\n"
    "Runs MODEL: a .vkm artifact (vkc compile) on the default Vulkan device, or\n"
    "--device N, or the CPU reference kernels with --device cpu; or a .vkir file\n"
    "(with its .bin weights beside it) on the CPU reference kernels.\n"
    "  --info              print the model's inputs and outputs, the device it was\n"
    "                      compiled for, its precision, compiler and where its\n"
    "                      schedules came from; run nothing (with --json as JSON)\n"
    "options:\n";

static bool has_ext(const char *path, const char *ext) {
  size_t n = strlen(path), m = strlen(ext);
  return n > m && !strcmp(path + n - m, ext);
}

/* A tensor's line of --info: name, type, and what a bounded axis means. */
static void print_tensor(const vkml_tensor_info *t, bool json, bool first) {
  if (json) {
    printf("%s{\"name\": ", first ? "" : ", ");
    cli_print_json_string(stdout, t->name);
    printf(", \"dtype\": \"%s\", \"shape\": [", cli_dtype_name(t->dtype));
    for (int d = 0; d < t->rank; d++) printf("%s%lld", d ? ", " : "", (long long)t->dims[d]);
    printf("], \"bounded_axis\": ");
    if (t->bounded_axis >= 0) printf("%d", t->bounded_axis);
    else printf("null");
    printf(", \"bytes\": %zu}", t->bytes);
    return;
  }
  char name[512], ty[160];
  cli_escape(t->name, name, sizeof name, true);
  cli_type_format(t->dtype, t->rank, t->dims, t->bounded_axis, ty, sizeof ty);
  printf("  %-24s %s", name, ty);
  if (t->bounded_axis >= 0)
    printf("  (axis %d is data-dependent: at most %lld)", t->bounded_axis,
           (long long)t->dims[t->bounded_axis]);
  printf("\n");
}

/* A provenance string for a terminal, or as JSON. */
static void print_str(const char *key, const char *v, bool json) {
  if (json) {
    printf(", \"%s\": ", key);
    cli_print_json_string(stdout, v);
    return;
  }
  char e[1024];
  cli_escape(v, e, sizeof e, true);
  printf("%-14s %s\n", key, *e ? e : "-");
}

static vkml_status print_info(const vkml_model *m, const char *path, bool ir, bool json) {
  vkml_provenance p;
  VKML_RETURN_IF_ERROR(vkml_model_provenance(m, &p));
  if (!ir) { /* the weights too: a damaged file is not described as if whole */
    const void *bytes;
    size_t n;
    VKML_RETURN_IF_ERROR(vkml_model_artifact(m, &bytes, &n));
  }
  if (json) {
    printf("{\"model\": ");
    cli_print_json_string(stdout, path);
    printf(", \"kind\": \"%s\"", ir ? "ir" : "artifact");
  } else {
    char e[1024];
    cli_escape(path, e, sizeof e, true);
    printf("%s: %s\n", e, ir ? "IR text (runs on the CPU reference kernels)" : "vkml artifact");
  }
  if (!ir) {
    if (json) printf(", \"format\": %d", p.format);
    else printf("%-14s %d\n", "format", p.format);
    print_str("compiler", p.tool, json);
    print_str("precision", p.precision, json);
    print_str("device", p.device, json);
    print_str("device_key", p.device_key, json);
    if (json)
      printf(", \"vendor_id\": %u, \"device_id\": %u, \"driver_id\": %u, "
             "\"driver_version\": %u, \"api_version\": %u",
             p.vendor_id, p.device_id, p.driver_id, p.driver_version, p.api_version);
    else
      printf("%-14s vendor 0x%04x, device 0x%04x, driver id %u, driver version 0x%08x, "
             "Vulkan %u.%u.%u\n", "", p.vendor_id, p.device_id, p.driver_id, p.driver_version,
             p.api_version >> 22 & 0x7f, p.api_version >> 12 & 0x3ff, p.api_version & 0xfff);
    print_str("schedules", p.schedules, json);
    if (json)
      printf(", \"kernels\": {\"gpu\": %d, \"tuned\": %d, \"nearest\": %d, \"default\": %d, "
             "\"confirmed\": %d}",
             p.n_kernels, p.n_tuned, p.n_nearest, p.n_default, p.n_confirmed);
    else
      printf("%-14s %d GPU steps: %d tuned on this device, %d on the nearest device, %d "
             "default; %d of the tuned confirmed against the default\n",
             "kernels", p.n_kernels, p.n_tuned, p.n_nearest, p.n_default, p.n_confirmed);
  }
  for (int io = 0; io < 2; io++) {
    int n = io ? vkml_model_output_count(m) : vkml_model_input_count(m);
    if (json) printf(", \"%s\": [", io ? "outputs" : "inputs");
    else printf("%s\n", io ? "outputs" : "inputs");
    for (int i = 0; i < n; i++) {
      vkml_tensor_info t;
      VKML_RETURN_IF_ERROR(io ? vkml_model_output(m, i, &t) : vkml_model_input(m, i, &t));
      print_tensor(&t, json, i == 0);
    }
    if (json) printf("]");
  }
  /* each GPU kernel a database gave (JSON: every step) */
  bool any = false;
  if (json) printf(", \"steps\": [");
  for (int i = 0; i < vkml_model_step_count(m); i++) {
    vkml_step st;
    VKML_RETURN_IF_ERROR(vkml_model_step(m, i, &st));
    if (json) {
      printf("%s{\"op\": \"%s\", \"output\": ", i ? ", " : "", st.op);
      cli_print_json_string(stdout, st.output);
      printf(", \"device\": \"%s\"", st.device);
      if (!strcmp(st.device, "gpu")) {
        const char *keys[] = {"kernel", "schedule", "workload", "schedule_source"};
        const char *vals[] = {st.kernel, st.schedule, st.workload, st.schedule_source};
        for (int k = 0; k < 4; k++) {
          printf(", \"%s\": ", keys[k]);
          cli_print_json_string(stdout, vals[k]);
        }
        if (strcmp(st.schedule_source, "default")) {
          printf(", \"schedule_device\": ");
          cli_print_json_string(stdout, st.schedule_device);
          printf(", \"confirmed\": %s", st.confirmed ? "true" : "false");
        }
      } else if (st.note[0]) {
        printf(", \"note\": ");
        cli_print_json_string(stdout, st.note);
      }
      printf("}");
      continue;
    }
    if (strcmp(st.device, "gpu") || !strcmp(st.schedule_source, "default")) continue;
    if (!any) printf("tuned kernels\n");
    any = true;
    char out[256], sched[512], dev[128];
    cli_escape(st.output, out, sizeof out, true);
    cli_escape(st.schedule, sched, sizeof sched, true);
    cli_escape(st.schedule_device, dev, sizeof dev, true);
    printf("  %-16s %%%-24s %s %s: %s on %s%s\n", st.op, out, st.kernel, sched,
           st.schedule_source, dev, st.confirmed ? ", confirmed" : "");
  }
  if (json) printf("]}\n");
  return VKML_OK;
}

int main(int argc, char **argv) {
  cli_run_opts o;
  cli_run_opts_init(&o, "vkrun");
  const char *model = NULL, *run_option = NULL;
  bool info = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      printf("%s%s  --version           print the version\n", usage, cli_run_opts_help);
      return 0;
    }
    if (!strcmp(argv[i], "--version")) {
      printf("vkrun %s\n", vkml_version());
      return 0;
    }
    if (!strcmp(argv[i], "--info")) {
      info = true;
      continue;
    }
    const char *a = argv[i];
    int r = cli_run_opts_parse("vkrun", argc, argv, &i, &o);
    if (r < 0) return 2;
    if (r > 0) {
      if (strcmp(a, "--json")) run_option = a;
      continue;
    }
    if (argv[i][0] == '-' || model) {
      fprintf(stderr, "vkrun: unexpected argument '%s' (see vkrun --help)\n", argv[i]);
      return 2;
    }
    model = argv[i];
  }
  if (!model) {
    fprintf(stderr, "vkrun: no MODEL given (see vkrun --help)\n");
    return 2;
  }
  if (info && run_option) {
    fprintf(stderr, "vkrun: --info runs nothing: not with %s\n", run_option);
    return 2;
  }
  bool ir = has_ext(model, ".vkir");
  if (!ir && !has_ext(model, ".vkm")) {
    fprintf(stderr, "vkrun: %s: expected a .vkm artifact or a .vkir file\n", model);
    return 2;
  }
  if (ir && o.device && !cli_device_is_cpu(&o))
    return cli_fail("vkrun", vkml_status_make(VKML_CODE_UNSUPPORTED,
                                              "--device %s: .vkir models run on the CPU only "
                                              "here (use --device cpu; `vkc run` runs them on "
                                              "a GPU)", o.device));
  if (ir) o.device = "cpu";
  vkml_model *m = NULL;
  double t0 = cli_now_seconds();
  vkml_status s = ir ? vkml_model_load_ir(model, &m) : vkml_model_load(model, &m);
  o.load_s = cli_now_seconds() - t0;
  if (!s && info) s = print_info(m, model, ir, o.json);
  else if (!s) s = vkml_status_annotate(cli_run_model(m, &o), "%s", model);
  vkml_model_free(m);
  return s ? cli_fail("vkrun", s) : 0;
}
