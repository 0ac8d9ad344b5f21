/* Converters for ONNX reductions and data-movement ops. Parameter inputs
 * (shape, axes, starts, pads, repeats, split) become IR attributes; axes are
 * normalised to non-negative values. The output-type helpers here also
 * serve constant folding. */
#include <string.h>

#include "onnx_internal.h"

static vkml_status norm_axis(int64_t axis, int rank, int64_t *out) {
  if (axis < -rank || axis >= rank)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "axis %lld out of range for rank %d",
                      (long long)axis, rank);
  *out = axis < 0 ? axis + rank : axis;
  return VKML_OK;
}

/* Axes from the attribute (older opsets) or the constant input 1 (from
 * from_opset on). *count is -1 when absent. */
static vkml_status axes_get(onnx_ctx *c, onnx_node *n, int64_t from_opset,
                            int64_t **axes, int *count) {
  *axes = NULL;
  *count = -1;
  if (c->opset >= from_opset) {
    if (onnx_attr(n, "axes"))
      return onnx_error(VKML_CODE_INVALID_GRAPH, "'axes' is an input, not an "
                        "attribute, at opset %lld", (long long)c->opset);
    if (!onnx_has_input(n, 1)) return VKML_OK;
    return onnx_param_ints(c, n, 1, "axes", axes, count);
  }
  if (n->n_in > 1)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "expects 1 input at opset %lld, got %d",
                      (long long)c->opset, n->n_in);
  const int64_t *a;
  int cnt = onnx_attr_ints(n, "axes", &a);
  if (cnt < 0) return VKML_OK;
  int64_t *copy = onnx_alloc(c, sizeof *copy * (size_t)(cnt ? cnt : 1));
  if (!copy) return ir_oom(NULL);
  if (cnt) memcpy(copy, a, sizeof *copy * (size_t)cnt);
  *axes = copy;
  *count = cnt;
  return VKML_OK;
}

/* Normalises axes against rank and rejects duplicates. */
static vkml_status axes_norm(int64_t *axes, int count, int rank) {
  if (count > IR_MAX_RANK)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "%d axes for rank %d", count, rank);
  for (int i = 0; i < count; i++) {
    VKML_RETURN_IF_ERROR(norm_axis(axes[i], rank, &axes[i]));
    for (int j = 0; j < i; j++)
      if (axes[j] == axes[i])
        return onnx_error(VKML_CODE_INVALID_GRAPH, "axis %lld repeated",
                          (long long)axes[i]);
  }
  return VKML_OK;
}

/* ---- output types shared with folding ----------------------------------- */

vkml_status onnx_reshape_resolve(const ir_type *in, const int64_t *shape,
                                 int n, bool allowzero, int64_t *dims) {
  if (n < 0 || n > IR_MAX_RANK)
    return onnx_error(VKML_CODE_UNSUPPORTED, "reshape to rank %d", n);
  int infer = -1;
  int64_t known = 1;
  for (int i = 0; i < n; i++) {
    int64_t d = shape[i];
    if (d == 0 && !allowzero) {
      if (i >= in->rank)
        return onnx_error(VKML_CODE_INVALID_GRAPH, "shape[%d] = 0 copies a "
                          "dimension the input (rank %d) lacks", i, in->rank);
      d = in->dims[i];
    }
    if (d == -1) {
      if (infer >= 0)
        return onnx_error(VKML_CODE_INVALID_GRAPH, "shape has more than one -1");
      infer = i;
      dims[i] = -1;
      continue;
    }
    if (d < 0)
      return onnx_error(VKML_CODE_INVALID_GRAPH, "shape[%d] = %lld is negative", i,
                        (long long)d);
    if (d > IR_MAX_ELEMENTS || (d && known > IR_MAX_ELEMENTS / d))
      return onnx_error(VKML_CODE_INVALID_GRAPH, "shape is too large");
    dims[i] = d;
    known *= d;
  }
  int64_t total = ir_type_numel(in);
  if (infer >= 0) {
    if (known == 0 || total % known)
      return onnx_error(VKML_CODE_INVALID_GRAPH,
                        "cannot reshape %lld elements with -1 and known size %lld",
                        (long long)total, (long long)known);
    dims[infer] = total / known;
  } else if (known != total) {
    return onnx_error(VKML_CODE_INVALID_GRAPH,
                      "cannot reshape %lld elements into %lld", (long long)total,
                      (long long)known);
  }
  return VKML_OK;
}

/* Reshape of a bounded x, or to a shape computed at run time: the known
 * entries and at most one run-time size, which becomes -1 (the rest of the
 * elements); x's own dims where ONNX copies them (0), its bounded one a
 * run-time size too. Static x: the -1 resolved at once. */
