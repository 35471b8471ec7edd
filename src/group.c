/*
 * group.c - groups of contexts, and the sort and merge of arrays sharded
 * across them: samples of the locally sorted runs choose the splitters,
 * the splitters give every run's cut points, one all-to-all (the backend's
 * exchange: memcpy on cpu, NCCL on cuda) moves each range to its shard, and
 * each shard merges the runs it received.  Everything but the exchange is
 * the ordinary per-context API, so a group runs on any backend.
 *
 * Ties across runs are broken by (run, position): a splitter is a sample
 * (key, run, position), not a key, so equal keys split evenly and the
 * result is the stable order of the runs laid end to end.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "element.h"

static mgpu_status group_error(mgpu_group *g, mgpu_status s, const char *fmt,
                               ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static mgpu_status group_error(mgpu_group *g, mgpu_status s, const char *fmt,
                               ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(g->error, sizeof g->error, fmt, ap);
  va_end(ap);
  return s;
}

/* A context's call failed: the group's message says which shard. */
static mgpu_status shard_error(mgpu_group *g, size_t k, mgpu_status s) {
  return group_error(g, s, "shard %zu of %zu (%s): %s", k + 1, g->size,
                     mgpu_context_device(g->ctxs[k]),
                     mgpu_context_error(g->ctxs[k]));
}

#define TRY_SHARD(k, expr)                                                     \
  do {                                                                         \
    mgpu_status s_ = (expr);                                                   \
    if (s_ != MGPU_OK) return shard_error(g, (k), s_);                         \
  } while (0)

/* ---- the group object ----------------------------------------------------- */

int mgpu_group_have_nccl(void) {
#ifdef MGPU_HAVE_NCCL
  return 1;
#else
  return 0;
#endif
}

mgpu_status mgpu_group_create(mgpu_context *const *contexts, size_t count,
                              mgpu_group **out, char *errbuf, size_t errlen) {
  *out = NULL;
  char msg[256] = "";
  mgpu_status s = MGPU_EINVAL;
  if (!contexts || count == 0) {
    snprintf(msg, sizeof msg, "a group needs at least one context");
    goto fail;
  }
  for (size_t k = 0; k < count; k++) {
    if (!contexts[k]) {
      snprintf(msg, sizeof msg, "context %zu is NULL", k);
      goto fail;
    }
    if (contexts[k]->be != contexts[0]->be) {
      snprintf(msg, sizeof msg,
               "a group's contexts must share one backend (context 0 is %s, "
               "context %zu is %s)",
               contexts[0]->be->name, k, contexts[k]->be->name);
      goto fail;
    }
  }
  mgpu_group *g = calloc(1, sizeof *g);
  mgpu_context **ctxs = calloc(count, sizeof *ctxs);
  if (!g || !ctxs) {
    free(g);
    free(ctxs);
    s = MGPU_ENOMEM;
    snprintf(msg, sizeof msg, "out of host memory");
    goto fail;
  }
  g->be = contexts[0]->be;
  g->refs = 1;
  g->size = count;
  g->ctxs = ctxs;
  for (size_t k = 0; k < count; k++) {
    ctxs[k] = contexts[k];
    mgpu_context_retain(ctxs[k]);
  }
  if (g->be->group_init && (s = g->be->group_init(g)) != MGPU_OK) {
    snprintf(msg, sizeof msg, "%s", g->error);
    for (size_t k = 0; k < count; k++) mgpu_context_release(ctxs[k]);
    free(ctxs);
    free(g);
    goto fail;
  }
  *out = g;
  return MGPU_OK;
fail:
  if (errbuf && errlen) snprintf(errbuf, errlen, "%s", msg);
  return s;
}

void mgpu_group_retain(mgpu_group *g) { g->refs++; }

void mgpu_group_release(mgpu_group *g) {
  if (!g || --g->refs > 0) return;
  if (g->be->group_destroy) g->be->group_destroy(g);
  for (size_t k = 0; k < g->size; k++) mgpu_context_release(g->ctxs[k]);
  free(g->ctxs);
  free(g);
}

size_t mgpu_group_size(const mgpu_group *g) { return g->size; }

