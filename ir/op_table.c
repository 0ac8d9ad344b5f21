/* The op table rows, attribute and enum tables. */
#include <string.h>

#include "graph.h"
#include "infer.h"
#include "params.h"

#define ATTRS(...) ((const ir_attr_id[]){__VA_ARGS__, IR_A_END})
#define NO_ATTRS ((const ir_attr_id[]){IR_A_END})
#define ACT_ATTRS IR_A_ACT, IR_A_ACT_ALPHA, IR_A_ACT_BETA
#define NMS_ATTRS                                                              \
  IR_A_CENTER_POINT_BOX, IR_A_MAX_OUTPUT_BOXES, IR_A_IOU_THRESHOLD, IR_A_SCORE_THRESHOLD
#define IO(in_lo, in_hi, out_lo, out_hi)                                       \
  .min_inputs = in_lo, .max_inputs = in_hi, .min_outputs = out_lo, .max_outputs = out_hi
/* the flags column names IR_OPF_* without the prefix */
#define ELEMENTWISE IR_OPF_ELEMENTWISE
#define ACT IR_OPF_ACT
#define BOUNDED_OUT IR_OPF_BOUNDED_OUT
#define STAGED IR_OPF_STAGED
#define READS_EXTENT IR_OPF_READS_EXTENT
#define WRITES_EXTENT IR_OPF_WRITES_EXTENT
#define TRANSFER IR_OPF_TRANSFER
#define ROWS_COPY IR_OPF_ROWS_COPY

static const ir_op_info op_rows[IR_OP_COUNT] = {
#define X(id, name, family, infer_, io, attrs_, flags_, rows_)                 \
  [IR_OP_##id] = {io, .attrs = attrs_, .infer = ir_infer_##infer_, .flags = flags_,  \
                  .rows = IR_ROWS_##rows_},
    IR_OPS(X)
#undef X
};

static const char *const op_names[IR_OP_COUNT] = {
#define X(id, name, family, ...) [IR_OP_##id] = name,
    IR_OPS(X)
#undef X
};
static const char *const op_families[IR_OP_COUNT] = {
#define X(id, name, family, ...) [IR_OP_##id] = #family,
    IR_OPS(X)
#undef X
};

static const struct {
  const char *name;
  ir_attr_kind kind;
  ir_enum en;
} attr_rows[IR_A_COUNT] = {
#define X(id, name, kind, en) [IR_A_##id] = {name, IR_ATTR_##kind, IR_ENUM_##en},
    IR_ATTRS(X)
#undef X
};

static const char *const act_names[] = {
    "none", "relu", "relu6", "clip", "leaky_relu", "elu",
    "sigmoid", "tanh", "hard_sigmoid", "hard_swish", "silu", "gelu", "gelu_tanh", NULL};
static const char *const pad_mode_names[] = {"constant", "reflect", "edge", NULL};
static const char *const resize_mode_names[] = {"nearest", "linear", "cubic", NULL};
static const char *const coord_mode_names[] = {
    "half_pixel", "asymmetric", "pytorch_half_pixel", "tf_half_pixel_for_nn",
    "align_corners", "output_half_pixel", NULL};
static const char *const nearest_mode_names[] = {
    "round_prefer_floor", "round_prefer_ceil", "floor", "ceil", NULL};
static const char *const roi_mode_names[] = {"avg", "max", NULL};
static const char *const reduction_names[] = {"none", "add", "mul", "max", "min", NULL};

static const char *const *enum_table(ir_enum e) {
  switch (e) {
  case IR_ENUM_ACT: return act_names;
  case IR_ENUM_PAD_MODE: return pad_mode_names;
  case IR_ENUM_RESIZE_MODE: return resize_mode_names;
  case IR_ENUM_COORD_MODE: return coord_mode_names;
  case IR_ENUM_NEAREST_MODE: return nearest_mode_names;
  case IR_ENUM_ROI_MODE: return roi_mode_names;
  case IR_ENUM_REDUCTION: return reduction_names;
  default: return NULL;
  }
}

const ir_op_info *ir_op_get(ir_op op) {
  if ((unsigned)op >= IR_OP_COUNT) return NULL;
  return &op_rows[op];
}

const char *ir_op_name(ir_op op) {
  return (unsigned)op < IR_OP_COUNT ? op_names[op] : "?";
}

const char *ir_op_family(ir_op op) {
  return (unsigned)op < IR_OP_COUNT ? op_families[op] : "?";
}

bool ir_op_from_name(const char *name, size_t len, ir_op *out) {
  for (int i = 0; i < IR_OP_COUNT; i++) {
    if (strlen(op_names[i]) == len && memcmp(op_names[i], name, len) == 0) {
      *out = (ir_op)i;
      return true;
    }
  }
  return false;
}

const char *ir_attr_name(ir_attr_id id) { return attr_rows[id].name; }
ir_attr_kind ir_attr_kind_of(ir_attr_id id) { return attr_rows[id].kind; }
ir_enum ir_attr_enum_of(ir_attr_id id) { return attr_rows[id].en; }

bool ir_op_has_attr(ir_op op, ir_attr_id id) {
  if (id == IR_A_NAME || id == IR_A_CPU_REASON) return true;
  for (const ir_attr_id *a = op_rows[op].attrs; *a != IR_A_END; a++)
    if (*a == id) return true;
  return false;
}

bool ir_op_attr_from_name(ir_op op, const char *name, size_t len,
                          ir_attr_id *out) {
  static const ir_attr_id everywhere[] = {IR_A_NAME, IR_A_CPU_REASON};
  for (size_t i = 0; i < sizeof everywhere / sizeof everywhere[0]; i++) {
    const char *an = attr_rows[everywhere[i]].name;
    if (strlen(an) == len && memcmp(an, name, len) == 0) {
      *out = everywhere[i];
      return true;
    }
  }
  for (const ir_attr_id *a = op_rows[op].attrs; *a != IR_A_END; a++) {
    const char *an = attr_rows[*a].name;
    if (strlen(an) == len && memcmp(an, name, len) == 0) {
      *out = *a;
      return true;
    }
  }
  return false;
}

int ir_enum_count(ir_enum e) {
  if (e == IR_ENUM_DTYPE) return IR_DTYPE_COUNT;
  const char *const *t = enum_table(e);
  int n = 0;
  while (t && t[n]) n++;
  return n;
}

const char *ir_enum_value_name(ir_enum e, int value) {
  if (value < 0 || value >= ir_enum_count(e)) return NULL;
  if (e == IR_ENUM_DTYPE) return ir_dtype_name((ir_dtype)value);
  return enum_table(e)[value];
}

bool ir_enum_from_name(ir_enum e, const char *name, size_t len, int *out) {
  int n = ir_enum_count(e);
  for (int i = 0; i < n; i++) {
    const char *v = ir_enum_value_name(e, i);
    if (strlen(v) == len && memcmp(v, name, len) == 0) {
      *out = i;
      return true;
    }
  }
  return false;
}
