/*
 * sort_merge.c - mgpu from a C host: sort two arrays of keys on a context
 * and merge them, through the installed library (mgpu.h, libmgpu).
 *
 *   cc sort_merge.c $(pkg-config --cflags --libs mgpu) && ./a.out [device]
 *   or CMake: find_package(mgpu) and link mgpu::mgpu (CMakeLists.txt here).
 *
 * The device defaults to "cpu"; "cuda" runs the same calls on the GPU.
 */
#include <stdio.h>

#include <mgpu.h>

#define N 8

/* Prints the context's own message of a failed call, and fails. */
static int check(mgpu_context *ctx, mgpu_status s, const char *what) {
  if (s == MGPU_OK) return 0;
  fprintf(stderr, "%s: %s\n", what, ctx ? mgpu_context_error(ctx) : mgpu_status_name(s));
  return 1;
}

int main(int argc, char **argv) {
  const char *device = argc > 1 ? argv[1] : "cpu";
  char err[256];
  mgpu_context *ctx = NULL;
  if (mgpu_context_create(device, &ctx, err, sizeof err) != MGPU_OK) {
    fprintf(stderr, "%s: %s\n", device, err);
    return 1;
  }
  int32_t a[N] = {7, 3, 9, 1, 5, 3, 8, 0}, b[N] = {6, 2, 2, 4, 9, 1, 0, 7};
  int32_t out[2 * N];
  void *da = NULL, *db = NULL, *dout = NULL;
  int bad = check(ctx, mgpu_alloc(ctx, sizeof a, &da), "alloc") ||
            check(ctx, mgpu_alloc(ctx, sizeof b, &db), "alloc") ||
            check(ctx, mgpu_alloc(ctx, sizeof out, &dout), "alloc") ||
            check(ctx, mgpu_upload(ctx, da, a, sizeof a), "upload") ||
            check(ctx, mgpu_upload(ctx, db, b, sizeof b), "upload") ||
            check(ctx, mgpu_mergesort(ctx, MGPU_I32, MGPU_LESS, da, N, 0, NULL), "mergesort") ||
            check(ctx, mgpu_mergesort(ctx, MGPU_I32, MGPU_LESS, db, N, 0, NULL), "mergesort") ||
            check(ctx, mgpu_merge(ctx, MGPU_I32, MGPU_LESS, da, N, db, N, dout, 0, NULL, NULL, NULL), "merge") ||
            check(ctx, mgpu_download(ctx, out, dout, sizeof out), "download");
  if (!bad) {
    printf("%s (%s):", mgpu_context_device(ctx), mgpu_context_backend(ctx));
    for (int i = 0; i < 2 * N; i++) printf(" %d", (int)out[i]);
    printf("\n");
  }
  mgpu_free(ctx, da, sizeof a);
  mgpu_free(ctx, db, sizeof b);
  mgpu_free(ctx, dout, sizeof out);
  mgpu_context_release(ctx);
  return bad;
}