mgpu_context *mgpu_group_context(const mgpu_group *g, size_t k) {
  return k < g->size ? g->ctxs[k] : NULL;
}

const char *mgpu_group_error(const mgpu_group *g) { return g->error; }

/* ---- keys on the host --------------------------------------------------- */

/* A sample: the key's bytes, its run and position there, and how many of
 * the run's elements it stands for (itself and those up to the next
 * sample).  A run may pass 2^32 elements: positions and weights are 64-bit. */
typedef struct sample {
  uint64_t key;
  uint64_t pos, weight;
  size_t run;
} sample;

typedef struct key_order {
  mgpu_dtype t;
  mgpu_order o;
} key_order;

#define CMP(x, y) (((x) > (y)) - ((x) < (y)))

static int key_cmp(const key_order *ko, uint64_t a, uint64_t b) {
  int c = 0;
  switch (ko->t) {
  case MGPU_I32: {
    int32_t x, y;
    memcpy(&x, &a, 4), memcpy(&y, &b, 4);
    c = CMP(x, y);
    break;
  }
  case MGPU_U32: {
    uint32_t x, y;
    memcpy(&x, &a, 4), memcpy(&y, &b, 4);
    c = CMP(x, y);
    break;
  }
  case MGPU_I64: {
    int64_t x, y;
    memcpy(&x, &a, 8), memcpy(&y, &b, 8);
    c = CMP(x, y);
    break;
  }
  case MGPU_U64: c = CMP(a, b); break;
  case MGPU_F32: {
    float x, y;
    memcpy(&x, &a, 4), memcpy(&y, &b, 4);
    c = mgpu_f32_less(x, y) ? -1 : mgpu_f32_less(y, x);
    break;
  }
  default: {
    double x, y;
    memcpy(&x, &a, 8), memcpy(&y, &b, 8);
    c = mgpu_f64_less(x, y) ? -1 : mgpu_f64_less(y, x);
    break;
  }
  }
  return ko->o == MGPU_GREATER ? -c : c;
}

/* The total order of the runs laid end to end. */
static int sample_before(const key_order *ko, const sample *a,
                         const sample *b) {
  int c = key_cmp(ko, a->key, b->key);
  if (c) return c < 0;
  if (a->run != b->run) return a->run < b->run;
  return a->pos < b->pos;
}

/* Bottom-up merge sort (qsort takes no order argument). */
static void sort_samples(const key_order *ko, sample *s, sample *tmp,
                         size_t n) {
  for (size_t w = 1; w < n; w *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * w) {
      size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      size_t i = lo, j = mid, o = lo;
      while (i < mid && j < hi)
        tmp[o++] = sample_before(ko, &s[j], &s[i]) ? s[j++] : s[i++];
      while (i < mid) tmp[o++] = s[i++];
      while (j < hi) tmp[o++] = s[j++];
    }
    memcpy(s, tmp, n * sizeof *s);
  }
}

/* ---- the redistribution --------------------------------------------------- */

/* floor(j * n / d) for j <= d without forming j * n, which would wrap for
 * counts near 2^53 times a few hundred (d != 0). */
static size_t share_of(size_t n, size_t j, size_t d) {
  return j * (n / d) + j * (n % d) / d;
}

/* Index arrays of either dtype on the host: an i32 one only ever holds
 * values that mgpu_index_type gave it for. */
static size_t index_size(mgpu_dtype t) { return t == MGPU_I64 ? 8 : 4; }

static void put_index(void *a, mgpu_dtype t, size_t i, uint64_t v) {
  if (t == MGPU_I64)
    ((int64_t *)a)[i] = (int64_t)v;
  else
    ((int32_t *)a)[i] = (int32_t)v;
}

static size_t get_index(const void *a, mgpu_dtype t, size_t i) {
  int64_t v = t == MGPU_I64 ? ((const int64_t *)a)[i]
                            : (int64_t)((const int32_t *)a)[i];
  return v < 0 ? 0 : (size_t)v;
}

/* A sorted run: n keys (and values) on context ctx.  Run r of a call is
 * ordered before run r + 1 among equal keys. */
typedef struct run {
  size_t ctx;
  const void *keys, *vals;
  size_t n;
} run;