static vkml_status reshape_runtime(onnx_ctx *c, onnx_node *n, const ir_type *in, ir_type *out) {
  int64_t shape[IR_MAX_RANK];
  bool known[IR_MAX_RANK];
  const ir_value *src[IR_MAX_RANK];
  int axis[IR_MAX_RANK], cnt;
  VKML_RETURN_IF_ERROR(onnx_partial_sizes(c, n, 1, "shape", shape, known, src, axis, &cnt));
  bool allowzero = onnx_attr_i(n, "allowzero", 0) != 0;
  int runtime = -1, minus = -1;
  bool own = false; /* the run-time entry copies x's own bounded dim (0) */
  for (int k = 0; k < cnt; k++) {
    if (known[k] && shape[k] == 0 && !allowzero) {
      if (k >= in->rank)
        return onnx_error(VKML_CODE_INVALID_GRAPH, "shape[%d] = 0 copies a dim x lacks", k);
      shape[k] = in->dims[k];
      known[k] = !(in->bounded && in->bounded_axis == k);
      own = own || !known[k];
    }
    if (!known[k]) {
      if (runtime >= 0) {
        /* the parameter's own message: a graph input, or computed at run time */
        int64_t *vals;
        int nv;
        VKML_RETURN_IF_ERROR(onnx_param_ints(c, n, 1, "shape", &vals, &nv));
        return onnx_error(VKML_CODE_UNSUPPORTED,
                          "shape has entries %d and %d computed at run time: only one run-time "
                          "size is supported",
                          runtime, k);
      }
      runtime = k;
    } else if (shape[k] == -1) {
      if (minus >= 0) return onnx_error(VKML_CODE_INVALID_GRAPH, "shape has two -1");
      minus = k;
    } else if (shape[k] < 0) {
      return onnx_error(VKML_CODE_INVALID_GRAPH, "shape[%d] = %lld", k, (long long)shape[k]);
    }
  }
  if (runtime >= 0 && minus >= 0) {
    /* [n, -1, 4] with n a run-time size and x bounded: n is x's own count
     * (a consistent model; the capacities must agree), so the -1 is static:
     * x's other dims over the known entries */
    int64_t cap_src = own              ? in->dims[in->bounded_axis]
                      : src[runtime] ? src[runtime]->type.dims[axis[runtime]]
                                     : -1;
    if (!in->bounded || cap_src != in->dims[in->bounded_axis])
      return onnx_error(VKML_CODE_UNSUPPORTED,
                        "shape has a run-time size (entry %d) and a -1 (entry %d)", runtime,
                        minus);
    int64_t other = 1, known_prod = 1;
    for (int d = 0; d < in->rank; d++)
      if (d != in->bounded_axis) other *= in->dims[d];
    for (int k = 0; k < cnt; k++)
      if (k != runtime && k != minus) known_prod *= shape[k];
    if (!known_prod || other % known_prod)
      return onnx_error(VKML_CODE_INVALID_GRAPH, "the shape does not fit x's elements");
    shape[minus] = other / known_prod;
    minus = -1;
  }
  int rest_at = runtime >= 0 ? runtime : minus;
  if (rest_at >= 0) shape[rest_at] = -1;
  if (rest_at < 0 && in->bounded)
    return onnx_error(VKML_CODE_UNSUPPORTED,
                      "a reshape of a bounded value to a fixed shape (its size varies)");
  out->rank = cnt;
  memcpy(out->dims, shape, sizeof *shape * (size_t)cnt);
  if (!in->bounded && rest_at >= 0) {
    int64_t numel = ir_type_numel(in), rest = 1;
    for (int k = 0; k < cnt; k++)
      if (k != rest_at) rest *= shape[k];
    if (!rest || numel % rest)
      return onnx_error(VKML_CODE_INVALID_GRAPH, "%lld elements do not fit the shape",
                        (long long)numel);
    out->dims[rest_at] = numel / rest;
  }
  return VKML_OK;
}

vkml_status onnx_movement_type(onnx_ctx *c, onnx_node *n, const ir_type *in,
                               ir_type *out, int64_t *axes_out, int *n_axes) {
  const char *op = n->op->name;
  *out = *in;
  out->bounded = false;
  *n_axes = 0;
  if (strcmp(op, "Reshape") == 0) {
    VKML_RETURN_IF_ERROR(onnx_check_arity(n, 2, 2));
    if (in->bounded || !n->in[1] || !n->in[1]->is_const) return reshape_runtime(c, n, in, out);
    int64_t *shape;
    int cnt;
    VKML_RETURN_IF_ERROR(onnx_param_ints(c, n, 1, "shape", &shape, &cnt));
    bool allowzero = onnx_attr_i(n, "allowzero", 0) != 0;
    VKML_RETURN_IF_ERROR(onnx_reshape_resolve(in, shape, cnt, allowzero, out->dims));
    out->rank = cnt;
    return VKML_OK;
  }
  if (strcmp(op, "Flatten") == 0) {
    VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, 1));
    int64_t axis = onnx_attr_i(n, "axis", 1);
    if (axis < -in->rank || axis > in->rank)
      return onnx_error(VKML_CODE_INVALID_GRAPH, "axis %lld out of range for rank %d",
                        (long long)axis, in->rank);
    if (axis < 0) axis += in->rank;
    out->rank = 2;
    out->dims[0] = out->dims[1] = 1;
    for (int i = 0; i < in->rank; i++) out->dims[i < axis ? 0 : 1] *= in->dims[i];
    axes_out[0] = axis;
    *n_axes = 1;
    return VKML_OK;
  }
  bool squeeze = strcmp(op, "Squeeze") == 0;
  if (!squeeze && strcmp(op, "Unsqueeze") != 0)
    return onnx_error(VKML_CODE_INTERNAL, "%s is not a movement op", op);
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, 2));
  int64_t *axes;
  int cnt;
  VKML_RETURN_IF_ERROR(axes_get(c, n, 13, &axes, &cnt));
  if (squeeze) {
    bool drop[IR_MAX_RANK] = {false};
    if (cnt < 0) {
      for (int i = 0; i < in->rank; i++) drop[i] = in->dims[i] == 1;
    } else {
      VKML_RETURN_IF_ERROR(axes_norm(axes, cnt, in->rank));
      for (int i = 0; i < cnt; i++) {
        if (in->dims[axes[i]] != 1)
          return onnx_error(VKML_CODE_INVALID_GRAPH, "cannot squeeze axis %lld of "
                            "size %lld", (long long)axes[i],
                            (long long)in->dims[axes[i]]);
        drop[axes[i]] = true;
      }
    }
    out->rank = 0;
    for (int i = 0; i < in->rank; i++) {
      if (drop[i]) axes_out[(*n_axes)++] = i;
      else out->dims[out->rank++] = in->dims[i];
    }
    return VKML_OK;
  }
  if (cnt < 0)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "Unsqueeze needs axes");
  int orank = in->rank + cnt;
  if (orank > IR_MAX_RANK)
    return onnx_error(VKML_CODE_UNSUPPORTED, "unsqueeze to rank %d", orank);
  VKML_RETURN_IF_ERROR(axes_norm(axes, cnt, orank));
  bool ins[IR_MAX_RANK] = {false};
  for (int i = 0; i < cnt; i++) ins[axes[i]] = true;
  out->rank = orank;
  for (int i = 0, k = 0; i < orank; i++) {
    if (ins[i]) {
      out->dims[i] = 1;
      axes_out[(*n_axes)++] = i;
    } else {
      out->dims[i] = in->dims[k++];
    }
  }
  return VKML_OK;
}

