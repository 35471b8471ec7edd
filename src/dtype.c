/* dtype.c - names, sizes and classes of the element types. */
#include <string.h>

#include "mgpu.h"

static const struct {
  const char *name, *alias;
  size_t size;
  int is_float, is_signed;
} dtypes[MGPU_DTYPE_COUNT] = {
  [MGPU_I32] = {"i32", "int32", 4, 0, 1},
  [MGPU_U32] = {"u32", "uint32", 4, 0, 0},
  [MGPU_I64] = {"i64", "int64", 8, 0, 1},
  [MGPU_U64] = {"u64", "uint64", 8, 0, 0},
  [MGPU_F32] = {"f32", "float32", 4, 1, 1},
  [MGPU_F64] = {"f64", "float64", 8, 1, 1},
};

static int valid(mgpu_dtype t) { return (unsigned)t < MGPU_DTYPE_COUNT; }

size_t mgpu_dtype_size(mgpu_dtype t) { return valid(t) ? dtypes[t].size : 0; }

const char *mgpu_dtype_name(mgpu_dtype t) {
  return valid(t) ? dtypes[t].name : "?";
}

int mgpu_dtype_is_float(mgpu_dtype t) { return valid(t) && dtypes[t].is_float; }

int mgpu_dtype_is_signed(mgpu_dtype t) {
  return valid(t) && dtypes[t].is_signed;
}

int mgpu_dtype_parse(const char *name, mgpu_dtype *out) {
  for (int t = 0; t < MGPU_DTYPE_COUNT; t++) {
    if (strcmp(name, dtypes[t].name) == 0 || strcmp(name, dtypes[t].alias) == 0) {
      *out = (mgpu_dtype)t;
      return 0;
    }
  }
  return -1;
}

const char *mgpu_status_name(mgpu_status s) {
  switch (s) {
  case MGPU_OK: return "ok";
  case MGPU_ENOMEM: return "out of memory";
  case MGPU_EINVAL: return "invalid argument";
  case MGPU_ETOOBIG: return "too large";
  case MGPU_ENODEV: return "no such device";
  case MGPU_EDEVICE: return "device error";
  }
  return "unknown status";
}