/* Everything a redistribution allocates, freed together. */
typedef struct plan {
  size_t p, R;
  sample *samples, *tmp;
  size_t *cut;       /* cut[r * (p + 1) + j]: run r's elements before shard j */
  size_t *xcounts, *send_at, *recv_at; /* one p * p table a set of runs */
  void **buf[4];     /* per shard: received keys, values, merge scratch */
  size_t *bytes[4];
} plan;

static void plan_free(mgpu_group *g, plan *pl) {
  for (int b = 0; b < 4; b++) {
    if (pl->buf[b])
      for (size_t j = 0; j < pl->p; j++)
        mgpu_free(g->ctxs[j], pl->buf[b][j], pl->bytes[b][j]);
    free(pl->buf[b]);
    free(pl->bytes[b]);
  }
  free(pl->samples);
  free(pl->tmp);
  free(pl->cut);
  free(pl->xcounts);
  free(pl->send_at);
  free(pl->recv_at);
}

/* Run r's keys at sample positions floor(i * n / s), i < s, into out (s
 * keys of width w on the host). */
static mgpu_status read_samples(mgpu_group *g, const run *ru, size_t s,
                                size_t w, char *out) {
  mgpu_context *ctx = g->ctxs[ru->ctx];
  if (s == ru->n) {
    TRY_SHARD(ru->ctx, mgpu_download(ctx, out, ru->keys, s * w));
    return MGPU_OK;
  }
  /* gather, then scan 0..s-1: interval_move copies one key an interval.
   * The gather addresses the run (i64 past 2^31 - 1, by the index dtype
   * rule), the scan only the s samples (i32: s is a few thousand). */
  const mgpu_dtype gt = mgpu_index_type(ru->n - 1);
  const size_t gw = index_size(gt), hbytes = s * gw + s * sizeof(int32_t);
  char *host = malloc(hbytes);
  if (!host) return group_error(g, MGPU_ENOMEM, "out of host memory");
  int32_t *hscan = (int32_t *)(host + s * gw);
  for (size_t i = 0; i < s; i++) {
    put_index(host, gt, i, share_of(ru->n, i, s));
    hscan[i] = (int32_t)i;
  }
  /* on the device as on the host (one upload), then the keys, 8-byte
   * aligned */
  const size_t at_keys = (hbytes + 7) & ~(size_t)7;
  size_t bytes = at_keys + s * w;
  void *dev = NULL;
  mgpu_status st = mgpu_alloc(ctx, bytes, &dev);
  if (st == MGPU_OK) {
    char *gather = dev, *scan = gather + s * gw, *keys = gather + at_keys;
    st = mgpu_upload(ctx, gather, host, hbytes);
    if (st == MGPU_OK)
      st = mgpu_interval_move_idx(ctx, w, ru->keys, ru->n, gather, gt, NULL,
                                  MGPU_I32, scan, MGPU_I32, s, s, keys, s);
    if (st == MGPU_OK) st = mgpu_download(ctx, out, keys, s * w);
    mgpu_free(ctx, dev, bytes);
  }
  free(host);
  return st == MGPU_OK ? MGPU_OK : shard_error(g, ru->ctx, st);
}

/* Chooses the p - 1 splitters: split[j - 1] is the index in the sorted
 * samples of the first one whose weight before it reaches j * n / p, or
 * nsamples when none does (the cut is then at each run's end). */