/* Reshape, Flatten, Squeeze, Unsqueeze. */
vkml_status onnx_convert_reshape(onnx_ctx *c, onnx_node *n) {
  if (!onnx_has_input(n, 0))
    return onnx_error(VKML_CODE_INVALID_GRAPH, "input 0 is missing");
  ir_type t;
  int64_t axes[IR_MAX_RANK];
  int n_axes;
  VKML_RETURN_IF_ERROR(onnx_movement_type(c, n, &n->in[0]->type, &t, axes, &n_axes));
  const char *op = n->op->name;
  ir_value *x;
  VKML_RETURN_IF_ERROR(onnx_input(c, n, 0, &x));
  ir_node *nd;
  if (strcmp(op, "Reshape") == 0 && x->type.bounded) {
    /* a run-time size: the IR keeps -1 where it goes (ir_infer_reshape) */
    VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_RESHAPE, &x, 1, 1, true, &nd));
    VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_SHAPE, t.dims, t.rank));
  } else if (strcmp(op, "Reshape") == 0) {
    VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_RESHAPE, &x, 1, 1, true, &nd));
    VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_SHAPE, t.dims, t.rank));
  } else if (strcmp(op, "Flatten") == 0) {
    VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_FLATTEN, &x, 1, 1, true, &nd));
    VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_AXIS, axes[0]));
  } else {
    bool sq = strcmp(op, "Squeeze") == 0;
    VKML_RETURN_IF_ERROR(onnx_emit(c, n, sq ? IR_OP_SQUEEZE : IR_OP_UNSQUEEZE, &x, 1,
                                   1, true, &nd));
    VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_AXES, axes, n_axes));
  }
  return onnx_done(c, n, nd);
}

vkml_status onnx_convert_flatten(onnx_ctx *c, onnx_node *n) {
  return onnx_convert_reshape(c, n);
}
vkml_status onnx_convert_squeeze(onnx_ctx *c, onnx_node *n) {
  return onnx_convert_reshape(c, n);
}
vkml_status onnx_convert_unsqueeze(onnx_ctx *c, onnx_node *n) {
  return onnx_convert_reshape(c, n);
}

/* ---- reductions ------------------------------------------------------------ */

/* ReduceMin / ReduceMax over a short integer vector (an exporter's
 * min(limit, count)): a variadic min / max of its elements, which the GPU
 * runs on integers (its reduction kernels are float only), and whose
 * bound ir/bounds.h knows. *done when emitted. */
static vkml_status short_int_min_max(onnx_ctx *c, onnx_node *n, ir_op op, bool *done) {
  *done = false;
  ir_value *x;
  VKML_RETURN_IF_ERROR(onnx_input(c, n, 0, &x));
  const ir_type *xt = &x->type;
  if (!ir_dtype_is_int(xt->dtype) || xt->rank != 1 || xt->bounded || xt->dims[0] < 1 ||
      xt->dims[0] > 8)
    return VKML_OK;
  ir_value *parts[8];
  int64_t one = 1;
  ir_type it = ir_type_make(IR_I64, 1, &one);
  for (int j = 0; j < (int)xt->dims[0]; j++) {
    int64_t *at = onnx_alloc(c, sizeof *at);
    if (!at) return ir_oom(NULL);
    *at = j;
    ir_value *ins[2] = {x, NULL};
    VKML_RETURN_IF_ERROR(onnx_const_value(c, "reduce_at", &it, at, &ins[1]));
    ir_node *g;
    VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_GATHER, ins, 2, 1, false, &g));
    VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, g, IR_A_AXIS, 0));
    VKML_RETURN_IF_ERROR(onnx_finish(c, g));
    parts[j] = g->outputs[0];
  }
  bool keep = onnx_attr_i(n, "keepdims", 1) != 0;
  ir_value *y;
  VKML_RETURN_IF_ERROR(onnx_emit1(c, n, op == IR_OP_REDUCE_MIN ? IR_OP_MIN : IR_OP_MAX, parts,
                                  (int)xt->dims[0], keep, &y));
  if (!keep) {
    ir_node *sq;
    int64_t axis0 = 0;
    VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_SQUEEZE, &y, 1, 1, true, &sq));
    VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, sq, IR_A_AXES, &axis0, 1));
    VKML_RETURN_IF_ERROR(onnx_finish(c, sq));
    y = sq->outputs[0];
  }
  *done = true;
  return onnx_bind(c, n, 0, y);
}

