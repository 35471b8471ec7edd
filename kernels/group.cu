/*
 * group.cu - a group of CUDA contexts: its all-to-all through NCCL, one
 * communicator a device made by ncclCommInitAll in this process, every
 * send and receive queued on its context's stream inside one
 * ncclGroupStart/End so that no rank waits on another's host thread.
 * Without NCCL a group of one device still works (its exchange is a copy
 * on the device); a larger one is refused when it is made.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cuda_internal.cuh"

#ifdef MGPU_HAVE_NCCL
#include <nccl.h>
#endif

static mgpu_status group_fail(mgpu_group *g, mgpu_status s, const char *msg) {
  snprintf(g->error, sizeof g->error, "%s", msg);
  return s;
}

extern "C" mgpu_status mgpu_cuda_group_init(mgpu_group *g) {
  if (g->size == 1) return MGPU_OK;
  for (size_t k = 0; k < g->size; k++)
    for (size_t j = 0; j < k; j++)
      if (g->ctxs[j]->device == g->ctxs[k]->device) {
        snprintf(g->error, sizeof g->error,
                 "contexts %zu and %zu are both on %s: a group's CUDA "
                 "contexts need distinct devices",
                 j, k, g->ctxs[k]->device_name);
        return MGPU_EINVAL;
      }
#ifdef MGPU_HAVE_NCCL
  int p = (int)g->size;
  ncclComm_t *comms = (ncclComm_t *)calloc(g->size, sizeof *comms);
  int *devs = (int *)malloc(g->size * sizeof *devs);
  if (!comms || !devs) {
    free(comms);
    free(devs);
    return group_fail(g, MGPU_ENOMEM, "out of host memory");
  }
  for (int k = 0; k < p; k++) devs[k] = g->ctxs[k]->device;
  ncclResult_t r = ncclCommInitAll(comms, p, devs);
  free(devs);
  if (r != ncclSuccess) {
    free(comms);
    snprintf(g->error, sizeof g->error, "ncclCommInitAll: %s",
             ncclGetErrorString(r));
    return MGPU_EDEVICE;
  }
  g->impl = comms;
  return MGPU_OK;
#else
  return group_fail(g, MGPU_ENODEV,
                    "a group of several CUDA devices needs NCCL, and this "
                    "build of mgpu has none (configure with NCCL found, "
                    "MGPU_WITH_NCCL)");
#endif
}

extern "C" void mgpu_cuda_group_destroy(mgpu_group *g) {
#ifdef MGPU_HAVE_NCCL
  ncclComm_t *comms = (ncclComm_t *)g->impl;
  if (!comms) return;
  for (size_t k = 0; k < g->size; k++) ncclCommDestroy(comms[k]);
  free(comms);
  g->impl = NULL;
#else
  (void)g;
#endif
}

mgpu_status mgpu_cuda_exchange(mgpu_context *ctx, mgpu_exchange_args *a) {
  mgpu_group *g = a->group;
  size_t p = g->size, w = a->width;
  /* what stays on a device is a copy on its stream */
  for (size_t k = 0; k < p; k++) {
    size_t e = k * p + k;
    if (!a->counts[e]) continue;
    mgpu_context *c = g->ctxs[k];
    MGPU_TRY(cuda_enter(c));
    cudaError_t err = cudaMemcpyAsync(
        (char *)a->recv[k] + a->recv_at[e] * w,
        (const char *)a->send[k] + a->send_at[e] * w, a->counts[e] * w,
        cudaMemcpyDeviceToDevice, cuda_of(c)->stream);
    if (err != cudaSuccess) return cuda_fail(ctx, err, "cudaMemcpyAsync");
  }
  if (p == 1) return MGPU_OK;
#ifdef MGPU_HAVE_NCCL
  ncclComm_t *comms = (ncclComm_t *)g->impl;
  ncclResult_t r = ncclGroupStart();
  for (size_t k = 0; k < p && r == ncclSuccess; k++) {
    cudaStream_t s = cuda_of(g->ctxs[k])->stream;
    for (size_t j = 0; j < p && r == ncclSuccess; j++) {
      if (j == k) continue;
      size_t out = k * p + j, in = j * p + k; /* k to j, j to k */
      if (a->counts[out])
        r = ncclSend((const char *)a->send[k] + a->send_at[out] * w,
                     a->counts[out] * w, ncclChar, (int)j, comms[k], s);
      if (r == ncclSuccess && a->counts[in])
        r = ncclRecv((char *)a->recv[k] + a->recv_at[in] * w,
                     a->counts[in] * w, ncclChar, (int)j, comms[k], s);
    }
  }
  ncclResult_t end = ncclGroupEnd();
  if (r == ncclSuccess) r = end;
  if (r != ncclSuccess)
    return mgpu_set_error(ctx, MGPU_EDEVICE, "NCCL exchange: %s",
                          ncclGetErrorString(r));
  return MGPU_OK;
#else
  return mgpu_set_error(ctx, MGPU_ENODEV,
                        "a group of several CUDA devices needs NCCL, and "
                        "this build of mgpu has none");
#endif
}