static mgpu_status choose_splitters(mgpu_group *g, const key_order *ko,
                                    const run *runs, plan *pl, size_t n,
                                    size_t *split, size_t *nsamples) {
  size_t p = pl->p, R = pl->R, S = MGPU_GROUP_OVERSAMPLE * (p + 1);
  size_t w = mgpu_dtype_size(ko->t), total = 0;
  for (size_t r = 0; r < R; r++) total += runs[r].n < S ? runs[r].n : S;
  pl->samples = malloc((total ? total : 1) * sizeof *pl->samples);
  pl->tmp = malloc((total ? total : 1) * sizeof *pl->tmp);
  char *keys = malloc(S * w);
  if (!pl->samples || !pl->tmp || !keys) {
    free(keys);
    return group_error(g, MGPU_ENOMEM, "out of host memory");
  }
  size_t at = 0;
  for (size_t r = 0; r < R; r++) {
    size_t nr = runs[r].n, s = nr < S ? nr : S;
    if (!s) continue;
    mgpu_status st = read_samples(g, &runs[r], s, w, keys);
    if (st != MGPU_OK) {
      free(keys);
      return st;
    }
    for (size_t i = 0; i < s; i++) {
      sample *x = &pl->samples[at++];
      size_t pos = share_of(nr, i, s), next = share_of(nr, i + 1, s);
      x->key = 0;
      memcpy(&x->key, keys + i * w, w);
      x->run = r;
      x->pos = pos;
      x->weight = next - pos;
    }
  }
  free(keys);
  sort_samples(ko, pl->samples, pl->tmp, total);
  size_t j = 1, before = 0;
  for (size_t i = 0; i < total && j < p; i++) {
    while (j < p && before >= share_of(n, j, p)) split[j++ - 1] = i;
    before += pl->samples[i].weight;
  }
  while (j < p) split[j++ - 1] = total;
  *nsamples = total;
  return MGPU_OK;
}

/* cut[r][j] for every run: where the splitters fall in it. */
static mgpu_status find_cuts(mgpu_group *g, const key_order *ko,
                             const run *runs, plan *pl, const size_t *split,
                             size_t nsamples) {
  size_t p = pl->p, R = pl->R, w = mgpu_dtype_size(ko->t);
  size_t nb = 0; /* splitters that are samples: the first nb of split */
  while (nb < p - 1 && split[nb] < nsamples) nb++;
  char *needles = malloc((nb ? nb : 1) * w);
  /* lower then upper bounds, i32 or i64 by the run's length */
  void *pos = malloc((nb ? nb : 1) * 2 * sizeof(int64_t));
  if (!needles || !pos) {
    free(needles);
    free(pos);
    return group_error(g, MGPU_ENOMEM, "out of host memory");
  }
  for (size_t b = 0; b < nb; b++)
    memcpy(needles + b * w, &pl->samples[split[b]].key, w);
  mgpu_status st = MGPU_OK;
  size_t r = 0;
  for (; r < R && st == MGPU_OK; r++) {
    size_t *cut = pl->cut + r * (p + 1);
    cut[0] = 0;
    for (size_t j = 1; j <= p; j++) cut[j] = runs[r].n;
    if (!nb || !runs[r].n) {
      if (!runs[r].n)
        for (size_t j = 1; j < p; j++) cut[j] = 0;
      continue;
    }
    /* lower and upper bounds of every splitter's key in the run: positions
     * in [0, n], i64 past 2^31 - 1 (the index dtype rule) */
    mgpu_context *ctx = g->ctxs[runs[r].ctx];
    const mgpu_dtype pt = mgpu_index_type(runs[r].n);
    const size_t pw = index_size(pt);
    size_t bytes = 2 * nb * pw + nb * w;
    void *dev = NULL;
    st = mgpu_alloc(ctx, bytes, &dev);
    if (st != MGPU_OK) {
      r++; /* as if the loop had ended on this run */
      break;
    }
    /* the positions first: i64 ones stay 8-byte aligned */
    char *lo = dev, *hi = lo + nb * pw, *dneedles = hi + nb * pw;
    st = mgpu_upload(ctx, dneedles, needles, nb * w);
    if (st == MGPU_OK)
      st = mgpu_sorted_search_idx(ctx, ko->t, ko->o, dneedles, nb,
                                  runs[r].keys, runs[r].n, 0, 0, pt, lo);
    if (st == MGPU_OK)
      st = mgpu_sorted_search_idx(ctx, ko->t, ko->o, dneedles, nb,
                                  runs[r].keys, runs[r].n, 1, 0, pt, hi);
    if (st == MGPU_OK) st = mgpu_download(ctx, pos, lo, 2 * nb * pw);
    mgpu_free(ctx, dev, bytes);
    if (st != MGPU_OK) {
      r++;
      break;
    }
    for (size_t b = 0; b < nb; b++) {
      const sample *x = &pl->samples[split[b]];
      /* equal keys: runs before the splitter's give all theirs, runs after
       * none, its own run those before it */
      cut[b + 1] = x->run == r ? (size_t)x->pos
                   : r < x->run ? get_index(pos, pt, nb + b)
                                : get_index(pos, pt, b);
    }
    /* Sorted runs give cuts in order; the runs of a merge whose inputs are
     * not sorted may not, and a cut before its predecessor would be a
     * negative range: held at its predecessor, every range stays inside
     * the run (undefined but safe, as mgpu_merge is). */
    for (size_t j = 1; j <= p; j++)
      if (cut[j] < cut[j - 1]) cut[j] = cut[j - 1];
  }
  free(needles);
  free(pos);
  /* r is one past the run that failed */
  return st == MGPU_OK ? MGPU_OK : shard_error(g, runs[r - 1].ctx, st);
}

