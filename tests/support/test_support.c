/* Shared test helpers (see test_support.h). */
#include "test_support.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "runtime/cpu/cpu_kernels.h"

t_rng t_rng_make(uint64_t seed) {
  t_rng r = {seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull};
  if (!r.s) r.s = 1;
  return r;
}

uint64_t t_rng_next(t_rng *r) {
  r->s ^= r->s >> 12;
  r->s ^= r->s << 25;
  r->s ^= r->s >> 27;
  return r->s * 0x2545F4914F6CDD1Dull;
}

double t_rng_uniform(t_rng *r, double lo, double hi) {
  return lo + (hi - lo) * ((double)(t_rng_next(r) >> 11) / 9007199254740992.0);
}

double t_rng_nonzero(t_rng *r, double lo, double hi) {
  double gap = 0.05 * (hi - lo);
  for (;;) {
    double v = t_rng_uniform(r, lo, hi);
    if (!(lo < 0 && hi > 0) || fabs(v) >= gap) return v;
  }
}

rt_tensor t_tensor_zeros(ir_dtype dtype, int rank, const int64_t *dims) {
  rt_tensor t;
  T_OK(rt_tensor_alloc_dims(dtype, rank, dims, &t));
  return t;
}

rt_tensor t_tensor_random(t_rng *r, ir_dtype dtype, int rank,
                          const int64_t *dims, double lo, double hi) {
  rt_tensor t = t_tensor_zeros(dtype, rank, dims);
  int64_t n = rt_tensor_numel(&t);
  for (int64_t i = 0; i < n; i++) {
    if (dtype == IR_BOOL) {
      rt_store_i(&t, i, (int64_t)(t_rng_next(r) & 1));
    } else if (ir_dtype_is_float(dtype)) {
      rt_store_f(&t, i, t_rng_nonzero(r, lo, hi));
    } else {
      int64_t v;
      do {
        v = (int64_t)floor(t_rng_uniform(r, lo, hi));
      } while (v == 0 && (lo < 0 || hi > 1));
      rt_store_i(&t, i, v);
    }
  }
  return t;
}

rt_tensor t_tensor_from(ir_dtype dtype, int rank, const int64_t *dims,
                        const double *values) {
  rt_tensor t = t_tensor_zeros(dtype, rank, dims);
  int64_t n = rt_tensor_numel(&t);
  for (int64_t i = 0; i < n; i++) {
    if (ir_dtype_is_float(dtype))
      rt_store_f(&t, i, values[i]);
    else
      rt_store_i(&t, i, (int64_t)values[i]);
  }
  return t;
}

ir_node *t_node_make(ir_graph **g, ir_op op, const rt_tensor *in, int n_in,
                     const ir_type *out_types, int n_out) {
  T_OK(ir_graph_create("t", g));
  ir_value *ins[16], *outs[16];
  cr_assert(n_in <= 16 && n_out <= 16);
  for (int i = 0; i < n_in; i++) {
    ir_type t = rt_tensor_type(&in[i]);
    T_OK(ir_value_create(*g, NULL, &t, &ins[i]));
    T_OK(ir_graph_add_input(*g, ins[i]));
  }
  for (int i = 0; i < n_out; i++) T_OK(ir_value_create(*g, NULL, &out_types[i], &outs[i]));
  ir_node *n;
  T_OK(ir_node_create(*g, op, ins, n_in, outs, n_out, &n));
  for (int i = 0; i < n_out; i++) T_OK(ir_graph_add_output(*g, outs[i]));
  return n;
}

vkml_status t_node_run(const ir_node *n, const rt_tensor *in, int n_in, rt_tensor *out,
                       int n_out) {
  const rt_tensor *ip[8];
  rt_tensor *op[8];
  cr_assert(n_in <= 8 && n_out <= 8);
  for (int i = 0; i < n_in; i++) ip[i] = &in[i];
  for (int i = 0; i < n_out; i++) op[i] = &out[i];
  return rt_cpu_run_node(n, ip, n_in, op, n_out);
}