vkml_status onnx_convert_reduce(onnx_ctx *c, onnx_node *n) {
  static const struct {
    const char *name;
    ir_op op;
  } map[] = {{"ReduceMean", IR_OP_REDUCE_MEAN}, {"ReduceSum", IR_OP_REDUCE_SUM},
             {"ReduceMax", IR_OP_REDUCE_MAX},   {"ReduceMin", IR_OP_REDUCE_MIN},
             {"ReduceProd", IR_OP_REDUCE_PROD}};
  /* the composite reductions: an elementwise op before a sum, one after */
  static const struct {
    const char *name;
    ir_op pre, post; /* IR_OP_COUNT: none; IR_OP_MUL: x * x */
  } comp[] = {{"ReduceL1", IR_OP_ABS, IR_OP_COUNT},       {"ReduceL2", IR_OP_MUL, IR_OP_SQRT},
              {"ReduceSumSquare", IR_OP_MUL, IR_OP_COUNT}, {"ReduceLogSum", IR_OP_COUNT, IR_OP_LOG},
              {"ReduceLogSumExp", IR_OP_EXP, IR_OP_LOG}};
  ir_op op = IR_OP_REDUCE_MEAN, pre = IR_OP_COUNT, post = IR_OP_COUNT;
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (strcmp(map[i].name, n->op->name) == 0) op = map[i].op;
  for (size_t i = 0; i < sizeof comp / sizeof comp[0]; i++)
    if (strcmp(comp[i].name, n->op->name) == 0) {
      op = IR_OP_REDUCE_SUM;
      pre = comp[i].pre;
      post = comp[i].post;
    }
  bool axes_input = op == IR_OP_REDUCE_SUM && pre == IR_OP_COUNT && post == IR_OP_COUNT;
  /* axes an input: ReduceSum from opset 13, every other reduction from 18 */
  VKML_RETURN_IF_ERROR(
      onnx_check_arity(n, 1, (axes_input && c->opset >= 13) || c->opset >= 18 ? 2 : 1));
  int64_t *axes;
  int cnt;
  VKML_RETURN_IF_ERROR(axes_get(c, n, axes_input ? 13 : 18, &axes, &cnt));
  int rank = n->in[0]->type.rank;
  if (cnt > 0) VKML_RETURN_IF_ERROR(axes_norm(axes, cnt, rank));
  if (cnt <= 0 && onnx_attr_i(n, "noop_with_empty_axes", 0) != 0)
    return onnx_bind_sym(c, n, 0, n->in[0]);
  if ((op == IR_OP_REDUCE_MIN || op == IR_OP_REDUCE_MAX) && pre == IR_OP_COUNT) {
    bool done;
    VKML_RETURN_IF_ERROR(short_int_min_max(c, n, op, &done));
    if (done) return VKML_OK;
  }
  ir_node *nd;
  if (pre == IR_OP_COUNT && post == IR_OP_COUNT) {
    VKML_RETURN_IF_ERROR(onnx_emit_inputs(c, n, op, 1, &nd));
  } else {
    ir_value *x, *ins[2];
    VKML_RETURN_IF_ERROR(onnx_input(c, n, 0, &x));
    if (!ir_dtype_is_float(x->type.dtype) && (pre == IR_OP_EXP || post != IR_OP_COUNT))
      return onnx_error(VKML_CODE_UNSUPPORTED, "%s of %s", n->op->name,
                        ir_dtype_name(x->type.dtype));
    if (pre != IR_OP_COUNT) {
      ins[0] = ins[1] = x;
      VKML_RETURN_IF_ERROR(onnx_emit1(c, n, pre, ins, pre == IR_OP_MUL ? 2 : 1, false, &x));
    }
    VKML_RETURN_IF_ERROR(onnx_emit(c, n, op, &x, 1, 1, post == IR_OP_COUNT, &nd));
  }
  if (cnt > 0) VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_AXES, axes, cnt));
  VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_KEEPDIMS,
                                       onnx_attr_i(n, "keepdims", 1) != 0));
  if (post == IR_OP_COUNT) return onnx_done(c, n, nd);
  VKML_RETURN_IF_ERROR(onnx_finish(c, nd));
  ir_value *s = nd->outputs[0], *y;
  VKML_RETURN_IF_ERROR(onnx_emit1(c, n, post, &s, 1, true, &y));
  return onnx_bind(c, n, 0, y);
}