/* Merges the runs each shard received, pairwise, adjacent runs together so
 * that ties keep the runs' order.  On return buf[0]/buf[1] hold the result
 * (the scratch pair swapped in when the last round wrote there). */
static mgpu_status merge_received(mgpu_group *g, const key_order *ko,
                                  size_t vs, plan *pl, size_t j,
                                  size_t *bounds, size_t nruns) {
  mgpu_context *ctx = g->ctxs[j];
  size_t w = mgpu_dtype_size(ko->t);
  while (nruns > 1) {
    char *k_in = pl->buf[0][j], *v_in = pl->buf[1][j];
    char *k_out = pl->buf[2][j], *v_out = pl->buf[3][j];
    size_t m = 0;
    for (size_t i = 0; i < nruns; i += 2) {
      size_t a = bounds[i], b = bounds[i + 1];
      if (i + 1 == nruns) { /* the odd one out moves as it is */
        TRY_SHARD(j, mgpu_copy(ctx, k_out + a * w, k_in + a * w, (b - a) * w));
        if (vs)
          TRY_SHARD(j, mgpu_copy(ctx, v_out + a * vs, v_in + a * vs,
                                 (b - a) * vs));
      } else {
        size_t end = bounds[i + 2];
        TRY_SHARD(j, mgpu_merge(ctx, ko->t, ko->o, k_in + a * w, b - a,
                                k_in + b * w, end - b, k_out + a * w, vs,
                                vs ? v_in + a * vs : NULL,
                                vs ? v_in + b * vs : NULL,
                                vs ? v_out + a * vs : NULL));
      }
      bounds[m++] = a;
    }
    bounds[m] = bounds[nruns];
    nruns = m;
    for (int x = 0; x < 2; x++) {
      void *t = pl->buf[x][j];
      pl->buf[x][j] = pl->buf[x + 2][j];
      pl->buf[x + 2][j] = t;
      size_t tb = pl->bytes[x][j];
      pl->bytes[x][j] = pl->bytes[x + 2][j];
      pl->bytes[x + 2][j] = tb;
    }
  }
  return MGPU_OK;
}

/* Whether shard j receives elements from more than one run: only then does
 * it merge, and need the scratch pair (sorted input, or a skewed one, often
 * sends each shard a single range). */
static int merges_received(const plan *pl, size_t j) {
  size_t p = pl->p, nonempty = 0;
  for (size_t r = 0; r < pl->R; r++)
    if (pl->xcounts[(r / p) * p * p + (r % p) * p + j] && ++nonempty > 1)
      return 1;
  return 0;
}