void t_case_make(t_case *c, ir_op op, int n_in, const ir_type *out_types, int n_out) {
  c->n_in = n_in;
  c->n_out = n_out;
  c->n = t_node_make(&c->g, op, c->in, n_in, out_types, n_out);
  for (int i = 0; i < n_out; i++) {
    T_OK(rt_tensor_alloc(&out_types[i], &c->out[i]));
    memset(c->out[i].data, 0x5a, c->out[i].cap_bytes);
  }
}

vkml_status t_case_run(t_case *c) {
  return t_node_run(c->n, c->in, c->n_in, c->out, c->n_out);
}

void t_case_free(t_case *c) {
  for (int i = 0; i < 8; i++) {
    rt_tensor_free(&c->in[i]);
    rt_tensor_free(&c->out[i]);
  }
  if (c->g) ir_graph_destroy(c->g);
  memset(c, 0, sizeof *c);
}

void t_set_window_attrs(ir_graph *g, ir_node *n, int64_t sh, int64_t sw, int64_t dh,
                        int64_t dw, const int64_t pads[4]) {
  if (sh != 1 || sw != 1) T_OK(ir_node_set_ints(g, n, IR_A_STRIDES, (int64_t[]){sh, sw}, 2));
  if (dh != 1 || dw != 1) T_OK(ir_node_set_ints(g, n, IR_A_DILATIONS, (int64_t[]){dh, dw}, 2));
  if (pads[0] || pads[1] || pads[2] || pads[3]) T_OK(ir_node_set_ints(g, n, IR_A_PADS, pads, 4));
}

void t_expect_error(vkml_status s, vkml_code code, const char *part) {
  cr_assert(s != VKML_OK, "expected an error");
  cr_assert_eq(vkml_status_code(s), code, "code %s: %s", vkml_code_name(vkml_status_code(s)),
               vkml_status_message(s));
  cr_assert(strstr(vkml_status_message(s), part), "message '%s' lacks '%s'",
            vkml_status_message(s), part);
  vkml_status_free(s);
}

void t_unflatten(int64_t i, int rank, const int64_t *dims, int64_t *idx) {
  for (int d = rank - 1; d >= 0; d--) {
    idx[d] = i % dims[d];
    i /= dims[d];
  }
}

void t_assert_close(const rt_tensor *got, const rt_tensor *want, double rtol,
                    double atol) {
  cr_assert_eq(got->dtype, want->dtype, "dtype %s != %s", ir_dtype_name(got->dtype),
               ir_dtype_name(want->dtype));
  cr_assert_eq(got->rank, want->rank, "rank %d != %d", got->rank, want->rank);
  for (int i = 0; i < got->rank; i++)
    cr_assert_eq(got->dims[i], want->dims[i], "dim %d: %lld != %lld", i,
                 (long long)got->dims[i], (long long)want->dims[i]);
  int64_t n = rt_tensor_numel(got);
  for (int64_t i = 0; i < n; i++) {
    if (ir_dtype_is_float(got->dtype)) {
      double a = rt_load_f(got, i), b = rt_load_f(want, i);
      if (isnan(a) || isnan(b)) {
        cr_assert(isnan(a) && isnan(b), "element %lld: got %.9g want %.9g",
                  (long long)i, a, b);
        continue;
      }
      if (isinf(a) || isinf(b)) {
        cr_assert(a == b, "element %lld: got %.9g want %.9g", (long long)i, a, b);
        continue;
      }
      cr_assert(fabs(a - b) <= atol + rtol * fabs(b),
                "element %lld: got %.9g want %.9g (rtol %g atol %g)",
                (long long)i, a, b, rtol, atol);
    } else {
      int64_t a = rt_load_i(got, i), b = rt_load_i(want, i);
      cr_assert(a == b, "element %lld: got %lld want %lld", (long long)i,
                (long long)a, (long long)b);
    }
  }
}