vkml_status onnx_convert_argminmax(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, 1));
  int64_t axis = 0;
  VKML_RETURN_IF_ERROR(norm_axis(onnx_attr_i(n, "axis", 0), n->in[0]->type.rank, &axis));
  ir_op op = strcmp(n->op->name, "ArgMax") == 0 ? IR_OP_ARGMAX : IR_OP_ARGMIN;
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit_inputs(c, n, op, 1, &nd));
  VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_AXIS, axis));
  VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_KEEPDIMS,
                                       onnx_attr_i(n, "keepdims", 1) != 0));
  VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_SELECT_LAST_INDEX,
                                       onnx_attr_i(n, "select_last_index", 0) != 0));
  return onnx_done(c, n, nd);
}

/* ---- data movement ---------------------------------------------------------- */

vkml_status onnx_convert_transpose(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, 1));
  const int64_t *perm;
  int cnt = onnx_attr_ints(n, "perm", &perm);
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit_inputs(c, n, IR_OP_TRANSPOSE, 1, &nd));
  if (cnt >= 0) VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_PERM, perm, cnt));
  return onnx_done(c, n, nd);
}

/* Parts of one IR concat: what the GPU's concat kernel binds (31 inputs and
 * the output: 32 storage buffers, the per-stage limit of many devices;
 * codegen/core/data.h CG_DATA_MAX_PARTS), well under a node's operands. */
enum { CONCAT_MAX_PARTS = 31 };

vkml_status onnx_convert_concat(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, -1));
  if (!onnx_attr(n, "axis"))
    return onnx_error(VKML_CODE_INVALID_GRAPH, "attribute 'axis' is missing");
  int64_t axis = 0;
  VKML_RETURN_IF_ERROR(norm_axis(onnx_attr_i(n, "axis", 0), n->in[0]->type.rank, &axis));
  ir_node *nd;
  if (n->n_in <= CONCAT_MAX_PARTS) {
    VKML_RETURN_IF_ERROR(onnx_emit_inputs(c, n, IR_OP_CONCAT, n->n_in, &nd));
    VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_AXIS, axis));
    return onnx_done(c, n, nd);
  }
  /* more parts: concats of groups, then of the groups' results (an exported
   * model concatenates 90 per-class results) */
  int n_groups = (n->n_in + CONCAT_MAX_PARTS - 1) / CONCAT_MAX_PARTS;
  if (n_groups > CONCAT_MAX_PARTS)
    return onnx_error(VKML_CODE_UNSUPPORTED, "Concat of %d inputs", n->n_in);
  ir_value *parts[CONCAT_MAX_PARTS], *groups[CONCAT_MAX_PARTS];
  for (int g = 0; g < n_groups; g++) {
    int first = g * CONCAT_MAX_PARTS, cnt = n->n_in - first;
    if (cnt > CONCAT_MAX_PARTS) cnt = CONCAT_MAX_PARTS;
    for (int k = 0; k < cnt; k++) VKML_RETURN_IF_ERROR(onnx_input(c, n, first + k, &parts[k]));
    VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_CONCAT, parts, cnt, 1, false, &nd));
    VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_AXIS, axis));
    VKML_RETURN_IF_ERROR(onnx_finish(c, nd));
    groups[g] = nd->outputs[0];
  }
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_CONCAT, groups, n_groups, 1, true, &nd));
  VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_AXIS, axis));
  return onnx_done(c, n, nd);
}

vkml_status onnx_convert_split(onnx_ctx *c, onnx_node *n) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, c->opset >= 13 ? 2 : 1));
  int n_out = onnx_n_outputs(n);
  if (n_out < 1) return onnx_error(VKML_CODE_INVALID_GRAPH, "Split has no outputs");
  int64_t axis = 0;
  VKML_RETURN_IF_ERROR(norm_axis(onnx_attr_i(n, "axis", 0), n->in[0]->type.rank, &axis));
  int64_t *split = NULL;
  int cnt = -1;
  if (c->opset >= 13) {
    if (onnx_has_input(n, 1))
      VKML_RETURN_IF_ERROR(onnx_param_ints(c, n, 1, "split", &split, &cnt));
  } else {
    const int64_t *a;
    cnt = onnx_attr_ints(n, "split", &a);
    split = (int64_t *)a;
  }
  if (cnt >= 0 && cnt != n_out)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "split has %d sizes for %d outputs",
                      cnt, n_out);
  /* opset 18: num_outputs parts of ceil(dim / num_outputs), the last smaller */
  if (c->opset >= 18 && onnx_attr(n, "num_outputs")) {
    int64_t k = onnx_attr_i(n, "num_outputs", 0);
    VKML_RETURN_IF_ERROR(n->err);
    if (cnt >= 0)
      return onnx_error(VKML_CODE_INVALID_GRAPH, "both split and num_outputs are given");
    if (k != n_out)
      return onnx_error(VKML_CODE_INVALID_GRAPH, "num_outputs %lld for %d outputs",
                        (long long)k, n_out);
    int64_t dim = n->in[0]->type.dims[axis], part = (dim + k - 1) / k;
    if (n->in[0]->type.bounded || k < 1 || dim - part * (k - 1) < 0)
      return onnx_error(VKML_CODE_INVALID_GRAPH, "%lld cannot split into %lld parts of %lld",
                        (long long)dim, (long long)k, (long long)part);
    split = onnx_alloc(c, sizeof *split * (size_t)k);
    if (!split) return ir_oom(NULL);
    for (int64_t i = 0; i < k; i++) split[i] = i + 1 < k ? part : dim - part * (k - 1);
    cnt = (int)k;
  }
  ir_value *x;
  VKML_RETURN_IF_ERROR(onnx_input(c, n, 0, &x));
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_SPLIT, &x, 1, n_out, true, &nd));
  VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_AXIS, axis));
  if (cnt > 0) VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_SPLIT, split, cnt));
  return onnx_done(c, n, nd);
}