static mgpu_status redistribute_planned(mgpu_group *g, const key_order *ko,
                                        size_t vs, const run *runs,
                                        size_t nsets, plan *pl,
                                        size_t *out_counts) {
  size_t p = pl->p, R = pl->R, w = mgpu_dtype_size(ko->t), n = 0;
  for (size_t r = 0; r < R; r++) n += runs[r].n;
  size_t *split = malloc(p * sizeof *split);
  pl->cut = malloc(R * (p + 1) * sizeof *pl->cut);
  pl->xcounts = malloc(nsets * p * p * sizeof *pl->xcounts);
  pl->send_at = malloc(nsets * p * p * sizeof *pl->send_at);
  pl->recv_at = malloc(nsets * p * p * sizeof *pl->recv_at);
  for (int b = 0; b < 4; b++) {
    pl->buf[b] = calloc(p, sizeof *pl->buf[b]);
    pl->bytes[b] = calloc(p, sizeof *pl->bytes[b]);
  }
  size_t *bounds = malloc((R + 1) * sizeof *bounds);
  int lacking = !split || !pl->cut || !pl->xcounts || !pl->send_at ||
                !pl->recv_at || !bounds;
  for (int b = 0; b < 4; b++) lacking |= !pl->buf[b] || !pl->bytes[b];
  mgpu_status st = MGPU_OK;
  if (lacking) {
    st = group_error(g, MGPU_ENOMEM, "out of host memory");
    goto done;
  }
  size_t nsamples = 0;
  if (p > 1) {
    st = choose_splitters(g, ko, runs, pl, n, split, &nsamples);
    if (st == MGPU_OK) st = find_cuts(g, ko, runs, pl, split, nsamples);
    if (st != MGPU_OK) goto done;
  } else {
    for (size_t r = 0; r < R; r++) {
      pl->cut[r * 2] = 0;
      pl->cut[r * 2 + 1] = runs[r].n;
    }
  }
  /* the plan: run r = set * p + k sends its j-th range to shard j, which
   * lays the runs it receives out in run order */
  for (size_t j = 0; j < p; j++) {
    size_t at = 0;
    for (size_t r = 0; r < R; r++) {
      const size_t *cut = pl->cut + r * (p + 1);
      size_t e = (r / p) * p * p + (r % p) * p + j;
      pl->xcounts[e] = cut[j + 1] - cut[j];
      pl->send_at[e] = cut[j];
      pl->recv_at[e] = at;
      at += pl->xcounts[e];
    }
    const size_t limit = mgpu_context_max_count(g->ctxs[j]);
    if (at > limit) {
      st = group_error(g, MGPU_ETOOBIG,
                       "shard %zu would hold %zu elements, past its "
                       "context's limit of %zu",
                       j + 1, at, limit);
      goto done;
    }
    out_counts[j] = at;
  }
  /* every buffer before any data moves */
  for (size_t j = 0; j < p; j++)
    for (int b = 0; b < 4; b++) {
      size_t bytes = out_counts[j] * (b % 2 ? vs : w);
      if ((b % 2 && !vs) || (b >= 2 && !merges_received(pl, j))) continue;
      st = mgpu_alloc(g->ctxs[j], bytes, &pl->buf[b][j]);
      if (st != MGPU_OK) {
        st = shard_error(g, j, st);
        goto done;
      }
      pl->bytes[b][j] = bytes;
    }
  const void **send = malloc(p * sizeof *send);
  void **recv = malloc(p * sizeof *recv);
  if (!send || !recv) {
    free(send);
    free(recv);
    st = group_error(g, MGPU_ENOMEM, "out of host memory");
    goto done;
  }
  for (size_t set = 0; set < nsets && st == MGPU_OK; set++) {
    for (int values = 0; values <= (vs != 0) && st == MGPU_OK; values++) {
      for (size_t k = 0; k < p; k++) {
        const run *ru = &runs[set * p + k];
        send[k] = values ? ru->vals : ru->keys;
        recv[k] = pl->buf[values][k];
      }
      size_t e = set * p * p;
      mgpu_exchange_args a = {g, values ? vs : w, send, recv,
                              pl->xcounts + e, pl->send_at + e,
                              pl->recv_at + e};
      st = g->be->exchange(g->ctxs[0], &a);
      if (st != MGPU_OK) st = shard_error(g, 0, st);
    }
  }
  free(send);
  free(recv);
  for (size_t j = 0; j < p && st == MGPU_OK; j++) {
    /* a single range arrived at 0, as the result */
    if (!merges_received(pl, j)) continue;
    for (size_t r = 0; r < R; r++)
      bounds[r] = pl->recv_at[(r / p) * p * p + (r % p) * p + j];
    bounds[R] = out_counts[j];
    st = merge_received(g, ko, vs, pl, j, bounds, R);
  }
done:
  free(split);
  free(bounds);
  return st;
}

static mgpu_status check_call(mgpu_group *g, mgpu_dtype t, mgpu_order o,
                              size_t vs) {
  if ((unsigned)t >= MGPU_DTYPE_COUNT)
    return group_error(g, MGPU_EINVAL, "unknown dtype %d", (int)t);
  if (o != MGPU_LESS && o != MGPU_GREATER)
    return group_error(g, MGPU_EINVAL, "unknown order %d", (int)o);
  if (vs != 0 && vs != 4 && vs != 8)
    return group_error(g, MGPU_EINVAL, "value_size must be 0, 4 or 8 (got %zu)",
                       vs);
  return MGPU_OK;
}

/* Each shard within its context's limit.  What else limits a shard (cuda's
 * calls that still take int32 index arrays) is the context's own error,
 * named by shard_error. */
static mgpu_status check_counts(mgpu_group *g, const size_t *counts) {
  for (size_t k = 0; k < g->size; k++) {
    const size_t limit = mgpu_context_max_count(g->ctxs[k]);
    if (counts[k] > limit)
      return group_error(g, MGPU_ETOOBIG,
                         "shard %zu has %zu elements, past its context's "
                         "limit of %zu",
                         k + 1, counts[k], limit);
  }
  return MGPU_OK;
}

static mgpu_status redistribute(mgpu_group *g, mgpu_dtype t, mgpu_order o,
                                size_t vs, const run *runs, size_t nsets,
                                void **out_keys, void **out_vals,
                                size_t *out_counts) {
  key_order ko = {t, o};
  plan pl;
  memset(&pl, 0, sizeof pl);
  pl.p = g->size;
  pl.R = nsets * g->size;
  g->error[0] = '\0';
  mgpu_status st = redistribute_planned(g, &ko, vs, runs, nsets, &pl,
                                        out_counts);
  if (st == MGPU_OK) {
    /* the results are the caller's now */
    for (size_t j = 0; j < pl.p; j++) {
      out_keys[j] = pl.buf[0][j];
      if (out_vals) out_vals[j] = vs ? pl.buf[1][j] : NULL;
      pl.buf[0][j] = pl.buf[1][j] = NULL;
    }
  } else {
    for (size_t j = 0; j < pl.p; j++) out_counts[j] = 0;
  }
  plan_free(g, &pl);
  return st;
}

typedef mgpu_status (*local_sort_fn)(mgpu_context *, mgpu_dtype, mgpu_order,
                                     void *, size_t, size_t, void *);

/* Sorts each shard on its context with local_sort, then redistributes. */
static mgpu_status group_sort_with(mgpu_group *g, local_sort_fn local_sort,
                                   mgpu_dtype key_type, mgpu_order order,
                                   size_t value_size, void *const *keys,
                                   void *const *vals, const size_t *counts,
                                   void **out_keys, void **out_vals,
                                   size_t *out_counts) {
  mgpu_status st = check_call(g, key_type, order, value_size);
  if (st == MGPU_OK) st = check_counts(g, counts);
  if (st != MGPU_OK) return st;
  size_t p = g->size;
  run *runs = malloc(p * sizeof *runs);
  if (!runs) return group_error(g, MGPU_ENOMEM, "out of host memory");
  for (size_t k = 0; k < p && st == MGPU_OK; k++) {
    runs[k] = (run){k, keys[k], value_size ? vals[k] : NULL, counts[k]};
    st = local_sort(g->ctxs[k], key_type, order, keys[k], counts[k],
                    value_size, value_size ? vals[k] : NULL);
    if (st != MGPU_OK) st = shard_error(g, k, st);
  }
  if (st == MGPU_OK)
    st = redistribute(g, key_type, order, value_size, runs, 1, out_keys,
                      out_vals, out_counts);
  free(runs);
  return st;
}

mgpu_status mgpu_group_mergesort(mgpu_group *g, mgpu_dtype key_type,
                                 mgpu_order order, size_t value_size,
                                 void *const *keys, void *const *vals,
                                 const size_t *counts, void **out_keys,
                                 void **out_vals, size_t *out_counts) {
  return group_sort_with(g, mgpu_mergesort, key_type, order, value_size, keys,
                         vals, counts, out_keys, out_vals, out_counts);
}

mgpu_status mgpu_group_sort(mgpu_group *g, mgpu_dtype key_type,
                            mgpu_order order, size_t value_size,
                            void *const *keys, void *const *vals,
                            const size_t *counts, void **out_keys,
                            void **out_vals, size_t *out_counts) {
  return group_sort_with(g, mgpu_sort, key_type, order, value_size, keys,
                         vals, counts, out_keys, out_vals, out_counts);
}