/* Slice parameters as attributes (before opset 10) or inputs 1..4. */
/* Slice ends computed at run time: x[0:n] along x's bounded axis, with n
 * a run-time size of the same capacity (x's own count, in a consistent
 * model), is the whole axis. Anything else stays UNSUPPORTED. */
static vkml_status runtime_ends(onnx_ctx *c, onnx_node *n, const int64_t *starts, int cnt,
                                const int64_t *axes, const int64_t *steps, int64_t **ends,
                                int *n_ends) {
  int64_t vals[IR_MAX_RANK];
  bool known[IR_MAX_RANK];
  const ir_value *src[IR_MAX_RANK];
  int axis[IR_MAX_RANK];
  VKML_RETURN_IF_ERROR(onnx_partial_sizes(c, n, 2, "ends", vals, known, src, axis, n_ends));
  const ir_type *x = &n->in[0]->type;
  for (int k = 0; k < *n_ends; k++) {
    if (known[k]) continue;
    int64_t a = axes ? axes[k] : k;
    if (a < 0) a += x->rank;
    bool whole = k < cnt && src[k] && x->bounded && a == x->bounded_axis && starts[k] == 0 &&
                 (!steps || steps[k] == 1) &&
                 src[k]->type.dims[axis[k]] == x->dims[x->bounded_axis];
    if (!whole) {
      int64_t *v;
      int nv;
      VKML_RETURN_IF_ERROR(onnx_param_ints(c, n, 2, "ends", &v, &nv));
      return onnx_error(VKML_CODE_INTERNAL, "ends: a run-time entry");
    }
    vals[k] = INT64_MAX;
  }
  *ends = onnx_alloc(c, sizeof(int64_t) * (size_t)(*n_ends ? *n_ends : 1));
  if (!*ends) return ir_oom(NULL);
  memcpy(*ends, vals, sizeof(int64_t) * (size_t)*n_ends);
  return VKML_OK;
}

static vkml_status slice_params(onnx_ctx *c, onnx_node *n, int64_t **starts,
                                int64_t **ends, int64_t **axes, int64_t **steps,
                                int *cnt) {
  int n_axes = -1, n_steps = -1, n_ends;
  *axes = *steps = NULL;
  if (c->opset < 10) {
    VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, 1));
    const int64_t *s, *e, *a;
    *cnt = onnx_attr_ints(n, "starts", &s);
    n_ends = onnx_attr_ints(n, "ends", &e);
    n_axes = onnx_attr_ints(n, "axes", &a);
    if (*cnt < 0 || n_ends < 0)
      return onnx_error(VKML_CODE_INVALID_GRAPH, "attributes 'starts' and 'ends' "
                        "are required");
    /* Copies: the lists are normalised in place later. */
    size_t sz = sizeof(int64_t) * IR_MAX_RANK;
    *starts = onnx_alloc(c, sz);
    *ends = onnx_alloc(c, sz);
    if (!*starts || !*ends) return ir_oom(NULL);
    if (*cnt > 0 && *cnt <= IR_MAX_RANK && n_ends == *cnt) {
      memcpy(*starts, s, sizeof(int64_t) * (size_t)*cnt);
      memcpy(*ends, e, sizeof(int64_t) * (size_t)*cnt);
    }
    if (n_axes >= 0 && n_axes <= IR_MAX_RANK) {
      *axes = onnx_alloc(c, sz);
      if (!*axes) return ir_oom(NULL);
      if (n_axes > 0) memcpy(*axes, a, sizeof(int64_t) * (size_t)n_axes);
    }
  } else {
    VKML_RETURN_IF_ERROR(onnx_check_arity(n, 3, 5));
    VKML_RETURN_IF_ERROR(onnx_param_ints(c, n, 1, "starts", starts, cnt));
    if (onnx_has_input(n, 3))
      VKML_RETURN_IF_ERROR(onnx_param_ints(c, n, 3, "axes", axes, &n_axes));
    if (onnx_has_input(n, 4))
      VKML_RETURN_IF_ERROR(onnx_param_ints(c, n, 4, "steps", steps, &n_steps));
    if (onnx_has_input(n, 2) && !n->in[2]->is_const)
      VKML_RETURN_IF_ERROR(runtime_ends(c, n, *starts, *cnt, *axes, *steps, ends, &n_ends));
    else
      VKML_RETURN_IF_ERROR(onnx_param_ints(c, n, 2, "ends", ends, &n_ends));
  }
  if (n_ends != *cnt || (n_axes >= 0 && n_axes != *cnt) ||
      (n_steps >= 0 && n_steps != *cnt))
    return onnx_error(VKML_CODE_INVALID_GRAPH,
                      "starts, ends, axes and steps differ in length");
  if (*cnt > IR_MAX_RANK)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "slice over %d axes", *cnt);
  if (!*axes) {
    *axes = onnx_alloc(c, sizeof **axes * IR_MAX_RANK);
    if (!*axes) return ir_oom(NULL);
    for (int i = 0; i < *cnt; i++) (*axes)[i] = i;
  }
  if (!*steps) {
    *steps = onnx_alloc(c, sizeof **steps * IR_MAX_RANK);
    if (!*steps) return ir_oom(NULL);
    for (int i = 0; i < *cnt; i++) (*steps)[i] = 1;
  }
  return VKML_OK;
}