mgpu_status mgpu_group_merge(mgpu_group *g, mgpu_dtype key_type,
                             mgpu_order order, size_t value_size,
                             const void *const *a_keys,
                             const void *const *a_vals,
                             const size_t *a_counts,
                             const void *const *b_keys,
                             const void *const *b_vals,
                             const size_t *b_counts, void **out_keys,
                             void **out_vals, size_t *out_counts) {
  mgpu_status st = check_call(g, key_type, order, value_size);
  if (st == MGPU_OK) st = check_counts(g, a_counts);
  if (st == MGPU_OK) st = check_counts(g, b_counts);
  if (st != MGPU_OK) return st;
  size_t p = g->size;
  run *runs = malloc(2 * p * sizeof *runs);
  if (!runs) return group_error(g, MGPU_ENOMEM, "out of host memory");
  /* a's shards then b's: a's ties come first */
  for (size_t k = 0; k < p; k++) {
    runs[k] = (run){k, a_keys[k], value_size ? a_vals[k] : NULL, a_counts[k]};
    runs[p + k] =
        (run){k, b_keys[k], value_size ? b_vals[k] : NULL, b_counts[k]};
  }
  st = redistribute(g, key_type, order, value_size, runs, 2, out_keys,
                    out_vals, out_counts);
  free(runs);
  return st;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return CMP(x, y);
}

mgpu_status mgpu_group_segsort(mgpu_group *g, mgpu_dtype key_type,
                               mgpu_order order, size_t value_size,
                               void *const *keys, void *const *vals,
                               const size_t *counts, const int64_t *heads,
                               size_t m) {
  g->error[0] = '\0';
  mgpu_status st = check_call(g, key_type, order, value_size);
  if (st == MGPU_OK) st = check_counts(g, counts);
  if (st != MGPU_OK) return st;
  int64_t *h = malloc((m ? m : 1) * sizeof *h);
  /* a shard's heads, i32 or i64 by its length (the index dtype rule) */
  void *local = malloc((m ? m : 1) * sizeof(int64_t));
  if (!h || !local) {
    free(h);
    free(local);
    return group_error(g, MGPU_ENOMEM, "out of host memory");
  }
  if (m) memcpy(h, heads, m * sizeof *h);
  qsort(h, m, sizeof *h, cmp_i64);
  /* every check before any shard is sorted */
  int64_t off = 0;
  for (size_t k = 0; k < g->size; k++) {
    if (counts[k] && off > 0 && !bsearch(&off, h, m, sizeof *h, cmp_i64)) {
      st = group_error(g, MGPU_EINVAL,
                       "the segment holding position %lld (0-based) crosses "
                       "into shard %zu: make every shard's first element a "
                       "segment head",
                       (long long)off, k + 1);
      break;
    }
    off += (int64_t)counts[k];
  }
  off = 0;
  size_t i = 0;
  for (size_t k = 0; k < g->size && st == MGPU_OK; k++) {
    int64_t end = off + (int64_t)counts[k];
    const mgpu_dtype ht = mgpu_index_type(counts[k] ? counts[k] - 1 : 0);
    size_t nl = 0;
    while (i < m && h[i] < off) i++;
    for (; i < m && h[i] < end; i++)
      put_index(local, ht, nl++, (uint64_t)(h[i] - off));
    off = end;
    if (counts[k] < 2) continue;
    mgpu_context *ctx = g->ctxs[k];
    void *dev = NULL;
    size_t bytes = nl * index_size(ht);
    st = mgpu_alloc(ctx, bytes, &dev);
    if (st == MGPU_OK) {
      st = mgpu_upload(ctx, dev, local, bytes);
      if (st == MGPU_OK)
        st = mgpu_segsort_idx(ctx, key_type, order, keys[k], counts[k],
                              value_size, value_size ? vals[k] : NULL, dev,
                              ht, nl, NULL);
      mgpu_free(ctx, dev, bytes);
    }
    if (st != MGPU_OK) st = shard_error(g, k, st);
  }
  free(h);
  free(local);
  return st;
}