vkml_status onnx_slice_type(onnx_ctx *c, onnx_node *n, const ir_type *in,
                            ir_type *out, int64_t *start, int64_t *step) {
  int64_t *starts, *ends, *axes, *steps, count[IR_MAX_RANK];
  int cnt;
  VKML_RETURN_IF_ERROR(slice_params(c, n, &starts, &ends, &axes, &steps, &cnt));
  VKML_RETURN_IF_ERROR(onnx_slice_resolve(in->rank, in->dims, starts, ends, axes,
                                          steps, cnt, start, step, count));
  *out = *in;
  out->bounded = false;
  for (int i = 0; i < in->rank; i++) out->dims[i] = count[i];
  return VKML_OK;
}

vkml_status onnx_convert_slice(onnx_ctx *c, onnx_node *n) {
  if (!onnx_has_input(n, 0))
    return onnx_error(VKML_CODE_INVALID_GRAPH, "input 0 is missing");
  int64_t *starts, *ends, *axes, *steps;
  int cnt;
  VKML_RETURN_IF_ERROR(slice_params(c, n, &starts, &ends, &axes, &steps, &cnt));
  int rank = n->in[0]->type.rank;
  for (int i = 0; i < cnt; i++) {
    VKML_RETURN_IF_ERROR(norm_axis(axes[i], rank, &axes[i]));
    if (steps[i] == 0)
      return onnx_error(VKML_CODE_INVALID_GRAPH, "step 0 on axis %lld",
                        (long long)axes[i]);
  }
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit_inputs(c, n, IR_OP_SLICE, 1, &nd));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_STARTS, starts, cnt));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_ENDS, ends, cnt));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_AXES, axes, cnt));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_STEPS, steps, cnt));
  return onnx_done(c, n, nd);
}

vkml_status onnx_convert_pad(onnx_ctx *c, onnx_node *n) {
  int64_t *pads;
  int cnt;
  double value = 0;
  if (c->opset < 11) {
    VKML_RETURN_IF_ERROR(onnx_check_arity(n, 1, 1));
    const int64_t *p;
    cnt = onnx_attr_ints(n, "pads", &p);
    if (cnt < 0)
      return onnx_error(VKML_CODE_INVALID_GRAPH, "attribute 'pads' is missing");
    pads = (int64_t *)p;
    value = onnx_attr_f(n, "value", 0);
  } else {
    VKML_RETURN_IF_ERROR(onnx_check_arity(n, 2, c->opset >= 18 ? 4 : 3));
    VKML_RETURN_IF_ERROR(onnx_param_ints(c, n, 1, "pads", &pads, &cnt));
    if (onnx_has_input(n, 2))
      VKML_RETURN_IF_ERROR(onnx_param_scalar(c, n, 2, "constant_value", &value));
  }
  int rank = n->in[0]->type.rank;
  if (onnx_has_input(n, 3)) { /* opset 18: pads for these axes only */
    int64_t *axes;
    int n_ax;
    VKML_RETURN_IF_ERROR(onnx_param_ints(c, n, 3, "axes", &axes, &n_ax));
    if (cnt != 2 * n_ax)
      return onnx_error(VKML_CODE_INVALID_GRAPH, "pads has %d values for %d axes", cnt, n_ax);
    VKML_RETURN_IF_ERROR(axes_norm(axes, n_ax, rank));
    int64_t *full = onnx_alloc(c, sizeof *full * (size_t)(2 * rank + 1));
    if (!full) return ir_oom(NULL);
    for (int i = 0; i < n_ax; i++) {
      full[axes[i]] = pads[i];
      full[rank + axes[i]] = pads[n_ax + i];
    }
    pads = full;
    cnt = 2 * rank;
  }
  if (cnt != 2 * rank)
    return onnx_error(VKML_CODE_INVALID_GRAPH, "pads has %d values for rank %d",
                      cnt, rank);
  const char *mode = onnx_attr_s(c, n, "mode", "constant");
  int m;
  if (!ir_enum_from_name(IR_ENUM_PAD_MODE, mode, strlen(mode), &m))
    return onnx_error(VKML_CODE_UNSUPPORTED, "Pad mode '%s'", mode);
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit_inputs(c, n, IR_OP_PAD, 1, &nd));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, IR_A_PADS, pads, cnt));
  VKML_RETURN_IF_ERROR(ir_node_set_enum(c->g, nd, IR_A_PAD_MODE, m));
  VKML_RETURN_IF_ERROR(ir_node_set_float(c->g, nd, IR_A_VALUE, (float)value));
  return onnx_done(c, n, nd);
}

/* Expand (shape) and Tile (repeats): one list parameter at input 1. */
static vkml_status list_param_op(onnx_ctx *c, onnx_node *n, ir_op op,
                                 const char *what, ir_attr_id id) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 2, 2));
  int64_t *v;
  int cnt;
  VKML_RETURN_IF_ERROR(onnx_param_ints(c, n, 1, what, &v, &cnt));
  if (cnt > IR_MAX_RANK)
    return onnx_error(VKML_CODE_UNSUPPORTED, "%s with %d values", what, cnt);
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit_inputs(c, n, op, 1, &nd));
  VKML_RETURN_IF_ERROR(ir_node_set_ints(c->g, nd, id, v, cnt));
  return onnx_done(c, n, nd);
}

vkml_status onnx_convert_expand(onnx_ctx *c, onnx_node *n) {
  if (onnx_has_input(n, 1) && !n->in[1]->is_const) {
    /* a shape with a size known at run time only: x broadcast against a
     * bool tensor of that shape, where(b, x, x) */
    VKML_RETURN_IF_ERROR(onnx_check_arity(n, 2, 2));
    ir_type bt = ir_type_make(IR_BOOL, 0, NULL);
    const uint8_t yes = 1;
    ir_value *ins[3];
    VKML_RETURN_IF_ERROR(onnx_fill_runtime(c, n, 1, &bt, &yes, false, &ins[0]));
    VKML_RETURN_IF_ERROR(onnx_input(c, n, 0, &ins[1]));
    ins[2] = ins[1];
    ir_node *nd;
    VKML_RETURN_IF_ERROR(onnx_emit(c, n, IR_OP_WHERE, ins, 3, 1, true, &nd));
    return onnx_done(c, n, nd);
  }
  return list_param_op(c, n, IR_OP_EXPAND, "shape", IR_A_SHAPE);
}

vkml_status onnx_convert_tile(onnx_ctx *c, onnx_node *n) {
  return list_param_op(c, n, IR_OP_TILE, "repeats", IR_A_REPEATS);
}

static vkml_status gather_op(onnx_ctx *c, onnx_node *n, ir_op op) {
  VKML_RETURN_IF_ERROR(onnx_check_arity(n, 2, 2));
  int64_t axis = 0;
  VKML_RETURN_IF_ERROR(norm_axis(onnx_attr_i(n, "axis", 0), n->in[0]->type.rank, &axis));
  ir_node *nd;
  VKML_RETURN_IF_ERROR(onnx_emit_inputs(c, n, op, 2, &nd));
  VKML_RETURN_IF_ERROR(ir_node_set_int(c->g, nd, IR_A_AXIS, axis));
  return onnx_done(c, n, nd);
}

vkml_status onnx_convert_gather(onnx_ctx *c, onnx_node *n) {
  return gather_op(c, n, IR_OP_GATHER);
}

vkml_status onnx_convert_gather_elements(onnx_ctx *c, onnx_node *n) {
  return gather_op(c, n, IR_OP_GATHER_ELEMENTS);
}

vkml_status onnx_slice_resolve(int rank, const int64_t *dims,
                               const int64_t *starts, const int64_t *ends,
                               const int64_t *axes, const int64_t *steps,
                               int n, int64_t *start, int64_t *step,
                               int64_t *count) {
  bool seen[IR_MAX_RANK] = {false};
  for (int i = 0; i < rank; i++) {
    start[i] = 0;
    step[i] = 1;
    count[i] = dims[i];
  }
  for (int i = 0; i < n; i++) {
    int64_t ax = axes ? axes[i] : i;
    if (ax < -rank || ax >= rank)
      return onnx_error(VKML_CODE_INVALID_GRAPH, "slice axis %lld out of range for "
                        "rank %d", (long long)ax, rank);
    if (ax < 0) ax += rank;
    if (seen[ax])
      return onnx_error(VKML_CODE_INVALID_GRAPH, "slice axis %lld repeated",
                        (long long)ax);
    seen[ax] = true;
    int64_t dim = dims[ax], st = steps ? steps[i] : 1, b = starts[i], e = ends[i];
    if (st == 0)
      return onnx_error(VKML_CODE_INVALID_GRAPH, "step 0 on axis %lld", (long long)ax);
    /* ONNX: negative indices count from the end, then clamp to [0, dim]
     * (stepping forward) or [0, dim-1] / [-1, dim-1] (stepping back). */
    if (b < 0) b += dim;
    if (e < 0) e += dim;
    int64_t cnt = 0;
    if (st > 0) {
      b = b < 0 ? 0 : (b > dim ? dim : b);
      e = e < 0 ? 0 : (e > dim ? dim : e);
      cnt = e > b ? (e - b - 1) / st + 1 : 0;
    } else if (dim > 0) {
      b = b < 0 ? 0 : (b > dim - 1 ? dim - 1 : b);
      e = e < -1 ? -1 : (e > dim - 1 ? dim - 1 : e);
      int64_t back = st == INT64_MIN ? INT64_MAX : -st;
      cnt = b > e ? (b - e - 1) / back + 1 : 0;
    }
    start[ax] = cnt ? b : 0;
    step[ax] = st;
    count[ax] = cnt;
  }
  return VKML_OK;
}
